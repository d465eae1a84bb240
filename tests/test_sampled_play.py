"""``policy_play``: a network policy's seats play its greedy action, or (``sampled``) an
action drawn from its softmax over the allowed actions with the model's ``rng``
(``dilemmas.models.policies.drawn``), reproducibly; a policy with no action distribution
is refused rather than played greedy unsaid."""

import math

import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.models.policies import (BOTS, LinearPolicy, NetworkPolicy, drawn, seated_policy)

GAMES_WITH_BOTS = ["bucket_brigade", "state_punishment", "stag_hunt", "firefighting_graph"]


def test_an_action_is_drawn_from_the_softmax_of_the_allowed_outputs():
    logits = np.array([0.0, 1.0, 2.0, 5.0], dtype=np.float32)
    mask = np.array([1, 1, 1, 0], dtype=np.int8)
    rng = np.random.default_rng(7)
    n = 20_000
    counts = np.bincount([drawn(logits, mask, rng) for _ in range(n)], minlength=4)
    assert counts[3] == 0  # never a forbidden action, however high its output
    weights = np.exp(logits[:3] - logits[:3].max())
    expected = weights / weights.sum()
    for action, p in enumerate(expected):
        se = math.sqrt(p * (1 - p) / n)  # binomial standard error
        assert abs(counts[action] / n - p) < 4 * se, (action, counts[action] / n, p)


def test_one_allowed_action_is_always_drawn():
    rng = np.random.default_rng(0)
    mask = np.array([0, 0, 1, 0], dtype=np.int8)
    assert {drawn(np.array([9.0, 3.0, -50.0, 1.0]), mask, rng) for _ in range(50)} == {2}


def catalogue(name):
    from dilemmas.scenarios.catalogue import catalogues

    chosen = catalogues()[name]
    (bot,) = chosen.bots.values()
    return chosen.substrate, str(bot.path)


def frames(name, play, seed):
    substrate, bot = catalogue(name)
    model = GAMES[name].model(**substrate, population="policy", policy=bot, policy_play=play,
                              rng=seed)
    model.run_model()
    return model.datacollector.get_model_vars_dataframe()


@pytest.mark.parametrize("name", GAMES_WITH_BOTS)
def test_sampled_play_is_reproducible_and_greedy_is_the_default(name):
    import pandas as pd

    substrate, bot = catalogue(name)
    default = GAMES[name].model(**substrate, population="policy", policy=bot, rng=3)
    default.run_model()
    pd.testing.assert_frame_equal(frames(name, "greedy", 3),
                                  default.datacollector.get_model_vars_dataframe())
    pd.testing.assert_frame_equal(frames(name, "sampled", 3), frames(name, "sampled", 3))
    assert any(not frames(name, "sampled", seed).equals(frames(name, "greedy", seed))
               for seed in range(5)), "sampling never changed an episode"


def test_a_policy_with_no_action_distribution_is_not_sampled():
    game = GAMES["firefighting_graph"]
    substrate, bot = catalogue("firefighting_graph")  # two firefighters
    model = game.model(**substrate, rng=0)
    shape = (game.interface.actions(model), game.interface.observation_length(model))
    linear = LinearPolicy(np.ones(shape), np.zeros(shape[0]), game.name)
    for policy, kind in ((lambda observation: 0, "a callable"), (linear, "linear"),
                         (seated_policy([(bot, 1), (linear, 1)]), "seats")):
        with pytest.raises(ValueError, match=rf"policy_play='sampled' .* \({kind}\) has none"):
            game.model(**substrate, population="policy", policy=policy,
                       policy_play="sampled", rng=0)
        game.model(**substrate, population="policy", policy=policy, rng=0)  # greedy: as before
    game.model(**substrate, population="policy", policy=seated_policy([(bot, 1), (bot, 1)]),
               policy_play="sampled", rng=0)  # networks only: sampled


def test_a_bad_policy_play_is_refused_naming_it():
    with pytest.raises(ValueError, match="policy_play='best' is invalid"):
        GAMES["stag_hunt"].model(policy_play="best", rng=0)


def test_a_network_without_a_model_plays_greedy():
    _, bot = catalogue("state_punishment")
    from dilemmas.models.policies import load_policy

    policy = load_policy(bot)
    assert isinstance(policy, NetworkPolicy)
    inputs = policy.inputs
    observation = {"observation": np.zeros(inputs, dtype=np.float32),
                   "action_mask": np.ones(policy.head[0].shape[0], dtype=np.int8)}
    outputs, _ = policy.forward(observation["observation"])
    assert policy(observation) == int(np.argmax(outputs))
    assert BOTS.is_dir()
