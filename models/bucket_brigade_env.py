"""Bucket Brigade for learning agents (docs/rules/bucket_brigade.md, "Learning agents").

A night holds two decisions, so it takes two environment steps: in the ``signal`` phase
every agent signals, in the ``act`` phase it chooses a house and a mode, having seen
tonight's signals. One action space serves both: action ``a`` is house ``a // 2`` with mode
WORK (``a`` even) or REST (odd); in the ``signal`` phase only actions 0 (signal WORK) and 1
(signal REST) are allowed by the mask, and only the parity of ``a`` counts.

The observation vector, from the public observation of the night (``model.observation``),
for ``n`` houses and ``k`` agents, in this order: each house's state one-hot (SAFE,
BURNING, RUINED; ``3n``), the houses the agent owns (``n``), its seat one-hot (``k``), each
agent's location one-hot (``k x n``, seat by seat), who worked last night (``k``), who
signalled WORK last night (``k``), who signals WORK tonight (``k``; zeros in the ``signal``
phase), 1 in the ``act`` phase (1), and the night as a fraction of ``max_steps`` (1).
After the episode, the observation is the one the next night would open with: the town as
it ended. The state is the observation without the agent's own houses and seat.

The tabular features (``q_learning``): 1 in the ``act`` phase (else 0), the seat, the states
of the agent's own houses as one base-3 number (SAFE 0, BURNING 1, RUINED 2; the lowest
house the lowest digit), the number of burning houses (at most 3: "3 or more") and the
number of other agents who signal WORK tonight (0 in the ``signal`` phase).
"""

import numpy as np

from models.bucket_brigade import BURNING, RUINED, SAFE, WORK
from models.env import Interface

MODES = (WORK, "REST")


#: Row ``s`` is the one-hot of the house state ``s`` (SAFE, BURNING, RUINED are 0, 1, 2).
STATES = np.eye(3)[[SAFE, BURNING, RUINED]]


def _flags(values, k, wanted):
    return np.zeros(k) if values is None else np.array([v == wanted for v in values], float)


class BucketBrigadeInterface(Interface):
    phases = ("signal", "act")

    def observation_length(self, model) -> int:
        n, k = model.num_houses, model.num_agents
        return 3 * n + n + k + k * n + 3 * k + 2

    def actions(self, model) -> int:
        return 2 * model.num_houses

    @staticmethod
    def _observation(model, phase):
        """The night's public observation; after the episode, the town as it ended."""
        return model.observation if phase is not None else model.upcoming_observation()

    def vector(self, model, agent, phase) -> np.ndarray:
        return self.observe_all(model, [agent], phase)[0]["observation"]

    def observe_all(self, model, agents, phase) -> list[dict]:
        """The parts every agent shares are built once; each agent adds its own houses and
        seat."""
        if not agents:
            return []
        k, houses, shared = model.num_agents, *self._public(model, phase)
        n, seats = model.num_houses, [agent.seat for agent in agents]
        vectors = np.empty((len(seats), self.observation_length(model)), dtype=np.float32)
        vectors[:, :3 * n] = houses
        vectors[:, 3 * n:4 * n] = np.equal.outer(seats, model.owner)
        vectors[:, 4 * n:4 * n + k] = np.eye(k)[seats]
        vectors[:, 4 * n + k:] = shared
        mask = self._mask(model, phase)
        return [{"observation": vector, "action_mask": mask} for vector in vectors]

    def mask(self, model, agent, phase) -> np.ndarray:
        return self._mask(model, phase)

    def _mask(self, model, phase) -> np.ndarray:
        if phase != "signal":
            return self.all_allowed(model)
        mask = np.zeros(self.actions(model), dtype=np.int8)
        mask[:2] = 1
        mask.flags.writeable = False
        return mask

    def feature_names(self, model) -> tuple[str, ...]:
        return ("act_phase", "seat", "own_houses", "burning", "others_signal_work")

    def features(self, model, agent, vector) -> tuple[int, ...]:
        n, k = model.num_houses, model.num_agents
        states = vector[:3 * n].reshape(n, 3).argmax(axis=1)
        own = states[vector[3 * n:4 * n] > 0]
        tonight = vector[4 * n + k + k * n + 2 * k:4 * n + k + k * n + 3 * k]
        return (int(vector[-2]), agent.seat, int(own @ 3 ** np.arange(len(own))),
                min(int(np.count_nonzero(states == BURNING)), 3),
                int(tonight.sum() - tonight[agent.seat]))

    def decode(self, model, agent, phase, action):
        mode = MODES[action % 2]
        return mode if phase == "signal" else (action // 2, mode)

    def _public(self, model, phase):
        """The houses one-hot, and what follows the agent's own part of the vector."""
        obs, k = self._observation(model, phase), model.num_agents
        houses = STATES[list(obs.houses)].ravel()
        locations = np.eye(model.num_houses)[list(obs.locations)].ravel()
        last_modes = None if obs.last_actions is None else [m for _, m in obs.last_actions]
        tonight = obs.signals if phase == "act" else None
        return houses, np.concatenate([
            locations, _flags(last_modes, k, WORK), _flags(obs.last_signals, k, WORK),
            _flags(tonight, k, WORK), [float(phase == "act")],
            [min(obs.night / model.max_steps, 1.0)]])

    def state(self, model, phase) -> np.ndarray:
        """The public observation without the agent's own part: houses, locations, last
        night's work and signals, tonight's signals, the phase and the night."""
        return np.concatenate(self._public(model, phase)).astype(np.float32)

    def ended_by_rules(self, model) -> bool:
        return model.rules_end()


INTERFACE = BucketBrigadeInterface()
