"""alpha-Rank (Omidshafiei et al. 2019): strategies ranked by the mass of the stationary
distribution of a Markov chain over monomorphic populations (docs/game-theory.md,
"alpha-Rank").

A finite population of ``Z`` individuals all play one strategy; a single mutant appears,
playing another strategy chosen uniformly, and takes over with the fixation probability of
the Moran process with Fermi selection (fitness ``exp(alpha * payoff)``); the chain moves
between monomorphic states with probability ``eta * rho`` and the ranking is its stationary
distribution ``pi``. ``alpha`` is the ranking intensity: near 0 every strategy weighs the
same, large ``alpha`` concentrates ``pi`` on the sink strongly connected components of the
response graph (the paper's Markov-Conley chains).

* **Single population** (a symmetric game of ``N`` seats, an
  :class:`~dilemmas.analysis.game_theory.payoffs.EmpiricalGame`): the states are the ``m``
  strategies and ``eta = 1/(m-1)``. With ``local=True`` (the paper's and OpenSpiel's
  default) a mutant ``r`` and a resident ``s`` are compared in the mix of one ``r`` and
  ``N-1`` ``s``, ``u = alpha (f_r - f_s)``, and ``rho = (1 - e^-u) / (1 - e^-Zu)`` (``1/Z``
  at ``u = 0``). With ``local=False`` each individual's fitness is its expected payoff
  against ``N-1`` co-players drawn without replacement from the rest of the population, the
  Moran process of ``dilemmas.analysis.game_theory.moran.fixation``; for two seats this is
  OpenSpiel's ``use_local_selection_model=False``.
* **Several populations** (a role-asymmetric game, :class:`ProfileGame`: seat ``k`` draws
  from its own population and its own strategies): the states are the joint profiles, a
  mutation changes one seat's strategy, ``eta = 1 / sum_k (m_k - 1)`` and ``u = alpha
  (f_k(profile after) - f_k(profile before))`` in the closed form above.

``uncertainty`` resamples each mix's (or profile's) runs with replacement and computes
``pi`` again (percentile bootstrap, Efron & Tibshirani 1993); ``sweep`` gives ``pi`` over a
range of ``alpha``. Checked against OpenSpiel's ``open_spiel.python.egt.alpharank`` in
``tests/test_alpharank.py``.

References: Omidshafiei, Papadimitriou, Piliouras, Tuyls, Rowland, Lespiau, Czarnecki,
Lanctot, Perolat & Munos 2019, "alpha-Rank: Multi-agent evaluation by evolution", Scientific
Reports 9:9937. Grassmann, Taksar & Heyman 1985, "Regenerative analysis and steady
state distributions for Markov chains", Operations Research 33:1107. Traulsen, Nowak &
Pacheco 2006, Phys. Rev. E 74:011909. Fudenberg & Imhof
2006, J. Econ. Theory 131:251.
"""

import itertools
import operator
from dataclasses import dataclass

import matplotlib
import numpy as np
import pandas as pd
import scipy.linalg
from matplotlib.figure import Figure
from scipy import stats

from dilemmas.analysis.figures.paper import CONFIDENCE, PALETTE, STYLE, PaperFigure
from dilemmas.analysis.game_theory.bootstrap import _interval
from dilemmas.analysis.game_theory.dynamics import _played
from dilemmas.analysis.game_theory.moran import _population, _selection, fixation
from dilemmas.analysis.game_theory.payoffs import EmpiricalGame

#: OpenSpiel's defaults (``alpharank.compute``): population size and ranking intensity.
POPULATION = 50
ALPHA = 100.0


@dataclass(frozen=True)
class ProfileGame:
    """A role-asymmetric game estimated from episodes: seat ``k`` plays one of
    ``strategies[k]``; ``profiles`` (P x seats) lists the joint profiles played, as indices
    into each seat's strategies, and ``samples[i]`` holds one row per run of profile ``i``
    with each seat's payoff. ``means`` is the array (m_0, ..., m_{n-1}, n) of the mean
    payoff of each seat in each profile (NaN where a profile was not played)."""

    strategies: tuple
    profiles: np.ndarray
    samples: tuple

    def __post_init__(self):
        strategies = tuple(tuple(names) for names in self.strategies)
        profiles = np.asarray(self.profiles, dtype=np.int64).reshape(-1, len(strategies))
        sizes = np.array([len(names) for names in strategies])
        if len(strategies) < 1 or (sizes < 1).any():
            raise ValueError("every seat needs at least one strategy")
        if (profiles < 0).any() or (profiles >= sizes).any():
            raise ValueError(f"profiles must index each seat's strategies {sizes.tolist()}")
        if len(self.samples) != len(profiles):
            raise ValueError(f"{len(profiles)} profiles but {len(self.samples)} sample arrays")
        samples = tuple(np.asarray(s, dtype=np.float64).reshape(-1, len(strategies))
                        for s in self.samples)
        if any(len(s) == 0 for s in samples):
            raise ValueError("every profile played needs at least one run")
        object.__setattr__(self, "strategies", strategies)
        object.__setattr__(self, "profiles", profiles)
        object.__setattr__(self, "samples", samples)

    @classmethod
    def from_means(cls, strategies, means) -> "ProfileGame":
        """A game known exactly: ``means`` of shape (m_0, ..., m_{n-1}, n)."""
        means = np.asarray(means, dtype=np.float64)
        profiles = np.array(list(np.ndindex(means.shape[:-1])), dtype=np.int64)
        return cls(tuple(strategies), profiles, tuple(means[tuple(p)][None, :]
                                                      for p in profiles))

    @property
    def sizes(self) -> tuple:
        return tuple(len(names) for names in self.strategies)

    @property
    def players(self) -> int:
        return len(self.strategies)

    @property
    def means(self) -> np.ndarray:
        out = np.full((*self.sizes, len(self.sizes)), np.nan)
        for profile, sample in zip(self.profiles, self.samples):
            out[tuple(profile)] = sample.mean(axis=0)
        return out

    def resample(self, rng: np.random.Generator) -> "ProfileGame":
        """A bootstrap replicate: the runs of each profile drawn again with replacement."""
        return ProfileGame(self.strategies, self.profiles, tuple(
            s[rng.integers(0, len(s), len(s))] for s in self.samples))


@dataclass(frozen=True, eq=False)
class AlphaRank:
    """The result of ``alpharank``: ``states`` (strategy names, or one tuple of names per
    joint profile), ``stationary`` (pi, adding up to 1), ``fixation`` (rho[before, after],
    NaN between states no single mutation joins) and ``transitions`` (the chain's matrix)."""
    states: tuple
    alpha: float
    population_size: int
    local: bool | None
    stationary: np.ndarray
    fixation: np.ndarray
    transitions: np.ndarray

    @property
    def names(self) -> list[str]:
        """Each state's name: the strategy, or a profile's strategies joined by ", "."""
        return [state if isinstance(state, str) else ", ".join(state) for state in self.states]

    def table(self) -> pd.DataFrame:
        """One row per state, most mass first: ``rank`` (ties share the better rank, masses
        equal to 1e-12), ``state`` and ``mass``."""
        names = self.names
        order = np.argsort(-self.stationary, kind="stable")
        ranks = stats.rankdata(-np.round(self.stationary, 12), method="min").astype(int)
        return pd.DataFrame({"rank": ranks[order], "state": [names[i] for i in order],
                             "mass": self.stationary[order]})


def fermi_fixation(u, z: int):
    """rho = (1 - e^-u) / (1 - e^-zu), the fixation probability of one mutant whose fitness
    exceeds the residents' by ``u`` (in units of the selection) at every state of the chain;
    1/z at u = 0; computed without overflow however large ``abs(u)`` is."""
    u = np.asarray(u, dtype=np.float64)
    a = np.abs(u)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.expm1(-a) / np.expm1(-z * a)  # the value for +|u|
        out = np.where(u > 0, ratio, np.exp(-(z - 1) * a) * ratio)
    return np.where(u == 0, 1.0 / z, out)


def _local_fixation(game: EmpiricalGame, means: np.ndarray, z: int, alpha: float):
    m, n = len(game.behaviours), game.players
    out = np.full((m, m), np.nan)
    for s, r in itertools.permutations(range(m), 2):
        mix = np.zeros(m, dtype=np.int64)
        mix[s], mix[r] = n - 1, 1
        row = _played(game, mix)
        f = np.full(m, np.nan) if row is None else means[row]
        if np.isnan(f[r]) or np.isnan(f[s]):
            raise ValueError(f"alpha-Rank needs the payoffs of {game.behaviours[r]!r} and "
                             f"{game.behaviours[s]!r} in the mix "
                             f"{dict(zip(game.behaviours, mix.tolist()))}, which is missing")
        out[s, r] = fermi_fixation(alpha * (f[r] - f[s]), z)
    return out


def _stationary(c: np.ndarray) -> np.ndarray:
    """The stationary distribution of the chain ``c`` (pi c = pi) by the
    Grassmann-Taksar-Heyman elimination (Grassmann, Taksar & Heyman 1985), which subtracts
    nothing and so keeps its accuracy when the chain is nearly reducible (large ``alpha``,
    fixation probabilities of 1e-200 beside 1e-3). Where some probabilities are 0 in
    floating point the chain may be reducible: the null space of ``c' - I`` then decides,
    and more than one stationary distribution is a ValueError."""
    a = np.array(c, dtype=np.float64)
    n = len(a)
    for k in range(n - 1):
        # the censored chain on k+1.. keeps its transition probabilities in a[k+1:, k+1:];
        # a[k+1:, k] becomes P_ik / leaving, up to 1 / leaving
        leaving = a[k, k + 1:].sum()  # from k to the states not yet eliminated
        if not leaving > 1e-300:
            return _null_space_stationary(c)
        a[k + 1:, k] /= leaving
        a[k + 1:, k + 1:] += np.outer(a[k + 1:, k], a[k, k + 1:])
    pi = np.zeros(n)
    pi[n - 1] = 1.0
    for k in range(n - 2, -1, -1):
        pi[k] = pi[k + 1:] @ a[k + 1:, k]
        if pi[k] > 1.0:  # kept at most 1, so masses 1e300 apart do not overflow
            pi[k:] /= pi[k]
    return pi / pi.sum()


def _null_space_stationary(c: np.ndarray) -> np.ndarray:
    basis = scipy.linalg.null_space(c.T - np.eye(len(c)), rcond=1e-12)
    if basis.shape[1] != 1:
        raise ValueError(f"the chain has {basis.shape[1]} stationary distributions, not one: "
                         "alpha is so large that some fixation probabilities are 0; lower it")
    pi = np.abs(basis[:, 0])
    return pi / pi.sum()


def alpharank(game, alpha: float = ALPHA, population_size: int = POPULATION,
              local: bool = True) -> AlphaRank:
    """alpha-Rank of ``game``: an ``EmpiricalGame`` (one population; ``local`` chooses the
    selection model) or a ``ProfileGame`` (one population per seat; ``local`` unused)."""
    if isinstance(game, ProfileGame):
        return _multipopulation(game, alpha, population_size)
    z, alpha = _population(game, population_size), _selection(alpha, "alpha")
    m = len(game.behaviours)
    if m == 1:
        return AlphaRank(game.behaviours, alpha, z, local, np.ones(1), np.full((1, 1), np.nan),
                         np.ones((1, 1)))
    rho = _local_fixation(game, game.means, z, alpha) if local else \
        fixation(game, z, alpha)
    c = rho / (m - 1)
    np.fill_diagonal(c, 0.0)
    np.fill_diagonal(c, 1.0 - c.sum(axis=1))
    return AlphaRank(game.behaviours, alpha, z, bool(local), _stationary(c), rho, c)


def _multipopulation(game: ProfileGame, alpha: float, population_size: int) -> AlphaRank:
    z, alpha = _population(game, population_size), _selection(alpha, "alpha")
    sizes, means = game.sizes, game.means
    profiles = list(np.ndindex(sizes))
    index = {profile: i for i, profile in enumerate(profiles)}
    states = tuple(tuple(game.strategies[k][p] for k, p in enumerate(profile))
                   for profile in profiles)
    eta = 1.0 / max(sum(size - 1 for size in sizes), 1)
    rho = np.full((len(profiles), len(profiles)), np.nan)
    c = np.zeros_like(rho)
    for before in profiles:
        for k, size in enumerate(sizes):
            for strategy in range(size):
                if strategy == before[k]:
                    continue
                after = before[:k] + (strategy,) + before[k + 1:]
                gain = means[after + (k,)] - means[before + (k,)]
                if np.isnan(gain):
                    missing = after if np.isnan(means[after + (k,)]) else before
                    named = ", ".join(game.strategies[j][p] for j, p in enumerate(missing))
                    raise ValueError(f"alpha-Rank needs the payoff of seat {k} in the profile "
                                     f"{named}, which was not played")
                i, j = index[before], index[after]
                rho[i, j] = fermi_fixation(alpha * gain, z)
                c[i, j] = eta * rho[i, j]
        c[index[before], index[before]] = 1.0 - c[index[before]].sum()
    return AlphaRank(states, alpha, z, None, _stationary(c), rho, c)


def sweep(game, alphas, population_size: int = POPULATION, local: bool = True) -> pd.DataFrame:
    """``pi`` for each ranking intensity in ``alphas``: one row per alpha, one column per
    state."""
    rows = []
    for alpha in alphas:
        result = alpharank(game, alpha, population_size, local)
        rows.append({"alpha": result.alpha, **dict(zip(result.names, result.stationary))})
    return pd.DataFrame(rows)


@dataclass(frozen=True, eq=False)
class Uncertainty:
    """The bootstrap of ``alpharank`` over ``resamples`` resamples of the runs:
    ``stationary`` (resamples, states), its percentile interval ``low``/``high`` and
    ``first``, the share of resamples in which each state has the most mass."""
    resamples: int
    seed: int
    confidence: float
    stationary: np.ndarray
    low: np.ndarray
    high: np.ndarray
    first: np.ndarray


def uncertainty(game, alpha: float = ALPHA, population_size: int = POPULATION,
                local: bool = True, resamples: int = 200, seed: int = 0,
                confidence: float = CONFIDENCE) -> Uncertainty:
    """Percentile bootstrap of ``pi``: ``resamples`` games drawn by ``game.resample`` with
    ``np.random.default_rng(seed)``. A game with one run per mix gives intervals of width
    0."""
    if operator.index(resamples) < 2 or not 0 < confidence < 1:
        raise ValueError(f"resamples must be an integer >= 2 and 0 < confidence < 1; got "
                         f"{resamples!r}, {confidence!r}")
    rng = np.random.default_rng(seed)
    pis = np.array([alpharank(game.resample(rng), alpha, population_size, local).stationary
                    for _ in range(resamples)])
    first = np.bincount(pis.argmax(axis=1), minlength=pis.shape[1]) / resamples
    return Uncertainty(resamples, seed, confidence, pis, *_interval(pis, confidence), first)


def report(result: AlphaRank, uncertain: Uncertainty | None = None) -> pd.DataFrame:
    """``result.table()`` with, if given, each state's interval and the share of resamples
    in which it ranks first."""
    table = result.table()
    if uncertain is None:
        return table
    where = {name: i for i, name in enumerate(result.names)}
    rows = [where[name] for name in table["state"]]
    level = f"{uncertain.confidence:.0%}"
    return table.assign(**{f"{level} low": uncertain.low[rows],
                           f"{level} high": uncertain.high[rows],
                           "first in resamples": uncertain.first[rows]})


def relative_alpha(game, relative: float) -> float:
    """The ranking intensity that is ``relative`` in units of 1/(payoff range of the table),
    as ``evolution.selection_strength``: a positive affine change of the payoffs leaves the
    ranking at a given ``relative`` unchanged. With ``relative <= 14`` and the default
    population of 50 no fixation probability underflows, so the chain is never reducible in
    floating point."""
    means = game.means
    spread = float(np.nanmax(means) - np.nanmin(means))
    return relative / spread if spread > 0 else 0.0


def alpharank_figure(result: AlphaRank, swept: pd.DataFrame,
                     uncertain: Uncertainty | None = None, title: str = "",
                     scale: float = 1.0, shown: int = 8) -> Figure:
    """(a) The stationary distribution at ``result.alpha``, the ``shown`` states of most
    mass, with their bootstrap intervals if ``uncertain`` is given; (b) ``pi`` of those
    states against the ranking intensity (``swept``, from ``sweep``), alpha shown times
    ``scale`` (the payoff range, for alpha in units of 1/range)."""
    table = report(result, uncertain).head(shown)
    fig = PaperFigure((1, 2), margin=1.4)
    with matplotlib.rc_context(STYLE):
        bars, lines = fig.subplots(1, 2)
        y = np.arange(len(table))[::-1]
        colour = [PALETTE[i % len(PALETTE)] for i in range(len(table))]
        bars.barh(y, table["mass"], color=colour)
        if uncertain is not None:
            level = f"{uncertain.confidence:.0%}"
            low, high = table[f"{level} low"], table[f"{level} high"]
            # a percentile interval need not hold the point estimate: drawn from it outwards
            bars.errorbar(table["mass"], y, xerr=np.maximum(
                [table["mass"] - low, high - table["mass"]], 0), fmt="none", color="black",
                linewidth=0.8)
        bars.set_yticks(y, table["state"])
        bars.set_xlim(0, 1)
        bars.set_xlabel("stationary mass π")
        interval = "" if uncertain is None else f" [{uncertain.confidence:.0%} bootstrap]"
        per = " per payoff range" if scale != 1 else ""
        bars.set_title(f"(a) α-Rank, α = {result.alpha * scale:.3g}{per}, Z = "
                       f"{result.population_size}{interval}")
        for i, state in enumerate(table["state"]):
            lines.plot(swept["alpha"] * scale, swept[state], color=colour[i], label=state)
        lines.set_xscale("log")
        lines.axvline(result.alpha * scale, color="grey", linewidth=0.8, linestyle=":")
        lines.set_xlabel("ranking intensity α" + (" × payoff range" if scale != 1 else ""))
        lines.set_ylabel("π")
        lines.set_ylim(0, 1)
        lines.set_title("(b) π against the ranking intensity")
        lines.legend(loc="best")
        if title:
            fig.suptitle(title)
    return fig
