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

The vectors are built once, over arrays of ``E`` episodes (``public``, then ``vectors``): the
interface of the Mesa model passes its one episode (``E = 1``), ``batch_observe`` the arrays
of a batch engine's episodes (``dilemmas.models.bucket_brigade.batch``) for the vectorised
environment (``dilemmas.envs.vector``); ``split`` decodes actions for both.
"""

import numpy as np

from dilemmas.models.bucket_brigade import arrays
from dilemmas.models.bucket_brigade.rules import BURNING, REST, RUINED, SAFE, WORK
from dilemmas.models.interface import Interface
from dilemmas.models.xp import namespace, set_at

#: Row ``s`` is the one-hot of the house state ``s`` (SAFE, BURNING, RUINED are 0, 1, 2).
STATES = np.eye(3)[[SAFE, BURNING, RUINED]]


def _flags(values, k, wanted):
    return np.zeros(k) if values is None else np.array([v == wanted for v in values], float)


def split(action):
    """Action ``a`` (an integer or an array of them) -> (house ``a // 2``, WORK: ``a`` even)."""
    return action // 2, action % 2 == 0


def public(model, phase, houses, locations, worked, signalled, tonight, night):
    """What every agent sees alike, for ``E`` episodes: the houses one-hot ``(E, 3n)`` and
    the part of the vector after the agent's own houses and seat ``(E, k n + 3k + 2)``.

    From the night's public observation: ``houses`` ``(E, n)`` states, ``locations``
    ``(E, k)`` houses, who worked and who signalled WORK last night (``worked``,
    ``signalled``, ``(E, k)``, false before night 1), who signals WORK tonight (``tonight``,
    read in the ``act`` phase only) and the ``night`` it opens (a number or ``(E,)``).
    numpy or JAX arrays (``dilemmas.models.xp``)."""
    xp = namespace(houses, locations, worked, signalled, tonight, night)
    episodes, n = houses.shape
    k = model.num_agents
    here = (locations[..., None] == xp.arange(n)).reshape(episodes, k * n)
    heard = tonight if phase == "act" else xp.zeros((episodes, k))
    # the night's fraction divided on the host: XLA divides by a constant inexactly
    fractions = np.minimum(np.arange(model.max_steps + 2) / model.max_steps, 1.0)
    fraction = xp.asarray(fractions)[xp.clip(xp.asarray(night), 0, model.max_steps + 1)]
    clock = xp.stack([xp.full(episodes, float(phase == "act")),
                      xp.broadcast_to(fraction, (episodes,))], axis=1)
    flags = [xp.broadcast_to(xp.asarray(part, dtype=clock.dtype), (episodes, k))
             for part in (worked, signalled, heard)]
    rest = xp.concatenate([here.astype(clock.dtype), *flags, clock], axis=1)
    return xp.asarray(STATES, dtype=clock.dtype)[houses].reshape(episodes, 3 * n), rest


def vectors(model, seats, houses, rest):
    """``(E, len(seats), L)`` float32: the observation vectors of ``seats`` in ``E`` episodes,
    from what they see alike (``public``), each with its own houses and seat."""
    xp = namespace(houses, rest)
    seats = np.asarray(seats)
    episodes, count = houses.shape[0], len(seats)
    own = np.concatenate([np.equal.outer(seats, model.owner),
                          np.eye(model.num_agents)[seats]], axis=1).astype(np.float32)
    return xp.concatenate([
        xp.broadcast_to(houses[:, None].astype(xp.float32), (episodes, count, houses.shape[1])),
        xp.broadcast_to(xp.asarray(own), (episodes, *own.shape)),
        xp.broadcast_to(rest[:, None].astype(xp.float32), (episodes, count, rest.shape[1]))],
        axis=-1)


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
        """The model's one episode through ``vectors`` (``E = 1``)."""
        if not agents:
            return []
        seats = [agent.seat for agent in agents]
        mask = self._mask(model, phase)
        return [{"observation": vector, "action_mask": mask}
                for vector in vectors(model, seats, *self._public(model, phase))[0]]

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
        house, work = split(action)
        mode = WORK if work else REST
        return mode if phase == "signal" else (house, mode)

    def _public(self, model, phase):
        """``public`` of the model's observation (``E = 1``)."""
        obs, k = self._observation(model, phase), model.num_agents
        last_modes = None if obs.last_actions is None else [m for _, m in obs.last_actions]
        return public(model, phase, np.array([obs.houses]), np.array([obs.locations]),
                      _flags(last_modes, k, WORK), _flags(obs.last_signals, k, WORK),
                      _flags(obs.signals if phase == "act" else None, k, WORK), obs.night)

    def state(self, model, phase) -> np.ndarray:
        """The public observation without the agent's own part: houses, locations, last
        night's work and signals, tonight's signals, the phase and the night."""
        return np.concatenate(self._public(model, phase), axis=1)[0].astype(np.float32)

    def ended_by_rules(self, model) -> bool:
        return model.rules_end()

    # Many episodes at once, on the batch engine's arrays (dilemmas.envs).
    def _batch_public(self, batch, phase, memory):
        """``public`` of every episode ``batch`` plays; after the episode (``phase`` None),
        the town as it ended. In the ``act`` phase, last night's signals are those
        ``batch_decisions`` kept."""
        signalled = memory["signalled"] if phase == "act" else batch.signals
        return public(batch.model, phase, batch.houses, batch.locations, batch.last_work,
                      signalled, batch.signals, batch.t + (phase is None))

    def batch_observe(self, batch, seats, phase, memory):
        """``vectors`` of ``seats`` in every episode ``batch`` plays
        (``dilemmas.models.bucket_brigade.batch``) and the phase's mask."""
        shared = self._batch_public(batch, phase, memory)
        return vectors(batch.model, seats, *shared), self._mask(batch.model, phase)

    def batch_state(self, batch, phase, memory):
        """``state`` of every episode ``batch`` plays ``(E, D)``."""
        xp = batch.xp
        return xp.concatenate(self._batch_public(batch, phase, memory), axis=1).astype(
            xp.float32)

    def batch_memory(self, batch) -> dict:
        """Last night's signals, which ``batch_decisions`` keeps when tonight's replace them."""
        return {"signalled": batch.signals}

    def batch_decisions(self, batch, seats, phase, actions, memory) -> tuple:
        """``batch.blank(phase)`` with the columns of ``seats`` decoded from their actions
        ``(E, len(seats))``; keeps last night's signals, which the signals revealed now
        replace, in ``memory``."""
        decided = batch.blank(phase)
        house, work = split(actions)
        columns = (slice(None), np.asarray(seats))
        if phase == "signal":
            memory["signalled"] = batch.signals
            return (set_at(decided[0], columns, work),)
        return set_at(decided[0], columns, house), set_at(decided[1], columns, work)

    def batch_ended_by_rules(self, batch):
        return arrays.rules_end(batch.houses, batch.t, batch.model.N_min, batch.model.spec)


INTERFACE = BucketBrigadeInterface()
