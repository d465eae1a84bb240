"""The dashboard's parts (``dilemmas.dashboard.app`` is the page).

A game's registration names its view (``dilemmas.GAMES[game].view``), a :class:`View`:

* ``scene(model)``: its world as shapes (``dilemmas.dashboard.scene``), drawn as SVG in the page and
  on a matplotlib ``Axes`` by its PettingZoo environment's ``render()``;
* ``key(model)``: what every colour and symbol of the world means (:class:`Swatch`,
  :class:`ColourBar`);
* ``plots``: its DataCollector columns over the rounds (``dilemmas.dashboard.charts.Plot``), counts
  and rates on separate axes, each series in the colour of its subject in the world;
* ``description``: one paragraph saying what the game is; the page links it to the rules;
* ``status(model)``: a line on the state of play (e.g. State Punishment's punishment level).

Agents are coloured by behaviour in every game
(``dilemmas.analysis.figures.colours.behaviour_colour``, the figures' colours, none of them
near a colour of the game's world) and numbered by seat (``dilemmas.dashboard.scene.disc``);
a series of a plot that is not about a behaviour is drawn in black or grey, or in the colour of its
subject in the world (fire's vermillion, a house state's, a resource's). A game's ``model`` needs
``seats`` (agents with ``seat`` and ``behaviour``), ``population`` and, for one agent's story, an
agent ``reward`` column. The controls come from the game's parameter declarations
(``dilemmas.dashboard.controls``); the page's parts are ``dilemmas.dashboard.play`` (a game played
live) and ``dilemmas.dashboard.viewer`` (a recorded run). Only the PettingZoo environment's
``render()`` uses this package (``dilemmas.dashboard.scene``).
"""

import html
from collections.abc import Callable
from dataclasses import dataclass, field

from dilemmas.analysis.figures.colours import behaviour_colour, ink_on


@dataclass(frozen=True)
class Swatch:
    """One entry of a key: a ``shape`` ("square", "disc", "triangle", "ring", "line",
    "dotted", or "text" for what is written in the world) in ``colour`` at ``opacity`` as
    the world draws it, and what it means."""

    label: str
    colour: str
    shape: str = "square"
    opacity: float = 1.0


@dataclass(frozen=True)
class ColourBar:
    """A key for a colour scale: ``colours`` from low to high, each labelled (a short label;
    ``tips``, if given, say the same in full when the pointer rests on a cell)."""

    label: str
    colours: tuple[str, ...]
    labels: tuple[str, ...]
    tips: tuple[str, ...] = ()


@dataclass(frozen=True)
class View:
    """How the dashboard shows a game (module docstring)."""

    scene: Callable
    key: Callable
    plots: tuple = ()
    description: str = ""
    status: Callable = field(default=lambda model: "")


def behaviour_swatches(model, shape: str = "disc") -> list[Swatch]:
    """One swatch per behaviour seated in ``model``, in the colour it has everywhere."""
    seated = dict.fromkeys(agent.behaviour for agent in model.seats)
    return [Swatch(f"{name} (behaviour)", agent_colour(model, name), shape) for name in seated]


def agent_colour(model, behaviour: str) -> str:
    """A behaviour's colour in ``model``'s game
    (``dilemmas.analysis.figures.colours.behaviour_colour``)."""
    return behaviour_colour(model.game.name, behaviour)


def _swatch_svg(swatch: Swatch) -> str:
    shape = {
        "square": f'<rect x="1" y="1" width="14" height="14" fill="{swatch.colour}" '
                  f'fill-opacity="{swatch.opacity}" stroke="#888" stroke-width="0.5"/>',
        "dotted": f'<line x1="1" y1="8" x2="15" y2="8" stroke="{swatch.colour}" '
                  'stroke-width="3" stroke-dasharray="1 3" stroke-linecap="round"/>',
        "disc": f'<circle cx="8" cy="8" r="7" fill="{swatch.colour}"/>',
        "triangle": f'<polygon points="8,1 15,15 1,15" fill="{swatch.colour}"/>',
        "ring": f'<circle cx="8" cy="8" r="5.5" fill="none" stroke="{swatch.colour}" '
                'stroke-width="3"/>',
        "line": f'<line x1="0" y1="8" x2="16" y2="8" stroke="{swatch.colour}" '
                'stroke-width="3"/>',
        "text": f'<text x="8" y="13" font-size="13" font-weight="bold" text-anchor="middle" '
                f'fill="{swatch.colour}">1</text>',
    }[swatch.shape]
    return f'<svg width="16" height="16" aria-hidden="true">{shape}</svg>'


def key_html(entries) -> str:
    """A key (``View.key``) as HTML: swatches with their meaning, colour bars as one row of
    cells of a fixed width (style.css), each label in black or white by contrast with its
    cell (``ink_on``)."""
    out = []
    for entry in entries:
        if isinstance(entry, ColourBar):
            tips = entry.tips or entry.labels
            cells = "".join(
                f'<span class="bar-cell" style="background:{colour};color:{ink_on(colour)}" '
                f'title="{html.escape(tip)}">{html.escape(label)}</span>'
                for colour, label, tip in zip(entry.colours, entry.labels, tips))
            out.append(f'<div class="key-bar"><span>{html.escape(entry.label)}</span>'
                       f'<span class="bar">{cells}</span></div>')
        else:
            out.append(f'<span class="key-entry">{_swatch_svg(entry)} '
                       f"{html.escape(entry.label)}</span>")
    return f'<div class="world-key" role="list" aria-label="key">{"".join(out)}</div>'
