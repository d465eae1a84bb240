"""The Bucket Brigade night over arrays of episodes: the one implementation of its rules.

docs/rules/bucket_brigade.md, "Round", phases 4-8, "Rewards", "Termination" and "Data
collected". Every function is pure: it takes the house states of ``E`` episodes as an int8
array ``houses`` of shape ``(E, num_houses)`` (SAFE 0, BURNING 1, RUINED 2) and returns new
arrays, written with what numpy and ``jax.numpy`` share (``dilemmas.models.xp``). So
``BucketBrigadeModel`` plays one episode with numpy arrays and ``E = 1``, and the batch
engine (``dilemmas.models.bucket_brigade.batch``) plays thousands at once with the same
functions compiled by JAX.

Randomness comes in as arrays of uniform numbers in [0, 1) that the caller draws (the Mesa
model from ``model.rng``, the engine from its JAX key), one per chance the rules give,
whether or not that chance comes up tonight: ``extinguish`` one per house (``(E,
num_houses)``), ``spread`` two per house (``(E, num_houses, 2)``: its chance from its left
neighbour, ``FROM_LEFT``, and from its right one, ``FROM_RIGHT``), ``spark`` one per house.
Each chance has its own number, so it has the probability the rules give it whatever
happens elsewhere (docs/rules/bucket_brigade.md, "Random numbers").
"""

import math
from typing import NamedTuple

import numpy as np

from dilemmas.models.xp import fori, namespace, python_sum, set_at, smallest

SAFE, BURNING, RUINED = 0, 1, 2
#: Which of a house's two numbers in ``spread`` decides which neighbour's chance.
FROM_LEFT, FROM_RIGHT = 0, 1


def ownership(num_houses: int, num_agents: int) -> np.ndarray:
    """``owns[i, h]``: house ``h`` belongs to seat ``i``, that is ``h mod num_agents == i``
    (``(num_agents, num_houses)`` booleans)."""
    return np.arange(num_houses) % num_agents == np.arange(num_agents)[:, None]


def extinguish_probabilities(kappa: float, num_agents: int) -> np.ndarray:
    """``1 - exp(-kappa * k)`` for each number ``k`` of workers at one house, from 0 to
    ``num_agents``."""
    return np.array([1 - math.exp(-kappa * k) for k in range(num_agents + 1)])


def ignite(uniforms, fires: int):
    """The houses at the start: ``fires`` of them BURNING, chosen uniformly without
    replacement in each episode (those with the ``fires`` smallest of one uniform number
    per house)."""
    xp = namespace(uniforms)
    return xp.where(smallest(uniforms, fires), BURNING, SAFE).astype(xp.int8)


def workers_at(locations, working, num_houses: int):
    """``(E, num_houses)``: the agents WORKing at each house (``locations`` and ``working``
    are ``(E, num_agents)``)."""
    xp = namespace(locations, working)
    return ((locations[:, :, None] == xp.arange(num_houses)) & working[:, :, None]).sum(axis=1)


def extinguish(houses, locations, working, p_extinguish, uniforms):
    """Phase 4: with ``k`` agents WORKing at a BURNING house, it becomes SAFE if its number
    is below ``1 - exp(-kappa * k)`` (``p_extinguish[k]``)."""
    xp = namespace(houses, uniforms)
    workers = workers_at(locations, working, houses.shape[1])
    saved = (houses == BURNING) & (uniforms < xp.asarray(p_extinguish)[workers])
    return xp.where(saved, SAFE, houses)


def spread(houses, beta, spec: bool, uniforms):
    """Phase 5: a SAFE house catches fire from a spreading neighbour if its number for that
    neighbour (``FROM_LEFT``: house ``h - 1``; ``FROM_RIGHT``: house ``h + 1``) is below
    ``beta``. Returns the houses and the spreaders (for ``burn_out``).

    ``spec``: the spreaders are the houses BURNING at the start of the phase, and a house
    lit now does not spread tonight. Reference rules: the houses take their turns in index
    order, and a house BURNING when its turn comes spreads, left neighbour first, so fire
    runs along the ring in one night."""
    xp = namespace(houses, uniforms)
    spreaders = houses == BURNING
    caught = uniforms < beta
    if spec:
        from_left = xp.concatenate((spreaders[:, -1:], spreaders[:, :-1]), axis=1)
        from_right = xp.concatenate((spreaders[:, 1:], spreaders[:, :1]), axis=1)
        lit = (from_left & caught[..., FROM_LEFT]) | (from_right & caught[..., FROM_RIGHT])
        return xp.where(lit & (houses == SAFE), BURNING, houses), spreaders
    n = houses.shape[1]

    def turn(h, houses):
        here = houses[:, h] == BURNING
        for neighbour, side in (((h - 1) % n, FROM_RIGHT), ((h + 1) % n, FROM_LEFT)):
            lit = here & (houses[:, neighbour] == SAFE) & caught[:, neighbour, side]
            houses = set_at(houses, (slice(None), neighbour),
                            xp.where(lit, BURNING, houses[:, neighbour]))
        return houses

    return fori(0, n, turn, houses, xp), spreaders


def burn_out(houses, spreaders, spec: bool):
    """Phase 6: ``spec``: every spreader becomes RUINED; reference: every BURNING house."""
    xp = namespace(houses)
    return xp.where(spreaders if spec else houses == BURNING, RUINED, houses)


def spark(houses, p_spark, uniforms):
    """Phase 7 (on nights up to ``N_spark``): a SAFE house whose number is below
    ``p_spark`` starts to burn."""
    xp = namespace(houses, uniforms)
    return xp.where((houses == SAFE) & (uniforms < p_spark), BURNING, houses)


def counts(houses):
    """``(E, 3)``: houses SAFE, BURNING and RUINED in each episode."""
    xp = namespace(houses)
    return (houses[:, :, None] == xp.arange(3)).sum(axis=1)


#: The order of the reward weights in the array ``rewards`` takes.
WEIGHTS = ("r_rest", "alpha_own", "A", "L", "gamma", "lambda_own")


def rewards(before, after, owns, working, work_costs, weights, spec: bool, final):
    """Phase 8, "Rewards": ``(night_rewards, terms)``, each ``(E, num_agents)``: each
    agent's reward for the night, and its end-of-game term (zero unless ``final[e]``; this
    project's rules only).

    Each agent gets ``-c_i`` working or ``+r_rest`` resting, plus ``alpha_own`` per owned
    house that became SAFE tonight, minus (``spec``) ``alpha_own`` per owned house SAFE at
    the start of the night and not now. The town term ``gamma * town - lambda_own * (owned
    houses RUINED)`` is paid every night under the reference rules, and once, on the last
    night, under this project's. ``owns`` is ``ownership``; ``work_costs`` the array of
    each seat's ``c_i``; ``weights`` the numbers of the parameters named in ``WEIGHTS``."""
    xp = namespace(before, after, working)
    r_rest, alpha_own, A, L, gamma, lambda_own = weights
    n = after.shape[1]
    was, now = before == SAFE, after == SAFE
    change = now * 1 - was if spec else (now & ~was) * 1
    gained = change @ owns.T
    lost = after == RUINED
    ruined = (lost * 1) @ owns.T
    town = (A * now.sum(axis=1) - L * lost.sum(axis=1)) / n
    paid = xp.where(working, -work_costs, r_rest)
    night_rewards = paid + alpha_own * gained
    term = gamma * town[:, None] - lambda_own * ruined
    if not spec:
        return night_rewards + term, xp.zeros_like(night_rewards)
    return night_rewards, xp.where(final[:, None], term, 0.0)


def rules_end(houses, night, N_min: int, spec: bool):
    """Per episode: after night ``t >= N_min`` (reference: ``t >= N_min + 1``) the game
    ends once no house burns."""
    return (night >= (N_min if spec else N_min + 1)) & ~(houses == BURNING).any(axis=1)


class Tally(NamedTuple):
    """What the game has added up so far, per episode: each agent's reward ``(E,
    num_agents)``, the sum of everyone's, worker-nights and lies."""

    rewards: object
    total_reward: object
    worker_nights: object
    cumulative_lies: object


def start_tally(episodes: int, agents: int, xp=np) -> Tally:
    zero = xp.zeros(episodes, dtype=int)
    return Tally(xp.zeros((episodes, agents)), xp.zeros(episodes), zero, zero)


def add_up(tally: Tally, night_rewards, terms, working, lied) -> Tally:
    """Phase 8, the log: tonight's rewards and then the end-of-game terms join each agent's
    and the total (each added up over the seats as Python's ``sum`` does); tonight's workers
    and lies join their counts."""
    total = tally.total_reward + python_sum(night_rewards) + python_sum(terms)
    return Tally(tally.rewards + night_rewards + terms, total,
                 tally.worker_nights + working.sum(axis=1),
                 tally.cumulative_lies + lied.sum(axis=1))


def reporters(night, houses, signals, working, lied, burning_at_start, tally: Tally, A, L, c):
    """The model reporters (docs/rules/bucket_brigade.md, "Data collected"), name -> ``(E,)``
    array, in ``MODEL_REPORTERS`` order, after night ``night`` (0: the start, when
    ``signals``, ``working`` and ``lied`` are all False)."""
    xp = namespace(houses, working)
    k, n = working.shape[1], houses.shape[1]
    safe, burning, ruined = counts(houses).T
    workers = working.sum(axis=1)
    lies = lied.sum(axis=1)
    work_rate = workers / k
    return {
        "night": xp.zeros_like(workers) + night, "burning": burning, "safe": safe,
        "ruined": ruined, "workers": workers, "work_rate": work_rate,
        "signals_work": signals.sum(axis=1), "lies": lies, "lie_rate": lies / k,
        "cooperation_rate": xp.where(burning_at_start, work_rate, math.nan),
        "cumulative_lies": tally.cumulative_lies,
        "team_reward": (A * safe - L * ruined) / n - c * tally.worker_nights,
        "mean_reward": tally.total_reward / k,
    }
