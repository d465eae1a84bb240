"""PSRO (dilemmas.analysis.game_theory.psro) with an exact best-response oracle -- the
Double Oracle -- on games whose symmetric equilibria are known."""

import numpy as np
import pytest

from dilemmas.analysis.game_theory import psro
from dilemmas.analysis.game_theory.dynamics import expected_payoffs
from dilemmas.analysis.game_theory.payoffs import EmpiricalGame, all_mixes

ROCK_PAPER_SCISSORS = {"rock": {"rock": 0, "paper": -1, "scissors": 1},
                       "paper": {"rock": 1, "paper": 0, "scissors": -1},
                       "scissors": {"rock": -1, "paper": 1, "scissors": 0}}


def matrix_game(payoff):
    """``table`` and ``oracle`` of the two-seat symmetric game ``payoff[mine][theirs]``: the
    exact table of any population, and the exact best response over every strategy."""
    def table(strategies):
        counts = all_mixes(strategies, 2)
        means = []
        for mix in counts:
            row = np.full(len(strategies), np.nan)
            seated = [strategies[k] for k in np.flatnonzero(mix) for _ in range(mix[k])]
            for k in np.flatnonzero(mix):
                other = seated[1] if seated[0] == strategies[k] else seated[0]
                row[k] = payoff[strategies[k]][other]
            means.append(row)
        return EmpiricalGame.from_means(strategies, 2, counts, means)

    def oracle(strategies, game, meta):
        gains = {s: sum(x * payoff[s][t] for t, x in zip(strategies, meta)) for s in payoff}
        best = max(gains.values())
        return next(s for s in payoff if gains[s] >= best - 1e-12), best  # first best
    return table, oracle


def test_rock_paper_scissors_grows_to_all_three_and_ends_at_the_uniform_mixture():
    table, oracle = matrix_game(ROCK_PAPER_SCISSORS)
    done = psro.psro(["rock"], table, oracle)
    assert [it.response for it in done] == ["paper", "scissors", "rock"]
    assert [len(it.strategies) for it in done] == [1, 2, 3]
    assert [it.gain for it in done[:2]] == pytest.approx([1.0, 1.0])
    assert done[-1].meta == pytest.approx(np.full(3, 1 / 3), abs=1e-7)
    assert done[-1].value == pytest.approx(0.0, abs=1e-9)
    assert done[-1].gain == pytest.approx(0.0, abs=1e-7)


def test_hawk_dove_ends_at_its_mixed_equilibrium():
    """Hawk-dove with a prize V = 2 and a cost of fighting C = 4: the symmetric equilibrium
    plays hawk with probability V / C = 1/2, worth 1/2 to each."""
    v, c = 2.0, 4.0
    payoff = {"dove": {"dove": v / 2, "hawk": 0.0}, "hawk": {"dove": v, "hawk": (v - c) / 2}}
    table, oracle = matrix_game(payoff)
    done = psro.psro(["dove"], table, oracle)
    assert [it.response for it in done] == ["hawk", "dove"]
    assert done[-1].meta == pytest.approx([0.5, 0.5], abs=1e-7)
    # v(x) = x_d^2 V/2 + x_h x_d V + x_h^2 (V - C)/2 at x = (1/2, 1/2)
    assert done[-1].value == pytest.approx(0.25 + 0.5 - 0.25)
    assert done[-1].gain == pytest.approx(0.0, abs=1e-7)


def test_a_dominant_strategy_is_found_and_kept_alone():
    payoff = {"cooperate": {"cooperate": 3, "defect": 0}, "defect": {"cooperate": 5, "defect": 1}}
    table, oracle = matrix_game(payoff)
    for solver in psro.SOLVERS:
        done = psro.psro(["cooperate"], table, oracle, solver=solver)
        assert done[0].response == "defect" and done[0].gain == pytest.approx(2.0)
        assert done[-1].strategies == ("cooperate", "defect")
        if solver == "nash":
            assert done[-1].meta == pytest.approx([0.0, 1.0])
            assert done[-1].gain == pytest.approx(0.0)


def test_three_seats_by_the_heuristic_payoff_table():
    """A three-seat public goods game: each contributor pays 1 and every seat gets 0.6 x the
    contributions; the exact oracle against co-players drawn from x finds free riding, and
    the meta-strategy ends there (a contributor earns 0.4 less whatever the others do)."""
    names = ("give", "keep")

    def payoff(k, mix):
        givers = mix[0]
        return 0.6 * givers - (1.0 if k == 0 else 0.0)

    def table(strategies):
        counts = all_mixes(strategies, 3)
        means = [[payoff(names.index(s), [c[strategies.index("give")] if "give" in strategies
                                          else 0]) if c[i] else np.nan
                  for i, s in enumerate(strategies)] for c in counts]
        return EmpiricalGame.from_means(strategies, 3, counts, means)

    def oracle(strategies, game, meta):
        share = meta[strategies.index("give")] if "give" in strategies else 0.0
        expected_givers = 2 * share
        gains = {"give": 0.6 * (expected_givers + 1) - 1, "keep": 0.6 * expected_givers}
        best = max(gains, key=gains.get)
        return best, gains[best]

    done = psro.psro(["give"], table, oracle)
    assert done[0].response == "keep" and done[0].gain == pytest.approx(0.4)
    assert done[-1].meta == pytest.approx([0.0, 1.0]) and done[-1].gain == pytest.approx(0.0)
    assert list(psro.report(done)["response"]) == ["keep", "keep"]


def test_bad_settings_are_named():
    table, oracle = matrix_game(ROCK_PAPER_SCISSORS)
    with pytest.raises(ValueError, match="solver='best' must be one of"):
        psro.psro(["rock"], table, oracle, solver="best")
    with pytest.raises(ValueError, match="iterations=0 must be an integer >= 1"):
        psro.psro(["rock"], table, oracle, iterations=0)
    with pytest.raises(ValueError, match="the table is over"):
        psro.psro(["rock"], lambda s: table(("paper",)), oracle)


def test_the_standard_error_of_the_value_weighs_each_mean_as_the_value_does():
    """Two seats, x = (1/2, 1/2): v = (P_a(aa) + P_a(ab) + P_b(ab) + P_b(bb)) / 4, so its
    standard error is a quarter of the root sum of those four means' squared errors; at x
    = (1, 0) it is the error of P_a(aa) alone; one strategy's expected payoff at (1/2, 1/2),
    f_a = (P_a(aa) + P_a(ab)) / 2, has half the root sum of theirs."""
    rng = np.random.default_rng(4)
    counts = np.array([[2, 0], [1, 1], [0, 2]])
    samples = tuple(np.where(counts[i] > 0, rng.normal(i, 1 + i, size=(n, 2)), np.nan)
                    for i, n in enumerate((5, 8, 13)))
    game = EmpiricalGame(("a", "b"), 2, counts, samples)
    ses = game.ses
    four = [ses[0, 0], ses[1, 0], ses[1, 1], ses[2, 1]]
    assert psro.standard_error(game, [0.5, 0.5]) == pytest.approx(
        np.sqrt(np.sum(np.square(four))) / 4, rel=1e-12)
    assert psro.standard_error(game, [1.0, 0.0]) == pytest.approx(ses[0, 0], rel=1e-12)
    one = psro.standard_error(game, [0.5, 0.5], lambda g, x: expected_payoffs(g, x)[0])
    assert one == pytest.approx(np.hypot(ses[0, 0], ses[1, 0]) / 2, rel=1e-12)
