"""Stable-Baselines3's route (docs/how-to/environments.md): ``dilemmas.sb3_vec_env`` trains
with ``PPO(..., seed=...)`` as SB3's users write it, the same seed giving the same policy,
its rows are ``vector_env``'s, and SB3's own checker takes ``single_env``."""

import tempfile

import numpy as np
import pytest

import dilemmas

sb3 = pytest.importorskip("stable_baselines3")
FOUR = ["bucket_brigade", "firefighting_graph", "state_punishment", "stag_hunt"]


@pytest.fixture(autouse=True)
def own_temporary_folder(tmp_path, monkeypatch):
    """SB3's PPO makes an (empty) logging folder ``SB3-<time>`` in the temporary folder on
    every ``learn``; here it is the test's own, not the machine's."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def trained(env, seed):
    """PPO's policy after two rollouts on ``env``, seeded as SB3's users seed it."""
    model = sb3.PPO("MlpPolicy", env, seed=seed, n_steps=8, batch_size=16, n_epochs=1,
                    device="cpu")
    model.learn(2 * model.n_steps * env.num_envs)
    return np.concatenate([p.detach().numpy().ravel() for p in model.policy.parameters()])


@pytest.mark.parametrize("game", FOUR)
def test_ppo_seeded_trains_and_the_same_seed_gives_the_same_policy(game):
    env = dilemmas.sb3_vec_env(game, 2, max_steps=3)  # compiled once, trained on thrice
    first, again, other = trained(env, 0), trained(env, 0), trained(env, 1)
    assert np.isfinite(first).all()
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_the_rows_are_the_vector_envs_and_an_episodes_end_is_as_sb3_bootstraps_it():
    """Seeded alike, the SB3 view and ``vector_env`` give the same observations and rewards
    at every step; where an episode ends its rows are done, carry the observation it closed
    with, and say whether ``max_steps`` cut it (``TimeLimit.truncated``)."""
    env = dilemmas.sb3_vec_env("firefighting_graph", 3, max_steps=3)
    vector = dilemmas.vector_env("firefighting_graph", 3, max_steps=3)
    env.seed(7)
    observations = env.reset()
    expected, _ = vector.reset(seed=7)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(7):
        assert np.array_equal(observations, expected)
        actions = rng.integers(0, env.action_space.n, env.num_envs)
        observations, rewards, dones, infos = env.step(actions)
        expected, paid, terminated, truncated, given = vector.step(actions)
        assert np.allclose(rewards, paid) and rewards.dtype == np.float32
        assert dones.tolist() == (terminated | truncated).tolist()
        for row in range(env.num_envs):
            assert np.array_equal(infos[row]["action_mask"], given["action_mask"][row])
            if dones[row]:
                ended += 1
                assert np.array_equal(infos[row]["terminal_observation"],
                                      given["final_obs"][row])
                assert infos[row]["TimeLimit.truncated"] == (truncated[row] and not terminated[row])
            else:
                assert "terminal_observation" not in infos[row]
    assert ended == 2 * env.num_envs  # episodes of 3 steps: two ends in 7 steps


def test_sb3s_env_checker_takes_the_single_agent_view():
    from stable_baselines3.common.env_checker import check_env

    for game, population in [("bucket_brigade", "policy:1,free_rider:3"),
                             ("firefighting_graph", "policy:1,random:9"),
                             ("state_punishment", "policy:1,random:2"),
                             ("stag_hunt", "policy:1,random:2")]:
        check_env(dilemmas.single_env(game, population=population, max_steps=4), warn=True)


def test_seed_then_reset_gives_the_same_episodes_and_attributes_reach_the_vector_env():
    env = dilemmas.sb3_vec_env("stag_hunt", 2, max_steps=3)
    env.seed(3)
    first = env.reset()
    env.seed(3)
    assert np.array_equal(env.reset(), first)
    assert env.get_attr("episodes") == [2] * env.num_envs


def test_setting_or_calling_for_some_rows_only_is_refused():
    env = dilemmas.sb3_vec_env("stag_hunt", 2, max_steps=3)
    rows = rf"set_attr\(.render_mode.\).*all {env.num_envs} rows"
    with pytest.raises(ValueError, match=rows):
        env.set_attr("render_mode", "rgb_array", indices=[0])
    assert env.vector.render_mode is None
    with pytest.raises(ValueError, match=r"env_method\('close'\)"):
        env.env_method("close", indices=range(3))
    env.set_attr("render_mode", "rgb_array", indices=range(env.num_envs))
    assert env.vector.render_mode == "rgb_array"


def test_the_pages_stable_baselines3_example_runs_as_written():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "how-to" /
            "environments.md").read_text()
    section = page.split("## Stable-Baselines3\n", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace = {}
    exec(code, namespace)
    assert namespace["env"].num_envs == 24 and namespace["model"].num_timesteps >= 2_000
