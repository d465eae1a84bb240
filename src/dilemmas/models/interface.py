"""How a game shows itself to learning agents: the base of each game's environment encoding
(``dilemmas.models.<game>.env``), which makes the game a PettingZoo environment
(``dilemmas.envs``) and gives its ``policy`` and learning seats their observations
(docs/rules/README.md, "Learning agents")."""

import numpy as np
from gymnasium import spaces

from dilemmas.models.xp import set_at

class Interface:
    """How a game shows itself to learning agents (the base of each game's interface).

    ``phases``: the agent phases in which ``policy`` seats decide. A game defines
    ``observation_length(model)``, ``actions(model)`` (the number of actions),
    ``vector(model, agent, phase)`` (the observation vector), ``decode(model, agent, phase,
    action)`` (the decision the phase's method returns), ``state(model, phase)``, and the
    tabular features of the ``q_learning`` behaviour (``dilemmas.models.learners``):
    ``feature_names(model)`` and ``features(model, agent, vector)``, a tuple of small integers
    computed from the agent's observation vector and what it knows of itself; it may refine
    ``mask``, ``bounds``, ``deciding`` and ``ended_by_rules``. A game with a batch engine adds the
    same encoding over the engine's arrays for ``dilemmas.envs.vector``: ``batch_observe``,
    ``batch_decisions`` and ``batch_ended_by_rules``."""

    phases: tuple[str, ...] = ()

    def deciding(self, model, seats) -> list:
        """Those of ``seats`` (policy or learning seats) that decide this round, in seat
        order."""
        return seats

    def bounds(self, model) -> tuple[np.ndarray | float, np.ndarray | float]:
        """Lowest and highest value of each entry of the observation vector."""
        return 0.0, 1.0

    def mask(self, model, agent, phase) -> np.ndarray:
        """1 for each action that does something now."""
        return self.all_allowed(model)

    def observe(self, model, agent, phase) -> dict:
        return {"observation": self.vector(model, agent, phase),
                "action_mask": self.mask(model, agent, phase)}

    def observe_all(self, model, agents, phase) -> list[dict]:
        """``observe`` for each of ``agents`` (a game may do it at once, for speed)."""
        return [self.observe(model, agent, phase) for agent in agents]

    def all_allowed(self, model) -> np.ndarray:
        """A read-only mask allowing every action, shared by the observations."""
        mask = np.ones(self.actions(model), dtype=np.int8)
        mask.flags.writeable = False
        return mask

    def observation_space(self, model) -> spaces.Box:
        """The space of the observation vectors (each mask beside it: 0 or 1 per action)."""
        low, high = self.bounds(model)
        return spaces.Box(low, high, shape=(self.observation_length(model),), dtype=np.float32)

    def state_space(self, model) -> spaces.Box:
        return spaces.Box(0.0, 1.0, shape=self.state(model, None).shape, dtype=np.float32)

    def ended_by_rules(self, model) -> bool:
        """Whether the rules ended the episode (termination), not ``max_steps``
        (truncation)."""
        return False

    def batch_decisions(self, batch, seats, phase, actions, memory) -> tuple:
        """``batch.blank(phase)`` with the columns of ``seats`` set to their actions (a game
        whose phase decides one array, the actions themselves)."""
        decided = batch.blank(phase)
        return (set_at(decided[0], (slice(None), np.asarray(seats)), actions), *decided[1:])

    def batch_memory(self, batch) -> dict:
        """What the interface keeps from phase to phase, one row per episode, at the start
        (name -> array): nothing, by default."""
        return {}

    def batch_ended_by_rules(self, batch):
        """``ended_by_rules`` for every episode of ``batch``: none, by default."""
        return batch.xp.zeros(batch.size, dtype=bool)
