"""Writing a batch of finished runs into a study folder, for the model and the batch engine
alike (``dilemmas.analysis.studies.runner``, ``dilemmas.analysis.studies.blocks``): the columns in
front of every row, the record of a failed run, and the batch's Parquet files with their manifest
line."""

import hashlib
import json
import traceback
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from dilemmas.analysis.studies import manifest
from dilemmas.analysis.studies.study import Run, canonical
from dilemmas.models.files import write_atomic


def run_columns(run: Run, engine: str, rules_version: int) -> dict:
    """The columns in front of a run's rows: its id, replicate and seed, the engine that
    played it (``"model"`` or ``"batch"``), the game's rules version, the index of its
    point in a sampled design (``design_point``, only then), and its parameters."""
    front = {"run_id": run.run_id, "replicate": run.replicate, "seed": run.seed,
             "engine": engine, "rules_version": rules_version}
    if run.point is not None:
        front["design_point"] = run.point
    front.update({key: canonical(value) if isinstance(value, (list, tuple, dict)) else value
                  for key, value in run.parameters.items()})
    return front


def record_failure(folder: Path, run, error: BaseException) -> None:
    """``failed/<run_id>.json``: the run's parameters, seed and the error with its traceback."""
    record = {"run_id": run.run_id, "parameters": run.parameters, "replicate": run.replicate,
              "seed": run.seed, "error": f"{type(error).__name__}: {error}",
              "traceback": traceback.format_exc()}
    write_atomic(folder / "failed" / f"{run.run_id}.json",
                 (json.dumps(record, indent=2, default=repr) + "\n").encode())


def write_batch(folder: Path, played: int, failed: list, model_tables: list,
                agent_tables: list) -> tuple[int, list[str], dict | None]:
    """Write a batch's model and agent rows (the agents first: the model file marks the
    runs done) and return ``(runs played, ids of the failed ones, its manifest line)``."""
    if not model_tables:
        return played, failed, None
    # blocks of one file can hold a swept value as an integer in one, a float in another
    model_table = pa.concat_tables(model_tables, promote_options="permissive")
    done = sorted(set(model_table.column("run_id").to_pylist()))
    name = hashlib.sha256("".join(done).encode()).hexdigest()[:16]
    files = {}
    if agent_tables:
        files[f"{name}.agent.parquet"] = parquet_bytes(
            pa.concat_tables(agent_tables, promote_options="permissive"))
    files[f"{name}.model.parquet"] = parquet_bytes(model_table)
    for file, data in files.items():
        write_atomic(folder / "runs" / file, data, durable=False)
    return played, failed, {"runs": done, "files": {file: manifest.digest(data)
                                                    for file, data in files.items()}}


def parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()
