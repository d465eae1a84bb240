"""The replicator dynamics of an empirical game (docs/game-theory.md): ``expected_payoffs(game,
x)``, f_k(x), the payoff of behaviour k when its N-1 co-players are drawn from an infinite
population with shares x (Tuyls et al. 2018); ``replicator``, the dynamics dx_k/dt = x_k (f_k -
x.f) (Taylor & Jonker 1978); ``rest_points``, where its trajectories end.

Time is measured in units of 1/Delta, Delta the range of the table's payoffs (largest minus
smallest): a positive affine change of the payoffs leaves the orbits unchanged and only
rescales time. References: ``dilemmas.analysis.game_theory.evolution``.
"""


import math
import operator
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from dilemmas.analysis.game_theory.payoffs import EmpiricalGame, all_mixes


#: Replicator time (units of 1/payoff range) of ``replicator`` and of the figure.
TIME = 50.0
#: Longest replicator time ``rest_points`` waits for a trajectory to settle.
HORIZON = 1000.0
#: A trajectory has settled when no share moves faster than this (per unit of time).
SETTLED = 1e-7
#: Shares closer than this (largest difference) are the same rest point or equilibrium.
SAME = 1e-3
#: Integration tolerances (solve_ivp, RK45).
RTOL, ATOL = 1e-8, 1e-12
#: Replicator Jacobian eigenvalues within this of 0 (units of payoff range) are "neutral".
EIGEN_TOLERANCE = 1e-6


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

