"""Bucket Brigade's rules over arrays of episodes: the night written once, played by the
batch engine on thousands of episodes of one parameter set at once and by
``BucketBrigadeModel`` on its one (``model.episode``, ``BatchEngine.one``).

The night is the model's declaration (``BucketBrigadeModel.phases``, the nine phases of the
rules' "Round"): the rule phase ``observe``, the decisions ``signal`` and ``act`` (each
behaviour's ``batch_decide`` for its seats; ``take``), then the rule phases
``extinguish``, ``spread``, ``burn_out``, ``spark``, ``reward_and_log`` and ``terminate``,
each a method here over the rule functions of ``dilemmas.models.bucket_brigade.arrays``. The
model reporters recorded are the DataCollector's columns, computed by the same function as the
model's (``arrays.reporters``). Shared mechanism: ``dilemmas.models.batch``.

What a behaviour's ``batch_decide(batch, group, phase)`` can read (arrays with one row per
episode, houses and seats in their order): ``houses`` (the public observation's house
states), ``locations`` (each agent's house), ``last_work`` (who worked last night; all
False on night 1), ``signals`` (tonight's signals, WORK True; in the ``act`` phase),
``batch.t`` (the night), the template model ``batch.model`` (parameters), ``batch.xp``
(numpy or ``jax.numpy``) and ``batch.draw(shape)`` (uniform numbers). In the ``signal``
phase it returns ``(episodes, seats)`` booleans (WORK True), in the ``act`` phase the
houses ``(episodes, seats)`` and the modes (WORK True).
"""

from dilemmas.models.batch import BatchEngine, gathered
from dilemmas.models.bucket_brigade import arrays
from dilemmas.models.bucket_brigade.rules import REST, WORK, initial_fire_count


class BucketBrigadeBatch(BatchEngine):
    game = "bucket_brigade"
    state = ("houses", "locations", "last_work", "signals", "working", "lied",
             "start_houses", "burning_at_start", *arrays.Tally._fields)
    labels = {"signal": (REST, WORK), "mode": (REST, WORK)}

    tally = gathered(arrays.Tally)

    def setup(self):
        """The town after construction: ``rho_ignite`` of the houses burning (one uniform
        number per house), every agent at its first house, nothing added up."""
        model, xp, episodes = self.model, self.xp, self.size
        n, k = model.num_houses, model.num_agents
        self.houses = arrays.ignite(self.draw((episodes, n)),
                                    initial_fire_count(model.rho_ignite, n))
        self.locations = xp.tile(xp.asarray(model.initial_locations), (episodes, 1))
        self.last_work = self.signals = self.working = self.lied = xp.zeros((episodes, k),
                                                                            dtype=bool)
        self.tally = arrays.start_tally(episodes, k, xp)
        self.burning_at_start = xp.zeros(episodes, dtype=bool)
        self.start_houses = self.houses

    def blank(self, phase):
        shape, xp = self.locations.shape, self.xp
        if phase == "signal":
            return (xp.zeros(shape, dtype=bool),)
        return xp.zeros(shape, dtype=int), xp.zeros(shape, dtype=bool)

    def observe(self):
        """Phase 1: the night opens; its houses are the public observation."""
        self.start_houses = self.houses
        self.burning_at_start = self.xp.any(self.houses == arrays.BURNING, axis=1)

    def take(self, phase, decisions):
        """Phase 2, signal: the signals are revealed; phase 3, act: agents move and take
        their modes, and a mode that differs from the agent's signal is a lie."""
        if phase == "signal":
            (self.signals,) = decisions
        else:
            self.locations, self.working = decisions
            self.last_work = self.working
            self.lied = self.working != self.signals

    def extinguish(self):
        """Phase 4: a BURNING house with k workers there becomes SAFE with P = 1 -
        exp(-kappa*k) (one uniform number per house)."""
        self.houses = arrays.extinguish(self.houses, self.locations, self.working,
                                        self.model.p_extinguish, self.draw(self.houses.shape))

    def spread(self):
        """Phase 5: each BURNING house ignites each SAFE neighbour with probability beta (two
        numbers per house; ``arrays.spread``)."""
        self.houses, self.spreaders = arrays.spread(self.houses, self.model.beta,
                                                    self.model.spec,
                                                    self.draw((*self.houses.shape, 2)))

    def burn_out(self):
        """Phase 6: the spreaders (``"spec"``), or every BURNING house (``"reference"``),
        become RUINED."""
        self.houses = arrays.burn_out(self.houses, self.spreaders, self.model.spec)

    def spark(self):
        """Phase 7: on nights t <= N_spark, each SAFE house ignites with probability p_spark
        (one number per house, drawn every night)."""
        sparks = arrays.spark(self.houses, self.model.p_spark, self.draw(self.houses.shape))
        self.houses = self.xp.where(self.t <= self.model.N_spark, sparks, self.houses)

    def reward_and_log(self):
        """Phase 8: tonight's end condition (the rules', or ``max_steps``), tonight's rewards
        and, where the game ends, the end-of-game terms, added up (``night_rewards`` and
        ``terms`` keep tonight's for the model's log)."""
        model = self.model
        self.ends = (arrays.rules_end(self.houses, self.t, model.N_min, model.spec)
                     | (self.t >= model.max_steps))
        self.night_rewards, self.terms = arrays.rewards(
            self.start_houses, self.houses, model.owns, self.working,
            model.work_cost_array, model.weights, model.spec, self.ends)
        self.tally = arrays.add_up(self.tally, self.night_rewards, self.terms, self.working,
                                   self.lied)

    def terminate(self):
        """Phase 9: the episodes whose game ended tonight (tested in phase 8)."""
        return self.ends

    def model_row(self) -> dict:
        model = self.model
        return arrays.reporters(self.t, self.houses, self.signals, self.working, self.lied,
                                self.burning_at_start, self.tally, model.A, model.L, model.c)

    def agent_row(self) -> dict:
        return {"house": self.locations, "signal": self.signals, "mode": self.working,
                "lied": self.lied, "reward": self.tally.rewards}

    def shown(self, model, state):
        """After ``load``: the night's reporters only (its agents are views of the episode: no
        signal or mode before night 1; a loaded night is not added to ``history``)."""
        model.report_night()
