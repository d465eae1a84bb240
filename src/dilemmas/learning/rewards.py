"""The rewards a deep learner trains on (docs/rules/README.md, "Training rewards").

``reward`` names what each learning seat maximises, from the learning seats' own rewards
``r`` (the environment's, since each seat's previous decision) of one decision:

* ``own`` -- ``r_i``;
* ``team`` -- the game's team reward where its rules define one (its registration's
  ``team_reward`` column, reported as it would stand if the episode ended now): each seat is
  paid the column's change since the previous decision, so an episode's return is the column
  at its end (the column's value before the first decision counted as 0);
* ``mean`` -- the mean of the learning seats' ``r``;
* ``prosocial`` -- ``r_i + w_i * sum_{j != i} r_j`` (Peysakhovich and Lerer 2018), ``w`` the
  ``prosociality``, one number or one per learning seat;
* ``inequity_aversion`` -- Fehr and Schmidt's utility as Hughes et al. (2018) train on it:
  ``r_i - alpha_i / (N - 1) * sum_j max(e_j - e_i, 0) - beta_i / (N - 1) * sum_j max(e_i - e_j,
  0)`` over the ``N`` learning seats, ``e_j = smoothing * e_j + r_j`` each decision (0 at an
  episode's start; ``inequity_smoothing`` 0: this decision's rewards), ``alpha``
  (``inequity_alpha``, disadvantageous inequity) and ``beta`` (``inequity_beta``,
  advantageous) one number or one per learning seat.

Scripted background seats are not learning seats: their rewards enter none of these.
"""

import math
from typing import Any, NamedTuple

REWARDS = ("own", "team", "mean", "prosocial", "inequity_aversion")
#: The names of earlier versions, refused with the name that replaced them.
RENAMED = {"individual": "own", "shared": "mean"}
#: The weights, by key: ``(the reward they belong to, low, high)``, the range ``low <= w <
#: high``; each weight is one number or one per learning seat.
WEIGHTS = {"prosociality": ("prosocial", 0, math.inf),
           "inequity_alpha": ("inequity_aversion", 0, math.inf),
           "inequity_beta": ("inequity_aversion", 0, math.inf),
           "inequity_smoothing": ("inequity_aversion", 0, 1)}


def check(reward: str, weights: dict) -> dict:
    """The ``WEIGHTS`` of ``reward`` checked, each a float or a tuple of floats (one per
    seat); a ValueError naming the key."""
    if reward in RENAMED:
        raise ValueError(f"reward={reward!r} is now called {RENAMED[reward]!r} "
                         f"(allowed: {list(REWARDS)})")
    if reward not in REWARDS:
        raise ValueError(f"reward={reward!r} is invalid: allowed: {list(REWARDS)}")
    checked = {}
    for key, (owner, low, high) in WEIGHTS.items():
        value = weights.get(key, 0.0)
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        if not values or any(isinstance(v, bool) or not isinstance(v, (int, float))
                             or not math.isfinite(v) or not low <= v < high for v in values):
            span = f"from {low} to below {high}" if high < math.inf else f">= {low}"
            raise ValueError(f"{key}={value!r} must be a finite number {span}, or a list of "
                             "them (one per learning seat)")
        if owner != reward and any(values):
            raise ValueError(f"{key}={value!r} is only for reward={owner!r}")
        checked[key] = tuple(map(float, values)) if isinstance(value, (list, tuple)) \
            else float(value)
    return checked


def per_seat(key: str, value, seats: int):
    """``value`` (a number or one per seat) as ``seats`` numbers; a ValueError if a list is
    not one per learning seat."""
    import numpy as np

    if isinstance(value, tuple):
        if len(value) != seats:
            raise ValueError(f"{key}={list(value)!r} gives {len(value)} values for "
                             f"{seats} learning seats")
        return np.asarray(value, np.float32)
    return np.full(seats, value, np.float32)


class Shaping(NamedTuple):
    """What the rewards carry between decisions of each episode (a pytree)."""

    team: Any     # (envs,) the team reward column after the previous decision
    traces: Any   # (envs, seats) the smoothed rewards e of inequity aversion


class Objective:
    """``reward`` with its weights for ``seats`` learning seats of ``game``: ``start(envs)``
    the shaping of fresh episodes, ``__call__(rewards, columns, shaping, ended)`` the rewards
    trained on ``(envs, seats)`` and the shaping after the decision."""

    def __init__(self, reward: str, weights: dict, seats: int, game):
        self.reward, self.seats = reward, seats
        self.column = getattr(game, "team_reward", None)
        if reward == "team" and self.column is None:
            raise ValueError(f"reward='team': the rules of {game.name} define no team reward "
                             "(allowed here: "
                             f"{[r for r in REWARDS if r != 'team']})")
        if reward == "inequity_aversion" and seats < 2:
            raise ValueError("reward='inequity_aversion' compares learning seats: it needs at "
                             f"least 2, not {seats}")
        self.weights = {key: per_seat(key, value, seats) for key, value in weights.items()}

    def start(self, envs: int) -> Shaping:
        import jax.numpy as jnp

        return Shaping(jnp.zeros(envs), jnp.zeros((envs, self.seats)))

    def __call__(self, rewards, columns: dict, shaping: Shaping, ended):
        import jax.numpy as jnp

        team, traces = shaping
        if self.reward == "own":
            shaped = rewards
        elif self.reward == "team":
            now = columns[self.column].astype(rewards.dtype)
            shaped = jnp.broadcast_to((now - team)[..., None], rewards.shape)
            team = now
        elif self.reward == "mean":
            shaped = jnp.broadcast_to(rewards.mean(axis=-1, keepdims=True), rewards.shape)
        elif self.reward == "prosocial":
            others = rewards.sum(axis=-1, keepdims=True) - rewards
            shaped = rewards + self.weights["prosociality"] * others
        else:
            w = self.weights
            traces = w["inequity_smoothing"] * traces + rewards
            ahead = traces[..., None, :] - traces[..., :, None]  # [i, j]: e_j - e_i
            envy = jnp.maximum(ahead, 0).sum(axis=-1) / (self.seats - 1)
            guilt = jnp.maximum(-ahead, 0).sum(axis=-1) / (self.seats - 1)
            shaped = rewards - w["inequity_alpha"] * envy - w["inequity_beta"] * guilt
        fresh = ended[..., None]
        return shaped, Shaping(jnp.where(ended, 0.0, team),
                               jnp.where(fresh, 0.0, traces))
