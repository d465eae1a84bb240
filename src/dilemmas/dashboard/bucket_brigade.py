"""Bucket Brigade in the dashboard: the ring of houses, and the agents at each house drawn
together in front of it, with tonight's signal and mode (docs/rules/bucket_brigade.md).

The agents standing at one house form a block of cells (``block``) on the house's spoke,
inside the ring and joined to the house by thin lines; blocks of different houses keep
apart (``spread``), each as close to its house's angle as that allows. Where the blocks
cannot all fit round the ring, every agent takes its own place on an inner ring instead
(``ring_places``). No two agents, and no two labels, overlap."""

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
HOUSES, AGENTS, NUMBERS = 4.0, 2.75, 5.1  # radii of the houses, the agents' ring, numbers
INSIDE = 3.35  # blocks of agents lie within this radius, inside the houses
RADIUS = 0.34  # an agent's disc
CELL_W, CELL_H = 0.82, 1.14  # an agent's cell in a block: its disc, its label below it
GAP = 2 * math.pi / 10  # radians between neighbours on the inner ring: ten fit, the most
LABEL = 12.0  # pixels


def scene(model) -> Scene:
    """Houses on a ring, coloured by state, numbered (every k-th when too many to number
    each); the agents at each house a block in front of it (each agent a disc in its
    behaviour's colour with its seat number, joined to the house by a line), tonight's
    signal/mode beside each disc on the side away from its house (below it, or above it
    where the house is in the lower half), W work or R rest, bold with a thick black ring if the
    signal was a lie."""
    n = model.num_houses
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
    places = block_places([turns[a.house] for a in agents]) or ring_places(
        [turns[a.house] for a in agents])
    for agent, (x, y) in zip(agents, places):
        hx, hy = point(turns[agent.house], HOUSES - side / 2)
        out.shapes.insert(0, Line(x, y, hx, hy, INK, width=1))
        place_agent(out, model, agent, x, y, above=math.cos(turns[agent.house]) < 0)
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


def block(count: int) -> tuple[int, int]:
    """The columns and rows of the block of ``count`` agents at one house: as square as
    the cells allow."""
    columns = math.ceil(math.sqrt(count))
    return columns, math.ceil(count / columns)


def block_places(wanted: list[float]) -> list[tuple[float, float]] | None:
    """Disc centres for agents at the houses at angles ``wanted`` (ascending), the agents
    of one house in one block, or None where the blocks do not fit round the ring.

    Each block lies on its spoke as far out as ``INSIDE`` allows (``outermost``) and covers
    a wedge seen from the ring's centre (``wedge``); blocks whose wedges do not meet never
    meet. The spokes are spread (``spread``) until every two neighbouring wedges keep
    apart, a few times over since a block's wedge changes with its angle."""
    groups: list[list[int]] = []
    for i, turn in enumerate(wanted):
        if groups and wanted[groups[-1][0]] == turn:
            groups[-1].append(i)
        else:
            groups.append([i])
    halfs = [(c * CELL_W / 2, r * CELL_H / 2) for c, r in map(block, map(len, groups))]
    turns = [wanted[g[0]] for g in groups]
    if len(groups) > 1:
        for _ in range(6):
            halves = [wedge(turn, *half) for turn, half in zip(turns, halfs)]
            if None in halves:
                return None
            if fits(turns, halves):
                break
            turns = spread([wanted[g[0]] for g in groups], halves)
            if turns is None:
                return None
        else:
            return None
    places: list[tuple[float, float]] = [(0.0, 0.0)] * len(wanted)
    for members, turn, (half_w, half_h) in zip(groups, turns, halfs):
        cx, cy = outermost(turn, half_w, half_h)
        columns, rows = block(len(members))
        # the disc at the top of its cell, the label under it; the other way up where the
        # house is lower than the block, so that no line crosses its own label
        lift = (CELL_H / 2 - RADIUS - 0.05) * (1 if math.cos(turn) >= 0 else -1)
        for k, i in enumerate(members):
            column, row = k % columns, k // columns
            in_row = min(columns, len(members) - row * columns)  # the last row centred
            places[i] = (cx + (column - (in_row - 1) / 2) * CELL_W,
                         cy + (row - (rows - 1) / 2) * CELL_H - lift)
    return places


def outermost(turn: float, half_w: float, half_h: float) -> tuple[float, float]:
    """The centre of a ``2 half_w`` x ``2 half_h`` block on the spoke at ``turn``, as far
    out as keeps its corners within ``INSIDE`` of the ring's centre."""
    ux, uy = abs(math.sin(turn)), abs(math.cos(turn))
    # the far corner at distance INSIDE: (d ux + half_w)^2 + (d uy + half_h)^2 = INSIDE^2
    b = ux * half_w + uy * half_h
    distance = max(0.0, -b + math.sqrt(b * b - (half_w ** 2 + half_h ** 2 - INSIDE ** 2)))
    return point(turn, distance)


def wedge(turn: float, half_w: float, half_h: float) -> float | None:
    """The most a corner of the block on the spoke at ``turn`` lies off the spoke, in
    radians seen from the ring's centre; None where the block holds the centre."""
    cx, cy = outermost(turn, half_w, half_h)
    x, y = cx - SIZE / 2, cy - SIZE / 2
    if abs(x) <= half_w and abs(y) <= half_h:
        return None
    if x - half_w < 0 < x + half_w and y - half_h < 0 < y + half_h:
        return None
    corners = [(x + sx * half_w, y + sy * half_h) for sx in (-1, 1) for sy in (-1, 1)]
    off = [abs(math.remainder(math.atan2(px, -py) - turn, 2 * math.pi)) for px, py in corners]
    return max(off) if max(off) < math.pi / 2 else None


def fits(turns: list[float], halves: list[float]) -> bool:
    """Whether neighbouring angles (ascending, round the circle) keep their halves apart."""
    count = len(turns)
    return all((turns[(i + 1) % count] - turns[i]) % (2 * math.pi)
               >= halves[i] + halves[(i + 1) % count] - 1e-9 for i in range(count))


def spread(wanted: list[float], halves: list[float]) -> list[float] | None:
    """Angles (radians clockwise, ascending ``wanted``) with neighbours ``i`` and ``j`` at
    least ``halves[i] + halves[j]`` apart around the circle and as close to ``wanted`` as
    that allows, or None where they do not fit: with the circle cut before each angle in
    turn, the least-squares fit under the gaps (pool adjacent violators on ``wanted[j]``
    less the gaps before it), the best that closes the circle kept."""
    count = len(wanted)
    if count < 2:
        return list(wanted)
    if 2 * sum(halves) > 2 * math.pi + 1e-12:
        return None
    best, best_cost = None, math.inf
    for cut in range(count):
        order = [(cut + j) % count for j in range(count)]
        want = [wanted[i] + (2 * math.pi if i < cut else 0) for i in order]
        offsets = [0.0]
        for a, b in zip(order, order[1:]):
            offsets.append(offsets[-1] + halves[a] + halves[b])
        fit = [q + o for q, o in zip(increasing([w - o for w, o in zip(want, offsets)]),
                                     offsets)]
        cost = sum((f - w) ** 2 for f, w in zip(fit, want))
        closes = fit[-1] - fit[0] <= 2 * math.pi - halves[order[0]] - halves[order[-1]] + 1e-9
        if closes and cost < best_cost:
            best_cost, best = cost, dict(zip(order, fit))
    return None if best is None else [best[i] for i in range(count)]


def ring_places(wanted: list[float]) -> list[tuple[float, float]]:
    """Disc centres for agents at the houses at angles ``wanted`` (ascending) on one inner
    ring, neighbours at least ``GAP`` apart (or evenly, when more than fit)."""
    half = min(GAP, 2 * math.pi / len(wanted)) / 2
    return [point(turn, AGENTS) for turn in spread(wanted, [half] * len(wanted))]


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


def place_agent(out: Scene, model, agent, x: float, y: float, above: bool = False) -> None:
    """An agent's disc at (x, y) with its seat number; below it (``above``: above it)
    tonight's signal/mode and, after a lie, a bold label and a thick black ring."""
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
        off = RADIUS + 0.05 + 0.6 * LABEL / out.scale
        out.add(Text(x, y - off if above else y + off, doing, size=LABEL, bold=agent.lied))


def key(model) -> list:
    return [Swatch("safe house", HOUSE_COLOURS[SAFE]),
            Swatch("burning house", HOUSE_COLOURS[BURNING]),
            Swatch("ruined house", HOUSE_COLOURS[RUINED]),
            *behaviour_swatches(model),
            Swatch("lied tonight (signal differs from mode; its label bold)", INK, "ring"),
            Swatch("thin line: the house an agent stands at", INK, "line"),
            Swatch("number in a disc: seat; by it, away from its house, signal/mode: "
                   "W work, R rest", INK, "text")]


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
