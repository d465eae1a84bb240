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
* The state lives in one place: the model's episode on the game's batch engine
  (``model.episode``, one episode, ``dilemmas.models.bucket_brigade.batch``), whose methods
  are the night's rule phases (``RulePhase``: the same code plays the batch engine's
  thousands of episodes). ``state`` (the houses, ``(1, num_houses)``; ``houses`` is its
  row), ``start``, ``locations``, ``signalled``, ``working``, ``lied``, ``tally`` and
  ``night``, and each agent's ``house``, ``signal``, ``mode`` and ``lied``, are views of it:
  setting one by hand sets the episode's. The rules draw from ``model.rng``, one number per
  chance whether or not it comes up, sparks on every night (rules version 4,
  ``RULES_VERSION``); the behaviours draw from ``model.random``, an array behaviour for all
  its seats at once. Both are seeded by ``model.seed``, which replays a run exactly.
"""
import copy

import numpy as np

from dilemmas.models import validation as check
from dilemmas.models.bucket_brigade import arrays
from dilemmas.models.bucket_brigade.batch import BucketBrigadeBatch
from dilemmas.models.bucket_brigade.rules import (AGENT_REPORTERS, MODEL_REPORTERS,
                                                  PARAMETERS, REST, SIGNALS, WORK, Night,
                                                  Observation, allowed_actions)
from dilemmas.models.phases import AgentPhase, PhasedModel, RulePhase, episode_value


class BucketBrigadeModel(PhasedModel):
    """A ring of houses, agents that signal WORK or REST and then act, and fires.

    Every parameter is keyword-only and has the rules' default (``PARAMETERS``); see the
    module docstring for the choices made where the sources are silent.
    """

    model_reporters = MODEL_REPORTERS
    array_reporters = staticmethod(arrays.reporters)
    agent_reporters = AGENT_REPORTERS
    parameters = PARAMETERS

    # A RulePhase's method here is made by PhasedModel (phases.RulePhase.played_on): its
    # code is the engine's method of that name, BucketBrigadeBatch in models/bucket_brigade/batch.py.
    phases = (
        RulePhase("observe"),
        AgentPhase("signal", "choose_signal", order="simultaneous", apply="reveal_signals",
                   agents="seats"),
        AgentPhase("act", "choose_action", order="simultaneous", apply="take_actions",
                   agents="seats"),
        RulePhase("extinguish"),
        RulePhase("spread"),
        RulePhase("burn_out"),
        RulePhase("spark"),
        RulePhase("reward_and_log"),
        RulePhase("terminate", ends=True),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        self.set_parameters(parameters)
        if self.work_costs is None:
            self.work_costs = (self.c,) * self.num_agents
        behaviours = self.seat_behaviours(self.num_agents)

        n = self.num_houses
        self.owns = arrays.ownership(n, self.num_agents)
        self.owner = tuple((np.arange(n) % self.num_agents).tolist())
        self.derive()
        self.spec = self.rules == "spec"
        self._allowed_actions = allowed_actions(n)
        self.work_cost_array = np.array(self.work_costs, dtype=float)
        self.weights = tuple(float(getattr(self, name)) for name in arrays.WEIGHTS)
        self.initial_locations = tuple(seat % n for seat in range(self.num_agents))

        self.seats = tuple(cls(self, seat) for seat, cls in enumerate(behaviours))
        self.episode = BucketBrigadeBatch.one(self)
        self.episode.setup()
        self.episode.start_memory()
        self.initial_houses = tuple(self.houses.tolist())

        self.observation = None
        self.actions = None
        self.history: list[Night] = []
        self.final_rewards: tuple[float, ...] | None = None
        self.report_night()

        self.start_data_collection()

    def derive(self):
        """Each house's chance of being put out by its workers (``kappa``, which may change
        between nights)."""
        self.p_extinguish = arrays.extinguish_probabilities(self.kappa, self.num_agents)

    # --- The state: the one episode's arrays -----------------------------------------
    night = episode_value("t", "Nights begun (the night being played, during one).",
                          row=False)
    state = episode_value("houses", "The house states ``(1, num_houses)`` (SAFE 0, BURNING "
                          "1, RUINED 2).", row=False)
    start = episode_value("start_houses", "The houses as tonight opened ``(1, num_houses)``.",
                          row=False)
    locations = episode_value("locations", "Each agent's house ``(1, num_agents)``.",
                              row=False)
    last_work = episode_value("last_work", "Who worked last night ``(1, num_agents)`` (all "
                              "False before night 2).", row=False)
    signalled = episode_value("signals", "Tonight's signals ``(1, num_agents)``, WORK True.",
                              row=False)
    working = episode_value("working", "Tonight's modes ``(1, num_agents)``, WORK True.",
                            row=False)
    lied = episode_value("lied", "Tonight's lies ``(1, num_agents)``.", row=False)

    @property
    def tally(self) -> arrays.Tally:
        """What the game has added up so far (``arrays.Tally``, one episode)."""
        return self.episode.tally

    @tally.setter
    def tally(self, tally):
        self.episode.tally = tally

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
        """Nights are numbered from 1; everyone receives the same public observation
        (``episode.observe``; ``observation`` records it for the behaviours)."""
        self.episode.observe()
        self.observation = self.upcoming_observation(opened=True)

    def upcoming_observation(self, opened=False) -> Observation:
        """The public observation the next night opens with (after the last night: what the
        town looks like at the end); ``opened``: tonight's, once tonight has begun."""
        last = self.history[-1] if self.history else None
        return Observation(
            night=self.night + (not opened),
            houses=tuple(self.houses.tolist()),
            locations=last.locations if last else self.initial_locations,
            last_actions=last.actions if last else None,
            last_signals=last.signals if last else None,
        )

    def array_view(self, agent, method: str) -> tuple[BucketBrigadeBatch, str]:
        """The episode as the batch engine shows it to a behaviour's ``batch_decide``
        (``dilemmas.agents.decisions``), and the phase of ``method``; between nights, as the
        next night will show it."""
        phase = "signal" if method == "choose_signal" else "act"
        if self._opened:
            return self.episode, phase
        upcoming = copy.copy(self.episode)
        upcoming.t += 1
        upcoming.observe()
        return upcoming, phase

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
        """Every agent's signal becomes public at once (``episode.take``)."""
        tonight = tuple(signals.values())
        if not SIGNALS.issuperset(tonight):
            agent, signal = next((agent, signal) for agent, signal in signals.items()
                                 if signal not in SIGNALS)
            raise ValueError(f"agent {agent.seat} ({agent.behaviour}) signalled "
                             f"{signal!r}; a signal is {WORK!r} or {REST!r}")
        self.episode.take("signal", (np.array([[signal == WORK for signal in tonight]]),))
        self.observation = self.observation._replace(signals=tonight)

    # --- Phase 3: act (decided simultaneously by the agents) ------------------------
    def take_actions(self, actions):
        """Agents move to their chosen house and take their mode; a mode that differs from
        the agent's own signal tonight is a lie (``episode.take``)."""
        chosen = tuple(actions.values())
        if not (self._allowed_actions.issuperset(chosen)
                and all(type(house) is int for house, _ in chosen)):
            chosen = tuple(self._checked_action(agent, action)
                           for agent, action in actions.items())
        self.actions = chosen
        self.episode.take("act", (np.array([[house for house, _ in chosen]]),
                                  np.array([[mode == WORK for _, mode in chosen]])))

    def _checked_action(self, agent, action):
        n = self.num_houses
        if type(action) is not tuple or len(action) != 2 or action[1] not in SIGNALS:
            raise ValueError(f"agent {agent.seat} ({agent.behaviour}) chose {action!r}; an "
                             f"action is (house in 0..{n - 1}, {WORK!r} or {REST!r})")
        return check.decision(agent, action[0], n, "house"), action[1]

    # --- Phases 4-9: extinguish, spread, burn out, spark, reward and log, terminate ---
    # The rule phases (``RulePhase``) are the episode's methods
    # (``BucketBrigadeBatch.extinguish`` ...).

    def end_of_round(self):
        """The night's log (``history``; ``final_rewards`` on the last night of ``"spec"``)
        and its model reporters."""
        episode = self.episode
        if self.spec and episode.ends[0]:
            self.final_rewards = tuple(episode.terms[0].tolist())
        self.history.append(Night(self.night, tuple(self.houses.tolist()),
                                  self.observation.signals,
                                  tuple(self.locations[0].tolist()),
                                  self.actions, tuple(episode.night_rewards[0].tolist())))
        self.report_night()

    def report_night(self):
        """The model reporters of the night (``arrays.reporters``)."""
        self.report(self.night, self.state, self.signalled, self.working, self.lied,
                    self.episode.burning_at_start, self.tally, self.A, self.L, self.c)

    def game_ends(self) -> bool:
        """The rules end the game (``rules_end``), or ``max_steps`` caps it."""
        return self.night >= self.max_steps or self.rules_end()

    def rules_end(self) -> bool:
        """After night t >= N_min (``"reference"``: t >= N_min + 1) the game ends once no
        house burns (which includes every house RUINED)."""
        return bool(arrays.rules_end(self.state, self.night, self.N_min, self.spec)[0])
