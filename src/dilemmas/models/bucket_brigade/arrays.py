"""The Bucket Brigade night over arrays of episodes: the one implementation of its rules.

docs/rules/bucket_brigade.md, "Round", phases 4-8, "Rewards" and "Termination". Every
function takes the house states of ``E`` episodes as an int8 array ``houses`` of shape
``(E, num_houses)`` (SAFE 0, BURNING 1, RUINED 2) and changes it in place or returns
per-episode results, so ``BucketBrigadeModel`` plays one episode with ``E = 1`` and
``dilemmas.models.bucket_brigade.batch`` plays thousands at once with the same code. The functions
are compiled by Numba, so a loop over houses costs what it would in C, for one episode as
for many.

Randomness comes in as arrays of uniform numbers in [0, 1) that the caller draws from the
model's own generator (``model.rng``), one per chance the rules give, whether or not that
chance comes up tonight: ``extinguish`` one per house (``(E, num_houses)``), ``spread`` two
per house (``(E, num_houses, 2)``: its chance from its left neighbour, ``FROM_LEFT``, and
from its right one, ``FROM_RIGHT``), ``spark`` one per house. Each chance has its own
number, so it has the probability the rules give it whatever happens elsewhere (rules
version 2; docs/rules/bucket_brigade.md, "Random numbers").
"""

import math

import numpy as np
from numba import njit

SAFE, BURNING, RUINED = 0, 1, 2
#: Which of a house's two numbers in ``spread`` decides which neighbour's chance.
FROM_LEFT, FROM_RIGHT = 0, 1
compiled = njit(cache=True, nogil=True)


def ownership(num_houses: int, num_agents: int) -> np.ndarray:
    """``owner[h]``: house ``h`` belongs to seat ``h mod num_agents``."""
    return np.arange(num_houses) % num_agents


def extinguish_probabilities(kappa: float, num_agents: int) -> np.ndarray:
    """``1 - exp(-kappa * k)`` for each number ``k`` of workers at one house, from 0 to
    ``num_agents``."""
    return np.array([1 - math.exp(-kappa * k) for k in range(num_agents + 1)])


@compiled
def ignite(uniforms, fires):
    """The houses at the start: ``fires`` of them BURNING, chosen uniformly without
    replacement in each episode (those with the ``fires`` smallest of one uniform number
    per house)."""
    houses = np.zeros(uniforms.shape, dtype=np.int8)
    for e in range(uniforms.shape[0]):
        for h in np.argsort(uniforms[e], kind="mergesort")[:fires]:
            houses[e, h] = BURNING
    return houses


@compiled
def extinguish(houses, locations, working, p_extinguish, uniforms):
    """Phase 4: with ``k`` agents WORKing at a BURNING house (``locations`` and ``working``
    are ``(E, num_agents)``), it becomes SAFE if its number is below ``1 - exp(-kappa * k)``
    (``p_extinguish[k]``)."""
    episodes, n = houses.shape
    workers = np.zeros(n, dtype=np.int64)
    for e in range(episodes):
        workers[:] = 0
        for i in range(locations.shape[1]):
            if working[e, i]:
                workers[locations[e, i]] += 1
        for h in range(n):
            if houses[e, h] == BURNING and workers[h] and uniforms[e, h] < p_extinguish[workers[h]]:
                houses[e, h] = SAFE


@compiled
def spread(houses, beta, spec, uniforms, spreaders):
    """Phase 5: a SAFE house catches fire from a spreading neighbour if its number for that
    neighbour (``FROM_LEFT``: house ``h - 1``; ``FROM_RIGHT``: house ``h + 1``) is below
    ``beta``.

    ``spec``: the spreaders are the houses BURNING at the start of the phase (written into
    ``spreaders``), and a house lit now does not spread tonight. Reference rules: the houses
    take their turns in index order, and a house BURNING when its turn comes spreads, left
    neighbour first, so fire runs along the ring in one night."""
    episodes, n = houses.shape
    for e in range(episodes):
        for h in range(n):
            spreaders[e, h] = houses[e, h] == BURNING
        for h in range(n):
            if spreaders[e, h] if spec else houses[e, h] == BURNING:
                left, right = (h - 1) % n, (h + 1) % n
                if houses[e, left] == SAFE and uniforms[e, left, FROM_RIGHT] < beta:
                    houses[e, left] = BURNING
                if houses[e, right] == SAFE and uniforms[e, right, FROM_LEFT] < beta:
                    houses[e, right] = BURNING


@compiled
def burn_out(houses, spreaders, spec):
    """Phase 6: ``spec``: every spreader becomes RUINED; reference: every BURNING house."""
    episodes, n = houses.shape
    for e in range(episodes):
        for h in range(n):
            if spreaders[e, h] if spec else houses[e, h] == BURNING:
                houses[e, h] = RUINED


@compiled
def spark(houses, p_spark, uniforms):
    """Phase 7 (on nights up to ``N_spark``): a SAFE house whose number is below
    ``p_spark`` starts to burn."""
    episodes, n = houses.shape
    for e in range(episodes):
        for h in range(n):
            if houses[e, h] == SAFE and uniforms[e, h] < p_spark:
                houses[e, h] = BURNING


@compiled
def counts(houses):
    """``(E, 3)``: houses SAFE, BURNING and RUINED in each episode."""
    episodes, n = houses.shape
    counted = np.zeros((episodes, 3), dtype=np.int64)
    for e in range(episodes):
        for h in range(n):
            counted[e, houses[e, h]] += 1
    return counted


#: The order of the reward weights in the array ``rewards`` and ``settle`` take.
WEIGHTS = ("r_rest", "alpha_own", "A", "L", "gamma", "lambda_own")


@compiled
def settle(before, after, owner, working, work_costs, weights, spec, night, N_min, max_steps,
           counted, ends, night_rewards, terms):
    """Phase 8 for every episode, written into the last four arrays: the houses SAFE,
    BURNING and RUINED (``counted``, ``(E, 3)``); whether the game ends tonight (``ends``:
    the rules end it, ``rules_end``, or ``night`` reaches ``max_steps``); the night's
    rewards and end-of-game terms (``night_rewards`` and ``terms``, ``(E, num_agents)``,
    see ``rewards``)."""
    counted[:] = counts(after)
    ends[:] = rules_end(after, night, N_min, spec) | (night >= max_steps)
    rewards(before, after, owner, working, work_costs, weights, spec, ends, night_rewards, terms)


@compiled
def rewards(before, after, owner, working, work_costs, weights, spec, final, night_rewards,
            terms):
    """Phase 8, "Rewards", written into ``night_rewards`` and ``terms`` (``(E,
    num_agents)``): each agent's reward for the night, and its end-of-game term (zero unless
    ``final[e]``; this project's rules only).

    Each agent gets ``-c_i`` working or ``+r_rest`` resting, plus ``alpha_own`` per owned
    house that became SAFE tonight, minus (``spec``) ``alpha_own`` per owned house SAFE at
    the start of the night and not now. The town term ``gamma * town - lambda_own * (owned
    houses RUINED)`` is paid every night under the reference rules, and once, on the last
    night, under this project's. ``weights`` holds the parameters named in ``WEIGHTS``."""
    r_rest, alpha_own, A, L, gamma, lambda_own = weights
    episodes, n = after.shape
    agents = working.shape[1]
    gained = np.zeros(agents)
    ruined = np.zeros(agents)
    for e in range(episodes):
        gained[:] = 0
        ruined[:] = 0
        safe = lost = 0
        for h in range(n):
            was, now = before[e, h] == SAFE, after[e, h] == SAFE
            if now and not was:
                gained[owner[h]] += 1
            elif was and not now and spec:
                gained[owner[h]] -= 1
            safe += now
            if after[e, h] == RUINED:
                ruined[owner[h]] += 1
                lost += 1
        town = (A * safe - L * lost) / n
        for i in range(agents):
            paid = -work_costs[i] if working[e, i] else r_rest
            night_rewards[e, i] = paid + alpha_own * gained[i]
            terms[e, i] = 0.0
            if not spec or final[e]:
                term = gamma * town - lambda_own * ruined[i]
                if spec:
                    terms[e, i] = term
                else:
                    night_rewards[e, i] += term


def town_score(safe, ruined, A, L, num_houses):
    """``A * safe / num_houses - L * ruined / num_houses``."""
    return (A * safe - L * ruined) / num_houses


@compiled
def rules_end(houses, night, N_min, spec):
    """Per episode: after night ``t >= N_min`` (reference: ``t >= N_min + 1``) the game
    ends once no house burns."""
    episodes, n = houses.shape
    ends = np.zeros(episodes, dtype=np.bool_)
    if night >= (N_min if spec else N_min + 1):
        for e in range(episodes):
            ends[e] = True
            for h in range(n):
                if houses[e, h] == BURNING:
                    ends[e] = False
                    break
    return ends
