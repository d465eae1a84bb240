"""Firefighting Graph's batch engine: thousands of episodes of one parameter set at once.

The steps are played by the same rule functions as ``FirefightingGraphModel``'s
(``dilemmas.models.firefighting_graph.arrays``), over every episode still playing, in the phases of
the rules' "Round": choose (each behaviour's ``batch_decide`` for its seats), transition,
observe, reward, terminate. The model reporters recorded are the DataCollector's columns
(docs/rules/firefighting_graph.md, "Data collected"), with the same values for the same
levels and decisions. Shared mechanism: ``dilemmas.models.batch``.

What a behaviour's ``batch_decide(batch, group, "choose")`` can read (one row per episode
still playing): ``observations`` (each firefighter's flames after the last step, 1 or 0;
-1 before the first step), ``batch.t`` (steps played), the template model ``batch.model``
(parameters, ``n_actions``, ``layout``, ``n_width``) and ``batch.rng``. It returns the
actions ``(episodes, seats)``, integers in ``0 .. n_actions - 1``.
"""

import math

import numpy as np

from dilemmas.models.firefighting_graph import arrays
from dilemmas.models.batch import BatchEngine


class FirefightingGraphBatch(BatchEngine):
    game = "firefighting_graph"
    state = ("levels", "visited", "observations", "rewards", "crew_counts")

    def start(self):
        model, episodes = self.model, self.episodes
        shape = (episodes, *model.levels.shape)
        given = self.parameters.get("initial_levels")
        self.levels = (self.rng.integers(0, model.max_fire_level + 1, size=shape)
                       if given is None else np.broadcast_to(model.initial_levels, shape).copy())
        self.visited = np.full((episodes, model.n_agents), -1)
        self.observations = np.full((episodes, model.n_agents), -1)
        self.rewards = np.zeros((episodes, model.n_agents))
        self.crew_counts = np.zeros((episodes, model.num_houses), dtype=np.int64)

    decisions = ("choose",)

    def blank(self, phase):
        return (np.empty(self.visited.shape, dtype=np.int64),)

    def take(self, phase, decisions):
        """choose: every firefighter goes to the house its action names."""
        (actions,) = decisions
        self.visited = self.model.guarded[np.arange(self.model.n_agents), actions]

    def resolve(self) -> np.ndarray:
        """transition, observe, reward; the episodes that end (terminate)."""
        model = self.model
        cells = arrays.cells_of(self.visited, model.num_houses)
        self.crew_counts = arrays.crews(cells, model.num_houses)
        arrays.transition(self.levels, self.crew_counts, model.table,
                          self.rng.random(self.levels.shape))
        self.observations = arrays.observe(self.levels, cells, model.table,
                                           self.rng.random(self.visited.shape))
        self.rewards = self.rewards + arrays.reward(self.levels, cells, model.shared_reward)
        return arrays.ends(arrays.totals(self.levels), self.t, model.max_steps)

    def model_row(self) -> dict:
        model = self.model
        flat = self.levels.reshape(self.size, -1)
        total = flat.sum(axis=1)
        first = self.t == 0
        k = model.n_agents
        return {
            "step": np.full(self.size, self.t), "mean_fire": total / model.num_houses,
            "max_fire": flat.max(axis=1), "burning_houses": np.count_nonzero(flat, axis=1),
            "total_fire": total,
            "doubled_houses": np.zeros(self.size, dtype=np.int64) if first
            else arrays.doubled(self.crew_counts),
            "mean_reward": self.rewards.sum(axis=1) / k,
            "flame_rate": np.full(self.size, math.nan) if first
            else np.count_nonzero(self.observations, axis=1) / k,
        }

    def agent_row(self) -> dict:
        behaviours = np.array([agent.behaviour for agent in self.model.seats], dtype=object)
        first = self.t == 0
        return {
            "behaviour": np.broadcast_to(behaviours, self.visited.shape),
            # before the first step, none (NaN, as the DataCollector's frame has it)
            "house": np.full(self.visited.shape, math.nan) if first else self.visited,
            "observation": np.full(self.visited.shape, math.nan) if first else self.observations,
            "reward": self.rewards,
        }
