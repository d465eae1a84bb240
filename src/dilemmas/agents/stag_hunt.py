"""Stag Hunt behaviours, the names ``population`` accepts (docs/rules/stag_hunt.md,
"Behaviours").

On its turn an agent chooses one of the nine ``ACTIONS`` (its index) and the model applies
it. ``random`` chooses uniformly. The scripted behaviours are baselines, not learners: they
read the world directly (where the resources and the other agents are, the public rules and
configurations, who is off cooldown) rather than their observation, and find their way by
breadth-first search over free cells (four neighbours, tried N, E, S, W; ties go to the
first found). "In place" at a resource means on a free cell next to it (four neighbours),
facing it; "in my footprint" means my attack, fired now, would hit it.

``hare_hunter`` -- goes for hares:

  1. Attack when off cooldown and a hare is in my footprint.
  2. Otherwise go to the nearest hare (by path) and, in place, turn to face it (and wait
     there while on cooldown).
  3. With no hare reachable, a uniformly random move (forward, backward, step left or right).

``stag_hunter`` -- hunts stags alone: a stag is *taken* while another agent on the grid is
within the attack's reach of it (Chebyshev distance ``model.attack_reach``: anyone farther
cannot hit it).

  1. Attack when off cooldown and my footprint holds a stag and no taken stag.
  2. Otherwise go to the nearest stag that is not taken and face it; with none reachable, a
     random move.

  Two stag hunters therefore never hit one stag in the same turn: whoever hits a stag is
  within reach of it all turn. With ``heal_delay=1`` they never kill a stag of 2 health.

``cooperator`` -- joins another agent at a stag so both strike in the same turn. A
*partner* is another agent on the grid with ``can_hunt``.

  1. Attack when off cooldown and a stag in my footprint is wounded (someone struck it:
     with ``heal_delay=1``, this very turn) -- joining the strike.
  2. Attack when off cooldown and a stag in my footprint is also in the footprint of a
     partner who is off cooldown and has not acted yet this turn -- opening a strike that a
     cooperator partner joins by rule 1 when its turn comes.
  3. Otherwise, with a stag in my footprint, wait there (no-op) -- unless a partner with a
     lower seat waits at another stag: then go and join it (two waiting at different stags
     would wait for ever).
  4. Otherwise go to a stag: one a partner waits at (has in its footprint) if I can reach
     it, else the nearest; face it in place; with none reachable, a random move.

  A cooperator without ``can_hunt`` cannot harm stags: it plays ``hare_hunter``.
"""

from typing import ClassVar

from dilemmas.agents.decisions import ArrayDecisions
from dilemmas.agents.policy import policy_behaviours
from dilemmas.models.gridworld import EpisodeCellAgent
from dilemmas.models.phases import seat_value
from dilemmas.models.stag_hunt import arrays
from dilemmas.models.stag_hunt.maps import HARE, STAG
from dilemmas.models.stag_hunt.rules import ACTIONS, ATTACK, DIRECTIONS, MOVE_TURNS, NOOP
from dilemmas.models.xp import clamp


class StagHuntAgent(ArrayDecisions, EpisodeCellAgent):
    """Agent ``seat`` with its configuration (docs/rules/stag_hunt.md, "World"); its state is
    its seat's entries of the model's episode (``model.episode``), its cell a view of its
    place there. Each built-in behaviour is written once, over arrays (``batch_decide``):
    the batch engine plays it on its episodes, and its ``choose_action`` comes from it on
    the model's one (``dilemmas.agents.decisions``)."""

    behaviour: ClassVar[str] = ""
    #: The method in which a behaviour decides (called at its place in the act phase).
    decisions: ClassVar[tuple[str, ...]] = ("choose_action",)

    orientation = seat_value("orientation", "the way it faces: 0 N, 1 E, 2 S, 3 W")
    health = seat_value("agent_health", "its health")
    reward = seat_value("reward", "cumulative reward paid")
    pending_reward = seat_value("pending", "shares of others' kills not yet paid")
    stags = seat_value("stags", "stags it killed")
    hares = seat_value("hares", "hares it killed")
    ready = seat_value("ready", "whether it has killed a resource")
    removed = seat_value("removed", "off the grid, waiting to return")
    return_turn = seat_value("return_turn", "the turn it returns (None: not removed)", none=-1)
    next_attack = seat_value("next_attack", "the first turn its attack is off cooldown")
    next_punish = seat_value("next_punish", "the first turn its punish beam is off cooldown")
    acted_turn = seat_value("acted", "the last turn it acted (-1: none)")

    def __init__(self, model, seat: int, kind: str, can_hunt: bool,
                 can_receive_shared_reward: bool, exclusive_reward: bool):
        super().__init__(model)
        self.seat = seat
        self.kind = kind
        self.can_hunt = can_hunt
        self.can_receive_shared_reward = can_receive_shared_reward
        self.exclusive_reward = exclusive_reward

    def observe(self):
        """This agent's observation (see ``dilemmas.models.stag_hunt.model.Observation``)."""
        return self.model.observe(self)

    @property
    def shared_turns(self) -> tuple:
        """The last two turns in which it was given a share of another agent's defeat (None:
        none)."""
        episode, seat = self.model.episode, self.seat
        return tuple(None if turn < 0 else turn for turn in
                     (episode.shared_before[0, seat].item(), episode.shared_last[0, seat].item()))

    @property
    def shared_last_turn(self) -> bool:
        """Whether it was given a share of another agent's defeat in the previous turn."""
        return self.model.turn - 1 in self.shared_turns

    def choose_action(self) -> int:
        raise NotImplementedError


class RandomAgent(StagHuntAgent):
    """Uniform over the nine actions."""

    behaviour = "random"

    @classmethod
    def batch_decide(cls, batch, group, phase):
        """A uniform action for the seat acting in each episode."""
        return (batch.draw(batch.acting.shape) * len(ACTIONS)).astype(int)


class ScriptedHunter(StagHuntAgent):
    """Finding, reaching and facing resources (module docstring)."""

    # ``batch`` holds ``current``, a ``dilemmas.models.stag_hunt.arrays.State``, ``acting``
    # (E,) the seat acting in each episode, ``t`` the turn, ``model``, ``rules``
    # (``arrays.rules_of``), ``xp`` and ``draw``.

    @staticmethod
    def batch_seen(batch):
        """``(me, footprints, free)``: the acting seat ``(E, k)``, every agent's attack
        footprint now ``(E, k, height, width)``, and the free cells."""
        state, xp = batch.current, batch.xp
        me = xp.arange(state.row.shape[1]) == batch.acting[:, None]
        cells = arrays.footprints(state.walls, state.row, state.col, state.orientation,
                                  batch.rules.attack) & state.present[..., None, None]
        return me, cells, arrays.free(state)

    @staticmethod
    def batch_mine(batch, values):
        """The acting seat's entry of ``values`` ``(E, k, ...)``."""
        return values[batch.xp.arange(values.shape[0]), batch.acting]

    @classmethod
    def batch_hunt(cls, batch, free, targets):
        """Rules 2-3 of the hunters: toward the nearest of ``targets`` in place, facing it
        (``arrays.approach``); with none reachable, NOOP if the cell ahead is one, else a
        uniformly random move."""
        xp, state = batch.xp, batch.current
        row, col, facing = (cls.batch_mine(batch, a) for a in
                            (state.row, state.col, state.orientation))
        action = arrays.approach(free, targets, row, col, facing)
        height, width = free.shape[1:]
        ahead_row = row + xp.asarray([d for d, _ in DIRECTIONS])[facing]
        ahead_col = col + xp.asarray([d for _, d in DIRECTIONS])[facing]
        on_map = (ahead_row >= 0) & (ahead_row < height) & (ahead_col >= 0) & (ahead_col < width)
        ahead = on_map & targets[xp.arange(free.shape[0]), clamp(ahead_row, 0, height - 1),
                                 clamp(ahead_col, 0, width - 1)]
        moves = xp.asarray(tuple(MOVE_TURNS))
        random = moves[(batch.draw(row.shape) * len(moves)).astype(int)]
        return xp.where(action >= 0, action, xp.where(ahead, NOOP, random))

    @classmethod
    def batch_hare_hunter(cls, batch, me, cells, free):
        """``hare_hunter``'s rules 1-3 for the seat acting in each episode."""
        xp, state = batch.xp, batch.current
        ready = cls.batch_mine(batch, state.next_attack) <= batch.t
        hares = state.resource == HARE
        in_reach = (cls.batch_mine(batch, cells) & hares).any(axis=(1, 2))
        return xp.where(ready & in_reach, ATTACK, cls.batch_hunt(batch, free, hares))


class HareHunterAgent(ScriptedHunter):
    """Goes for the nearest hare (docs/rules/stag_hunt.md, "Behaviours")."""

    behaviour = "hare_hunter"

    @classmethod
    def batch_decide(cls, batch, group, phase):
        return cls.batch_hare_hunter(batch, *cls.batch_seen(batch))


class StagHunterAgent(ScriptedHunter):
    """Hunts the nearest stag no one else is near (docs/rules/stag_hunt.md, "Behaviours")."""

    behaviour = "stag_hunter"

    @classmethod
    def batch_decide(cls, batch, group, phase):
        """``stag_hunter``'s rules 1-2 for the seat acting in each episode."""
        xp, state = batch.xp, batch.current
        me, cells, free = cls.batch_seen(batch)
        height, width = free.shape[1:]
        rows = xp.arange(height)[None, :, None, None]
        cols = xp.arange(width)[None, None, :, None]
        others = state.present & ~me
        near = (xp.maximum(xp.abs(rows - state.row[:, None, None, :]),
                           xp.abs(cols - state.col[:, None, None, :])) <= batch.model.attack_reach)
        stags = state.resource == STAG
        taken = stags & (near & others[:, None, None, :]).any(axis=-1)
        mine = cls.batch_mine(batch, cells) & stags
        ready = cls.batch_mine(batch, state.next_attack) <= batch.t
        strike = ready & mine.any(axis=(1, 2)) & ~(mine & taken).any(axis=(1, 2))
        return xp.where(strike, ATTACK, cls.batch_hunt(batch, free, stags & ~taken))


class CooperatorAgent(ScriptedHunter):
    """Strikes stags together with a partner (docs/rules/stag_hunt.md, "Behaviours")."""

    behaviour = "cooperator"

    @classmethod
    def batch_decide(cls, batch, group, phase):
        """``cooperator``'s rules 1-4 for the seat acting in each episode (a cooperator
        without ``can_hunt`` plays ``hare_hunter``)."""
        xp, state, model = batch.xp, batch.current, batch.model
        me, cells, free = cls.batch_seen(batch)
        hunter = xp.asarray(batch.rules.can_hunt)[batch.acting]
        stags = state.resource == STAG
        footprint = cells & stags[:, None]                                   # (E, k, h, w)
        mine = cls.batch_mine(batch, footprint)
        partners = state.present & ~me & xp.asarray(batch.rules.can_hunt)
        ready = state.next_attack <= batch.t                                 # (E, k)
        wounded = (mine & (state.health < model.stag_health)).any(axis=(1, 2))
        joins = (partners & ready & (state.acted < batch.t)
                 & (footprint & mine[:, None]).any(axis=(2, 3))).any(axis=1)
        strike = cls.batch_mine(batch, ready) & mine.any(axis=(1, 2)) & (wounded | joins)
        waiting = partners & footprint.any(axis=(2, 3))                       # (E, k)
        seats = xp.arange(me.shape[1])
        lower = waiting & (seats < batch.acting[:, None]) \
            & ~(footprint & mine[:, None]).any(axis=(2, 3))
        first = xp.argmax(lower, axis=1)
        row, col, facing = (cls.batch_mine(batch, a) for a in
                            (state.row, state.col, state.orientation))
        to_lower = arrays.approach(free, footprint[xp.arange(me.shape[0]), first], row, col,
                                   facing)
        at_mine = xp.where(lower.any(axis=1), xp.where(to_lower >= 0, to_lower, NOOP), NOOP)
        joined = (footprint & waiting[..., None, None]).any(axis=1)
        to_joined = arrays.approach(free, joined, row, col, facing)
        elsewhere = xp.where(to_joined >= 0, to_joined, cls.batch_hunt(batch, free, stags))
        hunts = xp.where(strike, ATTACK, xp.where(mine.any(axis=(1, 2)), at_mine, elsewhere))
        return xp.where(hunter, hunts, cls.batch_hare_hunter(batch, me, cells, free))


PolicyAgent, QLearningAgent, LinearQAgent = policy_behaviours(StagHuntAgent, __name__)


#: Behaviour names for ``population``.
BEHAVIOURS = {cls.behaviour: cls for cls in (
    RandomAgent, HareHunterAgent, StagHunterAgent, CooperatorAgent, PolicyAgent,
    QLearningAgent, LinearQAgent)}
