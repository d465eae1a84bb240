"""State Punishment in the dashboard: world 0's grid, its resources and its agents."""

import numpy as np
from matplotlib.patches import Circle

from analysis.colours import STATE_PUNISHMENT_GRID, STATE_PUNISHMENT_RESOURCES
from dashboard import SEAT_COLOURS, View, draw_grid
from models.state_punishment import KINDS

#: Empty cell, wall, then resources A..E (``analysis.colours``).
RESOURCE_COLOURS = [STATE_PUNISHMENT_GRID["empty"], STATE_PUNISHMENT_GRID["wall"],
                    *(STATE_PUNISHMENT_RESOURCES[kind] for kind in KINDS)]


def draw(ax, model) -> str:
    """World 0: walls grey, resources A..E by colour, each agent a numbered disc."""
    grid = model.grids[0]
    codes = np.where(grid.wall.data, 1, np.where(grid.resource.data > 0,
                                                   grid.resource.data + 1, 0))
    legend = ", ".join(f"{k} {c}" for k, c in zip(KINDS, ("green", "orange", "purple",
                                                          "pink", "lime")))
    draw_grid(ax, codes, RESOURCE_COLOURS,
              f"turn {model.turn}: p = {model.punishment_level:.2f}; {legend}")
    for agent in model.seats:
        if agent.world == 0:
            row, col = agent.cell.coordinate
            ax.add_patch(Circle((col, row), 0.38, color=SEAT_COLOURS[agent.seat % 10]))
            ax.text(col, row, str(agent.seat), color="white", ha="center", va="center",
                    fontsize=8)
    return "agents by seat"


VIEW = View(draw=draw,
            plots=[["punishment_level"], ["votes_up", "votes_down"], ["social_harm_generated"]])
