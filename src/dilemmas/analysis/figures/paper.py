"""Paper figures of a study's results, as PDF and PNG, one consistent style
(docs/explanation/figures.md).

Each game's figures live with its statistics in ``dilemmas/analysis/<game>.py`` and are reached from
its registration (``dilemmas.GAMES[game].figures``: figure name -> ``draw(folder)``); this
module holds what they share. Each figure is drawn from a study folder written by
``dilemmas.analysis.studies.runner.run_study``: means over the runs of each point, with 95%
confidence bands (lines) or error bars (bars) from ``dilemmas.analysis.studies.results.aggregate``,
given the range the quantity can take (the figure's ``bounds``, else the game's ``ranges``) so that
the interval stays inside it (a count is never below 0, a fraction never above 1); an unbounded
quantity gets the Student-t interval. A swept parameter that the figure does not show is
pooled (its runs counted together).

Every figure carries a caption under its axes (``PaperFigure.caption``), wrapped to the
figure's width: what it shows and why it looks so (the game's words), then how to read it
(this module's words: what a point, a band and an error bar are, over how many runs, what is
pooled). Titles stay short. Colours come from ``dilemmas.analysis.figures.colours``: a behaviour
keeps its colour and marker in every figure, a mix of behaviours is dashed in the colour of its
largest part, numbers (e.g. ``kappa``) go dark to light along viridis.

A figure needs the parameter on its horizontal axis (or, for bar charts, its categories)
swept by the study, else it raises ``ValueError`` naming the figure and the parameter. A
parameter that only splits lines or panels may be left out of the sweep: the figure then
has one line or panel, labelled with its fixed value (or "default"). The time figures bin
the rounds: the start (round 0) is a point of its own, then each point is a window of
``k`` rounds (each run's mean over the window, then the mean and interval over the runs),
``k`` chosen so that there are at most ``WINDOWS`` windows and said in the caption. A run
that ends early (a Firefighting Graph episode whose houses all reach 0) counts only in the
windows it reached.

For a paper, ``layout(caption="beside", width="one")`` (a context) draws figures without the
caption inside the image -- ``save`` then writes it beside the figure as ``<name>.txt`` and a
LaTeX ``figure`` environment ``<name>.tex`` -- and ``width`` sets the figure's width to one
journal column (``WIDTHS``: 3.5 in) or two (7.2 in), the fonts staying at their size. Every
PDF embeds its fonts as TrueType (``pdf.fonttype`` 42), never Type 3.

``GAMES[game].figures[name](folder)`` draws one figure (a ``matplotlib.figure.Figure``, shown as
PNG in a notebook); ``save(figure, out_dir, name)`` writes ``<name>.pdf`` and ``<name>.png``;
``make_figures(folders, out_dir)`` draws and saves every figure of every study as
``<study name>_<figure name>.{pdf,png}``. Nothing here uses pyplot, so it works headless
and leaves no open figures behind.
"""

import contextlib
import contextvars
import io
import math
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from cycler import cycler
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import text_to_path

from dilemmas.models.files import make_folder
from dilemmas.models.population import entries as population_entries
from dilemmas.analysis.figures import colours
from dilemmas.analysis.studies import results
# the figures' palette, also reached from here
from dilemmas.analysis.figures.colours import PALETTE

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
#: Font size (points) of the caption under a figure's axes.
CAPTION_SIZE = 8
#: The most windows a time figure bins its rounds into (after the start).
WINDOWS = 10
#: Window lengths a time figure may use, the smallest that gives at most ``WINDOWS``.
WINDOW_SIZES = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)


#: Where a caption goes: "inside" the image, under the axes, or "beside" it (``save``
#: writes it as text and LaTeX).
CAPTIONS = ("inside", "beside")
#: Figure widths (inches) of a journal's one and two columns.
WIDTHS = {"one": 3.5, "two": 7.2}
_LAYOUT = contextvars.ContextVar("layout", default=("inside", None))


@contextlib.contextmanager
def layout(caption: str = "inside", width: str | None = None):
    """Draw the figures made inside this context with their caption ``"inside"`` (under the
    axes) or ``"beside"`` (kept as ``PaperFigure.caption_text``, written by ``save``), at
    their own width (``width=None``) or that of one or two columns (``"one"``, ``"two"``)."""
    if caption not in CAPTIONS:
        raise ValueError(f"caption={caption!r} is invalid: must be one of {list(CAPTIONS)}")
    if width is not None and width not in WIDTHS:
        raise ValueError(f"width={width!r} is invalid: must be None or one of {list(WIDTHS)}")
    token = _LAYOUT.set((caption, width))
    try:
        yield
    finally:
        _LAYOUT.reset(token)


class PaperFigure(Figure):
    """A Figure (constrained layout) that a notebook shows as a PNG in the figures' style,
    its width and caption as ``layout`` says."""

    def __init__(self, panels=(1, 1), margin=0.6, **kwargs):
        rows, cols = panels
        self.caption_place, self.column_width = _LAYOUT.get()
        self.caption_text = ""
        width, height = PANEL[0] * cols + margin, PANEL[1] * rows + 0.8
        if self.column_width is not None:  # never taller than its own size, nor too flat
            target = WIDTHS[self.column_width]
            height = max(min(height, height * target / width), 0.75 * min(target, 3.5))
            width = target
        with matplotlib.rc_context(STYLE):
            super().__init__(figsize=(width, height), layout="constrained", **kwargs)

    def caption(self, text: str):
        """Write ``text`` under the axes, wrapped to the figure's width: the figure grows by
        the caption's height and the layout keeps its axes, titles and legends above it.
        The text (``gid="caption"``) is returned. Drawn in ``layout(caption="beside")``,
        the text is only kept (``caption_text``), for ``save`` to write beside the image."""
        self.caption_text = " ".join(text.split())
        if self.caption_place == "beside":
            return None
        width, height = self.get_size_inches()
        # 4% to spare: rendered text is up to 3% wider than measured, by the resolution
        lines = wrap(text, width * 72 * 0.96 - 8, CAPTION_SIZE)
        extra = len(lines) * CAPTION_SIZE * 1.3 / 72 + 0.12
        # The layout places a figure-wide x label at the very bottom, whatever its rect:
        # it goes just above the caption instead, in room kept for it.
        label = self.get_supxlabel()
        below = extra + (STYLE["axes.labelsize"] * 1.6 / 72 if label else 0)
        total = height + below
        self.set_size_inches(width, total)
        self.get_layout_engine().set(rect=(0, below / total, 1, 1 - below / total))
        if label:
            self.supxlabel(label, y=(extra + 0.02) / total, va="bottom",
                           fontsize=STYLE["axes.labelsize"])
        return self.text(4 / (width * 72), (extra - 0.04) / total, "\n".join(lines),
                         ha="left", va="top", fontsize=CAPTION_SIZE, linespacing=1.3,
                         gid="caption")

    def _repr_png_(self):
        buffer = io.BytesIO()
        with matplotlib.rc_context(STYLE):
            self.savefig(buffer, format="png", dpi=100)
        return buffer.getvalue()


def wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` in lines at most ``width`` points wide in the figures' font of ``size``
    points (paragraphs kept at newlines)."""
    font = FontProperties(size=size)
    lines = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if line and text_to_path.get_text_width_height_descent(
                    candidate, font, ismath=False)[0] > width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


def caption(figure) -> str:
    """The caption of a figure drawn here, unwrapped ("" if it has none); of a figure drawn
    with its caption beside, the caption it keeps."""
    text = next((t.get_text() for t in figure.texts if t.get_gid() == "caption"), "")
    return " ".join(text.split()) or getattr(figure, "caption_text", "")


#: LaTeX's special characters in text, and what writes each.
LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
         "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
         "^": r"\textasciicircum{}", "\u00d7": r"$\times$", "\u2013": "--",
         "\u2026": r"\ldots{}", "\u2014": "---", "\u00b1": r"$\pm$", "\u2264": r"$\leq$",
         "\u2265": r"$\geq$", "\u03bc": r"$\mu$", "\u03c3": r"$\sigma$"}


def latex_text(text: str) -> str:
    """``text`` with LaTeX's special characters escaped (and a few signs written in LaTeX)."""
    return "".join(LATEX.get(char, char) for char in text)


def latex_figure(name: str, text: str, width: str | None) -> str:
    """A LaTeX ``figure`` environment (``figure*`` at two columns) that includes
    ``<name>.pdf`` at the column's (or the text's) width, with ``text`` as its caption and
    ``fig:<name>`` as its label."""
    environment = "figure*" if width == "two" else "figure"
    size = r"\textwidth" if width == "two" else r"\columnwidth"
    return (f"\\begin{{{environment}}}[tbp]\n  \\centering\n"
            f"  \\includegraphics[width={size}]{{{name}.pdf}}\n"
            f"  \\caption{{{latex_text(text)}}}\n  \\label{{fig:{name}}}\n"
            f"\\end{{{environment}}}\n")


def fit_texts(figure: Figure) -> None:
    """Wrap the titles and axis labels of ``figure`` that are wider than the room they have
    (the figure's width, or a panel's), as at a column's width."""
    width, height = (figure.get_size_inches() * 72).tolist()
    texts = [(figure._suptitle, width), (figure._supxlabel, width), (figure._supylabel, height)]
    for ax in figure.axes:
        room = ax.get_position().width * width
        texts += [(ax.title, room), (ax.xaxis.label, room),
                  (ax.yaxis.label, ax.get_position().height * height)]
    for text, room in texts:
        if text is not None and text.get_text() and "\n" not in text.get_text():
            lines = wrap(text.get_text(), max(room - 8, 36), text.get_fontsize())
            text.set_text("\n".join(lines))


def save(figure: Figure, out_dir, name: str) -> list[Path]:
    """Write ``figure`` as ``<out_dir>/<name>.pdf`` and ``.png`` (creating ``out_dir``);
    return the paths. A figure drawn with its caption beside (``layout``) also gets
    ``<name>.txt`` (the caption) and ``<name>.tex`` (``latex_figure``), and one drawn with
    it inside removes those of an earlier save; one drawn at a
    column's width is saved at exactly that width (no tight box). The PDF carries no
    creation date, so the same data gives the same file, and embeds its fonts (TrueType)."""
    out_dir = make_folder(out_dir)
    paths = []
    # at a column's width, the page is the figure itself (a tight box would change its width)
    exact = {}
    if getattr(figure, "column_width", None):
        exact = {"savefig.bbox": "standard"}
        fit_texts(figure)
    with matplotlib.rc_context({**STYLE, **exact}):
        for fmt in FORMATS:
            path = out_dir / f"{name}.{fmt}"
            metadata = {"CreationDate": None} if fmt == "pdf" else None
            figure.savefig(path, format=fmt, metadata=metadata)
            paths.append(path)
    text = getattr(figure, "caption_text", "")
    if getattr(figure, "caption_place", "inside") == "beside" and text:
        (out_dir / f"{name}.txt").write_text(text + "\n", encoding="utf-8")
        (out_dir / f"{name}.tex").write_text(latex_figure(name, text, figure.column_width),
                                             encoding="utf-8")
        paths += [out_dir / f"{name}.txt", out_dir / f"{name}.tex"]
    else:  # the caption is in the image: no caption file of an earlier save stays beside it
        for suffix in ("txt", "tex"):
            (out_dir / f"{name}.{suffix}").unlink(missing_ok=True)
    return paths


def make_figures(folders, out_dir, skipped: list | None = None, caption: str = "inside",
                 width: str | None = None) -> list[Path]:
    """Draw every figure of each study folder's game and save them in ``out_dir`` as
    ``<study name>_<figure name>.{pdf,png}``; return the paths written. A figure whose study
    lacks a parameter it needs raises ``ValueError`` -- or, given a list ``skipped``, is left
    out and its reason appended to the list (a study made for another question, such as an
    evaluation of trained learners, draws the figures its sweep supports). ``caption`` and
    ``width``: as ``layout`` (beside: a ``.txt`` and a ``.tex`` too)."""
    if isinstance(folders, (str, Path)):
        folders = [folders]
    paths = []
    with layout(caption, width):
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
    study = results.definition(folder)
    sweep = study["sweep"]
    for parameter in parameters:
        if parameter not in sweep:
            swept = ", ".join(sweep) or "nothing"
            design = (f" (its {study['design']['kind']} design varies "
                      f"{', '.join(results.varied(study))}: `dilemmas plot` draws it)"
                      if "design" in study else "")
            raise ValueError(f"figure {figure!r} needs the parameter {parameter!r} swept, but "
                             f"the study in {folder} sweeps {swept}{design}")


def _with_parameters(table: pd.DataFrame, *parameters) -> pd.DataFrame:
    """``table`` with a column for each of ``parameters``: a parameter neither swept nor
    fixed (the model's default) gets the value "default"."""
    missing = [p for p in parameters if p not in table.columns]
    return table.assign(**{p: "default" for p in missing}) if missing else table


def _levels(folder, table: pd.DataFrame, parameter: str) -> list:
    """The values of ``parameter`` in the study's sweep order (those with data), else in
    the order of its categories (an ordered column), else sorted (numbers by value, before
    the other values by their text)."""
    present = pd.unique(table[parameter])
    swept = results.definition(folder)["sweep"].get(parameter)
    if swept is None:
        if isinstance(table[parameter].dtype, pd.CategoricalDtype):
            return [v for v in table[parameter].cat.categories if v in set(present)]
        return sorted(present, key=lambda v: (0, float(v), "") if _is_number(v)
                      else (1, 0.0, str(v)))
    ordered = [v for v in swept if (table[parameter] == v).any()]
    return ordered + [v for v in present if not any(v == o for o in ordered)]


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


def styles(folder, column: str, values) -> dict:
    """A style (``dilemmas.analysis.figures.colours.Style``) per value of ``column``: a population's
    fixed behaviour style, numbers dark to light along viridis, other categories the palette."""
    values = list(values)
    if column == "population":
        return colours.population_styles(results.definition(folder)["game"], values)
    if len(values) > 1 and all(_is_number(v) for v in values):
        return colours.number_styles(values)
    return colours.category_styles(values)


def study_value(folder, parameter: str):
    """The value of ``parameter`` in every run of the study: fixed, else the game's default;
    None if the study sweeps it."""
    study = results.definition(folder)
    if parameter in results.varied(study):
        return None
    return study["fixed"].get(parameter, results.game(folder).parameters.defaults()[parameter])


def pooled(folder, *shown) -> str:
    """", pooled over a, b" for the swept parameters a figure does not show."""
    others = [p for p in results.varied(results.definition(folder)) if p not in shown]
    return f", pooled over {', '.join(others)}" if others else ""


def behaviour_notes(populations, notes: dict, lead: str = "Why: ") -> str:
    """``lead`` and the notes (``notes``: behaviour -> a clause on it, in the order to tell
    them) of the behaviours in ``populations`` (a figure's population values), each clause
    once, joined by semicolons; "" when none is shown."""
    present = {name for population in pd.unique(pd.Series(populations))
               for name, _ in population_entries(population)}
    clauses = list(dict.fromkeys(note for name, note in notes.items() if name in present))
    return f"{lead}{'; '.join(clauses)}." if clauses else ""


def _and(words) -> str:
    words = [str(w) for w in words]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _runs(folder, n: pd.Series, shown, each: str) -> str:
    """"the 10 runs (seeds) of each point", or with pooling "the 120 runs of each bar (10
    seeds x the 12 combinations of beta and kappa, pooled: counted together)"."""
    study = results.definition(folder)
    others = [p for p in results.varied(study) if p not in shown]
    low, high = int(n.min()), int(n.max())
    count = f"{low}" if low == high else f"{low} to {high}"
    if "design" in study:  # runs of several design points, each a combination of its own
        varies = (f"; {_and(others)} {'varies' if len(others) == 1 else 'vary'} across them,"
                  " pooled: counted together" if others else "")
        return (f"the {count} runs of each {each} ({study['replicates']} seeds at each of its "
                f"design points{varies})")
    if not others:
        return f"the {count} runs (seeds) of each {each}"
    combinations = math.prod(len(study["sweep"][p]) for p in others)
    what = (f"{combinations} values of {others[0]}" if len(others) == 1
            else f"{combinations} combinations of {_and(others)}")
    return (f"the {count} runs of each {each} ({study['replicates']} seeds \u00d7 the "
            f"{what}, pooled: counted together)")


def _bounds(folder, column: str, bounds):
    """``bounds``, or when None the range the game declares for ``column``
    (``Game.ranges``; ``(None, None)`` for a column it does not declare)."""
    if bounds is not None:
        return tuple(bounds)
    return tuple(results.game(folder).ranges.get(column, (None, None)))


def _interval(bounds, stats: pd.DataFrame | None = None, columns=()) -> str:
    """What the confidence interval is, in words; with the ``stats`` of ``columns``, also
    why a mean at a bound of the range has a wide interval, if one has."""
    low, high = bounds
    if low is None and high is None:
        return f"{CONFIDENCE:.0%} Student-t confidence interval"
    inside = (f"within {low:g} to {high:g}" if low is not None and high is not None
              else f"at or above {low:g}" if low is not None else f"at or below {high:g}")
    at_bound = stats is not None and any(
        ((stats["n"] >= 2) & (stats[c] == end) & (stats[f"{c}_high"] > stats[f"{c}_low"])).any()
        for c in columns for end in (low, high) if end is not None)
    return (f"{CONFIDENCE:.0%} confidence interval, a score interval that stays {inside} "
            "(close to the Student-t interval away from the bounds"
            + ("; where every run sits at a bound, e.g. at 0 throughout, it takes the spread "
               "of the other points" if at_bound else "") + ")")


def window_size(last: int) -> int:
    """The window (in rounds) of a time figure whose rounds run to ``last``: the smallest of
    ``WINDOW_SIZES`` that gives at most ``WINDOWS`` windows."""
    return next((k for k in WINDOW_SIZES if math.ceil(last / k) <= WINDOWS),
                math.ceil(last / WINDOWS))


def windowed(table: pd.DataFrame, x: str, columns, keys, window: int) -> pd.DataFrame:
    """Per run (``run_id``, with its ``keys``) and window: the run's mean of each of
    ``columns`` over the rounds of the window; ``x`` becomes the middle of the window.
    Round 0 (the start) is a window of its own; then rounds 1..k, k+1..2k, ..., the last
    window ending at the last round."""
    rounds = table[x].to_numpy()
    last = int(rounds.max())
    index = np.where(rounds <= 0, -1, (rounds - 1) // window)
    first = index * window + 1
    middle = np.where(index < 0, 0, (first + np.minimum(first + window - 1, last)) / 2)
    binned = table.assign(**{x: middle})
    return (binned.groupby([*keys, "run_id", x], sort=True, dropna=False)[list(columns)]
            .mean().reset_index())


def _windows_text(x: str, last: int, window: int) -> str:
    rounds = f"{x}s"
    if window == 1:
        return f"Each point is one {x} ({x} 0 is the start)"
    spans = [f"{a}\u2013{min(a + window - 1, last)}" for a in range(1, last + 1, window)]
    shown = ", ".join(spans) if len(spans) <= 3 else f"{spans[0]}, {spans[1]}, \u2026, {spans[-1]}"
    return (f"The point at {x} 0 is the start; each later point is a window of k = {window} "
            f"{rounds} ({shown}), drawn at its middle: each run's mean over the window")


def _line(ax, table: pd.DataFrame, x: str, y: str, label: str, style):
    """Mean of ``y`` against ``x`` with its confidence band, in ``style``."""
    table = table.sort_values(x)
    ax.plot(table[x], table[y], label=label, **style.line())
    ax.fill_between(table[x].to_numpy(float), table[f"{y}_low"].to_numpy(float),
                    table[f"{y}_high"].to_numpy(float), color=style.colour, alpha=BAND_ALPHA,
                    linewidth=0)


def _error(table: pd.DataFrame, y: str) -> np.ndarray:
    """Asymmetric error bar lengths (2, n) of the confidence interval of ``y`` (0 if NaN)."""
    low = (table[y] - table[f"{y}_low"]).fillna(0).to_numpy(float)
    high = (table[f"{y}_high"] - table[y]).fillna(0).to_numpy(float)
    return np.vstack([low, high])


def lines_in_panels(folder, table, *, x, y, line, title, xlabel, ylabel, line_title,
                     caption="", panel=None, panel_title="", bounds=None,
                     window=None, legend=True) -> Figure:
    """One line per value of ``line``: the mean of ``y`` against ``x`` over the runs of each
    point, with its confidence band, which stays within ``bounds``, the range ``y`` can take
    (None: the game's ``ranges`` of ``y``, if it declares one); one
    panel per value of ``panel`` (sharing axes; titled "``panel_title`` = value", or the
    value alone without ``panel_title``) or a single panel. ``window``: ``x`` counts rounds,
    binned into windows of that many rounds ("auto": ``window_size``; module docstring).
    ``caption``: what the figure shows and why; the caption goes on with how to read it.
    ``legend=False``: no legend (a single line that the axis label names)."""
    table = _with_parameters(table, line, *([panel] if panel else []))
    if panel is None:
        table = table.assign(_panel="")
    panel_column = panel or "_panel"
    if window is not None:
        last = int(table[x].max())
        window = window_size(last) if window == "auto" else int(window)
        table = windowed(table, x, [y], [panel_column, line], window)
    bounds = _bounds(folder, y, bounds)
    stats = results.aggregate(table, [panel_column, line, x], [y], CONFIDENCE,
                              ranges={y: bounds})
    panels, lines = _levels(folder, table, panel_column), _levels(folder, table, line)
    style = styles(folder, line, lines)
    cols = len(panels) if len(panels) <= 3 else math.ceil(math.sqrt(len(panels)))
    rows = math.ceil(len(panels) / cols)
    fig = PaperFigure((rows, cols), margin=2.2 if legend else 0.6)
    with matplotlib.rc_context(STYLE):
        axes = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False).ravel()
        handles = {}
        for ax, value in zip(axes, panels):
            here = stats[stats[panel_column] == value]
            for level in lines:
                part = here[here[line] == level]
                if len(part):
                    _line(ax, part, x, y, str(level), style[level])
                    handles.setdefault(level, ax.get_lines()[-1])
            if panel is not None:
                ax.set_title(f"{panel_title} = {value}" if panel_title else str(value))
        if (window is None and x in results.definition(folder)["sweep"]
                and len(pd.unique(table[x])) <= 12):
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
        ordered = [level for level in lines if level in handles]
        if legend:
            fig.legend([handles[level] for level in ordered], [str(level) for level in ordered],
                       title=line_title, loc="outside right center")
        fig.suptitle(title)
        if window is None:
            how = (f"Lines: the mean over {_runs(folder, stats['n'], [panel, line, x], 'point')}"
                   f"; bands: its {_interval(bounds, stats, [y])}.")
        else:
            varies = stats["n"].min() < stats["n"].max()
            how = (f"{_windows_text(x, last, window)}, then the mean over "
                   f"{_runs(folder, stats['n'], [panel, line], 'line and panel')}"
                   + (", counting a run only in the windows it reached" if varies else "")
                   + f"; bands: the {_interval(bounds, stats, [y])} of that mean over the runs.")
        fig.caption(f"{caption} {how}".strip())
    return fig


def bars(folder, table, *, columns, names, category, title, xlabel, ylabel, caption="",
          legend_title=None, bounds=None, colours_of=None) -> Figure:
    """Bars of the mean of each of ``columns`` per value of ``category`` (grouped side by
    side), with confidence interval error bars, which stay within ``bounds``, the range the
    columns can take (None: the game's ``ranges`` of each column). One column: its bars in
    one colour, named by the tick labels, no legend; several: a colour per column
    (``colours_of``, else the palette) and a legend.
    ``caption``: what the figure shows and why; the caption goes on with how to read it."""
    table = _with_parameters(table, category)
    ranges = {column: _bounds(folder, column, bounds) for column in columns}
    stats = results.aggregate(table, category, columns, CONFIDENCE, ranges=ranges)
    order = _levels(folder, table, category)
    stats = stats.set_index(category).loc[order].reset_index()
    single = len(columns) == 1
    fills = ([colours.NEUTRAL] if single else
             list(colours_of) if colours_of else
             [colours.category_styles(columns)[c].colour for c in columns])
    fig = PaperFigure((1, max(1, min(3, len(order) / 2.5))))
    with matplotlib.rc_context(STYLE):
        ax = fig.subplots()
        positions = np.arange(len(order))
        width = 0.8 / len(columns)
        for i, (column, name) in enumerate(zip(columns, names)):
            offset = (i - (len(columns) - 1) / 2) * width
            ax.bar(positions + offset, stats[column], width * 0.95, yerr=_error(stats, column),
                   color=fills[i], edgecolor=colours.INK, linewidth=0.5, label=name,
                   ecolor=colours.INK, error_kw={"elinewidth": 1})
        long = max(len(str(v)) for v in order) > 12  # slanted, so that they do not overlap
        ax.set_xticks(positions, [str(v) for v in order], rotation=20 if long else 0,
                      ha="right" if long else "center")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(axis="x", visible=False)
        if not single:
            ax.legend(title=legend_title, loc="best")
        fig.suptitle(title)
        what = "bar" if single else "group of bars"
        same = len({ranges[column] for column in columns}) == 1
        interval = (_interval(ranges[columns[0]], stats, columns) if same
                    else f"{CONFIDENCE:.0%} confidence interval")
        how = (f"Bars: the mean over {_runs(folder, stats['n'], [category], what)}; "
               f"error bars: its {interval}.")
        fig.caption(f"{caption} {how}".strip())
    return fig
