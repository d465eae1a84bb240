"""Bucket Brigade sweeps and their summary tables, from the DataCollector's columns.

``sweep`` plays every behaviour mix for every seed with ``mesa.batch_run``;
``episode_table`` turns its rows into one row per episode and ``summary_table`` averages
the episodes of each mix:

* ``saved`` / ``ruined``: fraction of houses SAFE / RUINED at the end;
* ``lies``: lies per episode; ``lie_rate``: lies per agent-night;
* ``work_rate``: share of agent-nights spent working;
* ``cooperation``: share of agents working on nights that began with a fire;
* ``team_reward``: R_team at the end; ``mean_reward``: mean individual R_i.

``analysis.sweeps.behaviour_table`` gives the mean R_i of each behaviour in each mix: in a
mixed population it shows who gains from whom.
"""

import pandas as pd

from analysis.sweeps import batch_rows, episode_rows, mean_by_population
from models.bucket_brigade import BucketBrigadeModel

#: Episodes per behaviour mix in the main job.
SEEDS = 20

MIXES = ("random", "always_work", "always_rest", "firefighter", "coordinator", "hero",
         "free_rider", "liar", "firefighter:2,free_rider:2", "coordinator:2,liar:2")


def sweep(populations=MIXES, seeds=range(SEEDS), processes=2,
          **parameters) -> pd.DataFrame:
    """Every step of every (population, seed) episode: ``batch_run``'s rows."""
    return batch_rows(BucketBrigadeModel, {"population": list(populations), **parameters},
                      seeds, processes)


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


def episode_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per episode (RunId) from the rows of ``sweep``, with the mean final reward
    R_i of each behaviour that played as ``reward_<behaviour>``."""
    return episode_rows(rows, BucketBrigadeModel, statistics)


def summary_table(episodes: pd.DataFrame) -> pd.DataFrame:
    """Mean of each column over the episodes of each population, in sweep order."""
    return mean_by_population(episodes, ["nights", "saved", "ruined", "lies", "lie_rate",
                                         "work_rate", "cooperation", "team_reward",
                                         "mean_reward"])
