"""The colours of the paper figures and of the dashboard: one palette, fixed meanings
(docs/explanation/figures.md).

* ``PALETTE``: the Okabe-Ito colours, which stay apart with colour-blindness and in
  greyscale print; ``EXTENDED`` adds a grey and a wine for more than eight categories.
* Fixed meanings: the state of a house (``HOUSE_STATES``: safe bluish green, burning
  vermillion, ruined black) and fire in general (``FIRE``, ``FIRE_CMAP``: warm); the
  resources of Stag Hunt (``STAG_HUNT_RESOURCES``) and of State Punishment
  (``STATE_PUNISHMENT_RESOURCES``), as the dashboard draws them.
* Behaviours: ``behaviour_style(game, name)`` gives each behaviour of a game a fixed
  colour, marker and line style by its place in ``dilemmas.GAMES[game].behaviours`` (its
  registration order), so that ``greedy_forager`` has the same colour in every figure.
  Vermillion is kept for fire and is never a behaviour's colour. ``population_style`` draws
  a mix of behaviours (``"greedy_forager:2,civic_voter:1"``) in the colour and marker of
  its largest part (the first written on a tie), dashed and with open markers.
* Numbers (e.g. ``kappa`` values): ``sequential(n)``, ``n`` colours of viridis (dark to
  light, colour-blind safe), each with its own marker.

Nothing here imports pyplot, a backend or the dashboard's libraries.
"""

from dataclasses import dataclass

from dilemmas.models.population import entries as population_entries

#: The Okabe-Ito colours by name.
OKABE_ITO = {"blue": "#0072B2", "orange": "#E69F00", "bluish green": "#009E73",
             "vermillion": "#D55E00", "reddish purple": "#CC79A7", "sky blue": "#56B4E9",
             "black": "#000000", "yellow": "#F0E442"}
#: Okabe-Ito, in the order the figures use them (yellow last: thin on white).
PALETTE = tuple(OKABE_ITO.values())
GREY, WINE = "#999999", "#882255"
#: The palette with a grey and a wine for a ninth and tenth category.
EXTENDED = (*PALETTE, GREY, WINE)

#: Fire, wherever it is shown: vermillion (warm); a fire level as a colour map: "Reds".
FIRE = OKABE_ITO["vermillion"]
FIRE_CMAP = "Reds"
#: The state of a Bucket Brigade house.
HOUSE_STATES = {"safe": OKABE_ITO["bluish green"], "burning": FIRE,
                "ruined": OKABE_ITO["black"]}
#: Stag Hunt's resources, brown and tan (apart in lightness), as on the dashboard's map.
STAG_HUNT_RESOURCES = {"stag": "#8C510A", "hare": "#DFC27D"}
#: State Punishment's grid: an empty cell, a wall, then resources A..E (the dashboard's
#: legend names them green, orange, purple, pink, lime).
STATE_PUNISHMENT_GRID = {"empty": "white", "wall": "#6B6B6B"}
STATE_PUNISHMENT_RESOURCES = {"A": "#1B9E77", "B": "#D95F02", "C": "#7570B3",
                              "D": "#E7298A", "E": "#66A61E"}
#: One colour for a single series whose categories the tick labels name.
NEUTRAL = GREY
#: Error bars and other marks that are not a series.
INK = OKABE_ITO["black"]

#: The colours a behaviour may take, in registration order (vermillion is fire's).
BEHAVIOUR_COLOURS = tuple(c for c in EXTENDED if c != FIRE)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h")
#: Line styles after the colours run out (and for mixes, ``population_style``).
LINESTYLES = ("-", ":", "-.")
MIX_LINESTYLES = ("--", "-.", ":")
#: The colour map of numbered lines.
SEQUENTIAL = "viridis"


@dataclass(frozen=True)
class Style:
    """How one series is drawn: colour, line style, marker, filled or open marker."""

    colour: str
    linestyle: str = "-"
    marker: str = "o"
    filled: bool = True

    def line(self) -> dict:
        """Keyword arguments of ``Axes.plot``."""
        return dict(color=self.colour, linestyle=self.linestyle, marker=self.marker,
                    markerfacecolor=self.colour if self.filled else "white",
                    markeredgecolor=self.colour)


def _behaviours(game: str) -> list[str]:
    from dilemmas import GAMES  # here: importing this module registers no game

    return list(GAMES[game].behaviours)


def behaviour_style(game: str, behaviour: str) -> Style:
    """The fixed style of ``behaviour`` of ``game``: by its registration order, a colour of
    ``BEHAVIOUR_COLOURS`` and a marker of ``MARKERS``; a solid line, dotted or dash-dotted
    once the colours have all been used."""
    index = _behaviours(game).index(behaviour)
    colours = len(BEHAVIOUR_COLOURS)
    return Style(BEHAVIOUR_COLOURS[index % colours],
                 LINESTYLES[(index // colours) % len(LINESTYLES)],
                 MARKERS[index % len(MARKERS)])


def behaviour_colour(game: str, behaviour: str) -> str:
    """The fixed colour of ``behaviour`` of ``game`` (``behaviour_style``)."""
    return behaviour_style(game, behaviour).colour


def population_style(game: str, population: str) -> Style | None:
    """The style of a ``population``: one behaviour's own style
    (``behaviour_style``); a mix, its largest part's colour and marker (the first written on
    a tie), dashed, with an open marker. None when it names no behaviour of the game."""
    entries = population_entries(population)
    known = _behaviours(game)
    if not all(name in known for name, _ in entries):
        return None
    names = {name for name, _ in entries}
    largest = max(entries, key=lambda entry: entry[1])[0]  # max keeps the first on a tie
    style = behaviour_style(game, largest)
    if len(names) == 1:
        return style
    return Style(style.colour, MIX_LINESTYLES[0], style.marker, filled=False)


def population_styles(game: str, populations) -> dict:
    """A style per population of a figure (``population_style``), no two alike: a mix whose
    style another population of the figure already has takes the next of
    ``MIX_LINESTYLES``; a name that is no behaviour takes an unused colour of ``EXTENDED``."""
    styles, taken = {}, set()
    spare = [c for c in EXTENDED if c != FIRE]
    for population in populations:
        style = population_style(game, population)
        if style is None:
            style = Style(spare[len(styles) % len(spare)], "-", MARKERS[len(styles) %
                                                                        len(MARKERS)])
        for linestyle in (style.linestyle, *MIX_LINESTYLES):
            candidate = Style(style.colour, linestyle, style.marker, style.filled)
            if candidate not in taken:
                style = candidate
                break
        styles[population] = style
        taken.add(style)
    return styles


def sequential(n: int) -> list[str]:
    """``n`` colours of viridis, dark to light (up to 0.85 of the map: its last yellows
    are too pale on white), as hex strings."""
    import matplotlib  # colour maps only, no backend

    cmap = matplotlib.colormaps[SEQUENTIAL]
    if n <= 1:
        return [matplotlib.colors.to_hex(cmap(0.0))]
    return [matplotlib.colors.to_hex(cmap(0.85 * i / (n - 1))) for i in range(n)]


def number_styles(values) -> dict:
    """A style per number of ``values`` (in their order): viridis dark to light
    (``sequential``), each with its own marker."""
    values = list(values)
    return {v: Style(colour, "-", MARKERS[i % len(MARKERS)])
            for i, (v, colour) in enumerate(zip(values, sequential(len(values))))}


def category_styles(values) -> dict:
    """A style per category of ``values`` that is neither a behaviour nor a number: the
    colours of ``EXTENDED`` but fire's, in order, each with its own marker."""
    colours = [c for c in EXTENDED if c != FIRE]
    return {v: Style(colours[i % len(colours)], LINESTYLES[(i // len(colours)) % 3],
                     MARKERS[i % len(MARKERS)]) for i, v in enumerate(values)}


def shared() -> set[str]:
    """Every colour this module gives a series (upper-case hex), for checks: the palette,
    the fixed meanings and viridis' colours for up to 12 numbers."""
    import matplotlib

    fixed = [*EXTENDED, *HOUSE_STATES.values(), *STAG_HUNT_RESOURCES.values(),
             *STATE_PUNISHMENT_RESOURCES.values(), NEUTRAL, INK]
    numbers = [c for n in range(1, 13) for c in sequential(n)]
    return {matplotlib.colors.to_hex(c).upper() for c in [*fixed, *numbers]}
