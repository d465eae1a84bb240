"""The rewards deep learners train on (dilemmas/learning/rewards.py; docs/rules/README.md,
"Training rewards"): each against a hand computation, the team reward's episode return
against the game's own team_reward column, trainings that report the reward trained on, and
the settings refused with one line naming the key."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.analysis.learning.training import TrainingError
from dilemmas.envs.functional import functional_env
from dilemmas.learning.deep import DeepTraining
from dilemmas.learning.training_file import read_training
from dilemmas.learning.ppo_settings import Settings
from dilemmas.learning.rewards import Objective, Shaping, check

RTOL = 1e-6
R = jnp.array([[1.0, 2.0, 4.0], [0.0, -3.0, 6.0]])  # two episodes, three learning seats
NOT_ENDED = jnp.array([False, False])


def objective(reward, seats=3, game="stag_hunt", **weights):
    return Objective(reward, check(reward, weights), seats, GAMES[game])


def test_own_mean_and_prosocial_with_a_weight_per_seat():
    for reward, expected in (("own", R), ("mean", [[7 / 3] * 3, [1.0] * 3])):
        got, _ = objective(reward)(R, {}, objective(reward).start(2), NOT_ENDED)
        np.testing.assert_allclose(got, expected, rtol=RTOL)
    prosocial = objective("prosocial", prosociality=[0.0, 0.5, 1.0])
    got, _ = prosocial(R, {}, prosocial.start(2), NOT_ENDED)
    np.testing.assert_allclose(got, [[1 + 0, 2 + 0.5 * 5, 4 + 1 * 3],
                                     [0 + 0, -3 + 0.5 * 6, 6 + 1 * -3]], rtol=RTOL)


def fehr_schmidt(e, r, alpha, beta):
    """Hughes et al. (2018), eq. 1, by loops."""
    n = len(e)
    return [r[i] - alpha[i] / (n - 1) * sum(max(e[j] - e[i], 0) for j in range(n) if j != i)
            - beta[i] / (n - 1) * sum(max(e[i] - e[j], 0) for j in range(n) if j != i)
            for i in range(n)]


def test_inequity_aversion_is_fehr_schmidt_on_smoothed_rewards_reset_at_an_episodes_end():
    alpha, beta, smoothing = [5.0, 0.0, 1.0], [0.05, 0.5, 0.0], 0.9
    shape = objective("inequity_aversion", inequity_alpha=alpha, inequity_beta=beta,
                      inequity_smoothing=smoothing)
    shaping = shape.start(2)
    second = jnp.array([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]])
    got, shaping = shape(R, {}, shaping, jnp.array([False, True]))  # episode 1 ends here
    for row in range(2):
        np.testing.assert_allclose(got[row], fehr_schmidt(R[row].tolist(), R[row].tolist(),
                                                         alpha, beta), rtol=RTOL)
    np.testing.assert_array_equal(shaping.traces[1], 0.0)  # a fresh episode
    got, shaping = shape(second, {}, shaping, NOT_ENDED)
    traces = [smoothing * np.asarray(R[0]) + np.asarray(second[0]), np.asarray(second[1])]
    for row in range(2):
        np.testing.assert_allclose(got[row], fehr_schmidt(traces[row].tolist(),
                                                         second[row].tolist(), alpha, beta),
                                   rtol=RTOL)
        np.testing.assert_allclose(shaping.traces[row], traces[row], rtol=RTOL)


def test_the_team_reward_sums_to_the_games_team_reward_column_at_each_episodes_end():
    """Bucket Brigade's episodes played with random actions: each seat's return of ``team``
    is the model's ``team_reward`` at the episode's end, which the rules define."""
    env = functional_env("bucket_brigade", population="policy:4", max_steps=6)
    team = Objective("team", check("team", {}), 4, env.game)
    for seed in range(3):
        key = jax.random.PRNGKey(seed)
        _, state = env.start(key)
        shaping, total, ended, t = team.start(1), jnp.zeros(4), False, 0
        while not ended:
            index = t % len(env.decisions)
            key, act, step = jax.random.split(key, 3)
            actions = jax.random.categorical(act, jnp.where(state.mask.astype(bool), 0.0,
                                                            -1e9))
            decided = env.decide(index, step, state, actions)
            columns = {k: jnp.asarray(v)[None] for k, v in decided.columns.items()}
            got, shaping = team(decided.rewards[None], columns, shaping,
                                jnp.asarray(decided.ended)[None])
            total, ended, state, t = total + got[0], bool(decided.ended), decided.state, t + 1
        np.testing.assert_allclose(total, float(decided.columns["team_reward"]), rtol=1e-5,
                                   atol=1e-5)
        assert float(shaping.team[0]) == 0.0  # the next episode starts from 0


@pytest.mark.parametrize("reward, weights, message", [
    ("individual", {}, "reward='individual' is now called 'own'"),
    ("shared", {}, "reward='shared' is now called 'mean'"),
    ("selfish", {}, "reward='selfish' is invalid: allowed: ['own', 'team', 'mean', "
                    "'prosocial', 'inequity_aversion']"),
    ("own", {"prosociality": 0.5}, "prosociality=0.5 is only for reward='prosocial'"),
    ("prosocial", {"inequity_beta": 0.1},
     "inequity_beta=0.1 is only for reward='inequity_aversion'"),
    ("prosocial", {"prosociality": float("nan")},
     "prosociality=nan must be a finite number >= 0, or a list of them"),
    ("prosocial", {"prosociality": [0.5, "x"]}, "prosociality=[0.5, 'x'] must be a finite"),
    ("prosocial", {"prosociality": []}, "prosociality=[] must be a finite"),
    ("inequity_aversion", {"inequity_smoothing": 1.0},
     "inequity_smoothing=1.0 must be a finite number from 0 to below 1"),
    ("inequity_aversion", {"inequity_alpha": -1}, "inequity_alpha=-1 must be a finite number"),
])
def test_bad_reward_settings_are_refused_naming_the_key(reward, weights, message):
    with pytest.raises(ValueError) as error:
        Settings(reward=reward, **weights)
    assert message in str(error.value), str(error.value)


def test_a_reward_the_game_or_its_seats_cannot_have_is_refused():
    with pytest.raises(ValueError, match="the rules of stag_hunt define no team reward"):
        objective("team")
    with pytest.raises(ValueError, match="needs at least 2, not 1"):
        objective("inequity_aversion", seats=1)
    with pytest.raises(ValueError, match=r"prosociality=\[0.0, 1.0\] gives 2 values for 3 "
                                         "learning seats"):
        objective("prosocial", prosociality=[0.0, 1.0])


SH = {"game": "stag_hunt", "population": "policy:2", "updates": 2, "seeds": 1,
      "checkpoint_every": 1, "parameters": {"num_agents": 2, "num_agents_to_spawn": 2,
                                           "max_steps": 6},
      "network": {"hidden": 8}, "ppo": {"envs": 2, "steps": 6, "minibatches": 1,
                                         "epochs": 1}}


def test_a_training_file_names_the_bad_reward_setting(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('game = "stag_hunt"\nalgorithm = "ippo"\npopulation = "policy:2"\n'
                    "updates = 1\n[parameters]\nnum_agents = 2\nnum_agents_to_spawn = 2\n"
                    '[ppo]\nreward = "team"\n')
    with pytest.raises(TrainingError, match=r"\[ppo\] reward='team': the rules of stag_hunt "
                                            "define no team reward"):
        read_training(path)
    with pytest.raises(TrainingError, match=r"\[ppo\] prosociality=\[0.1, 0.2, 0.3\] gives 3 "
                                            "values for 2 learning seats"):
        DeepTraining(name="bad", **{**SH, "ppo": {**SH["ppo"], "reward": "prosocial",
                                                  "prosociality": [0.1, 0.2, 0.3]}})


def test_a_training_reports_the_return_of_the_reward_it_trained_on(tmp_path):
    """``objective_return`` (the return of the reward trained on, per learning seat) beside
    ``learner_return`` (of their own rewards): the same for ``own``; for Bucket Brigade's
    ``team`` the model's ``team_reward`` at the episodes' ends, which every seat is paid."""
    from dilemmas.learning import deep

    bb = {**SH, "game": "bucket_brigade", "population": "policy:4", "algorithm": "mappo",
          "parameters": {"max_steps": 3}, "updates": 3}
    for name, fields in (("own", SH), ("team", bb)):
        training = DeepTraining(name=name, **{**fields, "ppo": {**SH["ppo"], "reward": name}})
        deep.train(training, tmp_path, progress=False)
        done = deep.curves(tmp_path / name).dropna(subset=["learner_return"])
        assert len(done) >= 2, "too few updates saw an episode end"
        if name == "own":
            np.testing.assert_array_equal(done["objective_return"], done["learner_return"])
        else:
            np.testing.assert_allclose(done["objective_return"], done["end_team_reward"],
                                       rtol=1e-5, atol=1e-5)
            assert not np.allclose(done["objective_return"], done["learner_return"])
