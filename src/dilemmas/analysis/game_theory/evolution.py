"""Evolutionary dynamics of an empirical game (docs/game-theory.md): the behaviours of an
:class:`~dilemmas.analysis.game_theory.payoffs.EmpiricalGame` (a heuristic payoff table of an N-seat
symmetric game, Walsh et al. 2002) as the strategies of a population that plays it.

* ``evolution_study``: the study that estimates the table, every mix of the game's seats
  over the behaviours (``dilemmas.analysis.game_theory.payoffs``), and ``selection_strength`` for a
  strength given in units of the table's payoff range;
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

The parts of the analysis each live in their module of ``dilemmas.analysis.game_theory`` and
are importable from here too: ``dynamics`` (``expected_payoffs``, ``replicator``,
``rest_points``), ``nash`` (``nash_equilibria``), ``moran`` (``fixation``) and
``bootstrap`` (``uncertainty``); this module holds the study, the figure and the report.

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

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from dilemmas.analysis.figures.paper import CONFIDENCE, PALETTE, STYLE, PaperFigure
from dilemmas.analysis.game_theory import payoffs
from dilemmas.analysis.game_theory.payoffs import EmpiricalGame, all_mixes
# the parts of the analysis, each in its module; their public names importable from here too
from dilemmas.analysis.game_theory.bootstrap import (  # noqa: F401
    Uncertainty, _barycentre_end, uncertainty)
from dilemmas.analysis.game_theory.dynamics import (  # noqa: F401
    TIME, RestPoint, _integrate, _lattice, _logs, _Table, expected_payoffs, replicator,
    rest_points)
from dilemmas.analysis.game_theory.moran import MAX_POPULATION, _population, fixation  # noqa: F401
from dilemmas.analysis.game_theory.nash import Equilibrium, nash_equilibria  # noqa: F401


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
