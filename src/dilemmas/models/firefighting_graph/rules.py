"""Firefighting Graph: the rules as data -- rule constants, the parameter declaration and the
DataCollector columns (docs/rules/firefighting_graph.md); the Mesa model that plays them is
``model``."""

import numpy as np

from dilemmas.models import validation as check
from dilemmas.models.learners import learner_parameter
from dilemmas.models.parameters import (MAX_STEPS, Boolean, Choice, Custom, Integer, Parameter,
                                        Parameters, Population, Probability, Select, Slider, When)
from dilemmas.models.policies import play_parameter, policy_parameter

LAYOUTS = ("row", "grid")

PRESETS = {
    "cognac": dict(max_fire_level=100, p_ignite=0.3, p_grow_neighbour=0.7, p_grow_alone=0.4,
                   p_reduce_neighbour=0.6, p_reduce_alone=1.0, p_two_agents=1.0,
                   p_observe=(0.2, 0.5, 0.8), shared_reward=False),
    "oliehoek": dict(max_fire_level=2, p_ignite=0.8, p_grow_neighbour=0.8, p_grow_alone=0.4,
                     p_reduce_neighbour=0.6, p_reduce_alone=1.0, p_two_agents=1.0,
                     p_observe=(0.2, 0.5, 0.8), shared_reward=True),
}

#: Behaviour mixes the dashboard offers.
MIXES = ("random", "fixed0", "fixed1", "belief_tracker", "policy:5,belief_tracker:5",
         "q_learning:5,belief_tracker:5", "belief_tracker:5,random:5")


def house_shape(values) -> tuple[int, int]:
    """Rows and columns of houses: ``(1, n_agents + 1)`` for the row, ``(n_height + 1,
    n_width + 1)`` for the grid."""
    if values["layout"] == "row":
        return 1, values["n_agents"] + 1
    return values["n_height"] + 1, values["n_width"] + 1


def firefighters(values) -> int:
    """``n_agents`` on the row, one per cell (``n_width * n_height``) on the grid."""
    return values["n_agents"] if values["layout"] == "row" else \
        values["n_width"] * values["n_height"]


def _initial_levels(name, value, values):
    rows, cols = house_shape(values)
    top = values["max_fire_level"]
    allowed = (f"must be {rows * cols} integers from 0 to {top} (or a {rows} x {cols} array "
               "of them)")
    try:
        levels = np.asarray(value)
    except (ValueError, TypeError):
        raise ValueError(f"{name}={value!r} is invalid: {allowed}") from None
    if levels.size != rows * cols or levels.shape not in ((levels.size,), (rows, cols)) \
            or not np.issubdtype(levels.dtype, np.integer) \
            or levels.min() < 0 or levels.max() > top:
        raise ValueError(f"{name}={value!r} is invalid: {allowed}")
    return levels.reshape(rows, cols)


def _probabilities(name, value, values):
    return tuple(check.probability(f"{name}[{i}]", x)
                 for i, x in enumerate(check.reals(name, value, 3)))


def _from_preset(name, kind, description, **options):
    return Parameter(name, None, kind, description, table=("preset", PRESETS), **options)


PARAMETERS = Parameters((
    Parameter("layout", "row", Choice(LAYOUTS), "houses on a line or on a grid",
              control=Select()),
    Parameter("n_agents", 10, Integer(low=1, high=10_000), "firefighters of the row (ignored by "
                                                           "`grid`, but checked in both layouts)",
              used=(When("layout", ("row",)),)),
    Parameter("n_width", 5, Integer(low=1, high=100), "firefighter columns of the grid (ignored "
                                                      "by `row`, but checked in both layouts)",
              used=(When("layout", ("grid",)),)),
    Parameter("n_height", 5, Integer(low=1, high=100), "firefighter rows of the grid (ignored by "
                                                       "`row`, but checked in both layouts)",
              used=(When("layout", ("grid",)),)),
    Parameter("population", "random", Population(
        count=firefighters,
        seats="the number of firefighters (`n_agents` for `row`, `n_width * n_height` for `grid`)"),
              "behaviour of each seat, seats filled in the order written", control=Select(MIXES)),
    policy_parameter(),
    play_parameter(),
    learner_parameter(),
    Parameter("preset", "cognac", Choice(tuple(PRESETS)),
              "named preset that gives every preset parameter (`max_fire_level` ... "
              "`shared_reward`) left at `None`",
              control=Select()),
    _from_preset("max_fire_level", Integer(low=1, high=10**9), "highest fire level"),
    _from_preset("p_ignite", Probability(), "no firefighter, level 0, a neighbour burning: "
                                            "probability of +1",
                 control=Slider(0.0, 1.0, 0.05), between_rounds=True),
    _from_preset("p_grow_neighbour", Probability(),
                 "no firefighter, level > 0, a neighbour burning: probability of +1",
                 between_rounds=True),
    _from_preset("p_grow_alone", Probability(),
                 "no firefighter, level > 0, no neighbour burning: probability of +1",
                 between_rounds=True),
    _from_preset("p_reduce_neighbour", Probability(),
                 "one firefighter, level > 0, a neighbour burning: probability of -1",
                 between_rounds=True),
    _from_preset("p_reduce_alone", Probability(),
                 "one firefighter, level > 0, no neighbour burning: probability of -1",
                 between_rounds=True),
    _from_preset("p_two_agents", Probability(), "two or more firefighters, level > 0: "
                                                "probability that the level is set to 0",
                 between_rounds=True),
    _from_preset("p_observe", Custom(_probabilities, "a list, tuple or 1-D array of 3 "
                                                     "probabilities in [0, 1]",
                                     invalid=((0.2, 0.5, 1.5), (0.2, 0.5))),
                 "probability of seeing flames at level 0, at level 1, at level 2 or more",
                 between_rounds=True),
    _from_preset("shared_reward", Boolean(), "`False`: minus the level of the house visited; "
                                             "`True`: every firefighter gets minus the total "
                                             "fire"),
    Parameter("initial_levels", None,
              Custom(_initial_levels, "one integer (integer dtype) from 0 to `max_fire_level` per "
                     "house, flat in row-major order or as a (rows, cols) array",
                     invalid=([-1] * 11, [0] * 10)),
              "starting fire levels; `None` draws them uniformly", optional=True),
    Parameter("max_steps", 100, Integer(low=1, high=MAX_STEPS), "length of an episode that does "
                                                                "not end earlier"),
))

#: The version of these rules that results record (docs/rules/firefighting_graph.md, "The
#: batch engine"): 2 since the batch engine draws its numbers from JAX.
RULES_VERSION = 2
#: The versions whose Mesa-model episodes the model plays again (2 changed only the engine).
MODEL_VERSIONS = (1, 2)

MODEL_REPORTERS = {"step": "t", "mean_fire": "mean_fire", "max_fire": "max_fire",
                   "burning_houses": "burning_houses", "total_fire": "total_fire",
                   "doubled_houses": "doubled_houses", "mean_reward": "mean_reward",
                   "flame_rate": "flame_rate"}
AGENT_REPORTERS = ("behaviour", "house", "observation", "reward")
