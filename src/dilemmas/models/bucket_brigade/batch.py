"""Bucket Brigade's batch engine: thousands of episodes of one parameter set at once.

The nights are played by the same rule functions as ``BucketBrigadeModel``'s
(``dilemmas.models.bucket_brigade.arrays``), over every episode still playing, in the phases of the
rules' "Round": observe, signal, act (each behaviour's ``batch_decide`` for its seats, in
the order the behaviours first sit), extinguish, spread, burn out, spark, reward and log,
terminate. The model reporters recorded are the DataCollector's columns
(docs/rules/bucket_brigade.md, "Data collected"), with the same values for the same houses
and decisions. Shared mechanism: ``dilemmas.models.batch``.

What a behaviour's ``batch_decide(batch, group, phase)`` can read (arrays with one row per
episode still playing, houses and seats in their order): ``houses`` (the public
observation's house states), ``locations`` (each agent's house), ``last_work`` (who worked
last night; all False on night 1), ``signals`` (tonight's signals, WORK True; in the
``act`` phase), ``batch.t`` (the night), the template model ``batch.model`` (parameters)
and ``batch.rng``. In the ``signal`` phase it returns ``(episodes, seats)`` booleans (WORK
True), in the ``act`` phase the houses ``(episodes, seats)`` and the modes (WORK True).
"""

import math

import numpy as np

from dilemmas.models.batch import BatchEngine
from dilemmas.models.bucket_brigade import arrays
from dilemmas.models.bucket_brigade.rules import REST, WORK, initial_fire_count


class BucketBrigadeBatch(BatchEngine):
    game = "bucket_brigade"
    state = ("houses", "locations", "last_work", "signals", "working", "lied", "rewards",
             "worker_nights", "cumulative_lies", "total_reward", "start_houses",
             "burning_at_start", "counted", "workers", "signals_work", "lies")

    def start(self):
        model, episodes = self.model, self.episodes
        n, k = model.num_houses, model.num_agents
        self.houses = arrays.ignite(self.rng.random((episodes, n)),
                                    initial_fire_count(model.rho_ignite, n))
        self.locations = np.tile(np.array(model.initial_locations), (episodes, 1))
        self.last_work = np.zeros((episodes, k), dtype=bool)
        self.signals = np.zeros((episodes, k), dtype=bool)
        self.working = np.zeros((episodes, k), dtype=bool)
        self.lied = np.zeros((episodes, k), dtype=bool)
        self.rewards = np.zeros((episodes, k))
        self.worker_nights = np.zeros(episodes, dtype=np.int64)
        self.cumulative_lies = np.zeros(episodes, dtype=np.int64)
        self.total_reward = np.zeros(episodes)
        self.counted = arrays.counts(self.houses)
        self.burning_at_start = np.zeros(episodes, dtype=bool)
        self.signals_work = self.workers = self.lies = np.zeros(episodes, dtype=np.int64)
        self.start_houses = self.houses.copy()

    decisions = ("signal", "act")

    def blank(self, phase):
        shape = self.locations.shape
        if phase == "signal":
            return (np.empty(shape, dtype=bool),)
        return np.empty(shape, dtype=np.int64), np.empty(shape, dtype=bool)

    def begin_round(self):
        """observe: the night opens, its houses are the public observation."""
        super().begin_round()
        self.start_houses = self.houses.copy()
        self.burning_at_start = (self.houses == arrays.BURNING).any(axis=1)

    def take(self, phase, decisions):
        """signal: the signals are revealed; act: agents move and take their modes, and a
        mode that differs from the agent's signal is a lie."""
        if phase == "signal":
            (self.signals,) = decisions
        else:
            self.locations, self.working = decisions
            self.last_work = self.working
            self.lied = self.working != self.signals

    def resolve(self) -> np.ndarray:
        """extinguish, spread, burn out, spark, reward and log; the episodes that end."""
        model, size, working = self.model, self.size, self.working
        shape, draw = self.houses.shape, self.rng.random
        arrays.extinguish(self.houses, self.locations, working, model.p_extinguish, draw(shape))
        spreaders = np.empty(shape, dtype=bool)
        arrays.spread(self.houses, float(model.beta), model.spec, draw((*shape, 2)), spreaders)
        arrays.burn_out(self.houses, spreaders, model.spec)
        if self.t <= model.N_spark and model.p_spark:
            arrays.spark(self.houses, float(model.p_spark), draw(shape))
        agents = working.shape[1]
        self.counted = np.empty((size, 3), dtype=np.int64)
        ends = np.empty(size, dtype=bool)
        night_rewards, terms = np.empty((size, agents)), np.empty((size, agents))
        arrays.settle(self.start_houses, self.houses, model.owner_array, working,
                      model.work_cost_array, model.weights, model.spec, self.t, model.N_min,
                      model.max_steps, self.counted, ends, night_rewards, terms)
        night_rewards += terms
        self.rewards = self.rewards + night_rewards
        self.total_reward = self.total_reward + night_rewards.sum(axis=1)
        self.workers = working.sum(axis=1)
        self.signals_work = self.signals.sum(axis=1)
        self.lies = self.lied.sum(axis=1)
        self.worker_nights = self.worker_nights + self.workers
        self.cumulative_lies = self.cumulative_lies + self.lies
        return ends

    def model_row(self) -> dict:
        model = self.model
        k = model.num_agents
        safe, burning, ruined = self.counted.T
        town = arrays.town_score(safe, ruined, model.A, model.L, model.num_houses)
        work_rate = self.workers / k
        return {
            "night": np.full(self.size, self.t), "burning": burning, "safe": safe,
            "ruined": ruined, "workers": self.workers, "work_rate": work_rate,
            "signals_work": self.signals_work, "lies": self.lies, "lie_rate": self.lies / k,
            "cooperation_rate": np.where(self.burning_at_start, work_rate, math.nan),
            "cumulative_lies": self.cumulative_lies,
            "team_reward": town - model.c * self.worker_nights,
            "mean_reward": self.total_reward / k,
        }

    def agent_row(self) -> dict:
        behaviours = np.array([agent.behaviour for agent in self.model.seats], dtype=object)
        first = self.t == 0
        return {
            "behaviour": np.broadcast_to(behaviours, self.locations.shape),
            "house": self.locations,
            "signal": np.full(self.signals.shape, None) if first
            else np.where(self.signals, WORK, REST).astype(object),
            "mode": np.full(self.working.shape, None) if first
            else np.where(self.working, WORK, REST).astype(object),
            "lied": self.lied, "reward": self.rewards,
        }
