"""The single-agent Gymnasium view of every game (``dilemmas.single_env``): Gymnasium's own
checker, replay by seed, the learning seat's play equal to the parallel env's, policy files
as the other seats, and the refusals of bad arguments."""

import re

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dilemmas
from dilemmas.envs.single import SingleAgentEnv
from dilemmas.models.policies import (LinearPolicy, NetworkPolicy, load_policy, save_policy,
                                      seated_policy)
from env_support import GAMES, assert_frames_equal, last_allowed, linear_policy, own_episode

#: game -> population under test: the learner with built-in behaviours, and with other
#: ``policy`` seats (played by ``last_allowed``) where the population starts "policy:2" or more
POPULATIONS = {
    "bucket_brigade": "policy:2,free_rider:2",
    "state_punishment": "policy:1,random:2",
    "stag_hunt": "policy:2,random:1",
    "firefighting_graph": "policy:3,random:7",
}


def arguments(game, **extra) -> dict:
    others = None if POPULATIONS[game].startswith("policy:1,") else last_allowed
    return {"others": others, "population": POPULATIONS[game], **extra}


def single(game, **extra):
    return dilemmas.single_env(game, **arguments(game, **extra))


def play(env, seed, steps=None):
    """One episode (or its first ``steps`` steps) from ``reset(seed=seed)``, the learner's
    actions drawn from its mask by a generator of ``seed``: the actions and every step's
    results."""
    generator = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    record = [(observation, info)]
    while steps is None or len(record) <= steps:
        action = int(generator.choice(np.flatnonzero(info["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        record.append((action, observation, reward, terminated, truncated, info))
        if terminated or truncated:
            break
    return record


def assert_same(left, right):
    assert len(left) == len(right)
    for a, b in zip(left, right):
        for x, y in zip(a, b):
            if isinstance(x, dict):
                assert x.keys() == y.keys()
                for key in x:
                    np.testing.assert_array_equal(x[key], y[key])
            else:
                np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_check_env_passes(game):
    """Made by ``gymnasium.make``, so that the checker also renders in the other mode
    (``"human"``) from the env's spec."""
    env = gymnasium.make(f"dilemmas/{game}-v0", **arguments(game, render_mode="rgb_array"))
    assert isinstance(env.unwrapped, SingleAgentEnv)
    check_env(env.unwrapped)
    env.reset(seed=0)
    image = env.render()
    assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8
    env.close()


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_make_gives_single_env(game):
    made = gymnasium.make(f"dilemmas/{game}-v0", **arguments(game, max_cycles=8))
    assert_same(play(made, 6), play(single(game, max_cycles=8), 6))


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_gives_the_same_episode(game):
    env = single(game, max_cycles=12)
    first, again = play(env, 3), play(env, 3)
    assert_same(first, again)
    other = play(env, 4)
    assert any(not np.array_equal(a[1], b[1]) for a, b in zip(first[1:], other[1:]))


@pytest.mark.parametrize("game", GAMES)
def test_the_learner_plays_the_parallel_envs_episode(game):
    """The learner's observations, rewards, ends and infos are those the parallel env gives
    its seat for the same actions and seed, with the other ``policy`` seats' actions the
    ``others`` policy's; the episode runs to its end."""
    env = single(game)
    record = play(env, 11)
    assert record[-1][3] or record[-1][4]
    parallel = dilemmas.parallel_env(game, population=POPULATIONS[game])
    me = parallel.possible_agents[0]
    observations, infos = parallel.reset(seed=11)
    expected = [(observations[me], infos[me])]
    for action, *_ in record[1:]:
        actions = {agent: last_allowed({"observation": observations[agent],
                                        "action_mask": infos[agent]["action_mask"]})
                   for agent in parallel.agents}
        actions[me] = action
        observations, rewards, terminations, truncations, infos = parallel.step(actions)
        expected.append((action, observations[me], rewards[me], terminations[me],
                         truncations[me], infos[me]))
    assert not parallel.agents
    assert_same(record, expected)


def test_other_seats_played_by_a_policy_file(tmp_path):
    """``others=`` a policy file plays every other ``policy`` seat with that file's policy."""
    game, population = "bucket_brigade", "policy:3,firefighter:1"
    parallel = dilemmas.parallel_env(game, population=population)
    policy = linear_policy(parallel)
    path = save_policy(tmp_path / "others.npz", policy)
    env = dilemmas.single_env(game, others=str(path), population=population)
    record = play(env, 5, steps=6)
    observations, infos = parallel.reset(seed=5)
    for action, observation, reward, *_ in record[1:]:
        actions = {agent: policy({"observation": observations[agent],
                                  "action_mask": infos[agent]["action_mask"]})
                   for agent in parallel.agents}
        actions["agent_0"] = action
        observations, rewards, _, _, infos = parallel.step(actions)
        np.testing.assert_array_equal(observation, observations["agent_0"])
        assert reward == rewards["agent_0"]


def other_policy_file(tmp_path, game, population, kind):
    """A policy file for ``game``: linear, a recurrent network (random numpy weights) or a
    tabular learner's after one episode of learning in ``population``."""
    model = dilemmas.GAMES[game].model(population=population.replace("policy", "random"),
                                       rng=0)
    interface = model.game.interface
    actions, length = interface.actions(model), interface.observation_length(model)
    rng = np.random.default_rng(3)
    if kind == "tabular":
        learning = dilemmas.GAMES[game].model(
            population=population.replace("policy", "q_learning"), rng=0)
        learning.run_model()
        return learning.learners["q_learning"].save(tmp_path / "tabular.npz")
    if kind == "network":
        hidden = 6
        arrays = {"activation": np.array("tanh"),
                  "gru_weight_ih": rng.normal(size=(3 * hidden, length)),
                  "gru_weight_hh": rng.normal(size=(3 * hidden, hidden)),
                  "gru_bias": rng.normal(size=3 * hidden), "gru_bias_n": rng.normal(size=hidden),
                  "head_weight": rng.normal(size=(actions, hidden)),
                  "head_bias": rng.normal(size=actions)}
        return save_policy(tmp_path / "network.npz", NetworkPolicy(arrays, game))
    policy = LinearPolicy(rng.normal(size=(actions, length)), rng.normal(size=actions), game)
    return save_policy(tmp_path / "linear.npz", policy)


@pytest.mark.parametrize("kind", ["linear", "network", "tabular"])
@pytest.mark.parametrize("game", GAMES)
def test_a_policy_file_as_others_plays_as_the_model_plays_it(tmp_path, game, kind):
    """With the learner playing the same policy file, the episode is the model's own with
    ``policy=`` that file in every ``policy`` seat: ``others`` is asked as the model asks its
    policy (a tabular policy's features of the seat, a recurrent network's memory of each)."""
    population = "policy:2,random:1" if game == "state_punishment" else POPULATIONS[game]
    path = other_policy_file(tmp_path, game, population, kind)
    env = dilemmas.single_env(game, others=str(path), population=population)
    learner = load_policy(path)
    observation, info = env.reset(seed=2)
    seat = env.parallel.model.policy_seats()[0]
    ended = False
    while not ended:
        action = learner.decide(env.parallel.model, seat,
                                {"observation": observation, "action_mask": info["action_mask"]})
        observation, _, terminated, truncated, info = env.step(action)
        ended = terminated or truncated
    own = own_episode(game, {"population": population}, 2, policy=str(path))
    assert_frames_equal(env.parallel.model, own)


def test_the_learner_is_the_first_policy_seat():
    env = dilemmas.single_env("bucket_brigade", population="free_rider:1,policy:1,hero:2")
    assert env.learner == "agent_1"
    assert env.action_space == env.parallel.action_space("agent_1")
    assert env.observation_space == env.parallel.observation_space("agent_1")


def test_step_after_the_end_or_before_reset_is_refused():
    env = dilemmas.single_env("firefighting_graph", population="policy:1,random:9",
                              max_cycles=1)
    with pytest.raises(RuntimeError, match=re.escape("the episode has ended (or not begun): "
                                                     "call reset()")):
        env.step(0)
    env.reset(seed=0)
    assert env.step(0)[3] is True
    with pytest.raises(RuntimeError, match="the episode has ended"):
        env.step(0)


def test_bad_arguments_name_what_is_wrong(tmp_path):
    game = "bucket_brigade"
    with pytest.raises(ValueError, match=re.escape(
            "population='policy:2,hero:2' seats 2 'policy' seats: the first learns; give "
            "others= (a callable or a policy file) to play the other 1")):
        dilemmas.single_env(game, population="policy:2,hero:2")
    with pytest.raises(ValueError, match=re.escape(
            "population='policy' seats 4 'policy' seats")):
        dilemmas.single_env(game)
    with pytest.raises(ValueError, match=re.escape(
            "others= plays no seat: population='policy:1,hero:3' seats one 'policy' seat, "
            "the learning one")):
        dilemmas.single_env(game, others=last_allowed, population="policy:1,hero:3")
    with pytest.raises(ValueError, match=re.escape(
            "policy= is the environment's own: give the learner's actions to step() and the "
            "other 'policy' seats' policy as others=")):
        dilemmas.single_env(game, policy=last_allowed, population="policy:2,hero:2")
    with pytest.raises(ValueError, match=re.escape(
            "population='hero' seats no 'policy' behaviour")):
        dilemmas.single_env(game, population="hero")
    with pytest.raises(ValueError, match=re.escape("others=5 is invalid: must be None, a "
                                                   "callable observation -> action")):
        dilemmas.single_env(game, others=5, population="policy:2,hero:2")
    parallel = dilemmas.parallel_env("stag_hunt")
    wrong = save_policy(tmp_path / "stag.npz", linear_policy(parallel))
    with pytest.raises(ValueError, match=re.escape(
            f"others={str(wrong)!r} is invalid: the policy file is for the game "
            "'stag_hunt', not 'bucket_brigade'")):
        dilemmas.single_env(game, others=wrong, population="policy:2,hero:2")
    policy = linear_policy(dilemmas.parallel_env(game))
    seats = save_policy(tmp_path / "seats.npz", seated_policy([(policy, 1), (policy, 1)]))
    with pytest.raises(ValueError, match=re.escape(
            f"others={str(seats)!r} is a seated policy file: give one policy for every "
            "other 'policy' seat")):
        dilemmas.single_env(game, others=seats, population="policy:2,hero:2")
    small = save_policy(tmp_path / "small.npz", linear_policy(dilemmas.parallel_env(game)))
    with pytest.raises(ValueError, match=re.escape(
            f"others: the policy file {str(small)!r} has weights of 20 actions x 98 inputs, "
            "but with these parameters the game has 20 actions and observations of length")):
        dilemmas.single_env(game, others=small, population="policy:2,hero:3", num_agents=5)
    env = dilemmas.single_env(game, population="policy:1,hero:3")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=re.escape(
            "agent_0's action 20 is invalid: must be an integer from 0 to 19")):
        env.step(20)
