"""The vectorised environment (dilemmas/envs/vector.py): each row means what the PettingZoo
environment means for its one episode (docs/rules/<game>.md, "Learning agents"), and the
batch's episode ends follow the documented autoreset rule."""

import numpy as np
import pytest

from dilemmas import GAMES, parallel_env
from dilemmas.envs.vector import vector_env
from dilemmas.models.batch import BatchEngine
from dilemmas.models.bucket_brigade.arrays import rules_end
from dilemmas.models.bucket_brigade.rules import REST, WORK, Night, Observation
from dilemmas.models.stag_hunt import arrays as stag_hunt_arrays
from dilemmas.models.state_punishment.arrays import State

CONFIGS = [
    ("bucket_brigade", {}),
    ("bucket_brigade", {"population": "policy:2,always_work:2"}),
    ("bucket_brigade", {"scenario": "hard", "rules": "reference", "max_steps": 14}),
    ("bucket_brigade", {"num_houses": 3, "num_agents": 5, "population": "policy:3,random:2"}),
    ("firefighting_graph", {"max_steps": 12}),
    ("firefighting_graph", {"layout": "grid", "n_width": 3, "n_height": 2, "max_steps": 8}),
    ("firefighting_graph", {"population": "policy:5,belief_tracker:5", "preset": "oliehoek",
                            "max_steps": 30}),
    ("state_punishment", {"max_steps": 10}),
    ("state_punishment", {"population": "policy:2,civic_voter:1", "action_mode": "composite",
                          "composite_views": True, "num_worlds": 2, "max_steps": 8}),
    ("stag_hunt", {"num_agents_to_spawn": 3, "max_steps": 12, "punish_cooldown": 0,
                   "agent_health": 1, "respawn_lag": 2, "height": 8, "width": 8,
                   "resource_density": 0.4}),
    ("stag_hunt", {"population": "policy:2,cooperator:1", "num_agents_to_spawn": 3,
                   "attack_mode": "beam", "attack_cooldown": 2, "max_steps": 10}),
]
IDS = ["bb", "bb-mixed", "bb-reference", "bb-3-houses", "fg", "fg-grid", "fg-mixed", "sp",
       "sp-mixed", "sh", "sh-mixed"]


def random_actions(observations, rng) -> dict:
    """A random allowed action per row, for every agent."""
    return {name: np.argmax(rng.random(o["action_mask"].shape) * o["action_mask"], axis=1)
            for name, o in observations.items()}


def view(engine) -> dict:
    """The engine's per-episode arrays, its rows and its round, as they are now."""
    return {**{name: getattr(engine, name).copy() for name in engine.state},
            "rewards": engine.rewards.copy(), "ids": engine.ids.copy(), "t": engine.t}


def finished(env, dropped):
    """The final arrays of the episodes that ended in the step just played, and the mask of
    those episodes among their rows: the engine drops them unless every episode ended."""
    if env.phase is None:
        return [(view(env.engine), np.ones(env.engine.size, dtype=bool))] if not dropped else []
    return [(arrays, ~np.isin(arrays["ids"], env.engine.ids)) for arrays in dropped]


@pytest.fixture
def dropped(monkeypatch):
    """The engine's arrays just before it drops the episodes that ended (their last state)."""
    seen = []
    keep = BatchEngine.keep

    def spy(engine, playing):
        seen.append(view(engine))
        keep(engine, playing)

    monkeypatch.setattr(BatchEngine, "keep", spy)
    return seen


class Shadow:
    """A Mesa model of the env's game, put in the state of one row to observe it with the
    game's PettingZoo interface. For Bucket Brigade it follows the signals itself: last
    night's are those the previous signal step revealed."""

    def __init__(self, env):
        self.env = env
        self.model = env.game.model(**env.parameters, collect_data=False, rng=0)
        self.agents = [self.model.seats[seat] for seat in env.seats]
        k = len(self.model.seats)
        self.tonight = np.zeros((env.num_envs, k), dtype=bool)  # revealed at the signal step
        self.last = np.zeros((env.num_envs, k), dtype=bool)     # the night before

    def before_step(self):
        if self.env.phase == "signal":
            self.last = self.tonight.copy()

    def after_step(self, phase, arrays):
        if phase == "signal":
            self.tonight[arrays["ids"]] = arrays["signals"]

    def observe(self, arrays, row, phase) -> list[dict]:
        """The interface's observations of the policy seats in ``row``'s state."""
        i = int(np.searchsorted(arrays["ids"], row))
        model, t = self.model, arrays["t"]
        if self.env.game.name == "state_punishment":
            model.state = State(*(arrays[name][i:i + 1] for name in State._fields))
            model._show()
        elif self.env.game.name == "stag_hunt":
            fields = stag_hunt_arrays.State._fields
            model.state = stag_hunt_arrays.State(*(arrays[name][i:i + 1] for name in fields))
            model.turn = t
            model._show()
        elif self.env.game.name == "firefighting_graph":
            model.observations[:] = arrays["observations"][i]
            model.visited[:] = arrays["visited"][i]
            model.levels[:] = arrays["levels"][i]
        else:
            def mode(work):
                return WORK if work else REST

            houses = tuple(map(int, arrays["houses"][i]))
            locations = tuple(map(int, arrays["locations"][i]))
            actions = tuple((house, mode(w)) for house, w in zip(locations, arrays["last_work"][i]))
            if phase is None:  # after the last night: the town as it ended
                model.night, model.houses = t, houses
                model.history = [Night(t, houses, tuple(map(mode, self.tonight[row])),
                                       locations, actions, ())]
            else:
                last = self.tonight[row] if phase == "signal" else self.last[row]
                model.observation = Observation(
                    t, houses, locations, None if t == 1 else actions,
                    None if t == 1 else tuple(map(mode, last)),
                    tuple(map(mode, self.tonight[row])) if phase == "act" else None)
        return model.game.interface.observe_all(model, self.agents, phase)


def assert_rows_observed(env, shadow, observations, arrays, rows, phase):
    # State Punishment's last feature is a uniform number: the engine draws its own
    compared = slice(None, -1) if env.game.name == "state_punishment" else slice(None)
    for row in rows:
        expected = shadow.observe(arrays, row, phase)
        for name, seen in zip(env.agents, expected):
            vector = observations[name]["observation"][row]
            assert vector.dtype == np.float32 and vector.shape == seen["observation"].shape
            assert np.array_equal(vector[compared], seen["observation"][compared]), \
                (name, row, phase)
            assert np.array_equal(observations[name]["action_mask"][row], seen["action_mask"])
            assert env.observation_space(name).contains(
                {"observation": vector, "action_mask": observations[name]["action_mask"][row]})


@pytest.mark.parametrize("game, parameters", CONFIGS, ids=IDS)
def test_every_row_is_observed_as_the_interface_observes_a_model_in_its_state(
        game, parameters, dropped):
    env = vector_env(game, 12, seed=5, **parameters)
    single = parallel_env(game, **parameters)
    for name in env.agents:
        assert env.observation_space(name) == single.observation_space(name)
        assert env.action_space(name) == single.action_space(name)
    assert env.possible_agents == env.agents == single.possible_agents
    shadow, rng = Shadow(env), np.random.default_rng(0)
    observations, _ = env.reset()
    assert_rows_observed(env, shadow, observations, view(env.engine), range(12), env.phase)
    ended = np.zeros(12, dtype=bool)
    for _ in range(80):
        phase, playing = env.phase, env.playing
        shadow.before_step()
        dropped.clear()
        actions = random_actions(observations, rng)
        observations, rewards, terminations, truncations, infos = env.step(actions)
        assert np.array_equal(infos["active"], playing)
        now = terminations[env.agents[0]] | truncations[env.agents[0]]
        last = dropped[-1] if dropped else view(env.engine)  # the episodes' final arrays
        shadow.after_step(phase, last)
        played = view(env.engine) if env.phase is not None else last
        chosen = np.stack([actions[name] for name in env.agents], axis=1)[last["ids"]]
        if game == "bucket_brigade":  # the actions' decoding: a // 2, WORK if a even
            if phase == "signal":
                assert np.array_equal(last["signals"][:, env.seats], chosen % 2 == 0)
            else:
                assert np.array_equal(last["locations"][:, env.seats], chosen // 2)
                assert np.array_equal(last["working"][:, env.seats], chosen % 2 == 0)
        elif game == "firefighting_graph":
            guarded = env.engine.model.guarded[env.seats]  # the action's guarded house
            assert np.array_equal(last["visited"][:, env.seats],
                                  guarded[np.arange(len(env.seats)), chosen])
        assert_rows_observed(env, shadow, observations, last, np.flatnonzero(now & ~ended), None)
        if env.phase is not None:
            assert_rows_observed(env, shadow, observations, played, played["ids"], env.phase)
        ended |= now
        if env.phase is None:
            break
    assert ended.all(), "every episode ends within the steps played"


@pytest.mark.parametrize("game, parameters", CONFIGS, ids=IDS)
def test_rewards_add_up_to_the_engines_cumulative_rewards(game, parameters, dropped):
    env = vector_env(game, 20, seed=2, **parameters)
    observations, _ = env.reset()
    total, rng, final = np.zeros((20, len(env.seats))), np.random.default_rng(1), {}
    while env.phase is not None:
        phase = env.phase
        dropped.clear()
        observations, rewards, *_ = env.step(random_actions(observations, rng))
        step = np.stack([rewards[name] for name in env.agents], axis=1)
        if phase == "signal":
            assert not step.any(), "a signal step pays nothing"
        total += step
        for arrays, ending in finished(env, dropped):
            for i in np.flatnonzero(ending):
                assert int(arrays["ids"][i]) not in final
                final[int(arrays["ids"][i])] = arrays["rewards"][i, env.seats]
    assert sorted(final) == list(range(20))
    np.testing.assert_allclose(total, np.array([final[row] for row in range(20)]),
                               rtol=1e-12, atol=1e-9)


def play_until_every_row_ends(env, rng, observations):
    """Steps with random legal actions until the batch has ended; the flags of the last."""
    for _ in range(1000):
        observations, rewards, terminations, truncations, infos = env.step(
            random_actions(observations, rng))
        if env.phase is None:
            return observations, terminations, truncations
    raise AssertionError("the batch did not end")


@pytest.mark.parametrize("game, parameters, ending", [
    ("bucket_brigade", {"max_steps": 3, "N_min": 20}, "truncated"),
    ("bucket_brigade", {"rho_ignite": 0.0, "p_spark": 0.0, "N_min": 0}, "terminated"),
    ("firefighting_graph", {"max_steps": 2}, "truncated"),
    ("firefighting_graph", {"initial_levels": [0] * 11}, "terminated"),
])
def test_terminated_when_the_rules_end_truncated_when_max_steps_does(game, parameters, ending):
    env = vector_env(game, 10, seed=0, **parameters)
    observations, _ = env.reset()
    _, terminations, truncations = play_until_every_row_ends(
        env, np.random.default_rng(0), observations)
    for name in env.agents:
        assert (terminations[name] if ending == "terminated" else truncations[name]).all()
        assert not (truncations[name] if ending == "terminated" else terminations[name]).any()


def test_a_row_is_terminated_exactly_when_the_rules_end_its_episode(dropped):
    env = vector_env("bucket_brigade", 50, seed=4, N_min=1, max_steps=3)
    observations, _ = env.reset()
    rng, seen = np.random.default_rng(0), np.zeros(50, dtype=bool)
    while env.phase is not None:
        dropped.clear()
        observations, _, terminations, truncations, _ = env.step(
            random_actions(observations, rng))
        flags = terminations["agent_0"], truncations["agent_0"]
        assert not (flags[0] & flags[1]).any()
        for arrays, ending in finished(env, dropped):
            by_rules = rules_end(arrays["houses"], arrays["t"], 1, True)
            rows = arrays["ids"][ending]
            assert not seen[rows].any()
            assert np.array_equal(flags[0][rows], by_rules[ending])
            assert np.array_equal(flags[1][rows], ~by_rules[ending])
            seen[rows] = True
        assert np.array_equal(flags[0] | flags[1], seen)
    assert seen.all() and terminations["agent_0"].any() and truncations["agent_0"].any()


def test_ended_rows_sit_out_until_every_row_has_ended_then_a_fresh_batch_starts():
    env = vector_env("bucket_brigade", 16, seed=3)
    observations, infos = env.reset()
    assert not infos["active"].any() and env.playing.all() and infos["phase"] == "signal"
    rng, ended, final = np.random.default_rng(2), np.zeros(16, dtype=bool), {}
    while env.phase is not None:
        actions = random_actions(observations, rng)
        for name in env.agents:  # a row sitting out takes any action, even a wrong one
            actions[name] = np.where(ended, -7, actions[name])
        observations, rewards, terminations, truncations, infos = env.step(actions)
        assert np.array_equal(infos["active"], ~ended)
        for name in env.agents:
            flags = terminations[name] | truncations[name]
            assert flags[ended].all() and not rewards[name][ended].any()
            for row in np.flatnonzero(ended):
                assert np.array_equal(observations[name]["observation"][row], final[name, row])
            for row in np.flatnonzero(flags & ~ended):
                final[name, row] = observations[name]["observation"][row].copy()
        ended |= terminations["agent_0"] | truncations["agent_0"]
        assert np.array_equal(env.playing, ~ended)
    assert ended.all() and infos["phase"] is None and not env.playing.any()
    observations, rewards, terminations, truncations, infos = env.step(
        {name: np.full(16, -1) for name in env.agents})  # the fresh batch: no action played
    assert infos["phase"] == "signal" and not infos["active"].any() and env.playing.all()
    for name in env.agents:
        assert not rewards[name].any()
        assert not (terminations[name] | truncations[name]).any()
        night = observations[name]["observation"][:, -1]
        assert np.all(night == np.float32(1 / 200)), "the fresh batch opens on night 1"
        assert np.array_equal(observations[name]["action_mask"][:, :3], [[1, 1, 0]] * 16)
    _, _, _, _, infos = env.step(random_actions(observations, rng))
    assert infos["active"].all()


def test_reset_starts_a_fresh_batch_in_the_middle_of_one():
    env = vector_env("firefighting_graph", 8, seed=1)
    observations, _ = env.reset()
    env.step(random_actions(observations, np.random.default_rng(0)))
    observations, infos = env.reset()
    assert env.engine.t == 1 and env.playing.all() and not infos["active"].any()
    assert not observations["agent_0"]["observation"][:, 3:5].any(), "no last action yet"


def record(env, steps, seed=None, actions_seed=0) -> list:
    observations, _ = env.reset(seed=seed)
    rng, seen = np.random.default_rng(actions_seed), []
    for _ in range(steps):
        seen.append({name: o["observation"].copy() for name, o in observations.items()})
        observations, *_ = env.step(random_actions(observations, rng))
    return seen


def same_records(a, b) -> bool:
    return all(np.array_equal(x[name], y[name]) for x, y in zip(a, b) for name in x)


@pytest.mark.parametrize("game, parameters", [CONFIGS[0], CONFIGS[4]], ids=["bb", "fg"])
def test_the_same_seed_replays_the_same_arrays_and_another_does_not(game, parameters):
    steps = 60  # through fresh batches: episodes of at most 12 nights or steps
    parameters = {**parameters, "max_steps": 12}
    first = record(vector_env(game, 30, seed=7, **parameters), steps)
    assert same_records(first, record(vector_env(game, 30, seed=7, **parameters), steps))
    assert not same_records(first, record(vector_env(game, 30, seed=8, **parameters), steps))
    env = vector_env(game, 30, **parameters)  # reset(seed=...) reseeds the generator
    assert same_records(first, record(env, steps, seed=7))
    assert same_records(first, record(env, steps, seed=7))


@pytest.mark.parametrize("game, population, agents", [
    ("bucket_brigade", "policy:2,always_work:2", ["agent_0", "agent_1"]),
    ("firefighting_graph", "policy:5,belief_tracker:5", [f"agent_{i}" for i in range(5)]),
])
def test_only_the_policy_seats_of_a_mixed_population_are_agents(game, population, agents):
    env = vector_env(game, 10, seed=0, population=population)
    assert env.possible_agents == agents
    observations, _ = env.reset()
    assert sorted(observations) == agents
    observations, *_ = env.step(random_actions(observations, np.random.default_rng(0)))
    if game == "bucket_brigade":  # the scripted seats played inside the engine
        fire = (env.engine.houses == 1).any(axis=1)
        assert np.array_equal(env.engine.signals[:, 2:], np.repeat(fire[:, None], 2, axis=1))


def test_a_stag_hunt_seat_not_spawned_in_a_row_sits_the_episode_out():
    """docs/rules/stag_hunt.md, "Learning agents" (models/stag_hunt/env.py): the agents are
    every policy seat; in a row whose episode did not spawn a seat, that agent observes
    zeros, may only NOOP and is paid nothing."""
    env = vector_env("stag_hunt", 16, seed=1, max_steps=6)
    observations, _ = env.reset()
    playing = env.engine.playing.copy()
    assert (playing.sum(axis=1) == 2).all() and not playing.all(axis=0).any()
    rng, paid = np.random.default_rng(0), np.zeros(playing.shape)
    while env.phase is not None:
        for seat, name in enumerate(env.agents):
            out = ~playing[:, seat]
            assert not observations[name]["observation"][out].any()
            noop_only = np.zeros(9, dtype=np.int8)
            noop_only[0] = 1
            assert (observations[name]["action_mask"][out] == noop_only).all()
        observations, rewards, *_ = env.step(random_actions(observations, rng))
        paid += np.stack([rewards[name] for name in env.agents], axis=1)
    assert not paid[~playing].any() and paid[playing].any()


def test_an_action_the_mask_refuses_is_an_error_naming_agent_and_row():
    env = vector_env("bucket_brigade", 5, seed=0)
    observations, _ = env.reset()
    good = {name: np.zeros(5, dtype=np.int64) for name in env.agents}
    with pytest.raises(ValueError, match=r"agent_1's action 2 in row 3 is invalid.*\[0, 1\]"):
        env.step({**good, "agent_1": np.array([0, 1, 0, 2, 0])})
    with pytest.raises(ValueError, match="agent_0's action 20 in row 0 is invalid"):
        env.step({**good, "agent_0": np.full(5, 20)})
    with pytest.raises(ValueError, match="agent_2's action -1 in row 4"):
        env.step({**good, "agent_2": np.array([0, 0, 0, 0, -1])})
    with pytest.raises(ValueError, match=r"agent_0's actions must be an integer array of "
                                         r"shape \(5,\)"):
        env.step({**good, "agent_0": np.zeros(4, dtype=np.int64)})
    with pytest.raises(ValueError, match="agent_0's actions must be an integer array"):
        env.step({**good, "agent_0": np.zeros(5, dtype=bool)})
    with pytest.raises(ValueError, match=r"missing: \['agent_3'\]"):
        env.step({name: good[name] for name in env.agents[:3]})
    assert env.engine.t == 1 and env.phase == "signal", "a refused step plays nothing"
    env.step(good)
    assert env.phase == "act"


def test_games_and_populations_it_cannot_play_are_refused(monkeypatch):
    monkeypatch.setitem(GAMES["stag_hunt"].__dict__, "batch", None)
    with pytest.raises(ValueError, match="has no batch engine"):
        vector_env("stag_hunt", 4)
    with pytest.raises(ValueError, match="is not a registered game"):
        vector_env("chess", 4)
    with pytest.raises(ValueError, match=r"\['q_learning'\] cannot decide on arrays"):
        vector_env("bucket_brigade", 4, population="policy:2,q_learning:2")
    with pytest.raises(ValueError, match="seats no 'policy' behaviour"):
        vector_env("firefighting_graph", 4, population="random")
    with pytest.raises(ValueError, match="num_envs=0 is invalid"):
        vector_env("bucket_brigade", 0)
    with pytest.raises(ValueError, match="rng= is the environment's own"):
        vector_env("bucket_brigade", 2, rng=1)
    with pytest.raises(RuntimeError, match="reset"):
        vector_env("bucket_brigade", 2).step({})
