"""The Firefighting Graph in the dashboard: fire level per house and who visits it."""

import numpy as np
import solara
from mesa.visualization.utils import update_counter

from dashboard import View, figure, world_panel


@solara.component
def FirefightingWorld(model):
    """Houses coloured by fire level (darker red hotter, level written); each firefighter's
    chosen house marked with its seat."""
    update_counter.get()
    levels = model.levels
    fig, ax = figure(6, 2.6 if model.layout == "row" else 5)
    ax.imshow(levels, cmap="Reds", vmin=0, vmax=model.max_fire_level,
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
                fontsize=7, color="#0072B2", fontweight="bold")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(f"step {model.t}: fire level per house (top), firefighters there (blue)",
                 fontsize=10)
    world_panel(fig, model, f"{model.layout} layout")


VIEW = View(world=FirefightingWorld, plots=[["mean_fire"], ["burning_houses"]])
