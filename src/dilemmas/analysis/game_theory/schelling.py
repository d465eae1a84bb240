"""Schelling diagrams (docs/game-theory.md, "Schelling diagrams").

For a cooperative and a selfish behaviour of a game (by default its registration's
``dilemma``), ``schelling_study`` plays every mix of the game's ``N`` seats over the two:
``cooperator:k,defector:N-k`` for ``k = N .. 0`` (cooperators in the first seats).
``diagram`` reads it back as Schelling (1973) drew it: the payoff of a cooperator and of a
defector against the number of *other* cooperators ``i = 0 .. N-1`` -- a cooperator's from
the mix with ``i + 1`` cooperators, a defector's from the mix with ``i`` -- each the mean
over runs of the mean final reward of those seats in a run, with its Student-t interval;
and the team's mean payoff per seat against the number of cooperators ``k = 0 .. N``.

``diagnostics`` reads off what the literature reads from the diagram (Schelling 1973;
Hughes et al. 2018, "Inequity aversion improves cooperation in intertemporal social
dilemmas"), with ``C(i)``, ``D(i)`` the two curves:

* ``mutual cooperation preferred``: ``C(N-1) > D(0)``, all cooperating beats all defecting;
* ``cooperation preferred to exploitation``: ``C(N-1) > C(0)``;
* ``fear``: ``D(0) > C(0)``, defecting pays among defectors;
* ``greed``: ``D(N-1) > C(N-1)``, exploiting cooperators pays;
* ``social dilemma``: the first two and fear or greed;
* ``defection dominant``: ``D(i) > C(i)`` at every ``i``;
* ``social optimum``: the number of cooperators ``k`` with the highest team payoff per seat;
* ``tragedy of the commons``: defection dominant, yet the all-defector team earns less than
  the social optimum.

Each comparison carries its difference and the difference in standard errors
(``sqrt(se_a^2 + se_b^2)``), so a reader sees which hold beyond sampling noise.
"""

import numpy as np
import pandas as pd

from dilemmas.analysis.game_theory import payoffs
from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.study import StudyError
from dilemmas import GAMES

CONFIDENCE = 0.95


def behaviours_of(game: str, cooperator=None, defector=None) -> tuple[str, str]:
    """The cooperative and the selfish behaviour: given, or the game's ``dilemma``."""
    default = GAMES[game].dilemma
    if (cooperator is None or defector is None) and default is None:
        raise StudyError(f"{game} names no dilemma pair: give the cooperator and the defector")
    pair = (cooperator or default[0], defector or default[1])
    return payoffs.check_behaviours(game, pair, 2)


def schelling_study(game: str, cooperator=None, defector=None, *, fixed=None,
                    replicates: int = 30, seed: int = 0, name: str | None = None):
    """The study of a Schelling diagram of ``game`` (module docstring)."""
    pair = behaviours_of(game, cooperator, defector)
    players = payoffs.seats(game, fixed)
    if players < 2:
        raise StudyError(f"{game}: a Schelling diagram needs at least 2 seats, these "
                         f"parameters give {players}")
    mixes = np.array([[k, players - k] for k in range(players, -1, -1)])
    return payoffs.mix_study(game, name or f"{game}-schelling", pair, mixes, fixed=fixed,
                             replicates=replicates, seed=seed)


def _pair(folder) -> tuple[str, str]:
    populations = results.definition(folder)["sweep"]["population"]
    return populations[0].partition(":")[0], populations[-1].partition(":")[0]


def _interval(values: np.ndarray, confidence: float) -> dict:
    found = results.mean_interval(values, confidence)
    return {"n": found["n"], **{f"payoff{suffix}": found[key] for key, suffix in (
        ("mean", ""), ("se", "_se"), ("low", "_low"), ("high", "_high"))}}


def diagram(folder, confidence: float = CONFIDENCE) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The two curves (``curves``: ``role``, ``behaviour``, ``others`` = other cooperators,
    ``n``, ``payoff`` with ``_se``, ``_low``, ``_high``) and the team's mean payoff per seat
    (``team``: ``cooperators``, the same columns) of a Schelling study."""
    cooperator, defector = _pair(folder)
    game = payoffs.empirical_game(folder, (cooperator, defector))
    players = game.players
    curves, team = [], []
    for counts, sample in zip(game.counts, game.samples):
        k = int(counts[0])
        if k >= 1:
            curves.append({"role": "cooperator", "behaviour": cooperator, "others": k - 1,
                           **_interval(sample[:, 0], confidence)})
        if k <= players - 1:
            curves.append({"role": "defector", "behaviour": defector, "others": k,
                           **_interval(sample[:, 1], confidence)})
    outcomes = payoffs.team_outcomes(folder)
    for value, group in outcomes.groupby("population", sort=False):
        team.append({"cooperators": int(payoffs.counts_of((cooperator, defector), value)[0]),
                     **_interval(group["outcome"].to_numpy(), confidence)})
    curves = pd.DataFrame(curves).sort_values(["role", "others"]).reset_index(drop=True)
    team = pd.DataFrame(team).sort_values("cooperators").reset_index(drop=True)
    return curves, team


def diagnostics(curves: pd.DataFrame, team: pd.DataFrame) -> pd.DataFrame:
    """The properties of the module docstring: ``property``, ``holds``, and for the
    comparisons ``difference`` (left minus right side) and ``in_se``."""
    c = curves[curves["role"] == "cooperator"].set_index("others")
    d = curves[curves["role"] == "defector"].set_index("others")
    last = int(c.index.max())

    def compare(name, a, b):
        difference = a["payoff"] - b["payoff"]
        return {"property": name, "holds": bool(difference > 0), "difference": difference,
                "in_se": _in_se(difference, a["payoff_se"], b["payoff_se"])}

    rows = [compare("mutual cooperation preferred: C(N-1) > D(0)", c.loc[last], d.loc[0]),
            compare("cooperation preferred to exploitation: C(N-1) > C(0)", c.loc[last],
                    c.loc[0]),
            compare("fear: D(0) > C(0)", d.loc[0], c.loc[0]),
            compare("greed: D(N-1) > C(N-1)", d.loc[last], c.loc[last])]
    holds = [row["holds"] for row in rows]
    rows.append({"property": "social dilemma: the first two, and fear or greed",
                 "holds": holds[0] and holds[1] and (holds[2] or holds[3])})
    gaps = d["payoff"] - c["payoff"]
    rows.append({"property": "defection dominant: D(i) > C(i) at every i",
                 "holds": bool((gaps > 0).all()), "difference": gaps.min(),
                 "in_se": _in_se(gaps.min(), d["payoff_se"].loc[gaps.idxmin()],
                                 c["payoff_se"].loc[gaps.idxmin()])})
    best = team.loc[team["payoff"].idxmax()]
    worst_case = team.loc[team["cooperators"] == 0].iloc[0]
    rows.append({"property": f"social optimum: {int(best['cooperators'])} cooperators",
                 "holds": True, "difference": best["payoff"] - worst_case["payoff"],
                 "in_se": _in_se(best["payoff"] - worst_case["payoff"], best["payoff_se"],
                                 worst_case["payoff_se"])})
    rows.append({"property": "tragedy of the commons: defection dominant, all-defect below "
                 "the optimum",
                 "holds": rows[5]["holds"] and best["cooperators"] != 0})
    return pd.DataFrame(rows, columns=["property", "holds", "difference", "in_se"])


def _in_se(difference, se_a, se_b) -> float:
    """``difference`` in standard errors of a difference; NaN where there is no spread (a
    deterministic payoff) or too few runs to tell."""
    se = np.hypot(se_a, se_b)
    return float(difference / se) if se > 0 else np.nan


def schelling_figure(folder, title: str = ""):
    """The Schelling diagram (payoff of a cooperator and of a defector against the number of
    other cooperators) and the team's mean payoff per seat against the number of
    cooperators, means with their intervals as bands."""
    import matplotlib

    from dilemmas.analysis.figures.paper import BAND_ALPHA, PALETTE, STYLE, PaperFigure

    curves, team = diagram(folder)
    players = int(team["cooperators"].max())
    figure = PaperFigure((1, 2), margin=0.8)
    with matplotlib.rc_context(STYLE):
        left, right = figure.subplots(1, 2)
        for role, colour, marker in (("cooperator", PALETTE[0], "o"),
                                     ("defector", PALETTE[3], "s")):
            line = curves[curves["role"] == role]
            left.plot(line["others"], line["payoff"], marker=marker, color=colour,
                      label=f"{role}: {line['behaviour'].iloc[0]}")
            left.fill_between(line["others"], line["payoff_low"], line["payoff_high"],
                              color=colour, alpha=BAND_ALPHA, linewidth=0)
        left.set_xlabel("number of other cooperators")
        left.set_ylabel("payoff: final reward per seat")
        left.set_xticks(range(players))
        left.set_title("Schelling diagram")
        left.legend()
        right.plot(team["cooperators"], team["payoff"], marker="o", color="0.2",
                   label="mean over all seats")
        right.fill_between(team["cooperators"], team["payoff_low"], team["payoff_high"],
                           color="0.2", alpha=BAND_ALPHA, linewidth=0)
        best = team.loc[team["payoff"].idxmax()]
        right.plot([best["cooperators"]], [best["payoff"]], marker="*", markersize=12,
                   linestyle="none", color=PALETTE[2], label="social optimum")
        right.set_xlabel("number of cooperators")
        right.set_ylabel("team payoff per seat")
        right.set_xticks(range(players + 1))
        right.set_title("team")
        right.legend()
        figure.suptitle((title + "\n" if title else "")
                        + f"means over {int(curves['n'].min())} or more runs per mix, "
                        f"{CONFIDENCE:.0%} intervals")
    return figure
