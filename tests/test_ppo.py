"""IPPO and MAPPO in JAX (dilemmas/learning/ppo.py), deep trainings
(dilemmas/learning/deep.py) and network policy files (dilemmas/models/policies.py):
the advantages and the loss against hand computations, masks and recurrent memory in the
rollouts, the numpy playback against the JAX network, a policy file played in the Mesa model
against the environment, and trainings that repeat, resume and refuse bad files.

Small on purpose: JAX's compile time dominates, so the compiled pieces are few and shared: one
Bucket Brigade rollout (a module fixture), and one Firefighting Graph training definition
that every training here repeats (JAX's persistent cache serves its program after the first)."""

import io
import re
import shutil
import struct
import zipfile
from types import SimpleNamespace

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pyarrow.parquet as pq
import pytest
from env_support import assert_frames_equal, own_episode

import dilemmas
from dilemmas.learning import deep
from dilemmas.learning.deep import DeepTraining
from dilemmas.learning.networks import (apply, masked_logits, memory_size, network,
                                        network_arrays, replay)
from dilemmas.learning.ppo import Trainer, advantages, greedy_episodes, ppo_loss
from dilemmas.learning.ppo_settings import Settings
from dilemmas.analysis.learning.training import TrainingError
from dilemmas.learning.training_file import read_training
from dilemmas.cli.main import main
from dilemmas.envs.functional import functional_env
from dilemmas.models.policies import NetworkPolicy, best, load_policy, save_policy

#: float32 arithmetic, compared with float64 or with a differently fused float32 program.
RTOL, ATOL = 1e-5, 1e-6

FG = {"n_agents": 2, "max_steps": 3, "layout": "row", "preset": "oliehoek"}
TINY = {"envs": 4, "steps": 6, "minibatches": 2, "epochs": 1}

DEEP = """\
game = "firefighting_graph"
algorithm = "ippo"
population = "policy:2"
updates = 2
seeds = 2
seed = 3
checkpoint_every = 1

[parameters]
n_agents = 2
max_steps = 3
layout = "row"
preset = "oliehoek"

[network]
kind = "gru"
hidden = 8

[ppo]
envs = 4
steps = 6
minibatches = 2
epochs = 1

[evaluate]
seeds = 2
backgrounds = [""]
"""


def tiny_training(**changes) -> DeepTraining:
    """The training of ``DEEP`` (named ``tiny``), built in Python."""
    fields = {"game": "firefighting_graph", "population": "policy:2", "updates": 2,
              "name": "tiny", "seeds": 2, "seed": 3, "checkpoint_every": 1,
              "parameters": dict(FG), "network": {"kind": "gru", "hidden": 8},
              "ppo": dict(TINY), "evaluate": {"seeds": 2, "backgrounds": [""]}}
    return DeepTraining(**{**fields, **changes})


def policy_arrays(path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def assert_same_arrays(left: dict, right: dict):
    assert left.keys() == right.keys()
    for key, value in left.items():
        assert value.dtype == right[key].dtype and np.array_equal(value, right[key]), key


def assert_same_curves(left, right):
    names = sorted(path.name for path in left.glob("curve-*.parquet"))
    assert names == sorted(path.name for path in right.glob("curve-*.parquet"))
    for name in names:
        assert pq.read_table(left / name).equals(pq.read_table(right / name)), name


def perturbed(net, seed):
    """``net`` with every array moved by noise: nonzero biases, so that they count."""
    params, static = eqx.partition(net, eqx.is_array)
    rng = np.random.default_rng(seed)
    params = jax.tree_util.tree_map(
        lambda a: a + jnp.asarray(rng.normal(scale=0.5, size=a.shape), dtype=a.dtype), params)
    return eqx.combine(params, static)


# --- 1-3. Advantages and the loss (the rewards: tests/test_rewards.py) ----------------------------------------------------

def test_advantages_are_generalised_advantage_estimates_closed_at_episode_ends():
    g, lam = 0.9, 0.8
    # four decisions of two seats; seat 0's episode ends after decision 1, seat 1's after 3
    r = np.array([[1.0, 0.5], [2.0, -1.0], [-0.5, 0.0], [3.0, 1.0]])
    v = np.array([[0.2, 0.1], [0.4, -0.3], [1.0, 0.6], [0.5, 0.2]])
    d = np.array([[0, 0], [1, 0], [0, 0], [0, 1]], dtype=bool)
    last = np.array([0.7, -2.0])
    a = np.zeros_like(r)
    # seat 0: decisions 2, 3 bootstrap from the last value; decision 1 ends its episode
    a[3, 0] = r[3, 0] + g * last[0] - v[3, 0]
    a[2, 0] = r[2, 0] + g * v[3, 0] - v[2, 0] + g * lam * a[3, 0]
    a[1, 0] = r[1, 0] - v[1, 0]
    a[0, 0] = r[0, 0] + g * v[1, 0] - v[0, 0] + g * lam * a[1, 0]
    # seat 1: decision 3 ends its episode, so the last value does not enter
    a[3, 1] = r[3, 1] - v[3, 1]
    for t in (2, 1, 0):
        a[t, 1] = r[t, 1] + g * v[t + 1, 1] - v[t, 1] + g * lam * a[t + 1, 1]
    found, returns = advantages(jnp.asarray(r, jnp.float32), jnp.asarray(v, jnp.float32),
                                jnp.asarray(d), jnp.asarray(last, jnp.float32), g, lam)
    np.testing.assert_allclose(found, a, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(returns, a + v, rtol=RTOL, atol=ATOL)


def _reference_loss(logits, mask, actions, old_log_prob, values, old_values, advantage,
                    target, clip, value_coef, entropy_coef):
    """PPO's loss in float64 numpy, the forbidden actions left out of the softmax."""
    allowed = mask.astype(bool)
    z = np.where(allowed, logits, -np.inf)
    z = z - z.max(axis=-1, keepdims=True)
    log_probs = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    log_prob = log_probs[np.arange(len(actions)), actions]
    allowed_log_probs = np.where(allowed, log_probs, 0.0)
    entropy = -(np.exp(allowed_log_probs) * allowed_log_probs * allowed).sum(axis=-1).mean()
    ratio = np.exp(log_prob - old_log_prob)
    normal = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    actor = -np.minimum(ratio * normal, np.clip(ratio, 1 - clip, 1 + clip) * normal).mean()
    clipped = old_values + np.clip(values - old_values, -clip, clip)
    critic = 0.5 * np.maximum((values - target) ** 2, (clipped - target) ** 2).mean()
    kl = ((ratio - 1) - (log_prob - old_log_prob)).mean()
    fraction = (np.abs(ratio - 1) > clip).mean()
    return actor + value_coef * critic - entropy_coef * entropy, \
        (actor, critic, entropy, kl, fraction)


def test_ppo_loss_is_the_clipped_surrogate_of_the_allowed_actions():
    rng = np.random.default_rng(0)
    n, clip = 6, 0.2
    logits = rng.normal(size=(n, 4))
    mask = np.ones((n, 4), dtype=np.int8)
    mask[0, 3] = mask[2, 1] = mask[4, 0] = mask[4, 2] = 0
    logits[0, 3] = 1e6       # forbidden, and huge
    actions = np.array([1, 0, 3, 2, 1, 0])
    advantage = np.array([1.5, -0.7, 0.3, -2.0, 0.9, 0.1])
    values = np.array([0.5, -1.0, 2.0, 0.1, -0.4, 1.2])
    old_values = np.array([0.0, -0.5, 1.0, 0.4, -0.45, 1.2])   # moves beyond clip both ways
    target = np.array([1.0, -2.0, 0.0, 0.5, 0.3, 1.0])
    # the ratios new / old: four outside [0.8, 1.2], with advantages of either sign
    wanted = np.array([1.5, 0.5, 1.1, 0.6, 0.95, 1.3])
    z = np.where(mask.astype(bool), logits, -np.inf)
    new_log_prob = (z - np.logaddexp.reduce(z, axis=-1, keepdims=True))[np.arange(n), actions]
    old_log_prob = new_log_prob - np.log(wanted)
    case = (logits, mask, actions, old_log_prob, values, old_values, advantage, target)
    expected_total, expected = _reference_loss(*case, clip, 0.5, 0.01)
    assert expected[4] == pytest.approx(4 / 6)

    def loss(logits):
        floats = [jnp.asarray(x, jnp.float32) for x in case[3:]]
        total, aux = ppo_loss(jnp.asarray(logits, jnp.float32), jnp.asarray(mask),
                              jnp.asarray(actions), *floats, clip, 0.5, 0.01)
        return np.array([float(total), *map(float, aux)])

    found = loss(logits)
    np.testing.assert_allclose(found, [expected_total, *expected], rtol=RTOL, atol=ATOL)
    # the forbidden action's logit does not count, however large
    quiet = logits.copy()
    quiet[0, 3] = 0.0
    np.testing.assert_allclose(loss(quiet), found, rtol=RTOL, atol=ATOL)
    # the clipping matters in this case: without it the actor's and critic's losses differ
    ratio = np.exp(new_log_prob - old_log_prob)
    normal = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    assert abs(-(ratio * normal).mean() - expected[0]) > 0.05
    assert abs(0.5 * ((values - target) ** 2).mean() - expected[1]) > 0.05


# --- 4-5. Rollouts: masks and recurrent memory ---------------------------------------------------

@pytest.fixture(scope="module")
def bb():
    """Two consecutive rollouts of a recurrent IPPO on Bucket Brigade (4 seats, 20 actions,
    the signal decision's mask allowing 2), episodes of two rounds (4 decisions), 6 decisions
    per rollout: the second rollout starts mid-episode with the memory the first left."""
    env = functional_env("bucket_brigade", max_steps=2)
    settings = Settings(network="gru", hidden=8, **TINY)
    trainer = Trainer(env, settings, updates=1)
    start = jax.jit(trainer.init)(jax.random.PRNGKey(1))
    # a head of gain 1 (not PPO's 0.01), so the memory visibly moves the outputs
    actor = perturbed(network(jax.random.PRNGKey(2), trainer.observation, trainer.actions,
                              settings, 1.0), 0)
    start = start._replace(actor=actor)
    rollout = jax.jit(trainer.rollout)
    middle, first, _ = rollout(start)
    _, second, _ = rollout(middle)
    return SimpleNamespace(trainer=trainer, start=start, middle=middle, first=first,
                           second=second)


def test_sampled_actions_are_allowed_by_the_mask_of_their_decision(bb):
    for rollout in (bb.first, bb.second):
        mask, actions = np.asarray(rollout.mask), np.asarray(rollout.actions)
        assert mask.shape == (6, 4, 4, 20) and (mask == 0).any()
        assert (np.take_along_axis(mask, actions[..., None], axis=-1) == 1).all()
        # the mask kept is the one of the decision taken: signals (0 or 1), then any house
        assert (mask[0::2, ..., :2] == 1).all() and (mask[0::2, ..., 2:] == 0).all()
        assert (mask[1::2] == 1).all()
        assert (actions[1::2] >= 2).any()


def _chosen_log_prob(logits, mask, actions):
    log_probs = np.asarray(jax.nn.log_softmax(masked_logits(logits, mask)))
    return np.take_along_axis(log_probs, np.asarray(actions)[..., None], axis=-1)[..., 0]


def test_recurrent_memory_restarts_with_each_episode_and_replay_repeats_the_acting(bb):
    actor, critic = bb.start.actor, bb.start.critic
    assert not np.asarray(bb.middle.first).any()                # mid-episode ...
    assert np.abs(np.asarray(bb.middle.actor_memory)).max() > 0.1   # ... with a memory
    replayed = jax.jit(replay)
    for before, rollout in ((bb.start, bb.first), (bb.middle, bb.second)):
        first = np.asarray(rollout.first)                        # (T, envs, seats)
        dones = np.asarray(rollout.dones)
        np.testing.assert_array_equal(first[0], np.broadcast_to(
            np.asarray(before.first)[:, None], first[0].shape))
        np.testing.assert_array_equal(first[1:], dones[:-1])     # the decision after an end
        assert first[1:].any() and not first[1:].all()
        # at each episode's first decision the actor acts as with no memory at all
        zeros = jnp.zeros(first.shape + (bb.trainer.settings.hidden,))
        blank = _chosen_log_prob(apply(actor, rollout.observations, zeros,
                                       jnp.zeros(first.shape, bool))[0],
                                 rollout.mask, rollout.actions)
        log_prob = np.asarray(rollout.log_prob)
        np.testing.assert_allclose(blank[first], log_prob[first], rtol=RTOL, atol=1e-5)
        assert np.abs(blank[~first] - log_prob[~first]).max() > 1e-2   # memory counts
        # the update's replay from the rollout's starting memory is the acting computation
        logits = replayed(actor, rollout.observations, before.actor_memory, rollout.first)
        np.testing.assert_allclose(_chosen_log_prob(logits, rollout.mask, rollout.actions),
                                   log_prob, rtol=RTOL, atol=1e-5)
        values = replayed(critic, rollout.critic_inputs, before.critic_memory,
                          rollout.first)[..., 0]
        np.testing.assert_allclose(values, rollout.values, rtol=RTOL, atol=1e-5)
        # ... and a replay that never resets after its start does not repeat it
        once = jnp.zeros(first.shape, bool).at[0].set(rollout.first[0])
        stale = _chosen_log_prob(replayed(actor, rollout.observations, before.actor_memory,
                                          once), rollout.mask, rollout.actions)
        assert np.abs(stale - log_prob)[1:][first[1:]].max() > 1e-2


def test_the_mappo_critic_reads_the_world_state_and_the_seat(bb):
    env = bb.trainer.env
    trainer = Trainer(env, Settings(algorithm="mappo", network="gru", hidden=8, **TINY), 1)
    assert trainer.critic_input == env.state_space.shape[0] + 4
    for index in (0, 1):   # the signal, then the act decision
        inputs = np.asarray(trainer.critic_inputs(index, bb.middle.env,
                                                  bb.middle.observations))
        world = np.asarray(jax.vmap(env.state_at, in_axes=(None, 0))(index, bb.middle.env))
        assert inputs.shape == (4, 4, trainer.critic_input)
        np.testing.assert_array_equal(inputs[..., :-4], np.repeat(world[:, None], 4, axis=1))
        np.testing.assert_array_equal(inputs[..., -4:], np.broadcast_to(np.eye(4), (4, 4, 4)))
    # and the IPPO critic reads each seat's own observation
    np.testing.assert_array_equal(np.asarray(bb.first.critic_inputs),
                                  np.asarray(bb.first.observations))


# --- 6-7. Network policies ------------------------------------------------------------------

@pytest.mark.parametrize("kind, activation", [("mlp", "relu"), ("gru", "tanh")])
def test_a_network_policy_plays_the_jax_network_and_round_trips(tmp_path, kind, activation):
    settings = Settings(network=kind, hidden=8, layers=2, activation=activation)
    net = perturbed(network(jax.random.PRNGKey(5), 7, 3, settings, 1.0), 1)
    policy = NetworkPolicy(network_arrays(net), "firefighting_graph")
    rng = np.random.default_rng(2)
    xs = rng.normal(size=(8, 7)).astype(np.float32)
    starts = np.array([1, 0, 0, 1, 0, 0, 0, 0], dtype=bool)   # two episodes
    hidden, memory, outputs = jnp.zeros((1, memory_size(settings))), None, []
    for x, start in zip(xs, starts):
        out, hidden = apply(net, jnp.asarray(x[None]), hidden, jnp.asarray([start]))
        mine, memory = policy.forward(x, None if start else memory)
        np.testing.assert_allclose(mine, out[0], rtol=RTOL, atol=ATOL)
        if kind == "gru":
            np.testing.assert_allclose(memory, hidden[0], rtol=RTOL, atol=ATOL)
        outputs.append(mine)
    assert np.ptp(np.argmax(outputs, axis=1)) > 0   # the greedy action varies
    # the file holds the same arrays, and the same actions come out
    loaded = load_policy(save_policy(tmp_path / "policy.npz", policy))
    assert isinstance(loaded, NetworkPolicy) and loaded.game == "firefighting_graph"
    assert_same_arrays(loaded.arrays(), policy.arrays())
    assert str(loaded.arrays()["activation"]) == activation
    assert_same_arrays({k: v for k, v in loaded.arrays().items() if k != "activation"},
                       {k: v for k, v in network_arrays(net).items() if k != "activation"})
    a, b = None, None
    for x in xs:
        (out_a, a), (out_b, b) = policy.forward(x, a), loaded.forward(x, b)
        np.testing.assert_array_equal(out_a, out_b)
        top = int(np.argmax(out_a))
        forbid = np.ones(3, dtype=np.int8)
        forbid[top] = 0
        assert best(out_b, forbid) == int(np.argsort(out_a)[-2]) != top
        observation = {"observation": x, "action_mask": forbid}
        if kind == "mlp":
            assert loaded(observation) == policy(observation) == best(out_a, forbid)
        else:
            with pytest.raises(TypeError, match="recurrent"):
                loaded(observation)


#: (game, network, parameters, (network key, noise seed)): networks whose greedy actions vary,
#: the recurrent one's with its memory.
POLICY_GAMES = [
    ("firefighting_graph", "gru",
     {"n_agents": 2, "max_steps": 8, "layout": "row", "preset": "oliehoek",
      "population": "policy:2"}, (0, 2)),
    ("bucket_brigade", "mlp", {"max_steps": 6, "population": "policy:2,random:2"}, (7, 3)),
]


@pytest.mark.parametrize("game, kind, parameters, seeds", POLICY_GAMES, ids=["fg-gru", "bb-mlp"])
def test_a_network_policy_file_plays_the_same_in_the_model_and_the_env(tmp_path, game, kind,
                                                                       parameters, seeds):
    env = dilemmas.parallel_env(game, **parameters)
    name = env.possible_agents[0]
    settings = Settings(network=kind, hidden=8)
    net = perturbed(network(jax.random.PRNGKey(seeds[0]), env.observation_space(name).shape[0],
                            int(env.action_space(name).n), settings, 1.0), seeds[1])
    path = save_policy(tmp_path / "policy.npz", NetworkPolicy(network_arrays(net), game))
    policy = load_policy(path)
    chosen, memoryless = [], []
    for reset_seed in (0, 3):
        memory = dict.fromkeys(env.possible_agents)   # each seat's own, zeros at the start
        observations, infos = env.reset(seed=reset_seed)
        while env.agents:
            actions = {}
            for agent in env.agents:
                mask = infos[agent]["action_mask"]
                out, memory[agent] = policy.forward(observations[agent], memory[agent])
                actions[agent] = best(out, mask)
                memoryless.append(best(policy.forward(observations[agent])[0], mask))
            chosen.extend(actions.values())
            observations, _, _, _, infos = env.step(actions)
        own = own_episode(game, parameters, reset_seed, policy=str(path))
        assert_frames_equal(env.model, own)
    assert len(set(chosen)) > 1
    if kind == "gru":
        assert chosen != memoryless   # the memory decides some actions


# --- 8-9. Trainings: the same seed, the same curve; resuming -----------------------------------

@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """``tiny_training()`` trained without a stop: its folder."""
    report = deep.train(tiny_training(), tmp_path_factory.mktemp("whole"), progress=False)
    assert report.episodes_before == 0 and report.episodes_played == 2
    return report.folder


def test_the_same_seed_gives_the_same_training_and_another_seed_does_not(trained, tmp_path):
    again = deep.train(tiny_training(), tmp_path / "again", progress=False).folder
    assert sorted(p.name for p in trained.glob("curve-*.parquet")) == [
        "curve-000000000.parquet", "curve-000000001.parquet"]
    assert_same_curves(trained, again)
    rows = deep.curves(trained)
    assert rows["replicate"].tolist() == [0, 0, 1, 1] and rows["update"].tolist() == [1, 2] * 2
    assert rows["agent_steps"].tolist() == [48, 96] * 2   # steps x envs x seats per update
    assert (rows["episodes"] >= 8).all()   # 4 episodes x 6 decisions, 3 at most an episode
    by_seed = rows.set_index(["replicate", "update"])["critic_loss"]
    assert not np.array_equal(by_seed[0], by_seed[1])   # the seeds train apart
    with np.load(deep.checkpoint_path(trained), allow_pickle=False) as data:
        checkpoint = {key: data[key] for key in data.files}
    assert int(checkpoint["updates"]) == 2
    files = [policy_arrays(deep.policy_path(trained, index)) for index in (0, 1)]
    for index, arrays in enumerate(files):
        assert_same_arrays(arrays, policy_arrays(deep.policy_path(again, index)))
        assert int(arrays["updates"]) == 2 and str(arrays["kind"]) == "network"
        # the seed's own actor of the checkpoint (the Runner's first leaves)
        order = ("layer0_weight", "layer0_bias", "layer1_weight", "layer1_bias",
                 "gru_weight_ih", "gru_weight_hh", "gru_bias", "gru_bias_n", "head_weight",
                 "head_bias")
        for k, key in enumerate(order):
            np.testing.assert_array_equal(checkpoint[f"leaf{k}"][index], arrays[key])
    assert not np.array_equal(files[0]["head_weight"], files[1]["head_weight"])
    other = deep.train(tiny_training(seed=4), tmp_path / "other", progress=False).folder
    assert not np.array_equal(deep.curves(other)["critic_loss"], rows["critic_loss"])


def test_a_killed_training_resumes_to_the_same_curve(trained, tmp_path, monkeypatch):
    made = DeepTraining.trainer

    def stopping(self):  # the second chunk is never played: killed after one checkpoint
        trainer = made(self)
        chunk, calls = trainer.chunk, []

        def once(runners, count):
            calls.append(count)
            if len(calls) == 2:
                raise KeyboardInterrupt
            return chunk(runners, count)

        trainer.chunk = once
        return trainer

    monkeypatch.setattr(DeepTraining, "trainer", stopping)
    with pytest.raises(KeyboardInterrupt):
        deep.train(tiny_training(), tmp_path, progress=False)
    monkeypatch.undo()
    folder = tmp_path / "tiny"
    assert deep.updates_done(folder) == 1
    assert [p.name for p in folder.glob("curve-*.parquet")] == ["curve-000000000.parquet"]
    assert int(policy_arrays(deep.policy_path(folder, 1))["updates"]) == 1
    # a curve beyond the checkpoint, as a kill between the curve and the checkpoint leaves it
    (folder / "curve-000000001.parquet").write_bytes(b"cut short")
    report = deep.train(tiny_training(), tmp_path, progress=False)
    assert report.episodes_before == 1 and report.episodes_played == 1
    assert_same_curves(folder, trained)
    assert_same_arrays(policy_arrays(deep.checkpoint_path(folder)),
                       policy_arrays(deep.checkpoint_path(trained)))
    for index in (0, 1):
        assert_same_arrays(policy_arrays(deep.policy_path(folder, index)),
                           policy_arrays(deep.policy_path(trained, index)))


def test_a_folder_refuses_another_training(trained, tmp_path):
    folder = shutil.copytree(trained, tmp_path / "tiny")
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with pytest.raises(TrainingError, match="holds a different training"):
        deep.train(tiny_training(ppo={**TINY, "learning_rate": 1e-3}), tmp_path,
                   progress=False)
    assert before == {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _truncated(data):
    return data[:len(data) // 2]


def _garbage(data):
    return b"not a checkpoint"


def _flipped(data):  # the last byte of the last array: the archive's CRC no longer holds
    member = max(zipfile.ZipFile(io.BytesIO(data)).infolist(),
                 key=lambda info: info.header_offset)
    name, extra = struct.unpack("<HH", data[member.header_offset + 26:
                                            member.header_offset + 30])
    at = member.header_offset + 30 + name + extra + member.compress_size - 1
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]


@pytest.mark.parametrize("damage", [
    _garbage,
    _truncated,
    _flipped,
], ids=["garbage", "truncated", "flipped-byte"])
def test_a_damaged_checkpoint_is_named_and_nothing_is_overwritten(trained, tmp_path, damage):
    folder = shutil.copytree(trained, tmp_path / "tiny")
    path = deep.checkpoint_path(folder)
    path.write_bytes(damage(path.read_bytes()))
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with pytest.raises(TrainingError, match=re.escape(f"checkpoint '{path}' cannot be used")):
        deep.train(tiny_training(), tmp_path, progress=False)
    assert before == {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# --- 10-11. Training files and the commands ------------------------------------------------------



@pytest.mark.parametrize("changes, message", [
    ({"epochs = 1": "epochs = 1\nmomentum = 0.9"}, "[ppo] momentum: not allowed here"),
    ({'algorithm = "ippo"': 'algorithm = "dqn"'}, "algorithm='dqn' is not a deep learner"),
    ({'population = "policy:2"': 'population = "random:1,policy:1"'},
     "population='random:1,policy:1' must seat 'policy'"),
    ({"minibatches = 2": "minibatches = 3"}, "minibatches=3 must divide the 8 sequences"),
    ({'kind = "gru"': 'kind = "mlp"', "minibatches = 2": "minibatches = 5"},
     "minibatches=5 must divide the batch of 48 transitions"),
    ({'kind = "gru"': 'kind = "lstm"'}, "[network] kind='lstm'"),
    # hidden: 3 * 10**5 units by 10**5 (the GRU cell) times 2 networks, 4 copies, 4 bytes, 2 seeds
    ({"hidden = 8": "hidden = 100000"},
     "[network] and [ppo]: hidden=100000, layers=2, envs=4 and steps=6 with 2 seeds need at "
     "least 4,172.4 GiB of networks (with their gradients and Adam's moments) and 0.0 GiB of "
     "rollouts (2 agents, observations of 7), more than the 16 GiB a training may hold; make "
     "them smaller"),
    # envs: 10**9 x 6 steps x 2 agents x 7 floats of 4 bytes, 2 seeds
    ({"envs = 4": "envs = 1000000000"},
     "[network] and [ppo]: hidden=8, layers=2, envs=1000000000 and steps=6 with 2 seeds need "
     "at least 0.0 GiB of networks (with their gradients and Adam's moments) and 625.8 GiB of "
     "rollouts (2 agents, observations of 7), more than the 16 GiB a training may hold; make "
     "them smaller"),
    ({"epochs = 1": "epochs = 1\nlearning_rate = nan"},
     "[ppo] learning_rate=nan must be a finite number > 0"),
    ({"epochs = 1": "epochs = 1\nlearning_rate = inf"},
     "[ppo] learning_rate=inf must be a finite number > 0"),
    ({"epochs = 1": "epochs = 1\nlearning_rate = 0"},
     "[ppo] learning_rate=0 must be a finite number > 0"),
    ({"epochs = 1": "epochs = 1\ndiscount = nan"},
     "[ppo] discount=nan must be a finite number from 0 to 1"),
    ({"epochs = 1": "epochs = 1\ngae_lambda = 1.5"},
     "[ppo] gae_lambda=1.5 must be a finite number from 0 to 1"),
    ({"epochs = 1": "epochs = 1\nclip = -inf"}, "[ppo] clip=-inf must be a finite number > 0"),
    ({"epochs = 1": "epochs = 1\nentropy = nan"},
     "[ppo] entropy=nan must be a finite number >= 0"),
    ({"epochs = 1": "epochs = 1\nmax_grad_norm = 0.0"},
     "[ppo] max_grad_norm=0.0 must be a finite number > 0"),
], ids=["ppo-key", "algorithm", "population", "sequences", "transitions", "lstm", "hidden",
        "envs", "rate-nan", "rate-inf", "rate-0", "discount-nan", "lambda-1.5", "clip-inf",
        "entropy-nan", "grad-norm-0"])
def test_a_bad_deep_training_file_names_the_file_and_the_key(tmp_path, changes, message):
    text = DEEP
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(TrainingError) as error:
        read_training(path)
    assert str(path) in str(error.value)
    assert message in str(error.value), str(error.value)
    assert main(["train", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert not (tmp_path / "out").exists()


def test_a_diverging_training_writes_no_policy_file_and_says_so(tmp_path, capsys):
    """A learning rate of 1e30 is finite and allowed, and its first update makes every
    weight non-finite: the command exits 2 naming the seeds, and no policy file exists."""
    path = tmp_path / "diverging.toml"
    path.write_text(DEEP.replace("epochs = 1", "epochs = 1\nlearning_rate = 1e30"))
    assert main(["train", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    folder = tmp_path / "out" / "diverging"
    assert capsys.readouterr().err.strip() == (
        f"dilemmas train: training '{folder}': the weights of seeds 0, 1 are not finite after "
        "1 update (the training diverged), so no policy file was written; lower [ppo] "
        "learning_rate or max_grad_norm and train in a fresh folder")
    assert not list(folder.glob("seed-*/policy.npz"))


def test_the_train_and_evaluate_commands_on_a_deep_training_file(tmp_path, capsys):
    path = tmp_path / "deep.toml"
    path.write_text(DEEP)
    trained = tmp_path / "trained"
    assert main(["train", str(path), "--out", str(trained), "--no-progress"]) == 0
    assert "deep: ippo, 2 seeds x 2 updates, 0 done before, 2 now" in capsys.readouterr().out
    folder = trained / "deep"
    for index in (0, 1):
        policy = load_policy(folder / f"seed-{index}" / "policy.npz")
        assert isinstance(policy, NetworkPolicy) and policy.game == "firefighting_graph"
    assert (folder / "learning_curve.png").exists()
    code = main(["evaluate", str(path), "--trained", str(trained), "--out",
                 str(tmp_path / "evaluation"), "--backend", "serial", "--no-progress"])
    printed = capsys.readouterr().out
    assert code == 0
    # 2 seeds x (greedy, sampled) x (trained, random) x 2 evaluation seeds
    assert "deep-evaluation: 16 runs, 16 played now" in printed
    rows = [line.split() for line in printed.splitlines()]
    # the returns table: a row per training seed and play, one pooled random baseline; then
    # each seed and play against random
    for seed in ("seed-0", "seed-1"):
        for play in ("greedy", "sampled"):
            assert ["policy:2", seed, play, "2"] in [row[:4] for row in rows]
    assert ["random:2", "(random)", "8"] in [row[:3] for row in rows]
    # the social outcomes: the team's reward per step is minus the fire (never positive, so
    # equality and sustainability are undefined and left out)
    social = printed.split("social outcomes of all seats")[1].splitlines()
    assert social[1].split() == ["population", "policy", "play", "efficiency"]
    assert main(["train", str(path), "--out", str(trained), "--backend", "serial"]) == 2
    assert "--backend, --workers and --scheduler place the tabular" in capsys.readouterr().err
    versus = {tuple(row[1:3]) for row in rows if row[:1] == ["(none)"]}
    assert {(seed, play) for seed in ("seed-0", "seed-1")
            for play in ("greedy", "sampled")} <= versus




def test_a_training_killed_before_its_last_policies_resumes_to_them(trained, tmp_path,
                                                                    monkeypatch):
    save = deep.save_policies

    def stopping(folder, training, runners, updates):  # killed after the last checkpoint
        if updates == training.updates:
            raise KeyboardInterrupt
        save(folder, training, runners, updates)

    monkeypatch.setattr(deep, "save_policies", stopping)
    with pytest.raises(KeyboardInterrupt):
        deep.train(tiny_training(), tmp_path, progress=False)
    monkeypatch.undo()
    folder = tmp_path / "tiny"
    assert deep.updates_done(folder) == 2
    with pytest.raises(TrainingError, match="seed 0's policy file is of update 1"):
        tiny_training().finished_policy(folder, 0)  # an evaluation refuses the stale files
    report = deep.train(tiny_training(), tmp_path, progress=False)
    assert report.episodes_before == 2 and report.episodes_played == 0
    assert tiny_training().finished_policy(folder, 1) == deep.policy_path(folder, 1)
    assert_same_curves(folder, trained)
    for index in (0, 1):
        assert int(policy_arrays(deep.policy_path(folder, index))["updates"]) == 2
        assert_same_arrays(policy_arrays(deep.policy_path(folder, index)),
                           policy_arrays(deep.policy_path(trained, index)))


# --- Greedy evaluation during training ([evaluate] every) ------------------------------------

def evaluated(**evaluate) -> DeepTraining:
    """``tiny_training()`` evaluated greedily during training; checkpoints every 2 updates,
    so the chunks split at each evaluation."""
    return tiny_training(checkpoint_every=2,
                         evaluate={"seeds": 2, "backgrounds": [""], **evaluate})


def test_evaluating_during_training_changes_nothing_and_plays_the_greedy_actor(trained,
                                                                             tmp_path):
    training = evaluated(every=1, episodes=64)
    folder = deep.train(training, tmp_path, progress=False).folder
    assert_same_curves(folder, trained)
    assert_same_arrays(policy_arrays(deep.checkpoint_path(folder)),
                       policy_arrays(deep.checkpoint_path(trained)))
    rows = deep.evaluations(folder)
    assert rows["update"].tolist() == [1, 2, 1, 2] and rows["replicate"].tolist() == [0, 0, 1, 1]
    assert set(rows["play"]) == {"greedy"} and rows["episodes"].tolist() == [64] * 4
    # the last evaluation is each seed's final actor played by greedy_episodes from the
    # evaluation's key: the same episodes, so the same mean return
    trainer = training.trainer()
    runners = deep.load_checkpoint(folder, trainer.start(training.keys()))
    for index, key in enumerate(training.keys()):
        actor = jax.tree_util.tree_map(lambda leaf: leaf[index], runners.actor)
        returns, columns, ended = greedy_episodes(trainer.env, actor, 64,
                                                  jax.random.fold_in(key, 2), 3)
        assert bool(np.all(ended))
        last = rows[(rows["replicate"] == index) & (rows["update"] == 2)].iloc[0]
        np.testing.assert_allclose(last["learner_return"], np.asarray(returns).mean(),
                                   rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(last["objective_return"], last["learner_return"])  # own
        for name, values in columns.items():
            np.testing.assert_allclose(last[f"end_{name}"], np.asarray(values).mean(),
                                       rtol=RTOL, atol=ATOL)


def test_the_evaluation_reports_the_reward_trained_on(tmp_path):
    # prosocial with w = 1 over 2 seats: each seat's objective is the sum of both rewards,
    # so its mean over the seats is twice the mean own return
    training = tiny_training(updates=1, ppo={**TINY, "reward": "prosocial",
                                            "prosociality": 1.0},
                             evaluate={"seeds": 2, "backgrounds": [""], "every": 1,
                                       "episodes": 16})
    rows = deep.evaluations(deep.train(training, tmp_path, progress=False).folder)
    assert len(rows) == 2
    np.testing.assert_allclose(rows["objective_return"], 2 * rows["learner_return"],
                               rtol=RTOL, atol=ATOL)


def test_a_killed_training_resumes_to_the_same_evaluations(tmp_path, monkeypatch):
    whole = deep.train(evaluated(every=1, episodes=8), tmp_path / "whole",
                       progress=False).folder
    save = deep.save_checkpoint

    def stopping(folder, runners, updates):  # killed after the second evaluation was written
        if updates == 2:
            raise KeyboardInterrupt
        save(folder, runners, updates)

    monkeypatch.setattr(deep, "save_checkpoint", stopping)
    with pytest.raises(KeyboardInterrupt):
        deep.train(evaluated(every=1, episodes=8), tmp_path / "cut", progress=False)
    monkeypatch.undo()
    cut = tmp_path / "cut" / "tiny"
    assert sorted(p.name for p in cut.glob("evaluation-*.parquet")) == [
        "evaluation-000000001.parquet", "evaluation-000000002.parquet"]
    deep.train(evaluated(every=1, episodes=8), tmp_path / "cut", progress=False)
    for name in ("evaluation-000000001.parquet", "evaluation-000000002.parquet"):
        assert pq.read_table(cut / name).equals(pq.read_table(whole / name)), name


@pytest.mark.parametrize("evaluate, said", [
    ({"every": 0}, r"\[evaluate\] every=0 must be an integer >= 1"),
    ({"every": 1.5}, r"\[evaluate\] every=1.5 must be an integer >= 1"),
    ({"every": 1, "episodes": 0}, r"\[evaluate\] episodes=0 must be an integer >= 1"),
])
def test_bad_evaluation_settings_are_named(evaluate, said):
    with pytest.raises(TrainingError, match=said):
        tiny_training(evaluate={"seeds": 2, "backgrounds": [""], **evaluate})


def test_a_tabular_training_refuses_evaluation_during_training():
    from dilemmas.analysis.learning.training import Training

    with pytest.raises(TrainingError, match=r"\[evaluate\] every: evaluation during training "
                                            "is for deep learners"):
        Training(game="firefighting_graph", population="q_learning:2", episodes=2,
                 name="tabular", parameters=dict(FG), evaluate={"every": 5})
