"""Evolutionary dynamics of empirical games (dilemmas/analysis/game_theory/evolution.py) on games known exactly:
a public goods game (defection dominates), a coordination game (two stable pure equilibria
and a mixed one in closed form), rock-paper-scissors (equilibrium at the barycentre), Moran
fixation against its closed form and a brute-force Markov chain, and the bootstrap."""

import io
import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dilemmas.analysis.game_theory import evolution  # noqa: E402
from dilemmas.analysis.game_theory.payoffs import EmpiricalGame, all_mixes  # noqa: E402


def public_goods(players=4, r=3.0) -> EmpiricalGame:
    """Endowment 1, multiplier r < N: with c cooperators a cooperator earns r c / N and a
    defector r c / N + 1."""
    counts = all_mixes(("cooperate", "defect"), players)
    means = [[r * c / players if c else np.nan, r * c / players + 1 if d else np.nan]
             for c, d in counts]
    return EmpiricalGame.from_means(("cooperate", "defect"), players, counts, means)


def coordination(players=4, a=1.0, b=2.0) -> EmpiricalGame:
    """A earns a per A seat of the mix, B earns b per B seat."""
    counts = all_mixes(("A", "B"), players)
    means = [[a * na if na else np.nan, b * nb if nb else np.nan] for na, nb in counts]
    return EmpiricalGame.from_means(("A", "B"), players, counts, means)


def mixed_point(players=4, a=1.0, b=2.0) -> float:
    """f_A = a (1 + (N-1) x) = b (1 + (N-1)(1 - x)) = f_B: x = (b N - a) / ((N-1)(a + b))."""
    return (b * players - a) / ((players - 1) * (a + b))


def rock_paper_scissors(win=1.0, loss=1.0) -> EmpiricalGame:
    """Two players; paper beats rock beats scissors beats paper: the winner earns ``win``,
    the loser ``-loss``."""
    matrix = np.array([[0, -loss, win], [win, 0, -loss], [-loss, win, 0]])
    counts = all_mixes(("rock", "paper", "scissors"), 2)
    means = []
    for mix in counts:
        one, two = np.repeat(np.arange(3), mix)
        row = np.full(3, np.nan)
        row[one], row[two] = matrix[one, two], matrix[two, one]
        means.append(row)
    return EmpiricalGame.from_means(("rock", "paper", "scissors"), 2, counts, means)


def constant(payoffs, players=3) -> EmpiricalGame:
    """Each behaviour earns the same whatever the mix."""
    counts = all_mixes(tuple("ABC")[:len(payoffs)], players)
    means = np.where(counts > 0, np.asarray(payoffs, dtype=float), np.nan)
    return EmpiricalGame.from_means(tuple("ABC")[:len(payoffs)], players, counts, means)


def noisy(game: EmpiricalGame, runs=400, sd=0.5, seed=2024) -> EmpiricalGame:
    """``game`` observed through ``runs`` runs per mix with normal noise."""
    rng = np.random.default_rng(seed)
    return EmpiricalGame(game.behaviours, game.players, game.counts, tuple(
        mean + rng.normal(0, sd, (runs, len(mean))) for mean in game.means))


# --- expected payoffs, replicator, Nash ----------------------------------------------------

@pytest.mark.parametrize("share", [0.0, 0.2, 0.5, 0.9, 1.0])
def test_expected_payoffs_of_public_goods_match_the_closed_form(share):
    players, r = 4, 3.0
    f = evolution.expected_payoffs(public_goods(players, r), [share, 1 - share])
    assert f[0] == pytest.approx(r * (1 + (players - 1) * share) / players, abs=1e-12)
    assert f[1] == pytest.approx(r * (players - 1) * share / players + 1, abs=1e-12)


def test_defection_dominates_the_public_goods_game():
    game = public_goods()
    # f_C - f_D = r/N - 1 = -1/4: time in units of 1/payoff range (2.5), so x_C ~ e^(-t/10)
    path = evolution.replicator(game, [0.9, 0.1], time=300, points=50)
    assert path.shape == (50, 2) and np.allclose(path.sum(axis=1), 1)
    assert np.all(np.diff(path[:, 0]) < 0) and path[-1, 1] > 1 - 1e-9
    odds = np.log(path[:, 0] / path[:, 1])  # the logistic solution: log odds fall at 1/10
    assert np.allclose(odds, np.log(9) - np.linspace(0, 300, 50) / 10, atol=1e-6)
    [end] = evolution.rest_points(game)
    assert end.settled and end.basin == 1 and np.allclose(end.shares, [0, 1])
    [equilibrium] = evolution.nash_equilibria(game)
    assert equilibrium.support == ("defect",) and equilibrium.stability == "stable"
    assert np.array_equal(equilibrium.shares, [0, 1]) and equilibrium.payoff == 1.0
    rho = evolution.fixation(game, 20, 1.0)
    assert np.isnan(rho[0, 0]) and np.isnan(rho[1, 1])
    assert rho[0, 1] > 1 / 20 > rho[1, 0]  # a defector invades cooperators, not vice versa


def test_coordination_has_two_stable_pure_and_one_unstable_mixed_equilibrium():
    game, point = coordination(), mixed_point()
    equilibria = {e.support: e for e in evolution.nash_equilibria(game)}
    assert set(equilibria) == {("A",), ("B",), ("A", "B")}
    assert equilibria[("A",)].stability == equilibria[("B",)].stability == "stable"
    mixed = equilibria[("A", "B")]
    assert mixed.stability == "unstable"
    assert mixed.shares[0] == pytest.approx(point, abs=1e-6)
    f = evolution.expected_payoffs(game, mixed.shares)
    assert f[0] == pytest.approx(f[1]) == pytest.approx(mixed.payoff)
    assert evolution.replicator(game, [point + 0.05, 0.95 - point])[-1, 0] > 0.999
    assert evolution.replicator(game, [point - 0.05, 1.05 - point])[-1, 0] < 0.001
    starts = np.linspace(0.05, 0.95, 19)
    ends = {tuple(p.shares): p.basin for p in evolution.rest_points(
        game, np.column_stack([starts, 1 - starts]))}
    assert ends == {(1.0, 0.0): pytest.approx(np.mean(starts > point)),
                    (0.0, 1.0): pytest.approx(np.mean(starts < point))}


def test_a_start_on_the_simplex_boundary_stays_on_its_face():
    path = evolution.replicator(rock_paper_scissors(), [0.5, 0.5, 0.0])
    assert np.all(path[:, 2] == 0) and path[-1, 1] > 0.999  # paper beats rock


@pytest.mark.parametrize("win, loss, stability", [(1.0, 1.0, "neutral"), (2.0, 1.0, "stable"),
                                                  (1.0, 2.0, "unstable")])
def test_rock_paper_scissors_has_its_only_equilibrium_at_the_barycentre(win, loss, stability):
    game = rock_paper_scissors(win, loss)
    [equilibrium] = evolution.nash_equilibria(game)
    assert np.allclose(equilibrium.shares, 1 / 3, atol=1e-9)
    assert equilibrium.stability == stability
    assert equilibrium.payoff == pytest.approx((win - loss) / 3)
    ends = evolution.rest_points(game, starts=2, horizon=300)  # 6 starts, none at 1/3
    if stability == "stable":
        assert len(ends) == 1 and np.allclose(ends[0].shares, 1 / 3, atol=1e-5)
    else:  # orbits round the barycentre, or out to the heteroclinic cycle of the boundary
        assert [(p.settled, p.basin) for p in ends] == [(False, 1.0)]


# --- Moran process -------------------------------------------------------------------------

@pytest.mark.parametrize("size, selection", [(3, 0.5), (10, 2.0), (50, 1.0), (200, 0.05)])
def test_constant_fitness_gives_the_closed_form_fixation(size, selection):
    payoffs = np.array([0.0, 0.4, -0.3])
    rho = evolution.fixation(constant(payoffs), size, selection)
    for resident in range(3):
        for mutant in range(3):
            if resident == mutant:
                continue
            r = math.exp(selection * (payoffs[mutant] - payoffs[resident]))
            expected = (1 - 1 / r) / (1 - r ** -size)
            assert rho[resident, mutant] == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("size", [3, 7, 40])
def test_neutral_selection_gives_one_over_z(size):
    rho = evolution.fixation(public_goods(players=3), size, 0.0)
    assert rho[0, 1] == rho[1, 0] == 1 / size


def markov_fixation(game, resident, mutant, size, selection) -> float:
    """The absorption probability at Z of the birth-death chain from one mutant: the
    transition matrix written out and the linear system of the transient states solved."""
    n, means = game.players, game.means

    def payoff(k, mutants):
        mix = np.zeros(len(game.behaviours), dtype=int)
        mix[mutant], mix[resident] = mutants, n - mutants
        return means[game.index(mix), k]

    def expected(i, k):  # co-players drawn without replacement from the other Z - 1
        pool = i - 1 if k == mutant else i
        return sum(math.comb(pool, a) * math.comb(size - 1 - pool, n - 1 - a)
                   * payoff(k, a + (k == mutant)) for a in range(n)) / math.comb(size - 1, n - 1)

    chain = np.eye(size + 1)
    for i in range(1, size):
        fm = math.exp(selection * expected(i, mutant))
        fr = math.exp(selection * expected(i, resident))
        total = i * fm + (size - i) * fr
        up, down = i * fm / total * (size - i) / size, (size - i) * fr / total * i / size
        chain[i, [i - 1, i, i + 1]] = down, 1 - up - down, up
    transient = np.eye(size - 1) - chain[1:size, 1:size]
    return np.linalg.solve(transient, chain[1:size, size])[0]


@pytest.mark.parametrize("game", [public_goods(players=3), coordination(players=4),
                                  rock_paper_scissors(2.0, 1.0)], ids=["pgg", "coord", "rps"])
def test_fixation_matches_a_brute_force_markov_chain(game):
    rho = evolution.fixation(game, 12, 0.7)
    for resident, mutant in [(0, 1), (1, 0)]:
        assert rho[resident, mutant] == pytest.approx(
            markov_fixation(game, resident, mutant, 12, 0.7), rel=1e-9)


def test_fixation_needs_only_the_mixes_of_each_pair():
    full = rock_paper_scissors(2.0, 1.0)
    pairs = [i for i, mix in enumerate(full.counts) if (mix > 0).sum() < 3]
    game = EmpiricalGame.from_means(full.behaviours, 2, full.counts[pairs], full.means[pairs])
    assert np.allclose(evolution.fixation(game, 30, 1.0), evolution.fixation(full, 30, 1.0),
                       equal_nan=True)


# --- bootstrap -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bootstrapped():
    game = noisy(coordination(players=3))
    return game, evolution.uncertainty(game, 40, seed=7, population_size=20, selection=1.0)


def test_the_bootstrap_is_deterministic_for_a_seed(bootstrapped):
    game, full = bootstrapped
    first = evolution.uncertainty(game, 8, seed=7, population_size=20, selection=1.0)
    again = evolution.uncertainty(game, 8, seed=7, population_size=20, selection=1.0)
    assert np.array_equal(first.fixation, again.fixation, equal_nan=True)
    assert np.array_equal(first.fixation, full.fixation[:8], equal_nan=True)
    assert np.array_equal(first.ends, full.ends[:8], equal_nan=True)
    other = evolution.uncertainty(game, 8, seed=8, population_size=20, selection=1.0)
    assert not np.array_equal(first.fixation, other.fixation, equal_nan=True)


def test_intervals_hold_the_estimate_and_the_noiseless_truth(bootstrapped):
    game, boot = bootstrapped
    off = ~np.eye(2, dtype=bool)
    for rho in (evolution.fixation(game, 20, 1.0), evolution.fixation(coordination(3), 20, 1.0)):
        assert np.all((boot.fixation_low[off] <= rho[off]) & (rho[off] <= boot.fixation_high[off]))
    assert np.all(boot.found == 1)
    for e, equilibrium in enumerate(boot.equilibria):
        assert np.all(boot.shares_low[e] <= equilibrium.shares + 1e-12)
        assert np.all(equilibrium.shares <= boot.shares_high[e] + 1e-12)
    mixed = [e for e, q in enumerate(boot.equilibria) if len(q.support) == 2]
    assert boot.shares_low[mixed, 0] < mixed_point(3) < boot.shares_high[mixed, 0]
    assert np.array_equal(boot.end_low, [0, 1]) and np.array_equal(boot.end_high, [0, 1])


def test_report_gives_readable_tables(bootstrapped):
    game, boot = bootstrapped
    tables = evolution.report(game, 20, 1.0, boot)
    assert set(tables) == {"equilibria", "fixation", "rest_points", "barycentre"}
    assert list(tables["fixation"].columns) == ["resident", "mutant", "fixation probability",
                                                "rho Z (1 = neutral)", "95% low", "95% high"]
    assert sorted(tables["equilibria"]["support"]) == ["A", "A + B", "B"]
    assert (tables["equilibria"]["found in resamples"] == 1).all()
    assert tables["rest_points"]["share of starts"].sum() == pytest.approx(1)
    with pytest.raises(ValueError, match="other behaviours, population size"):
        evolution.report(game, 30, 1.0, boot)


# --- bad input -----------------------------------------------------------------------------

def test_an_incomplete_table_names_the_missing_mix():
    full = coordination(players=3)
    keep = [i for i, mix in enumerate(full.counts.tolist()) if mix != [1, 2]]
    game = EmpiricalGame.from_means(("A", "B"), 3, full.counts[keep], full.means[keep])
    with pytest.raises(ValueError, match=r"mix \{'A': 1, 'B': 2\}.*not played"):
        evolution.expected_payoffs(game, [0.5, 0.5])
    assert np.allclose(evolution.expected_payoffs(game, [1, 0]), [3, 2])  # needs no (1, 2)
    with pytest.raises(ValueError, match=r"\{'A': 1, 'B': 2\}"):
        evolution.nash_equilibria(game)
    with pytest.raises(ValueError, match=r"\{'A': 1, 'B': 2\}.*missing"):
        evolution.fixation(game, 10, 1.0)


@pytest.mark.parametrize("x0, message", [([0.5, 0.3, 0.2], "2 shares"), ([1.2, -0.2], ">= 0"),
                                         ([0.5, 0.4], "add up to 1"), ([np.nan, 1], ">= 0")])
def test_bad_shares_are_refused(x0, message):
    with pytest.raises(ValueError, match=message):
        evolution.replicator(coordination(), x0)
    with pytest.raises(ValueError, match=message):
        evolution.expected_payoffs(coordination(), x0)


@pytest.mark.parametrize("size, selection, message", [
    (3, 1.0, "population_size"), (10.5, 1.0, "population_size"), (True, 1.0, "population_size"),
    ("20", 1.0, "population_size"), (20, -1.0, "selection"), (20, np.inf, "selection"),
    (20, np.nan, "selection"), (20, "strong", "selection")])
def test_bad_population_size_or_selection_is_refused(size, selection, message):
    with pytest.raises(ValueError, match=message):
        evolution.fixation(coordination(players=4), size, selection)


# --- figure --------------------------------------------------------------------------------

def drawn_labels(ax) -> set:
    """Labels of the artists drawn in ``ax`` that a legend may show."""
    artists = [*ax.lines, *ax.collections, *ax.patches, *ax.containers]
    labels = [str(a.get_label() or "_") for a in artists]
    return {label for label in labels if not label.startswith("_")}


@pytest.mark.parametrize("m", [2, 3, 4])
def test_the_figure_draws_with_a_legend_of_what_is_drawn(m, bootstrapped):
    if m == 2:
        game, boot = bootstrapped
    elif m == 3:
        game, boot = rock_paper_scissors(2.0, 1.0), None
    else:
        counts = all_mixes(tuple("ABCD"), 3)
        means = np.where(counts > 0, np.random.default_rng(5).normal(size=counts.shape), np.nan)
        game, boot = EmpiricalGame.from_means(tuple("ABCD"), 3, counts, means), None
    figure = evolution.evolution_figure(game, 20, 1.0, boot)
    figure.savefig(io.BytesIO(), format="png", dpi=40)
    flow, heat = figure.axes[:2]
    legend = [t.get_text() for t in flow.get_legend().get_texts()]
    assert set(legend) == drawn_labels(flow) and len(legend) == len(set(legend))
    if m <= 3:
        assert {"stable equilibrium"} <= set(legend)
    if m == 2:
        assert "unstable equilibrium" in legend and "95% bootstrap interval" in legend
        assert "[" in " ".join(t.get_text() for t in heat.texts)
    assert "neutral 1/Z = 0.05" in heat.get_title()
    assert [t.get_text() for t in heat.get_xticklabels()] == list(game.behaviours)


def test_evolution_study_of_public_goods_finds_defection(tmp_path):
    """From a study played by the runner: the payoff table of the test-only Public Goods
    game (keeping dominates contributing), its only equilibrium all-keep, where every
    replicator trajectory ends."""
    from dilemmas.analysis.game_theory.payoffs import empirical_game
    from dilemmas.analysis.studies.runner import run_study

    study = evolution.evolution_study("public_goods", ["cooperate", "defect", "random"],
                                      replicates=2, seed=3)
    assert len(study.sweep["population"]) == 15
    game = empirical_game(run_study(study, tmp_path, backend="serial", progress=False).folder)
    assert game.behaviours == ("cooperate", "defect", "random") and game.complete()
    equilibria = evolution.nash_equilibria(game)
    assert [e.support for e in equilibria] == [("defect",)]
    ends = evolution.rest_points(game)
    assert len(ends) == 1 and np.allclose(ends[0].shares, [0, 1, 0])
    assert evolution.selection_strength(game, 2.0) == pytest.approx(
        2.0 / (np.nanmax(game.means) - np.nanmin(game.means)))


def test_an_equilibrium_close_to_a_face_is_found():
    """A random three-behaviour game (found in review) whose interior equilibrium lies
    within 0.01 of a face: the root finder's starts near the faces reach it, and every
    behaviour earns the same there."""
    rng = np.random.default_rng(7)
    for trial in range(12):
        players = int(rng.choice([3, 4, 5]))
        counts = all_mixes(range(3), players)
        means = np.where(counts > 0, rng.normal(size=counts.shape), np.nan)
        rng.dirichlet(np.ones(3), 400)
    game = EmpiricalGame.from_means(["a", "b", "c"], players, counts, means)
    near = [e for e in evolution.nash_equilibria(game)
            if np.abs(e.shares - [0.009, 0.086, 0.905]).max() < 2e-3]
    assert len(near) == 1
    assert np.ptp(evolution.expected_payoffs(game, near[0].shares)) < 1e-8
