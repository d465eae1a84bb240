"""State Punishment for learning agents (docs/rules/state_punishment.md, "Learning agents").

Agents act one after another in a turn, but an environment's agents decide together: every
``policy`` seat observes at the start of the act phase (after the turn's spawning) and acts
at its turn with the action it chose then. The action is the index of one of the current
mode's actions (``model.action_names``: 7 in ``"simple"`` mode, 13 in ``"composite"``);
every action is allowed (a blocked move still applies the agent's pending harm).

The observation vector is the rules' observation flattened: the one-hot view (the window of
``2 * vision_radius + 1`` cells a side, or the whole world with ``full_view``; with
``composite_views`` every agent's view, its own first), channels last, then the three
features (punishment level, the agent's harm not yet applied, a uniform number), as
float32. The state is each world's walls, resources by kind and agents, then the
punishment level.

The tabular features (``q_learning``), from the agent's own view: the kind of the nearest
resource it sees (0 none, 1..5 for A..E; nearest by steps, ties to the first in row-major
order), the move towards it (0 up, 1 down, 2 left, 3 right: along the longer axis, the rows
on a tie; 0 when none), 1 if it is one move away, and the punishment level in tenths
(rounded).
"""

import numpy as np

from dilemmas.models.interface import Interface
from dilemmas.models.xp import set_at
from dilemmas.models.state_punishment import arrays
from dilemmas.models.state_punishment.rules import AGENT_CHANNEL, KIND_CHANNEL, KINDS


class StatePunishmentInterface(Interface):
    phases = ("act",)

    def _view_size(self, model) -> int:
        side = 2 * model.vision_radius + 1
        cells = model.height * model.width if model.full_view else side * side
        views = model.num_agents if model.composite_views else 1
        return views * cells * (AGENT_CHANNEL + model.num_agents)

    def observation_length(self, model) -> int:
        return self._view_size(model) + 3

    def bounds(self, model):
        high = np.ones(self.observation_length(model), dtype=np.float32)
        high[-2] = np.inf  # harm waiting to be applied has no upper bound
        return np.zeros_like(high), high

    def actions(self, model) -> int:
        return len(model.action_names)

    def vector(self, model, agent, phase) -> np.ndarray:
        observation = model.observe(agent)
        return np.concatenate([observation.view.ravel(),
                               observation.features.astype(np.float32)])

    def feature_names(self, model) -> tuple[str, ...]:
        return ("nearest_kind", "move_towards", "adjacent", "punishment_tenths")

    def features(self, model, agent, vector) -> tuple[int, ...]:
        channels = AGENT_CHANNEL + model.num_agents
        shape = (model.height, model.width) if model.full_view \
            else (2 * model.vision_radius + 1,) * 2
        view = vector[:shape[0] * shape[1] * channels].reshape(*shape, channels)
        if model.full_view:
            here = np.argwhere(view[..., AGENT_CHANNEL + agent.seat] > 0)[0]
        else:
            here = np.array([model.vision_radius] * 2)
        level = int(round(float(vector[-3]) * 10))
        cells = np.argwhere(view[..., KIND_CHANNEL["A"]:AGENT_CHANNEL].any(axis=-1))
        if not len(cells):
            return 0, 0, 0, level
        offsets = cells - here
        nearest = int(np.argmin(np.abs(offsets).sum(axis=1)))
        (dr, dc), (row, col) = offsets[nearest], cells[nearest]
        kind = int(np.argmax(view[row, col, KIND_CHANNEL["A"]:AGENT_CHANNEL])) + 1
        move = (0 if dr < 0 else 1) if abs(dr) >= abs(dc) else (2 if dc < 0 else 3)
        return kind, move, int(abs(dr) + abs(dc) == 1), level

    def decode(self, model, agent, phase, action):
        return model.action_names[action]

    def batch_observe(self, batch, seats, phase, memory):
        """The vectors of ``seats`` in every episode ``batch`` plays
        (``dilemmas.models.state_punishment.batch``), built from the same views as
        ``vector`` (``arrays.views``), the uniform feature drawn from the batch's numbers; and
        the mask (every action allowed)."""
        model, state, xp = batch.model, batch.current, batch.xp
        chosen = xp.broadcast_to(xp.asarray(seats), (batch.size, len(seats)))
        views = arrays.views(state, model.rules, model.vision_radius, model.full_view,
                             model.composite_views, chosen)
        level = arrays.punishment_level(state, model.denominator)
        features = xp.stack([xp.broadcast_to(level[:, None], chosen.shape),
                             state.pending_harm[:, seats], batch.draw(chosen.shape)], axis=-1)
        vectors = xp.concatenate([views.reshape(*chosen.shape, -1),
                                  features.astype(xp.float32)], axis=-1)
        return vectors, self.all_allowed(model)

    def batch_state(self, batch, phase, memory):
        """``state`` of every episode ``batch`` plays ``(E, D)``, from its arrays: per world,
        its walls, each kind's resources and its agents, then ``p``."""
        model, state, xp = batch.model, batch.current, batch.xp
        rules = model.rules
        episodes, k = state.row.shape
        agents = set_at(xp.zeros(state.resource.shape, dtype=bool),
                        (xp.arange(episodes)[:, None], xp.asarray(rules.world_of), state.row,
                         state.col), True)
        walls = xp.broadcast_to(xp.asarray(~arrays.inside(rules)), state.resource.shape)
        kinds = [state.resource == code for code in range(1, len(KINDS) + 1)]
        layers = xp.stack([walls, *kinds, agents], axis=2).astype(xp.float32)
        level = arrays.punishment_level(state, model.denominator).astype(xp.float32)
        return xp.concatenate([layers.reshape(episodes, -1), level[:, None]], axis=1)

    def state(self, model, phase) -> np.ndarray:
        parts = []
        for grid in model.grids:
            resources = grid.resource.data
            agents = np.zeros(resources.shape)
            for agent in model.seats:
                if agent.cell is not None and agent.world == model.grids.index(grid):
                    agents[agent.cell.coordinate] = 1
            parts += [grid.wall.data.ravel(), *((resources == k + 1).ravel()
                                                for k in range(len(KINDS))), agents.ravel()]
        return np.concatenate([*parts, [model.punishment_level]]).astype(np.float32)


INTERFACE = StatePunishmentInterface()
