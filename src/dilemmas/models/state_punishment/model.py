"""State Punishment: foraging on a walled grid, with votes on punishing taboo resources.

The rules are docs/rules/state_punishment.md. One ``step()`` is one turn, run as the three
phases of its "Round" (see ``StatePunishmentModel.phases``): resources spawn, the agents act
one after another, the turn is logged -- each played by the game's batch engine's methods
(``dilemmas.models.state_punishment.batch``) on the model's one episode (``model.episode``).

Choices the sources leave open, made here (also in the rules' last section):

* Each world is a Mesa ``OrthogonalVonNeumannGrid`` of ``(height, width)`` cells addressed
  ``(row, col)``; the border cells are walls (bool property layer ``wall``); resources are
  the int property layer ``resource`` (0 none, 1..5 = A..E); agents are ``CellAgent`` instances.
* The state lives in one place: the model's episode on the game's batch engine
  (``model.episode``, one episode), whose methods are the round's rule phases
  (``RulePhase``) and its act (the same code plays the batch engine's thousands of
  episodes). Each world's ``resource`` layer is that world's part of the episode's array
  itself, so a resource set there by hand counts; an agent's cell is a view of its seat's
  place, so moving an agent by hand (``agent.cell = model.grids[agent.world][(row, col)]``)
  moves it in the episode. ``turn``, ``state`` and the agents' counters (``reward``,
  ``pending_harm``, ...) read the episode, and setting them sets it.
* The punishment probability is held as an integer count of ``1/D``, where ``D`` is the
  least common denominator of ``initial_punishment`` and ``vote_step`` as written in
  decimal (10 for the defaults), so votes never drift; ``punishment_level`` is that count
  divided by ``D``, correctly rounded.
* ``num_worlds``: seat ``i`` plays in world ``i mod num_worlds``, so worlds differ by at most
  one agent; every world holds the full grid, its own resources and its own spawning.
* Collecting a resource pays its value and, if its kind is taboo, the punishment, within
  the collector's action; its harm goes onto every other agent's ledger at once (all
  worlds). An agent's ledger is applied at the end of its own next action.
  ``harm_received`` counts harm put on an agent's ledger, applied yet or not.
* In composite mode a vote needs a move; "noop" is the only action without one. A move
  blocked by a wall or an agent cancels the whole action, its vote too: "the agent stays;
  nothing else happens".
* The observation's uniform number comes from the model's own generator kept for that
  purpose (``observation_rng``, seeded from ``model.seed``), so building observations, in a
  behaviour or in a notebook, never changes the course of the game.
* ``punishment_magnitude`` must be <= 0 and ``vision_radius`` at most the larger grid side
  (a larger window shows nothing more).
* Initial resource kinds are drawn with ``spawn_weights``, like spawned ones.
* The turn counter ``turn`` advances when the spawn phase opens a turn; the episode ends
  after ``max_steps`` turns, in the log phase. The acting order is drawn from ``model.rng``
  as the batch engine draws it (``activation="sequential"``: seat order).
* ``collect_data=False`` is for speed: no DataCollector; ``model.history`` keeps every action.
"""

import copy
import math

import numpy as np

from dilemmas.models.gridworld import layer_of, walled_grid
from dilemmas.models.phases import AgentPhase, Live, PhasedModel, RulePhase, episode_value
from dilemmas.models.state_punishment import arrays
from dilemmas.models.state_punishment.batch import StatePunishmentBatch
from dilemmas.models.state_punishment.rules import (ACTION_MODES, AGENT_REPORTERS, KINDS,
                                                    MODEL_REPORTERS, PARAMETERS, Action,
                                                    Observation, _exact)


class StatePunishmentModel(PhasedModel):
    """A walled grid of foragers who vote on how likely taboo collecting is punished."""

    model_reporters = MODEL_REPORTERS
    array_reporters = staticmethod(arrays.reporters)
    # Read as they stand, mid-turn too; the other reporters are refreshed by the log phase.
    punishment_level, votes_up, votes_down = Live(), Live(), Live()
    social_harm_generated, punishment_total, vote_cost_total = Live(), Live(), Live()
    agent_reporters = AGENT_REPORTERS
    parameters = PARAMETERS

    # A RulePhase's method here is made by PhasedModel (phases.RulePhase.played_on): its
    # code is the engine's method of that name, StatePunishmentBatch in models/state_punishment/batch.py.
    phases = (
        RulePhase("spawn"),
        AgentPhase("act", "choose_action", order="in turn", agents="seats"),
        RulePhase("log", method="log_turn", ends=True),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        self.set_parameters(parameters)
        behaviours = self.seat_behaviours(self.num_agents)
        weights = self.spawn_weights
        self.spawn_weights = tuple(w / sum(weights) for w in weights)
        self.cumulative_weights = np.cumsum(self.spawn_weights)[:-1]
        self.action_names = ACTION_MODES[self.action_mode]
        per_world = -(-self.num_agents // self.num_worlds)
        open_per_world = (self.width - 2) * (self.height - 2)
        if open_per_world < per_world + self.initial_resources:
            raise ValueError(
                f"width={self.width}, height={self.height} is too small: {open_per_world} "
                f"open cells "
                f"per world cannot hold {per_world} agents (num_agents={self.num_agents}, "
                f"num_worlds={self.num_worlds}) and initial_resources="
                f"{self.initial_resources}")

        initial, step = _exact(self.initial_punishment), _exact(self.vote_step)
        self.denominator = math.lcm(initial.denominator, step.denominator)
        self.initial_units = int(initial * self.denominator)
        self.step_units = int(step * self.denominator)

        self.grids = [walled_grid(self.height, self.width, self.random)
                      for _ in range(self.num_worlds)]
        #: Every world's ``resource`` layer, ``(worlds, height, width)``: the episode's array.
        self.resources = np.zeros((self.num_worlds, self.height, self.width), dtype=np.int8)
        for grid, resources in zip(self.grids, self.resources):
            layer_of(grid, "resource", resources)
        self.seats = tuple(cls(self, seat) for seat, cls in enumerate(behaviours))
        self.derive()
        self.episode = StatePunishmentBatch.one(self)
        self.episode.setup()
        self.episode.start_memory()
        self.show()

        self.observation_rng = np.random.default_rng([self.seed, 1])
        self.history: list[Action] = []
        self._action_index = {name: i for i, name in enumerate(self.action_names)}
        self._report()

        self.start_data_collection()

    def derive(self):
        """The ``Rules`` the turn uses (``arrays.rules_of``), from the parameters: made again
        when one that may change between turns changes (the punishment's magnitude, the
        vote's cost and the spawn probability)."""
        self.rules = arrays.rules_of(self)

    # --- The state: the one episode's arrays -----------------------------------------
    turn = episode_value("t", "Turns begun (the turn being played, during one).", row=False)
    state = property(lambda self: self.episode.current,
                     lambda self, state: setattr(self.episode, "current", state),
                     doc="The episode's ``arrays.State`` (one episode); setting it sets "
                         "every array of the episode's.")

    @property
    def p_units(self) -> int:
        """``p`` in units of ``1 / denominator``."""
        return int(self.episode.p_units[0])

    @property
    def collected_by_kind(self) -> dict:
        """Kind -> resources of that kind collected so far."""
        return dict(zip(KINDS, self.episode.by_kind[0].tolist()))

    def show(self):
        """The worlds' ``resource`` layers show the episode's resources, which then are the
        layers' own; each agent stands on its seat's cell."""
        episode = self.episode
        if episode.resource.base is not self.resources:
            self.resources[:] = episode.resource[0]
            episode.resource = self.resources[None]
        for agent, row, col in zip(self.seats, episode.row[0].tolist(),
                                   episode.col[0].tolist()):
            if agent.cell is None or agent.cell.coordinate != (row, col):
                agent.cell = self.grids[agent.world][(row, col)]

    def end_of_round(self):
        """The model reporters of the turn."""
        self._report()

    # --- Phase 1: spawn (``StatePunishmentBatch.spawn``, a rule phase) -------------------

    # --- Phase 2: the agents act one after another (``PhasedModel.in_turn``) ------------
    def array_view(self, agent, method: str):
        """The episode as the batch engine shows it to a behaviour's ``batch_decide`` when
        ``agent`` is at its place (``acting``; ``dilemmas.agents.decisions``)."""
        view = copy.copy(self.episode)
        view.acting = np.array([agent.seat])
        return view, "act"

    def array_decisions(self, method: str, decided) -> list[str]:
        """The acting seat's action of ``batch_decide`` (one episode), by name."""
        return [self.action_names[int(decided[0])]]

    def prepare_action(self, agent, action: str) -> int:
        """The engine's number of ``agent``'s action (a name of ``action_names``)."""
        index = self._action_index.get(action)
        if index is None:
            raise ValueError(f"agent {agent.seat} ({agent.behaviour}) chose {action!r}; "
                             f"the {self.action_mode} actions are {list(self.action_names)}")
        return index

    def take_action(self, agent, action: str):
        """Apply ``agent``'s action: move (collecting what it steps on), then vote, then
        subtract its accumulated harm (the episode's ``act``). Reward = value + punishment -
        vote cost - harm."""
        index = self.prepare_action(agent, action)
        episode = self.episode
        episode.acting = np.array([agent.seat])
        outcome = episode.act(np.array([index]))
        code, value, punishment, cost, harm, reward, blocked = (x[0].item() for x in outcome)
        self.show()
        self.history.append(Action(self.turn, agent.seat, action, KINDS[code - 1] if code else None,
                                   value, punishment, -cost, harm, reward, blocked))

    # --- Phase 3: log (``StatePunishmentBatch.log_turn``, a rule phase: the episode ends
    # after ``max_steps`` turns); the DataCollector collects after the step.

    def _report(self):
        """The model reporters of the turn (``arrays.reporters``; ``turn`` is read from the
        counter)."""
        self.report(*self.reporter_inputs())

    def reporter_inputs(self) -> tuple:
        return self.turn, self.state, self.denominator

    # --- Observation ------------------------------------------------------------------
    def observe(self, agent) -> Observation:
        """``agent``'s observation, built on demand (docs/rules/state_punishment.md,
        "Observations"; ``arrays.views``)."""
        view = arrays.views(self.state, self.rules, self.vision_radius, self.full_view,
                            self.composite_views, np.array([[agent.seat]]))[0, 0]
        features = np.array([self.punishment_level, agent.pending_harm,
                             self.observation_rng.random()])
        return Observation(view, features)

    def entity_codes(self, world: int) -> np.ndarray:
        """The world as observation channels: empty, wall, A..E, agent 0..n-1."""
        return arrays.codes(self.state, self.rules)[0, world]
