"""Bucket Brigade: firefighting on a ring of houses, with public signals and lies.

The rules are docs/rules/bucket_brigade.md. One ``step()`` is one night, run as the nine
phases of its "Round" (see ``BucketBrigadeModel.phases``).

Choices the sources leave open, made here (also in the rules' last section):

* Scenario parameters (``beta`` ... ``N_spark``) default to ``None``, meaning "the value of
  the named ``scenario``"; a value given explicitly overrides the scenario's, one parameter
  at a time (so ``N_min=20`` alone leaves ``N_spark`` at the scenario's value).
* With fewer houses than agents (``num_houses`` may be as low as 3), an agent that owns no
  house starts at house ``seat mod num_houses``; every other agent starts at house ``seat``,
  its first owned house.
* Reaching ``max_steps`` ends the game like the rules' own end: the end-of-game rewards are
  paid on that night.
* ``rules="reference"`` writes the earlier implementation's constants as this model's
  parameters with the same defaults (``-c_i`` working, ``+r_rest`` resting, ``+alpha_own``
  per owned house saved tonight, ``-lambda_own`` per owned ruined house, ``+gamma*(...)``),
  so the defaults reproduce it and changed parameters still take effect.
* Costs (``c``, ``work_costs``) must be non-negative; the reward weights ``A``, ``L``,
  ``gamma``, ``lambda_own``, ``alpha_own`` and ``r_rest`` may be any finite number.
* ``collect_data=False`` is for speed: the model then has no DataCollector
  (``model.datacollector`` is None). The per-night history (``model.history``), which
  replays and the reward identities read, is always kept.
* The night's rules are the array functions of ``dilemmas.models.bucket_brigade.arrays``, played
  here on one episode (``model.state``, shape ``(1, num_houses)``; ``model.houses`` is its row)
  and by the batch engine on many. They draw from ``model.rng``, one number per chance
  whether or not it comes up (rules version 2, ``RULES_VERSION``); the behaviours draw from
  ``model.random``. Both are seeded by ``model.seed``, which replays a run exactly.
"""
from types import SimpleNamespace

import numpy as np

from dilemmas.models import validation as check
from dilemmas.models.bucket_brigade import arrays
from dilemmas.models.bucket_brigade.rules import (AGENT_REPORTERS, BURNING, MODEL_REPORTERS,
                                                  PARAMETERS, REST, SIGNALS, WORK, Night,
                                                  Observation, allowed_actions, initial_fire_count)
from dilemmas.models.phases import AgentPhase, ModelPhase, PhasedModel


class BucketBrigadeModel(PhasedModel):
    """A ring of houses, agents that signal WORK or REST and then act, and fires.

    Every parameter is keyword-only and has the rules' default (``PARAMETERS``); see the
    module docstring for the choices made where the sources are silent.
    """

    model_reporters = MODEL_REPORTERS
    array_reporters = staticmethod(arrays.reporters)
    agent_reporters = AGENT_REPORTERS
    parameters = PARAMETERS

    phases = (
        ModelPhase("observe"),
        AgentPhase("signal", "choose_signal", order="simultaneous", apply="reveal_signals",
                   agents="seats"),
        AgentPhase("act", "choose_action", order="simultaneous", apply="take_actions",
                   agents="seats"),
        ModelPhase("extinguish"),
        ModelPhase("spread"),
        ModelPhase("burn_out"),
        ModelPhase("spark"),
        ModelPhase("reward_and_log"),
        ModelPhase("terminate"),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        p = self.check_parameters(parameters)
        self.scenario_name = p.scenario  # mesa.Model.scenario is Mesa's own
        self.num_houses = p.num_houses
        self.num_agents = p.num_agents
        self.population = p.population
        self.policy = p.policy
        self.learner = p.learner
        self.beta = p.beta
        self.kappa = p.kappa
        self.A = p.A
        self.L = p.L
        self.c = p.c
        self.rho_ignite = p.rho_ignite
        self.N_min = p.N_min
        self.p_spark = p.p_spark
        self.N_spark = p.N_spark
        self.gamma = p.gamma
        self.lambda_own = p.lambda_own
        self.alpha_own = p.alpha_own
        self.r_rest = p.r_rest
        self.work_costs = p.work_costs
        self.rules = p.rules
        self.max_steps = p.max_steps
        if self.work_costs is None:
            self.work_costs = (self.c,) * self.num_agents
        behaviours = self.seat_behaviours(self.num_agents)

        n = self.num_houses
        self.owns = arrays.ownership(n, self.num_agents)
        self.owner = tuple((np.arange(n) % self.num_agents).tolist())
        self.p_extinguish = arrays.extinguish_probabilities(self.kappa, self.num_agents)
        self.spec = self.rules == "spec"
        self._allowed_actions = allowed_actions(n)

        # This one episode's houses as the rules' arrays hold them, shape (1, n); ``houses``
        # is its row.
        self.state = arrays.ignite(self.rng.random((1, n)), initial_fire_count(self.rho_ignite, n))
        self.initial_houses = tuple(self.houses.tolist())
        self.tally = arrays.start_tally(1, self.num_agents)
        self.seats = tuple(cls(self, seat) for seat, cls in enumerate(behaviours))
        self.initial_locations = tuple(agent.house for agent in self.seats)
        self.work_cost_array = np.array(self.work_costs, dtype=float)
        self.weights = tuple(float(getattr(self, name)) for name in arrays.WEIGHTS)
        # Tonight's decisions as the rules' arrays hold them, shape (1, num_agents).
        self.locations = np.array([self.initial_locations])
        self.signalled = self.working = self.lied = np.zeros(self.locations.shape, dtype=bool)

        self.night = 0
        self.observation = None
        self.history: list[Night] = []
        self.final_rewards: tuple[float, ...] | None = None
        self.ending = False
        self._report(burning_at_start=False)

        self.start_data_collection()

    @property
    def houses(self) -> np.ndarray:
        """The house states (SAFE 0, BURNING 1, RUINED 2), the one row of ``state``;
        assigning a sequence gives ``state`` a new array (the rules never change one in
        place, so the night's ``start`` keeps the houses it opened with)."""
        return self.state[0]

    @houses.setter
    def houses(self, states):
        self.state = np.array([states], dtype=self.state.dtype)

    # --- Phase 1: observe -------------------------------------------------------------
    def observe(self):
        """Nights are numbered from 1; everyone receives the same public observation."""
        self.observation = self.upcoming_observation()
        self.start = self.state
        self.night += 1

    def upcoming_observation(self) -> Observation:
        """The public observation the next night opens with (after the last night: what the
        town looks like at the end)."""
        last = self.history[-1] if self.history else None
        return Observation(
            night=self.night + 1,
            houses=tuple(self.houses.tolist()),
            locations=last.locations if last else self.initial_locations,
            last_actions=last.actions if last else None,
            last_signals=last.signals if last else None,
        )

    def array_view(self, agent, method: str) -> tuple[SimpleNamespace, str]:
        """Tonight as the batch engine shows it to a behaviour's ``batch_decide``
        (``dilemmas.models.bucket_brigade.batch``), one episode, and the phase of
        ``method`` (``dilemmas.agents.decisions``)."""
        view = SimpleNamespace(houses=self.start, locations=self.locations,
                               last_work=self.working, signals=self.signalled, t=self.night,
                               model=self, xp=np, draw=self.behaviour_draw, size=1)
        return view, "signal" if method == "choose_signal" else "act"

    @staticmethod
    def array_decisions(method: str, decided) -> list:
        """The seats' decisions of ``batch_decide`` (one episode) as ``method`` returns
        them: signals, or ``(house, mode)`` pairs."""
        if method == "choose_signal":
            signals = decided[0] if isinstance(decided, tuple) else decided
            return [WORK if work else REST for work in signals[0].tolist()]
        houses, working = decided
        return [(house, WORK if work else REST)
                for house, work in zip(houses[0].tolist(), working[0].tolist())]

    # --- Phase 2: signal (decided simultaneously by the agents) ---------------------
    def reveal_signals(self, signals):
        """Every agent's signal becomes public at once."""
        tonight = tuple(signals.values())
        if not SIGNALS.issuperset(tonight):
            agent, signal = next((agent, signal) for agent, signal in signals.items()
                                 if signal not in SIGNALS)
            raise ValueError(f"agent {agent.seat} ({agent.behaviour}) signalled "
                             f"{signal!r}; a signal is {WORK!r} or {REST!r}")
        for agent, signal in zip(self.seats, tonight):
            agent.signal = signal
        self.signalled = np.array([[signal == WORK for signal in tonight]])
        obs = self.observation
        self.observation = Observation(obs.night, obs.houses, obs.locations,
                                       obs.last_actions, obs.last_signals, tonight)

    # --- Phase 3: act (decided simultaneously by the agents) ------------------------
    def take_actions(self, actions):
        """Agents move to their chosen house and take their mode; a mode that differs from
        the agent's own signal tonight is a lie."""
        chosen = tuple(actions.values())
        if not (self._allowed_actions.issuperset(chosen)
                and all(type(house) is int for house, _ in chosen)):
            chosen = tuple(self._checked_action(agent, action)
                           for agent, action in actions.items())
        for agent, (house, mode) in zip(self.seats, chosen):
            agent.house, agent.mode = house, mode
            agent.lied = mode != agent.signal
        self.actions = chosen
        self.lied = np.array([[agent.lied for agent in self.seats]])

    def _checked_action(self, agent, action):
        n = self.num_houses
        if type(action) is not tuple or len(action) != 2 or action[1] not in SIGNALS:
            raise ValueError(f"agent {agent.seat} ({agent.behaviour}) chose {action!r}; an "
                             f"action is (house in 0..{n - 1}, {WORK!r} or {REST!r})")
        return check.decision(agent, action[0], n, "house"), action[1]

    # --- Phase 4: extinguish ----------------------------------------------------------
    def extinguish(self):
        """A BURNING house with k workers there becomes SAFE with P = 1 - exp(-kappa*k)."""
        self.locations = np.array([[agent.house for agent in self.seats]])
        self.working = np.array([[agent.mode == WORK for agent in self.seats]])
        self.state = arrays.extinguish(self.state, self.locations, self.working,
                                       self.p_extinguish, self.rng.random(self.state.shape))

    # --- Phase 5: spread --------------------------------------------------------------
    def spread(self):
        """Each BURNING house ignites each SAFE neighbour with probability beta: at once
        from the houses burning now (``"spec"``), or cascading in index order
        (``"reference"``); ``dilemmas.models.bucket_brigade.arrays.spread``."""
        self.state, self.spreaders = arrays.spread(self.state, self.beta, self.spec,
                                                   self.rng.random((*self.state.shape, 2)))

    # --- Phase 6: burn-out ------------------------------------------------------------
    def burn_out(self):
        """``"spec"``: every house BURNING at the start of phase 5 becomes RUINED; houses lit
        by spread tonight burn on into the next night. ``"reference"``: every BURNING house,
        including those just lit, becomes RUINED."""
        self.state = arrays.burn_out(self.state, self.spreaders, self.spec)

    # --- Phase 7: spark ---------------------------------------------------------------
    def spark(self):
        """On nights t <= N_spark, each SAFE house ignites with probability p_spark."""
        if self.night <= self.N_spark and self.p_spark:
            self.state = arrays.spark(self.state, self.p_spark, self.rng.random(self.state.shape))

    # --- Phase 8: reward and log ------------------------------------------------------
    def reward_and_log(self):
        """Pay tonight's individual rewards (and, on the last night, the end-of-game terms),
        count and record the night (the DataCollector collects after the step)."""
        ends = arrays.rules_end(self.state, self.night, self.N_min, self.spec)
        self.ending = bool(ends[0]) or self.night >= self.max_steps
        rewards, terms = arrays.rewards(self.start, self.state, self.owns, self.working,
                                        self.work_cost_array, self.weights, self.spec,
                                        np.array([self.ending]))
        self.tally = arrays.add_up(self.tally, rewards, terms, self.working, self.lied)
        if self.spec and self.ending:
            self.final_rewards = tuple(terms[0].tolist())
        self.history.append(Night(self.night, tuple(self.houses.tolist()),
                                  self.observation.signals,
                                  tuple([agent.house for agent in self.seats]),
                                  self.actions, tuple(rewards[0].tolist())))
        self._report(burning_at_start=BURNING in self.observation.houses)

    def _report(self, burning_at_start):
        """The model reporters of the night (``arrays.reporters``)."""
        self.report(self.night, self.state, self.signalled, self.working, self.lied,
                    np.array([burning_at_start]), self.tally, self.A, self.L, self.c)

    # --- Phase 9: terminate -----------------------------------------------------------
    def terminate(self):
        """Tonight's end condition (tested in phase 8 once the night's houses were final,
        ``reward_and_log``; ``game_ends`` says the same) ends the game."""
        if self.ending:
            self.running = False

    def game_ends(self) -> bool:
        """The rules end the game (``rules_end``), or ``max_steps`` caps it."""
        return self.night >= self.max_steps or self.rules_end()

    def rules_end(self) -> bool:
        """After night t >= N_min (``"reference"``: t >= N_min + 1) the game ends once no
        house burns (which includes every house RUINED)."""
        return bool(arrays.rules_end(self.state, self.night, self.N_min, self.spec)[0])
