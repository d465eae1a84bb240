"""Sampled designs (``dilemmas.analysis.studies.designs``) and sensitivity indices
(``dilemmas.analysis.sensitivity``): the indices of the Ishigami function against its analytic
values, designs that cover their ranges and respect integer and level parameters, points that
coincide with runs of their own, a Sobol study that resumes and reproduces, and bad design
tables refused in one clear error."""

import math
import re

import numpy as np
import pandas as pd
import pytest

from dilemmas.analysis import sensitivity as sa
from dilemmas.analysis.studies import blocks, manifest, results
from dilemmas.analysis.studies.designs import Design
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study, StudyError
from dilemmas.cli.main import main


# --- The indices against a function whose indices are known ----------------------------

#: The Ishigami function's parameters and its analytic indices (Ishigami and Homma 1990;
#: Sobol' and Levitan 1999): V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2, V1 = (1 + b pi^4/5)^2
#: / 2, V2 = a^2/8, V13 = b^2 pi^8 (1/18 - 1/50), V3 = V12 = V23 = V123 = 0.
A, B = 7.0, 0.1


def ishigami_indices():
    v1 = (1 + B * math.pi ** 4 / 5) ** 2 / 2
    v2 = A ** 2 / 8
    v13 = B ** 2 * math.pi ** 8 * (1 / 18 - 1 / 50)
    total = v1 + v2 + v13
    return [v1 / total, v2 / total, 0.0], [(v1 + v13) / total, v2 / total, v13 / total]


def test_the_analytic_ishigami_indices_are_the_published_ones():
    first, total = ishigami_indices()
    assert np.round(first, 4).tolist() == [0.3139, 0.4424, 0.0]
    assert np.round(total, 4).tolist() == [0.5576, 0.4424, 0.2437]


def test_sobol_indices_of_the_ishigami_function_hold_the_analytic_values_in_their_intervals():
    """N = 4096 base samples (4096 x 5 = 20,480 points); the six analytic indices lie within
    the bootstrap intervals that the same code as a study's (``indices``) gives, each at
    1 - 0.05/6 (Bonferroni), so that all six hold together with probability at least 95%.
    The intervals are narrow enough to tell x3's first-order index (0) from its total
    (0.2437, all of it interaction with x1)."""
    design = Design.from_table({"kind": "sobol", "samples": 4096, "parameters": {
        name: [-math.pi, math.pi] for name in ("x1", "x2", "x3")}}, seed=1)
    x = design.matrix()
    y = np.sin(x[:, 0]) + A * np.sin(x[:, 1]) ** 2 + B * x[:, 2] ** 4 * np.sin(x[:, 0])
    table = sa.indices(design, y, confidence=1 - 0.05 / 6)
    first, total = ishigami_indices()
    assert list(table["parameter"]) == ["x1", "x2", "x3"]
    for column, truth in (("S1", first), ("ST", total)):
        low = table[column] - table[f"{column}_conf"]
        high = table[column] + table[f"{column}_conf"]
        assert ((low <= truth) & (truth <= high)).all(), (column, table, truth)
    x3 = table.set_index("parameter").loc["x3"]
    assert x3["S1"] + x3["S1_conf"] < total[2]  # informative, not merely wide
    assert sa.indices(design, y, confidence=1 - 0.05 / 6).equals(table)  # seeded


def test_morris_effects_of_a_linear_function_are_its_slopes_over_the_ranges():
    """For y = 2 x1 - 0.5 x2 with x1 in [0, 1], x2 in [0, 4] and x3 in [0, 1] (no effect),
    every elementary effect of a parameter is its slope times its range (the change for a
    step of the grid, per step as a fraction of the range): mu* = (2, 2, 0), mu = (2, -2, 0),
    sigma = 0, exactly up to rounding."""
    design = Design.from_table({"kind": "morris", "samples": 10, "parameters": {
        "x1": [0, 1], "x2": [0, 4], "x3": [0, 1]}}, seed=3)
    x = design.matrix()
    table = sa.indices(design, 2 * x[:, 0] - 0.5 * x[:, 1], x)
    assert np.allclose(table["mu_star"], [2, 2, 0])
    assert np.allclose(table["mu"], [2, -2, 0])
    assert np.allclose(table["sigma"], 0, atol=1e-9)


# --- Designs cover their ranges ----------------------------------------------------------

def test_a_latin_hypercube_hits_every_stratum_of_every_range_once():
    n = 40
    design = Design.from_table({"kind": "lhs", "samples": n, "parameters": {
        "a": [0.05, 0.5], "b": [-3, 7]}}, seed=11)
    points = pd.DataFrame(design.points())
    assert len(points) == n
    for name, (low, high) in (("a", (0.05, 0.5)), ("b", (-3, 7))):
        strata = np.floor((points[name] - low) / (high - low) * n).astype(int)
        assert sorted(strata) == list(range(n)), name


def test_a_seed_gives_the_same_points_and_another_seed_others():
    table = {"kind": "lhs", "samples": 8, "parameters": {"a": [0, 1]}}
    assert Design.from_table(table, 1).points() == Design.from_table(table, 1).points()
    assert Design.from_table(table, 1).points() != Design.from_table(table, 2).points()
    assert Design.from_table({**table, "seed": 5}, 1).points() == \
        Design.from_table(table, 5).points()


def game_parameters():
    from dilemmas import GAMES
    return GAMES["bucket_brigade"].parameters


@pytest.mark.parametrize("kind,samples", [("lhs", 70), ("sobol", 32), ("morris", 20)])
def test_integer_and_level_parameters_take_only_allowed_values_and_every_one(kind, samples):
    """``num_agents`` (an integer from 4 to 10) takes integers within its range, every one
    of them under the uniform samplers; ``population`` only its levels, each of them."""
    design = Design.from_table({"kind": kind, "samples": samples, "parameters": {
        "num_agents": {"low": 4, "high": 10}, "beta": [0.1, 0.3],
        "population": {"levels": ["random", "firefighter", "hero"]}}}, 0, game_parameters())
    points = pd.DataFrame(design.points())
    assert len(points) == design.size
    assert all(type(v) is int for v in points["num_agents"])
    assert points["num_agents"].between(4, 10).all()
    assert points["beta"].between(0.1, 0.3).all()
    assert set(points["population"]) == {"random", "firefighter", "hero"}
    if kind != "morris":  # Morris's grid has num_levels values per parameter
        assert set(points["num_agents"]) == set(range(4, 11))
    else:
        assert set(points["num_agents"]) == {4, 6, 8, 10}  # the 4 levels of its grid


def test_a_uniform_sampler_makes_each_integer_equally_likely():
    """An LHS of 7,000 points over 4..10 puts exactly 1,000 in each integer: the range is
    drawn as [4, 11) in 7,000 strata, 1,000 per integer."""
    design = Design.from_table({"kind": "lhs", "samples": 7000, "parameters": {
        "num_agents": {"low": 4, "high": 10}}}, 0, game_parameters())
    counts = pd.Series([p["num_agents"] for p in design.points()]).value_counts()
    assert counts.to_dict() == {k: 1000 for k in range(4, 11)}


def test_a_factorial_design_is_the_same_study_as_its_sweep():
    grid = Study(game="bucket_brigade", name="g", replicates=2, sweep={
        "beta": [0.1, 0.2, 0.3], "population": ["random", "hero"]})
    design = Study(game="bucket_brigade", name="g", replicates=2, design={
        "kind": "factorial", "samples": 3, "parameters": {
            "beta": [0.1, 0.3], "population": {"levels": ["random", "hero"]}}})
    assert design.definition() == grid.definition()
    assert design.runs() == grid.runs()


def test_points_that_coincide_have_runs_of_their_own():
    """Two levels drawn 8 times repeat; each point's runs are seeded with its index, so no
    two runs share an id or a seed, and the run ids of a grid are unchanged."""
    study = Study(game="bucket_brigade", name="c", replicates=3, design={
        "kind": "lhs", "samples": 8, "parameters": {
            "population": {"levels": ["random", "hero"]}}})
    combinations = [c["population"] for c in study.combinations()]
    assert len(set(combinations)) == 2 and len(combinations) == 8
    runs = study.runs()
    assert len({r.run_id for r in runs}) == len({r.seed for r in runs}) == 24
    assert [r.point for r in runs] == [i for i in range(8) for _ in range(3)]
    grid = Study(game="bucket_brigade", name="c", replicates=3,
                 sweep={"population": ["random", "hero"]})
    assert all(r.point is None for r in grid.runs())


def test_a_design_of_cases_plays_its_cases_resumes_and_records_them(tmp_path):
    """Each case is a point with the fixed parameters; two equal cases are two points with
    runs of their own; the folder resumes, study.json records the cases and the dashboard's
    reading of it (Design.recorded) gives them back."""
    cases = [{"population": "firefighter:2,free_rider:2", "beta": 0.2},
             {"population": "hero:4", "beta": 0.3}, {"population": "hero:4", "beta": 0.3}]
    study = Study(game="bucket_brigade", name="cases", replicates=2,
                  fixed={"num_agents": 4, "max_steps": 20}, collect=("model", "agent"),
                  design={"kind": "cases", "cases": cases})
    assert study.combinations() == [{"num_agents": 4, "max_steps": 20, **case} for case in cases]
    runs = study.runs()
    assert len({r.seed for r in runs}) == 6 and [r.point for r in runs] == [0, 0, 1, 1, 2, 2]
    first = run_study(study, tmp_path, backend="serial", progress=False)
    assert first.played == 6
    assert run_study(study, tmp_path, backend="serial", progress=False).played == 0
    definition = results.definition(first.folder)
    assert definition["design"]["cases"] == cases
    assert Design.recorded(definition["design"], "here").points() == cases
    table = results.episodes(first.folder)
    assert sorted(table.groupby("design_point")["population"].first()) == \
        ["firefighter:2,free_rider:2", "hero:4", "hero:4"]


# --- A Sobol study runs, resumes and reproduces ------------------------------------------

def sobol_study(name="s"):
    return Study(game="bucket_brigade", name=name, replicates=3, seed=9,
                 fixed={"population": "firefighter", "max_steps": 20},
                 design={"kind": "sobol", "samples": 8, "parameters": {
                     "beta": [0.05, 0.5], "kappa": [0.1, 1.5],
                     "num_agents": {"low": 4, "high": 8}}})


def test_a_sobol_study_records_its_points_and_gives_indices(tmp_path):
    study = sobol_study()
    assert study.batch and len(study.combinations()) == 8 * 5
    folder = run_study(study, tmp_path, backend="serial", progress=False).folder
    table = results.episodes(folder)
    assert len(table) == 40 * 3
    assert sorted(set(table["design_point"])) == list(range(40))
    points = table.groupby("design_point")[["beta", "kappa", "num_agents"]].first()
    expected = pd.DataFrame(study.points)
    assert np.allclose(points.to_numpy(float), expected.to_numpy(float))
    indices = sa.sensitivity(folder, "saved")
    assert list(indices["parameter"]) == ["beta", "kappa", "num_agents"]
    assert list(indices.columns) == ["parameter", "S1", "S1_conf", "ST", "ST_conf"]
    assert sa.sensitivity(folder, "saved").equals(indices)

    # the noise shares, of a statistic made of a known signal and known noise at each of
    # the 40 points: y = m_p + e, m_p evenly spaced in [-1.5, 1.5] (variance V over the
    # points, ddof 0), e ~ N(0, 1), R = 250 replicates. Then noise_share -> 1 / (1 + V) and
    # noise_in_means -> (1/R) / (V' + 1/R), V' the points' variance with ddof 1. Standard
    # errors: the mean within-point variance, 1 * sqrt(2 / (R - 1)) / sqrt(40) = 1.4%; the
    # cross term of signal and noise in a variance, 2 sqrt(V / (R * 40)) / (1 + V) = 1%
    # (runs) and 2 sqrt(V / (R * 40)) / V = 2.2% (means): relative errors of 2% and 3%,
    # allowed 4 standard errors.
    replicates, rng = 250, np.random.default_rng(0)
    signal = np.linspace(-1.5, 1.5, 40)
    synthetic = pd.DataFrame({**{c: table[c].iloc[0] for c in table.columns},
                              "design_point": np.repeat(np.arange(40), replicates)})
    synthetic["saved"] = (np.repeat(signal, replicates)
                          + rng.standard_normal(40 * replicates))
    means, _ = sa.point_means(folder, "saved", synthetic)
    spread = signal.var()
    assert means.attrs["noise_share"] == pytest.approx(1 / (1 + spread), rel=0.08)
    assert means.attrs["noise_in_means"] == pytest.approx(
        (1 / replicates) / (signal.var(ddof=1) + 1 / replicates), rel=0.12)


def test_a_sobol_study_resumes_and_reproduces(tmp_path, monkeypatch):
    """Played in tasks of a few points (a small block size), stopped with half its files
    lost, and run again: the same rows as an uninterrupted run into another folder."""
    monkeypatch.setattr(blocks, "BLOCK", 9)
    whole = run_study(sobol_study(), tmp_path / "a", backend="serial", progress=False).folder
    again = run_study(sobol_study(), tmp_path / "b", backend="serial", progress=False).folder
    files = manifest.files(again, "model")
    assert len(files) > 4
    for path in files[::2]:
        path.unlink()
    report = run_study(sobol_study(), tmp_path / "b", backend="serial", progress=False)
    assert 0 < report.played < report.total
    first, second = results.load(whole), results.load(again)
    pd.testing.assert_frame_equal(first, second)
    assert sa.sensitivity(whole, "saved").equals(sa.sensitivity(again, "saved"))


def test_another_design_into_the_same_folder_is_refused(tmp_path):
    run_study(sobol_study(), tmp_path, backend="serial", progress=False)
    other = sobol_study()
    other = Study(game=other.game, name=other.name, replicates=3, seed=9, fixed=other.fixed,
                  design={"kind": "sobol", "samples": 8, "seed": 1, "parameters": {
                      "beta": [0.05, 0.5], "kappa": [0.1, 1.5],
                      "num_agents": {"low": 4, "high": 8}}})
    with pytest.raises(StudyError, match="different study"):
        run_study(other, tmp_path, backend="serial", progress=False)


def test_sensitivity_errors_say_what_is_wrong(tmp_path):
    grid = Study(game="bucket_brigade", name="grid", replicates=2,
                 sweep={"beta": [0.1, 0.2]}, fixed={"max_steps": 10})
    folder = run_study(grid, tmp_path, backend="serial", progress=False).folder
    with pytest.raises(ValueError, match="without a sampled design"):
        sa.sensitivity(folder, "saved")
    folder = run_study(sobol_study(), tmp_path, backend="serial", progress=False).folder
    with pytest.raises(ValueError, match=r"not an episode statistic.*available: \['nights'"):
        sa.sensitivity(folder, "saves")


def test_the_sensitivity_command_prints_the_table_and_writes_a_csv_and_a_figure(
        tmp_path, capsys):
    folder = run_study(sobol_study(), tmp_path, backend="serial", progress=False).folder
    assert main(["sensitivity", str(folder), "--statistic", "saved", "--out",
                 str(tmp_path / "figures"), "--caption", "beside"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Sobol indices (first-order S1, total ST) of saved: 40 design points")
    assert "replicate noise: " in out and "kappa" in out
    name = tmp_path / "figures" / "s_sensitivity_saved"
    csv = pd.read_csv(f"{name}.csv")
    assert list(csv["parameter"]) == ["beta", "kappa", "num_agents"]
    assert {"S1", "ST_conf", "noise_share"} <= set(csv.columns)
    for suffix in ("pdf", "png", "txt", "tex"):
        assert (tmp_path / "figures" / f"s_sensitivity_saved.{suffix}").exists()
    assert main(["sensitivity", str(folder), "--statistic", "nope"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("dilemmas sensitivity: statistic 'nope'")


# --- Bad design tables -------------------------------------------------------------------

BAD = {
    "kind": ('[design]\nkind = "grid"\nsamples = 4\n[design.parameters]\nbeta = [0.1, 0.2]',
             "kind='grid' must be one of ['factorial', 'lhs', 'sobol', 'morris', 'cases']"),
    "samples": ('[design]\nkind = "lhs"\nsamples = 0\n[design.parameters]\nbeta = [0.1, 0.2]',
                "samples=0 must be an integer >= 1"),
    "power": ('[design]\nkind = "sobol"\nsamples = 100\n[design.parameters]\nbeta = [0.1, 0.2]',
              "samples=100 must be a power of two"),
    "missing": ('[design]\nkind = "lhs"\n[design.parameters]\nbeta = [0.1, 0.2]',
                "samples is missing"),
    "bounds": ('[design]\nkind = "lhs"\nsamples = 4\n[design.parameters]\nbeta = [0.1, 1.5]',
               "[design.parameters] beta: the range [0.1, 1.5] leaves what beta allows"),
    "order": ('[design]\nkind = "lhs"\nsamples = 4\n[design.parameters]\nbeta = [0.3, 0.2]',
              "must have low < high"),
    "unknown": ('[design]\nkind = "lhs"\nsamples = 4\n[design.parameters]\nbetta = [0.1, 0.2]',
                "[design.parameters] betta: not a parameter of the game; allowed: ['scenario'"),
    "choice": ('[design]\nkind = "lhs"\nsamples = 4\n[design.parameters]\nrules = [0, 1]',
               "[design.parameters] rules: a range is for a number; rules is one of"),
    "integer": ('[design]\nkind = "lhs"\nsamples = 4\n[design.parameters]\nnum_agents = [4.5, 8]',
                "num_agents is an integer; the range [4.5, 8] must have integer ends"),
    "key": ('[design]\nkind = "lhs"\nsample = 4\n[design.parameters]\nbeta = [0.1, 0.2]',
            "[design] sample: unknown key; allowed: ['kind', 'samples'"),
    "levels": ('[design]\nkind = "morris"\nsamples = 4\nnum_levels = 3\n[design.parameters]\n'
               'beta = [0.1, 0.2]', "num_levels=3 must be an even integer from 2 to 268,435,456 "
               "(SALib holds half the levels as float64 values: more would take over 1 GiB)"),
    "form": ('[design]\nkind = "lhs"\nsamples = 4\n[design.parameters]\nbeta = [0.1, 0.2, 0.3]',
             "must be a range, [low, high] or {low = .., high = ..}, or a list of levels"),
    "sweep": ('[design]\nkind = "lhs"\nsamples = 4\n[design.parameters]\nbeta = [0.1, 0.2]\n'
              '[sweep]\nkappa = [0.1, 0.2]', "[design] and [sweep] together"),
    "fixed": ('[design]\nkind = "lhs"\nsamples = 4\n[design.parameters]\nbeta = [0.1, 0.2]\n'
              '[fixed]\nbeta = 0.3', "['beta'] in both [fixed] and [design.parameters]"),
    "unspaced": ('[design]\nkind = "factorial"\nsamples = 3\n[design.parameters]\n'
                 'beta = {levels = [0.1, 0.2]}', "samples=3 spaces no range"),
    "point": ('[design]\nkind = "lhs"\nsamples = 4\n[design.parameters]\nnum_agents = [4, 6]\n'
              '[fixed]\npopulation = "hero:4"', "in the combination {'num_agents'"),
    "cases": ('[design]\nkind = "cases"\ncases = []', "cases must be a non-empty list"),
    "case keys": ('[design]\nkind = "cases"\n[[design.cases]]\nbeta = 0.1\n[[design.cases]]\n'
                  'kappa = 0.2', "number 2 names ['kappa'], the first names ['beta']"),
    "case name": ('[design]\nkind = "cases"\n[[design.cases]]\nbetta = 0.1',
                  "[[design.cases]] betta: not a parameter of the game"),
    "case kind": ('[design]\nkind = "lhs"\nsamples = 2\n[[design.cases]]\nbeta = 0.1',
                  "cases is for kind = \"cases\" only"),
    "case extra": ('[design]\nkind = "cases"\nsamples = 2\n[[design.cases]]\nbeta = 0.1',
                   "[design] samples: not for kind = \"cases\""),
    "case value": ('[design]\nkind = "cases"\n[[design.cases]]\nbeta = 7.0',
                   "in the combination {'beta': 7.0}"),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_design_table_is_one_clear_error_naming_the_file_and_key(tmp_path, case):
    table, message = BAD[case]
    text = f'game = "bucket_brigade"\n{table}\n'
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(StudyError) as error:
        Study.from_file(path)
    assert str(error.value).startswith(f"study file {str(path)!r}: study 'bad': ")
    assert message in str(error.value)


def test_a_design_too_large_is_refused_before_its_points_are_drawn():
    with pytest.raises(StudyError, match=r"2,621,440 runs .* more than max_runs=100,000"):
        Study(game="bucket_brigade", name="big", design={
            "kind": "sobol", "samples": 2 ** 16, "parameters": {
                "beta": [0.1, 0.2], "kappa": [0.1, 0.2]}})


@pytest.mark.parametrize("design, max_runs, message", [
    ({"kind": "morris", "samples": 4, "num_levels": 10 ** 12}, 100_000,
     "[design] num_levels=1000000000000 must be an even integer from 2 to 268,435,456 (SALib "
     "holds half the levels as float64 values: more would take over 1 GiB)"),
    ({"kind": "sobol", "samples": 2 ** 40}, 10 ** 15,
     "max_runs=1000000000000000 must be an integer from 1 to 68,719,476 (the runner holds "
     "every run in memory, about 250 bytes each: more would take over 16 GiB)")])
def test_an_absurd_design_is_refused_before_salib_allocates_it(design, max_runs, message):
    # SALib would first allocate 3.6 TiB (the Morris grid) and 16 TiB (the Sobol sample)
    with pytest.raises(StudyError) as error:
        Study(game="bucket_brigade", name="big", max_runs=max_runs,
              design={**design, "parameters": {"beta": [0.1, 0.2]}})
    assert str(error.value) == f"study 'big': {message}"


@pytest.mark.parametrize("max_runs", ["many", 1e6, True, 0, 10 ** 9])
def test_max_runs_is_an_integer_checked_before_the_design_is_sized(max_runs):
    with pytest.raises(StudyError, match=rf"^study 'd': max_runs={re.escape(repr(max_runs))} "
                                         "must be an integer from 1 to 68,719,476 "):
        Study(game="bucket_brigade", name="d", max_runs=max_runs, design={
            "kind": "sobol", "samples": 4, "parameters": {"beta": [0.1, 0.2]}})
