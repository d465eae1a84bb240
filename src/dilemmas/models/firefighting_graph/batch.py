"""Firefighting Graph's batch engine: thousands of episodes of one parameter set at once.

The steps are played by the same rule functions as ``FirefightingGraphModel``'s
(``dilemmas.models.firefighting_graph.arrays``), over every episode, in the phases of the
rules' "Round": choose (each behaviour's ``batch_decide`` for its seats), transition,
observe, reward, terminate. The model reporters recorded are the DataCollector's columns,
computed by the same function as the model's (``arrays.reporters``). Shared mechanism:
``dilemmas.models.batch``.

What a behaviour's ``batch_decide(batch, group, "choose")`` can read (one row per episode
still playing): ``observations`` (each firefighter's flames after the last step, 1 or 0;
-1 before the first step), ``batch.t`` (steps played), the template model ``batch.model``
(parameters, ``n_actions``, ``layout``, ``n_width``), ``batch.xp`` (numpy or
``jax.numpy``) and ``batch.draw(shape)`` (uniform numbers). It returns the actions
``(episodes, seats)``, integers in ``0 .. n_actions - 1``.
"""

import math

from dilemmas.models.batch import BatchEngine
from dilemmas.models.firefighting_graph import arrays


class FirefightingGraphBatch(BatchEngine):
    game = "firefighting_graph"
    state = ("levels", "visited", "observations", "rewards", "crew_counts")
    decisions = ("choose",)

    def setup(self):
        model, xp = self.model, self.xp
        shape = (self.size, *model.levels.shape)
        given = self.parameters.get("initial_levels")
        self.levels = ((self.draw(shape) * (model.max_fire_level + 1)).astype(int)
                       if given is None else xp.broadcast_to(xp.asarray(model.initial_levels),
                                                             shape))
        self.visited = self.observations = xp.full((self.size, model.n_agents), -1)
        self.rewards = xp.zeros((self.size, model.n_agents))
        self.crew_counts = xp.zeros((self.size, model.num_houses), dtype=int)

    def blank(self, phase):
        return (self.xp.zeros(self.visited.shape, dtype=int),)

    def take(self, phase, decisions):
        """choose: every firefighter goes to the house its action names."""
        (actions,) = decisions
        model = self.model
        self.visited = self.xp.asarray(model.guarded)[self.xp.arange(model.n_agents), actions]

    def resolve(self):
        """transition, observe, reward; the episodes that end (terminate)."""
        model = self.model
        self.crew_counts = arrays.crews(self.visited, model.num_houses)
        self.levels = arrays.transition(self.levels, self.crew_counts, model.table,
                                        self.draw(self.levels.shape))
        self.observations = arrays.observe(self.levels, self.visited, model.table,
                                           self.draw(self.visited.shape))
        self.rewards = self.rewards + arrays.reward(self.levels, self.visited,
                                                    model.shared_reward)
        return arrays.ends(arrays.totals(self.levels), self.t, model.max_steps)

    def model_row(self) -> dict:
        return arrays.reporters(self.t, self.levels, self.crew_counts, self.observations,
                                self.rewards)

    def agent_row(self) -> dict:
        xp, first = self.xp, self.t == 0
        # before the first step, none (NaN, as the DataCollector's frame has it)
        return {"house": xp.where(first, math.nan, self.visited),
                "observation": xp.where(first, math.nan, self.observations),
                "reward": self.rewards}

    def load(self, model, state):
        """Step ``t``'s levels (into the ``fire`` layer), visits, observations, rewards and
        crews as ``FirefightingGraphModel`` holds them (its agents read those arrays), and
        its reporters (``model._report``)."""
        model.t = state["t"]
        model.levels[:] = state["levels"]
        model.visited, model.observations = state["visited"], state["observations"]
        model.rewards, model.crew_counts = state["rewards"], state["crew_counts"][None]
        model._report()
