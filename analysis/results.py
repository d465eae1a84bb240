"""A study's results in pandas: its rows, its episodes, and aggregates with confidence intervals.

``load(folder)`` reads every model (or agent) file of a study written by
``analysis.runner.run_study``, sorted by ``run_id`` and ``Step`` so the table is the same
whichever backend or number of workers wrote it. ``episodes(folder)`` gives one row per run:
the run's parameters and seed, then the game's own episode statistics (its registration's
``statistics``, e.g. saved fraction and lie rate for Bucket Brigade, mean fire for the
Firefighting Graph). ``aggregate`` averages any column over the seeds of each parameter
combination with a Student-t confidence interval; ``summary`` does so for every episode
statistic of a study, per combination of its swept parameters (``dilemmas summary``).
"""

import json
from analysis import manifest
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
from scipy import stats

from analysis.studies import canonical
from models import GAMES
from models.registry import Game

RUN_COLUMNS = ("run_id", "replicate", "seed")


def definition(folder) -> dict:
    """The study's definition (``study.json``) in a results folder."""
    path = Path(folder) / "study.json"
    if not path.exists():
        raise FileNotFoundError(f"{folder} holds no study results (no study.json)")
    return json.loads(path.read_text())


def game(folder) -> Game:
    """The registered game a study folder holds results of."""
    name = definition(folder)["game"]
    if name not in GAMES:
        raise ValueError(f"{folder} holds results of the game {name!r}, which is not "
                         f"registered; registered: {sorted(GAMES)}")
    return GAMES[name]


def parameter_columns(folder) -> list[str]:
    """The run columns of the study's rows: id, replicate, seed, then its parameters."""
    study = definition(folder)
    return [*RUN_COLUMNS, *study["fixed"], *study["sweep"]]


def load(folder, level: str = "model") -> pd.DataFrame:
    """Every row of the study's ``level`` ("model" or "agent") files, by run and step."""
    if level not in ("model", "agent"):
        raise ValueError(f"level={level!r} is invalid: must be 'model' or 'agent'")
    definition(folder)
    paths = manifest.files(folder, level)
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
    statistics = game(folder).statistics(rows, "run_id")
    first = rows.groupby("run_id", sort=True)[columns[1:]].first()
    return first.join(statistics).reset_index()


def mean_interval(values, confidence: float = 0.95) -> dict:
    """Of the non-NaN ``values``: their number ``n``, ``mean``, standard error ``se`` and
    the Student-t confidence interval of the mean ``low``, ``high`` (NaN below two)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    n = len(values)
    mean = values.mean() if n else np.nan
    se = values.std(ddof=1) / np.sqrt(n) if n >= 2 else np.nan
    half = se * stats.t.ppf(0.5 + confidence / 2, max(n - 1, 1))
    return {"n": n, "mean": mean, "se": se, "low": mean - half, "high": mean + half}


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


def summary(folder, ci: bool = False) -> pd.DataFrame:
    """Per combination of the study's swept parameters, in the study's order: the number of
    runs and the mean of each episode statistic (``ci``: with its confidence interval)."""
    table = episodes(folder)
    sweep = definition(folder)["sweep"]
    swept = list(sweep) or ["replicate"]
    if not sweep:
        table = table.assign(replicate="all")
    else:  # the combinations in the study's order
        positions = [table[key].map({canonical(v) if isinstance(v, list) else v: i
                                     for i, v in enumerate(values)})
                     for key, values in sweep.items()]
        order = sorted(range(len(table)), key=lambda i: [p.iloc[i] for p in positions])
        table = table.iloc[order]
    numbers = [c for c in table.columns
               if c not in parameter_columns(folder)
               and pd.api.types.is_numeric_dtype(table[c])]
    out = aggregate(table, swept, numbers)
    if not ci:
        out = out.drop(columns=[c for c in out if c.endswith(("_low", "_high"))])
    return out
