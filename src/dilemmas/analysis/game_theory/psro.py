"""Policy-Space Response Oracles (Lanctot et al. 2017) over a symmetric empirical game
(docs/game-theory.md, "PSRO"): the loop, its meta-solvers and its exploitability estimate.

Start from a population of strategies; each iteration

1. estimates the meta-game, the payoff table of the population (``table``: an
   ``EmpiricalGame``, e.g. ``metagame.payoff_table`` of a played population);
2. solves it for a **meta-strategy** ``x``, a mixture over the population
   (``meta_strategy``): a symmetric Nash equilibrium (``nash``: of those
   ``nash_equilibria`` finds, the one of the highest payoff), alpha-Rank's stationary
   distribution (``alpharank``) or the uniform mixture (``uniform``, fictitious play's
   average);
3. asks the **oracle** for a best response to co-players drawn from ``x``: a new strategy
   and its expected payoff against them;
4. adds it, unless it is already in the population.

The meta-strategy's value ``v(x) = sum_k x_k f_k(x)`` (``f_k``: strategy k's expected payoff
with its ``N - 1`` co-players drawn from ``x``, ``expected_payoffs``) and the oracle's gain
over it, ``f_response(x) - v(x)``, are reported each iteration: with an exact oracle the
gain is the meta-strategy's exploitability in the whole game (0 at a symmetric Nash
equilibrium of it), with a learned one a lower estimate of it. The loop stops when the gain
is at most ``tolerance`` (in units of the first table's payoff range) or the response is
already in the population, or after ``iterations``.

With an exact best response over a finite set of strategies this is the Double Oracle
algorithm (McMahan, Gordon & Blum 2003), which ``tests/test_psro.py`` checks on matrix games
whose equilibria are known. The oracle that trains an IPPO best response against the
meta-strategy's co-players, and the loop over a population file's policies with it, are
``dilemmas.learning.oracle`` (``dilemmas psro``).

References: Lanctot, Zambaldi, Gruslys, Lazaridou, Tuyls, Perolat, Silver & Graepel 2017, "A
unified game-theoretic approach to multiagent reinforcement learning", NeurIPS. McMahan,
Gordon & Blum 2003, "Planning in the presence of cost functions controlled by an
adversary", ICML.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dilemmas.analysis.game_theory.alpharank import alpharank, relative_alpha
from dilemmas.analysis.game_theory.dynamics import expected_payoffs
from dilemmas.analysis.game_theory.nash import nash_equilibria
from dilemmas.analysis.game_theory.payoffs import EmpiricalGame

SOLVERS = ("nash", "alpharank", "uniform")


def meta_strategy(game: EmpiricalGame, solver: str = "nash", alpha: float = 10.0,
                  population_size: int = 50) -> np.ndarray:
    """The meta-strategy of ``game`` by ``solver`` (module docstring): shares over its
    behaviours. ``alpha`` (per payoff range) and ``population_size`` are alpha-Rank's."""
    m = len(game.behaviours)
    if solver == "uniform" or m == 1:
        return np.full(m, 1.0 / m)
    if solver == "alpharank":
        return alpharank(game, relative_alpha(game, alpha), population_size).stationary
    if solver == "nash":
        equilibria = nash_equilibria(game)
        if not equilibria:  # a game always has one; the search may miss a continuum's
            raise ValueError("no symmetric Nash equilibrium found (behaviours tie on a "
                             "whole face?); use solver='alpharank' or 'uniform'")
        return max(equilibria, key=lambda e: e.payoff).shares
    raise ValueError(f"solver={solver!r} must be one of {list(SOLVERS)}")


def value(game: EmpiricalGame, x) -> float:
    """``v(x)``: the expected payoff of a strategy drawn from ``x`` among co-players drawn
    from ``x``."""
    x = np.asarray(x, dtype=np.float64)
    return float(x @ expected_payoffs(game, x))


def standard_error(game: EmpiricalGame, x, measure=value) -> float:
    """The standard error of ``measure(game, x)``, a linear function of the table's mean
    payoffs (``value``, or one strategy's ``expected_payoffs``), from the standard errors
    of the means (independent runs): ``sqrt(sum_c a_c^2 se_c^2)``, ``a_c`` the weight of
    the mean ``c``, found by measuring the table of that mean alone set to 1. NaN where a
    mean it weighs has no standard error (one run)."""
    means, ses = game.means, game.ses
    total = 0.0
    for cell in zip(*np.nonzero(~np.isnan(means))):
        unit = np.where(np.isnan(means), np.nan, 0.0)
        unit[cell] = 1.0
        weight = measure(EmpiricalGame.from_means(game.behaviours, game.players, game.counts,
                                                  unit), x)
        if weight:
            total += (weight * ses[cell]) ** 2
    return float(np.sqrt(total))


@dataclass(frozen=True)
class Iteration:
    """One PSRO iteration: the population's ``strategies``, the ``meta`` strategy over them
    and its ``value``, the oracle's ``response`` and its expected payoff against the
    meta-strategy's co-players (``response_value``); ``gain`` their difference; the
    standard errors of the value (``standard_error`` of the table) and of the response's
    payoff (the oracle's, NaN without one), and of the gain (the two estimated apart)."""
    iteration: int
    strategies: tuple
    meta: np.ndarray
    value: float
    response: str
    response_value: float
    value_se: float = float("nan")
    response_se: float = float("nan")

    @property
    def gain(self) -> float:
        return self.response_value - self.value

    @property
    def gain_se(self) -> float:
        return float(np.hypot(self.value_se, self.response_se))


def psro(strategies, table, oracle, solver: str = "nash", iterations: int = 10,
         tolerance: float = 1e-9, on_iteration=None, **options) -> list[Iteration]:
    """Run PSRO from the population ``strategies`` (names): ``table(strategies)`` gives
    the meta-game (an ``EmpiricalGame`` over them, in that order), ``oracle(strategies,
    game, meta)`` a best response to the meta-strategy ``meta`` as ``(name, expected
    payoff)`` or ``(name, expected payoff, its standard error)``; ``on_iteration(iteration)``
    is called after each; ``options`` go to ``meta_strategy``. Returns the iterations."""
    if solver not in SOLVERS:
        raise ValueError(f"solver={solver!r} must be one of {list(SOLVERS)}")
    if type(iterations) is not int or iterations < 1:
        raise ValueError(f"iterations={iterations!r} must be an integer >= 1")
    strategies, done, scale = list(strategies), [], None
    for iteration in range(iterations):
        game = table(tuple(strategies))
        if tuple(game.behaviours) != tuple(strategies):
            raise ValueError(f"the table is over {game.behaviours}, not the population "
                             f"{tuple(strategies)}")
        if scale is None:
            scale = float(np.nanmax(game.means) - np.nanmin(game.means)) or 1.0
        meta = meta_strategy(game, solver, **options)
        response, response_value, *error = oracle(tuple(strategies), game, meta)
        done.append(Iteration(iteration, tuple(strategies), meta, value(game, meta), response,
                              float(response_value), standard_error(game, meta),
                              float(error[0]) if error else float("nan")))
        if on_iteration is not None:
            on_iteration(done[-1])
        if done[-1].gain <= tolerance * scale or response in strategies:
            break
        strategies.append(response)
    return done


def report(iterations: list[Iteration]) -> pd.DataFrame:
    """One row per iteration: the population's size, the meta-strategy (the strategies of
    share 0.001 or more), its value, the response, its value and the gain, each with its
    standard error."""
    return pd.DataFrame({
        "iteration": [it.iteration for it in iterations],
        "strategies": [len(it.strategies) for it in iterations],
        "meta-strategy": [", ".join(f"{name} {share:.3g}" for name, share
                                    in zip(it.strategies, it.meta) if share >= 1e-3)
                          for it in iterations],
        "value": [it.value for it in iterations],
        "value se": [it.value_se for it in iterations],
        "response": [it.response for it in iterations],
        "response value": [it.response_value for it in iterations],
        "response se": [it.response_se for it in iterations],
        "gain": [it.gain for it in iterations],
        "gain se": [it.gain_se for it in iterations]})


def write_report(iterations: list[Iteration], path) -> None:
    """``report`` as CSV at ``path`` (written whole or not at all), with each strategy's
    share of each iteration's meta-strategy as a column ``share_<name>``."""
    from dilemmas.models.files import write_atomic

    table = report(iterations)
    names = list(iterations[-1].strategies) if iterations else []
    for name in names:
        table[f"share_{name}"] = [dict(zip(it.strategies, it.meta)).get(name, 0.0)
                                  for it in iterations]
    write_atomic(path, table.to_csv(index=False, float_format="%.10g").encode())


def psro_figure(iterations: list[Iteration], title: str = ""):
    """(a) Each iteration's meta-strategy, stacked shares of its strategies; (b) its value
    and the response's expected payoff against it with 95% intervals (1.96 standard errors),
    the gap between them the gain (the exploitability estimate)."""
    import matplotlib

    from dilemmas.analysis.figures.paper import STYLE, PaperFigure

    names = list(iterations[-1].strategies)
    steps = [it.iteration for it in iterations]
    figure = PaperFigure(panels=(1, 2), margin=1.4)
    with matplotlib.rc_context(STYLE):
        shares_axis, value_axis = figure.subplots(1, 2)
        bottom = np.zeros(len(iterations))
        for name in names:
            share = np.array([dict(zip(it.strategies, it.meta)).get(name, 0.0)
                              for it in iterations])
            shares_axis.bar(steps, share, bottom=bottom, label=name)
            bottom += share
        shares_axis.set_xlabel("iteration")
        shares_axis.set_ylabel("share of the meta-strategy")
        shares_axis.set_title("(a) meta-strategy")
        shares_axis.set_xticks(steps)
        shares_axis.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
        for key, error, marker, label in (
                ("value", "value_se", "o-", "meta-strategy's value"),
                ("response_value", "response_se", "s--", "best response's payoff")):
            se = np.array([getattr(it, error) for it in iterations], dtype=float)
            value_axis.errorbar(steps, [getattr(it, key) for it in iterations],
                                yerr=1.96 * np.nan_to_num(se), fmt=marker, capsize=3,
                                label=f"{label} (95% CI)")
        value_axis.set_xlabel("iteration")
        value_axis.set_ylabel("expected payoff")
        value_axis.set_title("(b) gain = response - value")
        value_axis.set_xticks(steps)
        value_axis.legend(fontsize="small")
        figure.suptitle(title or "PSRO")
    return figure


def save_figure(iterations: list[Iteration], folder, title: str = "") -> list:
    """``psro_figure`` saved as ``<folder>/psro.pdf`` and ``.png``; the paths."""
    from dilemmas.analysis.figures.paper import save

    return save(psro_figure(iterations, title), folder, "psro")
