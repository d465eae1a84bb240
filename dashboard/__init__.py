"""The dashboard's parts: each game's view and what the views share (``app.py`` is the page).

A game's registration names its view (``models.GAMES[game].view``), a :class:`View`: a
function that draws its world on a matplotlib ``Axes`` (also the image of its PettingZoo
environment's ``render()``) and the DataCollector columns to plot. Its controls
are not written here: ``controls`` makes them from the game's parameter declarations (each
parameter with a ``Slider``, ``Select`` or ``Text``, labelled with its name, starting at its
default; an empty text field is None), plus a seed slider. A select whose default is not among its values (Stag Hunt's
``attack_mode=None``, which means the area attack) starts at its first value. ``game_view``
puts world, plots and controls in Mesa's ``SolaraViz``. The models know nothing of this
package.
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import solara
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from mesa.visualization import SolaraViz, make_plot_component
from mesa.visualization.utils import update_counter

from analysis import colours
from models.parameters import Select, Slider, Text

#: Each seat's colour (seat number modulo 10): the figures' palette (``analysis.colours``).
SEAT_COLOURS = colours.SEAT_COLOURS
#: The label of the seed slider.
SEED = "seed (rng)"


@dataclass(frozen=True)
class View:
    """How the dashboard shows a game: ``draw(ax, model)`` draws the world and returns the
    caption's first words, ``plots`` (one plot per list of model columns), ``size(model)``
    the drawing's width and height in inches. ``model``: the class the dashboard builds,
    when it is not the game's own (a subclass adapting a parameter to Mesa's page);
    ``renamed``: parameter name -> the name that class takes it by."""

    draw: Callable
    plots: list = field(default_factory=list)
    size: Callable = lambda model: (5.0, 5.0)
    model: type | None = None
    renamed: dict = field(default_factory=dict)


def world(view: View):
    """The Solara component of a view's world drawing, redrawn at each step and Reset."""

    @solara.component
    def World(model):
        update_counter.get()
        fig = Figure(figsize=view.size(model), layout="constrained")
        caption = view.draw(fig.subplots(), model)
        world_panel(fig, model, caption)

    return World


def controls(game, view: View) -> dict:
    """SolaraViz ``model_params`` from the game's parameter declarations."""
    params = {}
    for parameter in game.parameters:
        control = parameter.control
        if control is None:
            continue
        start = game.parameters.start_value(parameter.name)
        if isinstance(control, Slider):
            kind = "SliderFloat" if isinstance(control.step, float) else "SliderInt"
            low, high = (game.parameters.start_value(bound) if isinstance(bound, str)
                         else bound for bound in (control.low, control.high))
            widget = {"type": kind, "value": start, "min": low, "max": high,
                      "step": control.step}
        elif isinstance(control, Select):
            values = list(control.values or parameter.kind.options)
            widget = {"type": "Select", "value": start if start in values else values[0],
                      "values": values}
        elif isinstance(control, Text):
            widget = {"type": "InputText", "value": "" if start is None else str(start)}
        else:
            raise TypeError(f"{game.name}.{parameter.name}: unknown control {control!r}")
        params[view.renamed.get(parameter.name, parameter.name)] = {
            **widget, "label": parameter.name}
    params["rng"] = {"type": "SliderInt", "value": 1, "min": 0, "max": 999, "step": 1,
                     "label": SEED}
    return params


def game_view(game):
    """A component showing one game's SolaraViz: world, plots and controls."""
    view = game.view
    build = _blank_is_none(view.model or game.model,
                           [p.name for p in game.parameters if isinstance(p.control, Text)])
    world_drawing = world(view)

    @solara.component
    def GameView():
        model = solara.use_memo(lambda: build(rng=1), [])
        components = [(world_drawing, 0)] + [
            make_plot_component(columns, backend="matplotlib") for columns in view.plots]
        return SolaraViz(model, components=components, model_params=controls(game, view),
                         name=game.title)

    GameView.__name__ = game.title.replace(" ", "")
    return GameView


def _blank_is_none(model_class, names):
    """``model_class``, or a subclass that reads an empty text field of ``names`` as None.
    Mesa's Reset passes ``rng`` by name only to a constructor that names it, and its own
    ``scenario`` to any that takes keywords: the subclass names both and passes ``scenario``
    on only if ``model_class`` takes one."""
    if not names:
        return model_class
    takes_scenario = "scenario" in inspect.signature(model_class.__init__).parameters

    def __init__(self, *, rng=None, scenario=None, **parameters):
        if takes_scenario:
            parameters["scenario"] = scenario
        for name in names:
            if parameters.get(name) == "":
                parameters[name] = None
        model_class.__init__(self, rng=rng, **parameters)

    return type(model_class.__name__, (model_class,), {"__init__": __init__})


# --- Drawing helpers shared by the views ---------------------------------------------------

def world_panel(fig, model, text):
    """A world's drawing (redrawn when the model steps or is rebuilt by Reset) and the line
    under it: what is shown, the population, the seed and the step."""
    with solara.Column():
        solara.FigureMatplotlib(fig, format="png",
                                dependencies=[id(model), model.steps, update_counter.value])
        solara.Text(f"{text} · population {model.population} · seed {model.seed} · "
                    f"step {model.steps}", classes=["world-caption"])


def draw_grid(ax, codes, colours, title):
    """``codes`` (rows, cols) as coloured cells, row 0 at the top."""
    ax.imshow(codes, cmap=ListedColormap(colours), vmin=0, vmax=len(colours) - 1,
              interpolation="nearest")
    ax.set_xticks(np.arange(-0.5, codes.shape[1]), minor=True)
    ax.set_yticks(np.arange(-0.5, codes.shape[0]), minor=True)
    ax.grid(which="minor", color="#dddddd", lw=0.5)
    ax.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    ax.set_title(title, fontsize=10)
