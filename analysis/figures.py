"""Paper figures of a study's results, as PDF and PNG, one consistent style.

Each game's figures live with its statistics in ``analysis/<game>.py`` and are reached from
its registration (``models.GAMES[game].figures``: figure name -> ``draw(folder)``); this
module holds what they share. Each figure is drawn from a study folder written by
``analysis.runner.run_study``: means over the seeds of each parameter combination, with 95%
Student-t confidence bands or bars (``analysis.results.aggregate``), clipped to the range the
quantity can take (a count is never below 0, a fraction never above 1). A swept parameter
that the figure does not show is pooled (its runs counted together), and the title says so.

A figure needs the parameter on its horizontal axis (or, for bar charts, its categories)
swept by the study, else it raises ``ValueError`` naming the figure and the parameter. A
parameter that only splits lines or panels may be left out of the sweep: the figure then
has one line or panel, labelled with its fixed value (or "default"). The time figures pool
the runs still playing at each step: a Firefighting Graph episode that ends early (every
house at 0) leaves the later steps' means.

``GAMES[game].figures[name](folder)`` draws one figure (a ``matplotlib.figure.Figure``, shown as
PNG in a notebook); ``save(figure, out_dir, name)`` writes ``<name>.pdf`` and ``<name>.png``;
``make_figures(folders, out_dir)`` draws and saves every figure of every study as
``<study name>_<figure name>.{pdf,png}``. Nothing here uses pyplot, so it works headless
and leaves no open figures behind.
"""

import io
import math
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from cycler import cycler
from matplotlib.figure import Figure

from analysis import results

#: Okabe-Ito: distinguishable with colour-blindness and in greyscale print.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000")
#: The one style of every figure (a matplotlib rcParams context).
STYLE = {
    "font.size": 9, "axes.titlesize": 9, "axes.labelsize": 9, "figure.titlesize": 10,
    "legend.fontsize": 8, "legend.title_fontsize": 8, "xtick.labelsize": 8,
    "ytick.labelsize": 8, "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "grid.linewidth": 0.5, "grid.alpha": 0.35, "axes.axisbelow": True,
    "axes.prop_cycle": cycler(color=PALETTE), "lines.linewidth": 1.5,
    "lines.markersize": 4, "legend.frameon": False, "errorbar.capsize": 3,
    "savefig.dpi": 200, "savefig.bbox": "tight", "savefig.pad_inches": 0.05,
    "pdf.fonttype": 42,  # TrueType fonts: text stays editable in the PDF
}
BAND_ALPHA = 0.2
CONFIDENCE = 0.95
#: Width and height (inches) of one panel.
PANEL = (3.2, 2.6)
FORMATS = ("pdf", "png")


class PaperFigure(Figure):
    """A Figure (constrained layout) that a notebook shows as a PNG in the figures' style."""

    def __init__(self, panels=(1, 1), margin=0.6, **kwargs):
        rows, cols = panels
        with matplotlib.rc_context(STYLE):
            super().__init__(figsize=(PANEL[0] * cols + margin, PANEL[1] * rows + 0.8),
                             layout="constrained", **kwargs)

    def _repr_png_(self):
        buffer = io.BytesIO()
        with matplotlib.rc_context(STYLE):
            self.savefig(buffer, format="png", dpi=100)
        return buffer.getvalue()


def save(figure: Figure, out_dir, name: str) -> list[Path]:
    """Write ``figure`` as ``<out_dir>/<name>.pdf`` and ``.png`` (creating ``out_dir``);
    return the two paths. The PDF carries no creation date, so the same data gives the
    same file."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    with matplotlib.rc_context(STYLE):
        for fmt in FORMATS:
            path = out_dir / f"{name}.{fmt}"
            metadata = {"CreationDate": None} if fmt == "pdf" else None
            figure.savefig(path, format=fmt, metadata=metadata)
            paths.append(path)
    return paths


def make_figures(folders, out_dir, skipped: list | None = None) -> list[Path]:
    """Draw every figure of each study folder's game and save them in ``out_dir`` as
    ``<study name>_<figure name>.{pdf,png}``; return the paths written. A figure whose study
    lacks a parameter it needs raises ``ValueError`` -- or, given a list ``skipped``, is left
    out and its reason appended to the list (a study made for another question, such as an
    evaluation of trained learners, draws the figures its sweep supports)."""
    if isinstance(folders, (str, Path)):
        folders = [folders]
    paths = []
    for folder in map(Path, folders):
        game = results.game(folder)
        for name, draw in game.figures.items():
            try:
                figure = draw(folder)
            except ValueError as error:
                if skipped is None:
                    raise
                skipped.append(str(error))
                continue
            paths += save(figure, out_dir, f"{folder.name}_{name}")
    return paths


# --- helpers ------------------------------------------------------------------------------

def require(folder, figure: str, *parameters):
    """Raise ``ValueError`` unless the study sweeps each of ``parameters``."""
    sweep = results.definition(folder)["sweep"]
    for parameter in parameters:
        if parameter not in sweep:
            swept = ", ".join(sweep) or "nothing"
            raise ValueError(f"figure {figure!r} needs the parameter {parameter!r} swept, but "
                             f"the study in {folder} sweeps {swept}")


def _with_parameters(table: pd.DataFrame, *parameters) -> pd.DataFrame:
    """``table`` with a column for each of ``parameters``: a parameter neither swept nor
    fixed (the model's default) gets the value "default"."""
    missing = [p for p in parameters if p not in table.columns]
    return table.assign(**{p: "default" for p in missing}) if missing else table


def _levels(folder, table: pd.DataFrame, parameter: str) -> list:
    """The values of ``parameter`` in the study's sweep order (those with data), else the
    ones in ``table``."""
    present = pd.unique(table[parameter])
    swept = results.definition(folder)["sweep"].get(parameter)
    if swept is None:
        return sorted(present, key=str)
    ordered = [v for v in swept if (table[parameter] == v).any()]
    return ordered + [v for v in present if not any(v == o for o in ordered)]


def _colours(values) -> dict:
    """A colour per value: the palette for categories, viridis for numbers."""
    values = list(values)
    if values and all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                      for v in values) and len(values) > 1:
        cmap = matplotlib.colormaps["viridis"]
        return {v: cmap(0.85 * i / (len(values) - 1)) for i, v in enumerate(values)}
    return {v: PALETTE[i % len(PALETTE)] for i, v in enumerate(values)}


def pooled(folder, *shown) -> str:
    """", pooled over a, b" for the swept parameters a figure does not show."""
    others = [p for p in results.definition(folder)["sweep"] if p not in shown]
    return f", pooled over {', '.join(others)}" if others else ""


def ci_text(folder) -> str:
    replicates = results.definition(folder)["replicates"]
    return f"mean and {CONFIDENCE:.0%} CI over {replicates} seeds"


def _line(ax, table: pd.DataFrame, x: str, y: str, label: str, colour, marker="o"):
    """Mean of ``y`` against ``x`` with its confidence band."""
    table = table.sort_values(x)
    ax.plot(table[x], table[y], label=label, color=colour, marker=marker)
    ax.fill_between(table[x].to_numpy(float), table[f"{y}_low"].to_numpy(float),
                    table[f"{y}_high"].to_numpy(float), color=colour, alpha=BAND_ALPHA,
                    linewidth=0)


def _error(table: pd.DataFrame, y: str) -> np.ndarray:
    """Asymmetric error bar lengths (2, n) of the confidence interval of ``y`` (0 if NaN)."""
    low = (table[y] - table[f"{y}_low"]).fillna(0).to_numpy(float)
    high = (table[f"{y}_high"] - table[y]).fillna(0).to_numpy(float)
    return np.vstack([low, high])


def lines_in_panels(folder, table, *, x, y, line, title, xlabel, ylabel, line_title,
                     panel=None, panel_title="", marker="o", bounds=(None, None),
                     dashed=None) -> Figure:
    """One line per value of ``line``: the mean of ``y`` against ``x`` over the seeds, with
    its confidence band (clipped to ``bounds``, the range ``y`` can take); one panel per
    value of ``panel`` (sharing axes) or a single panel. ``dashed=(column, its label, the
    label of y)`` adds the mean of another column as a dashed line of the same colour (no
    band)."""
    table = _with_parameters(table, line, *([panel] if panel else []))
    if panel is None:
        table = table.assign(_panel="")
    panel_column = panel or "_panel"
    stats = results.aggregate(table, [panel_column, line, x],
                              [y, *([dashed[0]] if dashed else [])], CONFIDENCE)
    for end in ("low", "high"):
        stats[f"{y}_{end}"] = stats[f"{y}_{end}"].clip(*bounds)
    panels, lines = _levels(folder, table, panel_column), _levels(folder, table, line)
    colours = _colours(lines)
    cols = len(panels) if len(panels) <= 3 else math.ceil(math.sqrt(len(panels)))
    rows = math.ceil(len(panels) / cols)
    fig = PaperFigure((rows, cols), margin=2.2)
    with matplotlib.rc_context(STYLE):
        axes = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False).ravel()
        for ax, value in zip(axes, panels):
            here = stats[stats[panel_column] == value]
            for level in lines:
                part = here[here[line] == level]
                if len(part):
                    _line(ax, part, x, y, str(level), colours[level], marker)
                    if dashed:
                        part = part.sort_values(x)
                        ax.plot(part[x], part[dashed[0]], color=colours[level], marker=marker,
                                linestyle="--", markerfacecolor="none")
            if panel is not None:
                ax.set_title(f"{panel_title} = {value}")
        if x in results.definition(folder)["sweep"] and len(pd.unique(table[x])) <= 12:
            axes[0].set_xticks(sorted(pd.unique(table[x])))
        for ax in axes[len(panels):]:
            ax.set_visible(False)
        if len(axes) == 1:
            axes[0].set_xlabel(xlabel)
            axes[0].set_ylabel(ylabel)
        else:  # shared axes: one label each, tick labels on the outer panels only
            fig.supxlabel(xlabel, fontsize=STYLE["axes.labelsize"])
            fig.supylabel(ylabel, fontsize=STYLE["axes.labelsize"])
            for ax in axes[:len(panels)]:
                ax.label_outer()
            for ax in axes[len(panels) - cols:len(panels)]:  # above an empty slot
                ax.xaxis.set_tick_params(labelbottom=True)
        handles, labels = axes[0].get_legend_handles_labels()
        if dashed:
            from matplotlib.lines import Line2D
            styles = [Line2D([], [], color="0.3", marker=marker),
                      Line2D([], [], color="0.3", marker=marker, linestyle="--",
                             markerfacecolor="none")]
            fig.legend(styles, [dashed[2], dashed[1]], loc="outside right lower")
        fig.legend(handles, labels, title=line_title, loc="outside right center")
        fig.suptitle(title)
    return fig


def bars(folder, table, *, columns, names, category, title, xlabel, ylabel,
          legend_title=None, bounds=(None, None)) -> Figure:
    """Bars of the mean of each of ``columns`` per value of ``category`` (grouped side by
    side, one colour per column), with confidence interval error bars (clipped to
    ``bounds``, the range the columns can take)."""
    table = _with_parameters(table, category)
    stats = results.aggregate(table, category, columns, CONFIDENCE)
    for column in columns:
        for end in ("low", "high"):
            stats[f"{column}_{end}"] = stats[f"{column}_{end}"].clip(*bounds)
    order = _levels(folder, table, category)
    stats = stats.set_index(category).loc[order].reset_index()
    fig = PaperFigure((1, max(1, min(3, len(order) / 2.5))))
    with matplotlib.rc_context(STYLE):
        ax = fig.subplots()
        positions = np.arange(len(order))
        width = 0.8 / len(columns)
        single = len(columns) == 1
        for i, (column, name) in enumerate(zip(columns, names)):
            offset = (i - (len(columns) - 1) / 2) * width
            colours = [PALETTE[j % len(PALETTE)] for j in range(len(order))] if single \
                else PALETTE[i % len(PALETTE)]
            ax.bar(positions + offset, stats[column], width * 0.95, yerr=_error(stats, column),
                   color=colours, label=name, ecolor="0.2")
        long = max(len(str(v)) for v in order) > 12  # slanted, so that they do not overlap
        ax.set_xticks(positions, [str(v) for v in order], rotation=20 if long else 0,
                      ha="right" if long else "center")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(axis="x", visible=False)
        ax.legend(title=legend_title, loc="best")
        fig.suptitle(title)
    return fig
