"""The world a researcher reads at a glance (issue 32): no behaviour wears a colour of its
game's world, behaviours of a game differ from each other, text on a colour is black or
white by contrast, agents never overlap in Bucket Brigade, each firefighter stands in the
house it visits, agents on large maps keep a readable size, the fire key stays one row of
readable cells, and a key names only marks the drawing makes. All read from the scenes'
shapes (``dilemmas.dashboard.scene``), not pixels.

Colour differences are CIE76 Delta E (``colours.delta_e``) of at least ``colours.DISTINCT``
(25); contrast is WCAG 2's ratio, at least 4.5 (normal text)."""

import itertools
import math
import re

import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.analysis.figures import colours
from dilemmas.dashboard import ColourBar, Swatch, key_html
from dilemmas.dashboard import bucket_brigade as bb
from dilemmas.dashboard import firefighting_graph as fg
from dilemmas.dashboard.scene import (MIN_AGENT_RADIUS, Cells, Circle, Line, Marks, Rect, Scene,
                                      Text, draw_on, text_box, text_width, to_svg)

WCAG_TEXT = 4.5
#: The games the dashboard draws (the test-only public goods game draws no world).
DRAWN = ("bucket_brigade", "state_punishment", "stag_hunt", "firefighting_graph")


def world_of(model) -> set[str]:
    """Every colour of a model's world: its key's entries that are not behaviours (a
    translucent one also as seen over white), colour bars' cells and the scene's cells."""
    game = model.game
    seen = set()
    for entry in game.view.key(model):
        if isinstance(entry, ColourBar):
            seen.update(entry.colours)
        elif not entry.label.endswith("(behaviour)"):
            seen.add(entry.colour)
            if entry.opacity < 1:
                seen.add(colours.over_white(entry.colour, entry.opacity))
    for shape in game.view.scene(model).shapes:
        if isinstance(shape, Cells):
            seen.update(shape.colours)
    return seen


def models():
    """Each game's default model after a step, and the Firefighting Graph's grid at a few
    top fire levels (so a few sets of shades)."""
    for name in DRAWN:
        yield GAMES[name].model(rng=0)
    for top in (2, 9, 100, 10**9):
        yield GAMES["firefighting_graph"].model(rng=0, layout="grid", max_fire_level=top)


@pytest.mark.parametrize("model", list(models()), ids=lambda m: m.game.name)
def test_no_behaviour_is_near_a_colour_of_its_games_world(model):
    model.step()
    world = world_of(model) | set(colours.world_colours(model.game.name))
    assert colours.FIRE in world
    for behaviour in model.game.behaviours:
        colour = colours.behaviour_colour(model.game.name, behaviour)
        for other in world:
            assert colours.delta_e(colour, other) >= colours.DISTINCT, (behaviour, other)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_behaviours_of_a_game_differ_from_each_other(game):
    """The first ``len(behaviour_colours(game))`` behaviours (9 to 11) take distinct colours;
    every registered behaviour of every game is among them today."""
    palette = colours.behaviour_colours(game)
    assert len(palette) >= 9
    names = list(GAMES[game].behaviours)[:len(palette)]
    assert len(names) == len(GAMES[game].behaviours)
    for first, second in itertools.combinations(names, 2):
        assert colours.delta_e(colours.behaviour_colour(game, first),
                               colours.behaviour_colour(game, second)) >= colours.DISTINCT


def test_delta_e_and_contrast_match_published_values():
    assert colours.lab("#FFFFFF") == pytest.approx((100, 0, 0), abs=0.01)
    assert colours.lab("#FF0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.05)
    assert colours.contrast("#000000", "#FFFFFF") == pytest.approx(21)
    assert colours.contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert colours.ink_on("#F0E442") == "#000000" and colours.ink_on("#332288") == "#FFFFFF"


@pytest.mark.parametrize("game", list(GAMES))
def test_seat_numbers_are_readable_on_every_behaviours_colour(game):
    for behaviour in GAMES[game].behaviours:
        colour = colours.behaviour_colour(game, behaviour)
        assert colours.contrast(colour, colours.ink_on(colour)) >= WCAG_TEXT, behaviour


def discs_and_labels(scene: Scene):
    """The discs, the texts centred in them, and the other texts of a scene."""
    discs = [s for s in scene.shapes if isinstance(s, Circle)]
    centres = {(d.x, d.y): d for d in discs}
    inside = [s for s in scene.shapes if isinstance(s, Text) and (s.x, s.y) in centres]
    others = [s for s in scene.shapes if isinstance(s, Text) and (s.x, s.y) not in centres]
    return discs, centres, inside, others


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def covers(box, d: Circle) -> bool:
    """Whether a box and a disc overlap: the box's point nearest the disc's centre is
    inside the disc."""
    x, y = min(max(d.x, box[0]), box[2]), min(max(d.y, box[1]), box[3])
    return math.dist((x, y), (d.x, d.y)) < d.r


def check_text_in_discs(scene: Scene) -> None:
    """Every disc's label in black or white by contrast, and within the disc."""
    discs, centres, inside, _ = discs_and_labels(scene)
    assert len(inside) == len(discs)
    for text in inside:
        disc = centres[(text.x, text.y)]
        assert colours.contrast(disc.fill, text.fill) >= WCAG_TEXT
        assert text_width(text.text, text.size) <= 1.75 * disc.r * scene.scale


@pytest.mark.parametrize("houses, at", [(10, 2), (3, 0), (1000, 999), (10, None)])
def test_bucket_brigade_agents_and_labels_never_overlap(houses, at):
    game = GAMES["bucket_brigade"]
    model = game.model(rng=1, num_houses=houses, num_agents=10)
    for _ in range(2):
        model.step()
    if at is not None:
        for agent in model.seats:  # everyone at one house, all lying: the longest labels
            agent.house, agent.lied = at, True
    scene = game.view.scene(model)
    discs, _, _, labels = discs_and_labels(scene)
    assert len(discs) == 10
    for a, b in itertools.combinations(discs, 2):
        assert math.dist((a.x, a.y), (b.x, b.y)) >= a.r + b.r
    boxes = [text_box(text, scene.scale) for text in labels]
    assert any(text.text.endswith(("W", "R", "lie")) for text in labels)
    assert len(labels) > 10  # the house numbers and the agents' signals
    for a, b in itertools.combinations(boxes, 2):
        assert not overlap(a, b)
    for box, disc in itertools.product(boxes, discs):
        assert not covers(box, disc)
    check_text_in_discs(scene)
    # each agent joined to its house: a line from its disc towards the house's angle
    lines = [s for s in scene.shapes if isinstance(s, Line)]
    assert len(lines) == 10


def test_spread_keeps_the_gaps_and_stays_put_when_apart():
    wanted = [0.1, 1.0, 2.5, 4.0]
    assert bb.spread(wanted, [0.25] * 4) == pytest.approx(wanted)
    crowded = bb.spread([1.0] * 10, [bb.GAP / 2] * 10)
    gaps = [(b - a) % (2 * math.pi) for a, b in zip(crowded, crowded[1:] + crowded[:1])]
    assert min(gaps) >= bb.GAP - 1e-9
    assert sum(crowded) / 10 == pytest.approx(1.0)  # centred on the house
    uneven = bb.spread([0.0, 0.1], [1.0, 0.5])  # two wide neighbours: 1.5 apart, centred
    assert uneven[1] - uneven[0] == pytest.approx(1.5)
    assert sum(uneven) / 2 == pytest.approx(0.05)
    assert bb.spread([0.0, 1.0, 2.0], [1.2] * 3) is None  # 7.2 radians do not fit round
    assert bb.increasing([3, 1, 2, 5, 4]) == pytest.approx([2, 2, 2, 4.5, 4.5])


def angle_of(x: float, y: float) -> float:
    """The angle clockwise from the top of a point of the Bucket Brigade scene."""
    return math.atan2(x - bb.SIZE / 2, bb.SIZE / 2 - y) % (2 * math.pi)


def house_offset(turn: float, house: int, houses: int) -> float:
    return abs(math.remainder(turn - 2 * math.pi * house / houses, 2 * math.pi))


@pytest.mark.parametrize("houses, at", [(10, 2), (3, 0), (1000, 999), (12, 7), (8, 1)])
def test_bucket_brigade_agents_at_one_house_stand_together_in_front_of_it(houses, at):
    """Ten agents at one house: one block (discs and labels) centred on the house's spoke,
    inside the ring of houses, every line to that house."""
    model = GAMES["bucket_brigade"].model(rng=1, num_houses=houses, num_agents=10)
    model.step()
    for agent in model.seats:
        agent.house = at
    scene = GAMES["bucket_brigade"].view.scene(model)
    discs, _, _, labels = discs_and_labels(scene)
    signals = [text_box(t, scene.scale) for t in labels if t.text.endswith(("W", "R"))]
    assert len(discs) == len(signals) == 10
    x0 = min(min(d.x - d.r for d in discs), min(box[0] for box in signals))
    x1 = max(max(d.x + d.r for d in discs), max(box[2] for box in signals))
    y0 = min(min(d.y - d.r for d in discs), min(box[1] for box in signals))
    y1 = max(max(d.y + d.r for d in discs), max(box[3] for box in signals))
    middle = ((x0 + x1) / 2, (y0 + y1) / 2)
    assert house_offset(angle_of(*middle), at, houses) < 0.01
    for corner in itertools.product((x0, x1), (y0, y1)):
        assert math.dist(corner, (bb.SIZE / 2,) * 2) <= bb.INSIDE + 1e-9
    house = [s for s in scene.shapes if isinstance(s, Rect) and s.tip.startswith(f"house {at}:")]
    (house,) = house
    for line in (s for s in scene.shapes if isinstance(s, Line)):
        assert house.x - 1e-9 <= line.x2 <= house.x + house.w + 1e-9
        assert house.y - 1e-9 <= line.y2 <= house.y + house.h + 1e-9


@pytest.mark.parametrize("seed", range(12))
def test_bucket_brigade_agents_at_houses_apart_stand_in_front_of_their_own(seed):
    """Agents at different houses, ten houses: each drawn nearest its own house's angle;
    with two to four agents at a house, the blocks still never overlap."""
    rng = np.random.default_rng(seed)
    model = GAMES["bucket_brigade"].model(rng=seed, num_houses=10, num_agents=10)
    model.step()
    alone = seed < 6
    houses = rng.permutation(10) if alone else rng.choice([0, 3, 6], size=10)
    for agent, house in zip(model.seats, houses):
        agent.house = int(house)
    scene = GAMES["bucket_brigade"].view.scene(model)
    discs, _, _, labels = discs_and_labels(scene)
    for a, b in itertools.combinations(discs, 2):
        assert math.dist((a.x, a.y), (b.x, b.y)) >= a.r + b.r
    boxes = [text_box(text, scene.scale) for text in labels]
    for a, b in itertools.combinations(boxes, 2):
        assert not overlap(a, b)
    for box, disc in itertools.product(boxes, discs):
        assert not covers(box, disc)
    if alone:
        for agent in model.seats:
            (d,) = [d for d in discs if f"agent {agent.seat} " in d.tip]
            assert house_offset(angle_of(d.x, d.y), agent.house, 10) < math.pi / 10


def house_of(x: float, y: float, cols: int) -> int:
    return int(y) * cols + int(x)


@pytest.mark.parametrize("layout, size", [("grid", 5), ("grid", 2), ("row", 10)])
def test_each_firefighter_stands_in_the_house_it_visits(layout, size):
    game = GAMES["firefighting_graph"]
    model = game.model(rng=0, layout=layout, n_width=size, n_height=size, n_agents=size)
    scene = game.view.scene(model)  # before the first visit: each at its home
    assert len([s for s in scene.shapes if isinstance(s, Circle)]) == len(model.seats)
    model.step()
    scene = game.view.scene(model)
    assert scene.scale >= fg.BIG
    cols = model.levels.shape[1]
    discs, _, _, _ = discs_and_labels(scene)
    assert len(discs) == len(model.seats)
    homes = fg.homes(model)
    for agent, disc in zip(model.seats, discs):
        assert f"firefighter {agent.seat} " in disc.tip
        assert house_of(disc.x, disc.y, cols) == agent.house
        hx, hy = homes[agent.seat]  # in the house's quarter towards its home
        centre = (agent.house % cols + 0.5, agent.house // cols + 0.5)
        assert (disc.x - centre[0]) * (hx - centre[0]) > 0
        assert (disc.y - centre[1]) * (hy - centre[1]) > 0
        assert abs(disc.x - centre[0]) + disc.r <= 0.5 and abs(disc.y - centre[1]) + disc.r <= 0.5
    for a, b in itertools.combinations(discs, 2):
        assert math.dist((a.x, a.y), (b.x, b.y)) >= a.r + b.r
    check_text_in_discs(scene)


def test_on_a_large_grid_each_visit_is_one_square_in_its_house():
    game = GAMES["firefighting_graph"]
    model = game.model(rng=0, layout="grid", n_width=40, n_height=40)
    model.step()
    scene = game.view.scene(model)
    assert scene.scale < fg.BIG
    cols = model.levels.shape[1]
    marks = [s for s in scene.shapes if isinstance(s, Marks)]
    points = [(p, m.fill) for m in marks for p in m.points]
    assert len(points) == len(model.seats) == len({p for p, _ in points})
    visits = sorted(house_of(x, y, cols) for (x, y), _ in points)
    assert visits == sorted(agent.house for agent in model.seats)
    for (x, y), _ in points:  # each square within its house
        assert abs(x % 1 - 0.5) + fg.MARK / 2 <= 0.5 and abs(y % 1 - 0.5) + fg.MARK / 2 <= 0.5


@pytest.mark.parametrize("grid, big", [(5, True), (40, False)])
def test_the_fire_key_names_only_what_is_drawn(grid, big):
    game = GAMES["firefighting_graph"]
    model = game.model(rng=0, layout="grid", n_width=grid, n_height=grid)
    model.step()
    scene, key = game.view.scene(model), game.view.key(model)
    drawn = {type(shape) for shape in scene.shapes}
    swatches = [entry for entry in key if isinstance(entry, Swatch)]
    texts = " ".join(s.label for s in swatches)
    assert (Circle in drawn) == big == ("disc" in texts)
    assert (Text in drawn) == big == ("number" in texts)
    assert (Marks in drawn) != big and ("square" in texts) != big
    for swatch in swatches:
        if swatch.label.endswith("(behaviour)"):
            fills = {s.fill for s in scene.shapes if isinstance(s, Circle if big else Marks)}
            assert swatch.colour in fills
            assert swatch.shape == ("disc" if big else "square")


@pytest.mark.parametrize("game", DRAWN)
def test_every_key_of_discs_and_numbers_matches_the_drawing(game):
    model = GAMES[game].model(rng=0)
    model.step()
    scene = GAMES[game].view.scene(model)
    fills = {s.fill for s in scene.shapes if isinstance(s, (Circle, Marks))}
    for entry in GAMES[game].view.key(model):
        if isinstance(entry, Swatch) and entry.label.endswith("(behaviour)"):
            assert entry.colour in fills
        if isinstance(entry, Swatch) and entry.shape == "text":
            assert any(isinstance(s, Text) for s in scene.shapes)


@pytest.mark.parametrize("top", [1, 2, 9, 10, 100, 12_345, 10**9])
def test_the_fire_key_is_one_row_of_fixed_cells_with_readable_text(top):
    model = GAMES["firefighting_graph"].model(rng=0, max_fire_level=top)
    bar = next(e for e in fg.key(model) if isinstance(e, ColourBar))
    assert len(bar.colours) == len(bar.labels) == len(bar.tips) == min(top + 1, fg.SHADES)
    width = int(re.search(r"\.bar-cell \{[^}]*width: (\d+)px", STYLE).group(1))
    size = float(re.search(r"\.bar-cell \{[^}]*font-size: ([\d.]+)px", STYLE).group(1))
    for label in bar.labels:  # fits its cell
        assert text_width(label, size) <= width
    cells = re.findall(r'class="bar-cell" style="background:([^;]+);color:([^"]+)" '
                       r'title="([^"]*)">([^<]*)<', key_html([bar]))
    assert len(cells) == len(bar.colours)
    for background, ink, tip, label in cells:
        assert colours.contrast(background, ink) >= WCAG_TEXT, (background, label)
    assert cells[-1][2].endswith(str(top)) and cells[0][3] == "0"


STYLE = (fg.__file__.rsplit("/", 1)[0] + "/style.css")
STYLE = open(STYLE, encoding="utf-8").read()


def test_the_colour_bar_never_wraps():
    bar = re.search(r"\.key-bar \.bar \{([^}]*)\}", STYLE).group(1)
    cell = re.search(r"\.bar-cell \{([^}]*)\}", STYLE).group(1)
    assert "flex-wrap: nowrap" in bar
    assert "white-space: nowrap" in cell and "flex: none" in cell


@pytest.mark.parametrize("name, parameters", [
    ("state_punishment", dict(width=50, height=50, num_agents=10, num_worlds=2)),
    ("state_punishment", dict(width=200, height=200, num_agents=10)),
    ("stag_hunt", dict(width=60, height=60, num_agents=6, num_agents_to_spawn=6)),
    ("stag_hunt", dict(width=200, height=200, num_agents=3)),
])
def test_agents_on_large_maps_keep_a_readable_size(name, parameters):
    model = GAMES[name].model(rng=0, **parameters)
    model.step()
    scene = GAMES[name].view.scene(model)
    discs = [s for s in scene.shapes if isinstance(s, Circle)]
    assert discs and scene.scale * 0.42 < MIN_AGENT_RADIUS  # the cells alone are too small
    assert all(d.r * scene.scale >= MIN_AGENT_RADIUS - 1e-9 for d in discs)
    check_text_in_discs(scene)
    assert min(t.size for t in scene.shapes if isinstance(t, Text)) >= 8


def test_a_line_draws_as_svg_and_on_matplotlib():
    from matplotlib.figure import Figure

    scene = Scene(4, 4, scale=10).add(Line(0, 0, 2, 3, "#0072B2", width=2, dotted=True))
    svg = to_svg(scene)
    assert '<line x1="0.000" y1="0.000" x2="2.000" y2="3.000" stroke="#0072B2"' in svg
    assert "stroke-dasharray" in svg
    ax = Figure().add_subplot()
    draw_on(ax, scene)
    assert len(ax.lines) == 1 and ax.lines[0].get_linestyle() == ":"


#: The colours' names as docs/explanation/figures.md writes them.
NAMES = {"blue": "#0072B2", "orange": "#E69F00", "bluish green": "#009E73",
         "reddish purple": "#CC79A7", "sky blue": "#56B4E9", "yellow": "#F0E442",
         "grey": "#999999", "wine": "#882255", "indigo": "#332288", "olive": "#999933",
         "teal": "#44AA99", "cyan": "#88CCEE", "rose": "#CC6677", "sand": "#DDCC77",
         "purple": "#AA4499", "green": "#117733", "dark brown": "#661100"}


def test_the_figures_page_lists_each_behaviours_colour():
    from pathlib import Path

    page = (Path(__file__).parents[1] / "docs/explanation/figures.md").read_text("utf-8")
    assert set(NAMES.values()) == set(colours.CANDIDATES)
    for name in DRAWN:
        title = name.replace("_", " ").title()
        row = re.search(rf"\| {title} \| ([^|]+) \|", page).group(1)
        written = [entry.split(" ", 1) for entry in row.strip().split(", ")]
        assert [b for b, _ in written] == list(GAMES[name].behaviours), name
        for behaviour, colour in written:
            assert NAMES[colour] == colours.behaviour_colour(name, behaviour), behaviour
