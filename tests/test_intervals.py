"""Confidence intervals of means over runs that respect the range of the quantity
(``dilemmas.analysis.studies.results.score_interval``, ``mean_interval``, ``aggregate(..., ranges=...)``), the
games' declared ranges (``Game.ranges``) and the 100-column ``dilemmas summary``
(``results.summary_text``)."""

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dilemmas.analysis.studies import results
from dilemmas.cli.main import main
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study
from dilemmas import GAMES

ROOT = Path(__file__).resolve().parents[1]
NOMINAL = 0.95
STUDIES = 2_000  # simulated studies per scenario
SE = math.sqrt(NOMINAL * (1 - NOMINAL) / STUDIES)  # of a coverage estimate: about 0.0049
RUNS = 10  # runs per simulated study


def t_interval(values, confidence=NOMINAL):
    """The Student-t interval of the mean, written out."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * values.std(ddof=1) / math.sqrt(n)
    return values.mean() - half, values.mean() + half


def coverage(draw, truth, bounds, seed):
    """Share of ``STUDIES`` simulated studies of ``RUNS`` runs each (``draw(rng, shape)``)
    whose interval holds ``truth``; the intervals; the studies' values."""
    values = draw(np.random.default_rng(seed), (STUDIES, RUNS))
    mean, se = values.mean(axis=1), values.std(axis=1, ddof=1) / math.sqrt(RUNS)
    low, high = results.score_interval(mean, se, RUNS, NOMINAL, bounds)
    return float(np.mean((low <= truth) & (truth <= high))), (low, high), values


# --- Coverage on simulated data -----------------------------------------------------------
# Tolerances: 3 binomial standard errors of a coverage estimate over STUDIES studies.
# Measured with these seeds (and, in brackets, over 200,000 studies): fractions p = 0.5:
# 0.948 (0.952), p = 0.2: 0.951 (0.952), p = 0.05: 0.957 (0.957); counts lambda = 5: 0.952
# (0.952), lambda = 0.5: 0.971 (0.966), lambda = 0.1: 0.938 (0.938); normal: 0.951 (0.950).

@pytest.mark.parametrize("p", [0.5, 0.2])
def test_fractions_away_from_the_bounds_cover_at_the_nominal_level(p):
    found, (low, high), _ = coverage(lambda rng, shape: rng.binomial(20, p, shape) / 20, p,
                                     (0, 1), seed=1)
    assert abs(found - NOMINAL) < 3 * SE, found
    assert np.all((0 <= low) & (low <= high) & (high <= 1))


def test_fractions_near_a_bound_cover_at_least_the_nominal_level():
    # p = 0.05: a run of 20 trials often counts 0; the interval is slightly conservative.
    p = 0.05
    found, (low, high), values = coverage(
        lambda rng, shape: rng.binomial(20, p, shape) / 20, p, (0, 1), seed=2)
    assert found > NOMINAL - 3 * SE, found
    assert np.all((0 <= low) & (high <= 1))
    t_low = np.array([t_interval(v)[0] for v in values])
    assert (t_low < 0).mean() > 0.01  # where the t interval leaves the range


def test_counts_cover_at_the_nominal_level():
    found, (low, _), _ = coverage(lambda rng, shape: rng.poisson(5, shape).astype(float), 5,
                                  (0, None), seed=3)
    assert abs(found - NOMINAL) < 3 * SE, found
    assert np.all(low >= 0)


def test_rare_counts_cover_at_least_the_nominal_level():
    # lambda = 0.5: all ten runs count 0 in e**-5 = 0.7% of the studies; phi = 1 then.
    found, (low, _), _ = coverage(lambda rng, shape: rng.poisson(0.5, shape).astype(float),
                                  0.5, (0, None), seed=4)
    assert found > NOMINAL - 3 * SE, found
    assert np.all(low >= 0)


def test_very_rare_counts_fall_short_of_nominal_as_documented():
    # The documented limitation (score_interval, docs/explanation/statistics.md): with
    # lambda = 0.1 and 10 runs (one event per study on average) the coverage is 0.938 over
    # 200,000 studies, below nominal: three single events give phi < 1 and a lower end just
    # above 0.1. Asserted: that level within 3 SE, and far above the t interval's 0.63.
    truth, measured = 0.1, 0.938
    found, _, values = coverage(lambda rng, shape: rng.poisson(truth, shape).astype(float),
                                truth, (0, None), seed=5)
    assert found > measured - 3 * math.sqrt(measured * (1 - measured) / STUDIES), found
    t_found = np.mean([low <= truth <= high for low, high in map(t_interval, values)])
    assert t_found < 0.7 and found > t_found + 0.2


def test_unbounded_data_get_exactly_the_t_interval():
    found, (low, high), values = coverage(lambda rng, shape: rng.normal(1.0, 2.0, shape), 1.0,
                                          (None, None), seed=6)
    assert abs(found - NOMINAL) < 3 * SE, found
    expected = np.array([t_interval(v) for v in values])
    mean, se = values.mean(axis=1), values.std(axis=1, ddof=1) / math.sqrt(RUNS)
    half = se * stats.t.ppf(0.5 + NOMINAL / 2, RUNS - 1)
    assert np.array_equal(low, mean - half) and np.array_equal(high, mean + half)
    np.testing.assert_allclose(np.column_stack([low, high]), expected, rtol=1e-12)


# --- Always inside the range --------------------------------------------------------------

def _check(values, bounds, confidence):
    found = results.mean_interval(values, confidence, bounds)
    low_end = -math.inf if bounds[0] is None else bounds[0]
    high_end = math.inf if bounds[1] is None else bounds[1]
    assert low_end <= found["low"] <= found["mean"] <= found["high"] <= high_end, found
    return found


def _solves_the_defining_inequality(found, values, bounds, confidence):
    """An end strictly inside the range is a root of (m - mu)^2 = t^2 phi V(mu) / n."""
    a, b = bounds
    m, n = found["mean"], found["n"]
    s2 = np.var(values, ddof=1)
    t = stats.t.ppf(0.5 + confidence / 2, n - 1)

    def variance(mu):
        if a is not None and b is not None:
            return (mu - a) * (b - mu) / (b - a) ** 2
        return mu - a if a is not None else b - mu

    if variance(m) <= 1e-9 or s2 == 0:
        return
    phi = s2 / variance(m)
    for end in (found["low"], found["high"]):
        if variance(end) > 1e-9:
            assert (m - end) ** 2 == pytest.approx(t ** 2 * phi * variance(end) / n,
                                                   rel=1e-6, abs=1e-12)


FRACTIONS = st.lists(st.floats(0, 1), min_size=2, max_size=30)
COUNTS = st.lists(st.one_of(st.integers(0, 50).map(float), st.floats(0, 1e6)),
                  min_size=2, max_size=30)
CONFIDENCE = st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99])


@given(FRACTIONS, CONFIDENCE)
def test_an_interval_of_fractions_lies_in_0_1(values, confidence):
    found = _check(values, (0, 1), confidence)
    _solves_the_defining_inequality(found, values, (0, 1), confidence)


@given(COUNTS, CONFIDENCE)
def test_an_interval_of_counts_lies_above_0(values, confidence):
    found = _check(values, (0, None), confidence)
    _solves_the_defining_inequality(found, values, (0, None), confidence)


@given(COUNTS, CONFIDENCE)
def test_an_interval_of_negative_totals_lies_below_0(values, confidence):
    values = [-v for v in values]
    found = _check(values, (None, 0), confidence)
    _solves_the_defining_inequality(found, values, (None, 0), confidence)


@given(st.lists(st.floats(-3, 7), min_size=2, max_size=30), CONFIDENCE)
def test_an_interval_of_a_shifted_range_lies_in_it(values, confidence):
    found = _check(values, (-3, 7), confidence)
    _solves_the_defining_inequality(found, values, (-3, 7), confidence)


# --- Degenerate cases ---------------------------------------------------------------------

def test_all_zero_fractions_give_0_to_the_wilson_bound_with_phi_1():
    found = results.mean_interval(np.zeros(RUNS), bounds=(0, 1))
    k = stats.t.ppf(0.975, RUNS - 1) ** 2 / RUNS
    assert found["low"] == 0 and found["high"] == pytest.approx(k / (1 + k)) and found["high"] > 0
    ones = results.mean_interval(np.ones(RUNS), bounds=(0, 1))
    assert ones["high"] == 1 and ones["low"] == pytest.approx(1 - k / (1 + k))


def test_all_zero_counts_give_0_to_the_poisson_bound():
    found = results.mean_interval(np.zeros(RUNS), bounds=(0, None))
    assert found["low"] == 0 and found["high"] == pytest.approx(
        stats.t.ppf(0.975, RUNS - 1) ** 2 / RUNS)
    penalty = results.mean_interval(np.zeros(RUNS), bounds=(None, 0))
    assert penalty["high"] == 0 and penalty["low"] == pytest.approx(-found["high"])


@pytest.mark.parametrize("bounds", [(0, 1), (0, None), (None, 0), (None, None)])
def test_a_single_value_has_no_interval(bounds):
    for values in ([0.0], [0.0, float("nan")], []):
        found = results.mean_interval(values, bounds=bounds)
        assert math.isnan(found["low"]) and math.isnan(found["high"])
        assert found["n"] == len(values) - int(len(values) == 2)


@pytest.mark.parametrize("bounds", [(0, 1), (0, None), (None, 1), (None, None)])
def test_equal_values_inside_the_range_give_a_zero_width_interval(bounds):
    found = results.mean_interval([0.3] * 5, bounds=bounds)
    assert found["low"] == found["high"] == found["mean"] == pytest.approx(0.3)


def test_values_outside_the_range_and_bad_bounds_are_errors():
    with pytest.raises(ValueError, match="outside its declared range"):
        results.mean_interval([0.5, 1.5], bounds=(0, 1))
    with pytest.raises(ValueError, match="low must be below high"):
        results.mean_interval([0.5, 0.7], bounds=(1, 0))
    table = pd.DataFrame({"g": ["a", "a"], "x": [-1.0, 2.0]})
    with pytest.raises(ValueError, match="x: -1.0 lies outside"):
        results.aggregate(table, "g", "x", ranges={"x": (0, None)})


def test_default_bounds_keep_the_t_interval_of_mean_interval():
    values = np.random.default_rng(7).normal(size=12)
    found = results.mean_interval(values, 0.9)
    se = values.std(ddof=1) / np.sqrt(12)
    half = se * stats.t.ppf(0.5 + 0.9 / 2, 11)
    assert (found["se"], found["low"], found["high"]) == (se, values.mean() - half,
                                                          values.mean() + half)


# --- aggregate ----------------------------------------------------------------------------

def test_aggregate_uses_the_ranges_and_sorts_its_rows():
    table = pd.DataFrame({"mix": ["b", "b", "b", "a", "a", "c"],
                          "beta": [0.3, 0.3, 0.3, 0.1, 0.1, 0.2],
                          "rate": [0.0, 0.0, 0.1, 0.9, 1.0, 0.5],
                          "x": [-1.0, 0.0, 1.0, 2.0, 3.0, 4.0]})
    out = results.aggregate(table, ["mix", "beta"], ["rate", "x"], ranges={"rate": (0, 1)})
    assert list(out["mix"]) == ["a", "b", "c"] and list(out["n"]) == [2, 3, 1]
    for (_, row), mix in zip(out.iterrows(), "abc"):
        values = table.loc[table["mix"] == mix, "rate"]
        found = results.mean_interval(values, bounds=(0, 1))
        assert (row["rate"], row["rate_low"], row["rate_high"]) == pytest.approx(
            (found["mean"], found["low"], found["high"]), nan_ok=True)
        t_found = results.mean_interval(table.loc[table["mix"] == mix, "x"])
        assert (row["x_low"], row["x_high"]) == pytest.approx(
            (t_found["low"], t_found["high"]), nan_ok=True)
    assert out.loc[1, "rate_low"] >= 0 > t_interval([0.0, 0.0, 0.1])[0]


def test_a_group_all_at_a_bound_borrows_the_columns_pooled_dispersion():
    # One group spread in (0, 1), one all at 0: the second's interval is [0, k / (1 + k)]
    # with k = t^2 phi / n (the Wilson-type bound), phi the first group's dispersion
    # s^2 / (m (1 - m)) -- the Pearson pooled estimate when only one group has one.
    spread = np.array([0.2, 0.4, 0.3, 0.5])
    table = pd.DataFrame({"group": ["a"] * 4 + ["b"] * 4,
                          "rate": np.concatenate([spread, np.zeros(4)])})
    out = results.aggregate(table, "group", ["rate"], ranges={"rate": (0, 1)})
    m, s2 = spread.mean(), spread.var(ddof=1)
    k = stats.t.ppf(0.975, 3) ** 2 * (s2 / (m * (1 - m))) / 4
    zero = out[out["group"] == "b"].iloc[0]
    assert zero["rate_low"] == 0
    assert zero["rate_high"] == pytest.approx(k / (1 + k), rel=1e-12)
    # every group at the bound: nothing to pool, the conservative phi = 1
    alone = results.aggregate(table[table["group"] == "b"], "group", ["rate"],
                              ranges={"rate": (0, 1)}).iloc[0]
    k1 = stats.t.ppf(0.975, 3) ** 2 / 4
    assert alone["rate_high"] == pytest.approx(k1 / (1 + k1), rel=1e-12)


def test_the_pooled_dispersion_weights_groups_by_their_degrees_of_freedom():
    means, ses, ns = np.array([2.0, 5.0, 0.0]), np.array([0.5, 1.0, 0.0]), np.array([5, 9, 4])
    phi = ns[:2] * ses[:2] ** 2 / means[:2]  # Poisson-like: V(m) = m
    expected = (4 * phi[0] + 8 * phi[1]) / 12
    assert results.pooled_dispersion(means, ses, ns, (0, None)) == pytest.approx(expected)
    assert results.pooled_dispersion([0.0], [0.0], [4], (0, None)) is None
    # a group without spread inside the range says nothing about the spread: left out
    assert results.pooled_dispersion([2.0, 3.0], [0.5, 0.0], [5, 5], (0, None)) == \
        pytest.approx(phi[0])
    assert results.pooled_dispersion([3.0], [0.0], [5], (0, None)) is None


def test_a_group_at_a_bound_beside_groups_without_spread_gets_the_conservative_interval():
    table = pd.DataFrame({"g": ["b", "b", "c", "c"], "x": [0.0, 0.0, 0.4, 0.4]})
    out = results.aggregate(table, "g", ["x"], ranges={"x": (0, 1)})
    k = stats.t.ppf(0.975, 1) ** 2 / 2
    assert out.loc[0, "x_high"] == pytest.approx(k / (1 + k))
    assert out.loc[1, "x_low"] == out.loc[1, "x_high"] == 0.4


def test_aggregate_sorts_mixed_values_by_their_string_form():
    table = pd.DataFrame({"key": pd.Series([(1, 2), "z", 3, (1, 2), 3], dtype=object),
                          "x": [1.0, 2.0, 3.0, 4.0, 5.0]})
    out = results.aggregate(table, "key", "x")
    assert list(out["key"]) == sorted({(1, 2), "z", 3}, key=str)
    numbers = results.aggregate(pd.DataFrame({"k": [10, 9, 10, 2], "x": [1.0] * 4}), "k", "x")
    assert list(numbers["k"]) == [2, 9, 10]  # numerically, not as strings


# --- Each game's ranges -------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_declares_the_range_of_each_episode_statistic(name):
    game = GAMES[name]
    frames = []
    for seed in (1, 2):
        model = game.model(rng=seed, **({"max_steps": 30}
                                        if "max_steps" in game.parameters.names else {}))
        model.run_model()
        frames.append(model.datacollector.get_model_vars_dataframe().assign(run=seed))
    episodes = game.statistics(pd.concat(frames), "run")
    assert set(game.ranges) == set(episodes.columns)
    for column, (low, high) in game.ranges.items():
        values = episodes[column].dropna()
        assert low is None or (values >= low).all(), column
        assert high is None or (values <= high).all(), column


def test_a_game_without_ranges_gets_t_intervals():
    from dilemmas.registry import Game

    game = Game(name="x", title="X", model=type("M", (), {}), behaviours={}, statistics=None,
                figures={}, view=None, study="x.toml", rules="x.md")
    assert game.ranges == {}


# --- summary_text and dilemmas summary ----------------------------------------------------

STUDY = """\
game = "bucket_brigade"
seed = 3
replicates = 3

[sweep]
population = ["firefighter:2,liar:2", "random"]
beta = [0.3, 0.1]
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    path = tmp_path_factory.mktemp("study") / "small.toml"
    path.write_text(STUDY)
    study = Study.from_file(path)
    return study, run_study(study, path.parent, backend="serial", progress=False).folder


def test_summary_text_fits_in_100_columns_in_the_study_order(study, capsys):
    study, folder = study
    plain = results.summary_text(folder)
    lines = plain.splitlines()
    assert max(map(len, lines)) <= 100
    assert lines[0].split()[:3] == ["population", "beta", "n"]
    combinations = [(c["population"], repr(c["beta"])) for c in study.combinations()]
    assert [tuple(line.split()[:2]) for line in lines[1:5]] == combinations
    blocks = plain.split("\n\n")
    assert len(blocks) > 1  # 9 statistics do not fit in 100 columns
    for block in blocks:  # each block repeats the index, rows in the same order
        rows = block.splitlines()
        assert rows[0].split()[:2] == ["population", "beta"]
        assert [tuple(row.split()[:2]) for row in rows[1:]] == combinations
    assert not re.search(r"\de[+-]\d", plain)  # no scientific notation

    with_ci = results.summary_text(folder, ci=True)
    assert max(map(len, with_ci.splitlines())) <= 100
    table = results.summary(folder, ci=True)
    saved = results.number_text(table.loc[0, "saved"])
    low, high = (results.number_text(table.loc[0, f"saved_{end}"]) for end in ("low", "high"))
    assert re.search(rf"{re.escape(saved)} \[ *{re.escape(low)}, +{re.escape(high)}\]", with_ci)
    assert all(len(line) <= 60 for line in results.summary_text(folder, True, 60).splitlines())

    assert main(["summary", str(folder), "--ci"]) == 0
    assert capsys.readouterr().out == with_ci + "\n"


def test_a_wide_index_becomes_numbers_with_a_legend():
    index = pd.DataFrame({"population": ["policy:1,civic_voter:1,greedy_forager:1"] * 2,
                          "policy": [f"results/training/state_punishment/seed-{i}/learner.npz"
                                     for i in range(2)]})
    text = results.table_text(index, {"n": ["5", "5"], "harm": ["1.00 [0.500, 1.50]"] * 2},
                              width=60)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 60
    assert lines[0].startswith("#1: population=policy:1,civic_voter:1,greedy_forager:1,")
    assert lines[-2].split() == ["1", "5", "1.00", "[0.500,", "1.50]"]


@pytest.mark.parametrize("value, text", [
    (0.5123, "0.512"), (12.04, "12.0"), (1234.5, "1234"), (0.9996, "1.00"), (0, "0"),
    (-0.0421, "-0.0421"), (0.00012345, "0.000123"), (3e-6, "3e-06"), (2.5e9, "2.5e+09"),
    (float("nan"), "nan"), (float("inf"), "inf"), (float("-inf"), "-inf")])
def test_numbers_have_3_significant_digits(value, text):
    assert results.number_text(value) == text
