"""alpha-Rank (dilemmas.analysis.game_theory.alpharank) against stationary distributions
computed by hand, an independent birth-death chain, symmetry, and OpenSpiel's alpharank."""

import itertools
from math import comb

import numpy as np
import pytest

from dilemmas.analysis.game_theory.alpharank import (
    ProfileGame, alpharank, fermi_fixation, sweep, uncertainty)
from dilemmas.analysis.game_theory.payoffs import EmpiricalGame, all_mixes


def symmetric(matrix, names=None) -> EmpiricalGame:
    """The two-seat symmetric game of ``matrix`` (row player's payoffs) as a payoff table."""
    matrix = np.asarray(matrix, dtype=float)
    m = len(matrix)
    names = tuple(names or "abcdefgh"[:m])
    counts = all_mixes(names, 2)
    means = []
    for mix in counts:
        row, present = np.full(m, np.nan), np.flatnonzero(mix)
        if len(present) == 1:
            row[present[0]] = matrix[present[0], present[0]]
        else:
            i, j = present
            row[i], row[j] = matrix[i, j], matrix[j, i]
        means.append(row)
    return EmpiricalGame.from_means(names, 2, counts, means)


def three_seat(payoff) -> EmpiricalGame:
    """A three-seat symmetric game of two strategies: ``payoff(k, a)`` is the payoff of
    strategy k when a of the three seats play strategy 0."""
    counts = all_mixes(("a", "b"), 3)
    means = [[payoff(0, c[0]) if c[0] else np.nan, payoff(1, c[0]) if c[1] else np.nan]
             for c in counts]
    return EmpiricalGame.from_means(("a", "b"), 3, counts, means)


def closed_form(u, z):
    return 1 / z if u == 0 else (1 - np.exp(-u)) / (1 - np.exp(-z * u))


def test_two_strategies_three_seats_local_by_hand():
    """Two states: pi_a / pi_b = rho(a invades b) / rho(b invades a), each rho the closed
    form at the mix of one mutant and two residents."""
    game = three_seat(lambda k, a: [3.0 * a, 1.0 + a][k])
    alpha, z = 0.7, 12
    # a mutant a among b: mix a=1 -> f_a = 3, f_b = 2; a mutant b among a: a=2 -> f_b = 3, f_a = 6
    rho_ab, rho_ba = closed_form(alpha * (3 - 2), z), closed_form(alpha * (3 - 6), z)
    ratio = rho_ab / rho_ba
    result = alpharank(game, alpha, z)
    assert result.stationary == pytest.approx([ratio / (1 + ratio), 1 / (1 + ratio)],
                                              rel=1e-12)
    assert result.fixation[1, 0] == pytest.approx(rho_ab, rel=1e-12)


def birth_death_fixation(f_mutant, f_resident, alpha, z):
    """The fixation probability of one mutant in the pairwise-comparison process, by solving
    the absorption equations of the birth-death chain on 0..z mutants directly."""
    i = np.arange(1, z)
    meet = i / z * (z - i) / z
    up = meet / (1 + np.exp(-alpha * (f_mutant(i) - f_resident(i))))
    down = meet / (1 + np.exp(alpha * (f_mutant(i) - f_resident(i))))
    a = np.zeros((z + 1, z + 1))
    b = np.zeros(z + 1)
    a[0, 0] = a[z, z] = 1.0
    b[z] = 1.0
    for k, state in enumerate(i):
        a[state, state - 1], a[state, state + 1] = -down[k], -up[k]
        a[state, state] = up[k] + down[k]
    return np.linalg.solve(a, b)[1]


def test_three_seats_not_local_against_the_birth_death_chain():
    """With local=False each individual meets two co-players drawn without replacement from
    the other z - 1: the fixation probabilities agree with the birth-death chain solved
    directly, and pi with the two-state formula."""
    payoff = lambda k, a: [4.0 * a - 1.0, 2.0 + 0.5 * a][k]  # noqa: E731
    game, alpha, z = three_seat(payoff), 0.4, 9

    def expected(k, mutants, mutant):
        """Mean payoff of strategy k with ``mutants`` mutants of strategy ``mutant`` in the
        population, over its two co-players drawn from the other z - 1."""
        own = k == mutant
        others_mutant = mutants - own
        total = 0.0
        for drawn in range(3):  # mutants among the two co-players
            weight = comb(others_mutant, drawn) * comb(z - 1 - others_mutant, 2 - drawn) \
                / comb(z - 1, 2)
            zeros = drawn + own if mutant == 0 else 3 - drawn - own  # seats playing a
            total += weight * payoff(k, zeros)
        return total

    for mutant, resident in ((0, 1), (1, 0)):
        rho = birth_death_fixation(
            np.vectorize(lambda n: expected(mutant, n, mutant)),
            np.vectorize(lambda n: expected(resident, n, mutant)), alpha, z)
        assert alpharank(game, alpha, z, local=False).fixation[resident, mutant] == \
            pytest.approx(rho, rel=1e-9)


def test_alpha_zero_is_uniform_and_rock_paper_scissors_is_uniform_at_any_alpha():
    rng = np.random.default_rng(0)
    assert alpharank(symmetric(rng.normal(size=(4, 4))), 0.0, 30).stationary == \
        pytest.approx(np.full(4, 0.25), abs=1e-14)
    rps = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    for alpha in (0.1, 3.0, 50.0):
        assert alpharank(symmetric(rps), alpha, 40).stationary == \
            pytest.approx(np.full(3, 1 / 3), abs=1e-12)


def test_prisoners_dilemma_ranks_defection_first():
    pd_ = symmetric([[3, 0], [5, 1]], ("cooperate", "defect"))
    result = alpharank(pd_, 2.0, 50)
    assert result.table()["state"].tolist() == ["defect", "cooperate"]
    # pi_c / pi_d = rho(c invades d) / rho(d invades c), u = 2 (0 - 1) and 2 (5 - 3)
    ratio = closed_form(-2.0, 50) / closed_form(4.0, 50)
    assert result.stationary[0] == pytest.approx(ratio / (1 + ratio), rel=1e-10)


def test_nearly_reducible_chains_keep_their_accuracy():
    """A coordination game at a large alpha: fixation probabilities near 1e-250 out of both
    equilibria, whose ratio still sets pi; the elimination keeps it, and a chain whose
    probabilities are 0 in floating point is refused."""
    game = three_seat(lambda k, a: [1.5 * a, 3.0 - a][k])  # a: 1.5 per a seat, b: 1 per b
    alpha, z = 5.0, 50
    rho_ab = float(fermi_fixation(alpha * (1.5 - 2.0), z))  # one a among two b
    rho_ba = float(fermi_fixation(alpha * (1.0 - 3.0), z))  # one b among two a
    assert 0 < rho_ba < 1e-200 and rho_ab < 1e-50
    result = alpharank(game, alpha, z)
    assert np.log(result.stationary[1]) == pytest.approx(np.log(rho_ba) - np.log(rho_ab),
                                                         rel=1e-9)
    with pytest.raises(ValueError, match="2 stationary distributions.*lower it"):
        alpharank(game, 1e4, z)


def test_fermi_fixation_is_finite_and_exact():
    z = 20
    for u in (-900.0, -3.0, -1e-9, 0.0, 1e-9, 2.5, 900.0):
        value = float(fermi_fixation(u, z))
        assert np.isfinite(value) and 0 <= value <= 1
        if abs(u) < 50 and u != 0:
            assert value == pytest.approx(closed_form(u, z), rel=1e-6)
    assert float(fermi_fixation(0.0, z)) == 1 / z


def test_multipopulation_matching_pennies_and_by_hand():
    """Matching pennies cycles through its four profiles: pi uniform. A 2 x 2 game with one
    strict equilibrium it reaches from everywhere gives, at large alpha, all mass on it."""
    pennies = np.zeros((2, 2, 2))
    for i, j in itertools.product(range(2), repeat=2):
        pennies[i, j] = [1, -1] if i == j else [-1, 1]
    game = ProfileGame.from_means((("heads", "tails"), ("heads", "tails")), pennies)
    assert alpharank(game, 5.0, 30).stationary == pytest.approx(np.full(4, 0.25), abs=1e-12)
    dominant = np.zeros((2, 2, 2))
    for i, j in itertools.product(range(2), repeat=2):
        dominant[i, j] = [i + 0.5 * j, j + 0.25 * i]  # strategy 1 dominant for both seats
    result = alpharank(ProfileGame.from_means((("x", "y"), ("x", "y")), dominant), 20.0, 30)
    assert result.table().iloc[0]["state"] == "y, y"
    assert result.stationary[3] > 1 - 1e-9


def test_sweep_and_bootstrap():
    """The sweep is alpharank at each alpha; the bootstrap is reproducible from its seed,
    its intervals of width 0 with one run per mix, and around the point estimate with
    noisy runs."""
    game = symmetric([[3, 0], [5, 1]])
    table = sweep(game, [0.0, 1.0, 10.0], 20)
    assert table["a"].tolist() == pytest.approx(
        [alpharank(game, a, 20).stationary[0] for a in (0.0, 1.0, 10.0)])
    exact = uncertainty(game, 1.0, 20, resamples=5)
    assert exact.low == pytest.approx(exact.high)
    rng = np.random.default_rng(3)
    counts = all_mixes(("a", "b"), 2)
    centre = symmetric([[3, 0], [5, 1]]).means
    noisy = EmpiricalGame(("a", "b"), 2, counts, tuple(
        mean + rng.normal(0, 0.3, size=(40, 2)) * np.where(np.isnan(mean), np.nan, 1)
        for mean in centre))
    one, two = (uncertainty(noisy, 0.5, 20, resamples=50, seed=9) for _ in range(2))
    assert np.array_equal(one.stationary, two.stationary)
    point = alpharank(noisy, 0.5, 20).stationary
    assert ((one.low <= point) & (point <= one.high)).all()
    assert one.first.sum() == pytest.approx(1.0)


def test_bad_input_is_named():
    game = symmetric([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="population_size"):
        alpharank(game, 1.0, 1)
    with pytest.raises(ValueError, match="alpha must be a finite number"):
        alpharank(game, float("nan"), 10)
    partial = EmpiricalGame.from_means(("a", "b"), 2, [[2, 0], [0, 2]],
                                       [[1.0, np.nan], [np.nan, 1.0]])
    with pytest.raises(ValueError, match=r"mix \{'a': 1, 'b': 1\}, which is missing"):
        alpharank(partial, 1.0, 10)
    unplayed = ProfileGame((("x", "y"), ("x", "y")), [[0, 0], [0, 1], [1, 0]],
                           ([[1.0, 1.0]], [[0.0, 2.0]], [[2.0, 0.0]]))
    with pytest.raises(ValueError, match="seat 0 in the profile y, y, which was not played"):
        alpharank(unplayed, 1.0, 10)


# --- against OpenSpiel -------------------------------------------------------------------

def test_agrees_with_openspiel():
    """Random two-seat symmetric games (local and not) and random three-seat games of one
    population per seat: pi as OpenSpiel's alpharank.compute gives it, to 1e-12."""
    osp = pytest.importorskip("open_spiel.python.egt.alpharank")
    rng = np.random.default_rng(7)
    for m, local, alpha in itertools.product((2, 3, 5), (True, False), (0.1, 1.0, 5.0)):
        matrix = rng.normal(size=(m, m))
        _, _, pi, _, _ = osp.compute([matrix], m=20, alpha=alpha,
                                     use_local_selection_model=local)
        assert alpharank(symmetric(matrix), alpha, 20, local).stationary == \
            pytest.approx(pi, abs=1e-12)
    for sizes in ((2, 2), (3, 2), (2, 3, 2), (3, 3, 2)):
        tables = [rng.normal(size=sizes) for _ in sizes]
        _, _, pi, _, _ = osp.compute(tables, m=30, alpha=2.0)
        strategies = [tuple(f"s{k}.{i}" for i in range(n)) for k, n in enumerate(sizes)]
        game = ProfileGame.from_means(strategies, np.stack(tables, axis=-1))
        assert alpharank(game, 2.0, 30).stationary == pytest.approx(pi, abs=1e-12)


def test_masses_far_apart_do_not_overflow():
    """A Stag Hunt's two-seat profile table (three strategies per seat, payoffs as measured)
    at a ranking intensity of 10 per payoff range: masses span more than 1e300, which
    overflowed the elimination before its back substitution was rescaled; pi is finite, adds
    up to 1 and puts its mass on (hare, hare), where both seats' best responses lead."""
    from dilemmas.analysis.game_theory.alpharank import relative_alpha

    payoffs = np.array([[[3.0, 2.25], [3.0, 28.5], [0.75, 3.75]],
                        [[26.625, 4.875], [30.0, 32.25], [34.125, 4.875]],
                        [[4.875, 3.375], [6.375, 31.875], [4.875, 5.625]]])
    names = ("stag", "hare", "bot")
    game = ProfileGame.from_means((names, names), payoffs)
    pi = alpharank(game, relative_alpha(game, 10.0), 50).stationary
    assert np.isfinite(pi).all() and pi.sum() == pytest.approx(1.0)
    assert pi[4] == pytest.approx(1.0)
