"""Any episode statistic of any study against any of its parameters (``dilemmas plot``).

``plot(folder, x, y, hue=None, facet=None)`` draws the mean of the episode statistic ``y``
against the parameter ``x``, one line per value of ``hue`` and one panel per value of
``facet``, with the paper figures' style, intervals and caption
(``dilemmas.analysis.figures.paper.lines_in_panels``: means over runs, 95% confidence bands
that stay in the statistic's range, the parameters not shown pooled and said so).

A parameter of a grid (``[sweep]``) takes its few values. A parameter of a sampled design
(``dilemmas.analysis.studies.designs``) takes a value per point, so it is binned: ``x`` into
``BINS`` bins of about equal numbers of runs (quantiles), each drawn at the mean ``x`` of its
runs, and ``hue`` or ``facet`` into ``GROUPS`` bins, each named by its mean (rounded to 3
significant digits); a numeric parameter with at most ``MAX_LEVELS`` values is never binned.
A parameter that is not a number (``population``) is shown at evenly spaced positions,
labelled by its values. The caption says what was binned.
"""

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dilemmas.analysis.figures.paper import lines_in_panels
from dilemmas.analysis.studies import results

#: Bins of a continuous ``x``, and of a continuous ``hue`` or ``facet``.
BINS, GROUPS = 10, 3
#: The most distinct values a numeric parameter shows unbinned.
MAX_LEVELS = 12


def columns(folder, table: pd.DataFrame | None = None) -> tuple[list[str], list[str]]:
    """``(parameters, statistics)`` a plot of the study may show: its run and parameter
    columns but the run's id and seed, and its numeric episode statistics."""
    table = results.episodes(folder) if table is None else table
    run = results.parameter_columns(folder)
    parameters = [c for c in run if c not in ("run_id", "seed")]
    statistics = [c for c in table.columns
                  if c not in run and pd.api.types.is_numeric_dtype(table[c])]
    return parameters, statistics


def _numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _round(value: float) -> float:
    return float(f"{value:.3g}")


def _binned(column: pd.Series, bins: int) -> pd.Series:
    """Each value replaced by the mean of its quantile bin (``bins`` bins of about equal
    counts; fewer where values repeat)."""
    groups = pd.qcut(column, bins, labels=False, duplicates="drop")
    return column.groupby(groups).transform("mean")


def plot(folder, x: str, y: str, hue: str | None = None, facet: str | None = None) -> Figure:
    """The figure of the module docstring; a ValueError names an unknown column and lists
    the study's parameters or statistics."""
    table = results.episodes(folder)
    parameters, statistics = columns(folder, table)
    for option, name in (("x", x), ("hue", hue), ("facet", facet)):
        if name is not None and name not in parameters:
            raise ValueError(f"--{option} {name!r} is not a parameter of the study in {folder}; "
                             f"its parameters: {parameters}")
    if y not in statistics:
        raise ValueError(f"--y {y!r} is not an episode statistic of the study in {folder}; "
                         f"its statistics: {statistics}")
    shown = [c for c in (x, hue, facet) if c is not None]
    if len(set(shown)) < len(shown):
        raise ValueError(f"--x, --hue and --facet must be different parameters; got {shown}")
    study = results.definition(folder)
    sampled = set(study["design"]["parameters"]) if "design" in study else set()

    def binned(name) -> bool:  # a sampled parameter, with a value per design point
        return name in sampled and _numeric(table[name]) and table[name].nunique() > MAX_LEVELS

    notes, ticks = [], None
    if binned(x):
        table = table.assign(**{x: _binned(table[x], BINS)})
        notes.append(f"As {x} takes a value per design point, the runs are grouped into "
                     f"{table[x].nunique()} bins of {x} of about equal numbers of runs, each "
                     f"drawn at the mean {x} of its runs")
    elif not _numeric(table[x]):
        levels = sorted(pd.unique(table[x]), key=lambda v: (
            list(study["sweep"].get(x, [])).index(v) if v in study["sweep"].get(x, []) else
            len(study["sweep"].get(x, [])), str(v)))
        ticks = [str(v) for v in levels]
        table = table.assign(**{x: table[x].map({v: i for i, v in enumerate(levels)})})
    for option, name in (("hue", hue), ("facet", facet)):
        if name is not None and binned(name):
            table = table.assign(**{name: _binned(table[name], GROUPS).map(_round)})
            notes.append(f"As {name} takes a value per design point, the runs are grouped into "
                         f"{table[name].nunique()} bins of {name} of about equal numbers of "
                         f"runs, each named by its mean {name}")
    line = hue or "_all"
    if hue is None:
        table = table.assign(_all=y)
    what = (f"The mean {y} per episode against {x}"
            + (f", one line per {hue}" if hue else "")
            + (f", one panel per {facet}" if facet else "")
            + f", in the study {Path(folder).name} ({results.game(folder).title}"
            + (f", a {study['design']['kind']} design of {study['design']['points']} points"
               if "design" in study else "") + ").")
    caption = " ".join([what, *(f"{note}." for note in notes)])
    figure = lines_in_panels(folder, table, x=x, y=y, line=line, panel=facet, panel_title=facet,
                             title=f"{y} by {x}", xlabel=x, ylabel=y, line_title=hue,
                             caption=caption, legend=hue is not None)
    if ticks is not None:
        for ax in figure.axes:
            ax.set_xticks(np.arange(len(ticks)), ticks, rotation=20 if max(map(len, ticks)) > 12
                          else 0, ha="right" if max(map(len, ticks)) > 12 else "center")
    return figure
