"""Bucket Brigade in the dashboard: the ring of houses, the agents' signals and modes.

Mesa's Reset hands a Mesa ``Scenario`` object to any model whose constructor takes a
``scenario`` parameter; Bucket Brigade's ``scenario`` is the name of one of its scenarios, so
the dashboard builds ``BucketBrigadeView``, which takes it as ``scenario_name``.
"""

import math

from matplotlib.patches import Circle, Rectangle

from analysis.colours import HOUSE_STATES
from dashboard import SEAT_COLOURS, View
from models.bucket_brigade import BURNING, RUINED, SAFE, WORK, BucketBrigadeModel


class BucketBrigadeView(BucketBrigadeModel):
    """Bucket Brigade with its scenario given as ``scenario_name`` (module docstring)."""

    def __init__(self, *, scenario_name="default", scenario=None, rng=None, **parameters):
        super().__init__(scenario=scenario_name, rng=rng, **parameters)


#: A house's colour by state, as in the figures (``analysis.colours.HOUSE_STATES``).
HOUSE_COLOURS = {SAFE: HOUSE_STATES["safe"], BURNING: HOUSE_STATES["burning"],
                 RUINED: HOUSE_STATES["ruined"]}


def draw(ax, model) -> str:
    """The ring of houses by state; each agent at its house with tonight's signal and mode
    (W work, R rest), a lie ringed in red."""
    n = model.num_houses
    angles = [math.pi / 2 - 2 * math.pi * h / n for h in range(n)]
    for house, angle in enumerate(angles):
        x, y = math.cos(angle), math.sin(angle)
        ax.add_patch(Rectangle((x - 0.12, y - 0.12), 0.24, 0.24,
                               color=HOUSE_COLOURS[model.houses[house]]))
        ax.text(1.28 * x, 1.28 * y, str(house), ha="center", va="center", fontsize=9)
    here = {}  # agents at the same house stand one behind the other, towards the centre
    for agent in model.seats:
        angle = angles[agent.house] if agent.house is not None else 0.0
        ahead = here.setdefault(agent.house, [])
        r = 0.72 * 0.7 ** len(ahead)
        ahead.append(agent)
        x, y = r * math.cos(angle), r * math.sin(angle)
        ax.add_patch(Circle((x, y), 0.07, color=SEAT_COLOURS[agent.seat % 10],
                            ec="red" if agent.lied else "white", lw=3 if agent.lied else 1))
        if agent.signal is not None:
            said = "W" if agent.signal == WORK else "R"
            did = "W" if agent.mode == WORK else "R"
            ax.text(x + 0.1, y, f"{said}/{did}" + (" lie" if agent.lied else ""),
                    ha="left", va="center", fontsize=8,
                    color="red" if agent.lied else "black")
    ax.set(xlim=(-1.5, 1.5), ylim=(-1.5, 1.5), aspect="equal",
           title=f"night {model.night}: green safe, red burning, black ruined")
    ax.axis("off")
    return "signal/mode per agent (W work, R rest)"


VIEW = View(draw=draw, plots=[["lies", "work_rate"], ["burning", "safe", "ruined"]],
            model=BucketBrigadeView, renamed={"scenario": "scenario_name"})
