"""Stag Hunt in the dashboard: the map, its stags and hares, the hunters and this turn's
beams (docs/rules/stag_hunt.md)."""

import numpy as np

from dilemmas.analysis.figures.colours import (BEAM_OPACITY, INK, STAG_HUNT_BEAMS,
                                               STAG_HUNT_GRID, STAG_HUNT_RESOURCES)
from dilemmas.dashboard import Swatch, View, agent_colour, behaviour_swatches
from dilemmas.dashboard.charts import Plot, Series
from dilemmas.dashboard.scene import Cells, Polygon, Rect, Scene, agent_radius, disc, fit_scale
from dilemmas.models.stag_hunt.maps import HARE, STAG
from dilemmas.models.stag_hunt.rules import DIRECTIONS

WALL = STAG_HUNT_GRID["wall"]
#: Empty, wall, stag, hare (``dilemmas.analysis.figures.colours``).
CELL_COLOURS = (STAG_HUNT_GRID["empty"], WALL, STAG_HUNT_RESOURCES["stag"],
                STAG_HUNT_RESOURCES["hare"])
#: Beams: fire's vermillion and the wine, neither near a Stag Hunt behaviour's colour.
BEAMS = STAG_HUNT_BEAMS
RADIUS = 0.34  # a hunter's disc, in cells, when that is MIN_AGENT_RADIUS pixels or more


def facing_wedge(row, col, orientation, radius: float = RADIUS) -> Polygon:
    """A black wedge on the rim of the hunter's disc of ``radius`` on cell (row, col), its
    tip pointing the way the hunter faces (for the disc of 0.34 cells: tip 0.5 from the
    centre, base 0.28)."""
    dr, dc = DIRECTIONS[orientation]
    cx, cy = col + 0.5, row + 0.5
    side_x, side_y = -dr, dc  # perpendicular to the facing, in (x, y)
    tip, base, half = (radius * k / RADIUS for k in (0.5, 0.28, 0.16))
    points = ((cx + tip * dc, cy + tip * dr),
              (cx + base * dc + half * side_x, cy + base * dr + half * side_y),
              (cx + base * dc - half * side_x, cy + base * dr - half * side_y))
    return Polygon(points, INK)


def scene(model) -> Scene:
    """Walls grey, stags brown, hares tan; this turn's attack beam vermillion and punish beam
    wine, translucent; each hunter a disc in its behaviour's colour with its seat
    number and kind, and a black wedge pointing the way it faces; the disc is 0.34 cells in
    radius but never under ``dilemmas.dashboard.scene.MIN_AGENT_RADIUS`` pixels (on a large
    map it covers its neighbours' cells)."""
    codes = np.where(model.walls, 1, np.where(model.resource_kinds == STAG, 2,
                                              np.where(model.resource_kinds == HARE, 3, 0)))
    rows, cols = codes.shape
    out = Scene(cols, rows, scale=fit_scale(cols, rows))
    out.add(Cells(codes, CELL_COLOURS, tips=("empty", "wall", "stag", "hare")))
    for layer, beam in ((model.attack_beam, "attack"), (model.punish_beam, "punish")):
        out.add(*(Rect(col, row, 1, 1, BEAMS[beam], opacity=BEAM_OPACITY, tip=f"{beam} beam")
                  for row, col in np.argwhere(layer)))
    radius = agent_radius(RADIUS, out.scale)
    for agent in model.agents:
        if agent.cell is None:
            continue
        row, col = agent.cell.coordinate
        hunter = disc(col + 0.5, row + 0.5, radius, agent_colour(model, agent.behaviour),
                      f"{agent.seat}{agent.kind[:1]}", out.scale,
                      tip=f"agent {agent.seat} ({agent.behaviour}, kind {agent.kind}), "
                          f"health {agent.health}")
        out.add(hunter[0], facing_wedge(row, col, agent.orientation, radius), hunter[1])
    return out


def key(model) -> list:
    return [Swatch("wall", WALL), Swatch("stag", CELL_COLOURS[2]),
            Swatch("hare", CELL_COLOURS[3]),
            Swatch("attack beam (this turn)", BEAMS["attack"], opacity=BEAM_OPACITY),
            Swatch("punish beam (this turn)", BEAMS["punish"], opacity=BEAM_OPACITY),
            *behaviour_swatches(model),
            Swatch("black wedge on a hunter: the way it faces; inside: its seat and kind "
                   f"({kinds_text(model)})", INK, "triangle")]


def kinds_text(model) -> str:
    """Each kind seated and what its hunters can do (their configuration,
    docs/rules/stag_hunt.md): "A: hunts stags and hares; B: harms hares only"."""
    said = []
    for kind in model.kinds:
        hunters = [agent for agent in model.seats if agent.kind == kind]
        able = {agent.can_hunt for agent in hunters}
        does = ("hunts stags and hares" if able == {True} else "harms hares only"
                if able == {False} else "some hunt stags, some harm hares only")
        said.append(f"{kind}: {does}")
    return "; ".join(said)


def status(model) -> str:
    return (f"turn {model.turn}: {model.stags_on_map} stags and {model.hares_on_map} hares "
            f"on the map; defeated {model.stags_defeated} stags, {model.hares_defeated} hares")


VIEW = View(
    scene=scene, key=key, status=status,
    plots=(
        Plot("Prey defeated", "prey (count, cumulative)",
             (Series("stags_defeated", "stags", STAG_HUNT_RESOURCES["stag"]),
              Series("hares_defeated", "hares", STAG_HUNT_RESOURCES["hare"]),
              Series("coordinated_stag_kills", "stags killed together", INK, dashed=True)),
             counts=True),
        Plot("Prey on the map", "prey (count)",
             (Series("stags_on_map", "stags", STAG_HUNT_RESOURCES["stag"]),
              Series("hares_on_map", "hares", STAG_HUNT_RESOURCES["hare"])),
             counts=True),
        Plot("Beams", "beams fired this turn (count)",
             (Series("attacks", "attacks", BEAMS["attack"]),
              Series("punishments", "punishments", BEAMS["punish"])),
             counts=True),
    ),
    description=(
        "Hunters move on a grid and attack prey with a beam. A hare is weak and worth "
        "little; a stag is worth much more but has more health, so felling it pays best "
        "when hunters attack it together, and the reward is shared with hunters nearby. "
        "Hunters can also punish one another with a second beam, at a cost."),
)
