"""A study's results in pandas: its rows, its episodes, and aggregates with confidence intervals.

``load(folder)`` reads every model (or agent) file of a study written by
``analysis.runner.run_study``, sorted by ``run_id`` and ``Step`` so the table is the same
whichever backend or number of workers wrote it. ``episodes(folder)`` gives one row per run:
the run's parameters and seed, then the game's own statistics (``analysis.<game>.statistics``:
saved fraction, lie, work and cooperation rates for Bucket Brigade; punishment level, votes
and harm for State Punishment; stags, hares, coordinated kills and stag share for Stag Hunt;
mean fire for the Firefighting Graph). ``aggregate`` averages any column over the seeds of
each parameter combination with a Student-t confidence interval.
"""

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
from scipy import stats

from analysis import bucket_brigade, firefighting_graph, stag_hunt, state_punishment

STATISTICS = {
    "bucket_brigade": bucket_brigade.statistics,
    "state_punishment": state_punishment.statistics,
    "stag_hunt": stag_hunt.statistics,
    "firefighting_graph": firefighting_graph.statistics,
}
RUN_COLUMNS = ("run_id", "replicate", "seed")


def definition(folder) -> dict:
    """The study's definition (``study.json``) in a results folder."""
    path = Path(folder) / "study.json"
    if not path.exists():
        raise FileNotFoundError(f"{folder} holds no study results (no study.json)")
    return json.loads(path.read_text())


def parameter_columns(folder) -> list[str]:
    """The run columns of the study's rows: id, replicate, seed, then its parameters."""
    study = definition(folder)
    return [*RUN_COLUMNS, *study["fixed"], *study["sweep"]]


def load(folder, level: str = "model") -> pd.DataFrame:
    """Every row of the study's ``level`` ("model" or "agent") files, by run and step."""
    if level not in ("model", "agent"):
        raise ValueError(f"level={level!r} is invalid: must be 'model' or 'agent'")
    definition(folder)
    paths = sorted((Path(folder) / "runs").glob(f"*.{level}.parquet"))
    if not paths:
        raise FileNotFoundError(f"{folder} holds no {level} results yet")
    frame = pd.concat([pq.read_table(path).to_pandas() for path in paths], ignore_index=True)
    keys = ["run_id", "Step", *(["AgentID"] if level == "agent" else [])]
    return frame.sort_values(keys, kind="stable").reset_index(drop=True)


def failures(folder) -> pd.DataFrame:
    """The runs that raised: id, replicate, seed, parameters (JSON), error, traceback."""
    records = [json.loads(path.read_text())
               for path in sorted((Path(folder) / "failed").glob("*.json"))]
    columns = ["run_id", "replicate", "seed", "parameters", "error", "traceback"]
    frame = pd.DataFrame(records, columns=columns)
    frame["parameters"] = [json.dumps(p, sort_keys=True) for p in frame["parameters"]]
    return frame


def episodes(folder, rows: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per run: its parameters and seed, then the game's episode statistics."""
    rows = load(folder) if rows is None else rows
    columns = parameter_columns(folder)
    statistics = STATISTICS[definition(folder)["game"]](rows, "run_id")
    first = rows.groupby("run_id", sort=True)[columns[1:]].first()
    return first.join(statistics).reset_index()


def aggregate(table: pd.DataFrame, by, columns, confidence: float = 0.95) -> pd.DataFrame:
    """Per group of ``by``: the number of runs ``n`` and, for each of ``columns``, its mean
    and the Student-t confidence interval of the mean over runs (``<column>_low``,
    ``<column>_high``; NaN with fewer than two runs). NaN values (e.g. a rate on an episode
    where it is undefined) are left out of that column's mean."""
    by = [by] if isinstance(by, str) else list(by)
    columns = [columns] if isinstance(columns, str) else list(columns)
    groups = table.groupby(by, sort=False)
    out = groups.size().rename("n").to_frame()
    for column in columns:
        mean, sem, count = (groups[column].mean(), groups[column].sem(),
                            groups[column].count())
        half = sem * stats.t.ppf(0.5 + confidence / 2, (count - 1).clip(lower=1))
        half[count < 2] = float("nan")
        out[column] = mean
        out[f"{column}_low"] = mean - half
        out[f"{column}_high"] = mean + half
    return out.reset_index()
