"""Firefighting Graph results: episode statistics and paper figures
(docs/rules/firefighting_graph.md).

``statistics`` gives one row per episode from the model's DataCollector rows:

* ``steps``: length of the episode (it ends early when every house is at 0);
* ``mean_fire`` / ``final_fire``: mean house level over the steps / at the end;
* ``burning``: houses burning at the end; ``doubled``: houses with two or more firefighters
  per step; ``flame_rate``: share of flame observations;
* ``mean_reward``: mean cumulative reward per firefighter.

``FIGURES``: ``fire_over_time`` -- how much fire does each behaviour leave in the town as the
episode goes on (one panel per ``p_ignite``)? ``fire_vs_ignition`` -- how does the ignition
probability ``p_ignite`` change the mean fire of an episode, for each behaviour?
"""

import pandas as pd
from matplotlib.figure import Figure

from analysis import results
from analysis.figures import ci_text, lines_in_panels, pooled, require
from models.firefighting_graph import FirefightingGraphModel


def statistics(steps: pd.DataFrame, run: str = "RunId") -> pd.DataFrame:
    """One row per episode (index ``run``) from the model's rows of every step: the columns
    of the module docstring."""
    played = steps[steps["step"] >= 1]
    last = steps.sort_values("step").groupby(run).last()
    return pd.DataFrame({
        "steps": last["step"],
        "mean_fire": played.groupby(run)["mean_fire"].mean(),
        "final_fire": last["mean_fire"],
        "burning": last["burning_houses"],
        "doubled": played.groupby(run)["doubled_houses"].mean(),
        "flame_rate": played.groupby(run)["flame_rate"].mean(),
        "mean_reward": last["mean_reward"],
    })


def _fire_label(folder, what: str) -> str:
    """``what`` with the fire scale, e.g. "mean fire level (house level 0-100)"."""
    study = results.definition(folder)
    if not {"max_fire_level", "preset"} & set(study["sweep"]):
        try:
            model = FirefightingGraphModel(**study["fixed"], rng=0, collect_data=False)
            return f"{what} (0\u2013{model.max_fire_level})"
        except (TypeError, ValueError):
            pass
    return f"{what} (house level)"


def fire_over_time(folder) -> Figure:
    """Mean fire level against step, one line per population, one panel per ``p_ignite``."""
    rows = results.load(folder)
    return lines_in_panels(
        folder, rows, x="step", y="mean_fire", line="population", panel="p_ignite",
        panel_title="p_ignite", marker=None, bounds=(0, None),
        title="Firefighting Graph: fire left in the town over an episode, one panel per "
              f"p_ignite\n({ci_text(folder)}{pooled(folder, 'population', 'p_ignite')})",
        xlabel="step", ylabel=_fire_label(folder, "fire level per house"),
        line_title="population")


def fire_vs_ignition(folder) -> Figure:
    """Mean fire per episode against ``p_ignite``, one line per population."""
    require(folder, "fire_vs_ignition", "p_ignite")
    return lines_in_panels(
        folder, results.episodes(folder), x="p_ignite", y="mean_fire",
        line="population", bounds=(0, None),
        title="Firefighting Graph: mean fire of an episode against the ignition "
              f"probability\n({ci_text(folder)}{pooled(folder, 'population', 'p_ignite')})",
        xlabel="p_ignite (ignition probability per step)",
        ylabel=_fire_label(folder, "fire level per house, episode mean"),
        line_title="population")


FIGURES = {"fire_over_time": fire_over_time, "fire_vs_ignition": fire_vs_ignition}
