"""The functional environment (dilemmas/envs/functional.py) in JaxMARL's IPPO: the calls its
baseline makes (tests/ippo_support.py) train on every game, and JaxMARL's own ``LogWrapper``
(``jaxmarl.wrappers.baselines``, where JaxMARL is installed) takes the environment as it is."""

import jax
import numpy as np
import pytest

import dilemmas
from ippo_support import train

GAMES = ["bucket_brigade", "firefighting_graph", "state_punishment", "stag_hunt"]
EPISODES, STEPS, UPDATES = 16, 16, 30


def per_round(game):
    return 2 if game == "bucket_brigade" else 1  # Bucket Brigade's night: 2 decisions


@pytest.mark.parametrize("game", GAMES)
def test_ippos_calls_train_on_every_game(game):
    env = dilemmas.functional_env(game, max_steps=4)
    metrics, _ = train(env, jax.random.key(0), EPISODES, STEPS, UPDATES)
    actors = EPISODES * env.num_agents
    for name, leaf in [("terminated", metrics["terminated"]),
                       *((f"round/{c}", v) for c, v in metrics["round"].items())]:
        assert leaf.shape == (UPDATES, STEPS, actors), name
    ended = np.asarray(metrics["terminated"] | metrics["truncated"]).reshape(-1, actors)
    assert ended.any(axis=0).all(), "every actor's episodes ended"
    rewards = np.asarray(metrics["reward"]).mean(axis=(1, 2))
    assert np.isfinite(np.asarray(metrics["loss"])).all()
    assert rewards[-5:].mean() > rewards[:5].mean(), "the shared policy learns"


def test_an_action_of_shape_1_is_the_action_and_other_shapes_are_refused():
    env = dilemmas.functional_env("firefighting_graph")
    _, state = env.reset(jax.random.key(0))
    key = jax.random.key(1)
    scalar = env.step(key, state, {a: np.int32(i % 2) for i, a in enumerate(env.agents)})
    column = env.step(key, state, {a: np.array([i % 2]) for i, a in enumerate(env.agents)})
    for a, b in zip(jax.tree_util.tree_leaves(scalar), jax.tree_util.tree_leaves(column)):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    with pytest.raises(ValueError, match=r"agent_0's action array\(\[0, 1\]\) is invalid: must "
                                         r"be one integer, of shape \(\) or \(1,\), not \(2,\)"):
        env.step(key, state, dict.fromkeys(env.agents, np.array([0, 1])))


@pytest.mark.parametrize("game", GAMES)
def test_jaxmarls_log_wrapper_counts_every_episode(game):
    baselines = pytest.importorskip("jaxmarl.wrappers.baselines")
    env = baselines.LogWrapper(dilemmas.functional_env(game, max_steps=3))
    metrics, _ = train(env, jax.random.key(0), EPISODES, STEPS, 2)
    returned = np.asarray(metrics["returned_episode"])
    assert returned.any()
    lengths = np.asarray(metrics["returned_episode_lengths"])[returned]
    assert (lengths == 3 * per_round(game)).all()
    returns = np.asarray(metrics["returned_episode_returns"])
    assert np.isfinite(returns).all() and returns.shape == returned.shape
