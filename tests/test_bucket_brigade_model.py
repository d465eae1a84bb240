"""Bucket Brigade as a Mesa model: parameters, data, rewards, behaviours.

The rules are docs/rules/bucket_brigade.md; what every game keeps (registration, columns,
determinism, batch runs, generic parameter checks) is checked in tests/test_contract.py.
"""

import math

import numpy as np
import pytest

from dilemmas.agents.bucket_brigade import BEHAVIOURS, FreeRiderAgent
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.rules import BURNING, REST, RUINED, SAFE, SCENARIOS, WORK


def played(**kwargs):
    model = BucketBrigadeModel(**kwargs)
    model.run_model()
    return model


# --- Parameters -----------------------------------------------------------------------

def test_defaults_are_the_default_scenario_with_round_robin_ownership():
    """docs/rules/bucket_brigade.md, "Parameters" (the `default` scenario) and "World"
    (ownership and starting houses)."""
    model = BucketBrigadeModel()
    expected = dict(beta=0.25, kappa=0.5, A=100, L=100, c=0.5, rho_ignite=0.2, N_min=12,
                    p_spark=0.02, N_spark=12, gamma=0.1, lambda_own=2.0, alpha_own=1.0,
                    r_rest=0.5, num_houses=10, num_agents=4, max_steps=200, rules="spec")
    assert {key: getattr(model, key) for key in expected} == expected
    assert model.work_costs == (0.5,) * 4
    assert model.owner == (0, 1, 2, 3, 0, 1, 2, 3, 0, 1)
    assert [agent.house for agent in model.seats] == [0, 1, 2, 3]


def test_named_scenarios_and_explicit_overrides():
    hard = BucketBrigadeModel(scenario="hard")
    assert (hard.beta, hard.kappa, hard.rho_ignite, hard.N_min, hard.p_spark, hard.N_spark) \
        == (0.40, 0.3, 0.3, 15, 0.05, 15)
    assert BucketBrigadeModel(scenario="overcrowding").A == 50
    mixed = BucketBrigadeModel(scenario="hard", beta=0.1, N_min=3)
    assert (mixed.beta, mixed.kappa, mixed.N_min, mixed.N_spark) == (0.1, 0.3, 3, 15)
    assert len(SCENARIOS) == 12


@pytest.mark.parametrize("kwargs, names", [
    (dict(population="firefighter:2,liar:1"), ["population=", "add up to 3", "the game has 4 agents"]),
    (dict(work_costs=(0.5, 0.5)), ["work_costs=(0.5, 0.5)", "list or tuple of 4 numbers"]),
    (dict(work_costs={0.1, 0.2, 0.3, 0.4}), ["work_costs={", "list or tuple of 4 numbers"]),
    (dict(work_costs={0: 1, 1: 1, 2: 1, 3: 1}), ["work_costs={0: 1", "list or tuple"]),
    (dict(work_costs="0.5"), ["work_costs='0.5'", "list or tuple"]),
    (dict(rng=-1), ["rng=-1", "None or an integer >= 0"]),
    (dict(rng=1.5), ["rng=1.5", "None or an integer >= 0"]),
    (dict(rng=True), ["rng=True", "None or an integer >= 0"]),
    (dict(work_costs=(0.5, 0.5, -1, 0.5)), ["work_costs[2]=-1", ">= 0"]),
    (dict(collect_data="yes"), ["collect_data='yes'", "True or False"]),
])
def test_bad_parameters_raise_a_value_error_naming_them(kwargs, names):
    """The checks beyond one declared parameter's own kind (the contract suite tries every
    declared parameter): counts and lengths that follow ``num_agents``, each ``work_costs``
    entry, ``rng`` and ``collect_data``."""
    with pytest.raises(ValueError) as error:
        BucketBrigadeModel(**kwargs)
    for name in names:
        assert name in str(error.value)


def test_numpy_values_are_accepted_as_the_plain_numbers_they_are():
    model = BucketBrigadeModel(rng=np.int64(3), num_agents=np.int64(5), beta=np.float64(0.3),
                               work_costs=np.array([0.1, 0.2, 0.3, 0.4, 0.5]))
    assert model.seed == 3 and type(model.seed) is int
    assert model.num_agents == 5 and model.beta == 0.3 and model.work_costs[4] == 0.5
    model.run_model()
    again = played(rng=3, num_agents=5, beta=0.3, work_costs=(0.1, 0.2, 0.3, 0.4, 0.5))
    assert model.history == again.history


def test_a_model_without_a_seed_records_the_one_it_drew():
    first = played()
    again = played(rng=first.seed)
    assert first.history == again.history


def test_a_custom_agent_returning_nonsense_gets_a_clear_error(monkeypatch):
    class Confused(BEHAVIOURS["always_rest"]):
        behaviour = "confused"

        def choose_action(self):
            return (99, WORK)

    monkeypatch.setitem(BEHAVIOURS, "confused", Confused)
    model = BucketBrigadeModel(population="confused")
    with pytest.raises(ValueError, match=r"agent 0 \(confused\) chose house 99; it must be one "
                                         r"of 0\.\.9"):
        model.step()


@pytest.mark.parametrize("house, accepted", [(np.int64(2), True), (True, False), (2.0, False)])
def test_a_house_is_an_integer_and_nothing_moves_before_every_choice_is_checked(
        monkeypatch, house, accepted):
    class Picky(BEHAVIOURS["always_rest"]):
        behaviour = "picky"

        def choose_action(self):
            return (house if self.seat == 3 else 1, REST)

    monkeypatch.setitem(BEHAVIOURS, "picky", Picky)
    model = BucketBrigadeModel(population="picky")
    if accepted:
        model.step()
        assert [agent.house for agent in model.seats] == [1, 1, 1, 2]
        assert type(model.seats[3].house) is int
    else:
        with pytest.raises(ValueError, match="agent 3 \\(picky\\) chose house"):
            model.step()
        assert [agent.house for agent in model.seats] == [0, 1, 2, 3]  # nobody moved


# --- Data -----------------------------------------------------------------------------

def test_a_row_after_construction_and_after_each_night():
    """docs/rules/bucket_brigade.md, "Data collected": night 0, then one row per night."""
    model = played(rng=4)
    frame = model.datacollector.get_model_vars_dataframe()
    assert list(frame["night"]) == list(range(model.night + 1))
    agents = model.datacollector.get_agent_vars_dataframe()
    assert len(agents) == 4 * (model.night + 1)


def test_each_night_observes_the_last_nights_locations_actions_and_signals(monkeypatch):
    class Watcher(BEHAVIOURS["random"]):
        behaviour = "watcher"
        seen = []

        def choose_signal(self):
            self.seen.append(self.model.observation)
            return super().choose_signal()

    monkeypatch.setitem(BEHAVIOURS, "watcher", Watcher)
    model = played(population="watcher:1,random:3", rng=6)
    assert len(Watcher.seen) == model.night >= 12
    first = Watcher.seen[0]
    assert (first.night, first.last_actions, first.last_signals) == (1, None, None)
    assert first.houses == model.initial_houses and first.locations == (0, 1, 2, 3)
    for obs, last in zip(Watcher.seen[1:], model.history):
        assert obs.night == last.night + 1
        assert obs.houses == last.houses
        assert obs.locations == last.locations == tuple(h for h, _ in last.actions)
        assert obs.last_actions == last.actions and obs.last_signals == last.signals
        assert obs.signals is None


def test_reporters_agree_with_the_history():
    model = played(rng=5, population="liar:2,free_rider:2")
    frame = model.datacollector.get_model_vars_dataframe().set_index("night")
    previous = model.initial_houses
    lies = 0
    for night in model.history:
        row = frame.loc[night.night]
        modes = [mode for _, mode in night.actions]
        assert row.burning == night.houses.count(BURNING)
        assert row.safe == night.houses.count(SAFE) and row.ruined == night.houses.count(RUINED)
        assert row.workers == modes.count(WORK) and row.work_rate == modes.count(WORK) / 4
        assert row.signals_work == night.signals.count(WORK)
        tonight = sum(m != s for m, s in zip(modes, night.signals))
        lies += tonight
        assert (row.lies, row.lie_rate, row.cumulative_lies) == (tonight, tonight / 4, lies)
        if BURNING in previous:
            assert row.cooperation_rate == modes.count(WORK) / 4
        else:
            assert math.isnan(row.cooperation_rate)
        previous = night.houses
    assert frame.iloc[-1].mean_reward == pytest.approx(
        sum(agent.reward for agent in model.seats) / 4)


# --- Rewards --------------------------------------------------------------------------

def expected_night_rewards(model, before, night):
    """Per-night rewards of docs/rules/bucket_brigade.md, "Rewards", recomputed from the
    history alone."""
    after, n = night.houses, model.num_houses
    town = model.gamma * (model.A * after.count(SAFE) / n - model.L * after.count(RUINED) / n)
    rewards = []
    for agent, (_, mode) in zip(model.seats, night.actions):
        owned = [h for h in range(n) if h % model.num_agents == agent.seat]
        r = -model.work_costs[agent.seat] if mode == WORK else model.r_rest
        if model.rules == "spec":
            r += model.alpha_own * (sum(after[h] == SAFE for h in owned)
                                    - sum(before[h] == SAFE for h in owned))
        else:
            r += model.alpha_own * sum(before[h] != SAFE and after[h] == SAFE for h in owned)
            r -= model.lambda_own * sum(after[h] == RUINED for h in owned)
            r += town
        rewards.append(r)
    return rewards


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("rules", ["spec", "reference"])
def test_reward_identities(seed, rules):
    model = played(population="firefighter,liar,free_rider,hero", rules=rules, rng=seed,
                   work_costs=(0.2, 0.5, 0.9, 1.3), scenario="hard", gamma=0.3, alpha_own=1.5)
    before = model.initial_houses
    for night in model.history:
        assert list(night.rewards) == pytest.approx(expected_night_rewards(model, before, night))
        before = night.houses

    final = model.history[-1].houses
    n = model.num_houses
    saved, burned = final.count(SAFE) / n, final.count(RUINED) / n
    if rules == "spec":
        expected_final = [model.gamma * (model.A * saved - model.L * burned)
                          - model.lambda_own * sum(final[h] == RUINED for h in agent.owned)
                          for agent in model.seats]
        assert list(model.final_rewards) == pytest.approx(expected_final)
    else:
        assert model.final_rewards is None
        expected_final = [0.0] * 4
    for agent, final_term in zip(model.seats, expected_final):
        nightly = sum(night.rewards[agent.seat] for night in model.history)
        assert agent.reward == pytest.approx(nightly + final_term)

    worker_nights = sum(mode == WORK for night in model.history for _, mode in night.actions)
    r_team = model.A * saved - model.L * burned - model.c * worker_nights
    assert model.team_reward == pytest.approx(r_team)
    assert model.datacollector.get_model_vars_dataframe().iloc[-1].team_reward == pytest.approx(r_team)


def test_per_agent_work_costs_are_what_each_worker_pays():
    costs = (0.1, 0.7, 1.1, 2.5)
    model = BucketBrigadeModel(population="always_work", work_costs=costs, rho_ignite=1.0,
                               kappa=0.0, rng=1)
    model.step()
    # Every house burns, nobody can put a fire out: every agent works and owns no SAFE house
    # before or after, so its reward is exactly minus its own cost.
    assert [night_r for night_r in model.history[0].rewards] == [-c for c in costs]


# --- Behaviours -----------------------------------------------------------------------

def test_always_work_goes_to_the_nearest_fire_ties_to_the_lower_index_and_is_honest():
    model = BucketBrigadeModel(population="always_work", rho_ignite=0.0, p_spark=0.0, rng=1)
    model.houses = [SAFE] * 10
    model.houses[2] = model.houses[8] = BURNING  # agent 0 at house 0: both at distance 2
    model.step()
    night = model.history[0]
    assert night.signals == (WORK,) * 4
    assert [action for action in night.actions] == [(2, WORK), (2, WORK), (2, WORK), (2, WORK)]
    quiet = BucketBrigadeModel(population="always_work", rho_ignite=0.0, p_spark=0.0, rng=1)
    quiet.step()
    assert quiet.history[0].signals == (REST,) * 4
    assert quiet.history[0].actions == ((0, REST), (1, REST), (2, REST), (3, REST))


def test_always_rest_never_works_nor_lies():
    model = played(population="always_rest", rng=3)
    assert all(action == (seat, REST) for night in model.history
               for seat, action in enumerate(night.actions))
    assert model.cumulative_lies == 0


def test_random_agent_is_uniform_and_independent():
    model = BucketBrigadeModel(population="random", N_min=10_000, max_steps=2500, rng=9)
    for _ in range(2500):
        model.step()
    signals = [s for night in model.history for s in night.signals]
    modes = [m for night in model.history for _, m in night.actions]
    houses = [h for night in model.history for h, _ in night.actions]
    n = len(signals)  # 10,000 draws each: sd of a share of 1/2 is 0.005, of 1/10 is 0.003
    assert abs(signals.count(WORK) / n - 0.5) < 4 * 0.005
    assert abs(modes.count(WORK) / n - 0.5) < 4 * 0.005
    for h in range(10):
        assert abs(houses.count(h) / n - 0.1) < 4 * 0.003
    both = sum(s == WORK and m == WORK for s, m in zip(signals, modes)) / n
    assert abs(both - 0.25) < 4 * math.sqrt(0.25 * 0.75 / n)  # independence


def test_archetypes_carry_their_documented_parameters():
    """docs/rules/bucket_brigade.md, "Behaviours": the ten values of each archetype."""
    table = {
        "firefighter": (1.0, 0.9, 0.5, 0.8, 0.5, 0.7, 0.1, 0.0, 0.0, 0.8),
        "liar": (0.1, 0.7, 0.0, 0.9, 0.2, 0.8, 0.3, 0.0, 0.4, 0.2),
        "free_rider": (0.7, 0.2, 0.0, 0.9, 0.0, 0.0, 0.1, 0.0, 0.9, 0.0),
        "hero": (1.0, 1.0, 1.0, 0.5, 0.1, 0.5, 0.0, 0.9, 0.0, 1.0),
        "coordinator": (0.9, 0.6, 0.7, 0.6, 0.8, 1.0, 0.05, 0.0, 0.2, 0.6),
    }
    for name, values in table.items():
        assert tuple(BEHAVIOURS[name].params.values()) == values, name


def heuristic_action_with_helpers(helpers, trials=20_000):
    """A free_rider at house 1 intending to WORK, one fire at house 0 (its own), and
    ``helpers`` other agents that signalled WORK from next to it. Share choosing REST."""
    model = BucketBrigadeModel(population="free_rider", rng=2)
    agent = model.seats[0]
    model.houses = (BURNING,) + (SAFE,) * 9
    model.locations = np.array([[1, 1, 1, 1]])
    model.signalled = np.array([[False] + [True] * helpers + [False] * (3 - helpers)])
    agent.intent = WORK
    rests = sum(agent.choose_action()[1] == REST for _ in range(trials))
    return rests / trials


@pytest.mark.parametrize("helpers", [0, 1, 3])
def test_heuristic_free_rides_on_the_signals_of_others(helpers):
    # Rule: an intent to WORK turns to REST with probability rest_bias*(1 - exp(-kappa*k)).
    p = FreeRiderAgent.params["rest_bias"] * (1 - math.exp(-0.5 * helpers))
    share = heuristic_action_with_helpers(helpers)
    assert abs(share - p) <= 4 * math.sqrt(p * (1 - p) / 20_000) + 1e-12


def test_lie_rates_of_liars_and_firefighters_stay_within_their_derived_bounds():
    """Per agent-night, from the heuristic's rules and the archetype table:

    liar (honesty 0.1): it signals the opposite of its intent with probability 0.9, then
    flips its mode with some probability f <= max(rest_bias, altruism) = 0.4. It lies when
    exactly one of those happened: 0.9*(1 - f) + 0.1*f >= 0.58.
    firefighter (honesty 1): it lies only by flipping, only from REST to WORK (rest_bias 0),
    and intends REST on a fire night with probability <= 1 - work_tendency = 0.1, then flips
    with probability <= altruism = 0.8: at most 0.08 (and 0 on nights without fire).
    Each agent-night's lie has these bounds given everything before it, so by Azuma-Hoeffding
    a mean over N agent-nights strays below (above) its bound by more than t with probability
    <= exp(-2 N t^2); with N >= 1400 and t = 0.06 that is below 4e-5.
    """

    def lie_rate(population):
        lies = nights = 0
        for seed in range(30):
            model = played(population=population, rng=seed)
            lies, nights = lies + model.cumulative_lies, nights + model.night
        assert 4 * nights >= 1400
        return lies / (4 * nights)

    assert lie_rate("liar") >= 0.58 - 0.06
    assert lie_rate("firefighter") <= 0.08 + 0.06
