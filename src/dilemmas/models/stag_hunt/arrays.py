"""Stag Hunt Physical over arrays of episodes: the first of its rules written once.

docs/rules/stag_hunt.md, "Actions" (footprints) and "Observations". Work in progress
(issue 27): these functions are checked against ``StagHuntModel``, which does not call them
yet; the turn itself (moves, attacks, kills and shares, punishment, removals, healing and
regrowth) and the batch engine come next.

Every function is pure and written with what numpy and ``jax.numpy`` share
(``dilemmas.models.xp``). The agents are given per episode as arrays ``(E, n)`` of rows,
columns and orientations; the walls as ``(E, height, width)`` booleans.
"""

from typing import NamedTuple

import numpy as np

from dilemmas.models.stag_hunt.rules import (_RESOURCE_CHANNEL, EMPTY, KIND_CHANNEL, WALL,
                                             _rays)
from dilemmas.models.xp import counts_per_row, namespace, set_at


class Rays(NamedTuple):
    """A footprint (``rules._rays``) as arrays, per orientation, ray and step along the ray
    (rays padded to one length): the cell's offset, whether it is hit, and whether the step
    exists (a padding step stops the ray)."""

    row: np.ndarray     # (4, rays, steps)
    col: np.ndarray
    hits: np.ndarray
    steps: np.ndarray


def rays(mode: str, attack_range: int, beam_length: int, beam_radius: int) -> Rays:
    """The ``Rays`` of a footprint (``mode``: an attack mode, or ``"punish"``)."""
    table = _rays(mode, attack_range, beam_length, beam_radius)
    length = max(len(ray) for ray in table[0])
    shape = (4, len(table[0]), length)
    row, col = np.zeros(shape, dtype=int), np.zeros(shape, dtype=int)
    hits, steps = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
    for o, per_orientation in enumerate(table):
        for r, ray in enumerate(per_orientation):
            for s, (d_row, d_col, hit) in enumerate(ray):
                row[o, r, s], col[o, r, s], hits[o, r, s], steps[o, r, s] = d_row, d_col, hit, True
    return Rays(row, col, hits, steps)


def footprints(walls, row, col, orientation, table: Rays):
    """``(E, n, height, width)``: the cells each of the ``n`` agents' footprint covers now
    ("Footprints"): along each ray, the cells up to its first wall or the map's edge, those
    the footprint hits."""
    xp = namespace(walls, row)
    episodes, height, width = walls.shape
    n = row.shape[1]
    rows = row[..., None, None] + xp.asarray(table.row)[orientation]      # (E, n, rays, steps)
    cols = col[..., None, None] + xp.asarray(table.col)[orientation]
    on_map = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
    inside_rows, inside_cols = xp.clip(rows, 0, height - 1), xp.clip(cols, 0, width - 1)
    wall = walls[xp.arange(episodes)[:, None, None, None], inside_rows, inside_cols]
    stops = ~on_map | wall | ~xp.asarray(table.steps)[orientation]
    reached = xp.cumsum(stops, axis=-1) == 0
    hit = reached & xp.asarray(table.hits)[orientation]
    cells = height * width
    agent = xp.arange(n)[None, :, None, None]
    index = xp.where(hit, agent * cells + inside_rows * width + inside_cols, n * cells)
    counts = counts_per_row(index.reshape(episodes, -1), n * cells + 1)[:, :n * cells]
    return counts.reshape(episodes, n, height, width) > 0


def codes(walls, resources, row, col, kind, present):
    """``(E, height, width)``: every cell as its observation channel: 0 empty, 1 wall, 2
    stag, 3 hare, ``4 + i`` an agent of kind ``model.kinds[i]`` (``kind`` ``(E, n)``, the
    index of each agent's kind; ``present`` ``(E, n)``, whether it is on the grid)."""
    xp = namespace(walls, row)
    cells = xp.where(walls, WALL, xp.asarray(_RESOURCE_CHANNEL)[resources])
    episodes = xp.arange(walls.shape[0])[:, None]
    here = xp.where(present, row * walls.shape[2] + col, walls.shape[1] * walls.shape[2])
    flat = xp.concatenate([cells.reshape(walls.shape[0], -1),
                           xp.full((walls.shape[0], 1), EMPTY, dtype=cells.dtype)], axis=1)
    flat = set_at(flat, (episodes, here), KIND_CHANNEL + kind)
    return flat[:, :-1].reshape(walls.shape)


def views(cells, attack_beam, punish_beam, row, col, radius: int, channels: int):
    """``(E, n, 2r + 1, 2r + 1, channels)`` float32 ("Observations", ``view``): the window of
    radius ``radius`` centred on each agent, one-hot over its cells' channels (``cells``
    from ``codes``, off the map a wall), then the attack and punish beams of this turn
    (``(E, height, width)`` booleans; off the map, none)."""
    xp = namespace(cells, row)
    episodes, height, width = cells.shape
    offsets = xp.arange(-radius, radius + 1)
    rows, cols = row[..., None] + offsets, col[..., None] + offsets        # (E, n, side)
    on_map = (((rows >= 0) & (rows < height))[..., :, None]
              & ((cols >= 0) & (cols < width))[..., None, :])
    where = (xp.arange(episodes)[:, None, None, None],
             xp.clip(rows, 0, height - 1)[..., :, None], xp.clip(cols, 0, width - 1)[..., None, :])
    seen = xp.where(on_map, cells[where], WALL)
    one_hot = seen[..., None] == xp.arange(channels - 2)
    beams = xp.stack([on_map & attack_beam[where], on_map & punish_beam[where]], axis=-1)
    return xp.concatenate([one_hot, beams], axis=-1).astype(xp.float32)


def positions(row, col, height: int, width: int, embedding_size: int):
    """``(E, n, embedding_size ** 2)`` float32 ("Observations", ``position``): the part of the
    ``n x n`` partition of the world each agent stands in, one-hot."""
    xp = namespace(row)
    n = embedding_size
    part = (row * n // height) * n + col * n // width
    return (part[..., None] == xp.arange(n * n)).astype(xp.float32)
