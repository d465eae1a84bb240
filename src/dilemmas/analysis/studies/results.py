"""A study's results in pandas: its rows, its episodes, and aggregates with confidence intervals.

``load(folder)`` reads every model (or agent) file of a study written by
``dilemmas.analysis.studies.runner.run_study``, sorted by ``run_id`` and ``Step`` so the table is
the same whichever backend or number of workers wrote it. ``episodes(folder)`` gives one row per
run: the run's parameters and seed, then the game's own episode statistics (its registration's
``statistics``, e.g. saved fraction and lie rate for Bucket Brigade, mean fire for the
Firefighting Graph). ``aggregate`` averages any column over the seeds of each parameter
combination with a confidence interval of the mean; ``summary`` does so for every episode
statistic of a study, per combination of its swept parameters (per point of a sampled
design), and ``summary_text`` lays that out in 100 columns (``dilemmas summary``).

The intervals (``score_interval``, ``mean_interval``) respect the range a quantity can take:
a fraction's stays in [0, 1], a count's above 0 (quasi-likelihood score intervals with
estimated dispersion, Wilson-like for a fraction); a quantity without bounds gets the
Student-t interval. Each game declares the ranges of its episode statistics once
(``Game.ranges``); docs/explanation/statistics.md explains the method and its coverage.
"""

import json
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from dilemmas.analysis.studies import manifest
from dilemmas.analysis.studies.study import canonical, read_definition
from dilemmas import GAMES
from dilemmas.registry import Game

RUN_COLUMNS = ("run_id", "replicate", "seed")


def definition(folder) -> dict:
    """The study's definition (``study.json``) in a results folder, checked
    (``read_definition``)."""
    path = Path(folder) / "study.json"
    if not (path.exists() or path.is_symlink()):
        raise FileNotFoundError(f"{folder} holds no study results (no study.json)")
    return read_definition(path)


def game(folder) -> Game:
    """The registered game a study folder holds results of."""
    name = definition(folder)["game"]
    if name not in GAMES:
        raise ValueError(f"{folder} holds results of the game {name!r}, which is not "
                         f"registered; registered: {sorted(GAMES)}")
    return GAMES[name]


def varied(study: dict) -> list[str]:
    """The parameters that vary between the runs of a study (its ``definition``): the swept
    ones, or those of its sampled design."""
    return list(study["design"]["parameters"]) if "design" in study else list(study["sweep"])


def parameter_columns(folder) -> list[str]:
    """The run columns of the study's rows: id, replicate, seed, then its parameters (the
    ``engine`` and ``rules_version`` columns that follow the seed are not among them); a
    sampled design's ``design_point`` before them."""
    study = definition(folder)
    point = ["design_point"] if "design" in study else []
    return [*RUN_COLUMNS, *point, *study["fixed"], *varied(study)]


def load(folder, level: str = "model") -> pd.DataFrame:
    """Every row of the study's ``level`` ("model" or "agent") files, by run and step."""
    if level not in ("model", "agent"):
        raise ValueError(f"level={level!r} is invalid: must be 'model' or 'agent'")
    definition(folder)
    tables = manifest.read(folder, level)
    if not tables:
        raise FileNotFoundError(f"{folder} holds no {level} results yet")
    frame = pd.concat([table.to_pandas() for table in tables], ignore_index=True)
    keys = ["run_id", "Step", *(["AgentID"] if level == "agent" else [])]
    return frame.sort_values(keys, kind="stable").reset_index(drop=True)


def failures(folder) -> pd.DataFrame:
    """The runs that raised: id, replicate, seed, parameters (JSON), error, traceback."""
    records = [json.loads(path.read_text())
               for path in sorted((Path(folder) / "failed").glob("*.json"))]
    columns = ["run_id", "replicate", "seed", "parameters", "error", "traceback"]
    frame = pd.DataFrame(records, columns=columns)
    frame["parameters"] = [json.dumps(p, sort_keys=True) for p in frame["parameters"]]
    return frame


def episodes(folder, rows: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per run: its parameters and seed, then the game's episode statistics."""
    rows = load(folder) if rows is None else rows
    columns = parameter_columns(folder)
    statistics = game(folder).statistics(rows, "run_id")
    first = rows.groupby("run_id", sort=True)[columns[1:]].first()
    return first.join(statistics).reset_index()


def _bounds(bounds) -> tuple[float | None, float | None]:
    """``bounds`` as (low, high), each a finite number or None (unbounded); an infinite end
    counts as None."""
    try:
        low, high = bounds
    except (TypeError, ValueError):
        raise ValueError(f"bounds={bounds!r} is invalid: must be a pair (low, high), each a "
                         "number or None") from None
    low, high = (None if end is None or np.isinf(end) else float(end) for end in (low, high))
    if low is not None and high is not None and not low < high:
        raise ValueError(f"bounds={bounds!r} is invalid: low must be below high")
    return low, high


def _check_within(values, bounds, what: str) -> None:
    """Raise ValueError if a non-NaN value of ``values`` lies outside ``bounds``."""
    low, high = _bounds(bounds)
    values = np.asarray(values, dtype=np.float64)
    outside = ((values < low) if low is not None else False) | \
              ((values > high) if high is not None else False)
    if np.any(outside):
        raise ValueError(f"{what}: {float(values[outside][0])!r} lies outside its "
                         f"declared range {bounds!r}")


def score_interval(mean, se, n, confidence: float = 0.95, bounds=(None, None),
                   dispersion=None):
    """The confidence interval ``(low, high)`` of a mean over ``n`` values with standard
    error ``se`` (sample standard deviation / sqrt(n)) for a quantity in ``bounds``
    (``(low, high)``, either end None for unbounded): the quasi-likelihood score interval
    with estimated dispersion. Arrays broadcast; NaN where ``n < 2``.

    With ``V(mu)`` the variance function of the range -- ``(mu - a)(b - mu) / (b - a)**2``
    for ``[a, b]`` (binomial-like, Wilson's interval), ``mu - a`` for ``[a, inf)`` and
    ``b - mu`` for ``(-inf, b]`` (Poisson-like), 1 without bounds -- and the dispersion
    ``phi = s**2 / V(m)`` estimated from the sample mean ``m`` and variance ``s**2``, the
    interval is every ``mu`` in the range with
    ``(m - mu)**2 <= t**2 * phi * V(mu) / n``, ``t`` the Student-t quantile with ``n - 1``
    degrees of freedom, solved in closed form. It always lies inside the range and holds
    ``m``. Without bounds it is the Student-t interval ``m -+ t * se`` exactly; inside the
    range it is that interval to first order, bending away from the bounds.

    When ``V(m) == 0`` (every value at one bound) ``phi`` cannot be estimated and is taken
    as the largest variance such a mean allows: ``phi = (b - a)**2`` for ``[a, b]`` (the
    values as a Bernoulli, so the Wilson interval of ``n`` trials; ``phi = 1`` for a
    fraction) and ``phi = 1`` for a one-sided range (Poisson counts; a conservative guess
    that assumes the quantity's unit is a count) -- unless ``dispersion`` gives it (in the
    units of ``dispersions``; ``aggregate`` pools it over a column's other groups). With
    ``s == 0`` and ``m`` inside the range
    the interval has zero width at ``m``, as the t interval has. Coverage, measured in
    ``tests/test_intervals.py``: within simulation error of nominal for fractions and counts
    whose mean is not at a bound; conservative when every value sits at a bound (e.g. all
    zeros) -- see ``docs/explanation/statistics.md``.
    """
    low_end, high_end = _bounds(bounds)
    mean, se, n = np.broadcast_arrays(np.asarray(mean, dtype=np.float64),
                                      np.asarray(se, dtype=np.float64),
                                      np.asarray(n, dtype=np.float64))
    t = stats.t.ppf(0.5 + confidence / 2, np.maximum(n - 1, 1))
    few = n < 2
    if low_end is None and high_end is None:  # V = 1: the Student-t interval
        half = se * t
        low, high = mean - half, mean + half
        return np.where(few, np.nan, low), np.where(few, np.nan, high)
    # x: the mean's distance from a bound (two bounds: as a fraction of the width)
    if low_end is not None and high_end is not None:
        width = high_end - low_end
        x, e = np.clip((mean - low_end) / width, 0, 1), se / width
        variance = x * (1 - x)
    else:
        x = np.maximum(mean - low_end if low_end is not None else high_end - mean, 0)
        e, variance = se, x
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = variance > 0
        missing = 1.0 if dispersion is None else dispersion
        k = np.where(inside, (t * e) ** 2 / variance, t ** 2 * missing / n)  # t^2 phi / n
        root = np.sqrt(np.where(inside, (t * e) ** 2, 0.0) + k ** 2 / 4)
        # the near root as product / far root, which is exact at x = 0
        near = x ** 2 / (x + k / 2 + root)
        if low_end is not None and high_end is not None:
            far = 1 - (1 - x) ** 2 / ((1 - x) + k / 2 + root)
            low, high = low_end + width * near, low_end + width * far
        else:
            far = x + k / 2 + root
            low, high = ((low_end + near, low_end + far) if low_end is not None
                         else (high_end - far, high_end - near))
    low, high = np.minimum(low, mean), np.maximum(high, mean)  # rounding never drops m
    low = np.where(k == 0, mean, low)  # s == 0 inside the range: zero width
    high = np.where(k == 0, mean, high)
    low, high = (np.clip(end, low_end, high_end) for end in (low, high))
    return np.where(few, np.nan, low), np.where(few, np.nan, high)


def dispersions(mean, se, n, bounds=(None, None)):
    """The estimated dispersion ``phi = s**2 / V(m)`` of each sample (``score_interval``'s
    variance function ``V``, on the unit scale for a two-sided range), NaN where it cannot
    be estimated (``V(m) == 0`` or fewer than two values)."""
    low_end, high_end = _bounds(bounds)
    mean, se, n = (np.asarray(a, dtype=np.float64) for a in (mean, se, n))
    if low_end is not None and high_end is not None:
        width = high_end - low_end
        x = np.clip((mean - low_end) / width, 0, 1)
        variance, e = x * (1 - x), se / width
    elif low_end is not None or high_end is not None:
        variance = np.maximum(mean - low_end if low_end is not None else high_end - mean, 0)
        e = se
    else:
        variance, e = np.ones_like(mean), se
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((variance > 0) & (n >= 2), n * e ** 2 / variance, np.nan)


def pooled_dispersion(mean, se, n, bounds=(None, None)) -> float | None:
    """The Pearson estimate of one dispersion shared by several samples -- the dispersions
    of those where it can be estimated, weighted by their degrees of freedom ``n - 1`` (as
    a quasi-likelihood model estimates it) -- or None if there is none. Samples without
    spread (every value equal, e.g. a start fixed by a parameter) say nothing about the
    spread of the others and are left out."""
    phi, n = dispersions(mean, se, n, bounds), np.asarray(n, dtype=np.float64)
    known = ~np.isnan(phi) & (phi > 0)
    if not known.any():
        return None
    return float(np.sum((n[known] - 1) * phi[known]) / np.sum(n[known] - 1))


def mean_interval(values, confidence: float = 0.95, bounds=(None, None)) -> dict:
    """Of the non-NaN ``values``: their number ``n``, ``mean``, standard error ``se`` and
    the confidence interval of the mean ``low``, ``high`` (NaN below two values):
    ``score_interval`` for a quantity in ``bounds`` (``(low, high)``, None for an open end;
    a value outside them is a ValueError). Without bounds, the Student-t interval."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    _check_within(values, bounds, "values")
    n = len(values)
    mean = values.mean() if n else np.nan
    se = values.std(ddof=1) / np.sqrt(n) if n >= 2 else np.nan
    low, high = score_interval(mean, se, n, confidence, bounds)
    return {"n": n, "mean": mean, "se": se, "low": low[()], "high": high[()]}


def _sortable(column: pd.Series) -> pd.Series:
    """``column`` itself when its values can be ordered, else their string forms."""
    try:
        column.sort_values(kind="stable")
    except TypeError:
        return column.map(str)
    return column


def aggregate(table: pd.DataFrame, by, columns, confidence: float = 0.95,
              ranges=None) -> pd.DataFrame:
    """Per group of ``by``, one row, sorted by the ``by`` columns (by their string forms for
    a column whose values cannot be compared with each other): the number of rows ``n`` and,
    for each of ``columns``, its mean and the confidence interval of the mean over the rows
    (``<column>_low``, ``<column>_high``; NaN with fewer than two values).

    ``ranges`` maps a column to the range ``(low, high)`` its values can take (None for an
    open end; a game's ``Game.ranges``): its interval is ``score_interval``'s, which stays
    inside the range; a group whose values all sit at one bound (its spread cannot be
    estimated) takes the column's dispersion pooled over the other groups
    (``pooled_dispersion``), and the conservative default only if no group has one. A column
    not in ``ranges`` gets the Student-t interval. NaN values
    (e.g. a rate on an episode where it is undefined) are left out of that column's mean."""
    by = [by] if isinstance(by, str) else list(by)
    columns = [columns] if isinstance(columns, str) else list(columns)
    ranges = dict(ranges or {})
    groups = table.groupby(by, sort=False)
    out = groups.size().rename("n").to_frame()
    for column in columns:
        bounds = ranges.get(column, (None, None))
        _check_within(table[column], bounds, column)
        mean, sem, count = (groups[column].mean(), groups[column].sem(),
                            groups[column].count())
        arrays = mean.to_numpy(float), sem.to_numpy(float), count.to_numpy(float)
        low, high = score_interval(*arrays, confidence, bounds,
                                   dispersion=pooled_dispersion(*arrays, bounds))
        out[column] = mean
        out[f"{column}_low"] = low
        out[f"{column}_high"] = high
    return out.reset_index().sort_values(by, key=_sortable, kind="stable", ignore_index=True)


def summary(folder, ci: bool = False) -> pd.DataFrame:
    """Per combination of the study's swept parameters, in the study's order: the number of
    runs and the mean of each episode statistic (``ci``: with its confidence interval, kept
    inside the statistic's range as the game declares it, ``Game.ranges``)."""
    table = episodes(folder)
    study = definition(folder)
    sweep = study["sweep"]
    swept = (["design_point", *varied(study)] if "design" in study
             else list(sweep) or ["replicate"])
    if not sweep and "design" not in study:
        table = table.assign(replicate="all")
    numbers = [c for c in table.columns
               if c not in parameter_columns(folder)
               and pd.api.types.is_numeric_dtype(table[c])]
    out = aggregate(table, swept, numbers, ranges=game(folder).ranges)
    if sweep:  # the combinations in the study's order
        positions = pd.DataFrame({
            key: out[key].map({canonical(v) if isinstance(v, list) else v: i
                               for i, v in enumerate(values)})
            for key, values in sweep.items()})
        order = positions.sort_values(list(sweep), kind="stable").index
        out = out.loc[order].reset_index(drop=True)
    if not ci:
        out = out.drop(columns=[c for c in out if c.endswith(("_low", "_high"))])
    return out


def number_text(value) -> str:
    """``value`` to 3 significant digits, in plain notation from 1e-4 to 1e7 (integer digits
    are all kept: 1234.5 gives "1234"), else scientific; "nan" for NaN, "inf" for infinity."""
    value = float(value)
    if not np.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    exponent = int(f"{value:.2e}".partition("e")[2])  # after rounding: 0.9996 -> 0
    if not -4 <= exponent < 7:
        return f"{value:.3g}"
    return f"{value:.{max(0, 2 - exponent)}f}"


def _label(value) -> str:
    """A parameter value as it was written (floats in their shortest form)."""
    return repr(value) if isinstance(value, float) else str(value)


def _cells(out: pd.DataFrame, column: str, ci: bool) -> list[str]:
    """The cells of ``column``: its mean, with ``ci`` followed by ``[low, high]`` (nothing
    when the interval is NaN), the parts of each aligned down the column."""
    means = [number_text(v) for v in out[column]]
    if not ci:
        return means
    lows = [number_text(v) for v in out[f"{column}_low"]]
    highs = [number_text(v) for v in out[f"{column}_high"]]
    m, lo, hi = (max(map(len, part)) for part in (means, lows, highs))
    return [f"{mean:>{m}} [{low:>{lo}}, {high:>{hi}}]" if low != "nan" or high != "nan"
            else f"{mean:>{m}}" + " " * (lo + hi + 5)
            for mean, low, high in zip(means, lows, highs)]


def table_text(index: pd.DataFrame, values: dict[str, list[str]], width: int = 100,
               legend: str = "#") -> str:
    """Rows of ``index`` (left-aligned) and the columns ``values`` (name -> cells,
    right-aligned) as text no line of which is wider than ``width``: the columns are split
    into blocks, one after the other (a blank line between), each repeating the index. An
    index too wide to leave room for the widest column is replaced by row numbers
    (``legend``), listed first with the values they stand for."""
    separator = "  "
    labels = {name: [_label(v) for v in index[name]] for name in index.columns}

    def width_of(name, cells):
        return max([len(name), *map(len, cells)])

    index_widths = {name: width_of(name, cells) for name, cells in labels.items()}
    value_widths = {name: width_of(name, cells) for name, cells in values.items()}
    widest = max(value_widths.values(), default=0)
    lines = []
    if sum(index_widths.values()) + len(separator) * len(index_widths) + widest > width:
        numbers = [str(i + 1) for i in range(len(index))]
        for i, number in enumerate(numbers):
            text = f"{legend}{number}: " + ", ".join(f"{name}={cells[i]}"
                                                     for name, cells in labels.items())
            lines += textwrap.wrap(text, width, subsequent_indent="    ",
                                   break_on_hyphens=False) or [""]
        lines.append("")
        labels, index_widths = {legend: numbers}, {legend: width_of(legend, numbers)}
    head = separator.join(f"{name:<{index_widths[name]}}" for name in labels)
    blocks, used = [[]], len(head)
    for name in values:
        if blocks[-1] and used + len(separator) + value_widths[name] > width:
            blocks.append([])
            used = len(head)
        blocks[-1].append(name)
        used += len(separator) + value_widths[name]
    for b, block in enumerate(blocks):
        if b:
            lines.append("")
        lines.append(separator.join([head, *(f"{name:>{value_widths[name]}}"
                                             for name in block)]).rstrip())
        for i in range(len(index)):
            cells = [f"{labels[name][i]:<{index_widths[name]}}" for name in labels]
            cells += [f"{values[name][i]:>{value_widths[name]}}" for name in block]
            lines.append(separator.join(cells).rstrip())
    return "\n".join(lines)


def summary_text(folder, ci: bool = False, width: int = 100) -> str:
    """``summary(folder, ci)`` as text no line of which is wider than ``width`` (what
    ``dilemmas summary`` prints): one row per combination of the swept parameters, in the
    study's order, the parameters as the index (repeated in each block of columns when the
    table is split; replaced by numbers with a legend when they alone are too wide), then
    the number of runs ``n`` and each statistic's mean to 3 significant digits; with ``ci``
    each cell is ``mean [low, high]``, the 95% confidence interval (``score_interval``)."""
    out = summary(folder, ci)
    study = definition(folder)
    sweep = (["design_point", *varied(study)] if "design" in study
             else list(study["sweep"]) or ["replicate"])
    statistics = [c for c in out.columns
                  if c not in sweep and c != "n" and not c.endswith(("_low", "_high"))]
    values = {"n": [str(v) for v in out["n"]],
              **{column: _cells(out, column, ci) for column in statistics}}
    text = table_text(out[sweep], values, width)
    if ci:
        caption = (f"{game(folder).title}, {len(out)} combinations of n runs each; each cell: "
                   "the mean over the runs where the statistic is defined [95% confidence "
                   "interval]")
        text = "\n".join([*textwrap.wrap(caption, width), "", text])
    return text
