"""Stag Hunt results: episode statistics and paper figures (docs/rules/stag_hunt.md).

``statistics`` gives one row per episode from the model's DataCollector rows:

* ``turns``: turns played;
* ``stags`` / ``hares``: resources defeated; ``coordinated``: stags killed on a turn in which
  two or more agents hit them; ``stag_share``: stags / all defeats (NaN with none);
* ``attacks`` / ``punishments``: actions fired in the episode; ``removals``: agents removed;
* ``mean_reward``: mean cumulative reward of the agents that played.

``FIGURES``: ``coordinated_kills_vs_heal_delay`` -- how often do hunters kill stags
together, and does stag healing (``heal_delay``, 0 = never heals) change it, for each
behaviour? All stag kills are drawn dashed: healing is what stops a lone hunter from killing
stags. ``catch_by_behaviour`` -- what does each behaviour catch: stags, hares, or neither?
"""

import pandas as pd
from matplotlib.figure import Figure

from analysis import results
from analysis.figures import CONFIDENCE, bars, ci_text, lines_in_panels, pooled, require


def statistics(turns: pd.DataFrame, run: str = "RunId") -> pd.DataFrame:
    """One row per episode (index ``run``) from the model's rows of every turn: the columns
    of the module docstring."""
    last = turns.sort_values("turn").groupby(run).last()
    totals = turns.groupby(run)[["attacks", "punishments"]].sum()
    return pd.DataFrame({
        "turns": last["turn"],
        "stags": last["stags_defeated"],
        "hares": last["hares_defeated"],
        "coordinated": last["coordinated_stag_kills"],
        "stag_share": last["stag_share"],
        "attacks": totals["attacks"],
        "punishments": totals["punishments"],
        "removals": last["removals"],
        "mean_reward": last["mean_reward"],
    })


def coordinated_kills_vs_heal_delay(folder) -> Figure:
    """Coordinated stag kills per episode against ``heal_delay``, one line per population."""
    require(folder, "coordinated_kills_vs_heal_delay", "heal_delay")
    return lines_in_panels(
        folder, results.episodes(folder), x="heal_delay", y="coordinated",
        line="population", bounds=(0, None),
        dashed=("stags", "all stag kills", f"coordinated kills\n(with {CONFIDENCE:.0%} CI)"),
        title="Stag Hunt: stags killed together (solid) and in all (dashed) against stag "
              "healing\n"
              f"({ci_text(folder)}{pooled(folder, 'population', 'heal_delay')})",
        xlabel="heal_delay (turns until a hit stag heals; 0 = never)",
        ylabel="stag kills (per episode)", line_title="population")


def catch_by_behaviour(folder) -> Figure:
    """Stags and hares defeated per episode by population (grouped bars)."""
    require(folder, "catch_by_behaviour", "population")
    return bars(
        folder, results.episodes(folder), columns=["stags", "hares"],
        names=["stags", "hares"], category="population", bounds=(0, None),
        legend_title="defeated",
        title="Stag Hunt: what each behaviour catches\n(mean and "
              f"{CONFIDENCE:.0%} CI over the runs of each mix{pooled(folder, 'population')})",
        xlabel="population (behaviour)", ylabel="resources defeated (per episode)")


FIGURES = {"coordinated_kills_vs_heal_delay": coordinated_kills_vs_heal_delay,
           "catch_by_behaviour": catch_by_behaviour}
