"""State Punishment sweeps and their summary tables, from the DataCollector's columns.

``sweep`` plays every behaviour mix for every seed with ``mesa.batch_run``;
``episode_table`` gives one row per episode and ``summary_table`` averages the episodes of
each mix:

* ``mean_p`` / ``final_p``: punishment level averaged over the turns / at the end;
* ``votes_up`` / ``votes_down``: votes cast in the episode;
* ``collected``: resources collected; ``harm``: social harm dealt (each receiver counted);
* ``punishment`` / ``vote_cost``: their totals (negative); ``mean_reward``: per agent.

``analysis.sweeps.behaviour_table`` gives the mean reward of each behaviour in each mix.
"""

import pandas as pd

from analysis.sweeps import batch_rows, episode_rows, mean_by_population
from agents.state_punishment import KINDS
from models.state_punishment import StatePunishmentModel

#: Episodes per behaviour mix in the main job.
SEEDS = 10

MIXES = ("random", "greedy_forager", "civic_voter", "greedy_forager:2,civic_voter:1",
         "greedy_forager:1,civic_voter:2")


def sweep(populations=MIXES, seeds=range(SEEDS), processes=2,
          **parameters) -> pd.DataFrame:
    """Every step of every (population, seed) episode: ``batch_run``'s rows."""
    return batch_rows(StatePunishmentModel, {"population": list(populations), **parameters},
                      seeds, processes)


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


def episode_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per episode (RunId) from the rows of ``sweep``, with the mean final reward of
    each behaviour that played as ``reward_<behaviour>``."""
    return episode_rows(rows, StatePunishmentModel, statistics)


def summary_table(episodes: pd.DataFrame) -> pd.DataFrame:
    """Mean of each column over the episodes of each population, in sweep order."""
    return mean_by_population(episodes, ["turns", "mean_p", "final_p", "votes_up",
                                         "votes_down", "collected", "harm", "punishment",
                                         "vote_cost", "mean_reward"])
