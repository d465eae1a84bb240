"""Stag Hunt in the dashboard: the map, its resources, the hunters' facings and the beams."""

import math

import numpy as np
from matplotlib.patches import Rectangle, RegularPolygon

from analysis.colours import BEHAVIOUR_COLOURS
from dashboard import View, draw_grid
from models.stag_hunt import DIRECTIONS, HARE, STAG

#: An agent's colour by its kind's place in ``model.kinds``: the figures' palette without
#: vermillion, fire's colour and close to the red attack beam (``analysis.colours``).
KIND_COLOURS = BEHAVIOUR_COLOURS[:4]


def facing_triangle(row, col, orientation, colour):
    """A triangle on cell (row, col) whose tip points the way the agent faces (in data
    coordinates x = col, y = row; the image's row axis points down)."""
    dr, dc = DIRECTIONS[orientation]
    return RegularPolygon((col, row), 3, radius=0.42,
                          orientation=math.atan2(dr, dc) - math.pi / 2, color=colour)


def draw(ax, model) -> str:
    """Walls grey, stags brown, hares tan; agents as triangles pointing where they face,
    coloured by kind and numbered by seat; this turn's attack beam red, punish beam purple."""
    codes = np.where(model.walls, 1, np.where(model.resource_kinds == STAG, 2,
                                              np.where(model.resource_kinds == HARE, 3, 0)))
    draw_grid(ax, codes, ["white", "#6b6b6b", "#8c510a", "#dfc27d"],
              f"turn {model.turn}: stags brown, hares tan; beams red (attack), "
              "purple (punish)")
    for layer, colour in ((model.attack_beam, "red"), (model.punish_beam, "purple")):
        for row, col in np.argwhere(layer):
            ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, color=colour, alpha=0.3))
    for agent in model.agents:
        if agent.cell is None:
            continue
        row, col = agent.cell.coordinate
        ax.add_patch(facing_triangle(row, col, agent.orientation,
                                     KIND_COLOURS[model.kinds.index(agent.kind) % 4]))
        ax.text(col, row, str(agent.seat), color="white", ha="center", va="center",
                fontsize=7)
    return f"kinds {', '.join(model.kinds)}"


VIEW = View(draw=draw,
            plots=[["stags_defeated", "hares_defeated"], ["coordinated_stag_kills"]])
