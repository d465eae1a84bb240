"""Value normalisation (dilemmas/learning/ppo.py, ``value_norm``): the running statistics
against a hand computation, and the same training on a game whose rewards are all
multiplied by a constant, which trains the same networks with it and not without it."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from env_support import RewardsTimes

from dilemmas.envs.functional import functional_env
from dilemmas.learning.ppo import VALUE_DECAY, Trainer, ValueStats
from dilemmas.learning.ppo_settings import Settings


def test_the_statistics_are_the_debiased_weighted_moments_of_the_targets():
    rng = np.random.default_rng(0)
    batches = [rng.normal(loc=3.0 * k, scale=1.0 + k, size=(5, 4, 2)) for k in range(3)]
    stats = ValueStats(*[jnp.zeros(2)] * 3)
    mean, scale = stats.scale()
    np.testing.assert_array_equal(scale, 0.0)  # before any target the values are 0
    for batch in batches:
        stats = stats.folded(jnp.asarray(batch, jnp.float32))
    weights = np.array([VALUE_DECAY ** (2 - k) * (1 - VALUE_DECAY) for k in range(3)])
    means = np.array([b.reshape(-1, 2).mean(axis=0) for b in batches])
    squares = np.array([(b.reshape(-1, 2) ** 2).mean(axis=0) for b in batches])
    expected_mean = weights @ means / weights.sum()
    expected_var = weights @ squares / weights.sum() - expected_mean ** 2
    mean, scale = stats.scale()
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-5)
    np.testing.assert_allclose(scale, np.sqrt(expected_var), rtol=1e-4)


def actor_change(factor: float, value_norm: bool, updates: int = 4):
    """The change of the actor's weights (one flat vector) over ``updates`` updates of a
    small Stag Hunt training whose rewards are multiplied by ``factor``."""
    env = functional_env("stag_hunt", population="policy:2", num_agents=2,
                         num_agents_to_spawn=2, max_steps=8)
    settings = Settings(hidden=16, envs=4, steps=16, minibatches=2, epochs=2,
                        learning_rate=1e-3, value_norm=value_norm)
    trainer = Trainer(RewardsTimes(env, factor), settings, updates)
    start = trainer.start(jnp.stack([jax.random.PRNGKey(5)]))
    end, metrics = trainer.chunk(start, updates)
    assert np.nansum(metrics["learner_return"]) > 0, "no reward seen: the test shows nothing"

    def flat(runners):
        leaves = jax.tree_util.tree_leaves(eqx.filter(runners.actor, eqx.is_array))
        return np.concatenate([np.ravel(leaf) for leaf in leaves])

    return flat(end) - flat(start)


def test_rewards_multiplied_by_a_constant_train_the_same_actor_with_value_normalisation():
    """With ``value_norm`` the advantages and the critic's targets do not depend on the
    rewards' units, so the actor's change over the training differs only by float32
    rounding (a relative 1e-3 allows for its growth over 4 updates of 4 minibatch steps);
    without it the rewards times 100 change it by a tenth of itself or more: the critic's
    values, hence the advantages, are in other units."""
    def apart(left, right):
        return float(np.linalg.norm(left - right) / np.linalg.norm(left))

    assert apart(actor_change(1.0, True), actor_change(100.0, True)) < 1e-3
    assert apart(actor_change(1.0, False), actor_change(100.0, False)) > 0.1
