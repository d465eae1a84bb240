"""The Firefighting Graph step over arrays of episodes: the one implementation of its rules.

docs/rules/firefighting_graph.md, "Round", phases 2-5. Every function is pure and
takes the fire levels of ``E`` episodes as an integer array ``levels`` of shape ``(E, rows,
cols)`` and the house each firefighter visits (row-major number) as ``visited`` ``(E,
firefighters)``, written with what numpy and ``jax.numpy`` share (``dilemmas.models.xp``).
So ``FirefightingGraphModel`` plays one episode with numpy arrays and ``E = 1``, and
``dilemmas.models.firefighting_graph.batch`` plays thousands at once with the same
functions compiled by JAX.
Randomness comes in as arrays of uniform numbers drawn by the caller from the model's own
generator: one per house for the transition, one per firefighter for its observation.
"""

import math
from typing import NamedTuple

import numpy as np

from dilemmas.models.xp import counts_per_row, namespace


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


def crews(visited, houses: int):
    """``(E, houses)``: firefighters at each house (``visited``: ``(E, firefighters)``, the
    house each visits)."""
    return counts_per_row(visited, houses)


def transition(levels, crew_counts, table: Tables, uniforms):
    """Phase 2, for all houses of all episodes at once, from the state before this step:
    each house falls in one case -- firefighters 0, 1 or 2+, burning or not, a burning
    neighbour (above, below, left or right) or not -- which gives the probability of that
    case's effect (+1, -1 or put out); the house's number (``uniforms``, shaped like
    ``levels``) decides whether it happens; ``crew_counts`` ``(E, houses)`` are the
    firefighters at each house (``crews``). Returns the new levels."""
    xp = namespace(levels, uniforms)
    lit = levels > 0
    edge_row, edge_col = xp.zeros_like(lit[:, :1]), xp.zeros_like(lit[:, :, :1])
    near = (xp.concatenate((edge_row, lit[:, :-1]), axis=1)           # the house above burns
            | xp.concatenate((lit[:, 1:], edge_row), axis=1)          # below
            | xp.concatenate((edge_col, lit[:, :, :-1]), axis=2)      # left
            | xp.concatenate((lit[:, :, 1:], edge_col), axis=2))      # right
    crew = xp.asarray(table.crew_case)[crew_counts]
    case = crew.reshape(levels.shape) + (lit * 2 + near)
    happens = uniforms < xp.asarray(table.probability)[case]
    after = xp.maximum(levels + happens * xp.asarray(table.step)[case], 0)
    return xp.minimum(after, table.max_fire_level)


def at_visited(levels, visited):
    """``(E, firefighters)``: the level of the house each firefighter visits."""
    xp = namespace(levels, visited)
    episodes = levels.shape[0]
    return levels.reshape(episodes, -1)[xp.arange(episodes)[:, None], visited]


def observe(levels, visited, table: Tables, uniforms):
    """Phase 3: ``(E, firefighters)``, 1 if the firefighter sees flames at its house (its
    number below ``p_observe[min(level, 2)]``), else 0."""
    xp = namespace(levels, uniforms)
    seen = xp.minimum(at_visited(levels, visited), 2)
    return (uniforms < xp.asarray(table.observe)[seen]).astype(int)


def reward(levels, visited, shared: bool):
    """Phase 4: ``(E, firefighters)`` rewards of the step: minus the level of the house
    visited, or with ``shared`` minus the total of the levels."""
    xp = namespace(levels)
    if shared:
        return xp.broadcast_to(-totals(levels)[:, None], visited.shape)
    return -at_visited(levels, visited)


def totals(levels):
    """``(E,)``: the sum of the levels of each episode."""
    return levels.reshape(levels.shape[0], -1).sum(axis=1)


def ends(total_fire, t, max_steps: int):
    """Phase 5: whether an episode ends, from its total fire (``totals``): every house at 0,
    or ``max_steps`` steps played."""
    return (total_fire == 0) | (t >= max_steps)


def reporters(t, levels, crew_counts, observations, rewards):
    """The model reporters (docs/rules/firefighting_graph.md, "Data collected"), name ->
    ``(E,)`` array, after step ``t`` (0: the start; ``rewards`` are cumulative)."""
    xp = namespace(levels, rewards)
    flat = levels.reshape(levels.shape[0], -1)
    total, k = flat.sum(axis=1), rewards.shape[1]
    first = t == 0
    return {
        "step": xp.zeros_like(total) + t, "mean_fire": total / flat.shape[1],
        "max_fire": flat.max(axis=1), "burning_houses": xp.count_nonzero(flat, axis=1),
        "total_fire": total,
        "doubled_houses": xp.where(first, 0, xp.count_nonzero(crew_counts >= 2, axis=1)),
        "mean_reward": rewards.sum(axis=1) / k,
        "flame_rate": xp.where(first, math.nan, xp.count_nonzero(observations, axis=1) / k),
    }
