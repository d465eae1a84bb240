"""State Punishment as a Mesa model: defaults, data, invariants, observations, behaviours
and the game's own parameter errors.

The rules are docs/rules/state_punishment.md. Hand-built positions
use a 7 x 7 world (open cells rows and columns 1..5) with no initial resources and no
spawning, so every cell holds only what the test put there.
"""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import population_string

from dilemmas.agents.state_punishment import BEHAVIOURS
from dilemmas.models.state_punishment.model import StatePunishmentModel
from dilemmas.models.state_punishment.rules import (COMPOSITE_ACTIONS, HARM, KINDS, MOVES,
                                                    SIMPLE_ACTIONS, VALUE)

W, E = 1, 0                                  # wall and empty channels
CODE = {kind: 2 + i for i, kind in enumerate(KINDS)}   # A..E channels
AGENT = 7                                    # channel of seat 0


def played(**kwargs):
    model = StatePunishmentModel(**kwargs)
    model.run_model()
    return model


def position(agents, resources=(), num_agents=None, size=7, **kwargs):
    """A model whose seat ``i`` stands on ``agents[i]`` (grid coordinates) and whose only
    resources are ``resources`` ({(row, col): kind}); nothing spawns."""
    kwargs = dict(dict(rng=0, activation="sequential"), **kwargs)
    model = StatePunishmentModel(width=size, height=size, num_agents=num_agents or len(agents),
                                 initial_resources=0, spawn_prob=0.0, **kwargs)
    grid = model.grids[0]
    for agent in model.seats:   # park everyone on the far row first: targets must be free
        agent.cell = grid[(size - 2, 1 + agent.seat)]
    for agent, cell in zip(model.seats, agents):
        agent.cell = grid[cell]
    grid.resource.data[:] = 0
    for cell, kind in dict(resources).items():
        grid.resource.data[cell] = KINDS.index(kind) + 1
    return model


def at(offsets, centre=(3, 3)):
    """Grid coordinates of ``{(d_row, d_col): kind}`` offsets from ``centre``."""
    return {(centre[0] + dr, centre[1] + dc): kind for (dr, dc), kind in offsets.items()}


# --- Defaults ---------------------------------------------------------------------------

def test_defaults_play_a_full_episode_of_exactly_max_steps_turns():
    """docs/rules/state_punishment.md, "Parameters", "World" and "Termination"."""
    model = StatePunishmentModel(rng=1)
    expected = dict(width=10, height=10, num_agents=3, max_steps=100, population="random",
                    initial_resources=15, spawn_prob=0.05, activation="random",
                    action_mode="simple", initial_punishment=0.1, vote_step=0.2,
                    vote_cost=0.1, punishment_mode="expected", punishment_magnitude=-10.0,
                    vision_radius=2, full_view=False, num_worlds=1, composite_views=False,
                    punishment_level=0.1)
    assert {key: getattr(model, key) for key in expected} == expected
    assert model.taboo == frozenset("ABCDE")
    assert model.spawn_weights == pytest.approx((0.2,) * 5)
    assert model.action_names == SIMPLE_ACTIONS == (
        "up", "down", "left", "right", "vote_increase", "vote_decrease", "noop")
    assert len(StatePunishmentModel(action_mode="composite").action_names) == 13
    assert set(COMPOSITE_ACTIONS) == {f"{m}_{v}" for m in tuple(MOVES)
                                      for v in ("no_vote", "increase", "decrease")} | {"noop"}
    assert [type(agent).behaviour for agent in model.seats] == ["random"] * 3
    grid = model.grids[0]
    assert len(model.grids) == 1 and grid.wall.data.shape == (10, 10)
    assert int((~grid.wall.data).sum()) == 64
    assert int(np.count_nonzero(grid.resource.data)) == 15 == model.resources_on_grid
    model.run_model()
    assert model.turn == 100 and not model.running
    model.step()
    assert model.turn == 100 and model.phases_run == []


def test_a_turn_runs_spawn_then_act_then_log_and_activation_picks_the_order():
    model = StatePunishmentModel(activation="sequential", num_agents=4, rng=2)
    for _ in range(5):
        model.step()
        assert model.phases_run == ["spawn", "act", "log"]
    assert [a.seat for a in model.history] == [0, 1, 2, 3] * 5
    shuffled = StatePunishmentModel(num_agents=4, max_steps=20, rng=2)
    shuffled.run_model()
    orders = {tuple(a.seat for a in shuffled.history[4 * t:4 * t + 4]) for t in range(20)}
    assert all(sorted(order) == [0, 1, 2, 3] for order in orders) and len(orders) > 3


def test_with_spawn_prob_one_every_free_open_cell_holds_a_resource_before_anyone_acts():
    model = StatePunishmentModel(spawn_prob=1.0, initial_resources=0, population="random",
                                 activation="sequential", rng=3)
    seen = []
    original = model.take_action

    def spy(agent, action):
        if not seen:
            grid = model.grids[0]
            seen.append(int(np.count_nonzero(grid.resource.data)))
        original(agent, "noop")

    model.take_action = spy
    model.step()
    assert seen == [64 - 3]


# --- Data -------------------------------------------------------------------------------

def test_the_data_collected_agrees_with_the_grids_and_the_agents():
    """docs/rules/state_punishment.md, "Data collected": what each column means."""
    model = StatePunishmentModel(num_worlds=2, num_agents=4, max_steps=30, rng=4,
                                 population="greedy_forager:2,civic_voter:1,random:1")
    on_grids = [sum(int(np.count_nonzero(g.resource.data)) for g in model.grids)]
    while model.running:
        model.step()
        on_grids.append(sum(int(np.count_nonzero(g.resource.data)) for g in model.grids))
    frame = model.datacollector.get_model_vars_dataframe()
    assert list(frame["turn"]) == list(range(31))
    assert list(frame["resources_on_grid"]) == on_grids
    assert list(frame["cumulative_votes_up"]) == list(frame["votes_up"].cumsum())
    assert list(frame["cumulative_votes_down"]) == list(frame["votes_down"].cumsum())
    assert list(frame["collected"]) == list(frame[[f"collected_{k}" for k in KINDS]].sum(axis=1))
    assert frame.iloc[0].tolist() == [0, 0.1] + [0] * 10 + [15 * 2] + [0.0] * 4
    assert (frame["punishment_total"] <= 0).all() and (frame["vote_cost_total"] <= 0).all()
    votes = frame["cumulative_votes_up"] + frame["cumulative_votes_down"]
    assert list(frame["vote_cost_total"]) == pytest.approx(list(-0.1 * votes))

    agents = model.datacollector.get_agent_vars_dataframe()
    assert len(agents) == 4 * 31
    per_turn = agents.groupby(level=0)
    assert list(per_turn["votes_up"].sum()) == list(frame["cumulative_votes_up"])
    assert list(per_turn["collected"].sum()) == list(frame["collected"])
    assert list(per_turn["harm_received"].sum()) == pytest.approx(
        list(frame["social_harm_generated"]))
    assert list(per_turn["reward"].mean()) == pytest.approx(list(frame["mean_reward"]))
    final = agents.xs(agents.index.get_level_values(0)[-1], level=0)
    assert list(final["behaviour"]) == ["greedy_forager", "greedy_forager", "civic_voter",
                                        "random"]


def test_without_data_collection_there_is_no_datacollector_and_the_same_game():
    quiet = played(collect_data=False, rng=5, population="civic_voter:2,random:1")
    loud = played(rng=5, population="civic_voter:2,random:1")
    assert quiet.datacollector is None
    assert quiet.history == loud.history


# --- Rules of one action ----------------------------------------------------------------

def test_walls_and_agents_block_and_stepping_on_a_resource_collects_it():
    model = position([(1, 1), (1, 2), (4, 4)], {(2, 1): "B"}, initial_punishment=0.3)
    first, second, third = model.seats
    model.take_action(first, "up")        # wall
    model.take_action(first, "right")     # agent
    assert first.cell.coordinate == (1, 1) and first.reward == 0.0
    model.take_action(first, "down")      # B: 7 - 10 * 0.3, harms the two others by 1.0
    assert first.cell.coordinate == (2, 1) and model.grids[0].resource.data[2, 1] == 0
    assert first.reward == pytest.approx(4.0) and first.collected == 1
    assert (second.pending_harm, third.pending_harm, first.pending_harm) == (1.0, 1.0, 0.0)
    assert model.social_harm_generated == 2.0 and model.collected_B == 0  # logged at turn end
    model.take_action(second, "vote_increase")     # costs 0.1 and applies its harm
    assert model.punishment_level == 0.5 and second.pending_harm == 0.0
    assert second.reward == pytest.approx(-1.1) and second.harm_received == 1.0
    assert model.history[-1].harm == 1.0 and model.history[-1].vote_cost == -0.1
    assert third.harm_received == 1.0 and third.pending_harm == 1.0


def test_votes_clamp_but_still_cost_and_p_is_free_of_float_drift():
    model = position([(3, 3)], initial_punishment=0.1)
    agent = model.seats[0]
    for expected in (0.3, 0.5, 0.7, 0.9, 1.0, 1.0):
        model.take_action(agent, "vote_increase")
        assert model.punishment_level == expected
    for expected in (0.8, 0.6, 0.4, 0.2, 0.0, 0.0):
        model.take_action(agent, "vote_decrease")
        assert model.punishment_level == expected
    assert agent.reward == pytest.approx(-1.2) and model.vote_cost_total == pytest.approx(-1.2)


def test_composite_moves_first_then_votes_and_stochastic_punishment_is_all_or_nothing():
    model = position([(3, 3)], {(3, 4): "A", (3, 5): "A"}, action_mode="composite",
                     punishment_mode="stochastic", initial_punishment=0.8)
    agent = model.seats[0]
    model.take_action(agent, "right_increase")   # punished at p = 0.8 or not, then p = 1
    assert model.history[-1].punishment in (0.0, -10.0)
    model.take_action(agent, "right_decrease")   # p = 1 when collecting: surely punished
    assert model.history[-1].punishment == -10.0 and model.punishment_level == 0.8
    with pytest.raises(ValueError, match="chose 'vote_increase'"):
        model.take_action(agent, "vote_increase")


# --- Properties over random games -------------------------------------------------------

LEVELS = st.one_of(st.integers(0, 20).map(lambda k: k / 20),
                   st.sampled_from([0.1, 0.2, 0.3, 0.05, 0.125, 0.999999999999, 1 / 3]),
                   st.floats(0.0, 1.0, allow_nan=False))


@st.composite
def configs(draw):
    width, height = draw(st.integers(3, 9)), draw(st.integers(3, 9))
    open_cells = (width - 2) * (height - 2)
    num_worlds = draw(st.integers(1, 3))
    num_agents = draw(st.integers(num_worlds, min(num_worlds * open_cells, 6)))
    per_world = -(-num_agents // num_worlds)
    weights = draw(st.lists(st.integers(0, 3), min_size=5, max_size=5))
    if not any(weights):
        weights[draw(st.integers(0, 4))] = 1
    scripted = sorted(set(BEHAVIOURS) - {"policy"})  # policy seats need a policy: test_env.py
    seats = draw(st.lists(st.sampled_from(scripted), min_size=num_agents,
                          max_size=num_agents))
    return dict(
        width=width, height=height, num_agents=num_agents, num_worlds=num_worlds,
        population=population_string(seats),
        initial_resources=draw(st.integers(0, open_cells - per_world)),
        spawn_prob=draw(st.floats(0.0, 1.0, allow_nan=False)),
        spawn_weights=tuple(weights),
        taboo=draw(st.sets(st.sampled_from(KINDS))),
        activation=draw(st.sampled_from(["random", "sequential"])),
        action_mode=draw(st.sampled_from(["simple", "composite"])),
        punishment_mode=draw(st.sampled_from(["expected", "stochastic"])),
        initial_punishment=draw(LEVELS),
        vote_step=draw(LEVELS),
        vision_radius=draw(st.integers(0, 3)),
        full_view=draw(st.booleans()),
        composite_views=draw(st.booleans()),
        max_steps=draw(st.integers(1, 25)),
        rng=draw(st.integers(0, 2**32 - 1)),
    )


def reachable(x, start, step):
    """Is ``x`` reachable from ``start`` by votes of ``step``, clamped to [0, 1]?"""
    if not 0 <= x <= 1:
        return False
    if step == 0:
        return x == start
    return any((d / step).denominator == 1 and d / step >= low
               for d, low in ((x - start, -10**30), (1 - x, 0), (x, 0)))


def check_world(model):
    for world, grid in enumerate(model.grids):
        wall, resource = grid.wall.data, grid.resource.data
        cells = [a.cell.coordinate for a in model.seats if a.world == world]
        assert len(set(cells)) == len(cells), "two agents on one cell"
        assert not any(wall[c] for c in cells), "an agent on a wall"
        assert not any(resource[c] for c in cells), "a resource under an agent"
        assert not resource[wall].any(), "a resource on a wall"
        assert resource.min() >= 0 and resource.max() <= 5
        occupied = np.zeros_like(wall)
        for c in cells:
            occupied[c] = True
        assert np.array_equal(grid.empty.data, ~occupied), "Mesa's empty layer disagrees"
        assert all(grid[c].agents == [a] for a in model.seats if a.world == world
                   for c in [a.cell.coordinate])


@given(configs())
@settings(max_examples=150, deadline=None)
def test_every_turn_keeps_the_grid_and_the_vote_lattice_consistent(params):
    model = StatePunishmentModel(**params)
    start = Fraction(repr(params["initial_punishment"]))
    step = Fraction(repr(params["vote_step"]))
    assert model.punishment_level == params["initial_punishment"]
    check_world(model)
    zero_weight = {k for k, w in zip(KINDS, params["spawn_weights"]) if w == 0}
    p, done, pending = start, 0, [0.0] * model.num_agents
    while model.running:
        model.step()
        check_world(model)
        # p on the lattice, and equal to the votes of the history replayed exactly
        units, denominator = model.p_units, model.denominator
        assert isinstance(units, int) and 0 <= units <= denominator
        assert model.punishment_level == units / denominator
        assert reachable(Fraction(units, denominator), start, step)
        for action in model.history[done:]:
            vote = (action.action.endswith("increase") - action.action.endswith("decrease")
                    if not action.blocked else 0)  # a blocked move cancels its vote
            if action.collected is not None:
                kind = action.collected
                assert kind not in zero_weight
                if kind not in model.taboo:
                    assert action.punishment == 0.0
                elif model.punishment_mode == "expected":
                    assert action.punishment == -10.0 * float(p)
                else:
                    assert action.punishment in (0.0, -10.0)
                assert action.value == VALUE[kind]
                for other in range(model.num_agents):
                    if other != action.seat:
                        pending[other] += HARM[kind]
            assert action.harm == pytest.approx(pending[action.seat])
            pending[action.seat] = 0.0
            assert action.reward == pytest.approx(action.value + action.punishment
                                                  + action.vote_cost - action.harm)
            assert action.vote_cost == (-0.1 if vote else 0.0)
            p = min(max(p + vote * step, Fraction(0)), Fraction(1))
        done = len(model.history)
        assert Fraction(units, denominator) == p
        assert model.resources_on_grid == sum(int(np.count_nonzero(g.resource.data))
                                              for g in model.grids)
        assert model.social_harm_generated == pytest.approx(
            sum(a.harm_received for a in model.seats))
    assert model.turn == params["max_steps"]
    assert [a.reward for a in model.seats] == pytest.approx(
        [sum(h.reward for h in model.history if h.seat == s) for s in range(model.num_agents)])


def test_p_is_exact_for_floats_of_full_precision():
    model = position([(3, 3)], initial_punishment=1 / 3, vote_step=0.1 + 0.2)
    model.take_action(model.seats[0], "vote_decrease")
    exact = Fraction(repr(1 / 3)) - Fraction(repr(0.1 + 0.2))
    assert model.punishment_level == float(exact) == 0.03333333333333326  # reads ...328
    # e.g. a sweep drawing initial_punishment with rng.random(): 17 significant digits
    assert StatePunishmentModel(initial_punishment=0.9968248478393177).punishment_level \
        == 0.9968248478393177          # reads 0.9968248478393176
    model = position([(3, 3)], initial_punishment=0.5, vote_step=0.14371511573424203)
    model.take_action(model.seats[0], "vote_decrease")
    exact = Fraction(1, 2) - Fraction("0.14371511573424203")
    assert model.punishment_level == float(exact) == 0.356284884265758  # reads ...794


def test_a_tiny_vote_step_is_a_probability_like_any_other():
    assert StatePunishmentModel(vote_step=5e-324).vote_step == 5e-324


def test_reachable_matches_a_brute_force_walk():
    for start, step in [(Fraction(1, 10), Fraction(1, 5)), (Fraction(1, 3), Fraction(1, 4)),
                        (Fraction(1, 2), Fraction(0)), (Fraction(0), Fraction(3, 7))]:
        seen, frontier = {start}, [start]
        while frontier:
            x = frontier.pop()
            for nxt in (min(x + step, 1), max(x - step, 0)):
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        grid = {Fraction(k, 840) for k in range(841)} | seen
        assert {x for x in grid if reachable(x, start, step)} == seen


# --- Observation ------------------------------------------------------------------------

def test_window_by_the_border_is_one_hot_with_walls_off_grid_resources_and_agents():
    model = position([(1, 2), (3, 1), (5, 5)], {(2, 3): "C", (1, 4): "B"})
    obs = model.observe(model.seats[0])
    assert obs.view.shape == (5, 5, 7 + 3) and obs.view.dtype == np.float32
    codes = np.array([[W, W, W, W, W],              # grid row -1: off the grid
                      [W, W, W, W, W],              # grid row 0: the border
                      [W, E, AGENT, E, CODE["B"]],  # the agent's row
                      [W, E, E, CODE["C"], E],
                      [W, AGENT + 1, E, E, E]])     # seat 2 at (5, 5) is out of sight
    np.testing.assert_array_equal(obs.view, np.eye(10, dtype=np.float32)[codes])
    assert (obs.view.sum(axis=-1) == 1).all()
    assert obs.view[2, 2, AGENT] == 1 and obs.view[4, 1, AGENT + 1] == 1
    assert obs.view[3, 3, CODE["C"]] == 1 and obs.view[0, 0, W] == 1
    assert obs.view[..., AGENT + 2].sum() == 0
    assert model.seats[0].observe().view.shape == (5, 5, 10)


def test_features_are_p_pending_harm_and_a_draw_from_the_models_generator():
    model = position([(3, 3), (1, 1)], initial_punishment=0.3)
    agent = model.seats[0]
    agent.pending_harm = 1.5
    state = model.observation_rng.bit_generator.state
    obs = model.observe(agent)
    model.observation_rng.bit_generator.state = state
    draw = model.observation_rng.random()
    assert obs.features.shape == (3,)
    assert list(obs.features) == [0.3, 1.5, draw]
    assert 0 <= obs.features[2] < 1
    assert model.observe(agent).features[2] != obs.features[2]


def test_the_uniform_feature_stays_below_one():
    model = position([(3, 3)])
    model.random.random = lambda: 1 - 2**-53     # the largest value random() returns
    assert model.observe(model.seats[0]).features[2] < 1


@pytest.mark.parametrize("radius", [0, 1, 3])
def test_the_window_has_side_two_r_plus_one(radius):
    model = position([(3, 3), (1, 1)], vision_radius=radius)
    view = model.observe(model.seats[0]).view
    assert view.shape == (2 * radius + 1, 2 * radius + 1, 9)
    assert view[radius, radius, AGENT] == 1 and (view.sum(axis=-1) == 1).all()


def test_full_view_is_the_whole_world():
    model = position([(1, 2), (3, 1)], {(2, 3): "E"}, full_view=True)
    view = model.observe(model.seats[1]).view
    assert view.shape == (7, 7, 9) and (view.sum(axis=-1) == 1).all()
    walls = np.zeros((7, 7), bool)
    walls[[0, -1], :] = walls[:, [0, -1]] = True
    np.testing.assert_array_equal(view[..., W] == 1, walls)
    assert view[1, 2, AGENT] == view[3, 1, AGENT + 1] == view[2, 3, CODE["E"]] == 1
    assert view[..., E].sum() == 25 - 3


def test_composite_views_stack_every_agents_view_own_first():
    cells, stuff = [(1, 2), (3, 1), (5, 5)], {(2, 3): "C", (4, 4): "D"}
    plain = position(cells, stuff)
    stacked = position(cells, stuff, composite_views=True)
    views = [plain.observe(a).view for a in plain.seats]
    for seat, agent in enumerate(stacked.seats):
        view = stacked.observe(agent).view
        assert view.shape == (3, 5, 5, 10)
        order = [seat] + [s for s in range(3) if s != seat]
        for k, s in enumerate(order):
            np.testing.assert_array_equal(view[k], views[s])


def test_each_world_shows_only_its_own_agents():
    model = StatePunishmentModel(num_agents=4, num_worlds=2, full_view=True, rng=6)
    assert [a.world for a in model.seats] == [0, 1, 0, 1]
    view = model.observe(model.seats[1]).view
    assert view[..., AGENT + 1].sum() == view[..., AGENT + 3].sum() == 1
    assert view[..., AGENT].sum() == view[..., AGENT + 2].sum() == 0


def test_random_agents_never_build_an_observation(monkeypatch):
    model = StatePunishmentModel(population="random", action_mode="composite", rng=7)

    def refuse(agent):
        raise AssertionError("a random agent built an observation")

    monkeypatch.setattr(model, "observe", refuse)
    for _ in range(10):
        model.step()
    assert model.turn == 10


# --- Behaviours -------------------------------------------------------------------------

def greedy(offsets, others=(), **kwargs):
    """A greedy forager at (3, 3) with resources at ``offsets``; other agents at offsets."""
    agents = [(3, 3)] + [(3 + dr, 3 + dc) for dr, dc in others]
    population = kwargs.pop("population", f"greedy_forager:1,random:{len(others)}"
                            if others else "greedy_forager")
    model = position(agents, at(offsets), population=population, **kwargs)
    return model.seats[0]


@pytest.mark.parametrize("offsets, others, action", [
    ({(0, -1): "A", (2, 1): "B"}, (), "down"),          # best net value, not the nearest
    ({(2, 0): "B", (0, 1): "B"}, (), "right"),          # equal value: the nearest
    ({(1, 0): "B", (0, -1): "B", (0, 1): "B"}, (), "left"),  # then the lowest offset
    ({(-1, 0): "C", (0, -1): "C"}, (), "up"),
    ({(1, 1): "B"}, (), "down"),                         # rows first
    ({(1, 1): "B"}, [(1, 0)], "right"),                  # blocked by an agent: columns
    ({(-2, -2): "A", (2, 2): "D"}, (), "up"),            # D is never worth going for
])
def test_greedy_forager_steps_toward_the_best_net_value(offsets, others, action):
    assert greedy(offsets, others).choose_action() == action


def test_greedy_forager_moves_at_random_without_a_target_or_a_free_direction():
    # agents below and to the right block the way to B: a random move among the free ones
    boxed = greedy({(1, 1): "B"}, [(1, 0), (0, 1)])
    assert {boxed.choose_action() for _ in range(40)} == {"up", "left"}
    # D nets -2: no target, and never stepped on
    bad = greedy({(1, 0): "D"})
    assert {bad.choose_action() for _ in range(40)} == {"up", "left", "right"}
    unseen = greedy({(2, 0): "B"}, vision_radius=1)
    assert {unseen.choose_action() for _ in range(40)} == set(tuple(MOVES))


def test_greedy_forager_votes_down_when_punishment_deters_a_positive_taboo_resource():
    # p = 0.5: A nets 3 - 5 < 0 (deterred), B nets 7 - 5 > 0 (the target, below)
    assert greedy({(0, 1): "A", (1, 0): "B"}, initial_punishment=0.5).choose_action() \
        == "vote_decrease"
    assert greedy({(0, 1): "A", (1, 0): "B"}, initial_punishment=0.5,
                  action_mode="composite").choose_action() == "down_decrease"
    # E nets exactly 1 - 10 * 0.1 = 0 at the default p: not worth taking, so deterred
    assert greedy({(0, 1): "E"}).choose_action() == "vote_decrease"
    # D has no positive value to recover, and non-taboo A is not punished at all
    assert greedy({(0, 1): "D"}, initial_punishment=1.0).choose_action() in tuple(MOVES)
    assert greedy({(0, 2): "A", (-1, 0): "B"}, initial_punishment=0.5,
                  taboo="BCDE").choose_action() == "right"
    assert greedy({(0, 2): "A"}, initial_punishment=0.5, taboo="BCDE",
                  action_mode="composite").choose_action() == "right_no_vote"
    # no punishment, nothing deters
    assert greedy({(0, 1): "E"}, initial_punishment=0.0).choose_action() == "right"


def test_greedy_forager_is_deterred_from_b_at_p_seven_tenths():
    # The model pays 7 + (-10) * 0.7 == 0.0 for B at p = 0.7: by rule 3 the forager should
    # vote down, by rule 1 B (net not positive) is no target.
    forager = greedy({(0, 1): "B"}, initial_punishment=0.7)
    assert 7 + forager.model.punishment_magnitude * forager.model.punishment_level == 0.0
    assert forager.choose_action() == "vote_decrease"


def civic(offsets=None, harm=0.0, others=(), **kwargs):
    agents = [(3, 3)] + [(3 + dr, 3 + dc) for dr, dc in others]
    population = f"civic_voter:1,random:{len(others)}" if others else "civic_voter"
    model = position(agents, at(offsets or {}), population=population, **kwargs)
    model.seats[0].pending_harm = harm
    return model.seats[0]


@pytest.mark.parametrize("harm, p, action", [
    (0.5, 0.1, "vote_increase"),
    (1.5, 0.9, "vote_increase"),
    (0.4, 0.1, "down"),          # harm below 0.5: no vote, goes for C
    (1.5, 1.0, "down"),          # p already 1: no vote
    (0.0, 0.5, "vote_decrease"),
    (0.0, 1.0, "vote_decrease"),
    (0.0, 0.3, "down"),
    (0.1, 0.5, "down"),          # some harm: no vote down
])
def test_civic_voter_votes_on_the_harm_it_received(harm, p, action):
    # C not taboo: it is worth taking at any p, so without a vote the voter goes down to it.
    assert civic({(1, 0): "C"}, harm, initial_punishment=p,
                 taboo="ABDE").choose_action() == action


def test_civic_voter_votes_together_with_its_move_in_composite_mode():
    assert civic({(1, 0): "C"}, 0.5, action_mode="composite").choose_action() == "down_increase"
    assert civic({(0, -1): "C"}, 0.0, initial_punishment=0.5, taboo="ABDE",
                 action_mode="composite").choose_action() == "left_decrease"


def test_civic_voter_avoids_resources_of_harm_above_three_tenths():
    # p = 0.1: B and A pay well but harm; E nets 0; C (harm 0.3, nets 1) is the only target
    offsets = {(0, 1): "B", (-1, 0): "A", (0, -1): "E", (1, 1): "D", (-2, -1): "C"}
    # the way to C (up, left) holds A and E, which it will not step on: down is the free move
    assert civic(offsets).choose_action() == "down"
    assert civic({(-2, -1): "C"}).choose_action() == "up"
    # E becomes a target when it is not taboo, and it is nearer than C
    assert civic(offsets, taboo="ABCD").choose_action() == "left"
    # equal distance: lowest offset
    assert civic({(1, 0): "C", (0, -1): "C", (0, 1): "E"}, taboo="").choose_action() == "left"
    # nothing wanted: a random move, no vote
    shy = civic({(0, 1): "B", (1, 0): "A"})
    assert {shy.choose_action() for _ in range(40)} == {"up", "left"}
    # boxed in by unwanted resources and a wall-free grid: no move at all
    boxed = civic({(0, 1): "B", (1, 0): "A", (-1, 0): "D", (0, -1): "B"})
    assert boxed.choose_action() == "noop"


def test_civic_voters_punish_more_and_harm_less_than_greedy_foragers():
    def episode(population, seed):
        frame = played(population=population, rng=seed).datacollector \
            .get_model_vars_dataframe()
        return (frame["punishment_level"].iloc[1:].mean(),
                frame["social_harm_generated"].iloc[-1], frame["cumulative_votes_up"].iloc[-1])

    civic_runs = [episode("civic_voter:3", seed) for seed in range(6)]
    greedy_runs = [episode("greedy_forager:3", seed) for seed in range(6)]
    assert all(up == 0 for _, _, up in greedy_runs)
    # seed by seed: a higher mean punishment level and less harm, every time
    for (c_p, c_harm, _), (g_p, g_harm, _) in zip(civic_runs, greedy_runs):
        assert c_p > g_p and c_harm < g_harm


def test_greedy_foragers_never_vote_up_in_either_mode():
    for mode in ("simple", "composite"):
        for seed in range(3):
            model = played(population="greedy_forager:2,random:1", action_mode=mode,
                           rng=seed, max_steps=60)
            assert all(a.votes_up == 0 for a in model.seats[:2])


# --- Bad parameters ---------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, names", [
    (dict(width=3, height=3, num_agents=1, initial_resources=1),
     ["width=3, height=3", "too small", "initial_resources=1"]),
    (dict(initial_resources=62), ["width=10, height=10", "too small", "initial_resources=62"]),
    (dict(width=4, height=4, num_agents=6, num_worlds=2, initial_resources=2),
     ["too small", "3 agents", "initial_resources=2"]),
    (dict(vision_radius=-1), ["vision_radius=-1", "from 0 to 10"]),
    (dict(vision_radius=11), ["vision_radius=11", "from 0 to 10"]),
    (dict(taboo=[["A"]]), ["taboo=[['A']]", "ABCDE"]),
    (dict(population="greedy_forager:1,civic_voter:1"), ["population=", "add up to 2",
                                                         "the game has 3 agents"]),
    (dict(population="greedy_forager:4"), ["population=", "add up to 4"]),
    (dict(taboo=("A", "F")), ["taboo=('A', 'F')", "ABCDE"]),
    (dict(spawn_weights=(1, 1, 1, 1)), ["spawn_weights=(1, 1, 1, 1)", "5 numbers"]),
    (dict(spawn_weights=(1, -1, 1, 1, 1)), ["spawn_weights[1]=-1", ">= 0"]),
    (dict(spawn_weights=(0, 0, 0, 0, 0)), ["spawn_weights=(0, 0, 0, 0, 0)", "positive sum"]),
    (dict(spawn_weights="11111"), ["spawn_weights='11111'", "list or tuple"]),
    (dict(num_worlds=4), ["num_worlds=4", "from 1 to 3"]),
    (dict(num_worlds=0), ["num_worlds=0", "from 1 to 3"]),
    (dict(rng=-1), ["rng=-1", "None or an integer >= 0"]),
    (dict(rng=1.5), ["rng=1.5", "None or an integer >= 0"]),
])
def test_bad_parameters_raise_a_value_error_naming_them(kwargs, names):
    """The checks beyond one declared parameter's own kind (the contract suite tries every
    declared parameter): a map too small for its agents and resources, bounds that follow
    other parameters (``vision_radius``, ``num_worlds``, the population's count), the forms
    of ``taboo`` and ``spawn_weights``, and ``rng``."""
    with pytest.raises(ValueError) as error:
        StatePunishmentModel(**kwargs)
    for name in names:
        assert name in str(error.value)


def test_edge_parameters_that_are_allowed():
    assert StatePunishmentModel(initial_resources=61).resources_on_grid == 61
    assert StatePunishmentModel(width=3, height=3, num_agents=2, num_worlds=2,
                                initial_resources=0).num_worlds == 2
    model = played(taboo="", spawn_weights=(0, 0, 0, 0, 1), max_steps=30, rng=8,
                   population="greedy_forager", spawn_prob=0.3)
    assert model.taboo == frozenset() and model.punishment_total == 0.0
    assert model.collected == model.collected_E > 0
    assert set(np.unique(model.grids[0].resource.data)) <= {0, 5}


def test_building_observations_never_changes_the_game():
    def frames(observe):
        model = StatePunishmentModel(population="random:2,civic_voter:1",
                                     punishment_mode="stochastic", rng=7)
        while model.running:
            if observe:
                for agent in model.seats:
                    model.observe(agent)
            model.step()
        return (model.datacollector.get_model_vars_dataframe(),
                model.datacollector.get_agent_vars_dataframe())

    plain, watched = frames(False), frames(True)
    pd.testing.assert_frame_equal(plain[0], watched[0])
    pd.testing.assert_frame_equal(plain[1], watched[1])
