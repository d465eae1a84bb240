"""State Punishment: each rule of docs/rules/state_punishment.md, on its own ("World",
"Round", "Rewards", "Termination").

Most tests are exact: they place agents and resources by hand on a "quiet" model (no
initial resources, no spawning, seat-order activation) and apply actions one at a time with
``model.take_action``, or play whole turns with the ``ScriptedAgent`` registered below.

Statistical checks. A probability ``p`` estimated from ``N`` independent Bernoulli trials
has standard error ``sqrt(p*(1-p)/N)``; every check allows
``|p_hat - p| <= 4 * sqrt(p*(1-p)/N)`` (a two-sided 4-sigma band: about 6e-5 chance of a
false alarm per check for a correct model). Seeds are fixed, so the outcome of each check is
deterministic; the band only guarantees the fixed seeds are not cherry-picked. The trials:

* spawning: every empty open cell of a 40 x 40 open area is one trial per spawn phase;
  ``N >= 20000`` cell-trials for the rate (``spawn_prob = 0.2``: band
  ``4 * sqrt(0.16 / 20000) = 0.011``, a fifth of the rate), ``N >= 20000`` spawned resources
  for the kinds (band at most ``4 * 0.5 / sqrt(20000) = 0.014``; 0.011 for a uniform kind
  at 0.2, so a kind off by a twentieth of its share is caught);
* initial kinds: ``N = 21000`` initial resources over 14 seeds, same bands;
* stochastic punishment: ``N = 20000`` taboo collections (band ``<= 0.014``);
* random activation with 3 agents: each of the 6 orders has ``p = 1/6`` per turn over
  ``N = 6000`` turns (band ``4 * sqrt((1/6)(5/6)/6000) = 0.019``; 0.5 for seat order, so
  a fixed order or a mere rotation is far outside it).

When ``p`` is exactly 0 or 1 the band is 0: the check is exact.
"""

from collections import Counter
from decimal import Decimal
from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest
from support import assert_rate

import dilemmas.agents.state_punishment as sp_agents
from dilemmas.agents.state_punishment import StatePunishmentAgent
from dilemmas.models.state_punishment.model import StatePunishmentModel
from dilemmas.models.state_punishment.rules import AGENT_CHANNEL, HARM, KINDS, VALUE

MOVES = ("up", "down", "left", "right")


def quiet_model(**kwargs):
    """A model that does nothing unless a test makes it: no initial resources, no spawning,
    seat order, no DataCollector."""
    params = dict(num_agents=3, initial_resources=0, spawn_prob=0.0, activation="sequential",
                  collect_data=False, rng=0)
    params.update(kwargs)
    return StatePunishmentModel(**params)


def arrange(model, *cells):
    """Seat ``i`` to ``cells[i]`` in its own world (cells are (row, col))."""
    for seat, cell in enumerate(cells):
        agent = model.seats[seat]
        agent.cell = model.grids[agent.world][cell]


def put(model, cell, kind, world=0):
    model.grids[world].resource.data[cell] = KINDS.index(kind) + 1


def resource_at(model, cell, world=0):
    code = int(model.grids[world].resource.data[cell])
    return KINDS[code - 1] if code else None


def resource_count(model):
    return sum(int(np.count_nonzero(grid.resource.data)) for grid in model.grids)


def exact(x):
    """A decimal parameter as written (0.1 -> 1/10), for drift-free expectations."""
    return Fraction(Decimal(repr(x)))


def vote_of(action):
    if action in ("vote_increase",) or action.endswith("_increase"):
        return 1
    if action in ("vote_decrease",) or action.endswith("_decrease"):
        return -1
    return 0


def move_of(action):
    return next((move for move in MOVES if action == move or action.startswith(move + "_")),
                None)


class ScriptedAgent(StatePunishmentAgent):
    """Plays ``model.script[(turn, seat)]`` (default "noop") and records in
    ``model.probe_log`` what it saw when it was its turn to act."""

    behaviour = "scripted"

    def choose_action(self):
        model = self.model
        probe = dict(turn=model.turn, seat=self.seat, resources=resource_count(model),
                     cells=tuple(agent.cell.coordinate for agent in model.seats),
                     p=model.punishment_level)
        if getattr(model, "probe_observe", False):
            probe["observation"] = self.observe()
        model.probe_log.append(probe)
        return model.script.get((model.turn, self.seat), "noop")


@pytest.fixture
def scripted(monkeypatch):
    """Registers ``ScriptedAgent`` as behaviour "scripted" for the duration of a test and
    returns a factory of quiet scripted models."""
    monkeypatch.setitem(sp_agents.BEHAVIOURS, "scripted", ScriptedAgent)

    def make(script=None, **kwargs):
        model = quiet_model(population="scripted", **kwargs)
        model.script = dict(script or {})
        model.probe_log = []
        return model

    return make


# --- One turn: spawn, act, log ------------------------------------------------------------

@pytest.mark.parametrize("activation", ["random", "sequential"])
def test_phase_order(activation):
    """docs/rules/state_punishment.md, "Round": spawn, act, log, whatever the activation."""
    model = StatePunishmentModel(activation=activation, rng=1)
    assert [phase.name for phase in model.phases] == ["spawn", "act", "log"]


@pytest.mark.parametrize("activation", ["random", "sequential"])
def test_spawn_happens_before_any_agent_acts(scripted, monkeypatch, activation):
    """Every agent (all play noop) sees exactly the resources present right after spawn."""
    model = scripted(activation=activation, spawn_prob=0.3, rng=5)
    after_spawn = []
    spawn = model.spawn

    def recording_spawn():
        spawn()
        after_spawn.append(resource_count(model))

    monkeypatch.setattr(model, "spawn", recording_spawn)
    before = resource_count(model)
    assert before == 0
    for _ in range(4):
        model.step()
    assert after_spawn[0] > before  # spawning did something the agents could see
    assert len(model.probe_log) == 4 * 3
    for probe in model.probe_log:
        assert probe["resources"] == after_spawn[probe["turn"] - 1]


def test_log_comes_after_the_actions(scripted):
    model = scripted({(1, 0): "vote_increase", (1, 2): "vote_decrease", (2, 1): "vote_increase"},
                     collect_data=True)
    model.step()
    model.step()
    mv = model.datacollector.model_vars
    assert mv["turn"] == [0, 1, 2]
    assert mv["votes_up"] == [0, 1, 1]
    assert mv["votes_down"] == [0, 1, 0]
    assert mv["punishment_level"] == [0.1, 0.1, 0.3]
    assert mv["cumulative_votes_up"] == [0, 1, 2]


def test_composite_later_seat_sees_earlier_move_and_vote(scripted):
    """Seat order: seat 1 sees seat 0 already on its new cell and p already raised."""
    model = scripted({(1, 0): "right_increase"}, action_mode="composite", full_view=True)
    model.probe_observe = True
    arrange(model, (4, 4), (6, 6), (2, 2))
    model.step()
    seat0, seat1, seat2 = model.probe_log
    assert seat0["cells"][0] == (4, 4) and seat0["p"] == 0.1
    assert seat1["seat"] == 1
    assert seat1["cells"][0] == (4, 5)
    assert seat1["p"] == 0.3
    view, features = seat1["observation"]
    assert view[4, 5, AGENT_CHANNEL + 0] == 1 and view[4, 4, AGENT_CHANNEL + 0] == 0
    assert features[0] == pytest.approx(0.3)


def test_simple_later_seats_see_earlier_move_vote_and_block(scripted):
    """Seat 0 moves right; seat 1 votes; seat 2 sees both, and is blocked by seat 0's new
    cell when it steps into it."""
    model = scripted({(1, 0): "right", (1, 1): "vote_increase", (1, 2): "up"})
    arrange(model, (4, 4), (7, 7), (5, 5))
    model.step()
    seat2 = model.probe_log[2]
    assert seat2["cells"][0] == (4, 5)
    assert seat2["p"] == 0.3
    assert model.seats[2].cell.coordinate == (5, 5)  # (4, 5) is taken by seat 0


def test_activation_orders(scripted):
    def orders(model, turns):
        for _ in range(turns):
            model.step()
        seats = [probe["seat"] for probe in model.probe_log]
        n = model.num_agents
        return [tuple(seats[i:i + n]) for i in range(0, len(seats), n)]

    sequential = orders(scripted(num_agents=4, activation="sequential"), 30)
    assert set(sequential) == {(0, 1, 2, 3)}

    shuffled = orders(scripted(num_agents=4, activation="random", rng=11), 30)
    assert all(sorted(order) == [0, 1, 2, 3] for order in shuffled)
    assert len(set(shuffled)) > 5  # reshuffled each turn, not fixed once
    assert orders(scripted(num_agents=4, activation="random", rng=11), 30) == shuffled
    assert orders(scripted(num_agents=4, activation="random", rng=12), 30) != shuffled


def test_random_activation_is_a_uniform_permutation(scripted):
    n_turns = 6000
    model = scripted(num_agents=3, activation="random", max_steps=n_turns, rng=21)
    seats = model.probe_log
    while model.running:
        model.step()
    counts = Counter(tuple(probe["seat"] for probe in seats[i:i + 3])
                     for i in range(0, len(seats), 3))
    assert sum(counts.values()) == n_turns
    assert set(counts) <= set(permutations(range(3)))
    for order in permutations(range(3)):
        assert_rate(counts[order], n_turns, 1 / 6, f"P(order {order})")


# --- Spawn ----------------------------------------------------------------------------------

BIG = dict(width=42, height=42)  # 40 x 40 = 1600 open cells


def test_spawn_rate_per_empty_open_cell():
    spawn_prob = 0.2
    model = quiet_model(spawn_prob=spawn_prob, **BIG)
    grid = model.grids[0]
    arrange(model, (1, 1), (20, 20), (40, 40))
    # 100 resources already on the grid, on a fixed pattern avoiding the agents.
    for i in range(100):
        cell = (2 + (i * 7) % 38, 2 + (i * 11) % 38)
        if grid.empty.data[cell]:
            put(model, cell, KINDS[i % 5])
    base = grid.resource.data.copy()
    wall = grid.wall.data.copy()
    agent_cells = [agent.cell.coordinate for agent in model.seats]
    candidates = ~wall & (base == 0)
    for cell in agent_cells:
        candidates[cell] = False
    per_round = int(candidates.sum())
    assert per_round == 1600 - 3 - int(np.count_nonzero(base))
    model.rng = np.random.default_rng(101)
    rounds, spawned = 14, 0
    for _ in range(rounds):
        grid.resource.data[:] = base
        model.spawn()
        after = grid.resource.data
        assert not after[wall].any(), "a wall spawned a resource"
        for cell in agent_cells:
            assert after[cell] == 0, "a cell with an agent spawned a resource"
        assert np.array_equal(after[base > 0], base[base > 0]), "an existing resource changed"
        spawned += int(np.count_nonzero(after[candidates]))
    n = rounds * per_round
    assert n >= 20000
    assert_rate(spawned, n, spawn_prob, "P(spawn | empty open cell)")


def test_spawn_certain_and_never_follow_agents_moved_by_hand():
    model = quiet_model(spawn_prob=1.0)
    arrange(model, (1, 1), (2, 2), (3, 3))
    arrange(model, (8, 8), (2, 2), (5, 1))  # seats 0 and 2 moved away
    model.spawn()
    data = model.grids[0].resource.data
    assert int(np.count_nonzero(data)) == 64 - 3
    for cell in [(8, 8), (2, 2), (5, 1)]:
        assert data[cell] == 0
    assert data[(1, 1)] > 0 and data[(3, 3)] > 0
    assert not data[model.grids[0].wall.data].any()
    model.spawn()  # no empty open cell is left
    assert int(np.count_nonzero(data)) == 64 - 3

    never = quiet_model(spawn_prob=0.0)
    for _ in range(50):
        never.spawn()
    assert resource_count(never) == 0


@pytest.mark.parametrize("weights", [(1, 1, 1, 1, 1), (5, 1, 0, 3, 1), (0, 3, 1, 6, 0)])
def test_spawn_kinds_follow_spawn_weights(weights):
    model = quiet_model(spawn_prob=1.0, spawn_weights=weights, **BIG)
    model.rng = np.random.default_rng(202)
    grid = model.grids[0]
    counts = Counter()
    for _ in range(13):
        grid.resource.data[:] = 0
        model.spawn()
        codes = grid.resource.data[grid.resource.data > 0]
        counts.update(KINDS[code - 1] for code in codes.tolist())
    n = sum(counts.values())
    assert n >= 20000
    for kind, weight in zip(KINDS, weights):
        assert_rate(counts[kind], n, weight / sum(weights), f"P(spawned kind {kind})")


# --- Initial placement ----------------------------------------------------------------------

@pytest.mark.parametrize("num_agents, initial_resources, num_worlds",
                         [(3, 15, 1), (1, 0, 1), (5, 59, 1), (4, 30, 2), (3, 61, 3)])
def test_initial_placement(num_agents, initial_resources, num_worlds):
    placements = set()
    for seed in range(20):
        model = StatePunishmentModel(num_agents=num_agents, initial_resources=initial_resources,
                                     num_worlds=num_worlds, rng=seed)
        for world, grid in enumerate(model.grids):
            assert grid.wall.data.shape == (10, 10)
            assert int((~grid.wall.data).sum()) == 64
            assert grid.wall.data[[0, -1], :].all() and grid.wall.data[:, [0, -1]].all()
            cells = [a.cell.coordinate for a in model.seats if a.world == world]
            assert len(set(cells)) == len(cells), "two agents share a cell"
            for cell in cells:
                assert not grid.wall.data[cell]
                assert grid.resource.data[cell] == 0, "a resource under an agent"
            assert int(np.count_nonzero(grid.resource.data)) == initial_resources
            assert not grid.resource.data[grid.wall.data].any()
            assert set(np.unique(grid.resource.data).tolist()) <= set(range(6))
            placements.add((world, tuple(cells)))
    assert len(placements) > num_worlds  # positions are random, not fixed


@pytest.mark.parametrize("weights", [(1, 1, 1, 1, 1), (1, 0, 2, 1, 4)])
def test_initial_kinds_follow_spawn_weights(weights):
    counts = Counter()
    for seed in range(14):
        model = StatePunishmentModel(initial_resources=1500, spawn_weights=weights,
                                     collect_data=False, rng=seed, **BIG)
        data = model.grids[0].resource.data
        counts.update(KINDS[code - 1] for code in data[data > 0].tolist())
    n = sum(counts.values())
    assert n == 14 * 1500
    for kind, weight in zip(KINDS, weights):
        assert_rate(counts[kind], n, weight / sum(weights), f"P(initial kind {kind})")


# --- Movement -------------------------------------------------------------------------------

@pytest.mark.parametrize("action, target", [("up", (3, 4)), ("down", (5, 4)),
                                            ("left", (4, 3)), ("right", (4, 5))])
def test_moves(action, target):
    model = quiet_model()
    arrange(model, (4, 4), (8, 8), (1, 8))
    model.take_action(model.seats[0], action)
    assert model.seats[0].cell.coordinate == target
    record = model.history[-1]
    assert (record.action, record.collected, record.value, record.punishment,
            record.vote_cost, record.harm, record.reward) == (action, None, 0, 0, 0, 0, 0)


@pytest.mark.parametrize("action_mode", ["simple", "composite"])
def test_walls_and_agents_block(action_mode):
    suffix = "" if action_mode == "simple" else "_no_vote"
    model = quiet_model(action_mode=action_mode)
    arrange(model, (1, 1), (8, 8), (2, 1))
    put(model, (3, 1), "B")  # behind seat 2: must stay where it is
    blocked = [(0, "up"), (0, "left"), (1, "down"), (1, "right"), (0, "down"), (2, "up")]
    for seat, move in blocked:
        before = [a.cell.coordinate for a in model.seats]
        model.take_action(model.seats[seat], move + suffix)
        assert [a.cell.coordinate for a in model.seats] == before, (seat, move)
        record = model.history[-1]
        assert (record.collected, record.value, record.punishment, record.vote_cost,
                record.reward) == (None, 0, 0, 0, 0)
    assert resource_at(model, (3, 1)) == "B"
    assert model.punishment_level == 0.1
    assert all(a.reward == 0 and a.collected == 0 and a.pending_harm == 0 for a in model.seats)


@pytest.mark.parametrize("kind", KINDS)
def test_stepping_onto_a_resource_collects_it(kind):
    model = quiet_model(taboo="")
    arrange(model, (4, 4), (8, 8), (1, 8))
    put(model, (3, 4), kind)
    model.take_action(model.seats[0], "up")
    agent = model.seats[0]
    assert agent.cell.coordinate == (3, 4)
    assert resource_at(model, (3, 4)) is None
    assert resource_count(model) == 0
    record = model.history[-1]
    assert (record.collected, record.value, record.punishment, record.reward) == (
        kind, VALUE[kind], 0.0, VALUE[kind])
    assert agent.reward == VALUE[kind] and agent.collected == 1
    assert model.collected_by_kind[kind] == 1


# --- Votes ----------------------------------------------------------------------------------

def test_vote_steps_clamp_and_always_cost():
    model = quiet_model()
    agent = model.seats[0]
    ups = [0.3, 0.5, 0.7, 0.9, 1.0, 1.0, 1.0]
    downs = [0.8, 0.6, 0.4, 0.2, 0.0, 0.0, 0.0]
    for action, levels in (("vote_increase", ups), ("vote_decrease", downs)):
        for level in levels:
            model.take_action(agent, action)
            assert model.punishment_level == level  # exactly the literal, no drift
            record = model.history[-1]
            assert (record.vote_cost, record.reward, record.collected) == (-0.1, -0.1, None)
    assert agent.votes_up == len(ups) and agent.votes_down == len(downs)
    assert agent.reward == pytest.approx(-0.1 * (len(ups) + len(downs)))
    assert model.vote_cost_total == pytest.approx(-0.1 * 14)


def test_vote_cost_parameter_and_clamped_start():
    model = quiet_model(vote_cost=0.25, initial_punishment=1.0, vote_step=0.5)
    model.take_action(model.seats[1], "vote_increase")
    assert model.punishment_level == 1.0 and model.history[-1].vote_cost == -0.25
    model.take_action(model.seats[1], "vote_decrease")
    model.take_action(model.seats[1], "vote_decrease")
    model.take_action(model.seats[1], "vote_decrease")
    assert model.punishment_level == 0.0
    assert [r.vote_cost for r in model.history] == [-0.25] * 4
    assert model.seats[1].reward == -1.0


@pytest.mark.parametrize("initial, step", [(0.1, 0.2), (0.05, 0.15), (0.3, 0.1), (0.0, 0.07)])
def test_punishment_level_never_drifts(initial, step):
    model = quiet_model(initial_punishment=initial, vote_step=step)
    votes = np.random.default_rng(7).choice([-1, 1], size=3000)
    p = exact(initial)
    seen = set()
    for vote in votes.tolist():
        model.take_action(model.seats[0], "vote_increase" if vote > 0 else "vote_decrease")
        p = min(max(p + vote * exact(step), Fraction(0)), Fraction(1))
        assert model.punishment_level == float(p), (model.punishment_level, p)
        seen.add(p)
    assert len(seen) > 5
    # The lattice point reached by one raise is the literal, not 0.1 + 0.2 in floats.
    fresh = quiet_model(initial_punishment=initial, vote_step=step)
    fresh.take_action(fresh.seats[0], "vote_increase")
    assert fresh.punishment_level == float(min(exact(initial) + exact(step), Fraction(1)))


def test_vote_is_effective_immediately():
    model = quiet_model()
    arrange(model, (4, 4), (6, 6), (2, 2))
    put(model, (6, 7), "B")
    model.take_action(model.seats[0], "vote_increase")
    model.take_action(model.seats[1], "right")
    assert model.history[-1].punishment == -10.0 * 0.3 == pytest.approx(-3.0)


@pytest.mark.parametrize("vote, p_after", [("increase", 0.3), ("decrease", 0.0)])
def test_composite_moves_before_voting(vote, p_after):
    model = quiet_model(action_mode="composite", taboo="B")
    arrange(model, (4, 4), (6, 6), (2, 2))
    put(model, (4, 5), "B")
    model.take_action(model.seats[0], f"right_{vote}")
    record = model.history[-1]
    assert model.seats[0].cell.coordinate == (4, 5)
    assert record.collected == "B"
    assert record.punishment == -10.0 * 0.1  # p before the vote
    assert record.vote_cost == -0.1
    assert record.reward == 7.0 - 1.0 - 0.1
    assert model.punishment_level == p_after


def test_action_sets():
    assert quiet_model().action_names == (
        "up", "down", "left", "right", "vote_increase", "vote_decrease", "noop")
    composite = quiet_model(action_mode="composite")
    assert len(composite.action_names) == 13 and "noop" in composite.action_names
    assert {f"{m}_{v}" for m in MOVES for v in ("no_vote", "increase", "decrease")} == (
        set(composite.action_names) - {"noop"})
    arrange(composite, (4, 4), (6, 6), (2, 2))
    composite.take_action(composite.seats[0], "noop")
    assert composite.seats[0].cell.coordinate == (4, 4)
    assert composite.punishment_level == 0.1 and composite.history[-1].reward == 0
    with pytest.raises(ValueError):
        composite.take_action(composite.seats[0], "vote_increase")


# --- Punishment -----------------------------------------------------------------------------

@pytest.mark.parametrize("magnitude", [-10.0, -4.0])
@pytest.mark.parametrize("p", [0.0, 0.1, 0.35, 0.5, 1.0])
def test_expected_punishment(p, magnitude):
    model = quiet_model(taboo="B", initial_punishment=p, punishment_magnitude=magnitude)
    arrange(model, (4, 4), (6, 6), (2, 2))
    put(model, (4, 5), "B")
    put(model, (4, 6), "A")
    model.take_action(model.seats[0], "right")
    taboo = model.history[-1]
    assert taboo.collected == "B" and taboo.punishment == magnitude * p
    assert taboo.reward == 7.0 + magnitude * p
    model.take_action(model.seats[0], "right")
    allowed = model.history[-1]
    assert allowed.collected == "A" and allowed.punishment == 0.0 and allowed.reward == 3.0
    assert model.punishment_total == magnitude * p


def test_expected_punishment_example_and_default_taboo():
    """docs/rules/state_punishment.md, "Rewards": at 50 %, punishment = -10.0 x 0.5 = -5.0;
    "World": all five kinds are taboo by default."""
    model = quiet_model(initial_punishment=0.5)
    for kind in KINDS:
        arrange(model, (4, 4), (6, 6), (2, 2))
        put(model, (4, 5), kind)
        model.take_action(model.seats[0], "right")
        assert model.history[-1].collected == kind
        assert model.history[-1].punishment == -5.0


def collect_many(model, kind, n):
    """Seat 0 collects ``kind`` ``n`` times (stepping right from (4, 4)); the punishments."""
    agent, grid = model.seats[0], model.grids[0]
    out = []
    for _ in range(n):
        agent.cell = grid[(4, 4)]
        put(model, (4, 5), kind)
        model.take_action(agent, "right")
        record = model.history[-1]
        assert record.collected == kind
        out.append(record.punishment)
    return out


@pytest.mark.parametrize("p", [0.3, 0.5])
def test_stochastic_punishment_frequency(p):
    n = 20000
    model = quiet_model(taboo="B", punishment_mode="stochastic", initial_punishment=p,
                        punishment_magnitude=-6.0)
    arrange(model, (4, 4), (7, 7), (1, 1))
    model.random.seed(303)
    punishments = collect_many(model, "B", n)
    assert set(punishments) <= {-6.0, 0.0}
    assert_rate(punishments.count(-6.0), n, p, f"P(punished | p={p})")
    assert set(collect_many(model, "A", 500)) == {0.0}  # not taboo: never punished


@pytest.mark.parametrize("p, expected", [(0.0, 0.0), (1.0, -10.0)])
def test_stochastic_punishment_at_the_bounds(p, expected):
    model = quiet_model(punishment_mode="stochastic", initial_punishment=p)
    arrange(model, (4, 4), (7, 7), (1, 1))
    assert set(collect_many(model, "D", 500)) == {expected}


# --- Social harm ----------------------------------------------------------------------------

@pytest.mark.parametrize("kind", KINDS)
def test_harm_goes_to_every_other_agent_and_is_applied_once(kind):
    h = HARM[kind]
    model = quiet_model(taboo="")
    arrange(model, (4, 4), (6, 6), (2, 2))
    put(model, (4, 5), kind)
    collector, first, second = model.seats
    model.take_action(collector, "right")
    assert model.history[-1].harm == 0 and model.history[-1].reward == VALUE[kind]
    assert collector.pending_harm == 0 and collector.harm_received == 0
    for other in (first, second):
        assert other.pending_harm == h and other.harm_received == h
    assert model.social_harm_generated == 2 * h

    model.take_action(first, "noop")
    record = model.history[-1]
    assert (record.harm, record.reward) == (h, -h)
    assert first.pending_harm == 0 and first.harm_received == h and first.reward == -h
    assert second.pending_harm == h  # not applied before its own action
    model.take_action(first, "noop")
    assert model.history[-1].harm == 0  # applied once only
    model.take_action(second, "vote_increase")
    record = model.history[-1]
    assert (record.harm, record.vote_cost) == (h, -0.1)
    assert record.reward == pytest.approx(-0.1 - h)
    assert second.pending_harm == 0
    assert model.social_harm_generated == 2 * h  # applying it does not count again


def test_harm_accumulates_and_is_applied_at_the_end_of_own_action():
    model = quiet_model(taboo="")
    arrange(model, (4, 4), (6, 6), (2, 2))
    a, b, c = model.seats
    put(model, (4, 5), "B")
    put(model, (2, 3), "A")
    put(model, (4, 6), "C")
    model.take_action(a, "right")  # B: +1.0 to b and c
    model.take_action(c, "right")  # A: +0.5 to a and b; c pays its 1.0 at the end
    assert (model.history[-1].collected, model.history[-1].harm) == ("A", 1.0)
    assert model.history[-1].reward == 3.0 - 1.0
    assert (a.pending_harm, b.pending_harm, c.pending_harm) == (0.5, 1.5, 0.0)
    model.take_action(a, "right")  # C: +0.3 to b and c; a pays its own 0.5 at the end
    record = model.history[-1]
    assert (record.collected, record.value, record.harm) == ("C", 2.0, 0.5)
    assert record.reward == 1.5 and a.pending_harm == 0
    assert b.pending_harm == pytest.approx(1.8) and c.pending_harm == pytest.approx(0.3)
    assert c.harm_received == pytest.approx(1.3)
    model.take_action(b, "left")  # a blocked move still ends the action
    assert model.history[-1].harm == pytest.approx(1.8)
    assert b.harm_received == pytest.approx(1.8) and b.reward == pytest.approx(-1.8)
    assert model.social_harm_generated == pytest.approx(2 * (1.0 + 0.5 + 0.3))


def test_harm_across_worlds():
    model = quiet_model(num_agents=4, num_worlds=2, taboo="")
    assert [agent.world for agent in model.seats] == [0, 1, 0, 1]
    arrange(model, (4, 4), (4, 4), (6, 6), (6, 6))  # same cells, different worlds
    put(model, (4, 5), "D", world=0)
    model.take_action(model.seats[0], "right")
    assert model.seats[0].cell.coordinate == (4, 5)
    assert model.seats[1].cell.coordinate == (4, 4)
    assert resource_at(model, (4, 5), world=0) is None
    assert [agent.pending_harm for agent in model.seats] == [0.0, 1.5, 1.5, 1.5]
    assert [agent.harm_received for agent in model.seats] == [0.0, 1.5, 1.5, 1.5]
    assert model.social_harm_generated == 4.5
    model.take_action(model.seats[3], "noop")
    assert model.history[-1].harm == 1.5


# --- Worlds ---------------------------------------------------------------------------------

@pytest.mark.parametrize("num_agents, num_worlds", [(5, 2), (6, 3), (3, 3), (4, 1)])
def test_worlds_assignment(num_agents, num_worlds):
    model = StatePunishmentModel(num_agents=num_agents, num_worlds=num_worlds,
                                 initial_resources=10, spawn_prob=1.0, rng=3)
    assert len(model.grids) == num_worlds
    assert len({id(grid) for grid in model.grids}) == num_worlds
    for seat, agent in enumerate(model.seats):
        assert agent.world == seat % num_worlds
        assert model.grids[agent.world][agent.cell.coordinate] is agent.cell
    for grid in model.grids:
        assert int(np.count_nonzero(grid.resource.data)) == 10
    assert model.resources_on_grid == 10 * num_worlds
    model.spawn()  # each world spawns on its own empty cells
    for world, grid in enumerate(model.grids):
        players = sum(agent.world == world for agent in model.seats)
        assert int(np.count_nonzero(grid.resource.data)) == 64 - players


def test_worlds_share_one_punishment_level(scripted):
    model = scripted({(1, 0): "vote_increase", (1, 1): "right"}, num_agents=2, num_worlds=2)
    arrange(model, (4, 4), (4, 4))
    put(model, (4, 5), "B", world=1)
    model.step()
    record = model.history[-1]
    assert (record.seat, record.collected) == (1, "B")
    assert record.punishment == -10.0 * 0.3
    assert model.seats[0].pending_harm == 1.0  # and the harm crosses over


# --- Episode --------------------------------------------------------------------------------

def test_episode_plays_exactly_max_steps_turns():
    model = StatePunishmentModel(max_steps=5, population="random", rng=8)
    for turn in range(1, 6):
        assert model.running
        model.step()
        assert model.turn == turn
        assert model.phases_run == ["spawn", "act", "log"]
    assert not model.running
    snapshot = (model.turn, len(model.history), resource_count(model),
                [a.cell.coordinate for a in model.seats], [a.reward for a in model.seats],
                len(model.datacollector.model_vars["turn"]))
    model.step()
    assert model.phases_run == []
    assert snapshot == (model.turn, len(model.history), resource_count(model),
                        [a.cell.coordinate for a in model.seats],
                        [a.reward for a in model.seats],
                        len(model.datacollector.model_vars["turn"]))
    assert snapshot[1] == 5 * 3 and snapshot[-1] == 6


def test_no_other_end(scripted):
    """Even with every cell full and nothing left to do, the episode runs to max_steps."""
    model = scripted(max_steps=40, spawn_prob=1.0)
    while model.running:
        model.step()
    assert model.turn == 40 and len(model.history) == 40 * 3


# --- Reward identity and the DataCollector over played episodes -------------------------

@pytest.mark.parametrize("punishment_mode", ["expected", "stochastic"])
@pytest.mark.parametrize("action_mode", ["simple", "composite"])
def test_reward_identity_and_datacollector(action_mode, punishment_mode):
    turns, n = 250, 6
    model = StatePunishmentModel(num_agents=n, population="random:2,greedy_forager:2,civic_voter:2",
                                 action_mode=action_mode, punishment_mode=punishment_mode,
                                 max_steps=turns, spawn_prob=0.1, rng=2024)
    while model.running:
        model.step()
    history = model.history
    assert len(history) == turns * n
    for turn in range(1, turns + 1):
        assert sorted(r.seat for r in history[(turn - 1) * n:turn * n]) == list(range(n))
        assert {r.turn for r in history[(turn - 1) * n:turn * n]} == {turn}

    # Replay p and the harm ledger from the history, record by record.
    p = exact(model.initial_punishment)
    step = exact(model.vote_step)
    pending = [0.0] * n
    p_after_turn = {0: float(p)}
    for r in history:
        assert r.reward == r.value + r.punishment + r.vote_cost - r.harm
        vote = 0 if r.blocked else vote_of(r.action)  # a blocked move cancels its vote
        assert r.vote_cost == (-model.vote_cost if vote else 0.0)
        if r.collected is None:
            assert r.value == 0 and r.punishment == 0
        else:
            assert move_of(r.action) is not None
            assert r.value == VALUE[r.collected]
            if punishment_mode == "expected":
                assert r.punishment == model.punishment_magnitude * float(p)
            else:
                magnitude = model.punishment_magnitude
                assert r.punishment in ({0.0} if p == 0 else {magnitude} if p == 1
                                        else {0.0, magnitude})
            for seat in range(n):
                if seat != r.seat:
                    pending[seat] += HARM[r.collected]
        if vote:
            p = min(max(p + vote * step, Fraction(0)), Fraction(1))
        assert r.harm == pytest.approx(pending[r.seat], abs=1e-12)
        pending[r.seat] = 0.0
        p_after_turn[r.turn] = float(p)
    assert model.punishment_level == float(p)

    for agent in model.seats:
        mine = [r for r in history if r.seat == agent.seat]
        assert agent.reward == pytest.approx(
            sum(r.value + r.punishment + r.vote_cost - r.harm for r in mine), abs=1e-9)
        applied = sum(r.harm for r in mine)
        assert agent.pending_harm == pytest.approx(pending[agent.seat], abs=1e-12)
        assert agent.harm_received == pytest.approx(applied + agent.pending_harm, abs=1e-9)
        assert agent.collected == sum(r.collected is not None for r in mine)
        assert agent.votes_up == sum(vote_of(r.action) > 0 and not r.blocked for r in mine)
        assert agent.votes_down == sum(vote_of(r.action) < 0 and not r.blocked for r in mine)

    # The game was really played: every ingredient of the identity occurred.
    assert sum(r.collected is not None for r in history) > 20
    assert sum(r.vote_cost != 0 for r in history) > 20
    assert sum(r.harm > 0 for r in history) > 20
    assert sum(r.punishment != 0 for r in history) > 0

    mv = model.datacollector.model_vars
    assert mv["turn"] == list(range(turns + 1))
    assert mv["resources_on_grid"][0] == model.initial_resources
    assert mv["resources_on_grid"][-1] == resource_count(model)
    for t in range(turns + 1):
        upto = history[:t * n]
        now = history[(t - 1) * n:t * n] if t else []
        assert mv["punishment_level"][t] == p_after_turn[t]
        assert mv["votes_up"][t] == sum(vote_of(r.action) > 0 and not r.blocked for r in now)
        assert mv["votes_down"][t] == sum(vote_of(r.action) < 0 and not r.blocked for r in now)
        assert mv["cumulative_votes_up"][t] == sum(vote_of(r.action) > 0 and not r.blocked for r in upto)
        assert mv["cumulative_votes_down"][t] == sum(vote_of(r.action) < 0 and not r.blocked for r in upto)
        for kind in KINDS:
            assert mv[f"collected_{kind}"][t] == sum(r.collected == kind for r in upto)
        assert mv["collected"][t] == sum(r.collected is not None for r in upto)
        assert mv["punishment_total"][t] == pytest.approx(sum(r.punishment for r in upto),
                                                          abs=1e-9)
        assert mv["vote_cost_total"][t] == pytest.approx(sum(r.vote_cost for r in upto),
                                                         abs=1e-9)
        assert mv["social_harm_generated"][t] == pytest.approx(
            sum(HARM[r.collected] * (n - 1) for r in upto if r.collected), abs=1e-9)
        assert mv["mean_reward"][t] == pytest.approx(sum(r.reward for r in upto) / n,
                                                     abs=1e-9)

    agents_df = model.datacollector.get_agent_vars_dataframe()
    last = agents_df.xs(turns, level="Step")
    assert len(last) == n
    for agent in model.seats:
        row = last.loc[agent.unique_id]
        assert row["behaviour"] == agent.behaviour
        assert row["reward"] == agent.reward
        assert row["collected"] == agent.collected
        assert row["votes_up"] == agent.votes_up and row["votes_down"] == agent.votes_down
        assert row["harm_received"] == agent.harm_received
    assert [a.behaviour for a in model.seats] == ["random"] * 2 + ["greedy_forager"] * 2 + [
        "civic_voter"] * 2


@pytest.mark.parametrize("action", ["up_increase", "left_decrease"])
def test_a_blocked_composite_move_cancels_its_vote(action):
    """docs/rules/state_punishment.md, "Choices made where the sources are silent": moving
    into a wall or an agent, "the agent stays; nothing else happens"."""
    model = StatePunishmentModel(num_agents=1, initial_resources=0, spawn_prob=0.0,
                                 action_mode="composite", collect_data=False, rng=0)
    agent = model.seats[0]
    agent.cell = model.grids[0][(1, 1)]  # a wall above and to the left
    model.take_action(agent, action)
    record = model.history[-1]
    assert agent.cell.coordinate == (1, 1) and record.blocked
    assert model.punishment_level == 0.1 and record.vote_cost == 0.0 and record.reward == 0.0
    assert agent.votes_up == agent.votes_down == 0
    model.take_action(agent, "down_increase")  # a free move carries its vote
    assert not model.history[-1].blocked and model.punishment_level == 0.3
