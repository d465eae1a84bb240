"""State Punishment results: episode statistics and paper figures
(docs/rules/state_punishment.md).

``statistics`` gives one row per episode from the model's DataCollector rows:

* ``turns``: turns played;
* ``mean_p`` / ``final_p``: punishment level averaged over the turns / at the end;
* ``votes_up`` / ``votes_down``: votes cast in the episode;
* ``collected``: resources collected; ``harm``: social harm dealt (each receiver counted);
* ``punishment`` / ``vote_cost``: their totals (negative); ``mean_reward``: per agent.

``FIGURES``: ``punishment_over_time`` -- where does the voted punishment level go during an
episode for each mix of civic voters and greedy foragers (one line each), and does the start
matter (one panel per ``initial_punishment``)? ``harm_vs_initial_punishment`` -- does
starting with a higher punishment level reduce the social harm done in an episode, for each
mix?
"""

import pandas as pd
from matplotlib.figure import Figure

from analysis import results
from analysis.figures import ci_text, lines_in_panels, pooled, require
from models.state_punishment import KINDS


def statistics(turns: pd.DataFrame, run: str = "RunId") -> pd.DataFrame:
    """One row per episode (index ``run``) from the model's rows of every turn: the columns
    of the module docstring."""
    played = turns[turns["turn"] >= 1]
    last = turns.sort_values("turn").groupby(run).last()
    return pd.DataFrame({
        "turns": last["turn"],
        "mean_p": played.groupby(run)["punishment_level"].mean(),
        "final_p": last["punishment_level"],
        "votes_up": last["cumulative_votes_up"],
        "votes_down": last["cumulative_votes_down"],
        "collected": last[[f"collected_{kind}" for kind in KINDS]].sum(axis=1),
        "harm": last["social_harm_generated"],
        "punishment": last["punishment_total"],
        "vote_cost": last["vote_cost_total"],
        "mean_reward": last["mean_reward"],
    })


def punishment_over_time(folder) -> Figure:
    """Mean punishment level against turn, one line per population, one panel per initial
    punishment level."""
    rows = results.load(folder)
    return lines_in_panels(
        folder, rows, x="turn", y="punishment_level", line="population",
        panel="initial_punishment", marker=None, bounds=(0, 1),
        title="State Punishment: punishment level over an episode, one panel per initial "
              f"punishment\n({ci_text(folder)}"
              f"{pooled(folder, 'population', 'initial_punishment')})",
        xlabel="turn", ylabel="punishment level (probability)", line_title="population",
        panel_title="initial punishment")


def harm_vs_initial_punishment(folder) -> Figure:
    """Social harm per episode against the initial punishment level, one line per
    population."""
    require(folder, "harm_vs_initial_punishment", "initial_punishment")
    return lines_in_panels(
        folder, results.episodes(folder), x="initial_punishment", y="harm",
        line="population", bounds=(0, None),
        title="State Punishment: social harm against the initial punishment level\n"
              f"({ci_text(folder)}{pooled(folder, 'population', 'initial_punishment')})",
        xlabel="initial punishment level (probability)",
        ylabel="social harm dealt (per episode)", line_title="population")


FIGURES = {"punishment_over_time": punishment_over_time,
           "harm_vs_initial_punishment": harm_vs_initial_punishment}
