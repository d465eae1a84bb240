"""Running a game over parameters and seeds with ``mesa.batch_run``, shared by every game."""

import mesa
import pandas as pd


def model_rows(model_cls, parameters: dict, seeds, processes: int = 2) -> pd.DataFrame:
    """One row per run and step with the model's DataCollector columns, plus ``RunId`` and
    the parameters.

    ``batch_run`` writes a row per agent with the model's and the agent's values merged, the
    agent's value winning where a model and an agent reporter share a name (State
    Punishment's ``collected``, ``votes_up``, ``votes_down``). The agent columns are dropped
    here, so those shared names are missing from these rows; read the model's value from a
    model's own ``datacollector`` or from a column that does not clash.
    """
    rows = pd.DataFrame(mesa.batch_run(
        model_cls, parameters, rng=list(seeds), number_processes=processes,
        data_collection_period=1, display_progress=False))
    agent_columns = [c for c in ("AgentID", *model_cls.agent_reporters) if c in rows]
    return rows.drop_duplicates(["RunId", "Step"]).drop(columns=agent_columns)
