"""Stag Hunt Physical as a Mesa model: defaults, maps, the game's own parameter errors, data,
observations, invariants and behaviours.

The rules are docs/rules/stag_hunt.md. Hand-built positions are
ASCII maps with fixed spawning, every configured agent spawned: seat ``i`` stands on the
``i``-th spawn point in row-major order, and the test sets its orientation (0 N, 1 E, 2 S,
3 W).
"""

from collections import deque

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import assert_rate, population_string

from dilemmas.models.stag_hunt.maps import HARE, STAG
from dilemmas.models.stag_hunt.model import StagHuntModel
from dilemmas.models.stag_hunt.rules import (ATTACK, ATTACK_MODES, FORWARD, MOVE_TURNS, NOOP,
                                             PUNISH, STEP_RIGHT, TURN_RIGHT)

N, E, S, W = range(4)
EMPTY_CH, WALL_CH, STAG_CH, HARE_CH = range(4)
CUMULATIVE = ["turn", "stags_defeated", "hares_defeated", "coordinated_stag_kills", "removals"]
HUNTERS3 = [dict(kind="A")] * 3          # three kind-A agents that can hunt


def played(**kwargs):
    model = StagHuntModel(**kwargs)
    model.run_model()
    return model


def frames(**kwargs):
    model = played(**kwargs)
    return (model.datacollector.get_model_vars_dataframe(),
            model.datacollector.get_agent_vars_dataframe())


def world(rows, population="random", orientations=(), **kwargs):
    """A model on the ASCII map ``rows`` whose seats all play, seat ``i`` on the ``i``-th
    spawn point (row-major), facing ``orientations[i]``."""
    text = "\n".join(rows) + "\n"
    seats = sum(row.count("P") + row.count("A") for row in rows)
    kwargs = dict(dict(num_agents=seats, num_agents_to_spawn=seats, rng=0, vision_radius=2,
                       random_agent_spawning=False, agent_config=[dict(kind="A")] * seats),
                  **kwargs)
    model = StagHuntModel(ascii_map=text, population=population, **kwargs)
    for agent, orientation in zip(model.seats, orientations):
        agent.orientation = orientation
    return model


def scripted(model, *actions):
    """Seat ``i`` will choose ``actions[i]`` on every turn."""
    for agent, action in zip(model.seats, actions):
        agent.choose_action = lambda action=action: action


def flood_connected(walls):
    """My own check: the open cells form one 4-connected region."""
    cells = {tuple(rc) for rc in np.argwhere(~walls).tolist()}
    if not cells:
        return True
    start = next(iter(cells))
    seen, queue = {start}, deque([start])
    while queue:
        r, c = queue.popleft()
        for nxt in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nxt in cells and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen == cells


def start_cells(model):
    return {a.cell.coordinate for a in model.agents}


# --- Defaults ---------------------------------------------------------------------------

def test_the_default_game():
    """docs/rules/stag_hunt.md, "Parameters", "World" (the default agent configuration),
    "Observations" (the default sizes) and "Termination"."""
    model = StagHuntModel(rng=1)
    expected = dict(height=13, width=13, wall_density=0.0, resource_density=0.15,
                    stag_probability=0.5, num_agents=3, num_agents_to_spawn=2,
                    population="random", random_agent_spawning=True, agent_health=5,
                    respawn_lag=10, simplified_movement=True, attack_mode="area",
                    attack_cooldown=1, attack_cost=0.0, attack_range=3, beam_cooldown=3,
                    beam_length=3, beam_radius=2, punish_cooldown=5, punish_cost=0.1,
                    stag_health=2, stag_reward=100.0, stag_regeneration_cooldown=1,
                    hare_health=1, hare_reward=3.0, hare_regeneration_cooldown=1,
                    heal_delay=1, reward_sharing_radius=2, vision_radius=4,
                    embedding_size=3, max_steps=50, ascii_map=None)
    assert {key: getattr(model, key) for key in expected} == expected
    walls = model.walls
    assert walls.shape == (13, 13)
    assert walls[[0, -1], :].all() and walls[:, [0, -1]].all() and not walls[1:-1, 1:-1].any()
    assert model.agent_config == [
        dict(kind="A", can_hunt=True, can_receive_shared_reward=True, exclusive_reward=False),
        dict(kind="A", can_hunt=True, can_receive_shared_reward=True, exclusive_reward=False),
        dict(kind="B", can_hunt=False, can_receive_shared_reward=True, exclusive_reward=False)]
    assert [(a.seat, a.kind, a.can_hunt) for a in model.seats] == [
        (0, "A", True), (1, "A", True), (2, "B", False)]
    assert [a.behaviour for a in model.seats] == ["random"] * 3
    assert model.kinds == ("A", "B") and model.channels == 4 + 2 + 2
    assert model.observation_size == 9 * 9 * 8 + 4 + 9
    model.run_model()
    assert model.turn == 50 and not model.running
    model.step()
    assert model.turn == 50 and model.phases_run == []


@pytest.mark.parametrize("seed", range(8))
def test_two_of_three_play_and_the_third_is_only_a_seat(seed):
    model = StagHuntModel(rng=seed)
    playing = [a for a in model.seats if a in model.agents]
    idle = [a for a in model.seats if a not in model.agents]
    assert len(model.seats) == 3 and len(model.agents) == 2 == len(playing)
    assert len(idle) == 1
    cells = [a.cell.coordinate for a in playing]
    assert len(set(cells)) == 2 and not any(model.walls[c] for c in cells)
    assert all(model.grid[c].agents == [a] for a, c in zip(playing, cells))
    model.run_model()
    (unspawned,) = idle
    assert unspawned.cell is None and unspawned.reward == 0 and unspawned.pending_reward == 0
    assert unspawned not in model.agents
    seats_in_rows = set(model.datacollector.get_agent_vars_dataframe()
                        .index.get_level_values("AgentID"))
    assert unspawned.unique_id not in seats_in_rows and len(seats_in_rows) == 2


def test_which_seats_play_is_drawn_at_random():
    idle = {next(a.seat for a in StagHuntModel(rng=seed).seats if a.cell is None)
            for seed in range(30)}
    assert idle == {0, 1, 2}


def test_a_step_runs_the_five_documented_phases_and_shuffles_who_acts():
    """docs/rules/stag_hunt.md, "Round": the five phases; phase 4 in a fresh order."""
    model = StagHuntModel(num_agents=4, num_agents_to_spawn=4, agent_config=[{}] * 4, rng=3,
                          max_steps=40)
    orders = set()
    while model.running:
        model.step()
        assert model.phases_run == ["turn", "removals", "transitions", "act", "metrics"]
        orders.add(tuple(model.action_order))
    assert all(sorted(order) == [0, 1, 2, 3] for order in orders if len(order) == 4)
    assert len(orders) > 5


# --- Random maps ------------------------------------------------------------------------

@pytest.mark.parametrize("height, width", [(13, 13), (9, 15), (5, 7)])
@pytest.mark.parametrize("density", [0.0, 0.1, 0.3, 0.45, 0.6])
def test_random_walls_keep_the_border_the_count_and_connectivity(height, width, density):
    interior = (height - 2) * (width - 2)
    for seed in range(4):
        model = StagHuntModel(height=height, width=width, wall_density=density, rng=seed,
                              resource_density=0.0)
        walls = model.walls
        assert walls.shape == (height, width)
        assert walls[[0, -1], :].all() and walls[:, [0, -1]].all()
        assert int(walls[1:-1, 1:-1].sum()) == round(density * interior)
        assert flood_connected(walls)


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(height=11, width=17, wall_density=0.3, resource_density=0.4, stag_probability=0.25,
         num_agents=4, num_agents_to_spawn=3, agent_config=[{}] * 4),
    dict(resource_density=0.05, stag_probability=0.9, random_agent_spawning=False),
])
def test_random_resources_follow_their_densities(kwargs):
    params = dict(dict(resource_density=0.15, stag_probability=0.5), **kwargs)
    eligible = placed = stags = 0
    for seed in range(150):
        model = StagHuntModel(rng=seed, **kwargs)
        excluded = start_cells(model) | set(model.spawn_points)
        eligible += int((~model.walls).sum()) - len(excluded)
        kinds = model.resource_kinds
        placed += int(np.count_nonzero(kinds))
        stags += int(np.count_nonzero(kinds == STAG))
        assert not any(kinds[c] for c in excluded), "a resource on a starting cell"
        assert not kinds[model.walls].any(), "a resource on a wall"
        assert set(np.unique(kinds)) <= {0, STAG, HARE}
    assert_rate(placed, eligible, params["resource_density"], "resources per eligible cell")
    assert_rate(stags, placed, params["stag_probability"], "stags per resource")


def test_fixed_spawning_keeps_every_configured_spawn_point_free_of_resources():
    for seed in range(20):
        model = StagHuntModel(random_agent_spawning=False, resource_density=1.0, rng=seed)
        open_cells = [tuple(rc) for rc in np.argwhere(~model.walls).tolist()]
        assert model.spawn_points == tuple(open_cells[:3])
        assert not any(model.resource_kinds[c] for c in model.spawn_points)
        assert all(model.resource_kinds[c] for c in open_cells[3:])
        playing = sorted(model.agents, key=lambda a: a.seat)
        assert [a.cell.coordinate for a in playing] == list(model.spawn_points[:2])


def test_resources_start_at_full_health_and_counts_match_the_map():
    model = StagHuntModel(stag_health=4, hare_health=3, resource_density=0.5, rng=5)
    kinds, health = model.resource_kinds, model.resource_health
    assert (health[kinds == STAG] == 4).all() and (health[kinds == HARE] == 3).all()
    assert (health[kinds == 0] == 0).all()
    assert model.stags_on_map == int((kinds == STAG).sum()) > 0
    assert model.hares_on_map == int((kinds == HARE).sum()) > 0


# --- ASCII maps -------------------------------------------------------------------------

MAP = """
WWWWWW
WP1.2W
W a AW
W.2 1W
WWWWWW
"""


def test_an_ascii_map_loads_exactly():
    for p, code in ((1.0, STAG), (0.0, HARE)):
        model = StagHuntModel(ascii_map=MAP, stag_probability=p, random_agent_spawning=False,
                              num_agents=2, population="random", rng=4)
        rows = MAP.strip("\n").split("\n")
        assert (model.height, model.width) == (5, 6)
        assert np.array_equal(model.walls, np.array([[ch == "W" for ch in r] for r in rows]))
        expected = np.zeros((5, 6), dtype=int)
        expected[1, 2] = expected[3, 4] = STAG
        expected[1, 4] = expected[3, 2] = HARE
        expected[2, 2] = code
        assert np.array_equal(model.resource_kinds, expected)  # no random resources
        assert model.resource_health[2, 2] == (2 if code == STAG else 1)
        assert model.spawn_points == ((1, 1), (2, 4))
        assert [a.cell.coordinate for a in model.seats] == [(1, 1), (2, 4)]


def test_the_drawn_kind_of_a_random_resource_follows_stag_probability():
    text = "\n".join(["P" + "a" * 19] * 10)
    stags = sum(int((StagHuntModel(ascii_map=text + "\n", num_agents=1,
                                   num_agents_to_spawn=1, stag_probability=0.3,
                                   rng=seed).resource_kinds == STAG).sum())
                for seed in range(20))
    assert_rate(stags, 20 * 10 * 19, 0.3, "stags among 'a' cells")


def test_fixed_spawning_seats_the_spawned_agents_in_seat_order_on_row_major_points():
    text = "WWWWW\nWA.PW\nW...W\nWP.AW\nWWWWW\n"
    seen = set()
    for seed in range(10):
        model = StagHuntModel(ascii_map=text, num_agents=4, num_agents_to_spawn=2,
                              agent_config=[{}] * 4, random_agent_spawning=False, rng=seed)
        playing = sorted(model.agents, key=lambda a: a.seat)
        assert [a.cell.coordinate for a in playing] == [(1, 1), (1, 3)]
        seen.add(tuple(a.seat for a in playing))
    assert len(seen) > 1


def test_a_map_file_loads_like_the_same_text(tmp_path):
    path = tmp_path / "map.txt"
    path.write_text(MAP)
    kwargs = dict(random_agent_spawning=False, num_agents=2, rng=9, max_steps=20)
    text, as_str, as_path = (frames(ascii_map=m, **kwargs) for m in (MAP, str(path), path))
    for other in (as_str, as_path):
        pd.testing.assert_frame_equal(text[0], other[0])
        pd.testing.assert_frame_equal(text[1], other[1])
    model = StagHuntModel(ascii_map=path, **kwargs)
    assert model.ascii_map == str(path) and (model.height, model.width) == (5, 6)


def test_dots_and_spaces_are_empty_and_a_map_needs_no_border():
    model = StagHuntModel(ascii_map=". .\n P \n...\n", num_agents=1, num_agents_to_spawn=1,
                          vision_radius=1, random_agent_spawning=False, rng=0)
    assert not model.walls.any() and not model.resource_kinds.any()
    assert model.seats[0].cell.coordinate == (1, 1)


@pytest.mark.parametrize("text, row, col", [
    ("WWWW\nW..W\nW.#W\nWWWW", 2, 2),
    ("\nWWWWW\nWP.xW\nWWWWW\n", 1, 3),
    ("PPP\n...\n..\t\n", 2, 2),
    ("b..\n...\n", 0, 0),
    ("WWW\nWPWW\nWWW", 1, 3),     # too long
    ("WWWW\nWP.\nWWWW", 1, 3),    # too short
    ("WWWW\nWPPW\nW\nWWWW", 2, 1),
])
def test_a_malformed_map_names_the_row_and_column(text, row, col):
    with pytest.raises(ValueError, match=rf"row {row}, column {col}\b"):
        StagHuntModel(ascii_map=text)


@pytest.mark.parametrize("text", ["\n", "\n\n\n", "\r\n\r\n"])
def test_an_empty_map_is_an_error(text):
    with pytest.raises(ValueError, match="empty"):
        StagHuntModel(ascii_map=text)


@pytest.mark.parametrize("text", ["", "WWW\nWWW\n", 5, ["WPW"]])
def test_an_unusable_map_is_an_error(text):
    with pytest.raises(ValueError, match="ascii_map"):
        StagHuntModel(ascii_map=text)


@pytest.mark.parametrize("as_path", [False, True])
def test_a_missing_map_file_names_its_path(tmp_path, as_path):
    path = tmp_path / "nowhere" / "map.txt"
    with pytest.raises(ValueError, match="ascii_map") as error:
        StagHuntModel(ascii_map=path if as_path else str(path))
    assert str(path) in str(error.value)


def test_fixed_spawning_needs_a_spawn_point_per_spawned_agent():
    with pytest.raises(ValueError, match="spawn point"):
        StagHuntModel(ascii_map="WWWW\nWP.W\nWWWW\n", vision_radius=2,
                      random_agent_spawning=False, num_agents=2, num_agents_to_spawn=2)
    StagHuntModel(ascii_map="WWWW\nWP.W\nWWWW\n", vision_radius=2, num_agents=2,
                  num_agents_to_spawn=2)  # random spawning: two free cells are enough


# --- Bad parameters ---------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, names", [
    (dict(num_agents_to_spawn=4), ["num_agents_to_spawn=4", "from 1 to 3"]),
    (dict(population="cooperator:2"), ["population='cooperator:2'", "add up to 2"]),
    (dict(population="cooperator:2,random:2"), ["population=", "add up to 4"]),
    (dict(agent_config=[{}, {}]), ["agent_config=", "3"]),
    (dict(agent_config={"kind": "A"}), ["agent_config="]),
    (dict(agent_config=[{}, {"colour": "red"}, {}]), ["agent_config[1]", "colour"]),
    (dict(agent_config=[{}, {}, {"can_hunt": 1}]), ["agent_config[2]['can_hunt']=1"]),
    (dict(agent_config=[{"kind": ""}, {}, {}]), ["agent_config[0]['kind']=''"]),
    (dict(agent_config=[{"kind": 3}, {}, {}]), ["agent_config[0]['kind']=3"]),
    (dict(agent_config=[{}, {}, "A"]), ["agent_config[2]='A'"]),
    (dict(agent_config=[{}, {"exclusive_reward": "no"}, {}]),
     ["agent_config[1]['exclusive_reward']='no'"]),
    (dict(rng=-1), ["rng=-1", "None or an integer >= 0"]),
    (dict(rng=2.5), ["rng=2.5"]),
    (dict(collect_data=1), ["collect_data=1", "True or False"]),
])
def test_bad_parameters_raise_a_value_error_naming_them(kwargs, names):
    """The checks beyond one declared parameter's own kind (the contract suite tries every
    declared parameter): bounds that follow ``num_agents``, every entry of ``agent_config``
    (docs/rules/stag_hunt.md, "World"), ``rng`` and ``collect_data``."""
    with pytest.raises(ValueError) as error:
        StagHuntModel(**kwargs)
    for name in names:
        assert name in str(error.value)


@pytest.mark.parametrize("action", [9, -1, True, "ATTACK", 7.0, None])
def test_an_invalid_action_names_the_agents_seat(action):
    model = StagHuntModel(rng=2)
    (agent, *_) = [a for a in model.seats if a in model.agents]
    agent.choose_action = lambda: action
    with pytest.raises(ValueError, match=rf"agent {agent.seat} \(random\) chose action"):
        model.step()


def test_numpy_integers_are_valid_actions():
    model = world(["P.P"], orientations=(E, W), vision_radius=1)
    scripted(model, np.int64(FORWARD), np.int8(NOOP))
    model.step()
    assert model.seats[0].cell.coordinate == (0, 1)


# --- Observations do not change the game ------------------------------------------------

def test_building_observations_never_changes_the_game():
    def run(observe):
        model = StagHuntModel(population="random:1,cooperator:1,stag_hunter:1",
                              num_agents_to_spawn=3, agent_health=2, respawn_lag=1, rng=7)
        while model.running:
            if observe:
                for agent in model.agents:
                    if agent.cell is not None:
                        agent.observe().vector()
            model.step()
        return (model.datacollector.get_model_vars_dataframe(),
                model.datacollector.get_agent_vars_dataframe())

    plain, watched = run(False), run(True)
    pd.testing.assert_frame_equal(plain[0], watched[0])
    pd.testing.assert_frame_equal(plain[1], watched[1])


# --- DataCollector ----------------------------------------------------------------------

def test_datacollector_rows_and_the_meaning_of_each_column():
    """docs/rules/stag_hunt.md, "Data collected"."""
    model = played(population="cooperator:2,random:1", agent_config=HUNTERS3,
                   num_agents_to_spawn=3, agent_health=1, respawn_lag=3, punish_cooldown=0,
                   height=7, width=7, max_steps=80, rng=4)
    frame = model.datacollector.get_model_vars_dataframe()
    assert list(frame["turn"]) == list(range(81))
    for column in CUMULATIVE:
        assert (frame[column].diff().dropna() >= 0).all(), column
    defeated = frame["stags_defeated"] + frame["hares_defeated"]
    assert defeated.iloc[-1] > 0 and frame["removals"].iloc[-1] > 0
    assert frame["stag_share"][defeated == 0].isna().all()
    share = frame["stags_defeated"][defeated > 0] / defeated[defeated > 0]
    assert list(frame["stag_share"][defeated > 0]) == pytest.approx(list(share))
    assert frame.iloc[0][["stags_defeated", "hares_defeated", "attacks", "punishments",
                          "removals", "agents_removed", "mean_reward"]].tolist() == [0] * 7
    assert (frame["coordinated_stag_kills"] <= frame["stags_defeated"]).all()
    assert (frame["punish_hits"] <= 2 * frame["punishments"]).all()

    agents = model.datacollector.get_agent_vars_dataframe()
    assert len(agents) == 3 * 81
    per_turn = agents.groupby(level="Step")
    assert list(per_turn["reward"].mean()) == pytest.approx(list(frame["mean_reward"]))
    assert list(per_turn["stags"].sum()) == list(frame["stags_defeated"])
    assert list(per_turn["hares"].sum()) == list(frame["hares_defeated"])
    assert list(per_turn["removed"].sum()) == list(frame["agents_removed"])
    final = agents.xs(80, level="Step")
    assert list(final["behaviour"]) == ["cooperator", "cooperator", "random"]
    assert list(final["kind"]) == ["A", "A", "A"]


def test_mean_reward_is_over_the_playing_agents_only():
    model = played(population="hare_hunter", rng=4, max_steps=60)
    playing = list(model.agents)
    assert len(playing) == 2 and model.hares_defeated > 0
    assert model.mean_reward == pytest.approx(sum(a.reward for a in playing) / 2)
    frame = model.datacollector.get_model_vars_dataframe()
    assert frame["mean_reward"].iloc[-1] == pytest.approx(model.mean_reward)


def test_without_data_collection_the_game_is_the_same():
    quiet = played(collect_data=False, rng=5, population="cooperator")
    loud = played(rng=5, population="cooperator")
    assert quiet.datacollector is None
    assert quiet.defeats == loud.defeats and quiet.mean_reward == loud.mean_reward


# --- Observation ------------------------------------------------------------------------

OBS_MAP = ["P..",
           "..P",
           ".12"]


def obs_world(**kwargs):
    return world(OBS_MAP, agent_config=[dict(kind="B"), dict(kind="A")], **kwargs)


def test_observation_shapes_and_size():
    for kwargs in (dict(), dict(vision_radius=3, embedding_size=5,
                                agent_config=[dict(kind=k) for k in "XYZW"], num_agents=4,
                                num_agents_to_spawn=4)):
        model = StagHuntModel(rng=1, **kwargs)
        kinds = len({c["kind"] for c in model.agent_config})
        r, n = model.vision_radius, model.embedding_size
        for agent in model.agents:
            obs = agent.observe()
            assert obs.view.shape == (2 * r + 1, 2 * r + 1, 4 + kinds + 2)
            assert obs.features.shape == (4,) and obs.position.shape == (n * n,)
            assert obs.view.dtype == np.float32
            assert obs.vector().shape == (model.observation_size,)
            entities = obs.view[..., :-2]
            assert np.array_equal(entities.sum(axis=-1), np.ones((2 * r + 1,) * 2))
            assert set(np.unique(entities)) <= {0.0, 1.0}


def test_the_view_shows_walls_off_the_grid_resources_and_agents_by_kind():
    model = obs_world()
    first, second = model.seats               # kind B at (0, 0), kind A at (1, 2)
    assert model.kinds == ("A", "B") and model.channels == 8
    view = first.observe().view
    entity = view[..., :6].argmax(axis=-1)    # window (2, 2) is the agent's cell
    expected = np.full((5, 5), WALL_CH)
    expected[2:, 2:] = [[4 + 1, EMPTY_CH, EMPTY_CH],
                        [EMPTY_CH, EMPTY_CH, 4 + 0],
                        [EMPTY_CH, STAG_CH, HARE_CH]]
    assert np.array_equal(entity, expected)
    view = second.observe().view
    entity = view[..., :6].argmax(axis=-1)    # (1, 2) at the centre
    assert entity[2, 2] == 4 + 0 and entity[1, 0] == 4 + 1
    assert entity[3, 1] == STAG_CH and entity[3, 2] == HARE_CH and entity[2, 3] == WALL_CH
    assert not view[..., 6:].any()


def test_beams_show_this_turns_cells_and_clear_on_the_next_turn():
    model = obs_world(orientations=(E, W))
    first, second = model.seats
    scripted(model, ATTACK, PUNISH)
    model.step()
    assert model.attacks == 1 and model.punishments == 1 and model.punish_hits == 0
    view = first.observe().view
    attack = {(r - 2, c - 2) for r, c in np.argwhere(view[..., 6]).tolist()}
    punish = {(r - 2, c - 2) for r, c in np.argwhere(view[..., 7]).tolist()}
    assert attack == {(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)}  # 3 x 3 off the edge
    assert punish == {(1, 1), (1, 0)}
    assert model.resource_kinds[2, 1] == STAG and model.resource_health[2, 1] == 2
    scripted(model, NOOP, NOOP)
    model.step()
    assert not first.observe().view[..., 6:].any() and not second.observe().view[..., 6:].any()
    assert not model.attack_beam.any() and not model.punish_beam.any()


@pytest.mark.parametrize("height, width, n", [(7, 11, 3), (13, 13, 4), (5, 9, 1)])
def test_the_position_is_one_hot_on_the_documented_partition(height, width, n):
    model = world(["." * width] * (height - 1) + ["P" + "." * (width - 1)], vision_radius=1,
                  embedding_size=n)
    agent = model.seats[0]
    used = set()
    for r in range(height):
        for c in range(width):
            agent.cell = model.grid[(r, c)]
            position = agent.observe().position
            assert position.sum() == 1.0
            index = int(position.argmax())
            assert index == (r * n // height) * n + c * n // width
            used.add(index)
    assert used == set(range(n * n))


def test_features_are_zero_before_anything_happened():
    """Nobody has received a share of anything at the start: all four features are 0 (the
    fourth is "received a shared reward last turn", docs/rules/stag_hunt.md,
    "Observations")."""
    model = world(["P2P"], population="hare_hunter", orientations=(E, W), vision_radius=1)
    for agent in model.seats:
        assert list(agent.observe().features) == [0, 0, 0, 0]
    model = StagHuntModel(rng=0)
    for agent in model.agents:
        assert list(agent.observe().features) == [0, 0, 0, 0]


def test_features_count_what_the_agent_holds_and_the_share_of_last_turn():
    model = world(["P2P"], population="hare_hunter", orientations=(E, W), vision_radius=1)
    model.step()
    (defeat,) = model.defeats
    hunter, helper = model.seats[defeat.defeater], model.seats[1 - defeat.defeater]
    assert defeat.recipients == (hunter.seat, helper.seat) and defeat.share == 1.5
    assert list(hunter.observe().features[:3]) == [0, 1, 1]
    assert list(helper.observe().features[:3]) == [0, 0, 0]
    seen = {}

    def spy(agent):
        def choose():
            seen.setdefault(model.turn, {})[agent.seat] = float(agent.observe().features[3])
            return NOOP
        return choose

    for agent in model.seats:
        agent.choose_action = spy(agent)
    model.step()
    model.step()
    assert seen == {2: {hunter.seat: 0.0, helper.seat: 1.0}, 3: {0: 0.0, 1: 0.0}}
    assert helper.reward == 1.5 and hunter.reward == 1.5


def test_observing_an_agent_off_the_grid_is_an_error():
    model = world(["P.P"], orientations=(E, W), vision_radius=1, agent_health=1)
    first, second = model.seats
    model.take_action(first, PUNISH)
    assert second.removed and second.cell is None and first.health == 1
    assert model.agents_removed == 1 and model.removals == 1 and second in model.agents
    with pytest.raises(ValueError, match="agent 1"):
        second.observe()
    idle = next(a for a in StagHuntModel(rng=0).seats if a.cell is None)
    with pytest.raises(ValueError, match=f"agent {idle.seat}"):
        idle.observe()


# --- Invariants -------------------------------------------------------------------------

@st.composite
def games(draw):
    num_agents = draw(st.integers(1, 5))
    names = ["random", "cooperator", "random", "stag_hunter", "hare_hunter"]
    seats = draw(st.lists(st.sampled_from(names), min_size=num_agents, max_size=num_agents))
    config = [dict(kind=draw(st.sampled_from("AB")),
                   can_hunt=draw(st.sampled_from([True, False, True])),
                   exclusive_reward=draw(st.booleans())) for _ in range(num_agents)]
    return dict(
        height=draw(st.integers(5, 8)), width=draw(st.integers(5, 8)),
        wall_density=draw(st.sampled_from([0.0, 0.1, 0.3])),
        resource_density=draw(st.sampled_from([0.3, 0.15, 0.5, 0.0])),
        stag_probability=draw(st.sampled_from([0.5, 1.0, 0.2, 0.0])),
        num_agents=num_agents,
        num_agents_to_spawn=num_agents - draw(st.integers(0, num_agents - 1)),
        population=population_string(seats), agent_config=config,
        random_agent_spawning=draw(st.booleans()),
        agent_health=draw(st.integers(1, 2)), respawn_lag=draw(st.integers(0, 4)),
        attack_mode=draw(st.sampled_from(ATTACK_MODES)),
        attack_cost=draw(st.sampled_from([0.0, 0.5])),
        attack_cooldown=draw(st.integers(0, 2)), beam_cooldown=draw(st.integers(0, 2)),
        punish_cooldown=draw(st.integers(0, 2)),
        stag_health=draw(st.integers(1, 3)), hare_health=draw(st.integers(1, 2)),
        stag_regeneration_cooldown=draw(st.integers(0, 3)),
        hare_regeneration_cooldown=draw(st.integers(0, 3)),
        heal_delay=draw(st.sampled_from([1, 0, 2])),
        reward_sharing_radius=draw(st.integers(0, 3)),
        vision_radius=draw(st.integers(0, 4)), max_steps=40 - draw(st.integers(0, 39)),
        rng=draw(st.integers(0, 2**32 - 1)), collect_data=False)


def check_state(model, initial):
    walls, kinds, health = model.walls, model.resource_kinds, model.resource_health
    playing = list(model.agents)
    on_grid = [a for a in playing if a.cell is not None]
    cells = [a.cell.coordinate for a in on_grid]
    assert len(set(cells)) == len(cells), "two agents on one cell"
    assert not any(walls[c] for c in cells), "an agent on a wall"
    assert not any(kinds[c] for c in cells), "an agent on a resource"
    assert not kinds[walls].any(), "a resource on a wall"
    assert set(np.unique(kinds)) <= {0, STAG, HARE}
    occupied = np.zeros_like(walls)
    for c in cells:
        occupied[c] = True
    assert np.array_equal(model.grid.empty.data, ~occupied), "Mesa's empty layer disagrees"
    assert all(model.grid[a.cell.coordinate].agents == [a] for a in on_grid)
    # health
    assert all(0 <= a.health <= model.agent_health for a in playing)
    assert all(a.health >= 1 for a in on_grid)
    assert ((health >= 1) & (health <= model.stag_health))[kinds == STAG].all()
    assert ((health >= 1) & (health <= model.hare_health))[kinds == HARE].all()
    assert (health[kinds == 0] == 0).all() and health.min() >= 0
    # resources are conserved: on the map or waiting to regrow
    queue = model.state.queue_order[0] >= 0
    regrowing = model.state.queue_code[0][queue].tolist()
    assert model.stags_on_map == int((kinds == STAG).sum())
    assert model.hares_on_map == int((kinds == HARE).sum())
    assert model.stags_on_map + regrowing.count(STAG) == initial[STAG]
    assert model.hares_on_map + regrowing.count(HARE) == initial[HARE]
    on_map = model.stags_on_map + model.hares_on_map
    assert on_map + len(regrowing) == sum(initial.values())
    # seats that do not play
    for agent in model.seats:
        if agent not in model.agents:
            assert agent.cell is None and agent.reward == 0 and agent.pending_reward == 0
            assert agent.stags == agent.hares == 0
    # removals
    assert model.agents_removed == sum(a.removed for a in playing)
    assert all(a.removed == (a.cell is None) for a in playing)
    assert len(playing) == model.num_agents_to_spawn


def test_resources_put_on_the_map_by_hand_are_hunted_and_regrow_like_the_others():
    """A resource added to the ``resource`` layer by hand (here while others wait in the
    regrowth queue) joins the game: killed, it waits in the queue beside the others and
    regrows; none is lost or duplicated (docs/rules/stag_hunt.md, "Random numbers and
    arrays": the layers are read back before each change)."""
    model = StagHuntModel(population="hare_hunter", num_agents=3, num_agents_to_spawn=3,
                          agent_config=HUNTERS3, height=8, width=8, resource_density=0.5,
                          stag_probability=0.0, hare_regeneration_cooldown=6, max_steps=60,
                          collect_data=False, rng=2)
    total, added = int((model.resource_kinds > 0).sum()), 0
    while model.running:
        model.step()
        queued = int((model.state.queue_order[0] >= 0).sum())
        assert int((model.resource_kinds > 0).sum()) + queued == total + added, model.turn
        if model.turn % 10 == 5 and queued:
            free = [cell for cell in map(tuple, np.argwhere(~model.walls)) if model.is_free(cell)]
            for cell in free[:2]:
                model.resource_kinds[cell] = HARE
                model.resource_health[cell] = model.hare_health
                added += 1
    assert added >= 4 and model.hares_defeated > added


@given(games())
@example(dict(population="cooperator:2,random:1", agent_config=HUNTERS3, num_agents_to_spawn=3,
              agent_health=1, respawn_lag=2, punish_cooldown=0, max_steps=80, rng=3,
              collect_data=False))
@example(dict(population="stag_hunter:2,random:2", num_agents=4, num_agents_to_spawn=4,
              agent_config=[{}] * 4, heal_delay=0, random_agent_spawning=False,
              stag_regeneration_cooldown=0, hare_regeneration_cooldown=0, height=7, width=7,
              resource_density=0.5, agent_health=1, respawn_lag=0, max_steps=60, rng=8,
              collect_data=False))
@settings(max_examples=60, deadline=None)
def test_every_turn_keeps_the_world_consistent(params):
    model = StagHuntModel(**params)
    initial = {STAG: model.stags_on_map, HARE: model.hares_on_map}
    check_state(model, initial)
    attacks = punishments = 0
    while model.running:
        model.step()
        check_state(model, initial)
        attacks, punishments = attacks + model.attacks, punishments + model.punishments
    paid = 0.0
    for defeat in model.defeats:
        assert defeat.recipients[0] == defeat.defeater
        assert defeat.defeater in defeat.hitters
        assert len(set(defeat.recipients)) == len(defeat.recipients)
        reward = model.stag_reward if defeat.kind == "stag" else model.hare_reward
        assert defeat.share * len(defeat.recipients) == pytest.approx(reward)
        paid += reward
    total = sum(a.reward + a.pending_reward for a in model.agents)
    assert total == pytest.approx(paid - model.attack_cost * attacks
                                  - model.punish_cost * punishments)


# --- Behaviours: one decision on a hand-built map ---------------------------------------

def test_hare_hunter_attacks_a_hare_in_its_footprint():
    model = world(["WWWWW", "W.2.W", "W.P.W", "W...W", "WWWWW"], "hare_hunter",
                  orientations=(N,))
    assert model.seats[0].choose_action() == ATTACK


def test_hare_hunter_turns_to_face_a_hare_behind_it_and_waits_on_cooldown():
    model = world(["WWWWW", "W...W", "W.P.W", "W.2.W", "WWWWW"], "hare_hunter",
                  orientations=(N,))
    hunter = model.seats[0]
    assert hunter.choose_action() == TURN_RIGHT
    hunter.orientation = S
    assert hunter.choose_action() == ATTACK
    hunter.next_attack = 1
    assert hunter.choose_action() == NOOP


def test_hare_hunter_walks_toward_the_nearest_hare_relative_to_its_facing():
    rows = ["WWWWWWWW", "WP.....W", "W.....2W", "WWWWWWWW"]
    model = world(rows, "hare_hunter", orientations=(E,))
    assert model.seats[0].choose_action() == FORWARD
    model = world(rows, "hare_hunter", orientations=(N,))
    assert model.seats[0].choose_action() == STEP_RIGHT
    model.step()
    assert model.seats[0].cell.coordinate == (1, 2) and model.seats[0].orientation == E


def test_hare_hunter_without_a_reachable_hare_moves_at_random():
    rows = ["WWWWWW", "WP.W2W", "W..WWW", "WWWWWW"]
    seen = set()
    for seed in range(20):
        model = world(rows, "hare_hunter", orientations=(N,), rng=seed)
        seen.add(model.seats[0].choose_action())
    assert seen == set(MOVE_TURNS)


STAG_MAP = ["WWWWWWWW",
            "W..1...W",
            "W..P...W",
            "W......W",
            "W.....PW",
            "WWWWWWWW"]


def test_stag_hunter_attacks_a_stag_no_one_else_can_reach():
    model = world(STAG_MAP, "stag_hunter", orientations=(N, N))
    hunter, other = model.seats                # other: Chebyshev distance 3 from the stag
    assert model.attack_reach == 2
    assert hunter.choose_action() == ATTACK


def test_stag_hunter_leaves_a_stag_another_agent_can_reach():
    model = world(STAG_MAP, "stag_hunter", orientations=(N, N))
    hunter, other = model.seats
    other.cell = model.grid[(3, 5)]            # Chebyshev distance 2 from the stag
    assert hunter.choose_action() in MOVE_TURNS


#: STAG_MAP's stag and first hunter, the other hunter walled off in a column of its own,
#: four columns from the stag (attack reach 2, vision radius 2), wherever it moves.
WALLED_MAP = ["WWWWWWWWW",
              "W..1..W.W",
              "W..P..WPW",
              "W.....W.W",
              "WWWWWWWWW"]


@pytest.mark.parametrize("rng", [0, 1, 2])
def test_stag_hunters_alone_hit_but_the_stag_heals(rng):
    model = world(WALLED_MAP, "stag_hunter", orientations=(N, N), rng=rng)
    model.step()
    assert model.resource_health[1, 3] == 1 and model.stags_defeated == 0
    model.step()                               # healed at the start; hunter on cooldown
    assert model.resource_health[1, 3] == 2 and model.attacks == 0
    model.step()
    assert model.resource_health[1, 3] == 1 and model.stags_defeated == 0


def test_cooperator_waits_at_a_stag_alone():
    model = world(STAG_MAP, "cooperator", orientations=(N, S))
    assert model.seats[0].choose_action() == NOOP
    lone = world(["WWWWW", "W.1.W", "W.P.W", "WWWWW"], "cooperator", orientations=(N,))
    assert lone.seats[0].choose_action() == NOOP


def test_cooperator_attacks_a_wounded_stag_when_off_cooldown():
    model = world(STAG_MAP, "cooperator", orientations=(N, S))
    cooperator = model.seats[0]
    model.resource_health[1, 3] = 1
    assert cooperator.choose_action() == ATTACK
    cooperator.next_attack = 1
    assert cooperator.choose_action() == NOOP


PAIR_MAP = ["WWWWWWW",
            "W.....W",
            "W..1..W",
            "W.P.P.W",
            "W.....W",
            "WWWWWWW"]


def test_cooperator_opens_a_strike_only_while_a_partner_can_still_join():
    model = world(PAIR_MAP, "cooperator", orientations=(N, N))
    first, second = model.seats
    assert first.choose_action() == ATTACK
    second.acted_turn = model.turn
    assert first.choose_action() == NOOP
    second.acted_turn, second.next_attack = -1, 1
    assert first.choose_action() == NOOP


def test_two_cooperators_kill_a_stag_together_and_share_it():
    model = world(PAIR_MAP, "cooperator", orientations=(N, N))
    model.step()
    assert model.stags_defeated == 1 and model.coordinated_stag_kills == 1
    (defeat,) = model.defeats
    assert defeat.hitters == (0, 1) and defeat.share == 50.0
    killer, helper = model.seats[defeat.defeater], model.seats[1 - defeat.defeater]
    assert (killer.reward, helper.reward, helper.pending_reward) == (50.0, 0.0, 50.0)
    assert killer.stags == 1 and helper.stags == 0
    model.step()
    assert helper.reward == 50.0 and helper.pending_reward == 0.0


# --- Behaviours: whole episodes ---------------------------------------------------------

def totals(column, seeds=range(30), **kwargs):
    return [getattr(played(collect_data=False, rng=seed, **kwargs), column) for seed in seeds]


def test_cooperators_kill_stags_together():
    kills = totals("coordinated_stag_kills", population="cooperator", agent_config=HUNTERS3)
    assert np.mean(kills) > 1
    assert sum(totals("coordinated_stag_kills", population="cooperator")) > 0


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(agent_config=HUNTERS3, num_agents_to_spawn=3),
    dict(agent_config=HUNTERS3, num_agents_to_spawn=3, attack_mode="beam", beam_cooldown=0),
    dict(agent_config=HUNTERS3, num_agents_to_spawn=3, attack_mode="single",
         attack_cooldown=0, resource_density=0.4),
])
def test_stag_hunters_never_kill_a_stag_while_stags_heal_each_turn(kwargs):
    assert sum(totals("stags_defeated", population="stag_hunter", heal_delay=1,
                      **kwargs)) == 0


def test_a_lone_stag_hunter_kills_stags_that_never_heal():
    kills = totals("stags_defeated", seeds=range(5), population="stag_hunter", heal_delay=0,
                   num_agents=1, num_agents_to_spawn=1)
    assert min(kills) > 0


def test_hare_hunters_kill_more_hares_than_random_agents():
    hunters = sum(totals("hares_defeated", population="hare_hunter"))
    randoms = sum(totals("hares_defeated", population="random"))
    assert hunters > 2 * randoms > 0
