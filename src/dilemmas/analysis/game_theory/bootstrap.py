"""Bootstrap intervals of an empirical game's evolutionary results (docs/game-theory.md): the
runs of each mix resampled, and the payoffs, rest points, equilibria and fixation
probabilities computed again on each resample (Efron & Tibshirani 1993)."""


import operator
from dataclasses import dataclass

import numpy as np

from dilemmas.analysis.figures.paper import CONFIDENCE
from dilemmas.analysis.game_theory.payoffs import EmpiricalGame
from dilemmas.analysis.game_theory.dynamics import _ends, _snap, _Table
from dilemmas.analysis.game_theory.moran import _population, _selection, fixation
from dilemmas.analysis.game_theory.nash import nash_equilibria



def _interval(samples: np.ndarray, confidence: float):
    """Percentile interval (Efron & Tibshirani 1993) over axis 0, ignoring NaN; NaN where
    every sample is NaN."""
    low, high = np.full(samples.shape[1:], np.nan), np.full(samples.shape[1:], np.nan)
    some = (~np.isnan(samples)).any(axis=0)
    if some.any():
        q = 100 * np.array([(1 - confidence) / 2, (1 + confidence) / 2])
        low[some], high[some] = np.nanpercentile(samples[:, some], q, axis=0)
    return low, high


@dataclass(frozen=True, eq=False)
class Uncertainty:
    """Bootstrap of a game's evolutionary analysis (``uncertainty``), over ``resamples``
    resamples of its runs: ``fixation`` (resamples, m, m) and its percentile interval
    ``fixation_low``/``_high``; for each point-estimate equilibrium (``equilibria``), the
    share of resamples with an equilibrium of the same support (``found``) and the interval
    of its shares over those (``shares_low``/``_high``, (E, m)); ``ends`` (resamples, m)
    where the trajectory from the barycentre settles (NaN if it does not) and its interval
    ``end_low``/``_high``."""
    behaviours: tuple
    population_size: int
    selection: float
    resamples: int
    seed: int
    confidence: float
    fixation: np.ndarray
    fixation_low: np.ndarray
    fixation_high: np.ndarray
    equilibria: tuple
    found: np.ndarray
    shares_low: np.ndarray
    shares_high: np.ndarray
    ends: np.ndarray
    end_low: np.ndarray
    end_high: np.ndarray


def _barycentre_end(game: EmpiricalGame) -> np.ndarray:
    """Where the replicator trajectory from the barycentre settles (NaN if it does not),
    shares below 1e-6 set to 0."""
    m = len(game.behaviours)
    ends, settled = _ends(_Table(game), np.full((1, m), 1.0 / m))
    return _snap(ends[0]) if settled[0] else np.full(m, np.nan)


def uncertainty(game: EmpiricalGame, resamples: int = 200, seed: int = 0, *,
                population_size: int, selection: float,
                confidence: float = CONFIDENCE) -> Uncertainty:
    """Percentile bootstrap (Efron & Tibshirani 1993) of the fixation probabilities, the Nash
    equilibria and the end of the replicator trajectory from the barycentre: ``resamples``
    payoff tables drawn by ``game.resample`` with ``np.random.default_rng(seed)`` (the runs of
    each mix with replacement), so the same seed gives the same result. Each resample is
    searched for equilibria on the supports of the point-estimate ones only; a bootstrap
    equilibrium matches the point-estimate equilibrium of the same support nearest to it in
    shares (each used once). A game with one run per mix gives intervals of width 0."""
    _population(game, population_size)
    _selection(selection)
    if operator.index(resamples) < 2 or not 0 < confidence < 1:
        raise ValueError(f"resamples must be an integer >= 2 and 0 < confidence < 1; got "
                         f"{resamples!r}, {confidence!r}")
    m, point = len(game.behaviours), nash_equilibria(game)
    rng = np.random.default_rng(seed)
    fix = np.empty((resamples, m, m))
    matched = np.full((len(point), resamples, m), np.nan)
    ends = np.empty((resamples, m))
    supports = [equilibrium.support for equilibrium in point]
    for r in range(resamples):
        boot = game.resample(rng)
        fix[r] = fixation(boot, population_size, selection)
        ends[r] = _barycentre_end(boot)
        candidates = nash_equilibria(boot, supports=supports)
        free = set(range(len(candidates)))
        for e, equilibrium in enumerate(point):
            same = [b for b in free if candidates[b].support == equilibrium.support]
            if same:
                best = min(same, key=lambda b: np.abs(candidates[b].shares
                                                      - equilibrium.shares).sum())
                matched[e, r] = candidates[best].shares
                free.discard(best)
    shares = [_interval(samples, confidence) for samples in matched]
    return Uncertainty(
        game.behaviours, population_size, float(selection), resamples, seed, confidence,
        fix, *_interval(fix, confidence), tuple(point),
        (~np.isnan(matched[..., 0])).mean(axis=1) if point else np.zeros(0),
        np.array([s[0] for s in shares]).reshape(-1, m),
        np.array([s[1] for s in shares]).reshape(-1, m), ends,
        *_interval(ends, confidence))


