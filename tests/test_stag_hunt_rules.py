"""Stag Hunt Physical: each rule of docs/rules/stag_hunt.md, on its own ("World", "Round",
"Rewards", "Observations"), with the choices of its section "Choices made where the sources
are silent".

Most tests are exact: a small hand-built ASCII map (``random_agent_spawning=False``, so seat
``i`` starts on the ``i``-th ``P`` in row-major order), facings set by hand, and either one
turn played phase by phase with the actions in a chosen order (``play``), or whole turns of
``model.step()`` with the ``ScriptedAgent`` registered below. Expected cells are computed
here from the agent's frame (``d`` tiles ahead, ``l`` tiles to the right), not taken from
the model.

Statistical checks (``support.assert_rate``, a two-sided 4-sigma binomial band; seeds are
fixed, so each check is deterministic):

* activation order with 3 agents: each of the 6 orders has ``p = 1/6`` per turn over
  ``N = 3000`` turns (band ``4 * sqrt((1/6)(5/6)/3000) = 0.027``; a fixed order or a rotation
  of the seats gives 0 or 1/3 for some order, far outside it);
* regrowth cell: a hare killed on a 3 x 3 map has 7 candidate cells, each ``p = 1/7`` over
  ``N = 420`` seeds (band ``0.068``; the death cell is an exact check: p = 0).
"""

from collections import Counter
from itertools import permutations

import numpy as np
import pytest
from support import assert_rate

import dilemmas.agents.stag_hunt as sh_agents
from dilemmas.agents.stag_hunt import StagHuntAgent
from dilemmas.models.stag_hunt.model import StagHuntModel
from dilemmas.models.stag_hunt.rules import (ATTACK, BACKWARD, FORWARD, NOOP, PUNISH, STEP_LEFT,
                                             STEP_RIGHT, TURN_LEFT, TURN_RIGHT, Defeat)

STAG, HARE = 1, 2  # codes of the ``resource`` layer (and of the maps' '1' and '2')
FACINGS = (0, 1, 2, 3)  # 0 N, 1 E, 2 S, 3 W
#: Row and column step of each facing, written out here: "North" decreases the row.
STEP = {0: (-1, 0), 1: (0, 1), 2: (1, 0), 3: (0, -1)}
#: Each move's direction in quarter turns clockwise from the facing (facing North:
#: STEP_RIGHT goes East, BACKWARD South, STEP_LEFT West).
MOVE_TURNS = {FORWARD: 0, STEP_RIGHT: 1, BACKWARD: 2, STEP_LEFT: 3}
MOVE_NAMES = {FORWARD: "forward", BACKWARD: "backward", STEP_LEFT: "step_left",
              STEP_RIGHT: "step_right"}
PHASES = ["turn", "removals", "transitions", "act", "metrics"]


# --- Helpers --------------------------------------------------------------------------------

def ahead(cell, facing, d, l=0):
    """The cell ``d`` tiles ahead of ``cell`` and ``l`` tiles to the right, for ``facing``."""
    (fr, fc), (rr, rc) = STEP[facing], STEP[(facing + 1) % 4]
    return (cell[0] + d * fr + l * rr, cell[1] + d * fc + l * rc)


def square_map(size, marks):
    """A ``size`` x ``size`` ASCII map, empty but for ``marks`` ({(row, col): char})."""
    rows = [["."] * size for _ in range(size)]
    for (row, col), char in marks.items():
        rows[row][col] = char
    return "\n".join("".join(row) for row in rows) + "\n"


def framed_map(size, centre, facing, marks, fill="."):
    """A square map with ``P`` at ``centre`` and ``marks`` given in the agent's frame
    ({(d, l): char}), every other cell ``fill``."""
    rows = [[fill] * size for _ in range(size)]
    rows[centre[0]][centre[1]] = "P"
    for (d, l), char in marks.items():
        row, col = ahead(centre, facing, d, l)
        rows[row][col] = char
    return "\n".join("".join(row) for row in rows) + "\n"


def agent_at(model, cell):
    (agent,) = [a for a in model.agents if a.cell is not None and a.cell.coordinate == cell]
    return agent


def resources(model, code):
    return set(map(tuple, np.argwhere(model.resource_kinds == code).tolist()))


def mask(model, cells):
    out = np.zeros((model.height, model.width), dtype=bool)
    for cell in cells:
        out[cell] = True
    return out


def play(model, *moves):
    """One turn phase by phase: turn, removals, transitions, then each ``(seat, action)`` in
    the order given (the other agents do not act), then metrics."""
    model.advance_turn()
    model.update_removals()
    model.entity_transitions()
    for seat, action in moves:
        model.take_action(model.seats[seat], action)
    model.record_metrics()


class ScriptedAgent(StagHuntAgent):
    """Plays ``model.script[(turn, seat)]``, else ``model.script[seat]`` (every turn), else
    NOOP; ``model.probe(agent)``, if set, runs first (what the agent sees when it acts)."""

    behaviour = "scripted"

    def choose_action(self):
        model = self.model
        if getattr(model, "probe", None):
            model.probe(self)
        return model.script.get((model.turn, self.seat), model.script.get(self.seat, NOOP))


@pytest.fixture
def scripted(monkeypatch):
    """Registers ``ScriptedAgent`` as behaviour "scripted" for the duration of a test."""
    monkeypatch.setitem(sh_agents.BEHAVIOURS, "scripted", ScriptedAgent)


@pytest.fixture
def game(scripted):
    """A factory of scripted models on a hand-built map: every ``P`` gets a playing agent
    (all kind "A", can_hunt) unless ``agent_config`` says otherwise; ``facing`` sets the
    orientations in seat order."""

    def make(ascii_map, script=None, facing=(), **kwargs):
        n = ascii_map.count("P")
        params = dict(ascii_map=ascii_map, random_agent_spawning=False, num_agents=n,
                      num_agents_to_spawn=n, population="scripted",
                      agent_config=[{} for _ in range(n)], collect_data=False,
                      vision_radius=1, rng=0)
        params.update(kwargs)
        model = StagHuntModel(**params)
        model.script = dict(script or {})
        for seat, orientation in enumerate(facing):
            model.seats[seat].orientation = orientation
        return model

    return make


# --- 1. One turn: the five phases, a fresh shuffled order ------------------------------------

def test_phases_are_the_documented_turn():
    """docs/rules/stag_hunt.md, "Round": turn counter, removals, transitions, act, metrics;
    the turn counter goes up by one each step."""
    model = StagHuntModel(collect_data=False, rng=1)
    assert [phase.name for phase in model.phases] == PHASES
    for turn in range(1, 4):
        model.step()
        assert model.turn == turn


def _orders(seed, turns=30, agents=5):
    model = StagHuntModel(num_agents=agents, num_agents_to_spawn=agents, population="scripted",
                          agent_config=[{} for _ in range(agents)], max_steps=turns,
                          collect_data=False, rng=seed)
    model.script = {}
    orders = []
    for _ in range(turns):
        model.step()
        orders.append(tuple(model.action_order))
    assert model.turn == turns
    return orders


def test_action_order_is_reshuffled_every_turn_and_follows_the_seed(scripted):
    """docs/rules/stag_hunt.md, "Round", phase 4: the agents act in a freshly shuffled order
    each turn; the model's seed fixes the whole sequence."""
    orders = _orders(11)
    assert all(sorted(order) == [0, 1, 2, 3, 4] for order in orders)
    assert len(set(orders)) > 5  # reshuffled each turn: not fixed, not a rotation
    assert _orders(11) == orders
    assert _orders(12) != orders


def test_action_order_is_a_uniform_permutation(scripted):
    """Each of the 3! orders of three agents is equally likely each turn."""
    n_turns = 3000
    counts = Counter(_orders(21, turns=n_turns, agents=3))
    assert sum(counts.values()) == n_turns
    assert set(counts) <= set(permutations(range(3)))
    for order in permutations(range(3)):
        assert_rate(counts[order], n_turns, 1 / 6, f"P(order {order})")


# --- 2. Moves and turns ---------------------------------------------------------------------

OPEN5 = square_map(5, {(2, 2): "P"})


@pytest.mark.parametrize("move, cell", [(FORWARD, (1, 2)), (BACKWARD, (3, 2)),
                                        (STEP_LEFT, (2, 1)), (STEP_RIGHT, (2, 3))],
                         ids=lambda v: MOVE_NAMES.get(v, v) if isinstance(v, int) else None)
def test_moves_facing_north(game, move, cell):
    """docs/rules/stag_hunt.md, "Round" (Actions): facing North, STEP_LEFT moves West and
    STEP_RIGHT moves East."""
    model = game(OPEN5, facing=[0])
    play(model, (0, move))
    assert model.seats[0].cell.coordinate == cell


@pytest.mark.parametrize("move", list(MOVE_TURNS), ids=MOVE_NAMES.get)
@pytest.mark.parametrize("facing", FACINGS)
def test_move_goes_relative_to_the_facing_and_turns_to_face_it(game, facing, move):
    """Moves are relative to the facing; with simplified_movement (default) a successful move
    turns the agent to face the way it moved."""
    model = game(OPEN5, facing=[facing])
    play(model, (0, move))
    direction = (facing + MOVE_TURNS[move]) % 4
    agent = model.seats[0]
    assert agent.cell.coordinate == ahead((2, 2), direction, 1)
    assert agent.orientation == direction


@pytest.mark.parametrize("move", list(MOVE_TURNS), ids=MOVE_NAMES.get)
@pytest.mark.parametrize("facing", FACINGS)
def test_move_without_simplified_movement_keeps_the_facing(game, facing, move):
    model = game(OPEN5, facing=[facing], simplified_movement=False)
    play(model, (0, move))
    agent = model.seats[0]
    assert agent.cell.coordinate == ahead((2, 2), (facing + MOVE_TURNS[move]) % 4, 1)
    assert agent.orientation == facing


BLOCKED = {  # the agent at the centre, every neighbour blocked
    "wall": ("WWW\nWPW\nWWW\n", (1, 1)),
    "stag": (".1.\n1P1\n.1.\n", (1, 1)),
    "hare": (".2.\n2P2\n.2.\n", (1, 1)),
    "agent": (".P.\nPPP\n.P.\n", (1, 1)),
    "map_edge": ("P\n", (0, 0)),
}


@pytest.mark.parametrize("simplified", [True, False])
@pytest.mark.parametrize("facing", FACINGS)
@pytest.mark.parametrize("blocker", list(BLOCKED))
def test_blocked_move_changes_nothing(game, blocker, facing, simplified):
    """Resources, walls and agents are impassable (and cells off an unbordered map are
    walls); a blocked move changes nothing: neither cell nor orientation."""
    ascii_map, centre = BLOCKED[blocker]
    model = game(ascii_map, simplified_movement=simplified)
    agent = agent_at(model, centre)
    for other in model.agents:
        other.orientation = facing
    before = {a.seat: a.cell.coordinate for a in model.agents}
    kinds = model.resource_kinds.copy()
    for move in MOVE_TURNS:
        play(model, (agent.seat, move))
        assert agent.cell.coordinate == centre
        assert agent.orientation == facing
        assert {a.seat: a.cell.coordinate for a in model.agents} == before
        assert np.array_equal(model.resource_kinds, kinds)


@pytest.mark.parametrize("facing", FACINGS)
def test_turns_rotate_in_place(game, facing):
    """TURN_LEFT rotates 90 degrees counterclockwise (North -> West), TURN_RIGHT clockwise."""
    model = game(OPEN5, facing=[facing])
    agent = model.seats[0]
    play(model, (0, TURN_LEFT))
    assert agent.orientation == (facing + 3) % 4
    assert agent.cell.coordinate == (2, 2)
    agent.orientation = facing
    play(model, (0, TURN_RIGHT))
    assert agent.orientation == (facing + 1) % 4
    assert agent.cell.coordinate == (2, 2)


# --- 3. Attack footprints -------------------------------------------------------------------

AREA = [(d, l) for d in (0, 1, 2) for l in (-1, 0, 1)]


def beam_frame(length, radius):
    return [(d, l) for d in range(1, length + 1) for l in range(-radius, radius + 1)
            if abs(l) <= min(d - 1, radius)]


def attack_on_hares(game, size, centre, facing, frame, marks=None, **kwargs):
    """Every cell a hare but the agent's (and ``marks``); the agent attacks once. Returns the
    model, the expected footprint and the hares hit."""
    model = game(framed_map(size, centre, facing, marks or {}, fill="2"), facing=[facing],
                 **kwargs)
    expected = {ahead(centre, facing, d, l) for d, l in frame}
    agent = model.seats[0]
    assert set(model.attack_cells(agent)) == expected
    before = resources(model, HARE)
    play(model, (0, ATTACK))
    return model, expected, before - resources(model, HARE)


@pytest.mark.parametrize("facing", FACINGS)
def test_area_attack_is_the_3x3_square_centred_one_tile_ahead(game, facing):
    model, expected, hit = attack_on_hares(game, 7, (3, 3), facing, AREA, attack_mode="area")
    assert hit == expected - {(3, 3)}  # the agent's own cell holds no hare
    assert model.hares_defeated == 8
    assert np.array_equal(model.attack_beam, mask(model, expected))


@pytest.mark.parametrize("attack_range", [1, 3])
@pytest.mark.parametrize("facing", FACINGS)
def test_single_attack_is_straight_ahead_up_to_attack_range(game, facing, attack_range):
    frame = [(d, 0) for d in range(1, attack_range + 1)]
    model, expected, hit = attack_on_hares(game, 9, (4, 4), facing, frame,
                                           attack_mode="single", attack_range=attack_range)
    assert hit == expected
    assert np.array_equal(model.attack_beam, mask(model, expected))


@pytest.mark.parametrize("facing", FACINGS)
def test_single_attack_stops_at_a_wall(game, facing):
    """Rays stop at walls: nothing behind the wall is hit."""
    model, expected, hit = attack_on_hares(game, 9, (4, 4), facing, [(1, 0)],
                                           marks={(2, 0): "W"}, attack_mode="single",
                                           attack_range=3)
    assert hit == {ahead((4, 4), facing, 1)}
    assert ahead((4, 4), facing, 3) in resources(model, HARE)


@pytest.mark.parametrize("length, radius", [(3, 2), (3, 1), (4, 1), (4, 2), (2, 2), (3, 0)])
@pytest.mark.parametrize("facing", FACINGS)
def test_beam_attack_is_a_fan_of_half_width_min_d_minus_1_and_radius(game, facing, length,
                                                                     radius):
    model, expected, hit = attack_on_hares(game, 9, (4, 4), facing, beam_frame(length, radius),
                                           attack_mode="beam", beam_length=length,
                                           beam_radius=radius)
    assert hit == expected
    assert np.array_equal(model.attack_beam, mask(model, expected))


@pytest.mark.parametrize("facing", FACINGS)
def test_beam_attack_columns_stop_at_their_first_wall(game, facing):
    """Each column ``l`` is a ray from ``d = 1``: a wall at (d=2, l=1) hides (3, 1); a wall at
    (d=1, l=-2), outside the fan, still ends column -2, so (3, -2) is not hit."""
    frame = [(1, 0), (2, -1), (2, 0), (3, -1), (3, 0), (3, 2)]
    model, expected, hit = attack_on_hares(game, 9, (4, 4), facing, frame,
                                           marks={(2, 1): "W", (1, -2): "W"},
                                           attack_mode="beam", beam_length=3, beam_radius=2)
    assert hit == expected
    assert {ahead((4, 4), facing, 3, 1), ahead((4, 4), facing, 3, -2)} <= resources(model, HARE)


@pytest.mark.parametrize("flags, mode", [
    (dict(), "area"),  # the defaults: both flags True
    (dict(area_attack=True, single_tile_attack=False), "area"),
    (dict(area_attack=False, single_tile_attack=True), "single"),
    (dict(area_attack=False, single_tile_attack=False), "beam"),
    (dict(area_attack=True, single_tile_attack=True, attack_mode="beam"), "beam"),
    (dict(area_attack=True, single_tile_attack=False, attack_mode="single"), "single"),
    (dict(area_attack=False, single_tile_attack=False, attack_mode="area"), "area"),
])
def test_attack_mode_from_the_two_flags(game, flags, mode):
    """docs/rules/stag_hunt.md, "Choices made where the sources are silent": area_attack wins
    over single_tile_attack, which wins over the beam; an explicit attack_mode wins over
    both."""
    frames = {"area": AREA, "single": [(d, 0) for d in (1, 2, 3)], "beam": beam_frame(3, 1)}
    model = game(square_map(9, {(4, 4): "P"}), facing=[0], attack_range=3, beam_length=3,
                 beam_radius=1, **flags)
    assert model.attack_mode == mode
    assert set(model.attack_cells(model.seats[0])) == \
        {ahead((4, 4), 0, d, l) for d, l in frames[mode]}


# --- 4. Punish beam -------------------------------------------------------------------------

@pytest.mark.parametrize("facing", FACINGS)
def test_punish_beam_takes_one_health_from_each_agent_in_it(game, facing):
    """PUNISH: straight ahead up to beam_length, 1 health from every agent in it, never the
    shooter; costs punish_cost."""
    centre = (4, 4)
    inside = [ahead(centre, facing, d) for d in (1, 2, 3)]
    outside = [ahead(centre, facing, 4), ahead(centre, facing, 1, 1), ahead(centre, facing, -1)]
    model = game(framed_map(9, centre, facing,
                            {(d, l): "P" for d, l in [(1, 0), (2, 0), (3, 0), (4, 0), (1, 1),
                                                      (-1, 0)]}),
                 beam_length=3, punish_cost=0.1)
    shooter = agent_at(model, centre)
    shooter.orientation = facing
    play(model, (shooter.seat, PUNISH))
    for cell in inside:
        assert agent_at(model, cell).health == 4
    for cell in outside:
        assert agent_at(model, cell).health == 5
    assert shooter.health == 5
    assert shooter.reward == pytest.approx(-0.1)
    assert (model.punishments, model.punish_hits) == (1, 3)
    assert np.array_equal(model.punish_beam, mask(model, inside))


@pytest.mark.parametrize("facing", FACINGS)
def test_punish_beam_stops_at_a_wall_and_passes_resources(game, facing):
    """Stopped by walls only: the agent behind a hare is hit, the one behind a wall is not,
    and the hare is unharmed."""
    centre = (4, 4)
    model = game(framed_map(9, centre, facing, {(1, 0): "2", (2, 0): "P", (3, 0): "W",
                                                (4, 0): "P"}),
                 beam_length=4)
    shooter = agent_at(model, centre)
    shooter.orientation = facing
    play(model, (shooter.seat, PUNISH))
    assert agent_at(model, ahead(centre, facing, 2)).health == 4
    assert agent_at(model, ahead(centre, facing, 4)).health == 5
    assert model.resource_kinds[ahead(centre, facing, 1)] == HARE
    assert model.resource_health[ahead(centre, facing, 1)] == 1
    assert np.array_equal(model.punish_beam,
                          mask(model, [ahead(centre, facing, d) for d in (1, 2)]))


def test_punish_costs_even_when_it_misses(game):
    model = game(OPEN5, facing=[0], punish_cost=0.1)
    play(model, (0, PUNISH))
    assert model.seats[0].reward == pytest.approx(-0.1)
    assert (model.punishments, model.punish_hits) == (1, 0)


@pytest.mark.parametrize("cooldown", [0, 2, 5])
def test_punish_on_cooldown_does_nothing_and_costs_nothing(game, cooldown):
    """punish_cooldown n: fired at t, usable again from t + n + 1; in between PUNISH does
    nothing (no beam, no hit, no cost)."""
    model = game("PP\n", script={0: PUNISH}, facing=[1, 0], punish_cooldown=cooldown,
                 punish_cost=0.25, agent_health=50)
    shooter, target = model.seats
    fired = 0
    for turn in range(1, 15):
        model.step()
        fires = (turn - 1) % (cooldown + 1) == 0
        fired += fires
        assert model.punishments == fires, f"turn {turn}"
        assert model.punish_hits == fires
        assert model.punish_beam.any() == fires
        assert target.health == 50 - fired
        assert shooter.reward == pytest.approx(-0.25 * fired)


# --- 5. Attack cooldowns --------------------------------------------------------------------

@pytest.mark.parametrize("mode, cooldown", [("area", 0), ("area", 1), ("area", 3),
                                            ("single", 2), ("beam", 0), ("beam", 3)])
def test_attack_on_cooldown_does_nothing_and_costs_nothing(game, mode, cooldown):
    """Cooldown n: an attack at t, the next one from t + n + 1; in between ATTACK is not
    counted, costs nothing and hits nothing. Beam mode uses beam_cooldown, the others
    attack_cooldown (the unused one is set to 9 to tell them apart)."""
    cooldowns = (dict(attack_cooldown=9, beam_cooldown=cooldown) if mode == "beam"
                 else dict(attack_cooldown=cooldown, beam_cooldown=9))
    model = game("P1\n", script={0: ATTACK}, facing=[1], attack_mode=mode, attack_cost=0.5,
                 stag_health=50, heal_delay=0, **cooldowns)
    agent = model.seats[0]
    fired = 0
    for turn in range(1, 14):
        model.step()
        fires = (turn - 1) % (cooldown + 1) == 0
        fired += fires
        assert model.attacks == fires, f"turn {turn}"
        assert model.attack_beam.any() == fires
        assert model.resource_health[0, 1] == 50 - fired
        assert agent.reward == pytest.approx(-0.5 * fired)


# --- 6. Stags, hares, healing, can_hunt -----------------------------------------------------

@pytest.mark.parametrize("attack_cooldown", [0, 1])
def test_one_hunter_alone_never_kills_a_stag_with_heal_delay_1(game, attack_cooldown):
    """docs/rules/stag_hunt.md, "Round", phase 3 (b): with heal_delay 1 a hit stag regains
    full health at the start of the next turn, so one hunter alone cannot kill a stag with 2
    health."""
    model = game("P1\n", script={0: ATTACK}, facing=[1], attack_cooldown=attack_cooldown,
                 heal_delay=1)
    for turn in range(1, 41):
        model.step()
        fires = (turn - 1) % (attack_cooldown + 1) == 0
        assert model.resource_kinds[0, 1] == STAG
        assert model.resource_health[0, 1] == (1 if fires else 2)
    assert model.stags_defeated == 0 and not model.defeats


def test_two_hunters_striking_in_the_same_turn_kill_a_stag(game):
    """Coordination: two hits in one turn kill a stag with 2 health, a coordinated kill."""
    model = game("P1P\n", script={0: ATTACK, 1: ATTACK}, facing=[1, 3])
    model.step()
    assert model.resource_kinds[0, 1] == 0
    assert model.stags_defeated == 1 and model.coordinated_stag_kills == 1
    assert model.stags_on_map == 0
    (defeat,) = model.defeats
    assert defeat.kind == "stag" and defeat.hitters == (0, 1)
    assert defeat.defeater == model.action_order[-1]  # the second strike kills


def test_two_hunters_on_consecutive_turns_do_not_kill_a_stag(game):
    model = game("P1P\n", script={(1, 0): ATTACK, (2, 1): ATTACK, (3, 0): ATTACK},
                 facing=[1, 3], heal_delay=1)
    for _ in range(3):
        model.step()
        assert model.resource_health[0, 1] == 1
    assert model.stags_defeated == 0


@pytest.mark.parametrize("attack_cooldown", [1, 2])
def test_with_heal_delay_0_one_hunter_kills_a_stag_in_two_attacks(game, attack_cooldown):
    """heal_delay 0: never heals; hits at turns 1 and 1 + n + 1 kill it, not coordinated."""
    model = game("P1\n", script={0: ATTACK}, facing=[1], heal_delay=0,
                 attack_cooldown=attack_cooldown)
    while not model.defeats and model.turn < 10:
        model.step()
    (defeat,) = model.defeats
    assert defeat.turn == attack_cooldown + 2
    assert defeat.hitters == (0,)
    assert model.stags_defeated == 1 and model.coordinated_stag_kills == 0


@pytest.mark.parametrize("heal_delay", [1, 2, 3, 5])
def test_a_hit_stag_heals_after_heal_delay_turns(game, heal_delay):
    """heal_delay k: hit at turn t, full health again at the start of turn t + k (k = 1:
    the next turn), not before."""
    model = game("P1\n", script={(1, 0): ATTACK}, facing=[1], heal_delay=heal_delay)
    healths = []
    for _ in range(heal_delay + 3):
        model.step()
        healths.append(int(model.resource_health[0, 1]))
    assert healths == [1] * heal_delay + [2] * 3


def test_heal_delay_0_never_heals(game):
    model = game("P1\n", script={(1, 0): ATTACK}, facing=[1], heal_delay=0)
    for _ in range(25):
        model.step()
        assert model.resource_health[0, 1] == 1


def test_each_hit_restarts_the_healing_delay(game):
    """k turns *without a hit*: a second hit at turn 2 postpones healing to turn 4."""
    model = game("P1\n", script={(1, 0): ATTACK, (2, 0): ATTACK}, facing=[1], heal_delay=2,
                 stag_health=3, attack_cooldown=0)
    healths = []
    for _ in range(4):
        model.step()
        healths.append(int(model.resource_health[0, 1]))
    assert healths == [2, 1, 1, 3]


@pytest.mark.parametrize("heal_delay, attack_cooldown, kills", [
    (1, 0, False), (2, 0, True), (2, 1, False), (3, 1, True), (4, 3, False), (5, 3, True),
    (0, 3, True)])
def test_one_hunter_kills_a_stag_alone_only_if_it_is_still_wounded(game, heal_delay,
                                                                   attack_cooldown, kills):
    """Hits at turns 1 and n + 2 kill it alone iff it has not healed in between, i.e. iff
    heal_delay is 0 or greater than n + 1."""
    model = game("P1\n", script={0: ATTACK}, facing=[1], heal_delay=heal_delay,
                 attack_cooldown=attack_cooldown, stag_regeneration_cooldown=30)
    for _ in range(20):
        model.step()
    assert (model.stags_defeated > 0) == kills


def test_a_hare_dies_in_one_hit(game):
    model = game("P2\n", facing=[1], hare_reward=3.0)
    play(model, (0, ATTACK))
    assert model.resource_kinds[0, 1] == 0
    assert model.hares_defeated == 1 and model.hares_on_map == 0
    assert model.defeats == [Defeat(1, "hare", (0, 1), 0, (0,), (0,), 3.0)]


def test_an_agent_that_cannot_hunt_kills_hares_but_never_harms_stags(game):
    """can_hunt=False: attacks against stags have no effect (even a stag of 1 health),
    attacks against hares work."""
    model = game("1.2\n...\n.P.\n", facing=[0], agent_config=[{"can_hunt": False}],
                 stag_health=1)
    play(model, (0, ATTACK))
    assert model.resource_kinds[0, 2] == 0 and model.hares_defeated == 1
    assert model.resource_kinds[0, 0] == STAG and model.resource_health[0, 0] == 1
    assert model.stags_defeated == 0


def test_an_agent_that_cannot_hunt_is_no_partner_at_a_stag(game):
    """A hunter and a non-hunter striking together: only one real hit, the stag lives."""
    model = game("P1P\n", facing=[1, 3], agent_config=[{}, {"can_hunt": False}])
    play(model, (1, ATTACK), (0, ATTACK))
    assert model.resource_kinds[0, 1] == STAG and model.resource_health[0, 1] == 1
    assert model.stags_defeated == 0


# --- 7. Resource regrowth -------------------------------------------------------------------

@pytest.mark.parametrize("cooldown", [0, 1, 3])
@pytest.mark.parametrize("code", [STAG, HARE], ids=["stag", "hare"])
def test_a_defeated_resource_regrows_after_its_cooldown_elsewhere(game, code, cooldown):
    """Defeated at turn t, the same kind is back at full health at the start of turn
    t + cooldown + 1 (phase 3, before anyone acts), on a free cell other than its own: here
    the only one is (0, 3). Both kinds have 2 health; two hunters kill it in turn 1."""
    model = game(f"P{code}P.\n", facing=[1, 3], stag_health=2, hare_health=2,
                 stag_regeneration_cooldown=cooldown, hare_regeneration_cooldown=cooldown)
    counter = "stags_on_map" if code == STAG else "hares_on_map"
    assert getattr(model, counter) == 1
    play(model, (0, ATTACK), (1, ATTACK))
    assert model.resource_kinds[0, 1] == 0 and getattr(model, counter) == 0
    for turn in range(2, cooldown + 3):
        model.advance_turn()
        model.update_removals()
        model.entity_transitions()
        back = turn == cooldown + 2
        assert (model.resource_kinds[0, 3] == code) == back, f"turn {turn}"
        assert getattr(model, counter) == back
        model.record_metrics()
    assert model.resource_health[0, 3] == 2
    assert model.resource_kinds[0, 1] == 0
    assert (model.stags_on_map, model.hares_on_map) == ((1, 0) if code == STAG else (0, 1))


def test_regrowth_waits_while_no_cell_but_the_death_cell_is_free(game):
    """Nowhere to go but its own cell: the hare waits; once the agent steps onto that cell,
    the hare comes back on the cell the agent left."""
    model = game("P2\n", facing=[1], hare_regeneration_cooldown=0)
    play(model, (0, ATTACK))
    play(model, (0, FORWARD))  # due this turn, but only (0, 1) was free at phase 3
    assert model.hares_on_map == 0 and model.seats[0].cell.coordinate == (0, 1)
    play(model)
    assert model.resource_kinds[0, 0] == HARE and model.hares_on_map == 1


def test_regrowth_cell_is_uniform_over_free_cells_and_never_the_death_cell(game):
    """3 x 3 map, agent at the centre, hare above it: the hare comes back on one of the 7
    free cells other than (0, 1), uniformly."""
    n = 420
    counts = Counter()
    for seed in range(n):
        model = game(".2.\n.P.\n...\n", facing=[0], hare_regeneration_cooldown=0, rng=seed)
        play(model, (0, ATTACK))
        play(model)
        (cell,) = resources(model, HARE)
        counts[cell] += 1
    candidates = {(r, c) for r in range(3) for c in range(3)} - {(0, 1), (1, 1)}
    assert set(counts) == candidates
    for cell in sorted(candidates):
        assert_rate(counts[cell], n, 1 / 7, f"P(hare regrows on {cell})")


# --- 8. Removal and return ------------------------------------------------------------------

@pytest.mark.parametrize("respawn_lag", [0, 1, 4])
def test_removed_agent_leaves_at_once_and_returns_after_respawn_lag(game, respawn_lag):
    """At 0 health the agent leaves the grid at once; removed at turn t it does not act and
    is back at the start of turn t + respawn_lag + 1 with full health, keeping its reward,
    inventory and pending reward (paid at its first action back)."""
    model = game("PP.\n", facing=[1, 0], agent_health=2, punish_cooldown=0,
                 respawn_lag=respawn_lag, script={0: NOOP, 1: TURN_RIGHT})
    target = model.seats[1]
    target.reward, target.pending_reward = 7.0, 4.0
    target.stags, target.hares, target.ready = 2, 1, True
    play(model, (0, PUNISH))
    assert target.health == 1 and target.cell.coordinate == (0, 1)
    play(model, (0, PUNISH))  # turn 2: removed
    assert target.cell is None and target.removed
    assert model.grid[(0, 1)].is_empty
    assert (model.removals, model.agents_removed) == (1, 1)
    for turn in range(3, respawn_lag + 3):
        model.step()
        assert target.cell is None and target.removed, f"turn {turn}"
        assert model.action_order == [0]
        assert (target.reward, target.pending_reward) == (7.0, 4.0)
    model.step()  # turn respawn_lag + 3
    assert model.turn == respawn_lag + 3
    assert not target.removed and target.cell.coordinate == (0, 1)  # the free spawn point
    assert target.health == 2
    assert sorted(model.action_order) == [0, 1]
    assert (model.removals, model.agents_removed) == (1, 0)
    assert (target.reward, target.pending_reward) == (11.0, 0.0)
    assert (target.stags, target.hares, target.ready) == (2, 1, True)


def test_an_agent_removed_before_its_turn_does_not_act(game):
    """Removed earlier in the turn, an agent no longer acts that turn: over several seeds
    the shooter acts first sometimes, and then the target never acts."""
    seen = set()
    for seed in range(12):
        model = game("PP\n", facing=[1, 0], agent_health=1, rng=seed,
                     script={0: PUNISH, 1: TURN_RIGHT})
        model.step()
        assert model.seats[1].removed
        order = tuple(model.action_order)
        assert order in {(0,), (1, 0)}
        seen.add(order)
    assert seen == {(0,), (1, 0)}


# --- 9. Rewards -----------------------------------------------------------------------------

# Hare at (3, 3), hare_reward 12. Seats in row-major order: 0 at (0, 3), Chebyshev distance 3;
# 1 at (1, 1), distance 2 (Manhattan 4); 2 at (3, 2), the defeater, facing East; 3 at (3, 5),
# distance 2 but can_receive_shared_reward False; 4 at (5, 5), distance 2.
SHARE_MAP = square_map(7, {(0, 3): "P", (1, 1): "P", (3, 2): "P", (3, 3): "2", (3, 5): "P",
                           (5, 5): "P"})
SHARE_CONFIG = [{}, {}, {}, {"can_receive_shared_reward": False}, {}]


def test_reward_is_split_equally_within_the_chebyshev_radius(game):
    """docs/rules/stag_hunt.md, "Rewards": equal split among the defeater and the agents on
    the grid within Chebyshev distance reward_sharing_radius with can_receive_shared_reward;
    the defeater is paid at once, the others as pending reward paid at the start of their
    next action."""
    model = game(SHARE_MAP, agent_config=SHARE_CONFIG, hare_reward=12.0,
                 reward_sharing_radius=2)
    model.seats[2].orientation = 1
    play(model, (2, ATTACK))
    rewards = [a.reward for a in model.seats]
    pending = [a.pending_reward for a in model.seats]
    assert rewards == [0.0, 0.0, 4.0, 0.0, 0.0]
    assert pending == [0.0, 4.0, 0.0, 0.0, 4.0]
    assert model.defeats == [Defeat(1, "hare", (3, 3), 2, (2,), (2, 1, 4), 4.0)]

    model.advance_turn()
    model.update_removals()
    model.entity_transitions()
    model.take_action(model.seats[1], NOOP)
    assert (model.seats[1].reward, model.seats[1].pending_reward) == (4.0, 0.0)
    assert (model.seats[4].reward, model.seats[4].pending_reward) == (0.0, 4.0)  # not yet
    model.take_action(model.seats[4], TURN_LEFT)
    assert (model.seats[4].reward, model.seats[4].pending_reward) == (4.0, 0.0)
    for seat in (0, 3):
        model.take_action(model.seats[seat], NOOP)
        assert (model.seats[seat].reward, model.seats[seat].pending_reward) == (0.0, 0.0)


def test_exclusive_reward_gives_it_all_to_the_defeater(game):
    config = [dict(entry) for entry in SHARE_CONFIG]
    config[2]["exclusive_reward"] = True
    model = game(SHARE_MAP, agent_config=config, hare_reward=12.0)
    model.seats[2].orientation = 1
    play(model, (2, ATTACK))
    assert [a.reward for a in model.seats] == [0.0, 0.0, 12.0, 0.0, 0.0]
    assert [a.pending_reward for a in model.seats] == [0.0] * 5
    assert model.defeats[0].recipients == (2,)


def test_defeater_is_paid_even_without_can_receive_shared_reward(game):
    model = game("P2P\n", facing=[1, 3], hare_reward=6.0,
                 agent_config=[{"can_receive_shared_reward": False}, {}])
    play(model, (0, ATTACK))
    assert (model.seats[0].reward, model.seats[1].pending_reward) == (3.0, 3.0)
    assert model.defeats[0].recipients == (0, 1)


def test_defeater_is_paid_even_farther_than_the_radius(game):
    """Single mode reaches 3 tiles; the defeater at distance 3 > radius 1 still shares."""
    model = game("P..2\n...P\n", facing=[1, 0], attack_mode="single", attack_range=3,
                 reward_sharing_radius=1, hare_reward=10.0)
    play(model, (0, ATTACK))
    assert (model.seats[0].reward, model.seats[1].pending_reward) == (5.0, 5.0)
    assert model.defeats[0].recipients == (0, 1)


def test_a_removed_agent_gets_no_share(game):
    """Only agents on the grid share: seat 1, next to the hare but removed, gets nothing."""
    model = game("PP2\n", facing=[1, 1], agent_health=1, hare_reward=6.0, punish_cost=0.5)
    play(model, (0, PUNISH))
    assert model.seats[1].removed
    play(model, (0, ATTACK))
    assert model.defeats[0].recipients == (0,)
    assert (model.seats[0].reward, model.seats[1].pending_reward) == (5.5, 0.0)


def test_rewards_and_costs_are_conserved_over_random_episodes():
    """Every defeat's reward is paid out in full and costs are the only other change: the
    seats' reward + pending reward + attack and punish costs paid = the defeated rewards.
    Over five episodes, every kind of event happens (about 2.5 removals per episode)."""
    seen = {"stag": 0, "hare": 0, "removal": 0, "shared": 0}
    for seed in range(5):
        model = StagHuntModel(height=9, width=9, resource_density=0.3, num_agents=6,
                              num_agents_to_spawn=6,
                              population="random:2,cooperator:2,hare_hunter:2",
                              attack_cost=0.25, punish_cost=0.5, stag_reward=100.0,
                              hare_reward=3.0, reward_sharing_radius=3, agent_health=1,
                              respawn_lag=2, max_steps=80, collect_data=False, rng=seed)
        costs = 0.0
        while model.running:
            model.step()
            costs += model.attacks * 0.25 + model.punishments * 0.5
        paid = {"stag": 100.0, "hare": 3.0}
        for defeat in model.defeats:
            assert defeat.share * len(defeat.recipients) == pytest.approx(paid[defeat.kind])
            assert defeat.recipients[0] == defeat.defeater
            assert len(set(defeat.recipients)) == len(defeat.recipients)
        total = sum(paid[defeat.kind] for defeat in model.defeats)
        held = sum(agent.reward + agent.pending_reward for agent in model.seats)
        assert held + costs == pytest.approx(total)
        assert len(model.defeats) == model.stags_defeated + model.hares_defeated
        seen["stag"] += model.stags_defeated
        seen["hare"] += model.hares_defeated
        seen["removal"] += model.removals
        seen["shared"] += sum(len(defeat.recipients) > 1 for defeat in model.defeats)
    assert all(seen.values()), seen


# --- 10. Inventory, ready, observation features ---------------------------------------------

def test_defeater_inventory_and_ready(game):
    """The defeater's inventory of that kind grows by one; ready once it holds anything;
    the observation's features are (stags, hares, ready, shared last turn)."""
    model = game("P1P\n...\n..2\n", facing=[1, 3], attack_cooldown=0,
                 hare_regeneration_cooldown=30, stag_regeneration_cooldown=30)
    first, second = model.seats
    assert (second.stags, second.hares, second.ready) == (0, 0, False)
    play(model, (0, ATTACK), (1, ATTACK))  # seat 1 lands the killing blow
    assert (second.stags, second.hares, second.ready) == (1, 0, True)
    assert (first.stags, first.hares, first.ready) == (0, 0, False)
    assert second.observe().features.tolist() == [1, 0, 1, 0]
    second.orientation = 2
    play(model, (1, ATTACK))  # the hare at (2, 2), in the area ahead of (0, 2) facing South
    assert (second.stags, second.hares, second.ready) == (1, 1, True)
    assert second.observe().features.tolist() == [1, 1, 1, 0]


def test_features_are_all_0_before_the_first_turn(game):
    """Turn 0 (the first observation): nothing held, not ready, and no share was received
    "last turn" -- there was none."""
    model = game("P2P\n", facing=[1, 3])
    for agent in model.seats:
        assert agent.observe().features.tolist() == [0, 0, 0, 0]


def test_shared_flag_is_set_during_the_turn_after_a_share(game):
    """Feature 4 is 1 during turn t + 1 (when acting, and after) for an agent given a share
    of another's defeat in turn t, and 0 in turns t and t + 2."""
    model = game("P2P\n", facing=[1, 3], hare_regeneration_cooldown=30)
    flags = []
    model.probe = lambda agent: flags.append((model.turn, agent.seat,
                                              float(agent.observe().features[3])))
    receiver = model.seats[1]
    play(model, (0, ATTACK))
    assert receiver.pending_reward > 0
    assert receiver.observe().features[3] == 0
    model.step()
    assert receiver.observe().features[3] == 1
    assert (2, 1, 1.0) in flags
    model.step()
    assert receiver.observe().features[3] == 0
    assert (3, 1, 0.0) in flags


def test_shared_flag_stays_set_when_another_share_arrives(game):
    """docs/rules/stag_hunt.md, "Observations": the flag is 1 if the agent received a shared
    reward last turn. Seat 1 gets a share in turn 1 and another in turn 2: during all of
    turn 2 (and turn 3) the flag is 1."""
    model = game("2P2\n.P.\n", facing=[3, 0], attack_mode="single", attack_range=1,
                 attack_cooldown=0, hare_regeneration_cooldown=30)
    receiver = model.seats[1]
    play(model, (0, ATTACK))  # the hare at (0, 0)
    model.seats[0].orientation = 1
    play(model, (1, NOOP), (0, ATTACK))  # the hare at (0, 2): a second share
    assert [d.recipients for d in model.defeats] == [(0, 1), (0, 1)]
    assert [d.turn for d in model.defeats] == [1, 2]
    assert receiver.observe().features[3] == 1  # turn 2: a share was received in turn 1
    play(model)
    assert receiver.observe().features[3] == 1  # turn 3: a share was received in turn 2
