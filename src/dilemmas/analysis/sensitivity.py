"""Sensitivity indices of a study with a sampled design (docs/how-to/sensitivity.md).

``sensitivity(folder, statistic)`` reads a study folder whose ``[design]`` is ``"sobol"``,
``"morris"`` or ``"lhs"`` (``dilemmas.analysis.studies.designs``) and returns one row per
design parameter, computed by SALib's analyzers (never here):

* Sobol (``SALib.analyze.sobol``, Saltelli's scheme, no second order): first-order ``S1``
  and total ``ST`` indices, each with the half-width of its 95% bootstrap confidence
  interval (``S1_conf``, ``ST_conf``);
* Morris (``SALib.analyze.morris``): ``mu_star`` (the mean absolute elementary effect, in
  units of the statistic per step of ``num_levels / (2 (num_levels - 1))`` of the
  parameter's range) with its bootstrap ``mu_star_conf``, ``mu`` and ``sigma`` (the spread
  of the effects: interactions or non-linearity);
* a Latin hypercube (``SALib.analyze.rbd_fast``, RBD-FAST): first-order ``S1`` and
  ``S1_conf`` only.

The bootstrap uses ``RESAMPLES`` resamples and a fixed seed, so the same results give the same
intervals. ``indices(design, y)`` is that computation on any values ``y`` at the design's
points (in SALib's order), e.g. the Ishigami function in the tests.

A stochastic model's replicates: the statistic of each run is averaged over the replicates at
each design point (the runs where it is defined), and the indices are those of the means. How
much of the variance is replicate noise is reported in ``DataFrame.attrs``: ``noise_share``,
the mean within-point variance of the runs over the total variance of the runs (1 would be
pure noise), and ``noise_in_means``, the share of the variance of the point means that is
noise (the within-point variance / replicates, over the variance of the means), which the
indices count as unexplained: a large one lowers S1 and widens the intervals; more
replicates shrink it.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.designs import Design
from dilemmas.analysis.studies.study import StudyError

#: Bootstrap resamples of SALib's confidence intervals, and their confidence level.
RESAMPLES = 1000
CONFIDENCE = 0.95
#: The analyzers' seed (their bootstrap), fixed so that the same data gives the same table.
SEED = 0
#: The columns of each kind of design's table.
COLUMNS = {"sobol": ["S1", "S1_conf", "ST", "ST_conf"],
           "morris": ["mu_star", "mu_star_conf", "mu", "sigma"],
           "lhs": ["S1", "S1_conf"]}


def indices(design: Design, y, matrix: np.ndarray | None = None, seed: int = SEED,
            confidence: float = None) -> pd.DataFrame:
    """The sensitivity indices of the values ``y`` at ``design``'s points (in SALib's order;
    ``matrix``: its sample, drawn again if None): one row per parameter, the columns of
    ``COLUMNS[design.kind]`` (module docstring), the intervals at ``confidence`` (default
    ``CONFIDENCE``)."""
    confidence = CONFIDENCE if confidence is None else confidence
    if design.kind not in COLUMNS:
        raise ValueError(f"a {design.kind} design has no sensitivity indices; they need a "
                         f"design of kind {' , '.join(COLUMNS)} (docs/how-to/sensitivity.md)")
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (design.size,):
        raise ValueError(f"{len(y)} values for a design of {design.size} points")
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{int(np.sum(~np.isfinite(y)))} of the {len(y)} values are not "
                         "finite; the indices need one at every point")
    problem = design.problem()
    if design.kind == "sobol":
        from SALib.analyze import sobol
        # a Generator: SALib's Sobol analyzer takes a seed of 0 for no seed at all
        found = sobol.analyze(problem, y, calc_second_order=False, num_resamples=RESAMPLES,
                              conf_level=confidence, seed=np.random.default_rng(seed))
    elif design.kind == "morris":
        from SALib.analyze import morris
        matrix = design.matrix() if matrix is None else matrix
        found = morris.analyze(problem, matrix, y, num_resamples=RESAMPLES,
                               conf_level=confidence, num_levels=design.num_levels, seed=seed)
    else:
        from SALib.analyze import rbd_fast
        matrix = design.matrix() if matrix is None else matrix
        found = rbd_fast.analyze(problem, matrix, y, num_resamples=RESAMPLES,
                                 conf_level=CONFIDENCE, seed=seed)
    table = pd.DataFrame({"parameter": design.names,
                          **{c: np.asarray(found[c], dtype=np.float64)
                             for c in COLUMNS[design.kind]}})
    table.attrs.update(kind=design.kind, points=design.size)
    return table


def design_of(folder) -> Design:
    """The sampled design of a study folder, drawn again from its ``study.json`` and checked
    against the digest recorded there."""
    study = results.definition(folder)
    if "design" not in study:
        raise ValueError(f"{folder} holds a study without a sampled design (a grid); "
                         "sensitivity indices need [design] kind = \"sobol\", \"morris\" or "
                         "\"lhs\" (docs/how-to/sensitivity.md); `dilemmas plot` draws any study")
    try:
        return Design.recorded(study["design"], str(folder))
    except (KeyError, TypeError, AttributeError) as error:
        raise StudyError(f"{str(Path(folder) / 'study.json')!r}: its 'design' is damaged "
                         f"({type(error).__name__}: {error}); delete study.json and run the "
                         "study again (dilemmas run, same --out) to rewrite it and resume") \
            from None


def point_means(folder, statistic: str, table: pd.DataFrame | None = None):
    """``(means, table)``: the mean of ``statistic`` over the runs of each design point, in
    the points' order, and the episodes it came from; the noise shares in ``means.attrs``
    (module docstring). A ValueError if the statistic is unknown or a point has no value."""
    study = results.definition(folder)
    table = results.episodes(folder) if table is None else table
    known = [c for c in table.columns if c not in results.parameter_columns(folder)
             and pd.api.types.is_numeric_dtype(table[c])]
    if statistic not in known:
        raise ValueError(f"statistic {statistic!r} is not an episode statistic of this "
                         f"study; available: {known}")
    points = study["design"]["points"]
    values = table.dropna(subset=[statistic])
    grouped = values.groupby("design_point")[statistic]
    means = grouped.mean().reindex(range(points))
    missing = int(means.isna().sum())
    if missing:
        played = set(table["design_point"])
        unplayed = points - len(played)
        why = (f"{unplayed} have no runs yet (run the study again to finish it)" if unplayed
               else f"{statistic} is undefined in every run of {missing} (e.g. a rate with "
               "nothing to count); choose another statistic or more replicates")
        raise ValueError(f"{folder}: {missing} of the {points} design points have no value of "
                         f"{statistic}: {why}")
    variances, counts = grouped.var(ddof=1), grouped.count()
    total, spread = values[statistic].var(ddof=1), means.var(ddof=1)
    several = counts.max() > 1
    means.attrs.update(
        replicates=study["replicates"], runs=len(values),
        noise_share=float(variances.mean() / total) if several and total > 0 else np.nan,
        # the noise variance of each point's mean is its runs' variance / their number
        noise_in_means=(float((variances / counts).mean() / spread)
                        if several and spread > 0 else np.nan))
    return means, values


def sensitivity(folder, statistic: str, seed: int = SEED) -> pd.DataFrame:
    """The sensitivity indices of the episode statistic ``statistic`` in the study folder
    ``folder`` (module docstring): one row per design parameter; ``attrs`` holds the study,
    statistic, kind, points, replicates, runs and the noise shares."""
    design = design_of(folder)
    means, _ = point_means(folder, statistic)
    table = indices(design, means.to_numpy(), seed=seed)
    table.attrs.update(study=Path(folder).name,
                       statistic=statistic, **means.attrs)
    return table


def text(table: pd.DataFrame) -> str:
    """The table as ``dilemmas sensitivity`` prints it: a heading line, the noise line, then
    one row per parameter, numbers to 3 decimals."""
    attrs = table.attrs
    what = {"sobol": "Sobol indices (first-order S1, total ST)",
            "morris": "Morris elementary effects (mu*, mu, sigma)",
            "lhs": "RBD-FAST first-order indices (S1)"}[attrs["kind"]]
    lines = [f"{what} of {attrs['statistic']}: {attrs['points']} design points x "
             f"{attrs['replicates']} replicates ({attrs['runs']} runs with a value); "
             f"+- the half-width of the {CONFIDENCE:.0%} bootstrap interval"]
    noise, in_means = attrs.get("noise_share", np.nan), attrs.get("noise_in_means", np.nan)
    lines.append("replicate noise: " + ("unknown (one replicate per point)" if noise != noise
                 else f"{noise:.1%} of the variance of the runs, {in_means:.1%} of the "
                 "variance of the point means"))
    shown = table.rename(columns={"mu_star": "mu*", "mu_star_conf": "mu*_conf"})
    lines.append("")
    lines.append(shown.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return "\n".join(lines)
