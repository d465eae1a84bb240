"""Ranking behaviours by what they bring to a team (docs/game-theory.md, "Rankings").

``ranking_study`` plays teams of a game's seats drawn from a set of behaviours (every mix,
or a sample of them, always with the pure teams); ``fit`` reads the team outcome of each run
-- the team's mean final reward per seat -- and fits the additive model

    outcome = sum over behaviours k of share_k * value_k + noise,  noise ~ N(0, sigma^2)

where ``share_k`` is the fraction of the team's seats playing ``k``: ``value_k`` is the
expected outcome of a team made only of ``k`` and, with teams of ``N`` seats, switching one
seat from ``j`` to ``k`` changes the outcome by ``(value_k - value_j) / N``. The fit is
Bayesian linear regression (ridge): a Gaussian prior on ``value_k - mean outcome`` of
variance ``sigma^2 / prior``, so the posterior mean is the ridge estimate and its
covariance ``sigma^2 (X'X + prior I)^-1``, with ``sigma^2`` estimated from the residuals and
Student-t intervals on ``runs - behaviours`` degrees of freedom. The default
``prior=0.001`` weighs as much as a thousandth of a run of each pure team at the mean
outcome: vague, so the fit is practically least squares (a stronger prior shrinks every
value towards the mean outcome), but defined when a design cannot tell two behaviours
apart, whose intervals then come out as wide as the prior.

A behaviour's *marginal value* is ``(value_k - mean over j of value_j) / N``: the change in
the outcome when one seat of a team switches from a behaviour drawn uniformly from the set
to ``k``; behaviours are ranked by it (the same order as the values). ``propose`` picks the
next batch of teams that most reduces the uncertainty: greedily, the team whose one more run
most lowers the trace of the values' posterior covariance (A-optimal design), updating the
covariance after each pick; a team may be picked more than once (under the additive model
the pure teams are the most informative, so they often are). ``Ranking.r_squared`` says how
much of the outcome's variance over runs the additive model explains: a low value means the
behaviours interact, or that the outcome is mostly noise.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from dilemmas.analysis.game_theory import payoffs
from dilemmas.analysis.game_theory.payoffs import all_mixes, counts_of, population
from dilemmas.analysis.studies.study import StudyError

CONFIDENCE = 0.95
#: At most this many teams unless ``teams`` says otherwise: every mix if there are fewer.
TEAMS = 120
#: Teams ``propose`` considers at most (a sample, as ``design`` draws it, beyond).
CANDIDATES = 100_000
#: Precision of the prior, in runs of a pure team (module docstring).
PRIOR = 1e-3


def design(behaviours, players: int, teams: int = TEAMS, seed: int = 0) -> np.ndarray:
    """The mixes a ranking study plays: every mix of ``players`` seats over ``behaviours`` if
    there are at most ``teams``, else the pure teams and a uniform sample (without
    replacement, from ``seed``) of the other mixes, ``teams`` in all."""
    if type(teams) is not int or teams < len(behaviours):
        raise StudyError(f"teams={teams!r} must be an integer of at least the number of "
                         f"behaviours ({len(behaviours)})")
    mixes = all_mixes(behaviours, players)
    if len(mixes) <= teams:
        return mixes
    pure = (mixes == players).any(axis=1)
    rng = np.random.default_rng(seed)
    others = np.flatnonzero(~pure)
    chosen = np.sort(rng.choice(others, teams - pure.sum(), replace=False))
    return np.concatenate([mixes[pure], mixes[chosen]])


def ranking_study(game: str, behaviours=None, *, fixed=None, replicates: int = 10,
                  seed: int = 0, teams: int = TEAMS, name: str | None = None):
    """The study of a ranking (module docstring): ``behaviours`` (default: every fixed
    behaviour of the game) in teams of the game's seats with the parameters ``fixed``."""
    behaviours = payoffs.check_behaviours(
        game, payoffs.scripted(game) if behaviours is None else behaviours, 2)
    players = payoffs.seats(game, fixed)
    return payoffs.mix_study(game, name or f"{game}-ranking", behaviours,
                             design(behaviours, players, teams, seed), fixed=fixed,
                             replicates=replicates, seed=seed)


@dataclass(frozen=True)
class Ranking:
    """A fitted ranking: ``table`` (one row per behaviour, best first: ``value``,
    ``marginal`` and their intervals, ``rank``), the posterior ``mean`` and ``covariance``
    of the values (in ``behaviours`` order), the noise ``sigma``, ``runs``, team size
    ``players``, ``prior`` and ``r_squared``, the share of the outcome's variance the model
    explains."""

    behaviours: tuple
    players: int
    table: pd.DataFrame
    mean: np.ndarray
    covariance: np.ndarray
    sigma: float
    runs: int
    prior: float
    r_squared: float


def fit_outcomes(behaviours, counts: np.ndarray, outcomes: np.ndarray, prior: float = PRIOR,
                 confidence: float = CONFIDENCE) -> Ranking:
    """Fit the additive model (module docstring) to ``outcomes`` of teams ``counts`` (one
    row of counts over ``behaviours`` per run)."""
    counts = np.asarray(counts, dtype=np.float64)
    y = np.asarray(outcomes, dtype=np.float64)
    runs, m = counts.shape
    players = int(counts[0].sum())
    if not np.isfinite(prior) or prior <= 0:
        raise ValueError(f"prior={prior!r} must be a number > 0")
    if runs <= m:
        raise ValueError(f"{runs} runs cannot rank {m} behaviours: need more runs than "
                         "behaviours")
    shares = counts / players
    centre = y.mean()
    precision = shares.T @ shares + prior * np.eye(m)
    weights = np.linalg.solve(precision, shares.T @ (y - centre))
    residuals = y - centre - shares @ weights
    sigma2 = (residuals @ residuals + prior * weights @ weights) / (runs - m)
    covariance = sigma2 * np.linalg.inv(precision)
    mean = centre + weights
    quantile = stats.t.ppf(0.5 + confidence / 2, runs - m)
    contrast = (np.eye(m) - 1 / m) / players  # marginal value of each behaviour
    marginal = contrast @ mean
    marginal_se = np.sqrt(np.einsum("ij,jk,ik->i", contrast, covariance, contrast))
    value_se = np.sqrt(np.diag(covariance))
    table = pd.DataFrame({
        "behaviour": list(behaviours), "value": mean,
        "value_low": mean - quantile * value_se, "value_high": mean + quantile * value_se,
        "marginal": marginal, "marginal_low": marginal - quantile * marginal_se,
        "marginal_high": marginal + quantile * marginal_se,
    }).sort_values("marginal", ascending=False, kind="stable").reset_index(drop=True)
    table.insert(0, "rank", np.arange(1, m + 1))
    spread = (y - centre) @ (y - centre)
    r_squared = 1 - residuals @ residuals / spread if spread > 0 else np.nan
    return Ranking(tuple(behaviours), players, table, mean, covariance, float(np.sqrt(sigma2)),
                   runs, prior, float(r_squared))


def fit(folder, prior: float = PRIOR, confidence: float = CONFIDENCE) -> Ranking:
    """The ranking of a ranking study's results (module docstring)."""
    game = payoffs.empirical_game(folder)
    outcomes = payoffs.team_outcomes(folder)
    counts = np.array([counts_of(game.behaviours, value) for value in outcomes["population"]])
    return fit_outcomes(game.behaviours, counts, outcomes["outcome"].to_numpy(), prior,
                        confidence)


def propose(ranking: Ranking, batch: int = 10, candidates=None) -> pd.DataFrame:
    """The next ``batch`` runs to play (module docstring): one row per team picked, in the
    order first picked, with ``runs`` (how many of the batch) and ``uncertainty``, the trace
    of the values' covariance once the batch has played up to that team's last run;
    ``candidates`` (rows of counts) default to every mix, or to ``design``'s sample of
    ``CANDIDATES`` teams when there are more."""
    if type(batch) is not int or batch < 1:
        raise ValueError(f"batch={batch!r} must be an integer >= 1")
    if candidates is None:
        candidates = design(ranking.behaviours, ranking.players,
                            max(CANDIDATES, len(ranking.behaviours)))
    candidates = np.asarray(candidates, dtype=np.int64)
    shares = candidates / ranking.players
    covariance, noise = ranking.covariance.copy(), ranking.sigma ** 2
    rows = []
    for _ in range(batch):
        spread = shares @ covariance  # (candidates, m): Sigma x for each candidate
        denominator = noise + np.einsum("ij,ij->i", spread, shares)
        gain = np.divide(np.einsum("ij,ij->i", spread, spread), denominator,
                         out=np.zeros(len(shares)), where=denominator > 0)
        best = int(np.argmax(gain))
        if denominator[best] > 0:  # else nothing is uncertain: the covariance stays 0
            covariance = covariance - np.outer(spread[best], spread[best]) / denominator[best]
        rows.append({"population": population(ranking.behaviours, candidates[best]),
                     "uncertainty": float(np.trace(covariance))})
    picks = pd.DataFrame(rows)
    return picks.groupby("population", sort=False).agg(
        runs=("uncertainty", "size"), uncertainty=("uncertainty", "last")).reset_index()


def ranking_figure(ranking: Ranking, title: str = ""):
    """Two panels: each behaviour's team value (the outcome of a team of it alone) and its
    marginal value, with their intervals, best at the top."""
    import matplotlib

    from dilemmas.analysis.figures.paper import PALETTE, STYLE, PaperFigure

    table = ranking.table.iloc[::-1]
    figure = PaperFigure((1, 2), margin=1.0)
    with matplotlib.rc_context(STYLE):
        axes = figure.subplots(1, 2, sharey=True)
        y = np.arange(len(table))
        for axis, column, colour, label in (
                (axes[0], "value", PALETTE[0], "team of it alone: outcome per seat"),
                (axes[1], "marginal", PALETTE[1],
                 f"one of {ranking.players} seats switched to it")):
            errors = np.vstack([table[column] - table[f"{column}_low"],
                                table[f"{column}_high"] - table[column]])
            axis.errorbar(table[column], y, xerr=errors, fmt="o", color=colour, capsize=3)
            axis.set_xlabel(label)
            axis.grid(axis="y", visible=False)
        axes[1].axvline(0, color="0.5", linewidth=0.8)
        axes[0].set_yticks(y, table["behaviour"])
        axes[0].set_title("value (additive model)")
        axes[1].set_title("marginal value: change in outcome per seat")
        figure.suptitle((title + "\n" if title else "") +
                        f"{ranking.runs} runs; means and "
                        f"{CONFIDENCE:.0%} intervals, best at the top")
    return figure
