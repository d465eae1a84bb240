"""Social outcome metrics (dilemmas/analysis/social.py) against hand computations of Perolat
et al.'s (2017) definitions, and the signal-action mutual information against its identity
I = H(S) + H(A) - H(S, A) (scipy's entropies) and its known values."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy

from dilemmas import GAMES
from dilemmas.analysis.social import mutual_information, outcomes, signal_information


def frame(rewards, removed=None):
    """Agent data of one run: ``rewards[t][i]`` agent i's reward in round t + 1 (cumulated,
    with the Step-0 row of zeros the DataCollector records)."""
    rows = []
    cumulative = np.zeros(len(rewards[0]))
    for step in range(len(rewards) + 1):
        if step:
            cumulative = cumulative + np.asarray(rewards[step - 1], float)
        for agent in range(len(cumulative)):
            row = {"run_id": 7, "Step": float(step), "AgentID": agent + 1,
                   "reward": cumulative[agent]}
            if removed is not None:
                row["removed"] = bool(step and removed[step - 1][agent])
            rows.append(row)
    return pd.DataFrame(rows)


def test_the_four_metrics_by_hand():
    # agent 1: 1 in round 2; agent 2: 3 in round 1 and 0 after; agent 3: 2 in rounds 3 and 4
    rewards = [[0, 3, 0], [1, 0, 0], [0, 0, 1], [0, 0, 1]]
    removed = [[False, False, False], [False, True, False], [False, True, True],
               [False, False, False]]
    found = outcomes(frame(rewards, removed)).loc[7]
    returns = np.array([1.0, 3.0, 2.0])
    assert found["efficiency"] == pytest.approx(6 / 4)
    gini = sum(abs(a - b) for a in returns for b in returns) / (2 * 3 * returns.sum())
    assert found["equality"] == pytest.approx(1 - gini)  # 1 - 8 / 36
    assert found["sustainability"] == pytest.approx(np.mean([2, 1, 3.5]))
    assert found["peace"] == pytest.approx((3 * 4 - 3) / 4)


def test_equality_is_undefined_for_losses_and_peace_without_removals():
    found = outcomes(frame([[1, -2], [0, 0]])).loc[7]
    assert np.isnan(found["equality"]) and np.isnan(found["peace"])
    assert found["efficiency"] == pytest.approx(-1 / 2)
    assert found["sustainability"] == pytest.approx(1.0)  # only agent 1 was rewarded, once
    equal = outcomes(frame([[2, 2], [1, 1]])).loc[7]
    assert equal["equality"] == pytest.approx(1.0)


def test_mutual_information_is_the_entropy_identity_and_its_bounds():
    rng = np.random.default_rng(3)
    s = rng.integers(0, 3, 500)
    a = np.where(rng.random(500) < 0.7, s, rng.integers(0, 3, 500))

    def h(*columns):
        counts = pd.Series(list(zip(*columns))).value_counts().to_numpy()
        return entropy(counts, base=2)

    assert mutual_information(s, a) == pytest.approx(h(s) + h(a) - h(s, a), abs=1e-12)
    assert mutual_information(s, s) == pytest.approx(h(s), abs=1e-12)
    assert mutual_information([0, 1, 0, 1], [0, 0, 1, 1]) == pytest.approx(0.0, abs=1e-12)


def test_truthful_signals_carry_information_and_random_ones_about_none():
    """``firefighter`` signals what it then does; ``random`` draws its signal and its mode
    apart, so its plug-in estimate is only noise: 2 n ln 2 I is about chi-squared with one
    degree of freedom for n agent-nights (G-test), so with n about 200 (4 episodes of about
    12 nights, 4 agents) I > 0.05 has a chance of about 2e-4."""
    def information(population, seeds=4):
        frames = []
        for seed in range(seeds):
            model = GAMES["bucket_brigade"].model(population=population, rng=seed)
            model.run_model()
            frames.append(model.datacollector.get_agent_vars_dataframe().reset_index()
                          .assign(run_id=0))
        return signal_information(pd.concat(frames)).loc[0]

    agents = pd.concat([frame([[0, 0]]).assign(signal="WORK", mode="WORK")])
    assert signal_information(agents).loc[7] == 0.0  # one value each: nothing to tell
    assert information("firefighter") > 0.5
    assert information("random") < 0.05
