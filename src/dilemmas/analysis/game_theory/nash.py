"""The symmetric Nash equilibria of an empirical game, by support enumeration, with their
stability under the replicator dynamics (docs/game-theory.md; Hofbauer & Sigmund 1998).
Payoff tolerances are in units of the table's payoff range
(``dilemmas.analysis.game_theory.dynamics``)."""


import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from dilemmas.analysis.game_theory.payoffs import EmpiricalGame
from dilemmas.analysis.game_theory.dynamics import EIGEN_TOLERANCE, _lattice, _resolution, _Table


SAME_EQUILIBRIUM = 1e-6
#: Starting points of the root finder near the faces, per support of 3 or more behaviours.
EDGE_STARTS = 30


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

