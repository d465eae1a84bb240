"""Bucket Brigade in the dashboard: the ring of houses, and each agent on an inner ring
beside the house it stands at, with tonight's signal and mode (docs/rules/bucket_brigade.md).

No two agents, and no two labels, overlap: agents keep at least ``GAP`` radians apart on
their ring, each as close to its house's angle as that allows (least squares, in house
order), joined to its house by a thin line; its label lies towards the centre."""

import math

from dilemmas.analysis.figures.colours import GREY, HOUSE_STATES, INK
from dilemmas.dashboard import Swatch, View, agent_colour, behaviour_swatches
from dilemmas.dashboard.charts import Plot, Series
from dilemmas.dashboard.scene import Line, Rect, Scene, Text, disc, text_width
from dilemmas.models.bucket_brigade.rules import BURNING, RUINED, SAFE, WORK

#: A house's colour by state, as in the figures
#: (``dilemmas.analysis.figures.colours.HOUSE_STATES``).
HOUSE_COLOURS = {SAFE: HOUSE_STATES["safe"], BURNING: HOUSE_STATES["burning"],
                 RUINED: HOUSE_STATES["ruined"]}
STATE_NAMES = {SAFE: "safe", BURNING: "burning", RUINED: "ruined"}
SIZE = 12.0  # units across
HOUSES, AGENTS, NUMBERS = 4.0, 2.75, 5.1  # radii of the houses, the agents, house numbers
RADIUS = 0.34  # an agent's disc
GAP = 2 * math.pi / 10  # radians between neighbouring agents: ten fit, the most seated
LABEL = 12.0  # pixels


def scene(model) -> Scene:
    """Houses on a ring, coloured by state, numbered (every k-th when too many to number
    each); each agent a disc in its behaviour's colour with its seat number on an inner
    ring, beside its house and joined to it by a line (``agent_angles``); towards the centre
    tonight's signal/mode, W work or R rest, and "lie" with a thick black ring if the
    signal was a lie."""
    n, centre = model.num_houses, SIZE / 2
    out = Scene(SIZE, SIZE, scale=min(46.0, 560 / SIZE))
    turns = [2 * math.pi * h / n for h in range(n)]  # clockwise from the top
    side = min(1.1, 2 * math.pi * HOUSES / n * 0.8)
    every = house_number_step(n, out.scale)
    for house, turn in enumerate(turns):
        x, y = point(turn, HOUSES)
        state = model.houses[house]
        out.add(Rect(x - side / 2, y - side / 2, side, side, HOUSE_COLOURS[state],
                     tip=f"house {house}: {STATE_NAMES[state]}"))
        if house % every == 0:
            out.add(Text(*point(turn, NUMBERS), str(house), size=13))
    agents = sorted(model.seats, key=lambda agent: (agent.house, agent.seat))
    for agent, turn in zip(agents, agent_angles([turns[a.house] for a in agents], GAP)):
        x, y = point(turn, AGENTS)
        hx, hy = point(turns[agent.house], HOUSES - side / 2)
        out.shapes.insert(0, Line(x, y, hx, hy, INK, width=1))
        place_agent(out, model, agent, x, y, (centre - x) / AGENTS, (centre - y) / AGENTS)
    return out


def point(turn: float, radius: float) -> tuple[float, float]:
    """The point ``radius`` from the centre, ``turn`` radians clockwise from the top."""
    return SIZE / 2 + radius * math.sin(turn), SIZE / 2 - radius * math.cos(turn)


def house_number_step(n: int, scale: float) -> int:
    """Number every house, or every 2nd, 5th, 10th, ... so that numbers keep apart."""
    wide = (text_width(str(n - 1), 13) + 6) / scale
    step = 1
    while 2 * math.pi * NUMBERS * step / n < wide:
        step = step * 5 // 2 if str(step).startswith("2") else step * 2
    return step


def agent_angles(wanted: list[float], gap: float) -> list[float]:
    """Angles (radians clockwise, ascending ``wanted``) at least ``gap`` apart around the
    circle and as close to ``wanted`` as that allows: with the circle cut before each angle
    in turn, the least-squares fit under the gaps (pool adjacent violators on
    ``wanted[j] - j * gap``), the best that closes the circle kept."""
    count = len(wanted)
    gap = min(gap, 2 * math.pi / max(count, 1))
    best, best_cost = None, math.inf
    for cut in range(count):
        order = [(cut + j) % count for j in range(count)]
        want = [wanted[i] + (2 * math.pi if i < cut else 0) for i in order]
        fit = [q + j * gap for j, q in enumerate(increasing([w - j * gap
                                                             for j, w in enumerate(want)]))]
        cost = sum((f - w) ** 2 for f, w in zip(fit, want))
        if fit[-1] - fit[0] <= 2 * math.pi - gap + 1e-9 and cost < best_cost:
            best_cost, best = cost, dict(zip(order, fit))
    return [best[i] for i in range(count)]


def increasing(values: list[float]) -> list[float]:
    """The non-decreasing sequence nearest ``values`` in least squares (pool adjacent
    violators)."""
    blocks: list[list[float]] = []  # [mean, size]
    for value in values:
        blocks.append([value, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean, size = blocks.pop()
            blocks[-1] = [(blocks[-1][0] * blocks[-1][1] + mean * size) / (blocks[-1][1] + size),
                          blocks[-1][1] + size]
    return [mean for mean, size in blocks for _ in range(int(size))]


def place_agent(out: Scene, model, agent, x: float, y: float, ux: float, uy: float) -> None:
    """An agent's disc at (x, y) with its seat number; on the side (ux, uy) (a unit vector)
    tonight's signal/mode and, after a lie, "lie" and a thick black ring."""
    doing = ""
    if agent.signal is not None:
        doing = f"{'W' if agent.signal == WORK else 'R'}/{'W' if agent.mode == WORK else 'R'}"
    out.add(*disc(x, y, RADIUS, agent_colour(model, agent.behaviour), str(agent.seat),
                  out.scale, stroke=INK if agent.lied else "#333333",
                  stroke_width=4 if agent.lied else 1,
                  tip=f"agent {agent.seat} ({agent.behaviour}) at house {agent.house}"
                      + (f", said/did {doing}" if doing else "")
                      + (", lied" if agent.lied else "")))
    if doing:
        label = doing + (" lie" if agent.lied else "")
        half_w, half_h = text_width(label, LABEL) / out.scale / 2, 0.6 * LABEL / out.scale
        reach = RADIUS + 0.08 + abs(ux) * half_w + abs(uy) * half_h
        out.add(Text(x + reach * ux, y + reach * uy, label, size=LABEL, bold=agent.lied))


def key(model) -> list:
    return [Swatch("safe house", HOUSE_COLOURS[SAFE]),
            Swatch("burning house", HOUSE_COLOURS[BURNING]),
            Swatch("ruined house", HOUSE_COLOURS[RUINED]),
            *behaviour_swatches(model),
            Swatch('lied tonight (signal differs from mode; "lie" beside it)', INK, "ring"),
            Swatch("thin line: the house an agent stands at", INK, "line"),
            Swatch("number in a disc: seat; beside it signal/mode, W work, R rest", INK,
                   "text")]


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
