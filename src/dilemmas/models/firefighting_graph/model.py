"""Firefighting Graph: the Dec-POMDP of fire levels on a row or a grid of houses.

The rules are docs/rules/firefighting_graph.md. One ``step()`` runs the five phases of its
"Round" (see ``FirefightingGraphModel.phases``).

Choices the sources leave open, made here (also in the rules' last section):

* The houses are a Mesa ``OrthogonalVonNeumannGrid`` whose int property layer ``fire``
  holds the levels: ``(1, n_agents + 1)`` for ``"row"`` (neighbours left and right) and
  ``(n_height + 1, n_width + 1)`` for ``"grid"`` (four orthogonal neighbours). A house is
  numbered row-major (``row * width + col``); ``initial_levels`` is given in that order (or
  as a ``(rows, cols)`` array), and the agent reporter ``house`` is that number.
* Firefighter ``i`` of the row guards houses ``i`` and ``i + 1``; firefighter ``(r, c)`` of
  the grid (numbered ``r * n_width + c``) guards the corners of cell ``(r, c)`` in the
  rules' order. Firefighters are plain Mesa agents: a visit does not carry over.
* The transition draws one uniform number per house from ``model.rng`` and applies the
  table to all houses at once; the flames of the observation draw one per firefighter.
* ``n_agents`` (row) and ``n_width``/``n_height`` (grid) are all validated whichever layout
  is played; the other layout's are ignored. ``max_fire_level`` is at most 10**9.
* Preset parameters default to ``None``, meaning "the value of the named ``preset``"; a
  value given explicitly overrides the preset's, one parameter at a time.
* The state lives in one place: the model's episode on the game's batch engine
  (``model.episode``, one episode, ``dilemmas.models.firefighting_graph.batch``), whose
  methods are the round's rule phases (``RulePhase``: the same code plays the batch
  engine's thousands of episodes). The ``fire`` layer shows its levels (the episode reads
  the layer itself, so levels set there by hand count); ``t``, ``visited``,
  ``observations``, ``rewards`` and ``crew_counts`` and the agents' attributes read it.
* ``collect_data=False`` is for speed: no DataCollector.
"""
import copy

import numpy as np
from mesa.discrete_space import OrthogonalVonNeumannGrid

from dilemmas.models import validation as check
from dilemmas.models.firefighting_graph import arrays
from dilemmas.models.firefighting_graph.rules import (AGENT_REPORTERS, MODEL_REPORTERS, PARAMETERS,
                                                      firefighters, house_shape)
from dilemmas.models.firefighting_graph.batch import FirefightingGraphBatch
from dilemmas.models.phases import AgentPhase, PhasedModel, RulePhase, episode_value


class FirefightingGraphModel(PhasedModel):
    """Firefighters who each visit one of their houses per step, on a row or a grid."""

    model_reporters = MODEL_REPORTERS
    array_reporters = staticmethod(arrays.reporters)
    agent_reporters = AGENT_REPORTERS
    parameters = PARAMETERS

    # A RulePhase's method here is made by PhasedModel (phases.RulePhase.played_on): its
    # code is the engine's method of that name, FirefightingGraphBatch in models/firefighting_graph/batch.py.
    phases = (
        AgentPhase("choose", "choose_action", order="simultaneous", apply="visit",
                   agents="seats"),
        RulePhase("transition"),
        RulePhase("observe"),
        RulePhase("reward"),
        RulePhase("terminate", ends=True),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        p = self.set_parameters(parameters)
        values = vars(p)
        shape = house_shape(values)
        self.n_agents = firefighters(values)
        if self.layout == "row":
            guarded = [(i, i + 1) for i in range(self.n_agents)]
        else:
            cols = shape[1]
            guarded = [(r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1)
                       for r in range(self.n_height) for c in range(self.n_width)]
        behaviours = self.seat_behaviours(self.n_agents)

        self.houses = OrthogonalVonNeumannGrid(shape, torus=False, random=self.random)
        self.fire = self.houses.create_property_layer("fire", default_value=0, dtype=np.int64)
        self.num_houses = shape[0] * shape[1]
        self.fire.data[:] = (self.rng.integers(0, self.max_fire_level + 1, size=shape)
                             if self.initial_levels is None else self.initial_levels)
        self.levels = self.fire.data  # the layer's own array, changed in place
        self.initial_levels = self.levels.copy()
        # Action a of firefighter i visits house guarded[i][a].
        self.guarded = np.array(guarded)
        self.n_actions = self.guarded.shape[1]

        self.derive()
        self._action_set = frozenset(range(self.n_actions))

        self.seats = tuple(cls(self, i) for i, cls in enumerate(behaviours))
        self.episode = FirefightingGraphBatch.one(self)
        self.episode.setup(levels=self.levels[None])
        self.episode.start_memory()
        self._report()
        self.start_data_collection()

    def derive(self):
        """The rules' transition and observation table (``arrays.tables``), from the
        probabilities, which may change between steps."""
        self.table = arrays.tables(
            self.p_ignite, self.p_grow_alone, self.p_grow_neighbour, self.p_reduce_alone,
            self.p_reduce_neighbour, self.p_two_agents, self.p_observe, self.max_fire_level,
            self.n_agents)

    # --- The state: the one episode's arrays -----------------------------------------
    t = episode_value("t", "Steps begun (the step being played, during one).", row=False)
    visited = episode_value("visited", "The house each firefighter visited this step (-1: "
                            "none yet).")
    observations = episode_value("observations", "Flames each saw at its house this step "
                                 "(1 or 0; -1: none yet).")
    rewards = episode_value("rewards", "Each firefighter's cumulative reward.")
    crew_counts = episode_value("crew_counts", "Firefighters at each house this step, "
                                "``(1, houses)``.", row=False)

    def show(self):
        """The ``fire`` layer shows the episode's levels, which then read the layer."""
        if self.episode.levels.base is not self.levels:
            self.levels[:] = self.episode.levels[0]
            self.episode.levels = self.levels[None]

    def end_of_round(self):
        """The model reporters of the step."""
        self._report()

    def array_view(self, agent, method: str):
        """The episode, as the batch engine shows it to a behaviour's ``batch_decide``
        (``dilemmas.agents.decisions``); between steps, as the next step will show it."""
        if self._opened:
            return self.episode, "choose"
        upcoming = copy.copy(self.episode)
        upcoming.t += 1
        return upcoming, "choose"

    @staticmethod
    def array_decisions(method: str, decided) -> list[int]:
        """The seats' actions of ``batch_decide`` (one episode; a tuple of one array, or
        the array)."""
        return (decided[0] if isinstance(decided, tuple) else decided)[0].tolist()

    # --- Phase 1: choose (simultaneous) ------------------------------------------------
    def visit(self, actions):
        """Every firefighter goes to the house its action names (the step was opened by
        ``episode.open_round``)."""
        values = actions.values()
        if not self._action_set.issuperset(values) or bool in map(type, values):
            for agent, action in actions.items():
                check.decision(agent, action, self.n_actions, "action")
        chosen = np.fromiter(values, dtype=np.int64, count=len(actions))
        self.episode.take("choose", (chosen[None],))

    # --- Phases 2-5: transition, observe, reward, terminate ---------------------------
    # The rule phases (``RulePhase``) are the episode's methods
    # (``FirefightingGraphBatch.transition`` ...); each ends with ``show``.

    def _report(self):
        """The model reporters of the step (``arrays.reporters``; ``step`` is read from
        ``t``, its counter)."""
        self.report(self.t, self.levels[None].copy(), self.crew_counts, self.observations[None],
                    self.rewards[None])
