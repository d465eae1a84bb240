"""The colours of the paper figures and of the dashboard: one palette, fixed meanings
(docs/explanation/figures.md).

* ``PALETTE``: the Okabe-Ito colours, which stay apart with colour-blindness and in
  greyscale print; ``EXTENDED`` adds a grey and a wine for more than eight categories.
* Fixed meanings: the state of a house (``HOUSE_STATES``: safe bluish green, burning
  vermillion, ruined black) and fire in general (``FIRE``, ``FIRE_CMAP``: warm); the
  resources, grid and beams of Stag Hunt (``STAG_HUNT_RESOURCES``, ``STAG_HUNT_GRID``,
  ``STAG_HUNT_BEAMS``) and of State Punishment (``STATE_PUNISHMENT_RESOURCES``,
  ``STATE_PUNISHMENT_GRID``), as the dashboard draws them.
* Behaviours: ``behaviour_style(game, name)`` gives each behaviour of a game a fixed
  colour, marker and line style by its place in ``dilemmas.GAMES[game].behaviours`` (its
  registration order), so that ``greedy_forager`` has the same colour in every figure. A
  game's behaviour colours (``behaviour_colours``) are the ``CANDIDATES`` in order, each
  kept only when it is at least ``DISTINCT`` (CIE76 Delta E in CIELAB) from every colour of
  the game's world (``world_colours``: its cells, houses, fire, beams, ink and paper) and
  from the colours kept before it (a game's world colours are its registration's
  ``world_colours``, set beside its statistics in ``dilemmas.analysis.<game>``); so no
  agent wears the colour of a ruined house, a resource or fire, and the first ``len(behaviour_colours(game))`` behaviours of a game
  (9 to 11 in each game) all differ; later ones repeat the colours with another line style
  and marker. ``population_style`` draws a mix of behaviours
  (``"greedy_forager:2,civic_voter:1"``) in the colour and marker of its largest part (the
  first written on a tie), dashed and with open markers.
* Text on a colour: ``ink_on(colour)``, black or white, whichever has the higher WCAG 2
  contrast ratio (``contrast``); that is at least 4.58 on any colour, above WCAG's 4.5 for
  normal text.
* Numbers (e.g. ``kappa`` values): ``sequential(n)``, ``n`` colours of viridis (dark to
  light, colour-blind safe), each with its own marker.

Nothing here imports pyplot, a backend or the dashboard's libraries.
"""

from dataclasses import dataclass
from functools import cache

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
#: Stag Hunt's empty cells and walls.
STAG_HUNT_GRID = {"empty": "#FFFFFF", "wall": "#6B6B6B"}
#: Stag Hunt's beams, drawn at ``BEAM_OPACITY`` over the map: fire's vermillion and the wine.
STAG_HUNT_BEAMS = {"attack": FIRE, "punish": WINE}
BEAM_OPACITY = 0.45
#: State Punishment's grid: an empty cell, a wall, then resources A..E (the dashboard's
#: legend names them green, orange, purple, pink, lime).
STATE_PUNISHMENT_GRID = {"empty": "white", "wall": "#6B6B6B"}
STATE_PUNISHMENT_RESOURCES = {"A": "#1B9E77", "B": "#D95F02", "C": "#7570B3",
                              "D": "#E7298A", "E": "#66A61E"}
#: One colour for a single series whose categories the tick labels name.
NEUTRAL = GREY
#: Error bars and other marks that are not a series.
INK = OKABE_ITO["black"]

#: Paul Tol's "muted" colours that Okabe-Ito lacks (indigo, olive, teal, cyan, rose, sand,
#: purple, green) and a dark brown: the candidates after ``EXTENDED`` for games whose world
#: takes some of Okabe-Ito's.
MORE = ("#332288", "#999933", "#44AA99", "#88CCEE", "#CC6677", "#DDCC77", "#AA4499",
        "#117733", "#661100")
#: The colours a behaviour may take, in the order they are handed out: ``EXTENDED`` but
#: fire's vermillion and ink's black, then ``MORE``.
CANDIDATES = (*(c for c in EXTENDED if c not in (FIRE, OKABE_ITO["black"])), *MORE)
#: Two colours this far apart (CIE76 Delta E) are told apart at a glance; closer, they are
#: not used for two meanings in one game (a Delta E of about 2.3 is just noticeable).
DISTINCT = 25.0
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


def linear_rgb(colour) -> list[float]:
    """``colour`` (any matplotlib colour) as linear-light red, green, blue: sRGB decoded
    (IEC 61966-2-1)."""
    from matplotlib.colors import to_rgb  # colour parsing only, no backend

    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)]


def lab(colour) -> tuple[float, float, float]:
    """``colour`` in CIELAB under D65: linear sRGB (``linear_rgb``) to XYZ (IEC 61966-2-1),
    to L*a*b* (CIE 15)."""
    linear = linear_rgb(colour)
    xyz = [sum(m * c for m, c in zip(row, linear)) / white for row, white in zip(
        ((0.4124564, 0.3575761, 0.1804375), (0.2126729, 0.7151522, 0.0721750),
         (0.0193339, 0.1191920, 0.9503041)), (0.95047, 1.0, 1.08883))]
    f = [t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29 for t in xyz]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def delta_e(first, second) -> float:
    """The CIE76 colour difference: the distance of two colours in CIELAB (``lab``)."""
    return sum((a - b) ** 2 for a, b in zip(lab(first), lab(second))) ** 0.5


def over_white(colour, opacity: float) -> str:
    """The colour seen where ``colour`` is drawn at ``opacity`` over white."""
    from matplotlib.colors import to_hex, to_rgb

    return to_hex([opacity * c + 1 - opacity for c in to_rgb(colour)])


def luminance(colour) -> float:
    """WCAG 2's relative luminance of ``colour``."""
    r, g, b = linear_rgb(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first, second) -> float:
    """WCAG 2's contrast ratio of two colours, 1 to 21."""
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@cache
def ink_on(colour: str) -> str:
    """The text colour for ``colour``: black or white, whichever contrasts more (at least
    4.58, WCAG's 4.5 for normal text)."""
    return "#000000" if contrast(colour, "#000000") >= contrast(colour, "#FFFFFF") else "#FFFFFF"


def fire_shades(count: int) -> list[str]:
    """``count`` shades of ``FIRE_CMAP`` from no fire (0.06 of the map, near white) to the
    most (its darkest), as hex strings."""
    import matplotlib

    cmap = matplotlib.colormaps[FIRE_CMAP]
    return [matplotlib.colors.to_hex(cmap(0.06 + 0.94 * i / max(1, count - 1)))
            for i in range(count)]


def world_colours(game: str) -> tuple[str, ...]:
    """Every colour the world of ``game`` is drawn in on the dashboard, as it is seen: its
    registration's ``world_colours`` (none for a game not registered), with fire, ink and
    paper, which every game keeps."""
    from dilemmas.registry import GAMES

    own = tuple(GAMES[game].world_colours) if game in GAMES else ()
    return (*own, FIRE, INK, "#FFFFFF")


@cache
def behaviour_colours(game: str) -> tuple[str, ...]:
    """The colours of the behaviours of ``game``, handed out in registration order: each of
    ``CANDIDATES`` at least ``DISTINCT`` from the game's world (``world_colours``) and from
    those kept before it."""
    kept: list[str] = []
    world = world_colours(game)
    for colour in CANDIDATES:
        if all(delta_e(colour, other) >= DISTINCT for other in (*world, *kept)):
            kept.append(colour)
    return tuple(kept)


def behaviour_style(game: str, behaviour: str) -> Style:
    """The fixed style of ``behaviour`` of ``game``: by its registration order, a colour of
    ``behaviour_colours(game)`` and a marker of ``MARKERS``; a solid line, dotted or
    dash-dotted once the colours have all been used."""
    index = _behaviours(game).index(behaviour)
    palette = behaviour_colours(game)
    colours = len(palette)
    return Style(palette[index % colours],
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

    fixed = [*EXTENDED, *MORE, *HOUSE_STATES.values(), *STAG_HUNT_RESOURCES.values(),
             *STATE_PUNISHMENT_RESOURCES.values(), NEUTRAL, INK]
    numbers = [c for n in range(1, 13) for c in sequential(n)]
    return {matplotlib.colors.to_hex(c).upper() for c in [*fixed, *numbers]}
