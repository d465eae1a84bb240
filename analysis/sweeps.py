"""Running a game over parameters and seeds with ``mesa.batch_run``, shared by every game.

``batch_rows`` returns ``batch_run``'s own rows: one per run, step and agent, with the
model's and the agent's values merged, the agent's value winning where a model and an agent
reporter share a name (State Punishment's ``collected``, ``votes_up``, ``votes_down``).
``model_rows`` keeps one row per run and step with the model columns only, so those shared
names are missing there: read the model's value from a model's own ``datacollector`` or
from a column that does not clash. ``behaviour_rewards`` gives, per run, the mean final
reward of each behaviour that played.
"""

import mesa
import pandas as pd


def batch_rows(model_cls, parameters: dict, seeds, processes: int = 2) -> pd.DataFrame:
    """Every step of every run, one row per agent (``mesa.batch_run``'s rows)."""
    return pd.DataFrame(mesa.batch_run(
        model_cls, parameters, rng=list(seeds), number_processes=processes,
        data_collection_period=1, display_progress=False))


def model_rows(rows: pd.DataFrame, model_cls) -> pd.DataFrame:
    """One row per run and step with the model's columns and the run's parameters."""
    agent_columns = [c for c in ("AgentID", *model_cls.agent_reporters) if c in rows]
    return rows.drop_duplicates(["RunId", "Step"]).drop(columns=agent_columns)


def behaviour_rewards(rows: pd.DataFrame) -> pd.DataFrame:
    """Per run (index ``RunId``), the mean final ``reward`` of the agents of each behaviour
    (one column per behaviour; NaN where it did not play)."""
    final = rows[rows["Step"] == rows.groupby("RunId")["Step"].transform("max")]
    return final.pivot_table(index="RunId", columns="behaviour", values="reward",
                             aggfunc="mean")


def episode_rows(rows: pd.DataFrame, model_cls, statistics) -> pd.DataFrame:
    """One row per run: its population and seed, the game's ``statistics`` of the model's
    rows, and the mean final reward of each behaviour that played as ``reward_<name>``."""
    steps = model_rows(rows, model_cls)
    first = steps.groupby("RunId")[["population", "rng"]].first()
    episodes = first.rename(columns={"rng": "seed"}).join(statistics(steps, "RunId"))
    return episodes.join(behaviour_rewards(rows).add_prefix("reward_")).reset_index()


def mean_by_population(episodes: pd.DataFrame, columns) -> pd.DataFrame:
    """Mean of ``columns`` over the episodes of each population, in sweep order, after a
    count of episodes."""
    table = episodes.groupby("population", sort=False)[list(columns)].mean()
    table.insert(0, "episodes", episodes.groupby("population", sort=False).size())
    return table


def behaviour_table(episodes: pd.DataFrame) -> pd.DataFrame:
    """Mean final reward of each behaviour (columns) in each population (rows)."""
    columns = [c for c in episodes if c.startswith("reward_")]
    table = mean_by_population(episodes, columns).drop(columns="episodes")
    return table.rename(columns=lambda c: c.removeprefix("reward_"))
