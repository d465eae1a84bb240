"""Firefighting Graph sweeps and their summary tables, from the DataCollector's columns.

``sweep`` plays every behaviour mix for every seed with ``mesa.batch_run`` (default row
game); ``episode_table`` gives one row per episode and ``summary_table`` averages the
episodes of each mix:

* ``steps``: length of the episode (it ends early when every house is at 0);
* ``mean_fire`` / ``final_fire``: mean house level over the steps / at the end;
* ``burning``: houses burning at the end; ``doubled``: houses with two or more firefighters
  per step; ``flame_rate``: share of flame observations;
* ``mean_reward``: mean cumulative reward per firefighter.

``analysis.sweeps.behaviour_table`` gives the mean reward of each behaviour in each mix.
"""

import pandas as pd

from analysis.sweeps import batch_rows, episode_rows, mean_by_population
from models.firefighting_graph import FirefightingGraphModel

#: Episodes per behaviour mix in the main job.
SEEDS = 20

MIXES = ("random", "fixed0", "fixed1", "belief_tracker", "belief_tracker:5,random:5")


def sweep(populations=MIXES, seeds=range(SEEDS), processes=2,
          **parameters) -> pd.DataFrame:
    """Every step of every (population, seed) episode: ``batch_run``'s rows."""
    return batch_rows(FirefightingGraphModel, {"population": list(populations), **parameters},
                      seeds, processes)


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


def episode_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per episode (RunId) from the rows of ``sweep``, with the mean final reward of
    each behaviour that played as ``reward_<behaviour>``."""
    return episode_rows(rows, FirefightingGraphModel, statistics)


def summary_table(episodes: pd.DataFrame) -> pd.DataFrame:
    """Mean of each column over the episodes of each population, in sweep order."""
    return mean_by_population(episodes, ["steps", "mean_fire", "final_fire", "burning",
                                         "doubled", "flame_rate", "mean_reward"])
