"""Playing a study on a game's batch engine: its runs in fixed blocks of episodes.

When a study is played by a batch engine (``Study.batch``,
``dilemmas.analysis.studies.study``), the runner (``dilemmas.analysis.studies.runner``) cuts
each parameter combination's replicates into blocks of ``BLOCK`` (``AGENT_BLOCK`` when agents
are collected, or some seats decide in Python, ``block_size``): replicates 0 .. BLOCK-1, then the next ``BLOCK``, and so on. A block is played
in one go by the engine (``dilemmas.models.batch.BatchEngine``), seeded with the seeds of all
its runs (``numpy.random.default_rng([seed, ...])``), so a run's rows depend on its block,
which is fixed by the study, and on nothing else: every backend, number of workers and
resumption gives the same rows (a block of fewer than ``dilemmas.models.batch.COMPILED_FROM``
episodes plays on numpy, a larger one compiled by JAX). A task plays one block or several
small ones and writes them to one file, exactly as a batch of runs on the model is written
(``dilemmas.analysis.studies.runner``): the same columns, the same manifest line; only the
runs not yet done are written. A block that raises records each of its runs in ``failed/``,
and the others go on.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from dilemmas.analysis.studies.run_files import record_failure, run_columns, write_batch
from dilemmas.analysis.studies.study import Study
from dilemmas import GAMES

#: Episodes in a block when only the model rows are collected, and when agents are too (or
#: when some seats decide in Python: each episode then holds a Mesa model, about 20 to 200 KiB).
BLOCK, AGENT_BLOCK = 10_000, 1_000


def block_size(study: Study) -> int:
    """The episodes in each of ``study``'s blocks (``BLOCK`` or ``AGENT_BLOCK``)."""
    return AGENT_BLOCK if "agent" in study.collect or study.in_python else BLOCK


def block_tasks(study: Study, folder: Path, done: set, failed_before: set):
    """``(tasks, runs already done)``: each task a list of blocks (about ``BLOCK`` episodes
    in all) with runs left to play; a block is ``(combination index, combination, first
    replicate, stop, ids already done)``. The runs themselves are derived in the workers."""
    size = block_size(study)
    tasks, task, episodes, already = [], [], 0, 0
    for index, combination in enumerate(study.combinations()):
        for first in range(0, study.replicates, size):
            stop = min(first + size, study.replicates)
            skip = frozenset()
            if done:  # resuming: which runs of the block are done already
                skip = frozenset(run.run_id for run in study.runs_of(index, combination, first, stop)
                                 if run.run_id in done)
                already += len(skip)
                if len(skip) == stop - first:
                    continue
            task.append((index, combination, first, stop, skip))
            episodes += stop - first
            if episodes >= size:
                tasks.append(task)
                task, episodes = [], 0
    if task:
        tasks.append(task)
    return [(study, task, str(folder), failed_before) for task in tasks], already


def play_blocks(task):
    """Play a task's blocks on the batch engine and write their rows (in a worker); returns
    what ``dilemmas.analysis.studies.runner.play_batch`` returns, so the runner records it the same
    way."""
    study, blocks, folder, failed_before = task
    game, folder = GAMES[study.game], Path(folder)
    model_tables, agent_tables, failed, played = [], [], [], 0
    for index, combination, first, stop, skip in blocks:
        runs = study.runs_of(index, combination, first, stop)
        wanted = np.array([run.run_id not in skip for run in runs])
        played += int(wanted.sum())
        try:
            seeds = [run.seed for run in runs]
            engine = game.batch(len(runs), np.random.default_rng(seeds), seeds=seeds,
                                agents="agent" in study.collect, **combination)
            rows = engine.run()
        except Exception as error:  # every run of the block failed; the study goes on
            for run in runs:
                if run.run_id not in skip:
                    record_failure(folder, run, error)
                    failed.append(run.run_id)
            continue
        model_tables.append(_table(runs, wanted, game.rules_version, rows.episode, rows.step,
                                   rows.model))
        if rows.agent is not None:
            agent_tables.append(_agent_table(runs, wanted, game.rules_version, rows))
        for run in runs:
            if run.run_id in failed_before and run.run_id not in skip:
                (folder / "failed" / f"{run.run_id}.json").unlink(missing_ok=True)
    return write_batch(folder, played, failed, model_tables, agent_tables)


def _front(runs, wanted, episode, version) -> tuple[np.ndarray, dict]:
    """Which rows are the wanted episodes', and those rows' columns in front
    (``dilemmas.analysis.studies.run_files.run_columns``): the run's own values, then the block's
    (its engine, rules version and parameters, the same for every run of a block)."""
    keep = wanted[episode]
    chosen = pa.array(episode[keep])
    own = {"run_id": [run.run_id for run in runs], "replicate": [run.replicate for run in runs],
           "seed": [run.seed for run in runs]}
    front = {}
    for name, value in run_columns(runs[0], "batch", version).items():
        front[name] = (pa.array(own[name]).take(chosen) if name in own
                       else pa.repeat(value, len(chosen)))
    return keep, front


def _table(runs, wanted, version, episode, step, columns) -> pa.Table:
    keep, front = _front(runs, wanted, episode, version)
    data = dict(front)
    data["Step"] = pa.array(step[keep])
    for name, values in columns.items():
        data[name] = pa.array(values[keep].tolist() if values.dtype == object else values[keep])
    return pa.table(data)


def _agent_table(runs, wanted, version, rows) -> pa.Table:
    """Agent rows, through pandas as the model's DataCollector frames go, so the column types
    are the same as the model's (its ``Step`` is Mesa's float ``model.time``)."""
    keep, front = _front(runs, wanted, rows.agent_episode, version)
    frame = pd.DataFrame({"Step": rows.agent_step[keep].astype(float),
                          **{name: values[keep] for name, values in rows.agent.items()}})
    table = pa.Table.from_pandas(frame.infer_objects(), preserve_index=False)
    return pa.table(list(front.values()) + table.columns,
                    names=list(front) + table.column_names)
