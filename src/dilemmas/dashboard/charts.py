"""The dashboard's plots of DataCollector columns over the rounds, as SVG line charts.

A :class:`Plot` is declared once per game (its ``View``): a title, the y axis's label with
its unit, the columns it draws (each a :class:`Series` with the colour its subject has in
the world, e.g. burning houses in fire's vermillion) and the axis's range. Counts and rates
are never in one plot: a rate's axis is 0 to 1. ``chart`` draws a plot from the columns'
values (``model.datacollector.model_vars`` while playing, a run's stored rows in the run
viewer); ticks come from matplotlib's ``MaxNLocator``, so they are the figures' round
numbers. A missing value (NaN, e.g. a rate before anyone acted) leaves a gap.
"""

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from matplotlib.ticker import MaxNLocator

from dilemmas.analysis.figures.colours import INK

WIDTH, HEIGHT = 420, 220
LEFT, RIGHT, TOP, BOTTOM = 58, 12, 34, 40
#: Pixels between the frame and the axis's ends, so that a series at the axis's top or
#: bottom is drawn inside the frame, not on it.
INSET = 6


@dataclass(frozen=True)
class Series:
    """One column drawn as a line: its label in the legend and its colour."""

    column: str
    label: str
    colour: str
    dashed: bool = False


@dataclass(frozen=True)
class Plot:
    """A chart of ``series`` against the rounds; the y axis is labelled ``axis`` (with its
    unit) and runs from ``low`` to ``high`` (a number, ``high(model)`` or None: the data's
    largest value); ``counts``: it counts things, so its ticks are whole numbers."""

    title: str
    axis: str
    series: tuple[Series, ...]
    low: float = 0.0
    high: float | Callable | None = None
    counts: bool = False

    @property
    def columns(self) -> list[str]:
        return [s.column for s in self.series]


def _ticks(low: float, high: float, n: int, integer: bool = False) -> list[float]:
    return [t for t in MaxNLocator(n, integer=integer).tick_values(low, high)
            if low - 1e-9 <= t <= high + 1e-9]


def _number(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e5 else f"{value:.2g}"


def missing(value) -> bool:
    """No value: None, NaN, or pandas' NA."""
    try:
        return value is None or bool(value != value)
    except TypeError:  # pandas' NA has no truth value
        return True


def _present(values) -> list[float]:
    return [v for v in values if not missing(v)]


def span(plot: Plot, data: Mapping[str, Sequence], high=None) -> tuple[float, float]:
    """The y axis's ``(bottom, top)`` for ``plot`` of ``data``: ``high`` (``plot.high``
    evaluated by the caller), else ``plot.high``, else the data's largest value; the
    bottom is ``plot.low`` or the data's smallest value."""
    values = _present(v for s in plot.series for v in data.get(s.column, ()))
    top = high if high is not None else plot.high if isinstance(plot.high, (int, float)) \
        else max([plot.low + 1, *values])
    bottom = min([plot.low, *values])
    return bottom, top if top > bottom else bottom + 1


def shared(spans) -> tuple[float, float]:
    """One y axis for several charts side by side: from the lowest bottom to the highest
    top of their ``span``s."""
    spans = list(spans)
    return min(b for b, _ in spans), max(t for _, t in spans)


def chart(plot: Plot, data: Mapping[str, Sequence], rounds: str, *, high=None,
          current: int | None = None, y_span: tuple | None = None,
          last_round: int | None = None) -> str:
    """``plot`` drawn from ``data`` (column -> one value per round, round 0 first) as an
    ``<svg>``; x axis "``rounds``"; ``high`` the y axis's top when ``plot.high`` is a
    function (the caller evaluates it); ``current``: a round to mark with a vertical line
    (the run viewer's scrubber); ``y_span`` and ``last_round``: the axes' ranges when
    charts side by side share them (default: this chart's own, ``span``)."""
    columns = [list(data.get(s.column, ())) for s in plot.series]
    count = max((len(c) for c in columns), default=0)
    x_high = max(count - 1, 10) if last_round is None else max(last_round, 10)
    bottom, top = y_span if y_span is not None else span(plot, data, high)
    w, h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(step):
        return LEFT + w * step / x_high

    def y(value):
        return TOP + INSET + (h - 2 * INSET) * (1 - (value - bottom) / (top - bottom))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" '
           f'aria-label="{html.escape(plot.title)}" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'font-family="sans-serif" font-size="12">',
           f'<text x="{LEFT}" y="13" font-weight="bold">{html.escape(plot.title)}</text>']
    legend_x = LEFT
    for series in plot.series:
        dash = ' stroke-dasharray="5 3"' if series.dashed else ""
        out.append(f'<line x1="{legend_x}" y1="25" x2="{legend_x + 18}" y2="25" '
                   f'stroke="{series.colour}" stroke-width="2.5"{dash}/>'
                   f'<text x="{legend_x + 22}" y="29">{html.escape(series.label)}</text>')
        legend_x += 30 + 7 * len(series.label)
    for tick in _ticks(bottom, top, 4, plot.counts):
        out.append(f'<line x1="{LEFT}" x2="{LEFT + w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                   f'stroke="#e4e4e4"/><text x="{LEFT - 5}" y="{y(tick) + 4:.1f}" '
                   f'text-anchor="end">{_number(tick)}</text>')
    for tick in _ticks(0, x_high, 6, integer=True):
        out.append(f'<text x="{x(tick):.1f}" y="{TOP + h + 16}" '
                   f'text-anchor="middle">{_number(tick)}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{w}" height="{h}" fill="none" '
               f'stroke="{INK}" stroke-width="0.8"/>'
               f'<text x="{LEFT + w / 2}" y="{HEIGHT - 6}" text-anchor="middle">'
               f'{html.escape(rounds)}</text>'
               f'<text transform="translate(14 {TOP + h / 2}) rotate(-90)" '
               f'text-anchor="middle">{html.escape(plot.axis)}</text>')
    if current is not None:
        out.append(f'<line x1="{x(current):.1f}" x2="{x(current):.1f}" y1="{TOP}" '
                   f'y2="{TOP + h}" stroke="{INK}" stroke-dasharray="2 2"/>')
    for series, column in zip(plot.series, columns):
        out.extend(_line(column, series, x, y))
    out.append("</svg>")
    return "".join(out)


def _line(values, series: Series, x, y) -> list[str]:
    """Polylines through the finite values (a NaN breaks the line) and a dot on the last."""
    dash = ' stroke-dasharray="5 3"' if series.dashed else ""
    runs, run = [], []
    for step, value in enumerate(values):
        if missing(value):
            runs, run = runs + [run] if run else runs, []
        else:
            run.append(f"{x(step):.1f},{y(value):.1f}")
    runs = runs + [run] if run else runs
    out = [f'<polyline points="{" ".join(r)}" fill="none" stroke="{series.colour}" '
           f'stroke-width="2"{dash}/>' for r in runs if len(r) > 1]
    last = next(((i, v) for i, v in reversed(list(enumerate(values)))
                 if not missing(v)), None)
    if last is not None:
        out.append(f'<circle cx="{x(last[0]):.1f}" cy="{y(last[1]):.1f}" r="3" '
                   f'fill="{series.colour}"><title>{html.escape(series.label)}: '
                   f'{_number(last[1])}</title></circle>')
    return out


def figure(plot: Plot, data: Mapping[str, Sequence], rounds: str, *, high=None,
           current: int | None = None):
    """``plot`` of ``data`` as a matplotlib ``Figure`` (for an image file): the series,
    axes, range and marked round of ``chart``, at its size."""
    from matplotlib.figure import Figure

    shown = Figure(figsize=(WIDTH / 100 * 1.4, HEIGHT / 100 * 1.4), dpi=100,
                   layout="constrained")
    ax = shown.add_subplot()
    bottom, top = span(plot, data, high)
    for series in plot.series:
        values = [float("nan") if missing(v) else float(v) for v in data.get(series.column, ())]
        ax.plot(range(len(values)), values, color=series.colour, lw=2, label=series.label,
                linestyle="--" if series.dashed else "-")
    if current is not None:
        ax.axvline(current, color=INK, lw=0.8, linestyle=":")
    count = max((len(data.get(c, ())) for c in plot.columns), default=0)
    ax.set(title=plot.title, xlabel=rounds, ylabel=plot.axis, xlim=(0, max(count - 1, 10)),
           ylim=(bottom, top))
    ax.xaxis.set_major_locator(MaxNLocator(6, integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(4, integer=plot.counts))
    ax.legend(loc="best", fontsize=8, frameon=False)
    return shown
