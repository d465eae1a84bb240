"""The vector environment (dilemmas/envs/vector.py): a Gymnasium ``VectorEnv`` whose rows are
the agents of many episodes; each row means what the PettingZoo environment means for its
agent (docs/rules/<game>.md, "Learning agents"), and an episode that ends is replaced at
once (``AutoresetMode.SAME_STEP``)."""

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

from array_env_support import CONFIGS, IDS, Shadow, assert_observed, episode, random_allowed
from dilemmas import GAMES, parallel_env, vector_env
from dilemmas.models.bucket_brigade.arrays import rules_end

EPISODES = 5
#: The configurations checked here; tests/test_functional_env.py checks the others.
VECTOR = (0, 3, 4, 8, 10)


def rows(env, values):
    """``(num_envs, ...)`` -> ``(episodes, agents, ...)``."""
    return np.asarray(values).reshape(env.episodes, env.num_agents, *np.shape(values)[1:])


@pytest.mark.parametrize("game, parameters", [CONFIGS[i] for i in VECTOR],
                         ids=[IDS[i] for i in VECTOR])
def test_every_row_is_observed_as_the_interface_observes_its_episodes_state(game, parameters):
    env = vector_env(game, EPISODES, seed=5, **parameters)
    assert isinstance(env, VectorEnv) and env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    single = parallel_env(game, **parameters)
    assert env.single_observation_space == single.observation_space(single.possible_agents[0])
    assert env.observation_space.shape == (env.num_envs, *env.single_observation_space.shape)
    assert env.single_action_space == single.action_space(single.possible_agents[0])
    assert env.agents == single.possible_agents and env.num_envs == EPISODES * len(env.agents)
    shadow, rng = Shadow(env.game, parameters, env.functional.seats), np.random.default_rng(0)
    observations, infos = env.reset()
    signals = np.zeros((EPISODES, len(shadow.model.seats)), dtype=bool)
    last, paid, ends = signals.copy(), np.zeros((EPISODES, env.num_agents)), 0
    rewards_of = "rewards" if game in ("bucket_brigade", "firefighting_graph") else "reward"
    for step in range(40):
        assert env.observation_space.contains(observations)
        state, phase = env.state, infos["phase"][0]
        assert (infos["phase"] == phase).all() and infos["phase"].shape == (env.num_envs,)
        for e in range(EPISODES):
            arrays, t = episode(state.arrays, e), int(state.t[e])
            expected = shadow.observe(arrays, t, phase, signals[e], last[e])
            assert_observed(env.game, expected, rows(env, observations)[e],
                            rows(env, infos["action_mask"])[e])
        actions = random_allowed(infos["action_mask"], rng)
        if phase == "signal":
            last = np.asarray(state.arrays["signals"])[:, 0].copy()
        observations, rewards, terminated, truncated, infos = env.step(actions)
        chosen, after = rows(env, actions), env.state
        if game == "bucket_brigade" and phase == "signal":
            signals = np.asarray(after.arrays["signals"])[:, 0].copy()
            assert np.array_equal(signals[:, env.functional.seats], chosen % 2 == 0)
        if game == "firefighting_graph":
            visited = np.asarray(after.arrays["visited"])[:, 0, env.functional.seats]
            guarded = shadow.model.guarded[env.functional.seats]
            ended = rows(env, terminated | truncated)[:, 0]
            assert np.array_equal(visited[~ended],
                                  guarded[np.arange(env.num_agents), chosen][~ended])
        ended = rows(env, terminated | truncated)[:, 0]
        assert (rows(env, terminated | truncated) == ended[:, None]).all()
        paid += rows(env, rewards)
        cumulative = np.asarray(after.arrays[rewards_of])[:, 0][:, env.functional.seats]
        np.testing.assert_allclose(paid[~ended], cumulative[~ended], rtol=1e-5, atol=1e-4)
        if ended.any():
            assert np.array_equal(infos["_final_obs"], terminated | truncated)
            final = infos["final_obs"][infos["_final_obs"]]
            assert env.single_observation_space.contains(final[0])
            assert (np.asarray(after.t)[ended] == 1).all(), "a fresh episode in its rows"
            assert not np.asarray(after.arrays[rewards_of])[ended].any()
            paid[ended], signals[ended], last[ended] = 0, False, False
            ends += ended.sum()
        else:
            assert "final_obs" not in infos
    assert ends >= EPISODES, "episodes end and fresh ones take their rows"


@pytest.mark.parametrize("game, parameters, ending", [
    ("bucket_brigade", {"max_steps": 3, "N_min": 20}, "truncated"),
    ("bucket_brigade", {"rho_ignite": 0.0, "p_spark": 0.0, "N_min": 0}, "terminated"),
    ("firefighting_graph", {"max_steps": 2}, "truncated"),
    ("firefighting_graph", {"initial_levels": [0] * 11}, "terminated"),
])
def test_terminated_when_the_rules_end_truncated_when_max_steps_does(game, parameters, ending):
    env = vector_env(game, 10, seed=0, **parameters)
    observations, infos = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        observations, _, terminated, truncated, infos = env.step(
            random_allowed(infos["action_mask"], rng))
        if (terminated | truncated).any():
            break
    assert (terminated if ending == "terminated" else truncated).all()
    assert not (truncated if ending == "terminated" else terminated).any()


def test_a_row_is_terminated_exactly_when_the_rules_end_its_episode():
    env = vector_env("bucket_brigade", 50, seed=4, N_min=1, max_steps=3)
    observations, infos = env.reset()
    rng, terminations, truncations = np.random.default_rng(0), 0, 0
    for _ in range(12):
        before = env.state
        phase = infos["phase"][0]
        observations, _, terminated, truncated, infos = env.step(
            random_allowed(infos["action_mask"], rng))
        if phase == "signal":
            assert not (terminated | truncated).any()
            continue
        ended = rows(env, terminated | truncated)[:, 0]
        t = np.asarray(before.t)
        # the night's houses: those the ended episode closed with (the state holds a fresh one)
        houses = np.argmax(rows(env, infos["final_obs"])[:, 0, :30].reshape(
            50, 10, 3), axis=2) if ended.any() else None
        if ended.any():
            by_rules = rules_end(houses, t, 1, True)
            assert np.array_equal(rows(env, terminated)[:, 0][ended], by_rules[ended])
            assert (by_rules[ended] | (t[ended] >= 3)).all()
            terminations += rows(env, terminated)[:, 0].sum()
            truncations += rows(env, truncated)[:, 0].sum()
    assert terminations and truncations


def test_no_row_sits_idle_every_step_plays_every_episode():
    env = vector_env("firefighting_graph", 64, seed=3, max_steps=5)
    observations, infos = env.reset()
    rng = np.random.default_rng(2)
    for _ in range(23):
        t = np.asarray(env.state.t)
        observations, _, terminated, truncated, infos = env.step(
            random_allowed(infos["action_mask"], rng))
        ended = rows(env, terminated | truncated)[:, 0]
        after = np.asarray(env.state.t)
        assert (after[~ended] == t[~ended] + 1).all() and (after[ended] == 1).all()


def record(env, steps, seed=None) -> list:
    observations, infos = env.reset(seed=seed)
    rng, seen = np.random.default_rng(0), []
    for _ in range(steps):
        seen.append(observations.copy())
        observations, _, _, _, infos = env.step(random_allowed(infos["action_mask"], rng))
    return seen


@pytest.mark.parametrize("game", ["bucket_brigade", "firefighting_graph"])
def test_the_same_seed_replays_the_same_arrays_and_another_does_not(game):
    first = record(vector_env(game, 30, seed=7, max_steps=12), 30)
    assert all(map(np.array_equal, first, record(vector_env(game, 30, seed=7, max_steps=12), 30)))
    assert not all(map(np.array_equal, first,
                       record(vector_env(game, 30, seed=8, max_steps=12), 30)))
    env = vector_env(game, 30, max_steps=12)  # reset(seed=...) replaces the key
    assert all(map(np.array_equal, first, record(env, 30, seed=7)))
    assert all(map(np.array_equal, first, record(env, 30, seed=7)))


@pytest.mark.parametrize("game, population, agents", [
    ("bucket_brigade", "policy:2,always_work:2", ["agent_0", "agent_1"]),
    ("firefighting_graph", "policy:5,belief_tracker:5", [f"agent_{i}" for i in range(5)]),
])
def test_only_the_policy_seats_of_a_mixed_population_are_agents(game, population, agents):
    env = vector_env(game, 10, seed=0, population=population)
    assert env.possible_agents == agents and env.num_envs == 10 * len(agents)
    observations, infos = env.reset()
    env.step(random_allowed(infos["action_mask"], np.random.default_rng(0)))
    if game == "bucket_brigade":  # the scripted seats signalled inside the engine
        houses = np.asarray(env.state.arrays["houses"])[:, 0]
        signals = np.asarray(env.state.arrays["signals"])[:, 0]
        fire = (houses == 1).any(axis=1)
        assert np.array_equal(signals[:, 2:], np.repeat(fire[:, None], 2, axis=1))


def test_a_stag_hunt_seat_not_spawned_in_a_row_sits_the_episode_out():
    """docs/rules/stag_hunt.md, "Learning agents": in an episode that did not spawn a seat,
    that agent observes zeros, may only NOOP and is paid nothing."""
    env = vector_env("stag_hunt", 16, seed=1, max_steps=6)
    observations, infos = env.reset()
    playing = np.asarray(env.state.arrays["playing"])[:, 0]
    assert (playing.sum(axis=1) == 2).all() and not playing.all(axis=0).any()
    rng, paid = np.random.default_rng(0), np.zeros(playing.shape)
    noop_only = np.eye(9, dtype=np.int8)[0]
    for _ in range(5):
        out = ~playing
        assert not rows(env, observations)[out].any()
        assert (rows(env, infos["action_mask"])[out] == noop_only).all()
        observations, rewards, _, _, infos = env.step(random_allowed(infos["action_mask"], rng))
        paid += rows(env, rewards)
    assert not paid[~playing].any() and paid[playing].any()


def test_a_forbidden_action_is_played_as_everywhere_and_out_of_range_is_an_error():
    """docs/rules/README.md, "Learning agents": Bucket Brigade's signal phase reads only the
    parity of an action, in every interface."""
    env = vector_env("bucket_brigade", 5, seed=0)
    observations, infos = env.reset()
    state = env.state
    env.step(np.full(20, 2))  # masked in the signal phase: signals WORK
    assert np.asarray(env.state.arrays["signals"]).all()
    with pytest.raises(ValueError, match=r"action 20 in row 3 \(episode 0, agent_3\) is "
                                         r"invalid: must be in 0 .. 19"):
        env.step(np.array([0, 0, 0, 20] + [0] * 16))
    with pytest.raises(ValueError, match=r"action -1 in row 19 \(episode 4, agent_3\)"):
        env.step(np.array([0] * 19 + [-1]))
    with pytest.raises(ValueError, match=r"must be an integer array of shape \(20,\)"):
        env.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match="must be an integer array"):
        env.step(np.zeros(20, dtype=bool))
    assert env.state.phase[0] == 1, "a refused step plays nothing"
    assert state is not env.state


def test_gymnasiums_episode_statistics_count_every_agents_episodes():
    """Gymnasium's ``RecordEpisodeStatistics`` reads the autoreset mode; its observation
    wrappers take only NEXT_STEP, which would leave a row idle a step per episode."""
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        vector_env("firefighting_graph", 8, seed=0, max_steps=4))
    observations, infos = env.reset(seed=1)
    episodes, paid = 0, np.zeros(80)
    for _ in range(8):
        observations, rewards, terminated, truncated, infos = env.step(
            env.action_space.sample())
        paid += rewards
        if "_episode" in infos:
            ended = infos["_episode"]
            episodes += int(ended.sum())
            assert (infos["episode"]["l"][ended] == 4).all()
            np.testing.assert_allclose(infos["episode"]["r"][ended], paid[ended], rtol=1e-6)
            paid[ended] = 0
    assert episodes == 80 * 2, "every agent of every episode counted twice (4 steps each)"
    with pytest.raises(ValueError, match="NEXT_STEP"):
        gymnasium.wrappers.vector.FlattenObservation(vector_env("firefighting_graph", 2))


def test_games_and_populations_it_cannot_play_are_refused(monkeypatch):
    with pytest.raises(ValueError, match="is not a registered game"):
        vector_env("chess", 4)
    with pytest.raises(ValueError, match=r"\['q_learning'\] cannot decide on arrays"):
        vector_env("bucket_brigade", 4, population="policy:2,q_learning:2")
    with pytest.raises(ValueError, match="seats no 'policy' behaviour"):
        vector_env("firefighting_graph", 4, population="random")
    with pytest.raises(ValueError, match="episodes=0 is invalid"):
        vector_env("bucket_brigade", 0)
    with pytest.raises(ValueError, match="rng= is the environment's own"):
        vector_env("bucket_brigade", 2, rng=1)
    with pytest.raises(RuntimeError, match="reset"):
        vector_env("bucket_brigade", 2).step(np.zeros(8, dtype=int))
    monkeypatch.setitem(GAMES["stag_hunt"].__dict__, "batch", None)
    with pytest.raises(ValueError, match="has no batch engine"):
        vector_env("stag_hunt", 4)


def test_gymnasiums_dict_info_to_list_gives_each_row_its_infos():
    env = gymnasium.wrappers.vector.DictInfoToList(
        vector_env("bucket_brigade", 3, seed=0, max_steps=1))
    observations, infos = env.reset()
    assert len(infos) == 12 and {info["phase"] for info in infos} == {"signal"}
    assert all(np.array_equal(info["action_mask"], env.unwrapped.state.mask[0, 0])
               for info in infos[:4])
    for phase in ("act", "signal"):  # the decision after each step
        _, _, terminated, truncated, infos = env.step(np.zeros(12, dtype=np.int64))
        assert [info["phase"] for info in infos] == [phase] * 12
    assert (terminated | truncated).all(), "max_steps=1: the night's second step ends it"
    assert all(info["final_obs"].shape == observations[0].shape for info in infos)


@pytest.mark.parametrize("game", ["bucket_brigade", "firefighting_graph", "state_punishment",
                                  "stag_hunt"])
def test_render_draws_each_episodes_world_as_the_pettingzoo_environment_does(game):
    env = vector_env(game, 2, seed=0, render_mode="rgb_array")
    single = parallel_env(game, render_mode="rgb_array")
    single.reset(seed=0)
    env.reset()
    env.step(np.zeros(env.num_envs, dtype=np.int64))
    frames = env.render()
    assert len(frames) == 2 and all(f.shape == single.render().shape for f in frames)
    assert all(f.dtype == np.uint8 for f in frames)
    assert all(np.array_equal(a, b) for a, b in zip(frames, env.render()))
    assert vector_env(game, 2).render() is None
    with pytest.raises(ValueError, match="render_mode='human' is invalid"):
        vector_env(game, 2, render_mode="human")


def test_gymnasiums_normalize_reward_starts_each_rows_return_afresh():
    """Under SAME_STEP the step after an episode's end is the next one's first: Gymnasium
    1.4.0's NormalizeReward restarts the row's discounted return there (docs/how-to/
    environments.md says so; an older Gymnasium did not)."""
    env = gymnasium.wrappers.vector.NormalizeReward(
        vector_env("firefighting_graph", 2, seed=0, max_steps=2), gamma=0.9)
    twin = vector_env("firefighting_graph", 2, seed=0, max_steps=2)  # the raw rewards
    env.reset(seed=0)
    twin.reset(seed=0)
    returns = np.zeros(20)
    for step in range(5):
        _, _, terminated, truncated, _ = env.step(np.zeros(20, dtype=np.int64))
        _, rewards, *_ = twin.step(np.zeros(20, dtype=np.int64))
        returns = returns * 0.9 + rewards
        ended = terminated | truncated
        returns[ended] = 0
        np.testing.assert_allclose(env.accumulated_reward, returns)
