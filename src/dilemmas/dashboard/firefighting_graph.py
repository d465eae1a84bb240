"""The Firefighting Graph in the dashboard: the fire level of each house, each firefighter
between the houses it guards and the house it visits (docs/rules/firefighting_graph.md)."""

import math

import matplotlib
import numpy as np

from dilemmas.analysis.figures.colours import FIRE, FIRE_CMAP, INK
from dilemmas.dashboard import ColourBar, Swatch, View, agent_colour, behaviour_swatches
from dilemmas.dashboard.charts import Plot, Series
from dilemmas.dashboard.scene import Cells, Circle, Marks, Rect, Scene, Text, fit_scale

#: Fire levels are shown in at most this many shades (a shade per level when fewer).
SHADES = 10
GAP = 0.6  # units between the houses of the row and the firefighters under it
BIG = 24  # pixels per house from which firefighters are discs with their seat numbers


def shades(model) -> tuple[list[str], list[str]]:
    """The colours of the fire shades, from no fire up, and the levels each covers."""
    top = model.max_fire_level
    count = min(top + 1, SHADES)
    cmap = matplotlib.colormaps[FIRE_CMAP]
    colours = [matplotlib.colors.to_hex(cmap(0.06 + 0.94 * i / (count - 1)))
               for i in range(count)]
    labels = ["0"]
    for i in range(1, count):
        low, high = math.floor((i - 1) * top / (count - 1)) + 1, math.floor(i * top / (count - 1))
        labels.append(str(high) if low == high else f"{low}-{high}")
    return colours, labels


def shade_of(levels: np.ndarray, top: int, count: int) -> np.ndarray:
    """Each level's shade: 0 for no fire, else 1 + its part of (0, top] in count - 1 parts."""
    return np.ceil(levels * (count - 1) / top).astype(int)


def firefighter_places(model) -> np.ndarray:
    """Each firefighter's place: the centre of the houses it guards (x, y in units)."""
    width = model.levels.shape[1]
    rows, cols = np.divmod(model.guarded, width)
    return np.stack([cols.mean(axis=1) + 0.5, rows.mean(axis=1) + 0.5], axis=1)


def scene_height(model) -> float:
    """Units from top to bottom: the houses, and under a row its firefighters."""
    return model.levels.shape[0] + (1 + GAP if model.layout == "row" else 0)


def house_scale(model) -> float:
    """Pixels per house."""
    return fit_scale(model.levels.shape[1], scene_height(model), most=52.0)


def scene(model) -> Scene:
    """Houses coloured by fire level (darker: hotter; the level written when cells are large
    enough); each firefighter a disc in its behaviour's colour with its seat number, at the
    middle of the houses it guards (under the row, or on the corners between four houses of
    the grid), joined by a line to the house it visits this step."""
    levels = model.levels
    rows, cols = levels.shape
    row = model.layout == "row"
    out = Scene(cols, scene_height(model), scale=house_scale(model))
    colours, labels = shades(model)
    codes = shade_of(levels, model.max_fire_level, len(colours))
    out.add(Cells(codes, tuple(colours)))
    big = out.scale >= BIG
    if big:
        for (r, c), level in np.ndenumerate(levels):
            out.add(Text(c + 0.5, r + 0.5, str(level), size=min(14, out.scale * 0.4),
                         fill="white" if codes[r, c] > len(colours) / 2 else INK))
    places = firefighter_places(model)
    if row:
        places[:, 1] = rows + GAP + 0.5
    if not big:
        return out.add(*visits(model))
    for agent, (x, y) in zip(model.seats, places):
        colour = agent_colour(model, agent.behaviour)
        if agent.house is not None:
            r, c = divmod(int(agent.house), cols)
            tx, ty = c + 0.5, r + 0.5
            out.add(Rect(tx - 0.48, ty - 0.48, 0.96, 0.96, "none", stroke=colour))
            dx, dy = tx - x, ty - y
            steps = max(1, int(math.hypot(dx, dy) / 0.2))
            for i in range(1, steps):
                out.add(Circle(x + dx * i / steps, y + dy * i / steps, 0.04, colour,
                               stroke=colour, stroke_width=0))
        out.add(Circle(x, y, 0.3, colour,
                       tip=f"firefighter {agent.seat} ({agent.behaviour})"
                           + (f", visits house {agent.house}" if agent.house is not None
                              else "")))
        out.add(Text(x, y, str(agent.seat), size=min(12, out.scale * 0.34), fill="white",
                     bold=True))
    return out


def visits(model) -> list[Marks]:
    """On a grid too large for discs: a small square in the middle of each visited house, in
    the colour of the behaviour of (one of) its visitors."""
    cols = model.levels.shape[1]
    marks = {}
    for agent in model.seats:
        if agent.house is not None:
            r, c = divmod(int(agent.house), cols)
            marks.setdefault(agent.behaviour, {})[(c + 0.5, r + 0.5)] = True
    return [Marks(tuple(points), 0.4, agent_colour(model, behaviour))
            for behaviour, points in marks.items()]


def key(model) -> list:
    colours, labels = shades(model)
    large = house_scale(model) < BIG
    return [ColourBar("fire level", tuple(colours), tuple(labels)),
            *behaviour_swatches(model, "square" if large else "disc"),
            Swatch("dotted line and outline in a firefighter's colour (on large grids, a "
                   "small square in it): the house it visits this step", INK, "dotted"),
            Swatch("number in a disc: seat; in a house: its fire level", INK, "line")]


def status(model) -> str:
    return (f"step {model.t}: {model.burning_houses} of {model.num_houses} houses burning, "
            f"mean fire level {model.mean_fire:.2f} (max {model.max_fire_level})")


VIEW = View(
    scene=scene, key=key, status=status,
    plots=(
        Plot("Fire", "fire level (mean over houses)",
             (Series("mean_fire", "mean fire level", FIRE),),
             high=lambda model: model.max_fire_level),
        Plot("Houses burning, and visited twice", "houses (count)",
             (Series("burning_houses", "burning", FIRE),
              Series("doubled_houses", "visited by two or more", INK, dashed=True)),
             high=lambda model: model.num_houses, counts=True),
    ),
    description=(
        "Firefighters each guard a few neighbouring houses (two on a row, four on a grid) "
        "and visit one of them per step; a house's fire grows when unattended and next to "
        "fire, and shrinks when visited, faster by two firefighters together. Each "
        "firefighter sees only whether its house is in flames. It is a decentralised "
        "partially observable problem: the best team spreads out without talking."),
)
