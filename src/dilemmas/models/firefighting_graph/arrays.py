"""The Firefighting Graph step over arrays of episodes: the one implementation of its rules.

docs/rules/firefighting_graph.md, "Round", phases 2-5. Every function takes the fire
levels of ``E`` episodes as an int64 array ``levels`` of shape ``(E, rows, cols)`` and the
house each firefighter visits as ``cells`` ``(E, firefighters)``: its place in
``levels.reshape(-1)``, that is its row-major house number plus ``e * houses`` in episode
``e`` (``cells_of``; for one episode, the house numbers themselves). So
``FirefightingGraphModel`` plays one episode with ``E = 1`` and
``dilemmas.models.firefighting_graph.batch`` plays thousands at once with the same code.
Randomness comes in as arrays of uniform numbers drawn by the caller from the model's own
generator: one per house for the transition, one per firefighter for its observation.
"""

from typing import NamedTuple

import numpy as np


class Tables(NamedTuple):
    """The transition table by case = crew * 4 + burning * 2 + burning neighbour, with crew
    0, 1 or 2 (two or more): the probability of the case's effect and its step (+1, -1, or
    "put out", clipped to 0); the crew part of the case (0, 4 or 8) by the number of
    firefighters at a house; P(flames seen) at level 0, 1 and 2 or more; the top level."""

    probability: np.ndarray
    step: np.ndarray
    crew_case: np.ndarray
    observe: np.ndarray
    max_fire_level: int


def tables(p_ignite, p_grow_alone, p_grow_neighbour, p_reduce_alone, p_reduce_neighbour,
           p_two_agents, p_observe, max_fire_level, firefighters) -> Tables:
    """The rules' table ("Transition") from the game's parameters."""
    probability = np.array([
        0.0, p_ignite, p_grow_alone, p_grow_neighbour,                 # no firefighter
        0.0, 0.0, p_reduce_alone, p_reduce_neighbour,                  # one
        0.0, 0.0, p_two_agents, p_two_agents])                         # two or more
    out = -(max_fire_level + 1)
    step = np.array([1, 1, 1, 1, -1, -1, -1, -1, out, out, out, out])
    crew_case = np.minimum(np.arange(firefighters + 1), 2) * 4
    return Tables(probability, step, crew_case, np.array(p_observe), max_fire_level)


def cells_of(visited: np.ndarray, houses: int) -> np.ndarray:
    """``(E, firefighters)``: the place in ``levels.reshape(-1)`` of each visited house."""
    return visited + (np.arange(visited.shape[0]) * houses)[:, None]


def crews(cells: np.ndarray, houses: int) -> np.ndarray:
    """``(E, houses)``: firefighters at each house."""
    episodes = cells.shape[0]
    return np.bincount(cells.ravel(), minlength=episodes * houses).reshape(episodes, houses)


def transition(levels, crew_counts, table: Tables, uniforms) -> None:
    """Phase 2, for all houses of all episodes at once, from the state before this step:
    each house falls in one case -- firefighters 0, 1 or 2+, burning or not, a burning
    neighbour (above, below, left or right) or not -- which gives the probability of that
    case's effect (+1, -1 or put out); the house's number (``uniforms``, shaped like
    ``levels``) decides whether it happens; ``crew_counts`` ``(E, houses)`` are the
    firefighters at each house (``crews``). Changes ``levels`` in place."""
    episodes, rows, cols = levels.shape
    lit = levels > 0
    padded = np.zeros((episodes, rows + 2, cols + 2), dtype=bool)
    padded[:, 1:-1, 1:-1] = lit
    near = (padded[:, :-2, 1:-1] | padded[:, 2:, 1:-1]
            | padded[:, 1:-1, :-2] | padded[:, 1:-1, 2:])
    crew = table.crew_case[crew_counts]
    case = crew.reshape(levels.shape) + (lit * 2 + near)
    happens = uniforms < table.probability[case]
    after = np.maximum(levels + happens * table.step[case], 0)
    np.minimum(after, table.max_fire_level, out=levels)


def observe(levels, cells, table: Tables, uniforms) -> np.ndarray:
    """Phase 3: ``(E, firefighters)``, 1 if the firefighter sees flames at its house (its
    number below ``p_observe[min(level, 2)]``), else 0."""
    seen = np.minimum(levels.reshape(-1)[cells], 2)
    return (uniforms < table.observe[seen]).astype(np.int64)


def reward(levels, cells, shared: bool) -> np.ndarray:
    """Phase 4: ``(E, firefighters)`` rewards of the step: minus the level of the house
    visited, or with ``shared`` minus the total of the levels."""
    if shared:
        return np.broadcast_to(-totals(levels)[:, None], cells.shape)
    return -levels.reshape(-1)[cells]


def totals(levels) -> np.ndarray:
    """``(E,)``: the sum of the levels of each episode."""
    return levels.reshape(levels.shape[0], -1).sum(axis=1)


def ends(total_fire, t: int, max_steps: int):
    """Phase 5: whether an episode ends, from its total fire (``totals``): every house at 0,
    or ``max_steps`` steps played. Per episode for an array of totals, a bool for one."""
    return (total_fire == 0) | (t >= max_steps)


def doubled(crew_counts) -> np.ndarray:
    """Per episode: houses with two or more firefighters (``crew_counts`` from ``crews``)."""
    return np.count_nonzero(crew_counts >= 2, axis=1)
