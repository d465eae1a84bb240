"""The Firefighting Graph in the dashboard: fire level per house and who visits it."""

import numpy as np

from analysis.colours import FIRE_CMAP, FIREFIGHTER
from dashboard import View


def draw(ax, model) -> str:
    """Houses coloured by fire level (darker red hotter, level written); each firefighter's
    chosen house marked with its seat."""
    levels = model.levels
    ax.imshow(levels, cmap=FIRE_CMAP, vmin=0, vmax=model.max_fire_level,
              interpolation="nearest")
    for (row, col), level in np.ndenumerate(levels):
        ax.text(col, row - 0.25, str(level), ha="center", va="center", fontsize=8)
    width = levels.shape[1]
    visitors = {}
    for agent in model.seats:
        if agent.house is not None:
            visitors.setdefault(agent.house, []).append(agent.seat)
    for house, seats in visitors.items():
        row, col = divmod(house, width)
        ax.text(col, row + 0.25, ",".join(map(str, seats)), ha="center", va="center",
                fontsize=7, color=FIREFIGHTER, fontweight="bold")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(f"step {model.t}: fire level per house (top), firefighters there (blue)",
                 fontsize=10)
    return f"{model.layout} layout"


VIEW = View(draw=draw, plots=[["mean_fire"], ["burning_houses"]],
            size=lambda model: (6, 2.6 if model.layout == "row" else 5))
