"""Rankings (dilemmas/analysis/game_theory/ranking.py) and the mix studies under them (dilemmas/analysis/game_theory/payoffs.py).

Known answers: the test-only Public Goods game's team outcome is exactly additive in the
shares of its behaviours (a contributor adds ``multiplier * endowment`` per round to the
pot that everyone shares, a keeper keeps ``endowment``; ``random`` contributes with
probability 1/2), so the planted values are ``T * e * r`` (cooperate), ``T * e`` (defect)
and their mean (random), with ``T`` rounds, endowment ``e`` and multiplier ``r``.
"""

from math import comb

import numpy as np
import pytest
from scipy import stats

from dilemmas.analysis.game_theory import payoffs
from dilemmas.analysis.game_theory import ranking
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import StudyError


def test_all_mixes_are_every_team_once():
    mixes = payoffs.all_mixes(("a", "b", "c"), 4)
    assert mixes.shape == (comb(6, 2), 3)
    assert (mixes.sum(axis=1) == 4).all()
    assert len({tuple(row) for row in mixes.tolist()}) == len(mixes)
    assert mixes[0].tolist() == [4, 0, 0]


def test_population_round_trip():
    behaviours = ("firefighter", "liar", "free_rider")
    value = payoffs.population(behaviours, [2, 0, 2])
    assert value == "firefighter:2,free_rider:2"
    assert payoffs.counts_of(behaviours, value).tolist() == [2, 0, 2]


def test_design_keeps_pure_teams_and_samples_the_rest_reproducibly():
    behaviours = tuple("abcdefgh")
    design = ranking.design(behaviours, 4, teams=30, seed=5)
    assert len(design) == 30
    assert len({tuple(row) for row in design.tolist()}) == 30
    assert {tuple(row) for row in np.eye(8, dtype=int).tolist()} <= \
        {tuple((row // 4).tolist()) for row in design if row.max() == 4}
    assert (design == ranking.design(behaviours, 4, teams=30, seed=5)).all()
    assert (design != ranking.design(behaviours, 4, teams=30, seed=6)).any()
    assert len(ranking.design(("a", "b"), 4, teams=30)) == 5  # every mix: fewer than 30


def planted(rng, values, runs, noise, players=4):
    counts = np.array([rng.multinomial(players, np.ones(len(values)) / len(values))
                       for _ in range(runs)])
    outcomes = counts / players @ values + rng.normal(0, noise, runs)
    return counts, outcomes


def test_intervals_cover_planted_values_at_their_confidence():
    """Over 400 synthetic studies, the 95% interval of each value and marginal value covers
    the planted one in 95% of them, within 3 binomial standard errors."""
    rng = np.random.default_rng(1)
    values = np.array([5.0, 2.0, -1.0])
    marginal = (values - values.mean()) / 4
    trials, hits_value, hits_marginal = 400, np.zeros(3), np.zeros(3)
    for _ in range(trials):
        counts, outcomes = planted(rng, values, 60, 1.5)
        table = ranking.fit_outcomes("abc", counts, outcomes).table.set_index("behaviour")
        table = table.loc[list("abc")]
        hits_value += (table["value_low"] <= values) & (values <= table["value_high"])
        hits_marginal += (table["marginal_low"] <= marginal) & (marginal <= table["marginal_high"])
    tolerance = 3 * np.sqrt(0.95 * 0.05 / trials)
    assert np.all(np.abs(hits_value / trials - 0.95) < tolerance), hits_value / trials
    assert np.all(np.abs(hits_marginal / trials - 0.95) < tolerance), hits_marginal / trials


def test_ranking_recovers_planted_public_goods_contributions(tmp_path):
    study = ranking.ranking_study("public_goods", ["cooperate", "defect", "random"],
                                  replicates=5, seed=1)
    assert len(study.runs()) == comb(6, 2) * 5
    folder = run_study(study, tmp_path, backend="serial", progress=False).folder
    fitted = ranking.fit(folder, confidence=0.99)
    table = fitted.table.set_index("behaviour")
    rounds, endowment, multiplier = 20, 1.0, 1.6
    truth = {"cooperate": rounds * endowment * multiplier, "defect": rounds * endowment,
             "random": rounds * endowment * (1 + multiplier) / 2}
    mean = np.mean(list(truth.values()))
    for name, value in truth.items():
        assert table.loc[name, "value_low"] <= value <= table.loc[name, "value_high"], name
        margin = (value - mean) / 4
        assert table.loc[name, "marginal_low"] <= margin <= table.loc[name, "marginal_high"]
    assert list(fitted.table["behaviour"]) == ["cooperate", "random", "defect"]
    assert fitted.table["rank"].tolist() == [1, 2, 3]
    assert 0.9 < fitted.r_squared <= 1  # additive by construction: only random adds noise


def test_proposal_goes_where_the_uncertainty_is():
    """A behaviour seen in one team only is the least known: the next team includes it, and
    every pick lowers the trace of the covariance."""
    rng = np.random.default_rng(2)
    counts = np.array([[4, 0, 0], [0, 4, 0], [2, 2, 0], [3, 1, 0], [1, 3, 0]] * 8
                      + [[3, 0, 1]])
    outcomes = counts / 4 @ np.array([1.0, 2.0, 3.0]) + rng.normal(0, 0.5, len(counts))
    fitted = ranking.fit_outcomes("abc", counts, outcomes)
    proposal = ranking.propose(fitted, 6)
    assert "c:" in proposal["population"].iloc[0]
    assert proposal["runs"].sum() == 6
    trace = [np.trace(fitted.covariance), *proposal["uncertainty"]]
    assert all(later < earlier for earlier, later in zip(trace, trace[1:]))


def test_marginal_values_are_contrasts_of_the_values():
    rng = np.random.default_rng(3)
    counts, outcomes = planted(rng, np.array([1.0, 0.0, 4.0, 2.0]), 80, 1.0)
    fitted = ranking.fit_outcomes("abcd", counts, outcomes)
    table = fitted.table.set_index("behaviour").loc[list("abcd")]
    assert np.allclose(table["marginal"], (fitted.mean - fitted.mean.mean()) / 4)
    assert (np.diff(fitted.table["value"]) <= 0).all()  # best first
    quantile = stats.t.ppf(0.975, 80 - 4)
    assert np.allclose(table["value_high"] - table["value"],
                       quantile * np.sqrt(np.diag(fitted.covariance)))


@pytest.mark.parametrize("call, message", [
    (lambda: ranking.fit_outcomes("ab", [[2, 0], [0, 2]], [1.0, 2.0]), "more runs"),
    (lambda: ranking.fit_outcomes("ab", [[2, 0], [0, 2], [1, 1]], [1, 2, 3], prior=0),
     "prior"),
    (lambda: ranking.design("abc", 4, teams=2), "teams"),
    (lambda: ranking.ranking_study("bucket_brigade", ["firefighter", "nobody"]),
     "'nobody' is not a behaviour"),
    (lambda: ranking.ranking_study("bucket_brigade", ["firefighter", "q_learning"]),
     "not a fixed behaviour"),
    (lambda: ranking.ranking_study("bucket_brigade", ["hero", "hero"]), "name one twice"),
    (lambda: ranking.ranking_study("bucket_brigade", ["hero"]), "at least 2"),
    (lambda: ranking.ranking_study("bucket_brigade", fixed={"num_agents": 99}), "num_agents"),
    (lambda: ranking.ranking_study("bucket_brigade", fixed={"population": "hero"}),
     "population is what this study varies"),
])
def test_bad_input_is_named(call, message):
    with pytest.raises((ValueError, StudyError), match=message):
        call()
