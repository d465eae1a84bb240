"""Exact optimal baselines of the Firefighting Graph (dilemmas/models/firefighting_graph/optimal.py): the rules' tables
against the model, the optimum by hand, by search and by brute force, the optimal policy
played in the model, and bad input.

The rules are docs/rules/firefighting_graph.md. Houses of the row are numbered 0..n_agents;
firefighter i visits house i (action 0) or i + 1 (action 1).
"""

import itertools
import math

import numpy as np
import pytest
from matplotlib.figure import Figure

from dilemmas.analysis import optimum
from dilemmas.analysis.figures.paper import save
from dilemmas.analysis.optimum import baselines, optimal_figure
from dilemmas.models.firefighting_graph import optimal
from dilemmas.models.firefighting_graph.optimal import (CASES, HistoryPolicy, exact_value,
                                                        histories, optimal_table,
                                                        optimal_value, policy_value, tables)
from dilemmas import GAMES
from support import SIGMAS, assert_rate

GAME = "firefighting_graph"
OLIEHOEK = dict(preset="oliehoek")
#: Distinct probabilities, so that a case taken for another shows; level 3 is clipped.
DISTINCT = dict(preset="oliehoek", max_fire_level=3, p_ignite=0.3, p_grow_neighbour=0.7,
                p_grow_alone=0.4, p_reduce_neighbour=0.6, p_reduce_alone=0.9,
                p_two_agents=0.75, p_observe=(0.15, 0.45, 0.85), n_agents=3)
#: (levels, population): together every case of the transition table, 3 firefighters.
ONE_STEP = (
    ((0, 0, 3, 1), "fixed0:3"),            # crew 1 at 0; crew 1 near, reduce; crew 0 grow near
    ((2, 0, 0, 3), "fixed1:1,fixed0:2"),   # crew 0 grow alone; crew 2 at 0; 3 + 1 clipped
    ((0, 2, 1, 0), "fixed1:2,fixed0:1"),   # ignite; crew 1 reduce near; crew 2 put out
    ((0, 0, 2, 0), "fixed1:3"),            # crew 0 at 0 alone stays; crew 1 reduce alone
)
SAMPLES = 4000


# --- The tables -----------------------------------------------------------------------------

@pytest.mark.parametrize("parameters", [dict(OLIEHOEK, n_agents=2), DISTINCT,
                                        dict(OLIEHOEK, layout="grid", n_width=1, n_height=1)])
def test_tables_are_distributions(parameters):
    tab = tables(GAME, 1, **parameters)
    assert np.allclose(tab.house.sum(axis=-1), 1) and (tab.house >= 0).all()
    assert np.allclose(tab.transition.sum(axis=-1), 1) and (tab.transition >= 0).all()
    assert ((tab.flame >= 0) & (tab.flame <= 1)).all()
    assert math.isclose(tab.initial.sum(), 1) and np.allclose(tab.initial, tab.initial[0])
    assert tab.transition.shape[0] == tab.n_actions ** tab.n_agents


def test_house_table_follows_the_rules_cases():
    """docs/rules/firefighting_graph.md, "Round", transition table (max_fire_level 3)."""
    house = tables(GAME, 1, **DISTINCT).house  # [crew, near, level, level']
    assert house[0, 0, 0, 0] == 1 and house[0, 1, 0, 1] == pytest.approx(0.3)
    assert house[0, 0, 2, 3] == pytest.approx(0.4) and house[0, 1, 1, 2] == pytest.approx(0.7)
    assert house[0, 1, 3, 3] == 1  # +1 clipped to max_fire_level
    assert house[1, 1, 0, 0] == 1 and house[1, 0, 2, 1] == pytest.approx(0.9)
    assert house[1, 1, 3, 2] == pytest.approx(0.6) and house[1, 1, 3, 3] == pytest.approx(0.4)
    assert house[2, 1, 0, 0] == 1 and house[2, 0, 3, 0] == pytest.approx(0.75)
    assert house[2, 1, 1, 1] == pytest.approx(0.25)


def one_step(levels, population, seed):
    model = GAMES[GAME].model(**DISTINCT, population=population, max_steps=1,
                              initial_levels=np.array(levels), rng=seed, collect_data=False)
    actions = [agent.choose_action() for agent in model.seats]
    model.step()
    return actions, model.levels.reshape(-1).copy(), model.visited.copy(), \
        model.observations.copy()


@pytest.mark.parametrize("levels, population", ONE_STEP)
def test_transition_and_observation_tables_match_the_model(levels, population):
    """One step from fixed levels, SAMPLES seeds: the frequency of every next state is within
    SIGMAS binomial standard errors of P(s' | s, a), and the flames at a visited house at
    level l' within SIGMAS of p_observe[min(l', 2)]."""
    tab = tables(GAME, 1, **DISTINCT)
    runs = [one_step(levels, population, seed) for seed in range(SAMPLES)]
    actions = runs[0][0]
    joint = int(np.dot(actions, 2 ** np.arange(tab.n_agents - 1, -1, -1)))
    start = np.ravel_multi_index(levels, (tab.max_fire_level + 1,) * len(levels))
    after = [np.ravel_multi_index(tuple(run[1]), (tab.max_fire_level + 1,) * len(levels))
             for run in runs]
    counts = np.bincount(after, minlength=len(tab.states))
    for state, p in enumerate(tab.transition[joint, start]):
        assert_rate(counts[state], SAMPLES, p, f"levels {tab.states[state]} after {levels}")
    seen = {}  # (seat, level index of p_observe) -> flames, visits
    for _, after_levels, visited, flames in runs:
        for seat in range(tab.n_agents):
            key = min(after_levels[visited[seat]], 2)
            hits, total = seen.get(key, (0, 0))
            seen[key] = hits + flames[seat], total + 1
    for key, (hits, total) in seen.items():
        if total >= 100:
            assert_rate(hits, total, DISTINCT["p_observe"][key], f"flames at level {key}")
    for state in range(len(tab.states)):
        for seat, action in enumerate(actions):
            house = tab.guarded[seat, action]
            assert tab.flame[seat, action, state] == \
                DISTINCT["p_observe"][min(tab.states[state, house], 2)]


def test_team_reward_table():
    """"Rewards": minus the total fire once (shared), or the sum of the visited levels."""
    shared = tables(GAME, 1, **OLIEHOEK, n_agents=2)
    alone = tables(GAME, 1, **OLIEHOEK, n_agents=2, shared_reward=False)
    state = np.ravel_multi_index((2, 1, 0), (3, 3, 3))
    assert (shared.reward[:, state] == -3).all()
    assert list(alone.reward[:, state]) == [-3, -2, -2, -1]  # (0, 0) (0, 1) (1, 0) (1, 1)


# --- The optimum ----------------------------------------------------------------------------

def test_horizon_one_by_hand():
    """Two firefighters, three houses, oliehoek: the first action sees nothing, so the
    optimum is the best joint action against the expected fire after one step. A house's
    level and whether a neighbour burns are independent (levels drawn independently): the
    end houses have a burning neighbour with probability 2/3, the middle one 8/9."""
    mean = {  # E[level' | crew, near] with the level uniform over 0, 1, 2
        (0, True): (0.8 + 1.8 + 2) / 3, (0, False): (0 + 1.4 + 2) / 3,
        (1, True): (0 + 0.4 + 1.4) / 3, (1, False): (0 + 0 + 1) / 3,
        (2, True): 0.0, (2, False): 0.0}
    near = (2 / 3, 8 / 9, 2 / 3)

    def fire(first, second):
        crews = [0, 0, 0]
        crews[first] += 1
        crews[1 + second] += 1
        return sum(p * mean[(min(c, 2), True)] + (1 - p) * mean[(min(c, 2), False)]
                   for p, c in zip(near, crews))

    by_hand = max(-fire(a, b) for a, b in itertools.product((0, 1), repeat=2))
    found = optimal_value(GAME, 1, **OLIEHOEK, n_agents=2)
    assert abs(found.value - by_hand) <= 1e-12
    assert by_hand == pytest.approx(-67 / 27)


@pytest.mark.parametrize("firefighters, horizon", CASES)
def test_search_equals_brute_force(firefighters, horizon):
    search = optimal_value(GAME, horizon, **OLIEHOEK, n_agents=firefighters)
    brute = optimal_value(GAME, horizon, method="brute_force", **OLIEHOEK,
                          n_agents=firefighters)
    assert abs(search.value - brute.value) <= 1e-9
    tab = tables(GAME, horizon, **OLIEHOEK, n_agents=firefighters)
    assert abs(policy_value(tab, search.policy, horizon) - search.value) <= 1e-9


@pytest.mark.parametrize("horizon, parameters", [
    (2, dict(OLIEHOEK, n_agents=2, shared_reward=False)),
    (2, dict(OLIEHOEK, layout="grid", n_width=1, n_height=1)),
    (2, dict(DISTINCT, n_agents=2)),
    (3, dict(OLIEHOEK, n_agents=1, initial_levels=np.array([2, 1]))),
])
def test_search_equals_brute_force_beyond_the_preset(horizon, parameters):
    search = optimal_value(GAME, horizon, **parameters)
    brute = optimal_value(GAME, horizon, method="brute_force", **parameters)
    assert abs(search.value - brute.value) <= 1e-9


def test_policy_covers_every_history():
    found = optimal_value(GAME, 3, **OLIEHOEK, n_agents=2)
    assert found.horizon == 3 and found.parameters == dict(OLIEHOEK, n_agents=2)
    assert len(found.policy) == 2
    for table in found.policy:
        assert set(table) == set(histories(3)) and set(table.values()) <= {0, 1}
    assert len(histories(3)) == 7 and histories(2) == [(), (0,), (1,)]


@pytest.mark.parametrize("firefighters, horizon", CASES)
def test_optimum_beats_the_deterministic_behaviours(firefighters, horizon):
    found = optimal_value(GAME, horizon, **OLIEHOEK, n_agents=firefighters)
    for behaviour in ("fixed0", "fixed1", "belief_tracker"):
        value = exact_value(behaviour, horizon, **OLIEHOEK, n_agents=firefighters)
        assert found.value >= value - 1e-12, behaviour


def test_behaviour_policies():
    """fixed0 and fixed1 ignore their flames; belief_tracker meets its partner first."""
    tracker = optimal.behaviour_policy("belief_tracker", 2, **OLIEHOEK, n_agents=2)
    assert [table[()] for table in tracker] == [1, 0]
    fixed = optimal.behaviour_policy("fixed1", 3, **OLIEHOEK, n_agents=3)
    assert all(set(table.values()) == {1} for table in fixed)
    with pytest.raises(ValueError, match="random"):
        optimal.behaviour_policy("random", 2, **OLIEHOEK, n_agents=2)


# --- Played in the model --------------------------------------------------------------------

@pytest.mark.parametrize("behaviour, episodes", [("optimal", 3000), ("fixed0", 3000),
                                                 ("belief_tracker", 2000)])
def test_simulation_matches_the_exact_value(behaviour, episodes):
    """Mean team total of the episodes (rng = e) within SIGMAS standard errors of the exact
    value of the behaviour's policy tree (the optimum's for "optimal")."""
    row = baselines(3, episodes, 0, (behaviour,), **OLIEHOEK, n_agents=2).iloc[0]
    assert abs(row["mean"] - row["exact"]) <= SIGMAS * row["se"], row.to_dict()
    assert row["gap"] == pytest.approx(row["optimum"] - row["mean"])
    assert row["gap_se"] == pytest.approx(row["gap"] / row["se"])
    if behaviour == "optimal":
        assert row["exact"] == pytest.approx(row["optimum"], abs=1e-12)


def test_playable_policy_follows_each_seats_history():
    found = optimal_value(GAME, 3, **OLIEHOEK, n_agents=2)
    player = found.playable
    model = GAMES[GAME].model(**OLIEHOEK, n_agents=2, population="policy", policy=player,
                              max_steps=3, rng=5, collect_data=False)
    seen = [[], []]
    while model.running:
        before = [tuple(bits) for bits in seen]
        model.step()
        for seat in range(2):
            house = found.policy[seat][before[seat]]
            assert model.visited[seat] == model.guarded[seat][house]
            seen[seat].append(int(model.observations[seat]))
    with pytest.raises(TypeError, match="inside a model"):
        player({"observation": np.zeros(7), "action_mask": np.ones(2)})
    with pytest.raises(ValueError, match="horizon 3"):
        GAMES[GAME].model(**OLIEHOEK, n_agents=2, population="policy", policy=player,
                          max_steps=4, rng=0)
    assert isinstance(player, HistoryPolicy)


# --- Tables and figure ----------------------------------------------------------------------

def test_optimal_table_and_figure(tmp_path):
    table = optimal_table(((2, 1), (3, 1)))
    assert list(table["firefighters"]) == [2, 3]
    assert (table["difference"] <= 1e-9).all() and (table["seconds"] >= 0).all()
    assert table["optimum"].iloc[0] == pytest.approx(-67 / 27)
    assert isinstance(optimal_figure(table), Figure)
    played = optimum.baseline_table(((2, 1), (2, 2)), episodes=30, seed=0, learner_episodes=50)
    assert set(played["behaviour"]) == set(optimum.BEHAVIOURS)
    assert len(played) == 2 * len(optimum.BEHAVIOURS)
    figure = optimal_figure(played)
    paths = save(figure, tmp_path, "optimal")
    assert all(path.stat().st_size > 0 for path in paths)


# --- Bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("game, horizon, parameters, message", [
    ("stag_hunt", 1, {}, "game='stag_hunt' is not supported"),
    (GAME, 0, OLIEHOEK, "horizon=0 is invalid"),
    (GAME, 1.0, OLIEHOEK, "horizon=1.0 is invalid"),
    (GAME, True, OLIEHOEK, "horizon=True is invalid"),
    (GAME, "2", OLIEHOEK, "horizon='2' is invalid"),
    (GAME, 4, dict(OLIEHOEK, n_agents=2), "1,073,741,824 deterministic joint policies"),
    (GAME, 3, dict(OLIEHOEK, n_agents=3), "2,097,152 deterministic joint policies"),
    (GAME, 10**6, dict(OLIEHOEK, n_agents=2), "too large to solve exactly"),
    (GAME, 1, {}, "11 houses with max_fire_level=100 have about 10^22 states"),
    (GAME, 1, dict(OLIEHOEK, n_agents=1, p_ignite=1.5), "p_ignite"),
    (GAME, 1, dict(OLIEHOEK, layout="diagonal"), "layout"),
    (GAME, 1, dict(OLIEHOEK, n_agents=2, population="fixed0"), "population"),
    (GAME, 2, dict(OLIEHOEK, n_agents=2, max_steps=3), "max_steps=3 differs"),
    (GAME, 1, dict(OLIEHOEK, n_agents=2, method="exhaustive"), "method='exhaustive'"),
])
def test_bad_input_is_refused(game, horizon, parameters, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("^", r"\^")):
        optimal_value(game, horizon, **parameters)
