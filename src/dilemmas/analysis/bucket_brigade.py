"""Bucket Brigade results: episode statistics and paper figures (docs/rules/bucket_brigade.md).

``statistics`` gives one row per episode from the model's DataCollector rows:

* ``nights``: nights played;
* ``saved`` / ``ruined``: fraction of houses SAFE / RUINED at the end;
* ``lies``: lies per episode; ``lie_rate``: lies per agent-night;
* ``work_rate``: share of agent-nights spent working;
* ``cooperation``: share of agents working on nights that began with a fire;
* ``team_reward``: R_team at the end; ``mean_reward``: mean individual R_i.

``FIGURES``: ``saved_vs_beta`` -- how does fire spread (``beta``) cut the fraction of houses
saved, and how much does extinguishing efficiency (``kappa``, one line each) buy back, for
each behaviour mix (one panel each)? ``lie_rate_by_mix`` -- which behaviour mixes lie, and how
often (lies per agent-night)?
"""

import pandas as pd
from matplotlib.figure import Figure

from dilemmas.analysis.studies import results
from dilemmas.analysis.figures.colours import HOUSE_STATES
from dilemmas.analysis.figures.paper import bars, behaviour_notes, lines_in_panels, require

#: Every colour the dashboard draws the world in: the houses' states (``Game.world_colours``).
WORLD_COLOURS = tuple(HOUSE_STATES.values())

#: The range of each episode statistic (``Game.ranges``, for confidence intervals that stay
#: inside it), from the rules: fractions and rates in [0, 1], counts from 0; the rewards can
#: take either sign (the weights ``A``, ``L``, ``gamma``, ``alpha_own``, ``r_rest`` and
#: ``lambda_own`` may be any finite number).
RANGES = {"nights": (0, None), "saved": (0, 1), "ruined": (0, 1), "lies": (0, None),
          "lie_rate": (0, 1), "work_rate": (0, 1), "cooperation": (0, 1),
          "team_reward": (None, None), "mean_reward": (None, None)}


def statistics(nightly: pd.DataFrame, run: str = "RunId") -> pd.DataFrame:
    """One row per episode (index ``run``) from the model's rows of every night: the
    columns of the module docstring."""
    played = nightly[nightly["night"] >= 1]
    last = nightly.sort_values("night").groupby(run).last()
    houses = last["safe"] + last["burning"] + last["ruined"]
    return pd.DataFrame({
        "nights": last["night"],
        "saved": last["safe"] / houses,
        "ruined": last["ruined"] / houses,
        "lies": last["cumulative_lies"],
        "lie_rate": played.groupby(run)["lie_rate"].mean(),
        "work_rate": played.groupby(run)["work_rate"].mean(),
        "cooperation": played.groupby(run)["cooperation_rate"].mean(),
        "team_reward": last["team_reward"],
        "mean_reward": last["mean_reward"],
    })


def saved_vs_beta(folder) -> Figure:
    """Fraction of houses saved against ``beta``, one line per ``kappa``, one panel per
    population."""
    require(folder, "saved_vs_beta", "beta")
    return lines_in_panels(
        folder, results.episodes(folder), x="beta", y="saved", line="kappa",
        panel="population", panel_title="population",
        title="Bucket Brigade: houses saved against fire spread",
        caption="Share of the houses still safe at the end of an episode, against beta (the "
                "probability that a spreading house ignites a safe neighbour), one line per "
                "kappa, the extinguishing efficiency (k workers save a burning house with "
                "probability 1 \u2212 exp(\u2212kappa \u00b7 k); dark to light: low to high "
                "kappa), one panel per behaviour mix. Higher is better: faster spread pulls "
                "a line down, better extinguishing lifts it.",
        xlabel="beta (spread probability per burning neighbour and night)",
        ylabel="houses saved at the end (fraction)",
        line_title="kappa\n(extinguishing\nefficiency)")


#: Why a behaviour lies as often as it does (docs/rules/bucket_brigade.md, "Behaviours"),
#: for the behaviours of the mixes shown.
LIE_NOTES = {
    "random": "random draws its signal and its mode independently, so about half of its "
              "signals are lies",
    "always_work": "always_work and always_rest are honest",
    "always_rest": "always_work and always_rest are honest",
    "firefighter": "firefighter signals its intent (honesty 1) and lies only when the "
                   "others' signals change its mind",
    "liar": "liar signals the opposite of its intent nine times in ten",
    "free_rider": "free_rider signals the opposite of its intent three times in ten and "
                  "often rests after signalling work when others signalled they will work",
    "hero": "hero signals its intent (honesty 1) and lies only when it changes its mind",
    "coordinator": "coordinator signals the opposite of its intent one time in ten",
}


def lie_rate_by_mix(folder) -> Figure:
    """Lies per agent-night by population (bars with confidence intervals)."""
    require(folder, "lie_rate_by_mix", "population")
    table = results.episodes(folder)
    return bars(
        folder, table, columns=["lie_rate"], names=["lie rate"], category="population",
        title="Bucket Brigade: how often each behaviour mix lies",
        caption="Share of agent-nights on which an agent's mode differed from the signal it "
                "sent that night (a lie), per behaviour mix; a mix's rate is the mean over "
                "its agents. "
                + behaviour_notes(table["population"], LIE_NOTES),
        xlabel="population (behaviour mix)",
        ylabel="lie rate (lies per agent-night, fraction)")


FIGURES = {"saved_vs_beta": saved_vs_beta, "lie_rate_by_mix": lie_rate_by_mix}
