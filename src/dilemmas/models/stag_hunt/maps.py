"""Stag Hunt maps: random layouts and ASCII maps (docs/rules/stag_hunt.md, "World").

A :class:`Layout` is what a map fixes before any random draw of the game: walls, the
resources the map places, and the spawn points, all as ``(row, col)`` coordinates counting
from 0 at the top left.

ASCII maps: one line per row, ``W`` wall, ``P`` or ``A`` spawn point, ``1`` stag, ``2`` hare,
``a`` a resource whose kind is drawn (stag with ``stag_probability``), space or ``.`` empty.
Empty lines before the first row and after the last are ignored (so a map may be written
in a triple-quoted string or end with a newline); a line of spaces is a row of empty cells.
A map is text when it contains a line break, otherwise a path to a file (a ``pathlib.Path``
always is). A map needs no border of walls: cells outside it are walls to moves and beams.

Random layouts: border walls, then interior walls on ``round(wall_density * open cells)``
cells, tried in a random order, each placed only if the open cells stay connected (four
neighbours), so no part of the map is cut off.
"""

from pathlib import Path
from typing import NamedTuple

import numpy as np

#: Resource codes, as in the map: 1 stag, 2 hare; RANDOM_KIND is an ``a`` of the map.
STAG, HARE, RANDOM_KIND = 1, 2, 3
CELLS = {"W": "wall", "P": "spawn", "A": "spawn", "1": STAG, "2": HARE, "a": RANDOM_KIND,
         " ": None, ".": None}


class Layout(NamedTuple):
    """``walls``: bool (height, width); ``resources``: int8 codes 0/STAG/HARE/RANDOM_KIND;
    ``spawn_points``: coordinates in row-major order."""

    walls: np.ndarray
    resources: np.ndarray
    spawn_points: tuple[tuple[int, int], ...]


def read_ascii_map(source) -> Layout:
    """The layout of an ASCII map given as text or as a path; ``ValueError`` naming the row
    and column of the first bad cell, or saying why the map is unusable."""
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source):
        path = Path(source)
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"ascii_map={str(source)!r} is invalid: the map file cannot be "
                             f"read ({error})") from None
        where = f"ascii_map file {str(path)!r}"
    elif isinstance(source, str):
        text, where = source, "ascii_map"
    else:
        raise ValueError(f"ascii_map={source!r} is invalid: must be None, the map as text "
                         "or the path of a map file")
    lines = text.splitlines()
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        raise ValueError(f"{where} is empty: it needs at least one row of cells")
    width = len(lines[0])
    walls = np.zeros((len(lines), width), dtype=bool)
    resources = np.zeros((len(lines), width), dtype=np.int8)
    spawn_points = []
    for row, line in enumerate(lines):
        if len(line) != width:
            column = min(len(line), width)
            raise ValueError(
                f"{where}, row {row}, column {column} (counting from 0): the row has "
                f"{len(line)} cells but row 0 has {width}; every row must be as long")
        for col, char in enumerate(line):
            if char not in CELLS:
                raise ValueError(
                    f"{where}, row {row}, column {col} (counting from 0): unknown cell "
                    f"{char!r}; allowed: 'W' wall, 'P' or 'A' spawn point, '1' stag, "
                    "'2' hare, 'a' random resource, ' ' or '.' empty")
            cell = CELLS[char]
            if cell == "wall":
                walls[row, col] = True
            elif cell == "spawn":
                spawn_points.append((row, col))
            elif cell is not None:
                resources[row, col] = cell
    if walls.all():
        raise ValueError(f"{where} has no open cell: every cell is a wall")
    return Layout(walls, resources, tuple(spawn_points))


def random_layout(height: int, width: int, wall_density: float, random) -> Layout:
    """Border walls and connectivity-preserving interior walls; no resources placed yet and
    no spawn points (the model draws both)."""
    walls = np.zeros((height, width), dtype=bool)
    walls[[0, -1], :] = True
    walls[:, [0, -1]] = True
    candidates = [tuple(map(int, rc)) for rc in np.argwhere(~walls)]
    wanted = round(wall_density * len(candidates))
    if wanted:
        random.shuffle(candidates)
    while wanted:
        placed_any = False
        for cell in list(candidates):
            if not wanted:
                break
            walls[cell] = True
            if _connected(walls):
                candidates.remove(cell)
                wanted -= 1
                placed_any = True
            else:
                walls[cell] = False
        if not placed_any:  # cannot happen while two or more cells are open
            break
    return Layout(walls, np.zeros((height, width), dtype=np.int8), ())


def _connected(walls: np.ndarray) -> bool:
    """Whether the open cells form one four-connected region (scipy's labelling, in C: the
    map of a large grid is drawn in seconds, not hours)."""
    from scipy import ndimage  # imported here: the registration reads this module

    _, regions = ndimage.label(~walls)
    return regions <= 1
