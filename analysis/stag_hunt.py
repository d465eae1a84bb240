"""Stag Hunt sweeps and their summary tables, from the DataCollector's columns.

``sweep`` plays every behaviour mix for every seed with ``mesa.batch_run`` (default map and
agent configuration: 3 seats, 2 spawned at random, seat 2 unable to hunt stags);
``episode_table`` gives one row per episode and ``summary_table`` averages the episodes of
each mix:

* ``stags`` / ``hares``: resources defeated; ``coordinated``: stags killed on a turn in which
  two or more agents hit them; ``stag_share``: stags / all defeats (NaN with none);
* ``attacks`` / ``punishments``: actions fired in the episode; ``removals``: agents removed;
* ``mean_reward``: mean cumulative reward of the agents that played.

``analysis.sweeps.behaviour_table`` gives the mean reward of each behaviour in each mix.
"""

import pandas as pd

from analysis.sweeps import batch_rows, episode_rows, mean_by_population
from models.stag_hunt import StagHuntModel

#: Episodes per behaviour mix in the main job.
SEEDS = 20

MIXES = ("random", "hare_hunter", "stag_hunter", "cooperator",
         "cooperator:1,hare_hunter:2", "cooperator:1,stag_hunter:1,hare_hunter:1")


def sweep(populations=MIXES, seeds=range(SEEDS), processes=2,
          **parameters) -> pd.DataFrame:
    """Every turn of every (population, seed) episode: ``batch_run``'s rows."""
    return batch_rows(StagHuntModel, {"population": list(populations), **parameters},
                      seeds, processes)


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


def episode_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per episode (RunId) from the rows of ``sweep``, with the mean final reward of
    each behaviour that played as ``reward_<behaviour>``."""
    return episode_rows(rows, StagHuntModel, statistics)


def summary_table(episodes: pd.DataFrame) -> pd.DataFrame:
    """Mean of each column over the episodes of each population, in sweep order."""
    return mean_by_population(episodes, ["turns", "stags", "hares", "coordinated",
                                         "stag_share", "attacks", "punishments", "removals",
                                         "mean_reward"])
