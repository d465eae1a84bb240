"""Bucket Brigade's batch engine: thousands of episodes of one parameter set at once.

The nights are played by the same rule functions as ``BucketBrigadeModel``'s
(``dilemmas.models.bucket_brigade.arrays``), over every episode, in the phases of the
rules' "Round": observe, signal, act (each behaviour's ``batch_decide`` for its seats, in
the order the behaviours first sit), extinguish, spread, burn out, spark, reward and log,
terminate. The model reporters recorded are the DataCollector's columns, computed by the
same function as the model's (``arrays.reporters``). Shared mechanism:
``dilemmas.models.batch``.

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
    decisions = ("signal", "act")
    labels = {"signal": (REST, WORK), "mode": (REST, WORK)}

    tally = gathered(arrays.Tally)

    def setup(self):
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

    def begin_round(self):
        """observe: the night opens, its houses are the public observation."""
        super().begin_round()
        self.start_houses = self.houses
        self.burning_at_start = self.xp.any(self.houses == arrays.BURNING, axis=1)

    def take(self, phase, decisions):
        """signal: the signals are revealed; act: agents move and take their modes, and a
        mode that differs from the agent's signal is a lie."""
        if phase == "signal":
            (self.signals,) = decisions
        else:
            self.locations, self.working = decisions
            self.last_work = self.working
            self.lied = self.working != self.signals

    def resolve(self):
        """extinguish, spread, burn out, spark, reward and log; the episodes that end."""
        model, shape = self.model, self.houses.shape
        houses = arrays.extinguish(self.houses, self.locations, self.working,
                                   model.p_extinguish, self.draw(shape))
        houses, spreaders = arrays.spread(houses, model.beta, model.spec,
                                          self.draw((*shape, 2)))
        houses = arrays.burn_out(houses, spreaders, model.spec)
        sparks = arrays.spark(houses, model.p_spark, self.draw(shape))
        self.houses = self.xp.where(self.t <= model.N_spark, sparks, houses)
        ends = (arrays.rules_end(self.houses, self.t, model.N_min, model.spec)
                | (self.t >= model.max_steps))
        night_rewards, terms = arrays.rewards(
            self.start_houses, self.houses, model.owns, self.working,
            model.work_cost_array, model.weights, model.spec, ends)
        self.tally = arrays.add_up(self.tally, night_rewards, terms, self.working, self.lied)
        return ends

    def model_row(self) -> dict:
        model = self.model
        return arrays.reporters(self.t, self.houses, self.signals, self.working, self.lied,
                                self.burning_at_start, self.tally, model.A, model.L, model.c)

    def agent_row(self) -> dict:
        return {"house": self.locations, "signal": self.signals, "mode": self.working,
                "lied": self.lied, "reward": self.tally.rewards}

    def load(self, model, state):
        """The night ``t``'s houses, decisions and tally as ``BucketBrigadeModel`` holds them
        (``state``, ``locations``, ``signalled``, ``working``, ``lied``, ``tally``,
        ``night``; each agent's ``house``, ``signal``, ``mode``, ``lied``: no signal or
        mode before night 1), and its reporters (``model.report``)."""
        one = {name: value[None] for name, value in state.items() if name != "t"}
        model.night = state["t"]
        model.state, model.locations = one["houses"], one["locations"]
        model.signalled, model.working, model.lied = one["signals"], one["working"], one["lied"]
        model.tally = arrays.Tally(*(one[name] for name in arrays.Tally._fields))
        model.start = one["start_houses"]
        for agent in model.seats:
            agent.house = int(state["locations"][agent.seat])
            words = (REST, WORK)
            agent.signal = words[int(state["signals"][agent.seat])] if state["t"] else None
            agent.mode = words[int(state["working"][agent.seat])] if state["t"] else None
            agent.lied = bool(state["lied"][agent.seat])
        model.report(model.night, model.state, model.signalled, model.working, model.lied,
                     one["burning_at_start"], model.tally, model.A, model.L, model.c)
