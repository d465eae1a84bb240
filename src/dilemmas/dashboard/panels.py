"""The parts of the page that show a model, the same for a game played live
(``dilemmas.dashboard.play``) and a recorded run (``dilemmas.dashboard.viewer``): its world with its
key, its plots, and one agent's story.

Each part catches what drawing might raise and says it in one line instead: a page never
shows a traceback.
"""

import contextlib
import functools
import html
import re
from collections.abc import Callable

import pandas as pd
import solara

from dilemmas.dashboard import agent_colour, key_html
from dilemmas.dashboard.charts import Plot, Series, chart, missing
from dilemmas.dashboard.messages import message, one_line
from dilemmas.dashboard.scene import Cells, to_svg

def _held(lock):
    return lock if lock is not None else contextlib.nullcontext()


#: The world's zoom factors offered (a game played): the drawing that many times its size,
#: in a box that scrolls (pans) over it.
ZOOMS = (1, 2, 4, 8)


#: A world wider than this many times its height (the Firefighting Graph's row) is drawn
#: across the page, its key and plots under it (style.css), so that its houses' numbers
#: can be read.
WIDE = 3.0


def zoomed(svg: str, zoom: int) -> str:
    """The world's ``<svg>`` drawn ``zoom`` times its size (its width and height, and
    ``--zoom`` for a page that sizes it to the window; no longer shrunk to the page: the box
    around it scrolls)."""
    if zoom == 1:
        return svg

    def scaled(match):
        return f'{match.group(1)}="{float(match.group(2)) * zoom:.0f}"'

    head, rest = svg.split(">", 1)
    head = re.sub(r'\b(width|height)="([0-9.]+)"', scaled, head, count=2)
    head = head.replace('style="max-width:100%;height:auto;', f'style="--zoom:{zoom};')
    return head + ">" + rest


def aspect(svg: str) -> float:
    """The ``<svg>``'s width over its height."""
    found = re.search(r"--aspect:([0-9.]+)", svg.split(">", 1)[0])
    return float(found.group(1)) if found else 1.0


def drawing(game, model) -> tuple[str, str, str]:
    """``(status line, world's SVG, key's HTML)`` of ``model``."""
    view = game.view
    return (view.status(model), to_svg(view.scene(model), label=f"{game.title}: the world"),
            key_html(view.key(model)))


@solara.component_vue("world.vue")
def _Clickable(caption: str, status: str, svg: str, classes: list,
               event_inspect: Callable[[dict], None], event_zoom: Callable[[dict], None]):
    pass


def next_zoom(zoom: int, step: int) -> int:
    """The zoom factor ``step`` places along ``ZOOMS`` from ``zoom`` (kept within them)."""
    at = ZOOMS.index(zoom) if zoom in ZOOMS else 0
    return ZOOMS[min(max(at + step, 0), len(ZOOMS) - 1)]


def inspected_text(clicked: dict, scene=None) -> str:
    """What a click on the world names: the shape's tooltip and, for a grid's cell (a tip
    without a number), its row and column; a click on a grid drawn as one image
    (``grid``) names the cell of ``scene``'s ``Cells`` under the point."""
    tip = str(clicked.get("tip", ""))
    x, y = clicked.get("x"), clicked.get("y")
    if clicked.get("grid") and scene is not None:
        tip = cell_tip(scene, x, y)
    grid = bool(clicked.get("grid")) or not any(ch.isdigit() for ch in tip)
    if grid and isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return f"{tip}: cell at row {int(y)}, column {int(x)}"
    return tip


def cell_tip(scene, x, y) -> str:
    """The tip of the cell of ``scene``'s grids at the point (x, y), or "" if none."""
    for shape in scene.shapes:
        if isinstance(shape, Cells) and isinstance(x, (int, float)) \
                and isinstance(y, (int, float)):
            row, col = int(y - shape.y), int(x - shape.x)
            rows, cols = shape.codes.shape
            if 0 <= row < rows and 0 <= col < cols:
                return shape.tip(row, col) or f"cell code {int(shape.codes[row, col])}"
    return ""


def inspected_seat(text: str) -> int | None:
    """The seat a clicked agent's tooltip names ("agent 3 (...)", "firefighter 3 (...)")."""
    match = re.match(r"^(?:agent|firefighter) (\d+) \(", text)
    return int(match.group(1)) if match else None


@solara.component
def World(game, model, version: int = 0, drawn: tuple | None = None,
          plots: str | None = None, zoom: int = 1, on_zoom: Callable | None = None,
          on_inspect: Callable | None = None, caption: str = ""):
    """The world's drawing, the line on the state of play above it (and ``caption`` above
    that: one widget, so that the three always show one round), and its key;
    ``version`` changes whenever the model has (a new round); ``drawn``: the ``drawing`` already made (so that it is of the same round as the
    rest of the board); ``plots``: the plots' HTML (``plots_html``) to stand under the key,
    beside the world (a game played: its plots above the fold at 1280 x 800); ``zoom``:
    the world drawn that many times its size in a box that scrolls (``zoomed``) and pans
    by a drag; ``on_zoom(zoom)``: called with the zoom Ctrl and the wheel over the world
    ask for (``next_zoom``); ``on_inspect(clicked)``: called with what a click on the
    world hit (its tip and where it is: ``inspected_text``)."""
    try:
        if drawn is None:
            drawn = drawing(game, model)
    except Exception as error:  # drawing a model must never take the page down
        message(f"could not draw the world: {one_line(error)}")
        return
    status, svg, key = drawn
    with solara.Column(gap="4px", classes=["world-panel"]):
        with solara.Row(gap="16px", style={"flex-wrap": "wrap", "align-items": "flex-start"}):
            classes = (["world"] + (["zoomed"] if zoom != 1 else [])
                       + (["wide"] if aspect(svg) > WIDE else []))
            _Clickable(caption=caption, status=status, svg=zoomed(svg, zoom), classes=classes,
                       event_inspect=on_inspect or (lambda clicked: None),
                       event_zoom=lambda asked: on_zoom and on_zoom(
                           next_zoom(zoom, int(asked.get("step", 0)))))
            with solara.Column(gap="12px", classes=["beside-world"]):
                solara.HTML(tag="div", unsafe_innerHTML=key, classes=["key-box"],
                            style="max-width: 340px; font-size: 14px")
                if plots is not None:
                    solara.HTML(tag="div", unsafe_innerHTML=plots, classes=["plots"],
                                style="display: flex; flex-direction: column; gap: 12px")


@solara.component
def About(game):
    """The game's one-paragraph description and a link to its rules document."""
    link = (f'<a href="/rules/{game.name}" target="_blank" rel="noopener">'
            f"the rules of {html.escape(game.title)}</a>")
    solara.HTML(tag="p", unsafe_innerHTML=f"{html.escape(game.view.description)} Read {link}.",
                classes=["game-description"], style="font-size: 14px; max-width: 980px")


def plot_high(plot: Plot, model):
    return plot.high(model) if callable(plot.high) and model is not None else None


def plots_html(game, data, model=None, current: int | None = None, axes: dict | None = None,
               last_round: int | None = None) -> str:
    """The game's plots of ``data`` as HTML (``Charts``); a plot that cannot be drawn says
    so in its place."""
    out = []
    for plot in game.view.plots:
        try:
            out.append(chart(plot, data, f"{game.round} (rounds played)",
                             high=plot_high(plot, model), current=current,
                             y_span=(axes or {}).get(plot.title), last_round=last_round))
        except Exception as error:  # a plot that fails says so and the page goes on
            out.append(f"<p>could not draw {html.escape(plot.title)}: "
                       f"{html.escape(one_line(error))}</p>")
    return "".join(out)


@solara.component
def Charts(game, data, model=None, version: int = 0, current: int | None = None,
           axes: dict | None = None, last_round: int | None = None, drawn: str | None = None):
    """The game's plots of ``data`` (column -> values by round); ``model`` evaluates axis
    ranges that depend on it; ``current`` marks a round; ``axes`` (plot title -> y axis
    ``(bottom, top)``) and ``last_round`` are the ranges charts side by side share;
    ``drawn``: the ``plots_html`` already made."""
    if drawn is None:
        drawn = plots_html(game, data, model, current, axes, last_round)
    solara.HTML(tag="div", unsafe_innerHTML=drawn, classes=["plots"],
                style="display: flex; flex-wrap: wrap; gap: 12px")


def agent_rows(model, seat: int) -> pd.DataFrame:
    """The DataCollector's rows of the agent in ``seat``, by round."""
    frame = model.datacollector.get_agent_vars_dataframe()
    if frame.empty:
        return frame
    agent = model.seats[seat]
    rows = frame.xs(agent.unique_id, level="AgentID")
    return rows.sort_index()


@functools.lru_cache(maxsize=None)
def agent_columns(game) -> dict[str, str]:
    """Each agent column's meaning, from the "Agent columns" table of the game's rules
    document (``| `column` | meaning |``); empty if the rules have none."""
    try:
        text = game.rules.read_text(encoding="utf-8")
    except OSError:
        return {}
    meanings, inside = {}, False
    for line in text.splitlines():
        if line.startswith("#"):
            inside = line.strip("# ").lower() == "agent columns"
        elif inside and line.startswith("| `"):
            name, meaning = (cell.strip() for cell in line.strip("|").split("|", 1))
            meanings[name.strip("`")] = meaning.replace("`", "")
    return meanings


def column_head(game, column: str) -> str:
    """A column's heading in the agent table: its name, "(so far)" when the rules say it
    adds up over the rounds, and its meaning on hover."""
    meaning = agent_columns(game).get(column, "")
    total = any(words in meaning for words in ("so far", "cumulative"))
    return (f'<th title="{html.escape(meaning)}">{html.escape(str(column))}'
            f'{" (so far)" if total else ""}</th>')


def _cell(value) -> str:
    if missing(value):
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return html.escape(str(value))


@solara.component
def AgentPanel(game, model, version: int = 0, lock=None, seat: int | None = None):
    """Pick a seat (first: ``seat``, e.g. the agent clicked in the world): its behaviour,
    its reward over the rounds and its last rounds' columns (signals and lies, votes,
    health or observations: whatever its game records)."""
    seats = [f"{agent.seat}: {agent.behaviour}" for agent in model.seats]
    first = seat if seat is not None and 0 <= seat < len(seats) else 0
    chosen = solara.use_reactive(seats[first] if seats else None)
    if not seats:
        return
    if chosen.value not in seats:
        chosen.set(seats[0])
        return
    seat = seats.index(chosen.value)
    with solara.Column(gap="4px", classes=["agent-panel"]):
        solara.Select("agent (seat: behaviour)", values=seats, value=chosen,
                      classes=["agent-picker"])
        try:
            with _held(lock):
                rows = agent_rows(model, seat)
        except Exception as error:
            message(f"no agent rows: {one_line(error)}")
            return
        if rows.empty or "reward" not in rows:
            message("this model collects no agent rows")
            return
        behaviour = model.seats[seat].behaviour
        plot = Plot(f"Agent {seat} ({behaviour}): reward", "reward so far (reward units)",
                    (Series("reward", "reward", agent_colour(model, behaviour)),))
        last = rows.tail(10).iloc[::-1]
        header = "<th>round</th>" + "".join(column_head(game, c) for c in last.columns)
        body = "".join("<tr>" + f"<td>{int(step)}</td>"
                       + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>"
                       for step, row in zip(last.index, last.itertuples(index=False)))
        table = (f'<table class="agent-table"><caption>agent {seat}, its last rounds '
                 "(newest first; a column marked (so far) adds up over the rounds)</caption>"
                 f"<tr>{header}</tr>{body}</table>")
        solara.HTML(tag="div", unsafe_innerHTML=chart(plot, {"reward": list(rows["reward"])},
                                                      f"{game.round} (rounds played)")
                    + table, style="display: flex; flex-wrap: wrap; gap: 16px; "
                                   "font-size: 13px")
