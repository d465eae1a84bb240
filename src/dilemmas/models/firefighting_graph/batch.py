"""Firefighting Graph's rules over arrays of episodes: the round written once, played by the
batch engine on thousands of episodes of one parameter set at once and by
``FirefightingGraphModel`` on its one (``model.episode``, ``BatchEngine.one``).

The round is the model's declaration (``FirefightingGraphModel.phases``, the phases of the
rules' "Round"): choose (each behaviour's ``batch_decide`` for its seats; ``take``), then the
rule phases ``transition``, ``observe``, ``reward`` and ``terminate``, each a method here
over the rule functions of ``dilemmas.models.firefighting_graph.arrays``. The model reporters
recorded are the DataCollector's columns, computed by the same function as the model's
(``arrays.reporters``). Shared mechanism: ``dilemmas.models.batch``.

What a behaviour's ``batch_decide(batch, group, "choose")`` can read (one row per episode
still playing): ``observations`` (each firefighter's flames after the last step, 1 or 0;
-1 before the first step), ``batch.t`` (the step being played, from 1), the template model
``batch.model`` (parameters, ``n_actions``, ``layout``, ``n_width``), ``batch.xp`` (numpy
or ``jax.numpy``) and ``batch.draw(shape)`` (uniform numbers). It returns the actions
``(episodes, seats)``, integers in ``0 .. n_actions - 1``.
"""

import math

from dilemmas.models.batch import BatchEngine
from dilemmas.models.firefighting_graph import arrays


class FirefightingGraphBatch(BatchEngine):
    game = "firefighting_graph"
    state = ("levels", "visited", "observations", "rewards", "crew_counts")

    def setup(self, levels=None):
        """The arrays after construction: ``levels`` (the model's own first levels), else
        ``initial_levels``, else drawn uniformly from 0 .. ``max_fire_level``."""
        model, xp = self.model, self.xp
        shape = (self.size, *model.levels.shape)
        given = self.parameters.get("initial_levels")
        if levels is not None:
            self.levels = levels
        elif given is None:
            self.levels = (self.draw(shape) * (model.max_fire_level + 1)).astype(int)
        else:
            self.levels = xp.broadcast_to(xp.asarray(model.initial_levels), shape)
        self.visited = xp.full((self.size, model.n_agents), -1)
        self.observations = xp.full((self.size, model.n_agents), -1)
        self.rewards = xp.zeros((self.size, model.n_agents))
        self.crew_counts = xp.zeros((self.size, model.num_houses), dtype=int)

    def blank(self, phase):
        return (self.xp.zeros(self.visited.shape, dtype=int),)

    def take(self, phase, decisions):
        """choose: every firefighter goes to the house its action names (``guarded``)."""
        (actions,) = decisions
        model = self.model
        self.visited = self.xp.asarray(model.guarded)[self.xp.arange(model.n_agents), actions]

    def transition(self):
        """The rules' transition table, for all houses at once, from the state before this
        step (``arrays.transition``): one uniform draw per house."""
        self.crew_counts = arrays.crews(self.visited, self.model.num_houses)
        self.levels = arrays.transition(self.levels, self.crew_counts, self.model.table,
                                        self.draw(self.levels.shape))

    def observe(self):
        """Each firefighter sees flames at its house with p_observe[min(level, 2)]."""
        self.observations = arrays.observe(self.levels, self.visited, self.model.table,
                                           self.draw(self.visited.shape))

    def reward(self):
        """Minus the level of the house visited, or minus the total with shared_reward."""
        self.rewards = self.rewards + arrays.reward(self.levels, self.visited,
                                                    self.model.shared_reward)

    def terminate(self):
        """The episodes that end: every house at 0, or exactly ``max_steps`` steps."""
        return arrays.ends(arrays.totals(self.levels), self.t, self.model.max_steps)

    def model_row(self) -> dict:
        return arrays.reporters(self.t, self.levels, self.crew_counts, self.observations,
                                self.rewards)

    def agent_row(self) -> dict:
        xp, first = self.xp, self.t == 0
        # before the first step, none (NaN, as the DataCollector's frame has it)
        return {"house": xp.where(first, math.nan, self.visited),
                "observation": xp.where(first, math.nan, self.observations),
                "reward": self.rewards}
