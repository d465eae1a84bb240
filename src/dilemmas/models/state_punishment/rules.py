"""State Punishment: the rules as data -- rule constants, the parameter declaration and the
DataCollector columns (docs/rules/state_punishment.md); the Mesa model that plays them is
``model``."""

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from dilemmas.models import validation as check
from dilemmas.models.learners import learner_parameter
from dilemmas.models.parameters import (MAX_STEPS, Boolean, Choice, Custom, Integer, Parameter,
                                        Parameters, Population, Probability, Real, Select, Slider,
                                        Subset)
from dilemmas.models.policies import play_parameter, policy_parameter

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

#: The version of these rules that results record (docs/rules/state_punishment.md, "Random
#: numbers"): 2 since the turn is played over arrays (``dilemmas.models.state_punishment.arrays``),
#: each chance drawing its own number; 3 since the model plays its round on the batch
#: engine's methods (``dilemmas.models.state_punishment.batch``), the act order drawn from
#: ``model.rng`` as the engine draws it.
RULES_VERSION = 3

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
    play_parameter(),
    learner_parameter(),
    Parameter("max_steps", 100, Integer(low=1, high=MAX_STEPS), "turns in an episode"),
    Parameter("taboo", "ABCDE", Subset("".join(KINDS)),
              "kinds whose collection is punished"),
    Parameter("initial_resources", 15, Integer(low=0, high=40_000),
              "resources placed in each world at the start", requires=FITS),
    Parameter("spawn_prob", 0.05, Probability(), "chance that an empty open cell grows a "
                                                 "resource at the start of a turn",
              between_rounds=True),
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
                                             "vote", between_rounds=True),
    Parameter("punishment_mode", "expected", Choice(("expected", "stochastic")),
              "punishment paid as its expectation, or drawn", control=Select()),
    Parameter("punishment_magnitude", -10.0, Real(high=0),
              "reward of one punishment", between_rounds=True),
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
