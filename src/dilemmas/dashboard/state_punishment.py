"""State Punishment in the dashboard: each world's grid, its resources and its foragers
(docs/rules/state_punishment.md)."""

import numpy as np

from dilemmas.analysis.figures.colours import (GREY, INK, STATE_PUNISHMENT_GRID,
                                               STATE_PUNISHMENT_RESOURCES, ink_on)
from dilemmas.dashboard import Swatch, View, agent_colour, behaviour_swatches
from dilemmas.dashboard.charts import Plot, Series
from dilemmas.dashboard.scene import Cells, Scene, Text, agent_radius, disc, fit_scale
from dilemmas.models.state_punishment.rules import HARM, KINDS, VALUE

#: Empty cell, wall, then resources A..E (``dilemmas.analysis.figures.colours``).
CELL_COLOURS = (STATE_PUNISHMENT_GRID["empty"], STATE_PUNISHMENT_GRID["wall"],
                *(STATE_PUNISHMENT_RESOURCES[kind] for kind in KINDS))
GAP = 1.0  # units between worlds


def scene(model) -> Scene:
    """The worlds side by side: walls grey, each resource in its kind's colour with its
    letter when cells are 16 pixels or more (so colour is never the only cue), each forager
    a disc in its behaviour's colour with its seat number, 0.42 cells in radius but never
    under ``dilemmas.dashboard.scene.MIN_AGENT_RADIUS`` pixels (on a large map it covers
    its neighbours' cells)."""
    rows, cols = model.grids[0].resource.data.shape
    worlds = len(model.grids)
    width = worlds * cols + (worlds - 1) * GAP
    out = Scene(width, rows, scale=fit_scale(width, rows, box=620.0))
    letter = min(13, out.scale * 0.5)
    for world, grid in enumerate(model.grids):
        x0 = world * (cols + GAP)
        resource = grid.resource.data
        codes = np.where(grid.wall.data, 1, np.where(resource > 0, resource + 1, 0))
        out.add(Cells(codes, CELL_COLOURS, x=x0,
                      tips=("empty", "wall", *(f"resource {kind}" for kind in KINDS))))
        if out.scale >= 16:
            for row, col in np.argwhere(resource > 0):
                kind = KINDS[resource[row, col] - 1]
                out.add(Text(x0 + col + 0.5, row + 0.5, kind, size=letter,
                             fill=ink_on(STATE_PUNISHMENT_RESOURCES[kind]), bold=True))
    radius = agent_radius(0.42, out.scale)
    for agent in model.seats:
        row, col = agent.cell.coordinate
        x = agent.world * (cols + GAP) + col + 0.5
        out.add(*disc(x, row + 0.5, radius, agent_colour(model, agent.behaviour),
                      str(agent.seat), out.scale, stroke=INK,
                      tip=f"agent {agent.seat} ({agent.behaviour}), world {agent.world}"))
    return out


def key(model) -> list:
    resources = [Swatch(f"{kind}: worth {VALUE[kind]:+g} to its collector, harms each other "
                        f"agent by {HARM[kind]:g}"
                        + ("; taboo (collecting it risks punishment)"
                           if kind in model.taboo else ""),
                        STATE_PUNISHMENT_RESOURCES[kind]) for kind in KINDS]
    worlds = len(model.grids)
    return [Swatch("wall", STATE_PUNISHMENT_GRID["wall"]), *resources,
            *behaviour_swatches(model),
            Swatch("number in a disc: seat"
                   + (f"; {worlds} worlds, left to right from world 0" if worlds > 1 else ""),
                   INK, "text")]


def status(model) -> str:
    return (f"turn {model.turn}: punishment level p = {model.punishment_level:.2f}; "
            f"{model.resources_on_grid} resources on the grid")


VIEW = View(
    scene=scene, key=key, status=status,
    plots=(
        Plot("Punishment level", "p (probability)",
             (Series("punishment_level", "punishment level", INK),), high=1.0),
        Plot("Votes", "votes this turn (count)",
             (Series("votes_up", "to raise p", INK),
              Series("votes_down", "to lower p", GREY, dashed=True)),
             high=lambda model: model.num_agents, counts=True),
        Plot("Harm", "harm dealt so far (reward units)",
             (Series("social_harm_generated", "social harm", INK),)),
        Plot("Resources collected", "resources (count, cumulative)",
             tuple(Series(f"collected_{kind}", kind, STATE_PUNISHMENT_RESOURCES[kind])
                   for kind in KINDS),
             counts=True),
    ),
    description=(
        "Foragers collect resources on a walled grid. Each kind pays its collector and "
        "harms every other agent; the taboo kinds are punished with a probability that the "
        "agents set together, by voting it up or down at a small cost. The dilemma: "
        "punishment protects everyone from harm, but each forager gains by collecting "
        "harmful resources and by leaving the costly voting to others."),
)
