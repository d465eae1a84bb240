"""The fixation probability of a single mutant behaviour in a finite population of Z playing
an empirical game (docs/game-theory.md): the Moran process with pairwise-comparison
(Fermi) selection (Nowak et al. 2004; Traulsen, Nowak & Pacheco 2006)."""


import itertools
import math
import operator

import numpy as np
from scipy import stats

from dilemmas.analysis.game_theory.payoffs import EmpiricalGame
from dilemmas.analysis.game_theory.dynamics import _played


#: The largest population of the Moran process.
MAX_POPULATION = 1_000_000


def _population(game: EmpiricalGame, population_size) -> int:
    try:
        z = operator.index(population_size)
    except TypeError:
        z = None
    if z is None or isinstance(population_size, bool) or not \
            max(game.players, 2) <= z <= MAX_POPULATION:
        raise ValueError(f"population_size must be an integer from the game's {game.players} "
                         f"players (and 2) to {MAX_POPULATION:,}; got {population_size!r}")
    return z


def _selection(selection, name: str = "selection") -> float:
    try:
        beta = float(selection)
    except (TypeError, ValueError):
        beta = math.nan
    if not math.isfinite(beta) or beta < 0:
        raise ValueError(f"{name} must be a finite number >= 0; got {selection!r}")
    return beta


def _moran_payoffs(game, means, resident: int, mutant: int, z: int):
    """pi_mutant(i), pi_resident(i) for i = 1..Z-1 mutants: the mean payoff over the N-1
    co-players drawn without replacement from the Z-1 others (hypergeometric; Pacheco et
    al. 2009). Needs the mixes of the two behaviours with positive weight."""
    n, m, i = game.players, len(game.behaviours), np.arange(1, z)[:, None]
    a = np.arange(n)[None, :]  # mutants among the co-players
    weights = {mutant: stats.hypergeom.pmf(a, z - 1, i - 1, n - 1),
               resident: stats.hypergeom.pmf(a, z - 1, i, n - 1)}
    payoffs = {}
    for k, w in weights.items():
        column = np.zeros(n)
        for count in range(n):
            if not w[:, count].any():
                continue
            mix = np.zeros(m, dtype=np.int64)
            mix[mutant] = count + (k == mutant)
            mix[resident] += n - mix[mutant]
            played = _played(game, mix)
            value = np.nan if played is None else means[played, k]
            if np.isnan(value):
                raise ValueError(f"the fixation of {game.behaviours[mutant]!r} among "
                                 f"{game.behaviours[resident]!r} needs the payoff of "
                                 f"{game.behaviours[k]!r} in the mix "
                                 f"{dict(zip(game.behaviours, mix.tolist()))}, which is "
                                 "missing")
            column[count] = value
        payoffs[k] = w @ column
    return payoffs[mutant], payoffs[resident]


def _rho(pi_mutant: np.ndarray, pi_resident: np.ndarray, beta: float) -> float:
    """rho = 1 / (1 + sum_l prod_{i<=l} T-(i)/T+(i)), T-/T+ = f_res / f_mut =
    exp(beta (pi_res - pi_mut)), computed as exp(-L_max) / sum exp(L - L_max)."""
    logs = np.concatenate([[0.0], np.cumsum(beta * (pi_resident - pi_mutant))])
    top = logs.max()
    return float(np.exp(-top) / np.exp(logs - top).sum())


def fixation(game: EmpiricalGame, population_size: int, selection: float) -> np.ndarray:
    """Fixation probabilities (m, m), row = resident j, column = mutant k (diagonal NaN): the
    probability that one k mutant takes over a population of Z = ``population_size`` j
    residents under the birth-death Moran process (Nowak et al. 2004) with fitness
    exp(selection * expected payoff) (Traulsen, Nowak & Pacheco 2006; Traulsen, Shoresh &
    Nowak 2008), the payoff averaged over N-1 co-players drawn without replacement
    (hypergeometric). With T+(i) = i f_k / (i f_k + (Z-i) f_j) (Z-i)/Z and T-(i) =
    (Z-i) f_j / (...) i/Z, rho = 1 / (1 + sum_{l=1}^{Z-1} prod_{i=1}^l T-(i)/T+(i)), in log
    space. Neutral drift (selection 0) gives 1/Z. Needs only the mixes of each pair."""
    z, beta, m = _population(game, population_size), _selection(selection), \
        len(game.behaviours)
    means, out = game.means, np.full((m, m), np.nan)
    for resident, mutant in itertools.permutations(range(m), 2):
        out[resident, mutant] = _rho(*_moran_payoffs(game, means, resident, mutant, z), beta)
    return out


# --- sampling uncertainty ------------------------------------------------------------------

