"""Firefighting Graph: each rule of docs/rules/firefighting_graph.md, on its own, for both
layouts ("World", "Round", "Rewards", "Termination", the presets of "Parameters"); model
``dilemmas/models/firefighting_graph/model.py``.

How the transition cells are measured. A state is set by hand (``model.fire.data`` and
``model.visited``), ``model.transition()`` runs once, the outcome of the *target* houses is
read, and the state is reset; this repeats with a fixed seed for ``model.rng``. One step
reads "a neighbour is burning" from the state before it, and each house's draw is its own,
so within one step every target house is an independent Bernoulli trial of exactly one
cell of the table: many houses are measured at once (a row of 2001 houses, a 31 x 31 grid)
and the step is repeated until about ``N_TRIALS`` trials are in. Firefighters who are not
part of a cell are parked on a "sink" house that is not a target (a firefighter changes
only the house it stands on). Every probability is set to a distinct non-default value
(``RATES``) so that a wrong cell (say, ``p_grow_alone`` used where ``p_grow_neighbour``
is due) shows as a wrong rate, and the outcome of each target is also checked to be one of
the cell's two allowed values (for instance 3 or 4, never 2 or 5).

Tolerance. A probability ``p`` estimated from ``N`` independent Bernoulli trials has
standard error ``sqrt(p*(1-p)/N)``; ``support.assert_rate`` allows
``|p_hat - p| <= 4 * sqrt(p*(1-p)/N)`` (two-sided 4 sigma: about 6e-5 chance of a false
alarm per check for a correct model). With ``N >= 20000`` the band is at most
``4 * 0.5 / sqrt(20000) = 0.014``, well under the smallest gap between two of the rates
used here (0.1), so each rate is identified. Seeds are fixed: every check is deterministic.
When ``p`` is 0 or 1 the band is 0 and the check is exact.
"""

import math

import numpy as np
import pytest
from support import assert_rate

from dilemmas.models.firefighting_graph.model import FirefightingGraphModel
from dilemmas.models.firefighting_graph.rules import PRESETS

N_TRIALS = 20_000
LIT = 3  # a burning level far from both 0 and max_fire_level (100)

RATES = dict(p_ignite=0.15, p_grow_neighbour=0.35, p_grow_alone=0.55,
             p_reduce_neighbour=0.25, p_reduce_alone=0.7, p_two_agents=0.6)

PHASES = ["choose", "transition", "observe", "reward", "terminate"]


def make(layout="row", **kwargs):
    """A big model with the distinct RATES: 2000 firefighters on 2001 houses (row) or
    30 x 30 firefighters on 31 x 31 houses (grid)."""
    params = dict(layout=layout, population="fixed0", collect_data=False, rng=1, **RATES)
    if layout == "row":
        params["n_agents"] = 2000
    else:
        params.update(n_width=30, n_height=30)
    params.update(kwargs)
    return FirefightingGraphModel(**params)


def coords(model):
    rows, cols = model.fire.data.shape
    return np.indices((rows, cols))


def near_burning(levels):
    """The test's own reading of "an orthogonal neighbour is burning" (no wrap-around)."""
    b = np.pad(levels > 0, 1)
    return b[:-2, 1:-1] | b[2:, 1:-1] | b[1:-1, :-2] | b[1:-1, 2:]


def parked(model, crew, sink):
    """``visited`` giving each house the number of firefighters in ``crew`` (2D array), with
    every firefighter left over standing on house ``sink``."""
    visited = np.repeat(np.arange(model.num_houses), crew.reshape(-1))
    assert visited.size <= model.n_agents
    return np.concatenate([visited, np.full(model.n_agents - visited.size, sink)])


def by_actions(model, actions):
    """``visited`` after the choose phase applies ``actions`` (one per firefighter)."""
    model.visit({agent: int(a) for agent, a in zip(model.seats, actions)})
    return model.visited.copy()


def run_transition(model, levels, visited, targets, seed, n_trials=N_TRIALS):
    """Outcomes at ``targets`` (a boolean mask) of repeated single transitions from the same
    hand-set state; about ``n_trials`` trials in all."""
    levels = np.asarray(levels, dtype=np.int64)
    visited = np.asarray(visited)
    assert targets.any()
    reps = math.ceil(n_trials / targets.sum())
    model.rng = np.random.default_rng(seed)
    out = []
    for _ in range(reps):
        model.fire.data[:] = levels
        model.visited = visited.copy()
        model.transition()
        out.append(model.fire.data[targets].copy())
    return np.concatenate(out)


def crew_of(model, visited):
    return np.bincount(visited, minlength=model.num_houses).reshape(model.fire.data.shape)


def check_cell(model, levels, visited, targets, *, crew, near, before, allowed, event, p,
               what, seed):
    """The precondition of the cell holds at every target, the outcomes are ``allowed``
    only, and ``event`` happens at rate ``p``."""
    levels = np.asarray(levels)
    c = crew_of(model, visited)
    assert np.all(c[targets] == crew), f"{what}: wrong crew set-up"
    assert np.all(near_burning(levels)[targets] == near), f"{what}: wrong neighbour set-up"
    assert np.all(levels[targets] == before), f"{what}: wrong level set-up"
    out = run_transition(model, levels, visited, targets, seed)
    assert set(np.unique(out)) <= set(allowed), f"{what}: outcomes {np.unique(out)}"
    assert_rate(int(np.count_nonzero(out == event)), out.size, p, what)


# --------------------------------------------------------------------------------------
# Phase order
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["row", "grid"])
def test_step_runs_the_five_phases_in_order(layout):
    """docs/rules/firefighting_graph.md, "Round": each phase runs its own part of the step
    (the choices take effect in the model's ``visit``; the rule phases are the methods of
    its episode on the batch engine, ``model.episode``)."""
    model = FirefightingGraphModel(layout=layout, n_agents=4, n_width=2, n_height=2,
                                   population="random", rng=3)
    calls = []
    for name in ("visit", "transition", "observe", "reward", "terminate"):
        owner = model if name == "visit" else model.episode
        original = getattr(owner, name)

        def wrapped(*args, _name=name, _original=original):
            calls.append(_name)
            return _original(*args)

        setattr(owner, name, wrapped)
    model.step()
    assert model.phases_run == PHASES
    assert calls == ["visit", "transition", "observe", "reward", "terminate"]


def test_observe_and_reward_see_the_level_after_the_transition():
    # House 1 at level 5 with both firefighters: put out for sure (p_two_agents=1). The
    # flames are seen with p_observe[0] = 0 and the reward is -0, not the level before.
    model = FirefightingGraphModel(n_agents=2, population="fixed1:1,fixed0:1",
                                   initial_levels=[0, 5, 0], p_ignite=0.0,
                                   p_observe=(0.0, 1.0, 1.0), collect_data=False, rng=0)
    model.step()
    assert list(model.fire.data.reshape(-1)) == [0, 0, 0]
    assert list(model.visited) == [1, 1]
    assert list(model.observations) == [0, 0]
    assert list(model.rewards) == [0.0, 0.0]


# --------------------------------------------------------------------------------------
# Transition: every cell of the table on its own
# --------------------------------------------------------------------------------------

def row_parity(model):
    _, x = coords(model)
    return x % 2 == 0


def grid_parity(model):
    r, c = coords(model)
    return (r + c) % 2 == 0


def parity(model):
    return row_parity(model) if model.layout == "row" else grid_parity(model)


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_no_firefighter_burning_neighbour_level_0_ignites_with_p_ignite(layout):
    model = make(layout)
    even = parity(model)
    levels = np.where(even, LIT, 0)          # every odd house at 0 between burning ones
    visited = np.zeros(model.n_agents, dtype=int)  # everyone on house 0 (even, burning)
    check_cell(model, levels, visited, ~even, crew=0, near=True, before=0, allowed={0, 1},
               event=1, p=RATES["p_ignite"], what=f"{layout}: ignite", seed=11)


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_no_firefighter_burning_neighbour_burning_grows_with_p_grow_neighbour(layout):
    model = make(layout)
    levels = np.full(model.fire.data.shape, LIT)
    visited = np.zeros(model.n_agents, dtype=int)
    targets = np.ones(levels.shape, bool)
    targets.reshape(-1)[0] = False
    check_cell(model, levels, visited, targets, crew=0, near=True, before=LIT,
               allowed={LIT, LIT + 1}, event=LIT + 1, p=RATES["p_grow_neighbour"],
               what=f"{layout}: grow with a burning neighbour", seed=12)


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_no_firefighter_no_burning_neighbour_burning_grows_with_p_grow_alone(layout):
    model = make(layout)
    even = parity(model)
    levels = np.where(even, LIT, 0)
    visited = np.ones(model.n_agents, dtype=int)   # everyone on house 1 (odd, level 0)
    check_cell(model, levels, visited, even, crew=0, near=False, before=LIT,
               allowed={LIT, LIT + 1}, event=LIT + 1, p=RATES["p_grow_alone"],
               what=f"{layout}: grow alone", seed=13)


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_no_firefighter_no_burning_neighbour_level_0_stays_0(layout):
    # Every probability 1, so any leak of this cell into another would show at once. On the
    # grid, some targets have a burning house diagonally (not a neighbour).
    model = make(layout, **{k: 1.0 for k in RATES})
    r, c = coords(model)
    fire_at = (c % 4 == 0) if layout == "row" else ((r % 3 == 0) & (c % 3 == 0))
    levels = np.where(fire_at, LIT, 0)
    targets = (levels == 0) & ~near_burning(levels)
    visited = np.zeros(model.n_agents, dtype=int)
    if layout == "grid":
        assert np.any(targets & (r % 3 == 1) & (c % 3 == 1))  # diagonal-only fire
    check_cell(model, levels, visited, targets, crew=0, near=False, before=0, allowed={0},
               event=0, p=1.0, what=f"{layout}: stays 0", seed=14)


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_one_firefighter_burning_neighbour_reduces_with_p_reduce_neighbour(layout):
    model = make(layout)
    visited = by_actions(model, [0] * model.n_agents)   # one firefighter per house
    levels = np.full(model.fire.data.shape, LIT)
    targets = crew_of(model, visited) == 1
    assert targets.sum() == model.n_agents
    check_cell(model, levels, visited, targets, crew=1, near=True, before=LIT,
               allowed={LIT - 1, LIT}, event=LIT - 1, p=RATES["p_reduce_neighbour"],
               what=f"{layout}: reduce with a burning neighbour", seed=15)


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_one_firefighter_no_burning_neighbour_reduces_with_p_reduce_alone(layout):
    model = make(layout)
    visited = by_actions(model, [0] * model.n_agents)
    even = parity(model)
    levels = np.where(even, LIT, 0)
    targets = (crew_of(model, visited) == 1) & even
    check_cell(model, levels, visited, targets, crew=1, near=False, before=LIT,
               allowed={LIT - 1, LIT}, event=LIT - 1, p=RATES["p_reduce_alone"],
               what=f"{layout}: reduce alone", seed=16)


def test_row_two_firefighters_put_out_with_p_two_agents_chosen_by_actions():
    # Firefighters 2k (action 1) and 2k+1 (action 0) meet at house 2k+1.
    model = make("row")
    visited = by_actions(model, [1 - (i % 2) for i in range(model.n_agents)])
    targets = crew_of(model, visited) == 2
    assert targets.sum() == model.n_agents // 2
    for name, levels, near, seed in [
        ("burning neighbours", np.full(model.fire.data.shape, LIT), True, 17),
        ("no burning neighbour", np.where(row_parity(model), 0, LIT), False, 18),
    ]:
        check_cell(model, levels, visited, targets, crew=2, near=near, before=LIT,
                   allowed={0, LIT}, event=0, p=RATES["p_two_agents"],
                   what=f"row: two firefighters, {name}", seed=seed)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_grid_two_three_or_four_firefighters_put_out_alike_with_p_two_agents(k):
    model = make("grid")
    crew = np.zeros(model.fire.data.shape, dtype=int)
    crew.reshape(-1)[:model.n_agents // k] = k              # 900 is divisible by 2, 3, 4
    visited = parked(model, crew, sink=0)
    targets = crew == k
    levels = np.full(model.fire.data.shape, LIT)
    check_cell(model, levels, visited, targets, crew=k, near=True, before=LIT,
               allowed={0, LIT}, event=0, p=RATES["p_two_agents"],
               what=f"grid: {k} firefighters", seed=20 + k)


def test_grid_four_firefighters_by_actions_at_a_shared_corner():
    # House (r, c) interior: the four cells around it each send their firefighter there.
    model = make("grid", p_two_agents=1.0)
    cols = 30
    actions = np.zeros(model.n_agents, dtype=int)
    for r, c, a in [(0, 0, 3), (0, 1, 2), (1, 0, 1), (1, 1, 0)]:
        actions[r * cols + c] = a
    visited = by_actions(model, actions)
    house = 1 * 31 + 1
    assert np.count_nonzero(visited == house) == 4
    model.fire.data[:] = LIT
    model.transition()
    assert model.fire.data.reshape(-1)[house] == 0


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_level_0_with_firefighters_stays_0(layout):
    # Implied by the table (every firefighter row needs level > 0): a house with a
    # firefighter never catches fire, even next to fire and with p_ignite = 1.
    model = make(layout, **{k: 1.0 for k in RATES})
    even = parity(model)
    levels = np.where(even, LIT, 0)
    crew = np.zeros(levels.shape, dtype=int)
    odd = np.flatnonzero(~even.reshape(-1))
    crew.reshape(-1)[odd[:200]] = 1
    crew.reshape(-1)[odd[200:400]] = 2
    visited = parked(model, crew, sink=int(odd[0]))
    model.rng = np.random.default_rng(5)
    model.fire.data[:] = levels
    model.visited = visited
    model.transition()
    assert np.all(model.fire.data.reshape(-1)[odd[:400]] == 0)


# --------------------------------------------------------------------------------------
# Simultaneity, neighbours, clipping
# --------------------------------------------------------------------------------------

def test_a_house_put_out_this_step_still_counts_as_a_burning_neighbour():
    # Odd houses burn and hold two firefighters each, put out for sure (p_two_agents = 1).
    # The even houses between them (level 0, no firefighter) read the state before the step:
    # they ignite with p_ignite, not 0.
    model = make("row", p_two_agents=1.0)
    visited = by_actions(model, [1 - (i % 2) for i in range(model.n_agents)])
    even = row_parity(model)
    levels = np.where(even, 0, LIT)
    model.rng = np.random.default_rng(30)
    model.fire.data[:] = levels
    model.visited = visited
    model.transition()
    assert np.all(model.fire.data[~even] == 0)          # all put out this step
    check_cell(model, levels, visited, even, crew=0, near=True, before=0, allowed={0, 1},
               event=1, p=RATES["p_ignite"], what="ignite next to a house put out",
               seed=31)


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_a_house_catching_fire_this_step_does_not_count_as_a_burning_neighbour(layout):
    # Every level-0 house next to fire ignites for sure (p_ignite = 1); the burning houses
    # between them had no burning neighbour before the step: they grow with p_grow_alone.
    model = make(layout, p_ignite=1.0)
    even = parity(model)
    levels = np.where(even, LIT, 0)
    visited = np.ones(model.n_agents, dtype=int)
    check_cell(model, levels, visited, even, crew=0, near=False, before=LIT,
               allowed={LIT, LIT + 1}, event=LIT + 1, p=RATES["p_grow_alone"],
               what=f"{layout}: grow alone beside houses igniting", seed=32)
    ignited = (~even).copy()
    ignited.reshape(-1)[1] = False                       # the sink
    out = run_transition(model, levels, visited, ignited, seed=33, n_trials=1)
    assert np.all(out == 1)


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_neighbours_do_not_wrap_around_nor_go_diagonal(layout):
    model = make(layout, **{k: 1.0 for k in RATES})
    rows, cols = model.fire.data.shape
    levels = np.zeros((rows, cols), dtype=int)
    levels[-1, -1] = LIT           # far corner burns
    visited = np.full(model.n_agents, model.num_houses - 1)
    model.fire.data[:] = levels
    model.visited = visited
    model.transition()
    expected = np.zeros((rows, cols), dtype=int)
    expected[-1, -1] = 0           # put out by the crowd (p_two_agents = 1)
    expected[-1, -2] = 1
    if layout == "grid":
        expected[-2, -1] = 1       # but not (-2, -2), the diagonal, nor (0, *) / (*, 0)
    assert np.array_equal(model.fire.data, expected)


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_levels_are_clipped_to_max_fire_level_and_zero(layout):
    model = make(layout, max_fire_level=5, **{k: 1.0 for k in RATES})
    levels = np.full(model.fire.data.shape, 5)
    model.fire.data[:] = levels
    model.visited = np.zeros(model.n_agents, dtype=int)   # house 0 only
    model.transition()
    top = model.fire.data.reshape(-1)
    assert top[0] == 0 and np.all(top[1:] == 5)           # grows to 6 -> clipped to 5
    # Bottom: level 1 with one firefighter goes to 0, never below.
    visited = by_actions(model, [0] * model.n_agents)
    model.fire.data[:] = 1
    model.visited = visited
    model.transition()
    assert np.all(model.fire.data[crew_of(model, visited) == 1] == 0)
    assert model.fire.data.min() >= 0


def test_levels_never_leave_0_to_max_over_a_run():
    for layout in ("row", "grid"):
        model = FirefightingGraphModel(layout=layout, n_agents=6, n_width=3, n_height=2,
                                       max_fire_level=3, p_grow_alone=1.0,
                                       p_grow_neighbour=1.0, p_reduce_alone=0.0,
                                       p_reduce_neighbour=0.0, p_two_agents=0.0,
                                       max_steps=60, rng=4)
        seen = set()
        while model.running:
            model.step()
            seen |= set(np.unique(model.fire.data).tolist())
        assert seen <= {0, 1, 2, 3} and 3 in seen


# --------------------------------------------------------------------------------------
# Observation
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["row", "grid"])
def test_flames_are_observed_with_p_observe_of_the_level_capped_at_2(layout):
    p_observe = (0.15, 0.45, 0.85)
    model = make(layout, p_observe=p_observe)
    visited = by_actions(model, [0] * model.n_agents)     # one firefighter per house
    groups = [0, 1, 2, 7]
    level_of_agent = np.array([groups[i % 4] for i in range(model.n_agents)])
    levels = np.zeros(model.num_houses, dtype=int)
    levels[visited] = level_of_agent
    model.fire.data[:] = levels.reshape(model.fire.data.shape)
    model.visited = visited
    model.rng = np.random.default_rng(40)
    per_group = model.n_agents // 4
    reps = math.ceil(N_TRIALS / per_group)
    hits = np.zeros(4, dtype=int)
    n = np.zeros(4, dtype=int)
    for _ in range(reps):
        model.observe()
        assert set(np.unique(model.observations)) <= {0, 1}
        for g, level in enumerate(groups):
            mask = level_of_agent == level
            hits[g] += int(model.observations[mask].sum())
            n[g] += int(mask.sum())
    for g, level in enumerate(groups):
        assert_rate(hits[g], n[g], p_observe[min(level, 2)],
                    f"{layout}: flames seen at level {level}")


# --------------------------------------------------------------------------------------
# Reward
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["row", "grid"])
@pytest.mark.parametrize("shared", [False, True])
def test_reward_is_minus_the_visited_level_or_minus_the_total(layout, shared):
    model = FirefightingGraphModel(layout=layout, n_agents=7, n_width=3, n_height=3,
                                   max_fire_level=6, population="random",
                                   shared_reward=shared, max_steps=30, rng=8)
    while model.running:
        before = model.rewards.copy()
        model.step()
        after = model.fire.data.reshape(-1)
        if shared:
            expected = before - after.sum()
        else:
            expected = before - after[model.visited]
            for i, house in enumerate(model.visited):
                assert house in model.guarded[i]
        assert np.array_equal(model.rewards, expected)


def test_individual_reward_each_agent_its_own_house_after_transition():
    # Levels 5, 4, 0, 0; one firefighter each at houses 0, 1 and 3. House 1 has a burning
    # neighbour and p_reduce_neighbour = 1: 4 -> 3, so its firefighter gets -3, not -4.
    model = FirefightingGraphModel(n_agents=3, population="fixed0:2,fixed1:1",
                                   initial_levels=[5, 4, 0, 0], p_ignite=0.0,
                                   p_reduce_neighbour=1.0, collect_data=False, rng=0)
    # fixed0 x2: firefighters 0, 1 at houses 0, 1; fixed1: firefighter 2 at house 3.
    model.step()
    assert list(model.visited) == [0, 1, 3]
    expected = -model.fire.data.reshape(-1)[[0, 1, 3]]
    assert np.array_equal(model.rewards, expected)
    # Deterministic part: house 1 has one firefighter and a burning neighbour: 4 -> 3.
    assert model.fire.data.reshape(-1)[1] == 3 and model.rewards[1] == -3


def test_shared_reward_gives_everyone_minus_the_total():
    model = FirefightingGraphModel(n_agents=3, population="fixed0", shared_reward=True,
                                   initial_levels=[5, 4, 0, 2], collect_data=False, rng=2)
    model.step()
    total = int(model.fire.data.sum())
    assert np.array_equal(model.rewards, np.full(3, -float(total)))


# --------------------------------------------------------------------------------------
# Termination
# --------------------------------------------------------------------------------------

def test_episode_ends_when_every_house_is_at_0():
    model = FirefightingGraphModel(n_agents=2, population="fixed1:1,fixed0:1",
                                   initial_levels=[0, 1, 0], p_ignite=0.0, max_steps=100,
                                   rng=0)
    assert model.running
    model.step()
    assert model.fire.data.sum() == 0
    assert model.running is False and model.t == 1
    state = (model.fire.data.copy(), model.rewards.copy(), model.observations.copy())
    model.step()
    assert model.phases_run == [] and model.t == 1
    assert np.array_equal(model.fire.data, state[0])
    assert np.array_equal(model.rewards, state[1])
    assert np.array_equal(model.observations, state[2])


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_episode_ends_after_exactly_max_steps(layout):
    # Nothing ever goes down: the fire cannot end the episode.
    model = FirefightingGraphModel(layout=layout, n_agents=3, n_width=2, n_height=2,
                                   p_reduce_neighbour=0.0, p_reduce_alone=0.0,
                                   p_two_agents=0.0, max_steps=7,
                                   initial_levels=None if layout == "row" else [1] * 9,
                                   rng=5)
    if layout == "row":
        model.fire.data[:] = 1
    for step in range(1, 8):
        assert model.running
        model.step()
        assert model.t == step
        assert model.fire.data.sum() > 0
    assert model.running is False
    rewards = model.rewards.copy()
    model.step()
    assert model.t == 7 and model.phases_run == [] and np.array_equal(model.rewards, rewards)


# --------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------

def test_cognac_is_the_default_preset_with_its_documented_constants():
    """docs/rules/firefighting_graph.md, "Parameters" (the presets) and "World"."""
    model = FirefightingGraphModel(collect_data=False, rng=0)
    assert model.preset == "cognac" and model.layout == "row"
    assert model.n_agents == 10 and model.fire.data.shape == (1, 11)
    assert model.max_fire_level == 100 and model.max_steps == 100
    assert (model.p_ignite, model.p_grow_neighbour, model.p_grow_alone) == (0.3, 0.7, 0.4)
    assert (model.p_reduce_neighbour, model.p_reduce_alone, model.p_two_agents) == (0.6, 1.0,
                                                                                     1.0)
    assert model.p_observe == (0.2, 0.5, 0.8) and model.shared_reward is False
    grid = FirefightingGraphModel(layout="grid", collect_data=False, rng=0)
    assert grid.n_agents == 25 and grid.fire.data.shape == (6, 6)
    assert list(grid.guarded[0]) == [0, 1, 6, 7] and list(grid.guarded[24]) == [28, 29, 34, 35]
    assert list(model.guarded[3]) == [3, 4]


def test_oliehoek_preset():
    model = FirefightingGraphModel(preset="oliehoek", population="random", max_steps=200,
                                   rng=6)
    assert model.max_fire_level == 2
    assert model.p_ignite == model.p_grow_neighbour == 0.8 and model.p_grow_alone == 0.4
    assert (model.p_reduce_neighbour, model.p_reduce_alone, model.p_two_agents) == (0.6, 1.0,
                                                                                     1.0)
    assert model.shared_reward is True
    assert model.fire.data.max() <= 2
    while model.running:
        model.step()
        assert 0 <= model.fire.data.min() and model.fire.data.max() <= 2
        assert np.all(model.rewards == model.rewards[0])      # shared


@pytest.mark.parametrize("layout", ["row", "grid"])
def test_oliehoek_no_firefighter_next_to_fire_goes_up_with_08_whatever_its_level(layout):
    model = make(layout, preset="oliehoek", **{k: None for k in RATES})
    even = parity(model)
    visited = np.zeros(model.n_agents, dtype=int)
    check_cell(model, np.where(even, 2, 0), visited, ~even, crew=0, near=True, before=0,
               allowed={0, 1}, event=1, p=0.8, what=f"oliehoek {layout}: 0 -> 1", seed=50)
    targets = np.ones(even.shape, bool)
    targets.reshape(-1)[0] = False
    check_cell(model, np.full(even.shape, 1), visited, targets, crew=0, near=True, before=1,
               allowed={1, 2}, event=2, p=0.8, what=f"oliehoek {layout}: 1 -> 2", seed=51)
    check_cell(model, np.full(even.shape, 2), visited, targets, crew=0, near=True, before=2,
               allowed={2}, event=2, p=1.0, what=f"oliehoek {layout}: capped at 2", seed=52)


def test_explicit_parameters_override_the_preset():
    model = FirefightingGraphModel(preset="oliehoek", p_ignite=0.1, shared_reward=False,
                                   population="fixed0", n_agents=2000, collect_data=False,
                                   rng=7)
    assert model.p_ignite == 0.1 and model.shared_reward is False
    assert model.max_fire_level == 2 and model.p_grow_neighbour == 0.8
    # The override is what the dynamics use.
    even = row_parity(model)
    check_cell(model, np.where(even, 2, 0), np.zeros(model.n_agents, dtype=int), ~even,
               crew=0, near=True, before=0, allowed={0, 1}, event=1, p=0.1,
               what="oliehoek with p_ignite=0.1", seed=60)
    # Individual rewards now.
    small = FirefightingGraphModel(preset="oliehoek", shared_reward=False, n_agents=3,
                                   population="fixed0", initial_levels=[2, 0, 1, 2],
                                   collect_data=False, rng=1)
    small.step()
    assert np.array_equal(small.rewards, -small.fire.data.reshape(-1)[[0, 1, 2]])
    other = FirefightingGraphModel(preset="oliehoek", max_fire_level=5, collect_data=False,
                                   rng=0)
    assert other.max_fire_level == 5 and other.p_ignite == 0.8
    assert PRESETS["oliehoek"]["p_ignite"] == 0.8         # the preset itself unchanged
