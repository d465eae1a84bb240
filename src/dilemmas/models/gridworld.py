"""Grid helpers shared by the gridworld games (State Punishment, Stag Hunt).

Coordinates are ``(row, col)`` on a Mesa ``OrthogonalVonNeumannGrid`` of dimensions
``(height, width)``; "up" decreases the row. Observations are windows of integer entity
codes, where cells outside the grid read as ``outside`` (the games' wall code), turned into
one-hot arrays of shape ``(rows, cols, channels)``.
"""

import numpy as np
from mesa.discrete_space import CellAgent, OrthogonalVonNeumannGrid
from mesa.discrete_space.cell_agent import HasCell
from mesa.discrete_space.property_layer import PropertyLayer


class EpisodeCellAgent(CellAgent):
    """A gridworld agent whose cell is a view of its seat's place in its model's episode
    (``model.episode``: ``row``, ``col`` and, where the game has it, ``present``): the model
    shows the episode's places as cells (``model.show``), and an agent moved by hand
    (``agent.cell = model.grid[(row, col)]``, or None: off the grid) moves there, so that the
    next phase plays it where it stands."""

    @property
    def cell(self):
        return self._mesa_cell

    @cell.setter
    def cell(self, cell):
        HasCell.cell.fset(self, cell)
        episode = getattr(self.model, "episode", None)
        if episode is None:
            return
        seat, present = self.seat, cell is not None
        place = {"row": cell.coordinate[0], "col": cell.coordinate[1]} if present else {}
        if "present" in episode.state:
            place["present"] = present
        for field, value in place.items():
            values = getattr(episode, field)
            if values[0, seat] != value:
                values = values.copy()
                values[0, seat] = value
                setattr(episode, field, values)


def walled_grid(height: int, width: int, random) -> OrthogonalVonNeumannGrid:
    """A grid whose border cells are walls: the bool property layer ``wall``."""
    grid = OrthogonalVonNeumannGrid((height, width), torus=False, random=random)
    wall = grid.create_property_layer("wall", default_value=False, dtype=bool)
    wall.data[[0, -1], :] = True
    wall.data[:, [0, -1]] = True
    return grid


def layer_of(grid, name: str, data: np.ndarray) -> np.ndarray:
    """A property layer ``name`` of ``grid`` whose array is ``data`` itself (a view of a
    larger array, such as one world's of an episode's), so that the layer and the array
    change together; returns ``data``."""
    layer = PropertyLayer(name, grid.dimensions, default_value=data.dtype.type(0),
                          dtype=data.dtype.type)
    layer._data = data  # Mesa binds the cells' accessors to this very array
    grid.add_property_layer(layer)
    return data


def open_cells(grid) -> list[tuple[int, int]]:
    """Coordinates of the cells that are not walls, in row-major order."""
    return [tuple(map(int, rc)) for rc in np.argwhere(~grid.wall.data)]


def window(codes: np.ndarray, row: int, col: int, radius: int, outside: int) -> np.ndarray:
    """The ``(2r+1, 2r+1)`` codes centred on ``(row, col)``; off-grid cells read ``outside``."""
    padded = np.pad(codes, radius, constant_values=outside)
    return padded[row:row + 2 * radius + 1, col:col + 2 * radius + 1]


def one_hot(codes: np.ndarray, channels: int) -> np.ndarray:
    """``codes`` of shape (rows, cols) as float32 of shape (rows, cols, channels)."""
    return np.eye(channels, dtype=np.float32)[codes]
