"""State Punishment behaviours, the names ``population`` accepts (docs/rules/state_punishment.md,
"Behaviours").

Each agent, on its turn, chooses one action by name from ``model.action_names`` and the
model applies it. Scripted behaviours decide from their observation (``self.observe()``,
built only when they ask) and the public rules (values, harms, which kinds are taboo, the
punishment magnitude). "Expected punishment" of a taboo kind is ``magnitude * p``.

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
from mesa.discrete_space import CellAgent

from dilemmas.agents.policy import take_decision
from dilemmas.models.state_punishment.rules import (ACTION_BY_EFFECT, AGENT_CHANNEL, HARM,
                                                    KIND_CHANNEL, KINDS, MOVES, VALUE, WALL)


def _seat_value(field: str, meaning: str) -> property:
    """An agent's entry of a per-seat field of its model's ``state``
    (``dilemmas.models.state_punishment.arrays.State``); setting it gives the model a new
    state."""
    def get(agent):
        return getattr(agent.model.state, field)[0, agent.seat].item()

    def put(agent, value):
        values = getattr(agent.model.state, field).copy()
        values[0, agent.seat] = value
        agent.model.state = agent.model.state._replace(**{field: values})

    return property(get, put, doc=meaning)


class StatePunishmentAgent(CellAgent):
    """A forager in seat ``seat``, playing in world ``seat mod num_worlds``."""

    behaviour: ClassVar[str] = ""

    def __init__(self, model, seat: int):
        super().__init__(model)
        self.seat = seat
        self.world = seat % model.num_worlds

    reward = _seat_value("reward", "cumulative reward")
    collected = _seat_value("collected", "resources it collected")
    votes_up = _seat_value("votes_up", "votes to increase it cast")
    votes_down = _seat_value("votes_down", "votes to decrease it cast")
    harm_received = _seat_value("harm_received", "harm put on its ledger, applied or not")
    pending_harm = _seat_value("pending_harm", "its ledger: harm not yet applied")

    def act(self):
        """Choose an action; the model applies it (docs/rules/state_punishment.md, "Round", 2)."""
        self.model.take_action(self, self.choose_action())

    def observe(self):
        """This agent's observation (see ``dilemmas.models.state_punishment.model.Observation``)."""
        return self.model.observe(self)

    def choose_action(self) -> str:
        raise NotImplementedError

    def action_name(self, move: str | None, vote: int) -> str:
        """The action of the current mode for a move (or None) and a vote (-1, 0, +1)."""
        by_effect = ACTION_BY_EFFECT[self.model.action_mode]
        if self.model.action_mode == "simple":  # a vote takes the place of the move
            return by_effect[(None, vote) if vote else (move, 0)]
        return by_effect[(move, vote) if move else (None, 0)]


class RandomAgent(StatePunishmentAgent):
    """Uniform over the current action set."""

    behaviour = "random"

    def choose_action(self):
        names = self.model.action_names
        return names[int(self.model.random.random() * len(names))]

    @classmethod
    def batch_decide(cls, batch, group, phase):
        """The same choice for the seat acting in each episode (``batch.acting``)."""
        count = len(batch.model.action_names)
        return (batch.draw(batch.acting.shape) * count).astype(int)


class ScriptedForager(StatePunishmentAgent):
    """Reading the observation: what is visible, where, and how to step toward it."""

    def read(self):
        """``(view, p, pending harm, own position in the view)`` from the observation."""
        obs = self.observe()
        view = obs.view[0] if self.model.composite_views else obs.view
        me = tuple(np.argwhere(view[..., AGENT_CHANNEL + self.seat] == 1)[0])
        return view, float(obs.features[0]), float(obs.features[1]), me

    def net_value(self, kind, p):
        punished = kind in self.model.taboo
        return VALUE[kind] + (self.model.punishment_magnitude * p if punished else 0.0)

    @staticmethod
    def visible(view, me):
        """``(kind, d_row, d_col)`` of every visible resource, by offset from ``me``."""
        found = []
        for kind in KINDS:
            for row, col in np.argwhere(view[..., KIND_CHANNEL[kind]] == 1):
                found.append((kind, int(row) - me[0], int(col) - me[1]))
        return found

    def free_moves(self, view, me, avoid):
        """Moves onto a cell with no wall, no agent and no resource of a kind in ``avoid``
        (a cell outside the view counts as free: nothing is known of it)."""
        blocked = [WALL, *(KIND_CHANNEL[kind] for kind in avoid)]
        free = []
        for move, (dr, dc) in MOVES.items():
            row, col = me[0] + dr, me[1] + dc
            if not (0 <= row < view.shape[0] and 0 <= col < view.shape[1]) or not (
                    view[row, col, blocked].any() or view[row, col, AGENT_CHANNEL:].any()):
                free.append(move)
        return free

    def step_toward(self, view, me, d_row, d_col, avoid):
        """A free move toward the offset (rows first), else a random free move."""
        free = self.free_moves(view, me, avoid)
        if d_row and ("up" if d_row < 0 else "down") in free:
            return "up" if d_row < 0 else "down"
        if d_col and ("left" if d_col < 0 else "right") in free:
            return "left" if d_col < 0 else "right"
        return self.random_move(free)

    def random_move(self, free):
        """A uniformly random move among ``free`` ones, or None when there is none."""
        return free[int(self.model.random.random() * len(free))] if free else None


class GreedyForagerAgent(ScriptedForager):
    """Goes for the best visible value net of expected punishment. Its rules:
    docs/rules/state_punishment.md, "Behaviours"."""

    behaviour = "greedy_forager"

    def choose_action(self):
        view, p, _, me = self.read()
        seen = self.visible(view, me)
        avoid = [kind for kind in KINDS if self.net_value(kind, p) <= 0]
        best = max(seen, default=None, key=lambda s: (
            self.net_value(s[0], p), -(abs(s[1]) + abs(s[2])), -s[1], -s[2]))
        if best is not None and self.net_value(best[0], p) > 0:
            move = self.step_toward(view, me, best[1], best[2], avoid)
        else:
            move = self.random_move(self.free_moves(view, me, avoid))
        deterred = any(VALUE[kind] > 0 and kind in self.model.taboo
                       and self.net_value(kind, p) <= 0 for kind, _, _ in seen)
        return self.action_name(move, -1 if deterred and p > 0 else 0)


class CivicVoterAgent(ScriptedForager):
    """Avoids high-harm resources and votes on the harm it receives. Its rules:
    docs/rules/state_punishment.md, "Behaviours"."""

    behaviour = "civic_voter"
    HARM_HIGH = 0.5
    HARM_TOLERATED = 0.3

    def choose_action(self):
        view, p, harm, me = self.read()
        if harm >= self.HARM_HIGH and p < 1:
            vote = 1
        elif harm == 0 and p >= 0.5:
            vote = -1
        else:
            vote = 0
        avoid = [kind for kind in KINDS
                 if HARM[kind] > self.HARM_TOLERATED or self.net_value(kind, p) <= 0]
        wanted = [s for s in self.visible(view, me) if s[0] not in avoid]
        target = min(wanted, default=None, key=lambda s: (abs(s[1]) + abs(s[2]), s[1], s[2]))
        if target:
            move = self.step_toward(view, me, target[1], target[2], avoid)
        else:
            move = self.random_move(self.free_moves(view, me, avoid))
        return self.action_name(move, vote)


class PolicyAgent(StatePunishmentAgent):
    """Plays the model's ``policy``, deciding at the start of the act phase on what it sees
    then (docs/policies.md)."""

    behaviour = "policy"
    decision = None

    choose_action = take_decision


class QLearningAgent(PolicyAgent):
    """Learns by tabular Q-learning over the game's features, from its own rewards
    (docs/learning.md)."""

    behaviour = "q_learning"
    experience, paid = None, 0.0


class LinearQAgent(PolicyAgent):
    """Learns by Q-learning linear in its observation vector, from its own rewards
    (docs/learning.md)."""

    behaviour = "linear_q"
    experience, paid = None, 0.0


#: Behaviour names for ``population``.
BEHAVIOURS = {cls.behaviour: cls for cls in (
    RandomAgent, GreedyForagerAgent, CivicVoterAgent, PolicyAgent, QLearningAgent, LinearQAgent)}
