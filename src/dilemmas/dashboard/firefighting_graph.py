"""The Firefighting Graph in the dashboard: the fire level of each house, and each
firefighter in the house it visits (docs/rules/firefighting_graph.md).

A firefighter stands inside the house it visits, in the quarter of the house towards the
houses it guards (its home: the corner they share on the grid; under the row, between its
two houses). A house's quarter holds at most one firefighter, so none overlap and each is
seen in its house. Before its first visit a firefighter stands at its home. Houses of
``BIG`` pixels or more show each firefighter as a disc with its seat number and the
house's fire level; smaller houses show each visit as a small square in the visitor's
behaviour's colour, and the key names only what is drawn."""

import math

import numpy as np

from dilemmas.analysis.figures.colours import FIRE, INK, fire_shades, ink_on
from dilemmas.dashboard import ColourBar, Swatch, View, agent_colour, behaviour_swatches
from dilemmas.dashboard.charts import Plot, Series
from dilemmas.dashboard.scene import Cells, Marks, Scene, Text, disc, fit_scale

#: Fire levels are shown in at most this many shades (a shade per level when fewer).
SHADES = 10
BIG = 40  # pixels per house from which firefighters are discs with their seat numbers
QUARTER = 0.27  # a firefighter's offset from its house's centre, along x and along y
RADIUS = 0.2  # a firefighter's disc, in houses: it stays within its quarter
MARK = 0.3  # the side of a visit's square on small houses
BELOW = 0.5  # units under the row, where its firefighters stand before their first visit


def shades(model) -> tuple[list[str], list[str], list[str]]:
    """The colours of the fire shades from no fire up, each one's short label (the highest
    level it covers, ``short``) and the levels it covers in full."""
    top = model.max_fire_level
    count = min(top + 1, SHADES)
    ranges = ["0"]
    labels = ["0"]
    for i in range(1, count):
        low, high = math.floor((i - 1) * top / (count - 1)) + 1, math.floor(i * top / (count - 1))
        ranges.append(str(high) if low == high else f"{low}-{high}")
        labels.append(short(high))
    return fire_shades(count), labels, ranges


def short(level: int) -> str:
    """``level`` in at most four characters: as it is below 10,000, else rounded in the
    first of k, M, G, T that fits."""
    if level < 10_000:
        return str(level)
    for size, suffix in ((10**3, "k"), (10**6, "M"), (10**9, "G"), (10**12, "T")):
        value = level / size
        text = f"{value:.0f}{suffix}" if value >= 9.95 else f"{value:.1f}{suffix}"
        if len(text) <= 4:
            return text
    return f"{level:.0e}"


def shade_of(levels: np.ndarray, top: int, count: int) -> np.ndarray:
    """Each level's shade: 0 for no fire, else 1 + its part of (0, top] in count - 1 parts."""
    return np.ceil(levels * (count - 1) / top).astype(int)


def homes(model) -> np.ndarray:
    """Each firefighter's home (x, y in units): the corner its four houses share on the
    grid; under the row, between its two houses."""
    width = model.levels.shape[1]
    rows, cols = np.divmod(model.guarded, width)
    places = np.stack([cols.mean(axis=1) + 0.5, rows.mean(axis=1) + 0.5], axis=1)
    if model.layout == "row":
        places[:, 1] = 1 + BELOW / 2
    return places


def spots(model) -> tuple[np.ndarray, np.ndarray]:
    """Where each firefighter (by seat) stands, (x, y) in units, and whether it is visiting:
    in the quarter of its house towards its home, else at its home."""
    cols = model.levels.shape[1]
    home = homes(model)
    visited = np.asarray(model.visited)
    visiting = visited >= 0
    rows, columns = np.divmod(np.where(visiting, visited, 0), cols)
    centre = np.stack([columns + 0.5, rows + 0.5], axis=1)
    place = centre + QUARTER * np.sign(home - centre)
    return np.where(visiting[:, None], place, home), visiting


def scene_height(model) -> float:
    """Units from top to bottom: the houses, and under a row its firefighters' homes."""
    return model.levels.shape[0] + (BELOW if model.layout == "row" else 0)


def house_scale(model) -> float:
    """Pixels per house."""
    return fit_scale(model.levels.shape[1], scene_height(model), most=52.0)


def scene(model) -> Scene:
    """Houses shaded by fire level (darker: hotter), each firefighter in the house it visits
    (module docstring): on houses of ``BIG`` pixels or more a disc in its behaviour's colour
    with its seat number, and each house's level written in black or white by contrast; on
    smaller houses a square of ``MARK`` in that colour per visiting firefighter."""
    levels = model.levels
    out = Scene(levels.shape[1], scene_height(model), scale=house_scale(model))
    colours, _, ranges = shades(model)
    codes = shade_of(levels, model.max_fire_level, len(colours))
    out.add(Cells(codes, tuple(colours), tips=tuple(f"house, fire level {r}" for r in ranges),
                  values=levels, exact="house {index}, fire level {value}"))
    places, visiting = spots(model)
    if out.scale < BIG:
        marks: dict[str, list] = {}
        for agent in model.seats:
            if visiting[agent.seat]:
                x, y = places[agent.seat]
                marks.setdefault(agent.behaviour, []).append((float(x), float(y)))
        return out.add(*(Marks(tuple(points), MARK, agent_colour(model, behaviour))
                         for behaviour, points in marks.items()))
    for (r, c), level in np.ndenumerate(levels):
        out.add(Text(c + 0.5, r + 0.5, str(level), size=min(12, out.scale * 0.22),
                     fill=ink_on(colours[codes[r, c]])))
    for agent in model.seats:
        x, y = places[agent.seat]
        out.add(*disc(float(x), float(y), RADIUS, agent_colour(model, agent.behaviour),
                      str(agent.seat), out.scale,
                      tip=f"firefighter {agent.seat} ({agent.behaviour})"
                          + (f", visits house {agent.house}" if visiting[agent.seat] else "")))
    return out


def key(model) -> list:
    """The fire shades, the behaviours seated, and what the drawing shows at this size: discs
    and numbers on houses of ``BIG`` pixels or more, visits' squares on smaller ones."""
    colours, labels, ranges = shades(model)
    bar = ColourBar("fire level (each cell: up to the level written)", tuple(colours),
                    tuple(labels), tuple(ranges))
    if house_scale(model) < BIG:
        return [bar, *behaviour_swatches(model, "square"),
                Swatch("small square in a house: a firefighter visiting it this step, in "
                       "the house's quarter towards the houses it guards", INK, "text")]
    return [bar, *behaviour_swatches(model),
            Swatch("a disc in a house: a firefighter visiting it this step, in the house's "
                   "quarter towards the houses it guards (before its first visit, between "
                   "them)", INK, "text"),
            Swatch("number in a disc: seat; in a house: its fire level", INK, "text")]


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
