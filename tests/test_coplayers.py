"""Frozen co-players in a deep training (dilemmas/learning/ppo.py ``CoPlayers``, the
``[coplayers]`` table of dilemmas/learning/deep.py): their seats play the frozen policy, the
one drawn per episode by the weights, and move no network; bad tables are named.

Co-players are network policies or scripted behaviours standing in for their seat.

One small Firefighting Graph (two firefighters, three steps: short episodes, many of them)."""

import tomllib

import jax
import numpy as np
import pytest

from dilemmas.analysis.learning.training import TrainingError
from dilemmas.envs.functional import functional_env
from dilemmas.learning.deep import DeepTraining
from dilemmas.learning.training_file import read_training
from dilemmas.learning.coplayers import CoPlayers
from dilemmas.learning.ppo import Trainer
from dilemmas.learning.ppo_settings import Settings
from dilemmas.models.policies import BOTS, NetworkPolicy, load_policy

FG = {"n_agents": 2, "max_steps": 3, "layout": "row", "preset": "oliehoek"}
BOT = BOTS / "firefighting_graph_ippo_firefighter.npz"  # a GRU network


def env():
    return functional_env("firefighting_graph", population="policy:2", **FG)


def constant(action: int, inputs: int = 7, actions: int = 2) -> NetworkPolicy:
    """A network without layers whose logits favour ``action`` by 10 whatever it sees."""
    bias = np.zeros(actions, np.float32)
    bias[action] = 10.0
    return NetworkPolicy({"activation": np.array("tanh"),
                          "head_weight": np.zeros((actions, inputs), np.float32),
                          "head_bias": bias}, "firefighting_graph")


def rollout(coplayers, envs=4, steps=6, seeds=1):
    trainer = Trainer(env(), Settings(network="gru", share=False, hidden=8, envs=envs,
                                      steps=steps, minibatches=2, epochs=1), 2, coplayers)
    runners = trainer.start(jax.random.split(jax.random.PRNGKey(5), seeds))
    runner = jax.tree_util.tree_map(lambda x: x[0], runners)
    return trainer, runners, jax.jit(trainer.rollout)(runner)[1]


def test_a_coplayer_seat_plays_the_frozen_recurrent_policy_and_moves_no_network():
    bot = load_policy(BOT)
    trainer, runners, data = rollout(CoPlayers((1,), (bot,), (1.0,), "greedy"))
    observations = np.asarray(data.observations[:, :, 1])
    first, actions = np.asarray(data.first[:, :, 1]), np.asarray(data.actions[:, :, 1])
    assert first.sum() > first.shape[1]  # several episodes in each rollout
    for e in range(observations.shape[1]):
        memory = None
        for t in range(observations.shape[0]):
            if first[t, e]:
                memory = None
            logits, memory = bot.forward(observations[t, e], memory)
            assert actions[t, e] == np.argmax(logits), (t, e)
    trained, _ = trainer.chunk(runners, 2)
    before, after = runners.actor.head.weight, trained.actor.head.weight
    assert not np.array_equal(before[:, 0], after[:, 0])  # the learning seat moves
    assert np.array_equal(before[:, 1], after[:, 1])      # the co-player's seat does not


def test_each_episode_draws_its_coplayer_by_the_weights_and_keeps_it():
    """Two co-players that always choose 0 and always 1, weights 0.3 and 0.7: every
    episode's co-player seat plays one of them throughout, the second in 0.7 of them within
    four binomial standard errors."""
    weights = (0.3, 0.7)
    _, _, data = rollout(CoPlayers((1,), (constant(0), constant(1)), weights), envs=50,
                         steps=60)
    first, actions = np.asarray(data.first[:, :, 1]), np.asarray(data.actions[:, :, 1])
    episodes = []
    for e in range(first.shape[1]):
        starts = list(np.flatnonzero(first[:, e])) + [first.shape[0]]
        episodes += [actions[a:b, e] for a, b in zip(starts[:-1], starts[1:])]
    assert all(len(set(episode)) == 1 for episode in episodes)
    ones = np.mean([episode[0] for episode in episodes])
    se = np.sqrt(weights[1] * weights[0] / len(episodes))
    assert len(episodes) > 900 and abs(ones - weights[1]) < 4 * se, (ones, len(episodes))


def test_a_weight_of_zero_is_never_drawn():
    _, _, data = rollout(CoPlayers((1,), (constant(0), constant(1)), (0.0, 2.0)), envs=20,
                         steps=30)
    assert (np.asarray(data.actions[:, :, 1]) == 1).all()


TRAINING = f"""\
game = "firefighting_graph"
algorithm = "ippo"
population = "policy:2"
updates = 2

[parameters]
n_agents = 2
max_steps = 3
layout = "row"
preset = "oliehoek"

[network]
share = false
hidden = 8

[ppo]
envs = 4
steps = 6
minibatches = 2
epochs = 1

[coplayers]
seats = [1]
policies = ["{BOT}"]
weights = [1.0]
"""


def test_a_training_file_with_coplayers_trains_the_other_seats_only(tmp_path):
    from dilemmas.learning import deep

    path = tmp_path / "co.toml"
    path.write_text(TRAINING)
    training = read_training(path)
    assert training.frozen().seats == (1,) and training.frozen().play == "sampled"
    folder = deep.train(training, tmp_path / "out", progress=False).folder
    curve = deep.curves(folder)
    assert (curve["agent_steps"] == curve["update"] * 4 * 6).all()  # one learning seat
    policy = load_policy(deep.policy_path(folder, 0))
    assert policy.kind == "seats"


@pytest.mark.parametrize("old, new, message", [
    ("share = false", "share = true", "[coplayers] need [network] share = false"),
    ("seats = [1]", "seats = [2]", "seats=[2] must be distinct learning seats, some but not "
                                   "all of 0 to 1"),
    ("seats = [1]", "seats = [0, 1]", "seats=[0, 1] must be distinct learning seats"),
    ("seats = [1]", 'seats = "1"', "seats='1' must be a list of learning seats"),
    (f'policies = ["{BOT}"]', 'policies = ["nowhere.npz"]',
     "[coplayers] policies[0]: policy='nowhere.npz' is not a file"),
    (f'policies = ["{BOT}"]', 'policies = [{bot = "nobody"}]',
     "policies[0]: bot='nobody' is not a bot of firefighting_graph"),
    (f'policies = ["{BOT}"]', 'policies = [{behaviour = "q_learning"}]',
     "policies[0]: 'q_learning' is not a fixed behaviour"),
    (f'policies = ["{BOT}"]', 'policies = [{behaviour = "fixed1", seat = 0}]',
     "policies[0]={'behaviour': 'fixed1', 'seat': 0}: a scripted co-player is "
     '{behaviour = "name"} alone'),
    (f'policies = ["{BOT}"]', 'policies = [{behaviour = "nobody"}]',
     "policies[0]: 'nobody' is not a behaviour"),
    ("weights = [1.0]", "weights = [1.0, 2.0]", "weights=[1.0, 2.0] must be a list of 1 "
                                                "numbers, one per policy"),
    ("weights = [1.0]", "weights = [0.0]", "weights=[0.0] must be one finite number >= 0 per "
                                           "policy, not all 0"),
    ("weights = [1.0]", "weights = [nan]", "weights=[nan] must be one finite number"),
    ("weights = [1.0]", 'weights = [1.0]\nplay = "argmax"', "play='argmax' must be 'greedy'"),
    ("weights = [1.0]", "weights = [1.0]\nmix = 1", "[coplayers] mix: not allowed here"),
    ("weights = [1.0]\n", "", "[coplayers] weights: missing"),
    ("weights = [1.0]\n", "weights = [1.0]\n[evaluate]\nevery = 1\n",
     "[evaluate] every: a training with [coplayers] is not evaluated greedily"),
], ids=["share", "seat-range", "all-seats", "seats-type", "no-file", "no-bot", "learner",
        "behaviour-seat", "no-behaviour", "weights-length",
        "weights-zero", "weights-nan", "play", "unknown-key", "missing", "evaluate-every"])
def test_a_bad_coplayers_table_is_named(tmp_path, old, new, message):
    assert old in TRAINING
    path = tmp_path / "bad.toml"
    path.write_text(TRAINING.replace(old, new))
    with pytest.raises(TrainingError) as error:
        read_training(path)
    assert message in str(error.value) and str(path) in str(error.value), str(error.value)


def test_a_training_without_coplayers_has_none():
    training = DeepTraining(game="firefighting_graph", population="policy:2", updates=1,
                            name="plain", parameters=dict(FG))
    assert training.frozen() is None and "coplayers" not in training.definition()


def test_a_scripted_coplayer_stands_in_for_its_seat_in_the_episodes_that_draw_it():
    """Co-players a network that always chooses 0 and the scripted ``fixed1``, drawn per
    episode: in every decision the co-player seat's firefighter goes where the drawn one
    sends it (house seat + action, docs/rules/firefighting_graph.md), whatever the learner's
    untrained network chose there; both are drawn."""
    trainer = Trainer(env(), Settings(network="gru", share=False, hidden=8, envs=40, steps=6,
                                      minibatches=2, epochs=1), 2,
                      CoPlayers((1,), (constant(0), "fixed1"), (0.5, 0.5), "greedy"))
    runner = jax.tree_util.tree_map(lambda x: x[0],
                                    trainer.start(jax.random.split(jax.random.key(3), 1)))
    decision = jax.jit(lambda runner: trainer._decision(0, runner))
    drawn, went, chose, ended = [], [], [], []
    for _ in range(30):
        drawn.append(np.asarray(runner.coplayer[:, 0]))
        runner, step, _ = decision(runner)
        went.append(np.asarray(runner.env.arrays["visited"][:, 0, 1]) - 1)
        chose.append(np.asarray(step.actions[:, 1]))
        ended.append(np.asarray(step.dones[:, 1]))  # the state is then the next episode's
    drawn, went, chose, ended = map(np.concatenate, (drawn, went, chose, ended))
    drawn, went, chose = drawn[~ended], went[~ended], chose[~ended]
    np.testing.assert_array_equal(went, drawn)  # network 0 sends it to 0, fixed1 to 1
    assert 0.3 < drawn.mean() < 0.7
    assert (chose[drawn == 1] == 0).any()  # the learner's own action, replaced by fixed1


def test_scripted_coplayers_in_a_training_file(tmp_path):
    text = TRAINING.replace(f'policies = ["{BOT}"]\nweights = [1.0]',
                            f'policies = ["{BOT}", {{behaviour = "fixed1"}}]\n'
                            'weights = [0.5, 0.5]')
    frozen = DeepTraining(name="mixed", **tomllib.loads(text)).frozen()
    assert frozen.policies[1] == "fixed1" and frozen.scripted == ("fixed1",)
    assert frozen.networks[0].kind == "network"
