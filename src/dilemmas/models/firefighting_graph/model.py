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
* Per-firefighter state (house visited, observation, cumulative reward) lives in the
  model's numpy arrays; the agents' attributes read them, so a step costs no Python work
  per firefighter outside its own decision.
* ``collect_data=False`` is for speed: no DataCollector.
"""
from types import SimpleNamespace

import numpy as np
from mesa.discrete_space import OrthogonalVonNeumannGrid

from dilemmas.models import validation as check
from dilemmas.models.firefighting_graph import arrays
from dilemmas.models.firefighting_graph.rules import (AGENT_REPORTERS, MODEL_REPORTERS, PARAMETERS,
                                                      firefighters, house_shape)
from dilemmas.models.phases import AgentPhase, ModelPhase, PhasedModel


class FirefightingGraphModel(PhasedModel):
    """Firefighters who each visit one of their houses per step, on a row or a grid."""

    model_reporters = MODEL_REPORTERS
    array_reporters = staticmethod(arrays.reporters)
    agent_reporters = AGENT_REPORTERS
    parameters = PARAMETERS

    phases = (
        AgentPhase("choose", "choose_action", order="simultaneous", apply="visit",
                   agents="seats"),
        ModelPhase("transition"),
        ModelPhase("observe"),
        ModelPhase("reward"),
        ModelPhase("terminate"),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        p = self.check_parameters(parameters)
        self.layout = p.layout
        self.n_agents = p.n_agents
        self.n_width = p.n_width
        self.n_height = p.n_height
        self.population = p.population
        self.policy = p.policy
        self.learner = p.learner
        self.preset = p.preset
        self.max_fire_level = p.max_fire_level
        self.p_ignite = p.p_ignite
        self.p_grow_neighbour = p.p_grow_neighbour
        self.p_grow_alone = p.p_grow_alone
        self.p_reduce_neighbour = p.p_reduce_neighbour
        self.p_reduce_alone = p.p_reduce_alone
        self.p_two_agents = p.p_two_agents
        self.p_observe = p.p_observe
        self.shared_reward = p.shared_reward
        self.initial_levels = p.initial_levels
        self.max_steps = p.max_steps
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

        self.table = arrays.tables(
            self.p_ignite, self.p_grow_alone, self.p_grow_neighbour, self.p_reduce_alone,
            self.p_reduce_neighbour, self.p_two_agents, self.p_observe, self.max_fire_level,
            self.n_agents)
        self._firefighters = np.arange(self.n_agents)
        self._action_set = frozenset(range(self.n_actions))

        self.t = 0
        self.visited = np.full(self.n_agents, -1)
        self.observations = np.full(self.n_agents, -1)
        self.rewards = np.zeros(self.n_agents)
        self.crew_counts = np.zeros((1, self.num_houses), dtype=int)
        self.seats = tuple(cls(self, i) for i, cls in enumerate(behaviours))
        self._report()
        self.start_data_collection()

    def array_view(self, agent, method: str) -> tuple[SimpleNamespace, str]:
        """This step as the batch engine shows it to a behaviour's ``batch_decide``
        (``dilemmas.models.firefighting_graph.batch``: ``t`` counts the step about to be
        played), one episode (``dilemmas.agents.decisions``)."""
        return SimpleNamespace(observations=self.observations[None], t=self.t + 1, model=self,
                               xp=np, draw=self.behaviour_draw, size=1), "choose"

    @staticmethod
    def array_decision(method: str, decided) -> int:
        """A seat's action of ``batch_decide`` (one episode, one seat)."""
        return int(decided[0, 0])

    # --- Phase 1: choose (simultaneous) ------------------------------------------------
    def visit(self, actions):
        """A step opens; every firefighter goes to the house its action names."""
        self.t += 1
        values = actions.values()
        if not self._action_set.issuperset(values) or bool in map(type, values):
            for agent, action in actions.items():
                check.decision(agent, action, self.n_actions, "action")
        chosen = np.fromiter(values, dtype=np.int64, count=len(actions))
        self.visited = self.guarded[self._firefighters, chosen]

    # --- Phase 2: transition ------------------------------------------------------------
    def transition(self):
        """The rules' transition table, for all houses at once, from the state before this
        step (``dilemmas.models.firefighting_graph.arrays.transition``): one uniform draw per
        house."""
        levels = self.levels[None]  # one episode
        self.crew_counts = arrays.crews(self.visited[None], self.num_houses)
        self.levels[:] = arrays.transition(levels, self.crew_counts, self.table,
                                           self.rng.random(levels.shape))[0]

    # --- Phase 3: observe ---------------------------------------------------------------
    def observe(self):
        """Each firefighter sees flames at its house with p_observe[min(level, 2)]."""
        self.observations = arrays.observe(self.levels[None], self.visited[None], self.table,
                                           self.rng.random((1, self.n_agents)))[0]

    # --- Phase 4: reward ----------------------------------------------------------------
    def reward(self):
        """Minus the level of the house visited, or minus the total with shared_reward."""
        self.rewards = self.rewards + arrays.reward(self.levels[None], self.visited[None],
                                                    self.shared_reward)[0]

    # --- Phase 5: terminate -------------------------------------------------------------
    def terminate(self):
        """Ends when every house is at 0, or after exactly ``max_steps`` steps; the model
        reporters of the step (``arrays.reporters``)."""
        self._report()
        if arrays.ends(arrays.totals(self.levels[None]), self.t, self.max_steps)[0]:
            self.running = False

    def _report(self):
        """The model reporters of the step (``arrays.reporters``; ``step`` is read from
        ``t``, its counter)."""
        self.report(self.t, self.levels[None].copy(), self.crew_counts, self.observations[None],
                    self.rewards[None])

