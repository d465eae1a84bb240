"""What the page shows, as files: a run's model and agent rows as CSV and Parquet, its world
and each of its plots as PNG and SVG, the same in a game played live
(``dilemmas.dashboard.play``) and a recorded run (``dilemmas.dashboard.viewer``).

A file is named by what it holds: the game, the parameters set (a live game's values set
in its form, a recorded run's swept values and run id), the seed and, for a picture, the
round drawn: ``bucket_brigade_num_agents-5_seed7_night12_world.png``. An exported world holds
the page's caption and status line above it and its key beside it (``framed``). The rows are the
DataCollector's (``Step`` a column, agents by ``Step`` and ``AgentID``) or, for a recorded
run, its stored rows, as ``dilemmas.analysis.studies.results`` reads them. A picture's SVG is
the page's own drawing (``dilemmas.dashboard.scene``, ``dilemmas.dashboard.charts``); its PNG
is the same drawing on matplotlib.
"""

import dataclasses
import hashlib
import io
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pandas as pd
import solara

from dilemmas.analysis.figures.colours import ink_on
from dilemmas.dashboard import ColourBar, charts
from dilemmas.dashboard.controls import as_text
from dilemmas.dashboard.messages import one_line
from dilemmas.dashboard.panels import WIDE
from dilemmas.dashboard.scene import (Cells, Circle, Line, Marks, Polygon, Rect, Scene, Text,
                                      text_width, to_svg)
from dilemmas.dashboard.scene import figure as world_figure

#: The longest run of parameter values in a file's name; longer ones are a hash of them.
LONGEST = 80
XML = '<?xml version="1.0" encoding="UTF-8"?>\n'


def stem(game: str, parameters: Mapping, seed) -> str:
    """A file name's start: the game, the parameters (sorted by name, ``name-value``) and
    the seed, in letters, digits, ``.``, ``_`` and ``-`` only; parameters that would make
    it longer than ``LONGEST`` are named by a hash of their values."""
    def clean(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9._]+", "-", text).strip("-.")

    values = "_".join(f"{name}-{clean(as_text(parameters[name]))}" for name in sorted(parameters))
    if len(values) > LONGEST:
        values = "parameters-" + hashlib.sha256(
            repr(sorted((k, as_text(v)) for k, v in parameters.items())).encode()).hexdigest()[:12]
    return "_".join(part for part in (game, values, f"seed{clean(as_text(seed))}") if part)


def model_frame(model) -> pd.DataFrame:
    """A live model's DataCollector model rows, ``Step`` a column."""
    return model.datacollector.get_model_vars_dataframe().rename_axis("Step").reset_index()


def agent_frame(model) -> pd.DataFrame | None:
    """A live model's DataCollector agent rows, ``Step`` and ``AgentID`` columns (None if
    it collects none)."""
    frame = model.datacollector.get_agent_vars_dataframe()
    return None if frame.empty else frame.reset_index()


def csv_bytes(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode("utf-8")


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def png_bytes(shown) -> bytes:
    buffer = io.BytesIO()
    shown.savefig(buffer, format="png")
    return buffer.getvalue()


#: The framed world's layout, in pixels: margin, caption and key line heights, the key's
#: width and its labels' length in characters.
MARGIN, CAPTION_LINE, KEY_LINE, KEY_WIDTH, KEY_CHARACTERS = 8, 20, 16, 330, 46


def moved(shape, dx: float, dy: float):
    """``shape`` (``dilemmas.dashboard.scene``) moved by ``(dx, dy)`` units."""
    if isinstance(shape, (Polygon, Marks)):
        return dataclasses.replace(shape, points=tuple((x + dx, y + dy) for x, y in shape.points))
    if isinstance(shape, Line):
        return dataclasses.replace(shape, x1=shape.x1 + dx, y1=shape.y1 + dy,
                                   x2=shape.x2 + dx, y2=shape.y2 + dy)
    return dataclasses.replace(shape, x=shape.x + dx, y=shape.y + dy)


def swatch(entry, x: float, y: float, unit: float) -> list:
    """A key entry's 16-pixel symbol (``dilemmas.dashboard.Swatch``) with its top left at
    ``(x, y)`` units, ``unit`` units a pixel."""
    cx, cy, colour = x + 8 * unit, y + 8 * unit, entry.colour
    return {
        "square": [Rect(x + unit, y + unit, 14 * unit, 14 * unit, colour, "#888888",
                        entry.opacity)],
        "disc": [Circle(cx, cy, 7 * unit, colour, stroke=colour)],
        "ring": [Circle(cx, cy, 5.5 * unit, "none", stroke=colour, stroke_width=3)],
        "triangle": [Polygon(((cx, y + unit), (x + 15 * unit, y + 15 * unit),
                              (x + unit, y + 15 * unit)), colour, stroke=colour)],
        "line": [Line(x, cy, x + 16 * unit, cy, colour, 3)],
        "dotted": [Line(x + unit, cy, x + 15 * unit, cy, colour, 3, dotted=True)],
        "text": [Text(cx, cy, "1", 13, colour, bold=True)],
    }[entry.shape]


def framed(world: Scene, caption: list[str], key) -> Scene:
    """The world as an exported picture shows it: ``caption`` (its lines, the first bold)
    above it and its ``key`` (``View.key``) beside it, or under a wide world, as the page
    shows them."""
    unit = 1 / world.scale
    top = (MARGIN + CAPTION_LINE * len(caption)) * unit
    below = world.width / world.height > WIDE
    x0 = MARGIN * unit if below else world.width + 2 * MARGIN * unit
    y = (top + world.height + MARGIN * unit) if below else top
    shapes = [Text(MARGIN * unit, (MARGIN + CAPTION_LINE * (i + 0.5)) * unit, line, 14,
                   anchor="start", bold=i == 0) for i, line in enumerate(caption)]
    shapes += [moved(shape, 0, top) for shape in world.shapes]
    for entry in key:
        lines = textwrap.wrap(entry.label, KEY_CHARACTERS) or [""]
        if isinstance(entry, ColourBar):
            for line in lines:
                shapes.append(Text(x0, y + KEY_LINE / 2 * unit, line, 12, anchor="start"))
                y += KEY_LINE * unit
            cell = max(text_width(label, 9) + 4 for label in entry.labels) * unit
            for i, (colour, label) in enumerate(zip(entry.colours, entry.labels)):
                shapes += [Rect(x0 + i * cell, y, cell, KEY_LINE * unit, colour),
                           Text(x0 + (i + 0.5) * cell, y + KEY_LINE / 2 * unit, label, 9,
                                ink_on(colour), bold=True)]
            y += (KEY_LINE + 4) * unit
            continue
        shapes += swatch(entry, x0, y, unit)
        for line in lines:
            shapes.append(Text(x0 + 22 * unit, y + KEY_LINE / 2 * unit, line, 12,
                               anchor="start"))
            y += KEY_LINE * unit
        y += 2 * unit
    widest = max([text_width(line, 14) * unit for line in caption] + [0])
    width = max(widest + 2 * MARGIN * unit,
                world.width if below else x0 + KEY_WIDTH * unit)
    height = max(y, top + world.height) + MARGIN * unit
    return Scene(max(width, world.width), height, world.scale, shapes)


def world_picture(game, model, caption: str) -> Scene:
    """``framed``: the world of ``model`` under ``caption`` and its status line, its key
    beside it."""
    view = game.view
    return framed(view.scene(model), [line for line in (caption, view.status(model)) if line],
                  view.key(model))


@dataclass(frozen=True)
class Shown:
    """What an export takes, each part read when a file is asked for: ``rows()`` and
    ``agents()`` (DataFrames; ``agents`` None if none are collected), ``model()`` (the model
    drawn; None if there is no world), ``data()`` (column -> values by round, for the
    plots); the round drawn, the round the plots mark (``current``), the names' start,
    a lock held while they are read (a live model's) and the caption the page shows above
    the world (the exported world's too)."""

    game: object
    stem: str
    round: int
    rows: Callable
    agents: Callable | None
    model: Callable | None
    data: Callable
    current: int | None = None
    lock: object = None
    caption: str = ""


def files(shown: Shown) -> list[tuple[str, str, Callable]]:
    """``(label, file name, bytes or text when asked)`` for every file of ``shown``."""
    game = shown.game
    picture = f"{shown.stem}_{game.round}{shown.round}"
    rounds = f"{game.round} (rounds played)"
    out = [("model data CSV", f"{shown.stem}_model.csv", lambda: csv_bytes(shown.rows())),
           ("model data Parquet", f"{shown.stem}_model.parquet",
            lambda: parquet_bytes(shown.rows()))]
    if shown.agents is not None:
        out += [("agent data CSV", f"{shown.stem}_agents.csv",
                 lambda: csv_bytes(shown.agents())),
                ("agent data Parquet", f"{shown.stem}_agents.parquet",
                 lambda: parquet_bytes(shown.agents()))]
    if shown.model is not None:
        label = f"{game.title}: the world"
        caption = shown.caption or f"{game.title}: {game.round} {shown.round}"

        def picture_of():
            return world_picture(game, shown.model(), caption)

        out += [("world PNG", f"{picture}_world.png",
                 lambda: png_bytes(world_figure(picture_of()))),
                ("world SVG", f"{picture}_world.svg",
                 lambda: XML + to_svg(picture_of(), label=label))]
    for index, plot in enumerate(game.view.plots):
        name = f"{picture}_plot{index + 1}-{re.sub(r'[^a-z0-9]+', '-', plot.title.lower()).strip('-')}"

        def high(plot=plot):
            model = shown.model() if shown.model is not None else None
            return plot.high(model) if callable(plot.high) and model is not None else None

        out += [(f"{plot.title} PNG", f"{name}.png",
                 lambda plot=plot, high=high: png_bytes(charts.figure(
                     plot, shown.data(), rounds, high=high(), current=shown.current))),
                (f"{plot.title} SVG", f"{name}.svg",
                 lambda plot=plot, high=high: XML + charts.chart(
                     plot, shown.data(), rounds, high=high(), current=shown.current))]
    return [(label, name, held(shown, make)) for label, name, make in out]


def held(shown: Shown, make: Callable) -> Callable:
    """``make`` called with ``shown``'s lock held (if it has one)."""
    def made():
        if shown.lock is None:
            return make()
        with shown.lock:
            return make()
    return made


@solara.component
def Exports(shown: Shown, disabled: str | None = None):
    """A download button per file of ``shown`` (``files``); ``disabled``: why none can be
    taken now (one line), or None."""
    try:
        offered = files(shown)
    except Exception as error:  # what cannot be exported is said, never raised
        solara.Text(f"nothing to export: {one_line(error)}", classes=["inline-message"])
        return
    with solara.Column(gap="4px", classes=["exports"]):
        if disabled:
            solara.Text(disabled, classes=["control-help"])
        with solara.Row(gap="6px", style={"flex-wrap": "wrap"}):
            for label, name, content in offered:
                if disabled:
                    solara.Button(label, disabled=True, outlined=True, small=True)
                else:
                    solara.FileDownload(content, filename=name, label=label,
                                        mime_type=MIME[name.rsplit(".", 1)[1]])


MIME = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet",
        "png": "image/png", "svg": "image/svg+xml"}
