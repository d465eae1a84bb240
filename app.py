"""The dashboard: every game playable and watchable in the browser, on Mesa's SolaraViz.

Start it with ``make dashboard`` (or ``solara run app.py``; on a machine without internet,
fill the front-end cache first, see ``dashboard_assets.py``). Pick a game at the top; each
game is a Mesa ``SolaraViz`` with its world drawn, plots of its DataCollector columns, its
parameters as sliders and selects (Reset rebuilds the model with them and the seed), and the
step counter in the sidebar. The models know nothing of this file.

Drawings are matplotlib components of ours: Mesa's space components draw agents and
property layers on a grid, but not a ring of houses with tonight's signals, a hunter's
facing and beams, or firefighters' choices of house.

Mesa's Reset hands a Mesa ``Scenario`` object to any model whose constructor takes a
``scenario`` parameter; Bucket Brigade's ``scenario`` is the name of one of its scenarios, so
the dashboard shows it as ``scenario_name`` and passes it on (``BucketBrigadeView``).
"""

import math

import numpy as np
import solara
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Circle, Rectangle, RegularPolygon
from mesa.visualization import SolaraViz, make_plot_component
from mesa.visualization.utils import update_counter

from agents.bucket_brigade import BURNING, RUINED, SAFE, WORK
from agents.stag_hunt import DIRECTIONS, HARE, STAG
from agents.state_punishment import KINDS
from analysis import bucket_brigade, firefighting_graph, stag_hunt, state_punishment
from models.bucket_brigade import SCENARIOS, BucketBrigadeModel
from models.firefighting_graph import FirefightingGraphModel
from models.stag_hunt import StagHuntModel
from models.state_punishment import StatePunishmentModel

SEAT_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
                "#F0E442", "#000000", "#999999", "#882255")


def seed_slider():
    return {"type": "SliderInt", "value": 1, "min": 0, "max": 999, "step": 1,
            "label": "seed (rng)"}


def select(label, values, value=None):
    values = list(values)
    return {"type": "Select", "value": values[0] if value is None else value,
            "values": values, "label": label}


def slider(label, value, low, high, step):
    kind = "SliderFloat" if isinstance(step, float) else "SliderInt"
    return {"type": kind, "value": value, "min": low, "max": high, "step": step,
            "label": label}


def figure(width=5.0, height=5.0):
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots()


def world_panel(fig, model, text):
    """A world's drawing (redrawn when the model steps or is rebuilt by Reset) and the line
    under it: what is shown, the population, the seed and the step."""
    with solara.Column():
        solara.FigureMatplotlib(fig, format="png",
                                dependencies=[id(model), model.steps, update_counter.value])
        solara.Text(f"{text} · population {model.population} · seed {model.seed} · "
                    f"step {model.steps}", classes=["world-caption"])


# --- Bucket Brigade -----------------------------------------------------------------------

class BucketBrigadeView(BucketBrigadeModel):
    """Bucket Brigade with its scenario given as ``scenario_name`` (module docstring)."""

    def __init__(self, *, scenario_name="default", scenario=None, rng=None, **parameters):
        super().__init__(scenario=scenario_name, rng=rng, **parameters)


HOUSE_COLOURS = {SAFE: "#7fc97f", BURNING: "#fb6a4a", RUINED: "#404040"}


@solara.component
def BucketBrigadeWorld(model):
    """The ring of houses by state; each agent at its house with tonight's signal and mode
    (W work, R rest), a lie ringed in red."""
    update_counter.get()
    fig, ax = figure()
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
    world_panel(fig, model, "signal/mode per agent (W work, R rest)")


BUCKET_BRIGADE = dict(
    model=lambda: BucketBrigadeView(rng=1),
    world=BucketBrigadeWorld,
    plots=[["lies", "work_rate"], ["burning", "safe", "ruined"]],
    params={
        "population": select("behaviour mix", bucket_brigade.MIXES),
        "scenario_name": select("scenario", SCENARIOS, "default"),
        "num_agents": slider("agents", 4, 4, 10, 1),
        "rng": seed_slider(),
    },
)


# --- State Punishment ---------------------------------------------------------------------

RESOURCE_COLOURS = ["white", "#6b6b6b", "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"]


def draw_grid(ax, codes, colours, title):
    """``codes`` (rows, cols) as coloured cells, row 0 at the top."""
    ax.imshow(codes, cmap=ListedColormap(colours), vmin=0, vmax=len(colours) - 1,
              interpolation="nearest")
    ax.set_xticks(np.arange(-0.5, codes.shape[1]), minor=True)
    ax.set_yticks(np.arange(-0.5, codes.shape[0]), minor=True)
    ax.grid(which="minor", color="#dddddd", lw=0.5)
    ax.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    ax.set_title(title, fontsize=10)


@solara.component
def StatePunishmentWorld(model):
    """World 0: walls grey, resources A..E by colour, each agent a numbered disc."""
    update_counter.get()
    fig, ax = figure()
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
    world_panel(fig, model, "agents by seat")


STATE_PUNISHMENT = dict(
    model=lambda: StatePunishmentModel(rng=1),
    world=StatePunishmentWorld,
    plots=[["punishment_level"], ["votes_up", "votes_down"], ["social_harm_generated"]],
    params={
        "population": select("behaviour mix", state_punishment.MIXES),
        "num_agents": slider("agents", 3, 1, 10, 1),
        "initial_punishment": slider("initial punishment", 0.1, 0.0, 1.0, 0.1),
        "vote_step": slider("vote step", 0.2, 0.0, 1.0, 0.1),
        "punishment_mode": select("punishment mode", ("expected", "stochastic")),
        "action_mode": select("action mode", ("simple", "composite")),
        "rng": seed_slider(),
    },
)


# --- Stag Hunt ----------------------------------------------------------------------------

KIND_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7")


def facing_triangle(row, col, orientation, colour):
    """A triangle on cell (row, col) whose tip points the way the agent faces (in data
    coordinates x = col, y = row; the image's row axis points down)."""
    dr, dc = DIRECTIONS[orientation]
    return RegularPolygon((col, row), 3, radius=0.42,
                          orientation=math.atan2(dr, dc) - math.pi / 2, color=colour)


@solara.component
def StagHuntWorld(model):
    """Walls grey, stags brown, hares tan; agents as triangles pointing where they face,
    coloured by kind and numbered by seat; this turn's attack beam red, punish beam purple."""
    update_counter.get()
    fig, ax = figure()
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
    world_panel(fig, model, f"kinds {', '.join(model.kinds)}")


STAG_HUNT = dict(
    model=lambda: StagHuntModel(rng=1),
    world=StagHuntWorld,
    plots=[["stags_defeated", "hares_defeated"], ["coordinated_stag_kills"]],
    params={
        "population": select("behaviour mix", stag_hunt.MIXES),
        "num_agents_to_spawn": slider("agents spawned (of 3)", 2, 1, 3, 1),
        "heal_delay": slider("heal delay", 1, 0, 5, 1),
        "attack_mode": select("attack mode", ("area", "single", "beam")),
        "resource_density": slider("resource density", 0.15, 0.0, 0.5, 0.05),
        "stag_probability": slider("stag probability", 0.5, 0.0, 1.0, 0.05),
        "wall_density": slider("interior wall density", 0.0, 0.0, 0.3, 0.05),
        "rng": seed_slider(),
    },
)


# --- Firefighting Graph -------------------------------------------------------------------

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


FIREFIGHTING_GRAPH = dict(
    model=lambda: FirefightingGraphModel(rng=1),
    world=FirefightingWorld,
    plots=[["mean_fire"], ["burning_houses"]],
    params={
        "population": select("behaviour mix", firefighting_graph.MIXES),
        "layout": select("layout", ("row", "grid")),
        "preset": select("preset", ("cognac", "oliehoek")),
        "p_ignite": slider("p_ignite", 0.3, 0.0, 1.0, 0.05),
        "rng": seed_slider(),
    },
)


# --- The page -----------------------------------------------------------------------------

GAMES = {
    "Bucket Brigade": BUCKET_BRIGADE,
    "State Punishment": STATE_PUNISHMENT,
    "Stag Hunt": STAG_HUNT,
    "Firefighting Graph": FIREFIGHTING_GRAPH,
}


def game_view(title, spec):
    """A component showing one game's SolaraViz."""

    @solara.component
    def GameView():
        model = solara.use_memo(spec["model"], [])
        components = [(spec["world"], 0)] + [
            make_plot_component(columns, backend="matplotlib") for columns in spec["plots"]]
        return SolaraViz(model, components=components, model_params=spec["params"],
                         name=title)

    GameView.__name__ = title.replace(" ", "")
    return GameView


VIEWS = {title: game_view(title, spec) for title, spec in GAMES.items()}


@solara.component
def Page():
    game = solara.use_reactive("Bucket Brigade")
    shown = solara.use_reactive("Bucket Brigade")
    # A newly picked game mounts on the render after the old one is gone: mounted in the
    # same render, Mesa's SolaraViz loses its default parameters (Reset then ignores them).
    solara.use_effect(lambda: shown.set(game.value), [game.value])
    with solara.Sidebar():
        solara.ToggleButtonsSingle(value=game, values=list(VIEWS), classes=["game-picker"])
    if shown.value == game.value:
        VIEWS[shown.value]().key(shown.value)
