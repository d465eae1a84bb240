"""A drawing as data: the shapes of a game's world, drawn as SVG in the dashboard and on a
matplotlib ``Axes`` for the PettingZoo environment's ``render()``.

A :class:`Scene` is ``width`` x ``height`` units (a grid cell is one unit, (0, 0) its top
left corner, y pointing down) shown at ``scale`` pixels per unit; text sizes are in pixels,
so labels stay readable whatever the world's size. Each shape may carry a ``tip``: the text
the browser shows when the pointer rests on it. Writing SVG text per round is what makes a
Step show within milliseconds (a matplotlib PNG per round took most of a second).

Agents are drawn by :func:`disc`: never under ``MIN_AGENT_RADIUS`` pixels at the scene's
scale (on a map of small cells a disc covers its neighbours' cells), their label in black
or white by contrast (``dilemmas.analysis.figures.colours.ink_on``) and sized to fit.
:func:`text_box` bounds a label generously, so that layouts and tests can keep labels apart.
"""

import base64
import html
import io
from dataclasses import dataclass, field

import numpy as np
from matplotlib.colors import to_rgb

from dilemmas.analysis.figures.colours import ink_on

#: Grids of more cells than this are sent as one image rather than a shape per cell.
MANY_CELLS = 400
#: The least radius of an agent's disc, in pixels at the scene's scale: a 16-pixel disc
#: still holds a two-digit seat number of 9.6 pixels.
MIN_AGENT_RADIUS = 8.0
#: The largest label in a disc, in pixels.
DISC_TEXT = 12.0


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: str | None = None
    opacity: float = 1.0
    tip: str = ""


@dataclass(frozen=True)
class Circle:
    """A disc; ``halo``: pixels of white ring around its outline, so that it stands apart
    from a cell of any colour (a dark outline on light cells, white on dark ones)."""

    x: float
    y: float
    r: float
    fill: str
    stroke: str = "white"
    stroke_width: float = 1.0
    tip: str = ""
    halo: float = 0.0


@dataclass(frozen=True)
class Polygon:
    points: tuple[tuple[float, float], ...]
    fill: str
    stroke: str = "white"
    tip: str = ""


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    size: float = 12.0
    fill: str = "black"
    anchor: str = "middle"
    bold: bool = False


@dataclass(frozen=True)
class Line:
    """A straight line ``width`` pixels wide, dotted if ``dotted``."""

    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str
    width: float = 2.0
    dotted: bool = False


@dataclass(frozen=True)
class Cells:
    """A grid of cells, ``codes[row, col]`` an index into ``colours``, at (x, y); a cell's
    tip is its code's (``tips``) or, where a colour stands for a range of values, its own
    exact value: ``exact.format(value=values[row, col], index=row * columns + col)``."""

    codes: np.ndarray
    colours: tuple[str, ...]
    x: float = 0.0
    y: float = 0.0
    tips: tuple[str, ...] = ()
    values: np.ndarray | None = None
    exact: str = ""

    def tip(self, row: int, col: int) -> str:
        if self.values is not None and self.exact:
            return self.exact.format(value=self.values[row, col],
                                     index=row * self.codes.shape[1] + col)
        code = int(self.codes[row, col])
        return self.tips[code] if code < len(self.tips) else ""


@dataclass(frozen=True)
class Marks:
    """Small squares of one colour, ``size`` units wide, centred on each of ``points``
    (drawn as one SVG path: thousands of them stay cheap)."""

    points: tuple[tuple[float, float], ...]
    size: float
    fill: str


@dataclass
class Scene:
    """``width`` x ``height`` units at ``scale`` pixels per unit, and its shapes in the order
    they are drawn."""

    width: float
    height: float
    scale: float
    shapes: list = field(default_factory=list)

    def add(self, *shapes) -> "Scene":
        self.shapes.extend(shapes)
        return self


def fit_scale(width: float, height: float, box: float = 560.0, most: float = 48.0) -> float:
    """Pixels per unit that fit ``width`` x ``height`` units in a ``box``-pixel square,
    at most ``most``."""
    return min(most, box / max(width, height))


def text_width(text: str, size: float) -> float:
    """A generous width in pixels of ``text`` at ``size`` pixels in a bold sans-serif, by
    DejaVu Sans Bold's advances (wider than Arial's or Helvetica's): 1.05 em for M, W, m, w;
    0.4 em for narrow marks (i, l, j, t, f, r, I, space, punctuation); 0.8 em for other
    capitals; 0.7 em for anything else (digits are 0.7)."""
    def advance(ch: str) -> float:
        if ch in "MWmw":
            return 1.05
        if ch in "iljtfrI .,:;!|/'-()[]":
            return 0.4
        return 0.8 if ch.isupper() else 0.7
    return size * sum(advance(ch) for ch in text)


def text_box(text: Text, scale: float) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1, in units) that ``text`` covers, generously: its
    ``text_width`` across and 1.2 em high."""
    width, height = text_width(text.text, text.size) / scale, 1.2 * text.size / scale
    x0 = {"start": text.x, "middle": text.x - width / 2, "end": text.x - width}[text.anchor]
    return x0, text.y - height / 2, x0 + width, text.y + height / 2


def agent_radius(units: float, scale: float) -> float:
    """An agent disc's radius in units: ``units``, or ``MIN_AGENT_RADIUS`` pixels where
    that is larger."""
    return max(units, MIN_AGENT_RADIUS / scale)


def disc(x: float, y: float, r: float, fill: str, label: str, scale: float, *,
         stroke: str = "#333333", stroke_width: float = 1.0, tip: str = "") -> list:
    """An agent: a disc of radius ``r`` units, outlined and ringed in white (``halo``) so
    that it stands apart from every cell colour, and ``label`` in its middle, in black or white
    by contrast with ``fill``, at most ``DISC_TEXT`` pixels and small enough to lie within
    1.7 radii across and 1.2 radii high."""
    pixels = r * scale
    size = min(DISC_TEXT, 1.2 * pixels, 1.7 * pixels / max(text_width(label, 1.0), 0.7))
    return [Circle(x, y, r, fill, stroke=stroke, stroke_width=stroke_width, tip=tip, halo=2.0),
            Text(x, y, label, size=size, fill=ink_on(fill), bold=True)]


# --- SVG -----------------------------------------------------------------------------------

def _tip(tip: str) -> str:
    return f"<title>{html.escape(tip)}</title>" if tip else ""


def _cells_svg(cells: Cells) -> list[str]:
    if cells.codes.size > MANY_CELLS:
        return [_cells_image(cells)]
    out = []
    for (row, col), code in np.ndenumerate(cells.codes):
        tip = cells.tip(row, col)
        out.append(f'<rect x="{cells.x + col}" y="{cells.y + row}" width="1" height="1" '
                   f'fill="{cells.colours[code]}">{_tip(tip)}</rect>')
    return out


def _cells_image(cells: Cells) -> str:
    """Many cells as one PNG image of a pixel per cell, scaled up without smoothing."""
    from PIL import Image

    palette = np.array([to_rgb(colour) for colour in cells.colours]) * 255
    pixels = palette[cells.codes].round().astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(buffer, format="PNG")
    data = base64.b64encode(buffer.getvalue()).decode()
    rows, cols = cells.codes.shape
    return (f'<image x="{cells.x}" y="{cells.y}" width="{cols}" height="{rows}" '
            f'style="image-rendering:pixelated" preserveAspectRatio="none" '
            f'href="data:image/png;base64,{data}"/>')


def _svg(shape, scale: float) -> list[str]:
    match shape:
        case Marks():
            half = shape.size / 2
            path = "".join(f"M{x - half:.2f} {y - half:.2f}h{shape.size:.2f}v{shape.size:.2f}"
                           f"h-{shape.size:.2f}z" for x, y in shape.points)
            return [f'<path d="{path}" fill="{shape.fill}"/>'] if path else []
        case Cells():
            return _cells_svg(shape)
        case Line():
            dots = f' stroke-dasharray="0 {2 * shape.width / scale:.3f}"' if shape.dotted else ""
            return [f'<line x1="{shape.x1:.3f}" y1="{shape.y1:.3f}" x2="{shape.x2:.3f}" '
                    f'y2="{shape.y2:.3f}" stroke="{shape.stroke}" '
                    f'stroke-width="{shape.width / scale:.3f}" stroke-linecap="round"{dots}/>']
        case Rect():
            stroke = (f' stroke="{shape.stroke}" stroke-width="{1.5 / scale:.3f}"'
                      if shape.stroke else "")
            return [f'<rect x="{shape.x:.3f}" y="{shape.y:.3f}" width="{shape.w:.3f}" '
                    f'height="{shape.h:.3f}" fill="{shape.fill}" '
                    f'fill-opacity="{shape.opacity}"{stroke}>{_tip(shape.tip)}</rect>']
        case Circle():
            halo = ([f'<circle cx="{shape.x:.3f}" cy="{shape.y:.3f}" '
                     f'r="{shape.r + (shape.stroke_width / 2 + shape.halo / 2) / scale:.3f}" '
                     f'fill="none" stroke="#FFFFFF" stroke-width="{shape.halo / scale:.3f}"/>']
                    if shape.halo else [])
            return halo + [f'<circle cx="{shape.x:.3f}" cy="{shape.y:.3f}" r="{shape.r:.3f}" '
                    f'fill="{shape.fill}" stroke="{shape.stroke}" '
                    f'stroke-width="{shape.stroke_width / scale:.3f}">'
                    f'{_tip(shape.tip)}</circle>']
        case Polygon():
            points = " ".join(f"{x:.3f},{y:.3f}" for x, y in shape.points)
            return [f'<polygon points="{points}" fill="{shape.fill}" stroke="{shape.stroke}" '
                    f'stroke-width="{1 / scale:.3f}">{_tip(shape.tip)}</polygon>']
        case Text():
            weight = ' font-weight="bold"' if shape.bold else ""
            return [f'<text x="{shape.x:.3f}" y="{shape.y:.3f}" '
                    f'font-size="{shape.size / scale:.3f}" '
                    f'fill="{shape.fill}" text-anchor="{shape.anchor}" '
                    f'dominant-baseline="central"{weight}>{html.escape(shape.text)}</text>']
    raise TypeError(f"not a shape: {shape!r}")


def to_svg(scene: Scene, label: str = "") -> str:
    """The scene as an ``<svg>`` element, ``label`` its accessible name; its style gives its
    width over its height as ``--aspect``, by which a page may size it (style.css)."""
    body = [line for shape in scene.shapes for line in _svg(shape, scene.scale)]
    w, h = scene.width * scene.scale, scene.height * scene.scale
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" '
            f'aria-label="{html.escape(label)}" width="{w:.0f}" height="{h:.0f}" '
            f'viewBox="0 0 {scene.width:.3f} {scene.height:.3f}" '
            f'style="max-width:100%;height:auto;--aspect:{scene.width / scene.height:.4f}" '
            f'font-family="sans-serif">{"".join(body)}</svg>')


# --- matplotlib ----------------------------------------------------------------------------

#: SVG's text anchors as matplotlib's horizontal alignments.
ANCHORS = {"start": "left", "middle": "center", "end": "right"}


def draw_on(ax, scene: Scene) -> None:
    """The scene on a matplotlib ``Axes`` (the PettingZoo environment's ``render()``)."""
    from matplotlib import patches
    from matplotlib.colors import ListedColormap

    points = 72 / 100  # the text sizes are pixels at 100 dpi
    for shape in scene.shapes:
        match shape:
            case Cells():
                rows, cols = shape.codes.shape
                ax.imshow(shape.codes, cmap=ListedColormap(shape.colours), vmin=0,
                          vmax=len(shape.colours) - 1, interpolation="nearest",
                          extent=(shape.x, shape.x + cols, shape.y + rows, shape.y))
            case Marks():
                if shape.points:
                    xs, ys = zip(*shape.points)
                    points_per_unit = scene.scale * 72 / 100  # the figure is at 100 dpi
                    ax.scatter(xs, ys, s=(shape.size * points_per_unit) ** 2, marker="s",
                               c=shape.fill, linewidths=0)
            case Line():
                ax.plot((shape.x1, shape.x2), (shape.y1, shape.y2), color=shape.stroke,
                        lw=shape.width * points, linestyle=":" if shape.dotted else "-",
                        solid_capstyle="round")
            case Rect():
                ax.add_patch(patches.Rectangle((shape.x, shape.y), shape.w, shape.h,
                                               facecolor=shape.fill, alpha=shape.opacity,
                                               edgecolor=shape.stroke or "none"))
            case Circle():
                if shape.halo:
                    ax.add_patch(patches.Circle(
                        (shape.x, shape.y), shape.r + (shape.stroke_width + shape.halo) / 2
                        / scene.scale, facecolor="none", edgecolor="#FFFFFF",
                        lw=shape.halo * points))
                ax.add_patch(patches.Circle((shape.x, shape.y), shape.r, facecolor=shape.fill,
                                            edgecolor=shape.stroke, lw=shape.stroke_width))
            case Polygon():
                ax.add_patch(patches.Polygon(shape.points, facecolor=shape.fill,
                                             edgecolor=shape.stroke))
            case Text():
                ax.text(shape.x, shape.y, shape.text, fontsize=shape.size * points,
                        color=shape.fill, ha=ANCHORS[shape.anchor],
                        va="center", fontweight="bold" if shape.bold else "normal")
    ax.set(xlim=(0, scene.width), ylim=(scene.height, 0), aspect="equal")
    ax.axis("off")


def figure(scene: Scene):
    """A matplotlib ``Figure`` of the scene at its size in pixels (100 dpi), for an image
    file of the world or an RGB array (``render()``)."""
    from matplotlib.figure import Figure

    shown = Figure(figsize=(scene.width * scene.scale / 100, scene.height * scene.scale / 100),
                   dpi=100)
    draw_on(shown.add_axes((0, 0, 1, 1)), scene)
    return shown
