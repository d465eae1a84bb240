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

from dilemmas.models.stag_hunt.rules import (_RESOURCE_CHANNEL, DIRECTIONS, EMPTY, KIND_CHANNEL,
                                             MOVE_TURNS, TURN_LEFT, TURN_RIGHT, WALL, _rays)
from dilemmas.models.xp import counts_per_row, namespace, repeat_while, set_at


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


def _shifted(cells, direction: int, fill):
    """``(E, height, width)``: at each cell, the value of ``cells`` at its neighbour in
    ``direction`` (``DIRECTIONS``), ``fill`` beyond the map's edge."""
    xp = namespace(cells)
    d_row, d_col = DIRECTIONS[direction]
    edge_row = xp.full_like(cells[:, :1], fill)
    edge_col = xp.full_like(cells[:, :, :1], fill)
    if d_row == -1:
        cells = xp.concatenate((edge_row, cells[:, :-1]), axis=1)
    elif d_row == 1:
        cells = xp.concatenate((cells[:, 1:], edge_row), axis=1)
    if d_col == -1:
        cells = xp.concatenate((edge_col, cells[:, :, :-1]), axis=2)
    elif d_col == 1:
        cells = xp.concatenate((cells[:, :, 1:], edge_col), axis=2)
    return cells


#: The move that goes ``turns`` quarter turns clockwise of the facing, and the turn that
#: faces that way (NOOP's place: already facing it).
_MOVE_BY_TURNS = np.array([next(a for a, t in MOVE_TURNS.items() if t == turns)
                           for turns in range(4)])
_FACE_BY_TURNS = np.array([-1, TURN_RIGHT, TURN_RIGHT, TURN_LEFT])


def approach(free, targets, row, col, orientation):
    """``(E,)``: each agent's action toward the nearest of its ``targets`` ``(E, height,
    width)`` by path over ``free`` cells, -1 for none (docs/rules/stag_hunt.md, "Behaviours",
    *Approach*): the breadth-first search of the rules, neighbours in the order N, E, S, W,
    played layer by layer. A cell's place in the search's queue is its parent's place, then
    the direction from the parent; the first cell taken from the queue with a target beside
    it decides: at the agent's own cell, the turn that faces the first such target (-1 if
    already facing it), elsewhere the move of the path's first step."""
    xp = namespace(free, row)
    episodes, height, width = free.shape
    cells = height * width
    everywhere = xp.arange(cells).reshape(1, height, width)
    start = everywhere == (row * width + col)[:, None, None]
    beside = xp.stack([_shifted(targets, d, False) for d in range(4)], axis=-1)
    never = cells * 4 + 4                        # above every place in the queue

    def undecided(carry):
        current, _, _, _, answer = carry
        return (current.any(axis=(1, 2)) & (answer == -2)).any()

    def layer(carry):
        current, place, first, seen, answer = carry
        found = current & beside.any(axis=-1)
        chosen = found & (place == xp.where(found, place, never).min(axis=(1, 2),
                                                                         keepdims=True))
        at_start = (chosen & start).any(axis=(1, 2))
        step = xp.where(chosen, first, 0).sum(axis=(1, 2))
        facing = xp.argmax((beside & start[..., None]).any(axis=(1, 2)), axis=-1)
        turns = (xp.where(at_start, facing, step) - orientation) % 4
        action = xp.where(at_start, xp.asarray(_FACE_BY_TURNS)[turns],
                          xp.asarray(_MOVE_BY_TURNS)[turns])
        answer = xp.where((answer == -2) & found.any(axis=(1, 2)), action, answer)
        key, inherited = xp.full(current.shape, never), xp.zeros(current.shape, dtype=int)
        for direction in range(4):   # the parent one step against ``direction``
            parent = _shifted(current, (direction + 2) % 4, False)
            parent_key = _shifted(place, (direction + 2) % 4, never) * 4 + direction
            parent_first = xp.where(_shifted(start, (direction + 2) % 4, False), direction,
                                    _shifted(first, (direction + 2) % 4, 0))
            better = parent & (parent_key < key)
            key = xp.where(better, parent_key, key)
            inherited = xp.where(better, parent_first, inherited)
        new = free & ~seen & (key < never)
        order = xp.argsort(xp.where(new, key, never).reshape(episodes, -1), axis=1)
        rank = xp.argsort(order, axis=1).reshape(current.shape)
        return (new, xp.where(new, rank, place), xp.where(new, inherited, first), seen | new,
                answer)

    carry = (start, xp.zeros(start.shape, dtype=int), xp.zeros(start.shape, dtype=int), start,
             xp.full(episodes, -2))
    answer = repeat_while(undecided, layer, carry, xp)[-1]
    return xp.where(answer == -2, -1, answer)
