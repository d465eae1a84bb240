"""State Punishment behaviours, the names ``population`` accepts (docs/rules/state_punishment.md,
"Behaviours").

Each agent, on its turn, chooses one action by name from ``model.action_names`` and the
model applies it. Scripted behaviours decide from what their observation shows (their view's
cells, ``p`` and their ledger) and the public rules (values, harms, which kinds are taboo,
the punishment magnitude). "Expected punishment" of a taboo kind is ``magnitude * p``. Each
is written once, over arrays (``batch_decide``, for the seat acting in every episode of a
batch); an agent's ``choose_action`` on the model comes from it
(``dilemmas.agents.decisions``).

``greedy_forager`` -- takes what pays, ignores the harm it does:
  1. Target: of the visible resources, the one with the best value net of expected
     punishment, if that is positive; ties to the nearest (Manhattan), then to the lowest
     (row, col) offset.
  2. Move one step toward it, along rows first, then columns, skipping a direction blocked
     by a wall, an agent or a resource it does not want (net value <= 0); with no target or
     no such direction, a uniformly random move among the free ones; none free: no move.
  3. Vote to decrease p when p > 0 and punishment is what makes a visible taboo resource of
     positive value not worth taking (value > 0 but net <= 0).

``civic_voter`` -- avoids harmful resources and votes on the harm done to it:
  1. Vote to increase p when the harm put on it since its last action is at least 0.5 (and
     p < 1); vote to decrease when that harm is 0 and p >= 0.5; otherwise no vote.
  2. Target: the nearest visible resource with harm <= 0.3 and positive net value (ties to
     the lowest offset); move toward it as the forager does, or at random, never onto a
     resource it does not want (harm > 0.3 or net value <= 0).

In ``"simple"`` mode a vote takes the place of the move; in ``"composite"`` mode it goes with
the move (with no free move it cannot be cast: the agent does "noop").
"""

from typing import ClassVar

import numpy as np
from dilemmas.agents.decisions import ArrayDecisions
from dilemmas.agents.policy import policy_behaviours
from dilemmas.models.gridworld import EpisodeCellAgent
from dilemmas.models.phases import seat_value
from dilemmas.models.state_punishment import arrays
from dilemmas.models.state_punishment.rules import (ACTION_BY_EFFECT, ACTION_MODES, AGENT_CHANNEL,
                                                    HARM, KIND_CHANNEL, KINDS, MOVES, VALUE, WALL)
from dilemmas.models.xp import clamp

#: Each move's offset (in the order of ``MOVES``), rows and columns.
MOVE_ROWS, MOVE_COLS = np.array(list(MOVES.values())).T


def action_of(mode: str, move: str | None, vote: int) -> str:
    """The action of ``mode`` for a move (or None) and a vote (-1, 0, +1): in ``"simple"``
    mode a vote takes the place of the move; in ``"composite"`` mode it goes with the move,
    and without a move it cannot be cast (``"noop"``)."""
    by_effect = ACTION_BY_EFFECT[mode]
    if mode == "simple":
        return by_effect[(None, vote) if vote else (move, 0)]
    return by_effect[(move, vote) if move else (None, 0)]


def action_table(mode: str) -> np.ndarray:
    """``table[move, vote + 1]``: the index in ``mode``'s actions of ``action_of`` for move
    ``move`` (0..3 in the order of ``MOVES``, 4: none) and ``vote``."""
    names = ACTION_MODES[mode]
    return np.array([[names.index(action_of(mode, move, vote)) for vote in (-1, 0, 1)]
                     for move in (*MOVES, None)])


class StatePunishmentAgent(ArrayDecisions, EpisodeCellAgent):
    """A forager in seat ``seat``, playing in world ``seat mod num_worlds``; its state is its
    seat's entries of the model's episode (``model.episode``), its cell a view of its place
    there."""

    behaviour: ClassVar[str] = ""
    #: The method in which a behaviour decides (called at its place in the act phase).
    decisions: ClassVar[tuple[str, ...]] = ("choose_action",)

    def __init__(self, model, seat: int):
        super().__init__(model)
        self.seat = seat
        self.world = seat % model.num_worlds

    reward = seat_value("reward", "cumulative reward")
    collected = seat_value("collected", "resources it collected")
    votes_up = seat_value("votes_up", "votes to increase it cast")
    votes_down = seat_value("votes_down", "votes to decrease it cast")
    harm_received = seat_value("harm_received", "harm put on its ledger, applied or not")
    pending_harm = seat_value("pending_harm", "its ledger: harm not yet applied")

    def observe(self):
        """This agent's observation (see ``dilemmas.models.state_punishment.model.Observation``)."""
        return self.model.observe(self)

    def choose_action(self) -> str:
        raise NotImplementedError


class RandomAgent(StatePunishmentAgent):
    """Uniform over the current action set."""

    behaviour = "random"

    @classmethod
    def batch_decide(cls, batch, group, phase):
        """A uniform action for the seat acting in each episode (``batch.acting``)."""
        count = len(batch.model.action_names)
        return (batch.draw(batch.acting.shape) * count).astype(int)


class ScriptedForager(StatePunishmentAgent):
    """Reading the observation: what is visible, where, and how to step toward it."""

    # For the seat acting in each episode of a batch. Moves are numbered in the order of
    # MOVES (0 up, 1 down, 2 left, 3 right), 4 is none;
    # the view is its cells' channels, ``(E, rows, cols)``.

    @staticmethod
    def batch_read(batch):
        """``(view, me_row, me_col, d_row, d_col, p, harm)`` of the acting seats: their own
        view's channels, their place in it, every cell's offset from there, ``p`` and their
        ledger."""
        xp, model, state = batch.xp, batch.model, batch.current
        seat = batch.acting[:, None]
        cells = arrays.codes(state, model.rules)
        episodes = xp.arange(seat.shape[0])
        if model.full_view:
            view = cells[episodes, xp.asarray(model.rules.world_of)[batch.acting]]
            me_row, me_col = state.row[episodes, batch.acting], state.col[episodes, batch.acting]
        else:
            view = arrays.windows(cells, state, model.rules, model.vision_radius, seat)[:, 0]
            me_row = me_col = xp.full(seat.shape[0], model.vision_radius)
        d_row = xp.broadcast_to(xp.arange(view.shape[1])[None, :, None]
                                - me_row[:, None, None], view.shape)
        d_col = xp.broadcast_to(xp.arange(view.shape[2])[None, None, :]
                                - me_col[:, None, None], view.shape)
        p = arrays.punishment_level(state, model.denominator)
        return (view, me_row, me_col, d_row, d_col, p,
                state.pending_harm[episodes, batch.acting])

    @staticmethod
    def batch_net_values(batch, p):
        """``(E, 5)``: each kind's net value at ``p``."""
        model, xp = batch.model, batch.xp
        taboo = xp.asarray([kind in model.taboo for kind in KINDS])
        return xp.asarray([VALUE[kind] for kind in KINDS]) + xp.where(
            taboo, model.punishment_magnitude * p[:, None], 0.0)

    @staticmethod
    def batch_free(batch, view, me_row, me_col, avoid):
        """``(E, 4)``: whether each move is onto a cell with no wall, no agent and no
        resource of a kind ``avoid`` ``(E, 5)`` marks (a cell outside the view counts as free:
        nothing is known of it)."""
        xp = batch.xp
        episodes = xp.arange(view.shape[0])[:, None]
        row = me_row[:, None] + xp.asarray(MOVE_ROWS)                  # (E, 4)
        col = me_col[:, None] + xp.asarray(MOVE_COLS)
        outside = (row < 0) | (row >= view.shape[1]) | (col < 0) | (col >= view.shape[2])
        there = view[episodes, clamp(row, 0, view.shape[1] - 1),
                     clamp(col, 0, view.shape[2] - 1)]
        kind = clamp(there - KIND_CHANNEL["A"], 0, len(KINDS) - 1)
        avoided = (there >= KIND_CHANNEL["A"]) & (there < AGENT_CHANNEL) & avoid[episodes, kind]
        return outside | ~((there == WALL) | avoided | (there >= AGENT_CHANNEL))

    @staticmethod
    def batch_random_move(batch, free):
        """``(E,)``: a uniformly random free move, 4 when none is free."""
        xp = batch.xp
        count = free.sum(axis=1)
        pick = (batch.draw(count.shape) * count).astype(int)
        rank = xp.cumsum(free, axis=1) - 1
        chosen = xp.argmax(free & (rank == pick[:, None]), axis=1)
        return xp.where(count > 0, chosen, 4)

    @classmethod
    def batch_step_toward(cls, batch, free, d_row, d_col):
        """``(E,)``: the free move toward the offsets, rows first, else a random free
        move."""
        xp = batch.xp
        episodes = xp.arange(free.shape[0])
        vertical = xp.where(d_row < 0, 0, 1)
        horizontal = xp.where(d_col < 0, 2, 3)
        random = cls.batch_random_move(batch, free)
        return xp.where((d_row != 0) & free[episodes, vertical], vertical,
                        xp.where((d_col != 0) & free[episodes, horizontal], horizontal, random))

    @staticmethod
    def batch_action(batch, move, vote):
        """``(E,)``: the action index for a move (0..4) and a vote (-1, 0, +1)."""
        table = batch.xp.asarray(action_table(batch.model.action_mode))
        return table[move, vote + 1]


class GreedyForagerAgent(ScriptedForager):
    """Goes for the best visible value net of expected punishment. Its rules:
    docs/rules/state_punishment.md, "Behaviours"."""

    behaviour = "greedy_forager"

    @classmethod
    def batch_decide(cls, batch, group, phase):
        """``greedy_forager``'s rules for the seat acting in each episode: the best visible
        net value (ties to the nearest, then the smallest ``d_row``, then ``d_col``)."""
        xp, model = batch.xp, batch.model
        view, me_row, me_col, d_row, d_col, p, _ = cls.batch_read(batch)
        net = cls.batch_net_values(batch, p)
        avoid = net <= 0
        visible = (view >= KIND_CHANNEL["A"]) & (view < AGENT_CHANNEL)
        kind = clamp(view - KIND_CHANNEL["A"], 0, len(KINDS) - 1)
        episodes = xp.arange(view.shape[0])[:, None, None]
        worth = xp.where(visible, net[episodes, kind], -xp.inf)
        best = _first_of(xp, visible, (-worth, xp.abs(d_row) + xp.abs(d_col), d_row, d_col))
        target_row, target_col = (xp.where(best, d, 0).sum(axis=(1, 2)) for d in (d_row, d_col))
        chosen = xp.where(best, worth, -xp.inf).max(axis=(1, 2))
        free = cls.batch_free(batch, view, me_row, me_col, avoid)
        move = xp.where(chosen > 0, cls.batch_step_toward(batch, free, target_row, target_col),
                        cls.batch_random_move(batch, free))
        positive = xp.asarray([VALUE[k] > 0 and k in model.taboo for k in KINDS])
        deterred = (visible & (positive & avoid)[episodes, kind]).any(axis=(1, 2))
        return cls.batch_action(batch, move, xp.where(deterred & (p > 0), -1, 0))


class CivicVoterAgent(ScriptedForager):
    """Avoids high-harm resources and votes on the harm it receives. Its rules:
    docs/rules/state_punishment.md, "Behaviours"."""

    behaviour = "civic_voter"
    HARM_HIGH = 0.5
    HARM_TOLERATED = 0.3

    @classmethod
    def batch_decide(cls, batch, group, phase):
        """``civic_voter``'s rules for the seat acting in each episode: the nearest wanted
        resource (ties to the smallest ``d_row``, then ``d_col``)."""
        xp = batch.xp
        view, me_row, me_col, d_row, d_col, p, harm = cls.batch_read(batch)
        vote = xp.where((harm >= cls.HARM_HIGH) & (p < 1), 1,
                        xp.where((harm == 0) & (p >= 0.5), -1, 0))
        harmful = xp.asarray([HARM[kind] > cls.HARM_TOLERATED for kind in KINDS])
        avoid = harmful | (cls.batch_net_values(batch, p) <= 0)
        kind = clamp(view - KIND_CHANNEL["A"], 0, len(KINDS) - 1)
        episodes = xp.arange(view.shape[0])[:, None, None]
        wanted = ((view >= KIND_CHANNEL["A"]) & (view < AGENT_CHANNEL)
                  & ~avoid[episodes, kind])
        target = _first_of(xp, wanted, (xp.abs(d_row) + xp.abs(d_col), d_row, d_col))
        target_row, target_col = (xp.where(target, d, 0).sum(axis=(1, 2)) for d in (d_row, d_col))
        free = cls.batch_free(batch, view, me_row, me_col, avoid)
        move = xp.where(wanted.any(axis=(1, 2)),
                        cls.batch_step_toward(batch, free, target_row, target_col),
                        cls.batch_random_move(batch, free))
        return cls.batch_action(batch, move, vote)


def _first_of(xp, candidates, keys):
    """``(E, rows, cols)``: the one candidate cell of each episode that comes first by
    ``keys`` (each ``(E, rows, cols)``, the smallest first, the next key breaking ties);
    all False where there is no candidate."""
    for key in keys:
        lowest = xp.where(candidates, key, xp.inf).min(axis=(1, 2), keepdims=True)
        candidates = candidates & (key == lowest)
    return candidates


PolicyAgent, QLearningAgent, LinearQAgent = policy_behaviours(StatePunishmentAgent, __name__)


#: Behaviour names for ``population``.
BEHAVIOURS = {cls.behaviour: cls for cls in (
    RandomAgent, GreedyForagerAgent, CivicVoterAgent, PolicyAgent, QLearningAgent, LinearQAgent)}
