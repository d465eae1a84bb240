"""Stag Hunt for learning agents (docs/rules/stag_hunt.md, "Learning agents").

The environment's agents are the ``policy`` seats spawned in the episode; seats not spawned
never play and are not among its agents. Hunters act one after another in a turn, but an
environment's agents decide together: every policy seat observes at the start of the act
phase and acts at its turn with the action it chose then. The action is one of the nine
actions (``ACTIONS``). The mask forbids ATTACK and PUNISH on cooldown (they would do
nothing); a removed hunter, waiting to return, stays an agent whose only allowed action is
NOOP and whose observation is all zeros.

In the vectorised environment (``dilemmas.vector_env``) the agents are every ``policy`` seat:
in an episode that did not spawn a seat, that agent is treated as a removed one (an
observation of zeros, NOOP only, reward 0).

The observation vector is the rules' observation flattened (``Observation.vector``: the
window with its beam channels, the four features, the positional encoding), of length
``model.observation_size``. The state is the world: walls, stags, hares, hunters, and this
turn's attack and punish beams, each a grid of 0 and 1; then, seat by seat (every configured
seat, zeros while off the grid): on the grid, facing N/E/S/W one-hot, health as a fraction of
``agent_health``, attack ready, punish ready, stags and hares held.

The tabular features (``q_learning``), from the window and the agent's own facing: for the
nearest stag it sees (by Chebyshev distance, ties to the first in row-major order), where it
lies in the agent's frame, ``3 * (sign(ahead) + 1) + sign(right) + 1`` (9: none seen), 1 if
it is on a neighbouring cell, and 1 if another hunter stands on a cell next to it; then the
same direction and neighbour flag for the nearest hare.
"""

import numpy as np
from gymnasium import spaces

from dilemmas.models.interface import Interface
from dilemmas.models.xp import set_at
from dilemmas.models.stag_hunt import arrays
from dilemmas.models.stag_hunt.maps import HARE, STAG
from dilemmas.models.stag_hunt.rules import (ACTIONS, ATTACK, DIRECTIONS, HARE_CHANNEL,
                                             KIND_CHANNEL, NOOP, PUNISH, STAG_CHANNEL)


class StagHuntInterface(Interface):
    phases = ("act",)

    def deciding(self, model, seats) -> list:
        playing = set(model.agents)
        return [agent for agent in seats if agent in playing]

    def observation_length(self, model) -> int:
        return model.observation_size

    def bounds(self, model):
        high = np.ones(model.observation_size, dtype=np.float32)
        view = model.observation_size - 4 - model.embedding_size ** 2
        high[view:view + 2] = np.inf  # stags and hares held
        return np.zeros_like(high), high

    def actions(self, model) -> int:
        return len(ACTIONS)

    def vector(self, model, agent, phase) -> np.ndarray:
        if agent.cell is None:
            return np.zeros(model.observation_size, dtype=np.float32)
        return model.observe(agent).vector()

    def mask(self, model, agent, phase) -> np.ndarray:
        mask = np.ones(len(ACTIONS), dtype=np.int8)
        if agent.cell is None:
            mask[:] = 0
            mask[NOOP] = 1
            return mask
        mask[ATTACK] = agent.next_attack <= model.turn
        mask[PUNISH] = agent.next_punish <= model.turn
        return mask

    def batch_observe(self, batch, seats, phase, memory):
        """The vectors and masks of ``seats`` in every episode ``batch`` plays
        (``dilemmas.models.stag_hunt.batch``), built as ``vector`` and ``mask`` build them
        (``arrays.observation``)."""
        model, state, xp = batch.model, batch.current, batch.xp
        chosen = xp.broadcast_to(xp.asarray(seats), (batch.size, len(seats)))
        view, features, position = arrays.observation(
            state, model.rules, batch.t, chosen, model.vision_radius, model.channels,
            model.embedding_size)
        vectors = xp.concatenate([view.reshape(*chosen.shape, -1), features, position], axis=-1)
        e = xp.arange(batch.size)[:, None]
        here = state.present[e, chosen][..., None]
        action = xp.arange(len(ACTIONS))
        mask = xp.where(action == NOOP, True, here)
        mask = xp.where(action == ATTACK, here & (state.next_attack[e, chosen] <= batch.t)[
            ..., None], mask)
        mask = xp.where(action == PUNISH, here & (state.next_punish[e, chosen] <= batch.t)[
            ..., None], mask)
        return xp.where(here, vectors, 0.0).astype(xp.float32), mask.astype(xp.int8)

    def feature_names(self, model) -> tuple[str, ...]:
        return ("stag_direction", "stag_adjacent", "hunter_at_stag", "hare_direction",
                "hare_adjacent")

    def features(self, model, agent, vector) -> tuple[int, ...]:
        side = 2 * model.vision_radius + 1
        view = vector[:side * side * model.channels].reshape(side, side, model.channels)
        (fr, fc), (rr, rc) = DIRECTIONS[agent.orientation], \
            DIRECTIONS[(agent.orientation + 1) % 4]
        hunters = np.argwhere(view[..., KIND_CHANNEL:model.channels - 2].any(axis=-1))
        hunters = hunters[np.abs(hunters - model.vision_radius).max(axis=1) > 0]
        found = []
        for channel in (STAG_CHANNEL, HARE_CHANNEL):
            cells = np.argwhere(view[..., channel] > 0)
            if not len(cells):
                found.append((9, 0, 0))
                continue
            offsets = cells - model.vision_radius
            nearest = int(np.argmin(np.abs(offsets).max(axis=1)))
            dr, dc = offsets[nearest]
            ahead, right = dr * fr + dc * fc, dr * rr + dc * rc
            partner = bool(len(hunters)) and \
                bool((np.abs(hunters - cells[nearest]).max(axis=1) == 1).any())
            found.append((int(3 * (np.sign(ahead) + 1) + np.sign(right) + 1),
                          int(max(abs(dr), abs(dc)) == 1), int(partner)))
        (stag, stag_adjacent, partner), (hare, hare_adjacent, _) = found
        return stag, stag_adjacent, partner, hare, hare_adjacent

    def decode(self, model, agent, phase, action):
        return action

    #: Per seat in the state: on the grid, facing N/E/S/W, health (a fraction), attack
    #: ready, punish ready, stags held, hares held (the last two unbounded).
    SEAT_FEATURES = 10

    def state(self, model, phase) -> np.ndarray:
        hunters = np.zeros(model.walls.shape)
        for agent in model.agents:
            if agent.cell is not None:
                hunters[agent.cell.coordinate] = 1
        layers = (model.walls, model.resource_kinds == STAG, model.resource_kinds == HARE,
                  hunters, model.attack_beam, model.punish_beam)
        seats = np.zeros((len(model.seats), self.SEAT_FEATURES))
        for agent in model.seats:
            if agent.cell is not None:
                row = seats[agent.seat]
                row[0], row[1 + agent.orientation] = 1, 1
                row[5] = agent.health / model.agent_health
                row[6] = agent.next_attack <= model.turn
                row[7] = agent.next_punish <= model.turn
                row[8:10] = agent.stags, agent.hares
        return np.concatenate([*(np.ravel(layer) for layer in layers),
                               seats.ravel()]).astype(np.float32)

    def batch_state(self, batch, phase, memory):
        """``state`` of every episode ``batch`` plays ``(E, D)``, from its arrays."""
        model, state, xp = batch.model, batch.current, batch.xp
        episodes, k = state.row.shape
        e = xp.arange(episodes)[:, None]
        hunters = set_at(xp.zeros(state.walls.shape, dtype=bool), (e, state.row, state.col),
                         state.present)
        layers = (state.walls, state.resource == STAG, state.resource == HARE, hunters,
                  state.attack_beam, state.punish_beam)
        here = state.present
        parts = [layer.reshape(episodes, -1).astype(xp.float32) for layer in layers]
        columns = [here, *(here & (state.orientation == d) for d in range(4)),
                   xp.where(here, state.agent_health / model.agent_health, 0.0),
                   here & (state.next_attack <= batch.t), here & (state.next_punish <= batch.t),
                   xp.where(here, state.stags, 0), xp.where(here, state.hares, 0)]
        seats = xp.stack([column.astype(xp.float32) for column in columns], axis=-1)
        return xp.concatenate([*parts, seats.reshape(episodes, -1)], axis=1)

    def state_space(self, model) -> spaces.Box:
        high = np.ones(self.state(model, None).shape, dtype=np.float32)
        seats = high[-len(model.seats) * self.SEAT_FEATURES:].reshape(-1, self.SEAT_FEATURES)
        seats[:, 8:10] = np.inf
        return spaces.Box(np.zeros_like(high), high, dtype=np.float32)


INTERFACE = StagHuntInterface()
