"""Bucket Brigade: the rules as data -- rule constants, the parameter declaration and the
DataCollector columns (docs/rules/bucket_brigade.md); the Mesa model that plays them is
``model``."""

import functools
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

from dilemmas.models import validation as check
from dilemmas.models.bucket_brigade import arrays
from dilemmas.models.learners import learner_parameter
from dilemmas.models.parameters import (MAX_STEPS, Choice, Integer, Parameter, Parameters,
                                        Population, Probability, Real, Reals, Select, Slider)
from dilemmas.models.policies import play_parameter, policy_parameter

WORK, REST = "WORK", "REST"  # signals and modes
SAFE, BURNING, RUINED = arrays.SAFE, arrays.BURNING, arrays.RUINED  # house states
SIGNALS = frozenset((WORK, REST))
RULE_SETS = ("spec", "reference")
#: The version of these rules that results record (docs/rules/bucket_brigade.md, "Random
#: numbers"): 2 since the night is played over arrays (``dilemmas.models.bucket_brigade.arrays``),
#: 3 since the batch engine draws its numbers from JAX, 4 since the model plays the batch
#: engine's night on its one episode (sparks drawn every night, array behaviours drawing for
#: all their seats at once).
RULES_VERSION = 4
#: The versions whose Mesa-model episodes the model plays again, number for number (4
#: changed the model's draws, not the batch engine's).
MODEL_VERSIONS = (4,)

def _scenario(beta, kappa, c, rho_ignite, N_min, p_spark, A=100.0):
    return dict(beta=beta, kappa=kappa, A=A, L=100.0, c=c, rho_ignite=rho_ignite,
                N_min=N_min, p_spark=p_spark, N_spark=N_min)


#: The named scenarios (all L=100 and N_spark = N_min).
SCENARIOS = {
    "default": _scenario(0.25, 0.5, 0.5, 0.2, 12, 0.02),
    "easy": _scenario(0.10, 0.8, 0.5, 0.1, 10, 0.01),
    "hard": _scenario(0.40, 0.3, 0.5, 0.3, 15, 0.05),
    "trivial_cooperation": _scenario(0.15, 0.9, 0.5, 0.1, 12, 0.0),
    "early_containment": _scenario(0.35, 0.6, 0.5, 0.3, 12, 0.02),
    "greedy_neighbor": _scenario(0.15, 0.4, 1.0, 0.2, 12, 0.02),
    "sparse_heroics": _scenario(0.10, 0.5, 0.8, 0.15, 20, 0.02),
    "rest_trap": _scenario(0.05, 0.95, 0.2, 0.1, 12, 0.02),
    "chain_reaction": _scenario(0.45, 0.6, 0.7, 0.3, 15, 0.03),
    "deceptive_calm": _scenario(0.25, 0.6, 0.4, 0.1, 20, 0.05),
    "overcrowding": _scenario(0.20, 0.3, 0.6, 0.1, 12, 0.02, A=50.0),
    "mixed_motivation": _scenario(0.30, 0.5, 0.6, 0.2, 15, 0.03),
}

#: Behaviour mixes the dashboard offers.
MIXES = ("random", "always_work", "always_rest", "firefighter", "coordinator", "hero",
         "free_rider", "liar", "policy:2,free_rider:2", "q_learning:2,free_rider:2",
         "firefighter:2,free_rider:2", "coordinator:2,liar:2")


def _from_scenario(name, kind, description, **options):
    return Parameter(name, None, kind, description, table=("scenario", SCENARIOS), **options)


PARAMETERS = Parameters((
    Parameter("scenario", "default", Choice(tuple(SCENARIOS)),
              "named scenario that gives every scenario parameter (`beta` ... `N_spark`) left at "
              "`None`", control=Select(), attribute="scenario_name"),  # Model.scenario is Mesa's
    Parameter("num_houses", 10, Integer(low=3, high=1000), "houses on the ring"),
    Parameter("num_agents", 4, Integer(low=4, high=10), "agents (seats)",
              control=Slider(4, 10)),
    Parameter("population", "random", Population(count="num_agents"),
              "behaviour of each seat, seats filled in the order written", control=Select(MIXES)),
    policy_parameter(),
    play_parameter(),
    learner_parameter(),
    _from_scenario("beta", Probability(), "probability that a spreading house ignites one SAFE "
                                          "neighbour", between_rounds=True),
    _from_scenario("kappa", Real(low=0), "extinguish efficiency: `k` workers save a burning "
                                         "house with probability `1 - exp(-kappa * k)`",
                   between_rounds=True),
    _from_scenario("A", Real(), "weight of the fraction of houses SAFE in the town score"),
    _from_scenario("L", Real(), "weight of the fraction of houses RUINED in the town score"),
    _from_scenario("c", Real(low=0), "cost of one worker-night in the team reward, and every "
                                     "agent's work cost when `work_costs` is `None`"),
    _from_scenario("rho_ignite", Probability(), "fraction of houses burning at the start"),
    _from_scenario("N_min", Integer(low=0, high=MAX_STEPS), "minimum number of nights"),
    _from_scenario("p_spark", Probability(), "probability that a SAFE house ignites by itself on "
                                             "a night `<= N_spark`"),
    _from_scenario("N_spark", Integer(low=0, high=MAX_STEPS),
                   "last night on which sparks can happen"),
    Parameter("gamma", 0.1, Real(), "weight of the town score in each agent's reward"),
    Parameter("lambda_own", 2.0, Real(), "penalty per owned house RUINED"),
    Parameter("alpha_own", 1.0, Real(), "reward per owned house gained as SAFE during a night"),
    Parameter("r_rest", 0.5, Real(), "reward for a night spent resting"),
    Parameter("work_costs", None, Reals(length="num_agents", low=0),
              "each seat's cost `c_i` of a night spent working; `None` gives every agent `c`",
              optional=True),
    Parameter("rules", "spec", Choice(RULE_SETS),
              "rule set: `\"spec\"` is this project's rules, `\"reference\"` the earlier "
              "implementation's"),
    Parameter("max_steps", 200, Integer(low=1, high=MAX_STEPS), "cap on the number of nights (a "
                                                                "guard: the rules end every game "
                                                                "sooner)"),
))

#: Model reporters (docs/rules/bucket_brigade.md, "Data collected"), in order; each is a
#: model attribute of that name.
MODEL_REPORTERS = ("night", "burning", "safe", "ruined", "workers", "work_rate",
                   "signals_work", "lies", "lie_rate", "cooperation_rate",
                   "cumulative_lies", "team_reward", "mean_reward")
#: Agent reporters (docs/rules/bucket_brigade.md, "Data collected"); each is an agent
#: attribute of that name.
AGENT_REPORTERS = ("behaviour", "house", "signal", "mode", "lied", "reward")


class Observation(NamedTuple):
    """The public observation of a night (docs/rules/bucket_brigade.md, "Round", 1).

    ``signals`` is None while agents choose their signals and holds tonight's signals, in
    seat order, once every agent has signalled (docs/rules/bucket_brigade.md, "Round", 3).
    """

    night: int
    houses: tuple[int, ...]
    locations: tuple[int, ...]
    last_actions: tuple[tuple[int, str], ...] | None
    last_signals: tuple[str, ...] | None
    signals: tuple[str, ...] | None = None


class Night(NamedTuple):
    """What one night left behind: the houses after it, tonight's signals, the agents'
    locations and ``(house, mode)`` actions, and each agent's reward for the night
    (without the end-of-game terms)."""

    night: int
    houses: tuple[int, ...]
    signals: tuple[str, ...]
    locations: tuple[int, ...]
    actions: tuple[tuple[int, str], ...]
    rewards: tuple[float, ...]


def initial_fire_count(rho_ignite: float, num_houses: int) -> int:
    """``round_half_up(rho_ignite * num_houses)``, computed on the decimal the user wrote
    (0.15 * 10 is 1.5, not 1.4999...)."""
    exact = check.written_decimal(rho_ignite) * num_houses
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


@functools.cache
def allowed_actions(num_houses: int) -> frozenset:
    """Every valid ``(house, mode)`` action on a ring of ``num_houses``."""
    return frozenset((h, mode) for h in range(num_houses) for mode in SIGNALS)
