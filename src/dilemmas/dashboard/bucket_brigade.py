"""Bucket Brigade in the dashboard: the ring of houses, and each agent at its house with
tonight's signal and mode (docs/rules/bucket_brigade.md)."""

import math

from dilemmas.analysis.figures.colours import GREY, HOUSE_STATES, INK
from dilemmas.dashboard import Swatch, View, agent_colour, behaviour_swatches
from dilemmas.dashboard.charts import Plot, Series
from dilemmas.dashboard.scene import Circle, Rect, Scene, Text
from dilemmas.models.bucket_brigade.rules import BURNING, RUINED, SAFE, WORK

#: A house's colour by state, as in the figures
#: (``dilemmas.analysis.figures.colours.HOUSE_STATES``).
HOUSE_COLOURS = {SAFE: HOUSE_STATES["safe"], BURNING: HOUSE_STATES["burning"],
                 RUINED: HOUSE_STATES["ruined"]}
STATE_NAMES = {SAFE: "safe", BURNING: "burning", RUINED: "ruined"}
SIZE = 12.0  # units across; the ring's radius is 4


def scene(model) -> Scene:
    """Houses on a ring, numbered, coloured by state; each agent a disc in its behaviour's
    colour with its seat number, standing at its house (those at one house one behind the
    other towards the centre); beside it tonight's signal/mode, W work or R rest, and "lie"
    with a thick black ring if the signal was a lie."""
    n, centre = model.num_houses, SIZE / 2
    out = Scene(SIZE, SIZE, scale=min(46.0, 560 / SIZE))
    angles = [math.pi / 2 - 2 * math.pi * h / n for h in range(n)]
    side = min(1.1, 2 * math.pi * 4 / n * 0.8)
    for house, angle in enumerate(angles):
        x, y = centre + 4 * math.cos(angle), centre - 4 * math.sin(angle)
        state = model.houses[house]
        out.add(Rect(x - side / 2, y - side / 2, side, side, HOUSE_COLOURS[state],
                     tip=f"house {house}: {STATE_NAMES[state]}"),
                Text(centre + 5.1 * math.cos(angle), centre - 5.1 * math.sin(angle),
                     str(house), size=13))
    at_house = {}
    for agent in model.seats:
        at_house.setdefault(agent.house, []).append(agent)
    for house, agents in at_house.items():
        angle = angles[house]
        for k, agent in enumerate(agents):  # from 3 units out towards 0.8, evenly
            r = 3.0 - 2.2 * k / max(1, len(agents) - 1) if len(agents) > 4 else 3.0 - 0.7 * k
            place_agent(out, model, agent, centre + r * math.cos(angle),
                        centre - r * math.sin(angle))
    return out


def place_agent(out: Scene, model, agent, x: float, y: float) -> None:
    """An agent's disc at (x, y) with its seat number; beside it tonight's signal/mode and,
    after a lie, "lie" and a thick black ring."""
    doing = ""
    if agent.signal is not None:
        doing = f"{'W' if agent.signal == WORK else 'R'}/{'W' if agent.mode == WORK else 'R'}"
    out.add(Circle(x, y, 0.34, agent_colour(model, agent.behaviour),
                   stroke=INK if agent.lied else "white", stroke_width=4 if agent.lied else 1,
                   tip=f"agent {agent.seat} ({agent.behaviour}) at house {agent.house}"
                       + (f", said/did {doing}" if doing else "")
                       + (", lied" if agent.lied else "")),
            Text(x, y, str(agent.seat), size=12, fill="white", bold=True))
    if doing:
        out.add(Text(x + 0.45, y, doing + (" lie" if agent.lied else ""), size=12,
                     anchor="start", bold=agent.lied))


def key(model) -> list:
    return [Swatch("safe house", HOUSE_COLOURS[SAFE]),
            Swatch("burning house", HOUSE_COLOURS[BURNING]),
            Swatch("ruined house", HOUSE_COLOURS[RUINED]),
            *behaviour_swatches(model),
            Swatch('lied tonight (signal differs from mode; "lie" beside it)', INK, "ring"),
            Swatch("number in a disc: seat; beside it signal/mode, W work, R rest", INK,
                   "line")]


def status(model) -> str:
    return (f"night {model.night}: {sum(model.houses == BURNING)} burning, "
            f"{sum(model.houses == SAFE)} safe, {sum(model.houses == RUINED)} ruined")


VIEW = View(
    scene=scene, key=key, status=status,
    plots=(
        Plot("Houses by state", "houses (count)",
             (Series("safe", "safe", HOUSE_COLOURS[SAFE]),
              Series("burning", "burning", HOUSE_COLOURS[BURNING]),
              Series("ruined", "ruined", HOUSE_COLOURS[RUINED])),
             high=lambda model: model.num_houses, counts=True),
        Plot("Lies", "lies (count, cumulative)",
             (Series("cumulative_lies", "lies so far", INK),), counts=True),
        Plot("Work and honesty", "rate (fraction of agents)",
             (Series("work_rate", "working", INK),
              Series("lie_rate", "lying", GREY, dashed=True)), high=1.0),
    ),
    description=(
        "Agents guard a ring of houses against fire. Each night every agent first signals "
        "whether it will work or rest, then chooses a house and works or rests there; "
        "fire spreads to neighbouring houses and burns out into ruins. A signal that "
        "differs from the agent's action is a lie. Working costs the agent and protects "
        "everyone, which makes resting on others' work tempting."),
)
