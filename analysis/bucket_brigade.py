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

from analysis import results
from analysis.figures import CONFIDENCE, bars, ci_text, lines_in_panels, pooled, require


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
        panel="population", panel_title="population", bounds=(0, 1),
        title="Bucket Brigade: houses saved against fire spread, by extinguishing "
              f"efficiency\n({ci_text(folder)}{pooled(folder, 'beta', 'kappa', 'population')})",
        xlabel="beta (spread probability per burning neighbour and night)",
        ylabel="houses saved at the end (fraction)",
        line_title="kappa\n(extinguishing\nefficiency)")


def lie_rate_by_mix(folder) -> Figure:
    """Lies per agent-night by population (bars with confidence intervals)."""
    require(folder, "lie_rate_by_mix", "population")
    return bars(
        folder, results.episodes(folder), columns=["lie_rate"],
        names=["lie rate"], category="population", bounds=(0, 1),
        title="Bucket Brigade: how often each behaviour mix lies\n(mean and "
              f"{CONFIDENCE:.0%} CI over the runs of each mix{pooled(folder, 'population')})",
        xlabel="population (behaviour mix)",
        ylabel="lie rate (lies per agent-night, fraction)")


FIGURES = {"saved_vs_beta": saved_vs_beta, "lie_rate_by_mix": lie_rate_by_mix}
