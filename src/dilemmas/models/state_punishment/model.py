"""State Punishment: foraging on a walled grid, with votes on punishing taboo resources.

The rules are docs/rules/state_punishment.md. One ``step()`` is one turn, run as the three
phases of its "Round" (see ``StatePunishmentModel.phases``):
resources spawn, the agents act one after another, the turn is logged.

Choices the sources leave open, made here (also in the rules' last section):

* Each world is a Mesa ``OrthogonalVonNeumannGrid`` of ``(height, width)`` cells addressed
  ``(row, col)``; the border cells are walls (bool property layer ``wall``); resources are
  the int property layer ``resource`` (0 none, 1..5 = A..E); agents are ``CellAgent`` instances.
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
  after ``max_steps`` turns, in the log phase.
* ``collect_data=False`` is for speed: no DataCollector; ``model.history`` keeps every action.
"""

import dataclasses
import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from dilemmas.models import validation as check
from dilemmas.models.gridworld import one_hot, open_cells, walled_grid, window
from dilemmas.models.parameters import (MAX_STEPS, Boolean, Choice, Custom, Integer, Parameter, Parameters,
                               Population, Probability, Real, Select, Slider, Subset)
from dilemmas.models.phases import AgentPhase, ModelPhase, PhasedModel
from dilemmas.models.learners import learner_parameter
from dilemmas.models.policies import policy_parameter

#: The resource kinds, each one's value to its collector and harm to every other agent.
KINDS = ("A", "B", "C", "D", "E")
VALUE = {"A": 3.0, "B": 7.0, "C": 2.0, "D": -2.0, "E": 1.0}
HARM = {"A": 0.5, "B": 1.0, "C": 0.3, "D": 1.5, "E": 0.1}
#: Observation channels: empty, wall, A..E, then one per agent (seat order).
EMPTY, WALL = 0, 1
KIND_CHANNEL = {kind: 2 + i for i, kind in enumerate(KINDS)}
AGENT_CHANNEL = 2 + len(KINDS)
#: Row and column offsets of the four moves; "up" decreases the row.
MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}

SIMPLE_ACTIONS = ("up", "down", "left", "right", "vote_increase", "vote_decrease", "noop")
COMPOSITE_ACTIONS = tuple(f"{move}_{vote}" for vote in ("no_vote", "increase", "decrease")
                          for move in MOVES) + ("noop",)
#: What each action does: (move or None, vote -1/0/+1); the move comes first.
EFFECTS = {
    **{move: (move, 0) for move in MOVES},
    "vote_increase": (None, 1), "vote_decrease": (None, -1), "noop": (None, 0),
    **{f"{move}_{vote}": (move, step) for move in MOVES
       for vote, step in (("no_vote", 0), ("increase", 1), ("decrease", -1))},
}
ACTION_MODES = {"simple": SIMPLE_ACTIONS, "composite": COMPOSITE_ACTIONS}
#: Each mode's action by its effect ``(move or None, vote)``.
ACTION_BY_EFFECT = {mode: {EFFECTS[name]: name for name in names}
                    for mode, names in ACTION_MODES.items()}

#: Behaviour mixes the dashboard offers.
MIXES = ("random", "greedy_forager", "civic_voter", "policy:1,civic_voter:2",
         "q_learning:1,civic_voter:2", "greedy_forager:2,civic_voter:1",
         "greedy_forager:1,civic_voter:2")


def _spawn_weights(name, value, values):
    weights = check.reals(name, value, len(KINDS), low=0)
    if not 0 < sum(weights) < math.inf:
        raise ValueError(f"{name}={value!r} is invalid: must have a positive sum, and a finite one")
    return weights


def _vision_radius(name, value, values):
    return check.integer(name, value, low=0, high=max(values["width"], values["height"]))


#: What the model checks of the grid's size beside the agents and resources it must hold.
FITS = "`(width - 2) * (height - 2) >= ceil(num_agents / num_worlds) + initial_resources`"

PARAMETERS = Parameters((
    Parameter("width", 10, Integer(low=3, high=200), "grid columns, border walls included",
              requires=FITS),
    Parameter("height", 10, Integer(low=3, high=200), "grid rows, border walls included",
              requires=FITS),
    Parameter("num_agents", 3, Integer(low=1, high=100), "agents (seats)", control=Slider(1, 10)),
    Parameter("population", "random", Population(count="num_agents"),
              "behaviour of each seat, seats filled in the order written", control=Select(MIXES)),
    policy_parameter(),
    learner_parameter(),
    Parameter("max_steps", 100, Integer(low=1, high=MAX_STEPS), "turns in an episode"),
    Parameter("taboo", "ABCDE", Subset("".join(KINDS)),
              "kinds whose collection is punished"),
    Parameter("initial_resources", 15, Integer(low=0, high=40_000),
              "resources placed in each world at the start", requires=FITS),
    Parameter("spawn_prob", 0.05, Probability(), "chance that an empty open cell grows a "
                                                 "resource at the start of a turn"),
    Parameter("spawn_weights", (1, 1, 1, 1, 1),
              Custom(_spawn_weights, f"list, tuple or 1-D array of {len(KINDS)} finite numbers, "
                                     "each >= 0, with a positive sum",
                     invalid=((0, 0, 0, 0, 0), (1, 1, 1, 1))),
              "relative weights of kinds A..E for initial and spawned resources"),
    Parameter("activation", "random", Choice(("random", "sequential")),
              "order of the agents' actions: shuffled afresh each turn, or seat order"),
    Parameter("action_mode", "simple", Choice(tuple(ACTION_MODES)),
              "7 actions (a vote instead of a move) or 13 (a move with a vote)",
              control=Select()),
    Parameter("initial_punishment", 0.1, Probability(), "`p` at the start",
              control=Slider(0.0, 1.0, 0.1)),
    Parameter("vote_step", 0.2, Probability(), "change of `p` per vote",
              control=Slider(0.0, 1.0, 0.1)),
    Parameter("vote_cost", 0.1, Real(low=0), "amount subtracted from the voter's reward for each "
                                             "vote"),
    Parameter("punishment_mode", "expected", Choice(("expected", "stochastic")),
              "punishment paid as its expectation, or drawn", control=Select()),
    Parameter("punishment_magnitude", -10.0, Real(high=0),
              "reward of one punishment"),
    Parameter("vision_radius", 2, Custom(_vision_radius, "integer from 0 to `max(width, height)`",
                                         invalid=(-1, 11)),
              "radius `r` of the observation window"),
    Parameter("full_view", False, Boolean(), "observations show the whole world instead of the "
                                             "window"),
    Parameter("num_worlds", 1, Integer(low=1, high="num_agents"),
              "separate grids"),
    Parameter("composite_views", False, Boolean(),
              "an observation stacks every agent's view, own first"),
))

MODEL_REPORTERS = ("turn", "punishment_level", "votes_up", "votes_down", "cumulative_votes_up",
                   "cumulative_votes_down", *(f"collected_{k}" for k in KINDS), "collected",
                   "resources_on_grid", "social_harm_generated", "punishment_total",
                   "vote_cost_total", "mean_reward")
AGENT_REPORTERS = ("behaviour", "reward", "collected", "votes_up", "votes_down",
                   "harm_received")


class Observation(NamedTuple):
    """What an agent sees (docs/rules/state_punishment.md, "Observations").

    ``view``: float32 one-hot of shape ``(rows, cols, channels)`` -- the ``(2r+1)``-square
    window around the agent, or its whole world with ``full_view`` -- with channels empty,
    wall, A..E, then one per agent (seat order). With ``composite_views`` it gains a leading
    axis: the agent's own view first, then every other agent's in seat order.
    ``features``: float64 ``(punishment_level, the agent's harm not yet applied, a uniform
    draw)``, exact as the model holds them.
    """

    view: np.ndarray
    features: np.ndarray


class Action(NamedTuple):
    """One agent's action and what it paid (``vote_cost`` negative, ``harm`` applied);
    ``blocked``: its move ran into a wall or an agent, so nothing else happened."""

    turn: int
    seat: int
    action: str
    collected: str | None
    value: float
    punishment: float
    vote_cost: float
    harm: float
    reward: float
    blocked: bool


def _exact(x: float) -> Fraction:
    """The decimal ``x`` as written (0.1 is 1/10), as an exact fraction."""
    return Fraction(check.written_decimal(x))


class StatePunishmentModel(PhasedModel):
    """A walled grid of foragers who vote on how likely taboo collecting is punished."""

    model_reporters = MODEL_REPORTERS
    agent_reporters = AGENT_REPORTERS
    parameters = PARAMETERS

    phases = (
        ModelPhase("spawn"),
        AgentPhase("act", "act", order="shuffled"),  # "seat" with activation="sequential"
        ModelPhase("log", method="log_turn"),
    )

    def __init__(self, *, collect_data=True, rng=None, **parameters):
        super().__init__(rng=rng, collect_data=collect_data)
        p = self.check_parameters(parameters)
        self.width = p.width
        self.height = p.height
        self.num_agents = p.num_agents
        self.population = p.population
        self.policy = p.policy
        self.learner = p.learner
        self.max_steps = p.max_steps
        self.taboo = p.taboo
        self.initial_resources = p.initial_resources
        self.spawn_prob = p.spawn_prob
        self.spawn_weights = p.spawn_weights
        self.activation = p.activation
        self.action_mode = p.action_mode
        self.initial_punishment = p.initial_punishment
        self.vote_step = p.vote_step
        self.vote_cost = p.vote_cost
        self.punishment_mode = p.punishment_mode
        self.punishment_magnitude = p.punishment_magnitude
        self.vision_radius = p.vision_radius
        self.full_view = p.full_view
        self.num_worlds = p.num_worlds
        self.composite_views = p.composite_views
        behaviours = self.seat_behaviours(self.num_agents)
        weights = self.spawn_weights
        self.spawn_weights = tuple(w / sum(weights) for w in weights)
        self.cumulative_weights = np.cumsum(self.spawn_weights)[:-1]
        self.action_names = ACTION_MODES[self.action_mode]
        per_world = -(-self.num_agents // self.num_worlds)
        open_per_world = (self.width - 2) * (self.height - 2)
        if open_per_world < per_world + self.initial_resources:
            raise ValueError(
                f"width={self.width}, height={self.height} is too small: {open_per_world} open cells "
                f"per world cannot hold {per_world} agents (num_agents={self.num_agents}, "
                f"num_worlds={self.num_worlds}) and initial_resources="
                f"{self.initial_resources}")
        if self.activation == "sequential":
            self.phases = tuple(dataclasses.replace(phase, order="seat")
                                if phase.name == "act" else phase for phase in self.phases)

        initial, step = _exact(self.initial_punishment), _exact(self.vote_step)
        self.denominator = math.lcm(initial.denominator, step.denominator)
        self.p_units = int(initial * self.denominator)
        self.step_units = int(step * self.denominator)
        self.punishment_level = self.p_units / self.denominator

        self.grids = [walled_grid(self.height, self.width, self.random)
                      for _ in range(self.num_worlds)]
        for grid in self.grids:
            grid.create_property_layer("resource", default_value=0, dtype=np.int8)
        self.seats = tuple(cls(self, seat) for seat, cls in enumerate(behaviours))
        for world, grid in enumerate(self.grids):
            players = [agent for agent in self.seats if agent.world == world]
            cells = self.random.sample(open_cells(grid), len(players) + self.initial_resources)
            for agent, cell in zip(players, cells):
                agent.cell = grid[cell]
            for cell, code in zip(cells[len(players):], self._draw_kinds(self.initial_resources)):
                grid.resource.data[cell] = code
        self.open_masks = [~grid.wall.data for grid in self.grids]

        self.observation_rng = np.random.default_rng([self.seed, 1])
        self.turn = 0
        self.history: list[Action] = []
        self.votes_up = self.votes_down = 0
        self.cumulative_votes_up = self.cumulative_votes_down = 0
        self.collected_by_kind = dict.fromkeys(KINDS, 0)
        self.social_harm_generated = 0.0
        self.punishment_total = 0.0
        self.vote_cost_total = 0.0
        self.total_reward = 0.0
        self._set_counts()

        self.start_data_collection()

    # --- Phase 1: spawn ---------------------------------------------------------------
    def spawn(self):
        """A turn opens; every empty open cell spawns a resource with ``spawn_prob``, its
        kind drawn by ``spawn_weights``."""
        self.turn += 1
        self.votes_up = self.votes_down = 0
        for grid, open_mask in zip(self.grids, self.open_masks):
            resource = grid.resource.data
            rows, cols = np.nonzero(open_mask & grid.empty.data & (resource == 0))
            spawned = np.flatnonzero(self.rng.random(rows.size) < self.spawn_prob)
            if spawned.size:
                resource[rows[spawned], cols[spawned]] = self._draw_kinds(spawned.size)

    def _draw_kinds(self, count):
        """Resource codes 1..5 drawn by ``spawn_weights`` (inverse of their distribution)."""
        return np.searchsorted(self.cumulative_weights, self.rng.random(count),
                               side="right") + 1

    # --- Phase 2: the agents act one after another (each calls take_action) ----------
    def take_action(self, agent, action: str):
        """Apply ``agent``'s action: move (collecting what it steps on), then vote, then
        subtract its accumulated harm. Reward = value + punishment + vote cost - harm."""
        if action not in self.action_names:
            raise ValueError(f"agent {agent.seat} ({agent.behaviour}) chose {action!r}; "
                             f"the {self.action_mode} actions are {list(self.action_names)}")
        move, vote = EFFECTS[action]
        kind, value, punishment, cost, blocked = None, 0.0, 0.0, 0.0, False
        if move is not None:
            moved = self._move(agent, MOVES[move])
            blocked = moved is None
            if blocked:  # the agent stays; nothing else happens
                vote = 0
            else:
                kind, value, punishment = moved
        if vote:
            cost = self._vote(agent, vote)
        harm, agent.pending_harm = agent.pending_harm, 0.0
        reward = value + punishment - cost - harm
        agent.reward += reward
        self.total_reward += reward
        self.history.append(Action(self.turn, agent.seat, action, kind, value, punishment,
                                   -cost, harm, reward, blocked))

    def _move(self, agent, offset):
        """Walls and agents block (None); stepping onto a resource collects it.
        Returns ``(kind collected or None, value, punishment)``."""
        grid = self.grids[agent.world]
        row, col = agent.cell.coordinate
        target = (row + offset[0], col + offset[1])
        if grid.wall.data[target] or not grid.empty.data[target]:
            return None
        agent.cell = grid[target]
        code = int(grid.resource.data[target])
        if not code:
            return None, 0.0, 0.0
        grid.resource.data[target] = 0
        kind = KINDS[code - 1]
        agent.collected += 1
        self.collected_by_kind[kind] += 1
        punishment = self._punishment() if kind in self.taboo else 0.0
        self.punishment_total += punishment
        harm = HARM[kind]
        if harm > 0:
            for other in self.seats:
                if other is not agent:
                    other.pending_harm += harm
                    other.harm_received += harm
                    self.social_harm_generated += harm
        return kind, VALUE[kind], punishment

    def _punishment(self):
        if self.punishment_mode == "expected":
            return self.punishment_magnitude * self.punishment_level
        return self.punishment_magnitude if self.random.random() < self.punishment_level else 0.0

    def _vote(self, agent, vote):
        """Move p by one vote step, clamped to [0, 1]; the vote costs even when clamped."""
        self.p_units = min(max(self.p_units + vote * self.step_units, 0), self.denominator)
        self.punishment_level = self.p_units / self.denominator
        if vote > 0:
            self.votes_up += 1
            agent.votes_up += 1
        else:
            self.votes_down += 1
            agent.votes_down += 1
        self.vote_cost_total -= self.vote_cost
        return self.vote_cost

    # --- Phase 3: log -------------------------------------------------------------------
    def log_turn(self):
        """Counters (the DataCollector collects after the step); the episode ends after
        ``max_steps`` turns."""
        self.cumulative_votes_up += self.votes_up
        self.cumulative_votes_down += self.votes_down
        self._set_counts()
        if self.turn >= self.max_steps:
            self.running = False

    def _set_counts(self):
        for kind in KINDS:
            setattr(self, f"collected_{kind}", self.collected_by_kind[kind])
        self.collected = sum(self.collected_by_kind.values())
        self.resources_on_grid = sum(int(np.count_nonzero(g.resource.data)) for g in self.grids)
        self.mean_reward = self.total_reward / self.num_agents

    # --- Observation ------------------------------------------------------------------
    def observe(self, agent) -> Observation:
        """``agent``'s observation, built on demand (docs/rules/state_punishment.md,
        "Observations")."""
        if self.composite_views:
            others = [other for other in self.seats if other is not agent]
            view = np.stack([self._view(a) for a in (agent, *others)])
        else:
            view = self._view(agent)
        features = np.array([self.punishment_level, agent.pending_harm,
                             self.observation_rng.random()])
        return Observation(view, features)

    def _view(self, agent):
        codes = self.entity_codes(agent.world)
        if not self.full_view:
            row, col = agent.cell.coordinate
            codes = window(codes, row, col, self.vision_radius, outside=WALL)
        return one_hot(codes, AGENT_CHANNEL + self.num_agents)

    def entity_codes(self, world: int) -> np.ndarray:
        """The world as observation channels: empty, wall, A..E, agent 0..n-1."""
        grid = self.grids[world]
        resource = grid.resource.data
        codes = np.where(grid.wall.data, WALL, np.where(resource > 0, resource + 1, EMPTY))
        for agent in self.seats:
            if agent.world == world:
                codes[agent.cell.coordinate] = AGENT_CHANNEL + agent.seat
        return codes
