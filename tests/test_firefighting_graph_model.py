"""Firefighting Graph as a Mesa model: defaults, data, invariants, the transition table,
behaviours and the game's own parameter errors.

The rules are docs/rules/firefighting_graph.md. Houses are numbered row-major; firefighter
``i`` of the row guards houses ``i`` and ``i + 1``, firefighter ``(r, c)`` of the grid guards
the corners of cell ``(r, c)`` in the order of its "World" section.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mesa.discrete_space import OrthogonalVonNeumannGrid
from support import assert_rate, population_string

import dilemmas.agents.firefighting_graph
from dilemmas.agents.firefighting_graph import BEHAVIOURS, FirefighterAgent
from dilemmas.models.firefighting_graph.model import FirefightingGraphModel
from dilemmas.models.firefighting_graph.rules import PRESETS

PROBABILITIES = ("p_ignite", "p_grow_neighbour", "p_grow_alone", "p_reduce_neighbour",
                 "p_reduce_alone", "p_two_agents")
COGNAC = dict(max_fire_level=100, p_ignite=0.3, p_grow_neighbour=0.7, p_grow_alone=0.4,
              p_reduce_neighbour=0.6, p_reduce_alone=1.0, p_two_agents=1.0,
              p_observe=(0.2, 0.5, 0.8), shared_reward=False)


def played(**kwargs):
    model = FirefightingGraphModel(**kwargs)
    model.run_model()
    return model


def near_burning(levels):
    """Hand-written: whether some orthogonal neighbour of each house has level > 0."""
    rows, cols = levels.shape
    near = np.zeros(levels.shape, dtype=bool)
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols and levels[rr, cc] > 0:
                    near[r, c] = True
    return near


def corners(layout, index, n_width=None):
    """Houses firefighter ``index`` guards, in action order (docs/rules/firefighting_graph.md,
    "World")."""
    if layout == "row":
        return [index, index + 1]
    r, c = divmod(index, n_width)
    cols = n_width + 1
    return [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1]


# --- Defaults ---------------------------------------------------------------------------

def test_defaults_play_a_full_row_episode():
    """docs/rules/firefighting_graph.md, "Parameters", "World" and "Termination"."""
    model = FirefightingGraphModel(rng=1)
    assert model.layout == "row" and model.n_agents == 10 and model.preset == "cognac"
    assert model.max_steps == 100 and model.population == "random"
    assert {key: getattr(model, key) for key in COGNAC} == COGNAC
    assert model.fire.data.shape == (1, 11) and model.num_houses == 11
    assert model.houses.fire is model.fire and isinstance(model.houses, OrthogonalVonNeumannGrid)
    assert len(model.seats) == 10 and [a.behaviour for a in model.seats] == ["random"] * 10
    assert [list(g) for g in model.guarded] == [[i, i + 1] for i in range(10)]
    assert all(a.house is None and a.observation is None and a.reward == 0.0
               for a in model.seats)
    model.run_model()
    assert not model.running
    assert model.t == 100 or (model.t < 100 and model.total_fire == 0)
    model.step()
    assert model.phases_run == []


def test_grid_defaults_and_a_step_runs_the_five_phases_in_order():
    model = FirefightingGraphModel(layout="grid", rng=2)
    assert (model.n_width, model.n_height, model.n_agents) == (5, 5, 25)
    assert model.fire.data.shape == (6, 6) and model.num_houses == 36
    assert len(model.seats) == 25
    assert [list(g) for g in model.guarded] == [corners("grid", i, 5) for i in range(25)]
    model.step()
    assert model.phases_run == ["choose", "transition", "observe", "reward", "terminate"]
    model.run_model()
    assert not model.running and model.t <= 100


def test_oliehoek_preset_and_explicit_parameters_override_one_at_a_time():
    model = FirefightingGraphModel(preset="oliehoek", rng=0)
    assert {key: getattr(model, key) for key in PRESETS["oliehoek"]} == dict(
        max_fire_level=2, p_ignite=0.8, p_grow_neighbour=0.8, p_grow_alone=0.4,
        p_reduce_neighbour=0.6, p_reduce_alone=1.0, p_two_agents=1.0,
        p_observe=(0.2, 0.5, 0.8), shared_reward=True)
    over = FirefightingGraphModel(preset="oliehoek", max_fire_level=4, shared_reward=False,
                                  p_ignite=0.1, rng=0)
    assert (over.max_fire_level, over.shared_reward, over.p_ignite) == (4, False, 0.1)
    assert over.p_grow_neighbour == 0.8
    cognac = FirefightingGraphModel(p_observe=[0.0, 0.1, 1.0], rng=0)
    assert cognac.p_observe == (0.0, 0.1, 1.0) and cognac.p_ignite == 0.3


def test_initial_levels_are_uniform_from_the_models_generator_unless_given():
    same = [FirefightingGraphModel(rng=7).fire.data.copy() for _ in range(2)]
    assert np.array_equal(*same)
    assert not np.array_equal(same[0], FirefightingGraphModel(rng=8).fire.data)
    levels = np.concatenate([FirefightingGraphModel(layout="grid", n_width=20, n_height=20,
                                                    max_fire_level=4, rng=s).fire.data.ravel()
                             for s in range(5)])
    assert levels.min() == 0 and levels.max() == 4
    for value in range(5):
        assert_rate(int(np.count_nonzero(levels == value)), levels.size, 1 / 5,
                    f"initial level {value}")
    row = FirefightingGraphModel(n_agents=3, initial_levels=[0, 1, 2, 100], rng=0)
    assert row.fire.data.tolist() == [[0, 1, 2, 100]]
    grid = FirefightingGraphModel(layout="grid", n_width=2, n_height=1, max_fire_level=5,
                                  initial_levels=np.array([[1, 2, 3], [4, 5, 0]]), rng=0)
    assert grid.fire.data.tolist() == [[1, 2, 3], [4, 5, 0]]
    flat = FirefightingGraphModel(layout="grid", n_width=2, n_height=1, max_fire_level=5,
                                  initial_levels=[1, 2, 3, 4, 5, 0], rng=0)
    assert flat.fire.data.tolist() == [[1, 2, 3], [4, 5, 0]]


def test_episode_ends_when_every_house_is_out():
    model = FirefightingGraphModel(n_agents=2, initial_levels=[0, 1, 0], population="fixed1",
                                   rng=0)  # p_reduce_alone = 1: house 1 goes out at once
    model.step()
    assert model.fire.data.tolist() == [[0, 0, 0]] and not model.running and model.t == 1


# --- Data -------------------------------------------------------------------------------

def test_datacollector_columns_agree_with_the_levels():
    """docs/rules/firefighting_graph.md, "Data collected": what each column means."""
    model = FirefightingGraphModel(layout="grid", n_width=3, n_height=2, max_fire_level=3,
                                   max_steps=25, population="random:3,fixed0:2,belief_tracker",
                                   rng=4)
    snapshots = [model.fire.data.copy()]
    doubled, flames, visits = [0], [math.nan], []
    while model.running:
        model.step()
        snapshots.append(model.fire.data.copy())
        doubled.append(int(np.sum(np.bincount(model.visited, minlength=12) >= 2)))
        flames.append(float(np.mean([a.observation == 1 for a in model.seats])))
        visits.append([a.house for a in model.seats])
    frame = model.datacollector.get_model_vars_dataframe()
    assert list(frame["step"]) == list(range(len(snapshots)))
    assert list(frame["mean_fire"]) == pytest.approx([s.mean() for s in snapshots])
    assert list(frame["max_fire"]) == [int(s.max()) for s in snapshots]
    assert list(frame["burning_houses"]) == [int((s > 0).sum()) for s in snapshots]
    assert list(frame["total_fire"]) == [int(s.sum()) for s in snapshots]
    assert list(frame["doubled_houses"]) == doubled
    assert math.isnan(frame["flame_rate"].iloc[0])
    assert list(frame["flame_rate"].iloc[1:]) == pytest.approx(flames[1:])

    agents_frame = model.datacollector.get_agent_vars_dataframe()
    assert len(agents_frame) == 6 * len(snapshots)
    per_step = agents_frame.groupby(level=0)
    assert list(per_step["reward"].mean()) == pytest.approx(list(frame["mean_reward"]))
    assert frame["mean_reward"].iloc[0] == 0.0
    first = agents_frame.xs(0, level=0)
    assert first["house"].isna().all() and first["observation"].isna().all()
    for t, houses in enumerate(visits, start=1):
        assert list(agents_frame.xs(t, level=0)["house"]) == houses
    assert list(agents_frame.xs(1, level=0)["behaviour"]) == (
        ["random"] * 3 + ["fixed0"] * 2 + ["belief_tracker"])
    # Rewards: minus the visited levels, cumulative.
    rewards = np.zeros(6)
    for t, houses in enumerate(visits, start=1):
        rewards -= snapshots[t].ravel()[houses]
        assert list(agents_frame.xs(t, level=0)["reward"]) == pytest.approx(list(rewards))


def test_without_data_collection_there_is_no_datacollector_and_the_same_game():
    quiet = played(collect_data=False, rng=5, population="belief_tracker:5,random:5")
    loud = played(rng=5, population="belief_tracker:5,random:5")
    assert quiet.datacollector is None
    assert np.array_equal(quiet.fire.data, loud.fire.data) and quiet.t == loud.t
    assert np.array_equal(quiet.rewards, loud.rewards)


# --- Transition table, with probabilities 0 and 1 ----------------------------------------

def test_transition_table_with_certain_probabilities():
    # Row of 6 houses, 5 firefighters; fixed0 visits house i.
    certain = dict(p_ignite=1.0, p_grow_neighbour=1.0, p_grow_alone=1.0,
                   p_reduce_neighbour=1.0, p_reduce_alone=1.0, p_two_agents=1.0,
                   max_fire_level=5)
    # seats 0..4 visit houses 0, 2, 2, 3, 5 (seat 4 takes action 1 = house 5).
    population = "fixed0:1,fixed1:1,fixed0:2,fixed1:1"
    model = FirefightingGraphModel(n_agents=5, population=population,
                                   initial_levels=[3, 0, 4, 2, 0, 0], rng=0, **certain)
    model.step()
    # house 0: 1 firefighter, lit -> 2; house 1: alone, neighbour burning, level 0 -> 1;
    # house 2: two firefighters -> 0; house 3: one firefighter -> 1;
    # house 4: alone, neighbour burning, 0 -> 1; house 5: one firefighter, level 0 -> stays 0.
    assert model.visited.tolist() == [0, 2, 2, 3, 5]
    assert model.fire.data.tolist() == [[2, 1, 0, 1, 1, 0]]
    assert model.doubled_houses == 1
    model = FirefightingGraphModel(n_agents=2, population="fixed0",
                                   initial_levels=[1, 2, 5], rng=0, **dict(
                                       certain, p_reduce_alone=0.0, p_reduce_neighbour=0.0))
    model.step()   # houses 0 and 1 visited once, reduce p 0: kept; house 2 alone at max
    assert model.fire.data.tolist() == [[1, 2, 5]]   # grows by 1, clipped at 5
    nothing = FirefightingGraphModel(n_agents=2, population="fixed1", max_fire_level=5,
                                     initial_levels=[2, 0, 3], rng=0, p_ignite=0.0,
                                     p_grow_neighbour=0.0, p_grow_alone=0.0, p_two_agents=0.0)
    nothing.step()   # houses 0 alone (no growth), 1 and 2 one firefighter each
    assert nothing.fire.data.tolist() == [[2, 0, 2]]


def test_observations_follow_p_observe_by_level():
    model = FirefightingGraphModel(n_agents=4, population="fixed0", max_fire_level=5,
                                   initial_levels=[0, 1, 3, 0, 0], p_observe=(0.0, 1.0, 1.0),
                                   p_ignite=0.0, p_reduce_alone=0.0, p_reduce_neighbour=0.0,
                                   rng=0)
    model.step()
    assert model.fire.data.tolist() == [[0, 1, 3, 0, 0]]
    assert [a.observation for a in model.seats] == [0, 1, 1, 0]
    assert model.flame_rate == 0.5


# --- Invariants (property tests) ------------------------------------------------------

@st.composite
def configurations(draw):
    layout = draw(st.sampled_from(["row", "grid"]))
    kwargs = dict(layout=layout)
    if layout == "row":
        kwargs["n_agents"] = n = draw(st.integers(1, 15))
    else:
        kwargs["n_width"], kwargs["n_height"] = draw(st.integers(1, 6)), draw(st.integers(1, 6))
        n = kwargs["n_width"] * kwargs["n_height"]
    kwargs["preset"] = draw(st.sampled_from(sorted(PRESETS)))
    kwargs["max_fire_level"] = draw(st.integers(1, 5))
    for name in PROBABILITIES:
        kwargs[name] = draw(st.none() | st.sampled_from([0.0, 1.0]) | st.floats(0, 1))
    kwargs["p_observe"] = draw(st.none() | st.tuples(*[st.floats(0, 1)] * 3))
    kwargs["shared_reward"] = draw(st.none() | st.booleans())
    scripted = sorted(set(BEHAVIOURS) - {"policy"})  # policy seats need a policy: test_env.py
    seats = draw(st.lists(st.sampled_from(scripted), min_size=n, max_size=n))
    kwargs["population"] = population_string(seats, draw(st.integers(0, 1)))
    kwargs["rng"] = draw(st.integers(0, 2**32))
    kwargs["max_steps"] = draw(st.integers(1, 12))
    return kwargs, seats


@settings(max_examples=120, deadline=None)
@given(configurations())
def test_every_step_keeps_levels_in_range_unlit_houses_alone_and_rewards_minus_levels(config):
    kwargs, seats = config
    model = FirefightingGraphModel(**kwargs)
    top, shared = model.max_fire_level, model.shared_reward
    assert [a.behaviour for a in model.seats] == seats
    assert ((model.fire.data >= 0) & (model.fire.data <= top)).all()
    while model.running:
        before, rewards = model.fire.data.copy(), model.rewards.copy()
        model.step()
        after = model.fire.data
        assert after.shape == before.shape
        assert ((after >= 0) & (after <= top)).all()
        grows = after > before
        assert (after[grows] == before[grows] + 1).all()
        houses = [a.house for a in model.seats]
        for i, house in enumerate(houses):
            assert house in corners(model.layout, i, getattr(model, "n_width", None))
        crew = np.bincount(houses, minlength=model.num_houses).reshape(before.shape)
        quiet = (before == 0) & ~near_burning(before) & (crew == 0)
        assert (after[quiet] == 0).all()
        assert (after[crew > 0] <= before[crew > 0]).all()      # visited houses never grow
        expected = (np.full(len(houses), -after.sum()) if shared
                    else -after.ravel()[houses])
        assert model.rewards - rewards == pytest.approx(expected)
        assert [a.reward for a in model.seats] == pytest.approx(list(model.rewards))
        assert all(a.observation in (0, 1) for a in model.seats)
        assert model.doubled_houses == int((crew >= 2).sum())
    assert model.t == kwargs["max_steps"] or model.total_fire == 0


# --- Behaviours -------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["row", "grid"])
def test_random_is_uniform_over_its_actions(layout):
    model = FirefightingGraphModel(layout=layout, n_agents=10, n_width=4, n_height=3,
                                   max_steps=100, collect_data=False, rng=11)
    n_actions = 2 if layout == "row" else 4
    counts = np.zeros(n_actions, dtype=int)
    for _ in range(100):
        model.step()
        for i, agent in enumerate(model.seats):
            counts[corners(layout, i, 4).index(agent.house)] += 1
        model.running = True
    for action in range(n_actions):
        assert_rate(int(counts[action]), int(counts.sum()), 1 / n_actions,
                    f"{layout} random action {action}")


@pytest.mark.parametrize("layout", ["row", "grid"])
@pytest.mark.parametrize("action", [0, 1])
def test_fixed_behaviours_always_take_their_action(layout, action):
    model = FirefightingGraphModel(layout=layout, n_agents=7, n_width=3, n_height=4,
                                   population=f"fixed{action}", rng=12, max_steps=30)
    while model.running:
        model.step()
        assert [a.house for a in model.seats] == [
            corners(layout, i, 3)[action] for i in range(model.n_agents)]


def test_belief_tracker_first_action_by_even_or_odd_column():
    row = FirefightingGraphModel(n_agents=5, population="belief_tracker", rng=0)
    assert [a.choose_action() for a in row.seats] == [1, 0, 1, 0, 1]
    grid = FirefightingGraphModel(layout="grid", n_width=3, n_height=2,
                                  population="belief_tracker", rng=0)
    assert [a.choose_action() for a in grid.seats] == [1, 0, 1, 1, 0, 1]
    played_row = FirefightingGraphModel(n_agents=4, population="belief_tracker", rng=0)
    played_row.step()
    assert [a.house for a in played_row.seats] == [1, 1, 3, 3]


def test_belief_tracker_bayes_update_drift_and_move_rule_by_hand():
    """Each call of ``choose_action`` between steps decides as the next step would
    (``model.episode.t`` steps played; the tracker's memory is its seat's entry of the
    episode's), so the test moves ``t`` on by hand between its calls."""
    model = FirefightingGraphModel(n_agents=2, population="belief_tracker", max_fire_level=3,
                                   rng=0)   # p_observe (0.2, 0.5, 0.8), p_ignite 0.3
    agent = model.seats[0]

    def choose():
        action = agent.choose_action()
        model.episode.t += 1
        return action

    assert agent.beliefs == pytest.approx([0.75, 0.75])          # 3 / (3 + 1)
    assert choose() == 1
    # No flames at house 1: 0.75 * 0.2 / (0.75 * 0.2 + 0.25 * 0.8) = 3/7 < 1/2 -> stay.
    model.observations[0] = 0
    assert choose() == 1
    assert agent.beliefs == pytest.approx([0.75 + 0.25 * 0.3, 3 / 7])
    # Flames: (3/7 * 0.8) / (3/7 * 0.8 + 4/7 * 0.2) = 0.75 >= 1/2 -> least likely house,
    # which is still house 1 (0.75 < 0.8775).
    model.observations[0] = 1
    assert choose() == 1
    assert agent.beliefs == pytest.approx([0.825 + 0.175 * 0.3, 0.75])
    # Flames again: 0.6 / 0.65 = 0.923 > 0.91425 -> moves to house 0 (action 0).
    model.observations[0] = 1
    assert choose() == 0
    assert agent.beliefs == pytest.approx([0.8775 + 0.1225 * 0.3, 0.6 / 0.65])
    # Now house 0 is updated and house 1 drifts. No flame: 0.91425 * 0.2 /
    # (0.91425 * 0.2 + 0.08575 * 0.8) = 0.7272... >= 1/2; least likely is house 0 again.
    model.observations[0] = 0
    b0 = 0.91425 * 0.2 / (0.91425 * 0.2 + 0.08575 * 0.8)
    b1 = 0.6 / 0.65 + (1 - 0.6 / 0.65) * 0.3
    assert choose() == 0
    assert agent.beliefs == pytest.approx([b0, b1])


def test_belief_tracker_ties_go_to_the_lower_action():
    model = FirefightingGraphModel(n_agents=2, population="belief_tracker", rng=0,
                                   p_ignite=0.0, max_fire_level=1)
    agent = model.seats[1]
    assert agent.choose_action() == 0
    model.episode.t += 1
    agent.beliefs = [0.9, 0.9]
    agent.last_action = 1
    model.observations[1] = 1      # house 1 rises above 0.9; house 0 stays 0.9 (p_ignite 0)
    assert agent.choose_action() == 0
    model.episode.t += 1
    agent.beliefs = [0.6, 0.6]
    agent.last_action = 0
    model.observations[1] = 0      # house 0: 0.6*0.2/(0.12+0.32) = 0.27 < 1/2 -> stays
    assert agent.choose_action() == 0


def test_belief_tracker_in_play_visits_the_house_of_its_last_action():
    model = FirefightingGraphModel(layout="grid", n_width=3, n_height=3, max_fire_level=4,
                                   population="belief_tracker", rng=13, max_steps=40)
    while model.running:
        model.step()
        for i, agent in enumerate(model.seats):
            assert agent.house == corners("grid", i, 3)[agent.last_action]


def test_belief_tracker_beats_random_on_the_default_row_game():
    """Mean cumulative reward over 200 seeds: the difference must exceed 10 standard errors
    (SE from the two sample standard deviations). Measured: about -25 (sd 30) against about
    -491 (sd 194), a margin of about 34 SE."""
    def rewards(population):
        return np.array([played(population=population, collect_data=False, rng=s).mean_reward
                         for s in range(200)])

    tracker, rand = rewards("belief_tracker"), rewards("random")
    se = math.sqrt(tracker.var(ddof=1) / 200 + rand.var(ddof=1) / 200)
    assert tracker.mean() - rand.mean() > 10 * se, (tracker.mean(), rand.mean(), se)


class OutOfRange(FirefighterAgent):
    behaviour = "out_of_range"

    def choose_action(self):
        return 2 if self.seat == 1 else 0


class Corner(FirefighterAgent):
    behaviour = "corner"

    def choose_action(self):
        return self.seat % 4


def test_an_action_out_of_range_names_the_agent_and_the_allowed_actions(monkeypatch):
    monkeypatch.setitem(dilemmas.agents.firefighting_graph.BEHAVIOURS, "out_of_range", OutOfRange)
    model = FirefightingGraphModel(n_agents=3, population="out_of_range", rng=0)
    with pytest.raises(ValueError, match=r"agent 1 \(out_of_range\).*2.*0\.\.1"):
        model.step()


def test_grid_actions_two_and_three_are_the_lower_corners(monkeypatch):
    monkeypatch.setitem(dilemmas.agents.firefighting_graph.BEHAVIOURS, "corner", Corner)
    model = FirefightingGraphModel(layout="grid", n_width=2, n_height=2, population="corner",
                                   rng=0)
    model.step()
    # agent 0 (0,0) action 0 -> house 0; agent 1 (0,1) action 1 -> (0,2) = 2;
    # agent 2 (1,0) action 2 -> (2,0) = 6; agent 3 (1,1) action 3 -> (2,2) = 8.
    assert [a.house for a in model.seats] == [0, 2, 6, 8]


# --- Bad parameters ---------------------------------------------------------------------

# The checks beyond one declared parameter's own kind (the contract suite tries every declared
# parameter): an overflowing level cap, the sizes checked in both layouts
# (docs/rules/firefighting_graph.md, "Parameters"), p_observe's entries and length,
# initial_levels against the houses and the cap, the population's count and rng.
BAD = [
    (dict(max_fire_level=2**63 - 1), "max_fire_level", "from 1 to 1000000000"),
    (dict(layout="row", n_width="abc"), "n_width", "integer"),
    (dict(layout="grid", n_agents=-5), "n_agents", "from 1 to 10000"),
    (dict(initial_levels=[[1, 2], [3]]), "initial_levels", "11 integers"),
    (dict(p_observe=(0.2, 1.2, 0.8)), r"p_observe\[1\]", r"\[0, 1\]"),
    (dict(p_observe=(-0.2, 0.5, 0.8)), r"p_observe\[0\]", r"\[0, 1\]"),
    (dict(p_observe=(0.2, 0.5)), "p_observe", "3 numbers"),
    (dict(p_observe=(0.2, 0.5, 0.8, 0.9)), "p_observe", "3 numbers"),
    (dict(initial_levels=[1] * 10), "initial_levels", "11 integers from 0 to 100"),
    (dict(initial_levels=[1] * 10 + [101]), "initial_levels", "11 integers from 0 to 100"),
    (dict(initial_levels=[1] * 10 + [-1]), "initial_levels", "11 integers from 0 to 100"),
    (dict(initial_levels=[1.5] * 11), "initial_levels", "11 integers from 0 to 100"),
    (dict(population="random:3,fixed0:3"), "population", "add up to 6"),
    (dict(rng=-1), "rng", ">= 0"),
]


@pytest.mark.parametrize("kwargs, name, allowed", BAD,
                         ids=[f"{i}-{name}" for i, (_, name, _) in enumerate(BAD)])
def test_bad_parameters_raise_value_error_naming_parameter_and_allowed(kwargs, name, allowed):
    with pytest.raises(ValueError, match=rf"{name}=.*{allowed}"):
        FirefightingGraphModel(**kwargs)
