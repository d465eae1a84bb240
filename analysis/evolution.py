"""Evolutionary dynamics of an empirical game (docs/game-theory.md): the behaviours of an
:class:`~analysis.payoffs.EmpiricalGame` (a heuristic payoff table of an N-seat symmetric
game, Walsh et al. 2002) as the strategies of a population that plays it.

* ``evolution_study``: the study that estimates the table, every mix of the game's seats
  over the behaviours (``analysis.payoffs``), and ``selection_strength`` for a strength
  given in units of the table's payoff range;
* ``expected_payoffs(game, x)``: f_k(x), the payoff of behaviour k when its N-1 co-players
  are drawn from an infinite population with shares x (Tuyls et al. 2018);
* ``replicator`` and ``rest_points``: the replicator dynamics dx_k/dt = x_k (f_k - x.f)
  (Taylor & Jonker 1978) and where its trajectories end;
* ``nash_equilibria``: the symmetric Nash equilibria, by support enumeration, with their
  stability under the replicator dynamics;
* ``fixation``: the fixation probability of a single mutant in a finite population of Z
  (Moran process, Nowak et al. 2004; Traulsen, Nowak & Pacheco 2006);
* ``uncertainty``: bootstrap intervals of all of these from the runs of each mix;
* ``evolution_figure`` and ``report``: a paper figure and tables for printing.

Time in the replicator dynamics is measured in units of 1/Delta, Delta the range of the
table's payoffs (largest minus smallest): a positive affine change of the payoffs leaves the
orbits unchanged and only rescales time, so the defaults suit a game of any payoff scale.
Payoff tolerances are in the same units.

References: Walsh, Das, Tesauro & Kephart 2002, "Analyzing complex strategic interactions in
multi-agent systems", AAAI workshop on game-theoretic and decision-theoretic agents. Tuyls,
Perolat, Lanctot, Leibo & Graepel 2018, "A generalised method for empirical game theoretic
analysis", AAMAS. Taylor & Jonker 1978, Math. Biosci. 40:145. Hofbauer & Sigmund 1998,
"Evolutionary games and population dynamics". Nowak, Sasaki, Taylor & Fudenberg 2004, Nature
428:646. Traulsen, Nowak & Pacheco 2006, Phys. Rev. E 74:011909. Pacheco, Santos, Souza &
Skyrms 2009, Proc. R. Soc. B 276:315. Efron & Tibshirani 1993, "An introduction to the
bootstrap".
"""

import itertools
import math
import operator
from dataclasses import dataclass

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from scipy import optimize, stats
from scipy.integrate import solve_ivp

from analysis.figures import CONFIDENCE, PALETTE, STYLE, PaperFigure
from analysis import payoffs
from analysis.payoffs import EmpiricalGame, all_mixes

#: Replicator time (units of 1/payoff range) of ``replicator`` and of the figure.
TIME = 50.0
#: Longest replicator time ``rest_points`` waits for a trajectory to settle.
HORIZON = 1000.0
#: A trajectory has settled when no share moves faster than this (per unit of time).
SETTLED = 1e-7
#: Shares closer than this (largest difference) are the same rest point or equilibrium.
SAME = 1e-3
SAME_EQUILIBRIUM = 1e-6
#: Integration tolerances (solve_ivp, RK45).
RTOL, ATOL = 1e-8, 1e-12
#: The largest population of the Moran process.
MAX_POPULATION = 1_000_000
#: Starting points of the root finder near the faces, per support of 3 or more behaviours.
EDGE_STARTS = 30
#: Replicator Jacobian eigenvalues within this of 0 (units of payoff range) are "neutral".
EIGEN_TOLERANCE = 1e-6


def evolution_study(game: str, behaviours=None, *, fixed=None, replicates: int = 10,
                    seed: int = 0, name: str | None = None):
    """The study of the payoff table of ``behaviours`` (default: every fixed behaviour of
    ``game``): every mix of the game's seats over them, ``replicates`` runs each."""
    behaviours = payoffs.check_behaviours(
        game, payoffs.scripted(game) if behaviours is None else behaviours, 2)
    players = payoffs.seats(game, fixed)
    return payoffs.mix_study(game, name or f"{game}-evolution", behaviours,
                             all_mixes(behaviours, players), fixed=fixed,
                             replicates=replicates, seed=seed)


def selection_strength(game: EmpiricalGame, relative: float) -> float:
    """The selection intensity ``beta`` of the Moran fitness ``exp(beta * payoff)`` that is
    ``relative`` in units of 1/(payoff range of the table): ``relative = 1`` makes the best
    payoff of the table ``e`` times as fit as the worst, whatever the game's payoff scale."""
    spread = float(np.nanmax(game.means) - np.nanmin(game.means))
    return relative / spread if spread > 0 else 0.0


def _played(game: EmpiricalGame, mix) -> int | None:
    """The row of ``mix`` in the game's table, None if it was not played."""
    try:
        return game.index(mix)
    except KeyError:
        return None


class _Table:
    """f_k(x) = sum_c Multinomial(N-1, x)(c) * payoff of k in the mix c + e_k, summed over the
    compositions c of the N-1 other seats (the heuristic payoff table as a polynomial in x,
    Walsh et al. 2002; Tuyls et al. 2018). A mix not played is a NaN payoff, an error only
    where its weight is not 0."""

    def __init__(self, game: EmpiricalGame):
        self.game, m = game, len(game.behaviours)
        self.others = all_mixes(range(m), game.players - 1)
        self.coefficients = np.array([math.factorial(game.players - 1) / math.prod(
            math.factorial(c) for c in row) for row in self.others.tolist()])
        means, self.payoff = game.means, np.full(self.others.shape, np.nan)
        for row, others in enumerate(self.others):
            for k in range(m):
                played = _played(game, others + np.eye(m, dtype=np.int64)[k])
                if played is not None:
                    self.payoff[row, k] = means[played, k]
        self.gaps = np.isnan(self.payoff)
        self.whole = not self.gaps.any()
        self.known = np.where(self.gaps, 0.0, self.payoff)
        finite = self.payoff[~self.gaps]
        self.spread = float(np.ptp(finite)) if finite.size and np.ptp(finite) > 0 else 1.0
        self.row = {tuple(row): i for i, row in enumerate(self.others.tolist())}

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """f(x) for shares ``x`` of shape (m,) or (n, m)."""
        weights = self.coefficients * np.prod(np.asarray(x)[..., None, :] ** self.others,
                                              axis=-1)
        if not self.whole:
            needed = ((weights != 0)[..., :, None] & self.gaps).reshape(-1, *self.gaps.shape)
            if needed.any():
                _, row, k = np.argwhere(needed)[0]
                raise ValueError(self.missing(row, k))
        return weights @ self.known

    def missing(self, row: int, k: int) -> str:
        mix = self.others[row] + np.eye(len(self.game.behaviours), dtype=np.int64)[k]
        named = dict(zip(self.game.behaviours, mix.tolist()))
        what = "was not played" if _played(self.game, mix) is None \
            else f"has no payoff for {self.game.behaviours[k]!r}"
        return f"the expected payoffs need the mix {named}, which {what}"

    def complete(self):
        """Raise ValueError naming a mix the table lacks."""
        if self.gaps.any():
            row, k = np.argwhere(self.gaps)[0]
            raise ValueError(self.missing(row, k))

    def velocity(self, x: np.ndarray) -> np.ndarray:
        """The replicator field x_k (f_k - x.f) with payoffs in units of their range."""
        f = self(x) / self.spread
        return x * (f - np.sum(x * f, axis=-1, keepdims=True))


def _shares(game: EmpiricalGame, x, name: str = "x") -> np.ndarray:
    """``x`` as a point of the simplex over the behaviours, or a ValueError saying why not."""
    x, m = np.asarray(x, dtype=np.float64), len(game.behaviours)
    if x.shape != (m,):
        raise ValueError(f"{name} must hold {m} shares, one per behaviour "
                         f"{list(game.behaviours)}; got shape {x.shape}")
    if not np.isfinite(x).all() or (x < 0).any():
        raise ValueError(f"{name} must be finite shares >= 0; got {x.tolist()}")
    if abs(x.sum() - 1) > 1e-9:
        raise ValueError(f"{name} must add up to 1; got {x.tolist()} (sum {x.sum():.12g})")
    return x / x.sum()


def expected_payoffs(game: EmpiricalGame, x) -> np.ndarray:
    """f_k(x), k = 1..m: the expected payoff of behaviour k with its N-1 co-players drawn
    from an infinite population with shares ``x``, sum_c Multinomial(N-1, x)(c) P_k(c + e_k)
    (Walsh et al. 2002; Tuyls et al. 2018). Needs the mixes c + e_k of every composition c of
    positive probability (all of them for an interior x); a ValueError names one missing."""
    return _Table(game)(_shares(game, x))


# --- replicator dynamics --------------------------------------------------------------------

def _logs(shares: np.ndarray) -> np.ndarray:
    """log shares, -inf off the support."""
    with np.errstate(divide="ignore"):
        return np.log(shares)


def _softmax(logs: np.ndarray) -> np.ndarray:
    x = np.exp(logs - logs.max(axis=-1, keepdims=True))
    return x / x.sum(axis=-1, keepdims=True)


def _integrate(table: _Table, logs: np.ndarray, time: float, t_eval=None, settle=False):
    """Integrate the replicator dynamics from the log shares ``logs`` (n, m; -inf off the
    support) of n starts at once (RK45) in log coordinates, d log x_k / dt = f_k - x.f on the
    support (each face of the simplex is invariant): the shares stay on the simplex and
    never reach its boundary in finite time, however close they come. With ``settle``, stop
    once every trajectory moves slower than ``SETTLED``. Returns the shares (n, times, m),
    the final log shares and the time reached."""
    inside = np.isfinite(logs)

    def shares(y):
        z = np.full(y.shape[:-1] + logs.shape, -np.inf)
        z[..., inside] = y
        return z

    def field(t, y):
        x = _softmax(shares(y))
        f = table(x) / table.spread
        return (f - np.sum(x * f, axis=1, keepdims=True))[inside]

    def moving(t, y):
        return np.abs(table.velocity(_softmax(shares(y)))).max() - SETTLED
    moving.terminal, moving.direction = True, -1

    solution = solve_ivp(field, (0.0, time), logs[inside], t_eval=t_eval, rtol=RTOL,
                         atol=ATOL, events=moving if settle else None)
    if not solution.success:
        raise RuntimeError(f"the replicator dynamics could not be integrated: "
                           f"{solution.message}")
    final = shares(solution.y[:, -1])
    return (_softmax(shares(solution.y.T)).transpose(1, 0, 2),
            final - final.max(axis=1, keepdims=True), float(solution.t[-1]))


def _ends(table: _Table, starts: np.ndarray, horizon: float = HORIZON):
    """Where the trajectories from ``starts`` settle within ``horizon``: (ends (n, m), settled
    (n,)). A trajectory has settled where it moves slower than ``SETTLED`` and no behaviour
    of its support has a positive growth rate f_k - x.f (beyond ``EIGEN_TOLERANCE``): one
    slowed down near a rest point that a rare behaviour invades (e.g. a saddle vertex on a
    heteroclinic cycle) is integrated on, in rounds, until the horizon."""
    logs, settled, left = _logs(starts), np.zeros(len(starts), dtype=bool), horizon
    ends = starts.copy()
    while left > 0 and not settled.all():
        todo = np.flatnonzero(~settled)
        paths, logs[todo], elapsed = _integrate(table, logs[todo], left, settle=True)
        x = ends[todo] = paths[:, -1]
        f = table(x) / table.spread
        growth = np.where(np.isfinite(logs[todo]), f - np.sum(x * f, axis=1, keepdims=True),
                          -np.inf)
        settled[todo] = (np.abs(table.velocity(x)).max(axis=1) <= SETTLED * (1 + 1e-6)) \
            & (growth.max(axis=1) <= EIGEN_TOLERANCE)
        left -= max(elapsed, 1e-3 * horizon)
    return ends, settled


def replicator(game: EmpiricalGame, x0, time: float = TIME, points: int = 201) -> np.ndarray:
    """The replicator dynamics dx_k/dt = x_k (f_k(x) - sum_j x_j f_j(x)) (Taylor & Jonker
    1978) from ``x0``, at ``points`` equally spaced times from 0 to ``time`` (units of
    1/payoff range): an array (points, m) of shares, each row on the simplex."""
    table, x0 = _Table(game), _shares(game, x0, "x0")
    if not (np.isfinite(time) and time > 0) or int(points) != points or points < 2:
        raise ValueError(f"time must be > 0 and points an integer >= 2; got time={time}, "
                         f"points={points}")
    return _integrate(table, _logs(x0[None]), time, np.linspace(0, time, int(points)))[0][0]


def _snap(x: np.ndarray) -> np.ndarray:
    """Shares below 1e-6 set to 0: a trajectory reaches a face only asymptotically."""
    x = np.where(x < 1e-6, 0.0, x)
    return x / x.sum()


def _lattice(m: int, resolution: int) -> np.ndarray:
    """Interior points of the simplex: (c + 1) / (resolution + m) for every composition c of
    ``resolution`` over m parts; 0 gives the barycentre."""
    return (all_mixes(range(m), resolution) + 1) / (resolution + m)


def _resolution(m: int, most: int) -> int:
    """The finest lattice with at most ``most`` points (at most 10 divisions)."""
    return max([0] + [h for h in range(1, 11) if math.comb(h + m - 1, m - 1) <= most])


@dataclass(frozen=True, eq=False)
class RestPoint:
    """Where trajectories end: ``shares`` (NaN for trajectories still moving at the horizon,
    e.g. on a cycle), ``basin`` (the share of starting points that end there) and
    ``settled``."""
    shares: np.ndarray
    basin: float
    settled: bool


def rest_points(game: EmpiricalGame, starts=None, horizon: float = HORIZON) -> list[RestPoint]:
    """Where replicator trajectories end: from each of ``starts`` (an array (n, m) of shares,
    or an integer lattice resolution; default up to 40 interior points, 11 for two
    behaviours, evenly over the simplex), integrate until every trajectory has settled or
    until ``horizon``; group the end points closer than ``SAME``. Shares below 1e-6 are
    reported as 0 (a face is only reached asymptotically). Trajectories still moving are
    pooled in one unsettled entry. Ordered by basin, largest first."""
    table, m = _Table(game), len(game.behaviours)
    if starts is None or np.ndim(starts) == 0:
        starts = _lattice(m, _resolution(m, 40) if starts is None else operator.index(starts))
    else:
        starts = np.array([_shares(game, x, "a start") for x in starts])
    ends, settled = _ends(table, starts, horizon)
    groups = []
    for end in ends[settled]:
        for group in groups:
            if np.abs(group[0] - end).max() < SAME:
                group.append(end)
                break
        else:
            groups.append([end])
    points = [RestPoint(_snap(np.mean(group, axis=0)), len(group) / len(starts), True)
              for group in groups]
    if not settled.all():
        points.append(RestPoint(np.full(m, np.nan), float(np.mean(~settled)), False))
    return sorted(points, key=lambda p: -p.basin)


# --- Nash equilibria -----------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Equilibrium:
    """A symmetric Nash equilibrium: ``shares`` of the behaviours, the ``payoff`` every
    behaviour of the ``support`` earns, and its ``stability`` under the replicator dynamics
    ("stable": every eigenvalue of the Jacobian on the simplex has a negative real part,
    "unstable": one has a positive real part, "neutral": neither, e.g. a centre)."""
    shares: np.ndarray
    payoff: float
    support: tuple
    stability: str


def _stability(table: _Table, x: np.ndarray, step: float = 1e-6) -> str:
    """Linear stability of the rest point ``x`` (Hofbauer & Sigmund 1998, ch. 7): the
    eigenvalues of the replicator Jacobian restricted to the simplex's tangent space (sum 0),
    by central differences along an orthonormal basis of it."""
    m = len(x)
    if m == 1:
        return "stable"
    basis = np.linalg.svd(np.eye(m) - 1.0 / m)[0][:, :m - 1]
    columns = [(table.velocity(x + step * b) - table.velocity(x - step * b)) / (2 * step)
               for b in basis.T]
    top = np.linalg.eigvals(basis.T @ np.array(columns).T).real.max()
    return "stable" if top < -EIGEN_TOLERANCE else \
        "unstable" if top > EIGEN_TOLERANCE else "neutral"


def _edge_roots(table: _Table, a: int, b: int, tolerance: float) -> list[np.ndarray]:
    """Shares t of a (1 - t of b), 0 < t < 1, at which f_a = f_b: with s = t / (1 - t),
    (f_a - f_b)(t) = (1 - t)^n sum_j C(n, j) s^j d_j, n = N-1, d_j = P_a(j+1 a, n-j b) -
    P_b(j a, n-j+1 b): the positive real roots of a polynomial in s. An edge on which
    f_a = f_b everywhere (a continuum of equilibria) gives none."""
    m, n = len(table.game.behaviours), table.game.players - 1
    d = np.empty(n + 1)
    for j in range(n + 1):
        others = [0] * m
        others[a], others[b] = j, n - j
        row = table.row[tuple(others)]
        d[j] = math.comb(n, j) * (table.payoff[row, a] - table.payoff[row, b])
    if np.abs(d).max() <= tolerance * table.spread:
        return []
    roots = np.polynomial.polynomial.polyroots(np.trim_zeros(d, "b"))
    found = []
    for s in roots:
        if abs(s.imag) <= 1e-6 * (1 + abs(s)) and s.real > 0:
            t = s.real / (1 + s.real)
            if 1e-12 < t < 1 - 1e-12:
                x = np.zeros(m)
                x[a], x[b] = t, 1 - t
                found.append(x)
    return found


def _interior_roots(table: _Table, support: tuple) -> list[np.ndarray]:
    """Shares in the relative interior of the face ``support`` (3 or more behaviours) at
    which every behaviour of the support earns the same: roots (scipy.optimize.root, hybr)
    of f_{s_i} - f_{s_0}, i >= 1, in logit coordinates x_s ~ exp(z_s), z_{s_0} = 0, from a
    lattice of starting points over the face and ``EDGE_STARTS`` more drawn from a
    Dirichlet(1/2) (fixed seed), which reach roots close to the face's boundary. A root
    finder from finitely many starts can still miss an equilibrium."""
    m, size, chosen = len(table.game.behaviours), len(support), list(support)

    def shares(z):
        w = np.exp(np.concatenate([[0.0], z]) - max(0.0, z.max()))
        x = np.zeros(m)
        x[chosen] = w / w.sum()
        return x

    def residual(z):
        f = table(shares(z))[chosen] / table.spread
        return f[1:] - f[0]

    found = []
    edge = np.random.default_rng(size).dirichlet(np.full(size, 0.5), EDGE_STARTS)
    for start in np.concatenate([_lattice(size, _resolution(size, 15)),
                                 np.clip(edge, 1e-6, None)]):
        z = optimize.root(residual, np.log(start[1:] / start[0]), method="hybr").x
        if np.isfinite(z).all():
            found.append(shares(z))
    return found


def nash_equilibria(game: EmpiricalGame, tolerance: float = 1e-8,
                    supports=None) -> list[Equilibrium]:
    """The symmetric Nash equilibria of the empirical game: shares x at which every behaviour
    of the support earns the most, f_k(x) = max_j f_j(x) (Nash 1951: a symmetric game has
    one). Support enumeration (e.g. Porter, Nudelman & Shoham 2008): for every support S,
    the points of the relative interior of its face where the behaviours of S earn the same
    -- pure for ``|S| = 1``, the roots of a polynomial for ``|S| = 2`` (``_edge_roots``), numerical
    roots from several starts for ``|S| >= 3`` -- kept if those payoffs agree and no behaviour
    outside S earns more, within ``tolerance`` (units of the payoff range). Equilibria closer
    than ``SAME_EQUILIBRIUM`` are one (the smaller support kept). Isolated equilibria only: a
    face on which behaviours tie everywhere holds a continuum, of which only the equilibria
    on its boundary are found. ``supports`` (tuples of behaviour names) limits the search to
    those supports (the bootstrap's). Needs the complete table."""
    table, m = _Table(game), len(game.behaviours)
    table.complete()
    slack, found = tolerance * table.spread, []
    wanted = None if supports is None else {
        tuple(sorted(game.behaviours.index(name) for name in support)) for support in supports}
    for size in range(1, m + 1):
        for support in itertools.combinations(range(m), size):
            if wanted is not None and support not in wanted:
                continue
            if size == 1:
                candidates = [np.eye(m)[support[0]]]
            elif size == 2:
                candidates = _edge_roots(table, *support, tolerance)
            else:
                candidates = _interior_roots(table, support)
            for x in candidates:
                f = table(x)
                inside = f[list(support)]
                if x[list(support)].min() <= 1e-9 or np.ptp(inside) > slack \
                        or f.max() > inside.max() + slack \
                        or any(np.abs(x - e.shares).max() < SAME_EQUILIBRIUM for e in found):
                    continue
                found.append(Equilibrium(x, float(x @ f), tuple(
                    game.behaviours[k] for k in support), _stability(table, x)))
    return found


# --- Moran process -------------------------------------------------------------------------

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


def _selection(selection) -> float:
    try:
        beta = float(selection)
    except (TypeError, ValueError):
        beta = math.nan
    if not math.isfinite(beta) or beta < 0:
        raise ValueError(f"selection must be a finite number >= 0; got {selection!r}")
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


def _check(game, population_size, selection, uncertain: Uncertainty | None):
    if uncertain is not None and (
            tuple(uncertain.behaviours) != tuple(game.behaviours)
            or uncertain.population_size != population_size
            or uncertain.selection != float(selection)):
        raise ValueError("the uncertainty was computed for other behaviours, population size "
                         "or selection than those given")


# --- figure and report ---------------------------------------------------------------------

#: Marker of an equilibrium by stability: filled, open, half-filled.
MARKERS = {"stable": dict(markerfacecolor=PALETTE[3]),
           "unstable": dict(markerfacecolor="white"),
           "neutral": dict(markerfacecolor=PALETTE[3], fillstyle="left",
                           markerfacecoloralt="white")}
CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, math.sqrt(3) / 2]])


def _mark(ax, equilibria, position):
    """One marker per equilibrium at ``position(shares)``, one legend entry per stability."""
    for kind, style in MARKERS.items():
        here = [position(e.shares) for e in equilibria if e.stability == kind]
        if here:
            xs, ys = zip(*here)
            ax.plot(xs, ys, linestyle="none", marker="o", markersize=7, zorder=5, clip_on=False,
                    color=PALETTE[3], markeredgecolor=PALETTE[3], label=f"{kind} equilibrium",
                    **style)


def _arrow(ax, start, end):
    ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="->", color=PALETTE[0],
                                                          lw=1))


def _flow_panel(ax, table, equilibria, uncertain):
    """m = 2: dx/dt = x (1-x) (f_1 - f_2) against the share x of the first behaviour."""
    names = table.game.behaviours
    x = np.linspace(0, 1, 201)
    flow = x * (1 - x) * (table(np.column_stack([x, 1 - x])) @ [1.0, -1.0])
    ax.axhline(0, color="0.5", linewidth=0.8)
    ax.plot(x, flow, color=PALETTE[0], label="replicator flow dx/dt (arrows: direction)")
    rests = sorted({0.0, 1.0, *(float(e.shares[0]) for e in equilibria)})
    width = 0.03
    for left, right in zip(rests, rests[1:]):
        middle, value = (left + right) / 2, np.interp((left + right) / 2, x, flow)
        if right - left > 3 * width and abs(value) > 1e-12:
            sign = np.sign(value)
            _arrow(ax, (middle - sign * width, 0), (middle + sign * width, 0))
    _mark(ax, equilibria, lambda s: (s[0], 0.0))
    if uncertain is not None and uncertain.found.any():
        found = uncertain.found > 0
        # a percentile interval need not contain the point estimate: drawn from end to end
        for index, (low, high) in enumerate(zip(uncertain.shares_low[found, 0],
                                                uncertain.shares_high[found, 0])):
            ax.plot([low, high], [0, 0], color="0.2", marker="|", markersize=8,
                    label=f"{uncertain.confidence:.0%} bootstrap interval" if index == 0
                    else None)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"share x of {names[0]} (1 - x: {names[1]})")
    ax.set_ylabel(f"dx/dt = x(1-x)(f_{names[0]} - f_{names[1]}) (payoff)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))


def _simplex_panel(ax, table, equilibria, uncertain):
    """m = 3: trajectories in the simplex (ternary plot) with the equilibria."""
    names = table.game.behaviours
    ax.plot(*CORNERS[[0, 1, 2, 0]].T, color="0.3", linewidth=0.8, label="_nolegend_")
    for corner, name, align in zip(CORNERS, names, ("right", "left", "center")):
        ax.text(corner[0], corner[1] + (0.04 if align == "center" else -0.06), name,
                ha=align, va="center")
    starts = _lattice(3, 3)
    time = TIME
    paths = _integrate(table, _logs(starts), time, np.linspace(0, time, 400))[0] @ CORNERS
    for i, path in enumerate(paths):
        ax.plot(*path.T, color=PALETTE[0], linewidth=0.8, alpha=0.8,
                label="trajectory" if i == 0 else "_nolegend_")
        _arrow(ax, path[len(path) // 8], path[len(path) // 8 + 2])
    _mark(ax, equilibria, lambda s: tuple(s @ CORNERS))
    if uncertain is not None and np.isfinite(uncertain.ends).any():
        ends = uncertain.ends[np.isfinite(uncertain.ends).all(axis=1)] @ CORNERS
        ax.plot(*ends.T, linestyle="none", marker="x", color=PALETTE[4], markersize=4,
                label="end from barycentre (bootstrap)")
    ax.set_aspect("equal")
    ax.axis("off")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), ncols=2)


def _time_panel(ax, table, uncertain):
    """m > 3: shares against time from the barycentre (thick) and five random starts."""
    m, names = len(table.game.behaviours), table.game.behaviours
    starts = np.vstack([np.full(m, 1.0 / m), np.random.default_rng(0).dirichlet(
        np.ones(m), 5)])
    times = np.linspace(0, TIME, 300)
    paths = _integrate(table, _logs(starts), TIME, times)[0]
    for k in range(m):
        colour = PALETTE[k % len(PALETTE)]
        for path in paths[1:]:
            ax.plot(times, path[:, k], color=colour, linewidth=0.6, alpha=0.35,
                    label="_nolegend_")
        ax.plot(times, paths[0][:, k], color=colour, linewidth=1.6, label=names[k])
    if uncertain is not None and np.isfinite(uncertain.end_low).all():
        middle = (uncertain.end_low + uncertain.end_high) / 2
        ax.errorbar(np.full(m, TIME), middle, yerr=(uncertain.end_high - uncertain.end_low)
                    / 2, fmt="none", ecolor="0.2",
                    label=f"end from barycentre, {uncertain.confidence:.0%} bootstrap")
    ax.set_xlabel("time (1 / payoff range)")
    ax.set_ylabel("share (fraction)")
    ax.set_title("(a) replicator dynamics\nthick: from the barycentre; thin: random starts")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))


def _heatmap(fig, ax, game, rho, z, selection, uncertain):
    """Fixation probabilities, resident rows x mutant columns, coloured by log10(rho Z)."""
    names, m = game.behaviours, len(game.behaviours)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log10(rho * z)
    finite = ratio[np.isfinite(ratio)]
    top = max(1.0, float(np.abs(finite).max()) if finite.size else 1.0)
    cmap = matplotlib.colormaps["PuOr_r"].with_extremes(bad="0.92")
    image = ax.imshow(np.ma.masked_invalid(np.clip(ratio, -top, top)), cmap=cmap,
                      norm=TwoSlopeNorm(0.0, -top, top))
    for j, k in itertools.product(range(m), range(m)):
        if j == k:
            ax.text(k, j, "-", ha="center", va="center")
            continue
        text = f"{rho[j, k]:.2g}"
        if uncertain is not None:
            text += f"\n[{uncertain.fixation_low[j, k]:.1g}, " \
                    f"{uncertain.fixation_high[j, k]:.1g}]"
        strong = np.isfinite(ratio[j, k]) and abs(ratio[j, k]) > 0.6 * top
        ax.text(k, j, text, ha="center", va="center", fontsize=7 if uncertain is None else 6,
                color="white" if strong else "black")
    ax.set_xticks(range(m), names, rotation=30, ha="right")
    ax.set_yticks(range(m), names)
    ax.set_xlabel("mutant")
    ax.set_ylabel("resident")
    ax.grid(False)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label("log10(ρ Z) (0 = neutral)")
    interval = "" if uncertain is None else \
        f"\n[{uncertain.confidence:.0%} bootstrap interval]"
    ax.set_title(f"(b) Moran fixation probability ρ{interval}\nZ = {z}, β = {selection:.3g}; "
                 f"neutral 1/Z = {1 / z:.3g}")


def evolution_figure(game: EmpiricalGame, population_size: int, selection: float,
                     uncertainty: Uncertainty | None = None, title: str | None = None) -> Figure:
    """(a) The replicator dynamics -- for 2 behaviours the flow dx/dt against the share of the
    first, for 3 a ternary plot of trajectories, for more the shares against time -- with
    the Nash equilibria (filled: stable, open: unstable, half: neutral); (b) the fixation
    probabilities (resident rows, mutant columns) with their bootstrap intervals if
    ``uncertainty`` is given, coloured by how far they are from neutral 1/Z."""
    _check(game, population_size, selection, uncertainty)
    table, m = _Table(game), len(game.behaviours)
    rho = fixation(game, population_size, selection)
    equilibria = nash_equilibria(game) if m <= 3 else []
    fig = PaperFigure((1, 2), margin=1.8 if m > 3 else 1.4)
    with matplotlib.rc_context(STYLE):
        flow_ax, heat_ax = fig.subplots(1, 2)
        if m == 2:
            _flow_panel(flow_ax, table, equilibria, uncertainty)
        elif m == 3:
            _simplex_panel(flow_ax, table, equilibria, uncertainty)
        else:
            _time_panel(flow_ax, table, uncertainty)
        if m <= 3:
            flow_ax.set_title("(a) replicator dynamics")
        _heatmap(fig, heat_ax, game, rho, _population(game, population_size), selection,
                 uncertainty)
        fig.suptitle(title or f"Evolutionary dynamics of {', '.join(game.behaviours)} "
                              f"({game.players} players per game)")
    return fig


def report(game: EmpiricalGame, population_size: int, selection: float,
           uncertainty: Uncertainty | None = None) -> dict[str, pd.DataFrame]:
    """Tables for printing: "equilibria" (support, shares, payoff, stability; with the
    uncertainty, how often each is found and its shares' interval), "fixation" (one row per
    resident and mutant: rho, rho Z and its interval), "rest_points" (where trajectories
    from a lattice of interior starts end, and the share of starts) and "barycentre" (where
    the trajectory from the barycentre ends, with its interval)."""
    _check(game, population_size, selection, uncertainty)
    names, z = list(game.behaviours), _population(game, population_size)
    level = f"{(uncertainty.confidence if uncertainty else CONFIDENCE):.0%}"
    equilibria = nash_equilibria(game)
    table = pd.DataFrame({"support": [" + ".join(e.support) for e in equilibria],
                          **{name: [e.shares[k] for e in equilibria]
                             for k, name in enumerate(names)},
                          "payoff": [e.payoff for e in equilibria],
                          "stability": [e.stability for e in equilibria]})
    rho = fixation(game, z, selection)
    pairs = list(itertools.permutations(range(len(names)), 2))
    moran = pd.DataFrame({"resident": [names[j] for j, _ in pairs],
                          "mutant": [names[k] for _, k in pairs],
                          "fixation probability": [rho[p] for p in pairs],
                          "rho Z (1 = neutral)": [rho[p] * z for p in pairs]})
    rests = rest_points(game)
    rest = pd.DataFrame({**{name: [p.shares[k] for p in rests] for k, name in enumerate(names)},
                         "share of starts": [p.basin for p in rests],
                         "settled": [p.settled for p in rests]})
    end = _barycentre_end(game)
    barycentre = pd.DataFrame({"behaviour": names, "end share": end})
    if uncertainty is not None:
        rows = [int(np.argmin([np.abs(e.shares - u.shares).max()
                               for u in uncertainty.equilibria])) for e in equilibria]
        table["found in resamples"] = [uncertainty.found[i] for i in rows]
        for k, name in enumerate(names):
            table[f"{name} {level} low"] = [uncertainty.shares_low[i, k] for i in rows]
            table[f"{name} {level} high"] = [uncertainty.shares_high[i, k] for i in rows]
        moran[f"{level} low"] = [uncertainty.fixation_low[p] for p in pairs]
        moran[f"{level} high"] = [uncertainty.fixation_high[p] for p in pairs]
        barycentre[f"{level} low"] = uncertainty.end_low
        barycentre[f"{level} high"] = uncertainty.end_high
        barycentre["settled in resamples"] = np.isfinite(uncertainty.ends).all(axis=1).mean()
    return {"equilibria": table, "fixation": moran, "rest_points": rest,
            "barycentre": barycentre}
