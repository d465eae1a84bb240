"""Per-seat learners (dilemmas/learning/ppo.py, ``[network] share = false``): each learning
seat its own actor, critic and optimiser, moved only by its own transitions, saved as a
seated policy file that plays in the Mesa model; one prosocial hunter beside a selfish one."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from env_support import RewardsTimes

from dilemmas import GAMES
from dilemmas.analysis.learning.training import TrainingError
from dilemmas.envs.functional import functional_env
from dilemmas.learning import deep
from dilemmas.learning.deep import DeepTraining
from dilemmas.learning.ppo import Trainer
from dilemmas.learning.ppo_settings import Settings
from dilemmas.models.policies import NetworkPolicy, SeatedPolicy, load_policy

HUNT = {"num_agents": 2, "num_agents_to_spawn": 2, "max_steps": 8}


def actors_after_one_update(factors, share: bool, network: str):
    env = functional_env("stag_hunt", population="policy:2", **HUNT)
    settings = Settings(network=network, share=share, hidden=8, envs=4, steps=16,
                        minibatches=2, epochs=2, learning_rate=1e-3)
    trainer = Trainer(RewardsTimes(env, factors), settings, 1)
    runners, metrics = trainer.chunk(trainer.start(jnp.stack([jax.random.PRNGKey(2)])), 1)
    assert float(np.nansum(metrics["learner_return"])) > 0, "no reward: the test shows nothing"
    return [np.asarray(leaf[0]) for leaf in
            jax.tree_util.tree_leaves(eqx.filter(runners.actor, eqx.is_array))]


@pytest.mark.parametrize("network", ["mlp", "gru"])
def test_each_seats_network_is_moved_by_its_own_transitions_only(network):
    """Two trainings that differ only in seat 1's rewards (negated) play the same first
    rollout; after the first update seat 0's own network is the same in both, seat 1's is
    not. With one shared network both seats' rewards move it."""
    same = actors_after_one_update([1.0, 1.0], False, network)
    flipped = actors_after_one_update([1.0, -1.0], False, network)
    for a, b in zip(same, flipped):  # stacked over the seats
        np.testing.assert_allclose(a[0], b[0], rtol=1e-6, atol=1e-7)
    assert max(float(np.abs(a[1] - b[1]).max()) for a, b in zip(same, flipped)) > 1e-4
    if network == "gru":  # the contrast once is enough: each training compiles anew
        return
    shared = actors_after_one_update([1.0, 1.0], True, network)
    shared_flipped = actors_after_one_update([1.0, -1.0], True, network)
    assert max(float(np.abs(a - b).max()) for a, b in zip(shared, shared_flipped)) > 1e-4


def test_a_per_seat_training_writes_a_seated_policy_that_plays_in_the_model(tmp_path):
    """One prosocial hunter (w = 1) beside a selfish one, each its own network: the seed's
    policy file has a network part per seat, in seat order, the parts differ, and the Mesa
    model plays it greedily and sampled."""
    training = DeepTraining(
        name="pair", game="stag_hunt", population="policy:2", updates=2, seeds=1,
        checkpoint_every=1, parameters=dict(HUNT), network={"share": False, "hidden": 8},
        ppo={"envs": 2, "steps": 8, "minibatches": 2, "epochs": 1, "reward": "prosocial",
             "prosociality": [1.0, 0.0]})
    deep.train(training, tmp_path, progress=False)
    path = deep.policy_path(tmp_path / "pair", 0)
    policy = load_policy(path)
    assert isinstance(policy, SeatedPolicy)
    assert [seats for _, seats in policy.parts] == [1, 1]
    assert all(isinstance(part, NetworkPolicy) for part, _ in policy.parts)
    first, second = (part.arrays() for part, _ in policy.parts)
    assert not np.array_equal(first["head_weight"], second["head_weight"])
    for play in ("greedy", "sampled"):
        model = GAMES["stag_hunt"].model(**HUNT, population="policy:2", policy=str(path),
                                        policy_play=play, rng=4)
        model.run_model()
        assert model.steps == HUNT["max_steps"]


def test_per_seat_minibatches_split_each_seats_own_batch():
    env = functional_env("stag_hunt", population="policy:2", **HUNT)
    with pytest.raises(ValueError, match="minibatches=3 must divide the 4 sequences "
                                         r"\(envs, each seat's own\)"):
        Trainer(env, Settings(network="gru", share=False, envs=4, steps=8, minibatches=3), 1)
    with pytest.raises(TrainingError, match=r"\[network\] share='no' must be true or false"):
        DeepTraining(name="bad", game="stag_hunt", population="policy:2", updates=1,
                     parameters=dict(HUNT), network={"share": "no"})


def networks_after_one_update(**settings):
    """Every seat's actor and critic leaves after one update of two hunters on their own
    rewards (seed 2), stacked over the seats when each has its own."""
    env = functional_env("stag_hunt", population="policy:2", **HUNT)
    base = dict(hidden=8, envs=4, steps=16, minibatches=2, epochs=2, learning_rate=1e-3)
    trainer = Trainer(env, Settings(**{**base, **settings}), 1)
    runners, _ = trainer.chunk(trainer.start(jnp.stack([jax.random.PRNGKey(2)])), 1)
    return [[np.asarray(leaf[0]) for leaf in
             jax.tree_util.tree_leaves(eqx.filter(net, eqx.is_array))]
            for net in (runners.actor, runners.critic)]


#: Seat 1's own PPO settings, each another than seat 0's (the defaults and base's rate).
OTHER = {"learning_rate": 3e-3, "discount": 0.9, "gae_lambda": 0.8, "clip": 0.1,
         "entropy": 0.05, "value": 1.0, "max_grad_norm": 0.05}


def test_each_seat_trains_with_its_own_ppo_settings():
    """A list of one value per seat, each equal to the number, trains what the number
    trains; seat 1 given its own learning rate, discount, ..., its networks move otherwise
    while seat 0's are what they were."""
    settings = Settings()
    number = networks_after_one_update(share=False)
    same = networks_after_one_update(share=False, **{
        key: [getattr(settings, key)] * 2 for key in OTHER if key != "learning_rate"},
        learning_rate=[1e-3, 1e-3])
    other = networks_after_one_update(share=False, **{
        key: [1e-3 if key == "learning_rate" else getattr(settings, key), value]
        for key, value in OTHER.items()})
    for net_number, net_same, net_other in zip(number, same, other):
        for a, b, c in zip(net_number, net_same, net_other):
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(c[0], a[0], rtol=1e-6, atol=1e-7)
        assert max(float(np.abs(a[1] - c[1]).max()) for a, c in zip(net_number, net_other)) \
            > 1e-4


@pytest.mark.parametrize("ppo, said", [
    ({"learning_rate": [1e-3, 2e-3]}, r"learning_rate=\[0.001, 0.002\] gives each learning "
                                      "seat its own value: that needs \\[network\\] share = "
                                      "false"),
    ({"learning_rate": [1e-3, 2e-3, 1e-3], "share": False},
     r"learning_rate=\[0.001, 0.002, 0.001\] gives 3 values for 2 learning seats"),
    ({"discount": [0.9, float("nan")], "share": False},
     r"discount=\[0.9, nan\] must be a finite number from 0 to 1, or a list of them"),
    ({"clip": [], "share": False}, r"clip=\[\] must be a finite number > 0"),
])
def test_bad_per_seat_ppo_settings_are_named(ppo, said):
    ppo = dict(ppo)
    network = {"share": ppo.pop("share")} if "share" in ppo else {}
    with pytest.raises(TrainingError, match=r"\[ppo\] " + said):
        DeepTraining(name="bad", game="stag_hunt", population="policy:2", updates=1,
                     parameters=dict(HUNT), network=network, ppo=ppo)


@pytest.mark.parametrize("algorithm, apart", [("mappo", True), ("ippo", False)])
def test_mappo_optimises_the_actor_and_the_critic_apart(algorithm, apart):
    """MAPPO's actor and critic have an Adam and a gradient clip each: the critic's loss
    weight does not reach the actor (its first update is the same with any weight, as the
    advantages come before it), while IPPO's one clip over both lets it."""
    light = networks_after_one_update(algorithm=algorithm, value=0.5, max_grad_norm=0.01)
    heavy = networks_after_one_update(algorithm=algorithm, value=500.0, max_grad_norm=0.01)
    change = max(float(np.abs(a - b).max()) for a, b in zip(light[0], heavy[0]))
    assert (change == 0.0) if apart else change > 1e-5
