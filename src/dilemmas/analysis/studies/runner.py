"""Running a study: runs written to Parquet as they finish, resumable, on a pool or on Dask.

``run_study(study, out)`` plays the runs of ``study`` that are not done yet and writes into
``<out>/<study.name>/``:

* ``runs/<batch>.model.parquet`` -- the model DataFrames of a batch of finished runs (one row
  per collection: after construction, then after every step; ``Step`` counts them), with the
  columns ``run_id``, ``replicate``, ``seed`` and every parameter of the run (fixed and
  swept; a list value as JSON text) in front. ``runs/<batch>.agent.parquet`` likewise for the
  agents when the study collects them, written first: the model file marks its runs done.
  A worker plays ``batch_size`` runs (default: about eight batches per worker, at most 50
  runs) and writes them together, since writing a file per run of a short game would cost
  more than playing it; ``batch_size=1`` writes each run as it finishes.
* ``failed/<run_id>.json`` -- a run that raised: its parameters, seed and traceback. The
  other runs go on. A failed run is tried again when the study is run again.
* Studies the game's batch engine can play are played by it instead of its model, a block
  of up to 10,000 episodes at a time (1,000 when agents are collected;
  ``dilemmas.analysis.studies.blocks``): the same files and columns, one file per task of
  blocks. Behaviours that decide in Python play there too, episode by episode through each
  episode's model (``dilemmas.models.episode_models``), and the runner names them in one
  line. Where the engine cannot play a study (a ``policy`` seat, a learner, a behaviour
  declaring ``one_model``), the runner says in one line which and why
  (``Study.off_engine``) and plays the model. The columns in front of every
  row include ``engine`` (``"model"`` or ``"batch"``) and the game's ``rules_version``.
* ``study.json`` -- the study's definition. Running a different study into the same folder
  is an error, so results of two studies never mix.

Every file is written to a temporary name and renamed (``dilemmas.models.files.write_atomic``; run
files without waiting for the disk, which would cost more than a short run), and the main
process records each finished batch with its files' checksums in ``manifest.jsonl``
(``dilemmas.analysis.studies.manifest``). Resuming checks every recorded file against its checksum
and plays again the runs of any batch that is damaged, unrecorded or cut short, so an interrupted or
damaged study never counts a partial file nor stores a run twice; stale temporary files are
removed. One runner writes a folder at a time (a lock the operating system drops if the
runner dies); the local pool's workers ignore Ctrl-C (the main process stops them after
their batch) and die with the main process if it is killed, also while the pool starts
(``fork_server``). A study's size is checked before anything is built
(``dilemmas.analysis.studies.study``, ``max_runs``); ``check_backend`` refuses a placement
the backends cannot honour (``workers`` < 1, a ``scheduler`` without ``"dask"``).

Backends: ``"local"`` -- a process pool on this machine (``workers`` processes, default every
core; started by a fork server on Linux and spawned elsewhere, never forked from the main
process, whose threads -- JAX's among them -- would deadlock a forked child);
``"dask"`` -- ``dask.distributed``: a ``Client`` to the scheduler at ``scheduler`` (its
workers must see ``out`` at the same path), or a ``LocalCluster`` of ``workers`` processes
on 127.0.0.1 that the runner starts and stops; ``"serial"`` -- this process, one batch after
another (for debugging). A run's data depends only on its parameters and seed, so every
backend, number of workers and batch size gives the same rows.
"""

import ctypes
import importlib
import json
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from dilemmas.analysis.studies import fork_server, manifest
from dilemmas.analysis.studies.blocks import block_size, block_tasks, play_blocks
from dilemmas.analysis.studies.run_files import record_failure, run_columns, write_batch
from dilemmas.analysis.studies.study import (BACKENDS, Progress, Study, StudyError, canonical,
                                             read_definition)
from dilemmas import GAMES
from dilemmas.models.files import write_atomic
from dilemmas.models.session import with_session_behaviours

MAX_BATCH = 50


@dataclass
class Report:
    """What ``run_study`` did: runs in the study, already done before, played now, and the
    ids of the runs that failed."""

    folder: Path
    total: int
    already_done: int = 0
    played: int = 0
    failed: list[str] = field(default_factory=list)


def study_folder(study: Study, out) -> Path:
    return Path(out) / study.name


def run_study(study: Study, out="results", *, backend="local", workers=None, scheduler=None,
              batch_size=None, progress=True) -> Report:
    """Play the runs of ``study`` not yet done into ``<out>/<study.name>`` (module
    docstring) and return a :class:`Report`."""
    check_backend(backend, workers, scheduler)
    if batch_size is not None and (type(batch_size) is not int or batch_size < 1):
        raise ValueError(f"batch_size={batch_size!r} is invalid: must be None or an integer "
                         ">= 1")
    folder = study_folder(study, out)
    with manifest.writing(folder):
        _prepare(study, folder)
        return _run(study, folder, backend, workers, scheduler, batch_size, progress)


def check_backend(backend="local", workers=None, scheduler=None) -> None:
    """A ValueError unless ``backend``, ``workers`` and ``scheduler`` place runs as ``play``
    can (module docstring, "Backends"): a scheduler only for ``"dask"``, whose runs it
    would otherwise not see."""
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r} is invalid: must be one of {list(BACKENDS)}")
    if workers is not None and (type(workers) is not int or workers < 1):
        raise ValueError(f"workers={workers!r} is invalid: must be None or an integer >= 1")
    if scheduler is not None and backend != "dask":
        raise ValueError(f"scheduler={scheduler!r} is for backend='dask', and the backend is "
                         f"{backend!r}: choose the dask backend, or leave the scheduler out")


def _run(study, folder, backend, workers, scheduler, batch_size, progress) -> Report:
    done = manifest.verify(folder)
    workers = workers or os.cpu_count() or 1
    failed_before = {path.stem for path in (folder / "failed").glob("*.json")}
    total = study.replicates * len(study.combinations())
    if study.off_engine:
        print(f"study {study.name!r} plays on the Mesa model, not the batch engine: "
              f"{study.off_engine}", file=sys.stderr)
    elif study.in_python:
        print(f"study {study.name!r} plays on the batch engine in blocks of up to "
              f"{block_size(study):,} "
              "episodes; in Python, episode by episode through each episode's model: "
              f"{', '.join(study.in_python)}", file=sys.stderr)
    if study.batch:
        tasks, already_done = block_tasks(study, folder, done, failed_before)
        function = play_blocks
    else:
        todo = [run for run in study.runs() if run.run_id not in done]
        already_done = total - len(todo)
        size = batch_size or max(1, min(MAX_BATCH, len(todo) // (8 * workers)))
        tasks = [(study.game, study.collect, batch, str(folder),
                  failed_before.intersection(run.run_id for run in batch))
                 for batch in (todo[i:i + size] for i in range(0, len(todo), size))]
        function = play_batch
    report = Report(folder, total, already_done=already_done)
    bar = Progress(total=total, initial=report.already_done, unit="run", desc=study.name,
                   disable=not progress)
    try:
        for played, failed, entry in play(function, tasks, backend, workers, scheduler):
            if entry:
                manifest.record(folder, entry)
            report.played += played
            report.failed += failed
            bar.update(played)
    finally:
        bar.close()
    return report


def _prepare(study: Study, folder: Path) -> None:
    """The study's folder, with its definition; stale temporary files removed."""
    (folder / "runs").mkdir(exist_ok=True)
    (folder / "failed").mkdir(exist_ok=True)
    definition = folder / "study.json"
    if definition.exists():
        _refuse_another_study(study, folder, read_definition(definition))
    else:
        text = json.dumps(study.definition(), indent=2) + "\n"  # the file's key order
        write_atomic(definition, text.encode())
    for stale in [*folder.glob(".*.tmp"), *folder.glob("*/.*.tmp")]:
        stale.unlink(missing_ok=True)


def _refuse_another_study(study: Study, folder: Path, written: dict) -> None:
    """A StudyError if the folder's ``study.json`` (``written``) is not this study's,
    naming the rules version or the engine when that is all that differs."""
    wanted = study.definition()
    if canonical(written) == canonical(wanted):
        return
    if written.get("rules_version", 1) != study.rules_version \
            and _without(written, "rules_version", "engine") \
            == _without(wanted, "rules_version", "engine"):
        raise StudyError(
            f"study {study.name!r}: {folder} holds results of version "
            f"{written.get('rules_version', 1)} of the {study.game} rules, and this code "
            f"plays version {study.rules_version} (docs/rules/{study.game}.md); the two "
            "cannot mix: move that folder away, or choose another output folder")
    if _without(written, "engine") == _without(wanted, "engine"):
        played, now = (("the batch engine", "the Mesa model") if "engine" in written
                       else ("the Mesa model", "the batch engine"))
        raise StudyError(
            f"study {study.name!r}: {folder} was played by {played}, and this study is "
            f"now played by {now}; the two do not mix in one folder: "
            + ("add engine = \"model\" to the study file to resume it there, or choose "
               "another output folder" if "engine" not in written else
               "choose another output folder"))
    raise StudyError(f"study {study.name!r}: {folder} holds results of a different study "
                     f"(see {folder / 'study.json'}); choose another name or output folder")


def _without(definition: dict, *keys: str) -> str:
    return canonical({k: v for k, v in definition.items() if k not in keys})


def play(function, tasks, backend, workers, scheduler):
    """Yield ``function(task)`` for each task as they finish, on the backend (module
    docstring); also how ``dilemmas.analysis.learning.training`` trains its seeds."""
    if not tasks:
        return
    if backend == "serial":
        yield from map(function, tasks)
        return
    function = with_session_behaviours(function)
    if backend == "local":
        context = multiprocessing.get_context(
            "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")
        # the workers import every module that registered a game, as this process did; the
        # fork server imports them first, so that each worker starts with them loaded
        games = sorted({game.model.__module__ for game in GAMES.values()} - {"__main__"})
        if context.get_start_method() == "forkserver":
            _start_fork_server(context, games)
        with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                 initializer=_worker_start, initargs=(os.getpid(), games)) as pool:
            futures = [pool.submit(function, task) for task in tasks]
            try:
                for future in as_completed(futures):
                    yield future.result()
            except BaseException:  # Ctrl-C, or the caller stopped: start no further batch
                for future in futures:
                    future.cancel()
                raise
    else:
        yield from _play_on_dask(function, tasks, workers, scheduler)


def _start_fork_server(context, games: list[str]) -> None:
    """Start the fork server (unless it runs already) preloading ``fork_server`` (which ties
    its life to this process's) before anything else, then the modules of the games; the
    server learns this process's id from the environment it starts with."""
    context.set_forkserver_preload(["__main__", "dilemmas.analysis.studies.fork_server",
                                    *games])
    os.environ[fork_server.PARENT] = str(os.getpid())
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        del os.environ[fork_server.PARENT]


def _worker_start(parent: int, games: list[str]) -> None:
    """A local worker ignores Ctrl-C (its main process stops the pool; ignored first, so a
    Ctrl-C while it starts prints nothing of its own), on Linux is killed if the process
    that started it dies (the fork server, which ends with the main process), so no orphan
    goes on writing, and then imports the modules of the games its main process registered
    (a game of another package registers when its module is imported)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        prctl = ctypes.CDLL(None, use_errno=True).prctl
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        try:
            os.kill(parent, 0)
        except ProcessLookupError:  # the main process died before that took effect
            os._exit(1)
    for module in games:
        importlib.import_module(module)


def _play_on_dask(function, tasks, workers, scheduler):
    from dask.distributed import Client, LocalCluster
    from dask.distributed import as_completed as finished

    if scheduler:
        cluster, client = None, _client(scheduler)
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    try:
        for future in finished(client.map(function, tasks, pure=False)):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _client(scheduler):
    """A dask ``Client`` to ``scheduler``; a StudyError names an address dask cannot reach
    within its connect timeout (``distributed.comm.timeouts.connect``) or cannot read."""
    from dask.distributed import Client

    try:
        return Client(scheduler)
    except (OSError, ValueError, TypeError) as error:
        raise StudyError(f"scheduler={scheduler!r}: no dask scheduler can be reached there "
                         f"({error}); start one (dask scheduler) and give its address, e.g. "
                         "tcp://127.0.0.1:8786, or leave the scheduler out for a local "
                         "cluster") from None


def play_batch(task) -> tuple[int, list[str], dict | None]:
    """Play a batch of runs on the game's model and write their data (in a worker); a run
    that raises is recorded in ``failed/`` instead. Returns ``(runs played, ids of the failed
    ones, the batch's manifest line or None)``."""
    game, collect, runs, folder, failed_before = task
    folder = Path(folder)
    model_columns: dict[str, list] = {}
    agent_tables = []
    failed = []
    for run in runs:
        try:
            model = GAMES[game].model(**run.parameters, rng=run.seed)
            model.run_model()
            reported = model.datacollector.model_vars
            steps = len(next(iter(reported.values())))
            if "agent" in collect:
                agents = model.datacollector.get_agent_vars_dataframe().reset_index()
                agent_tables.append(pa.Table.from_pandas(agents, preserve_index=False))
        except Exception as error:  # recorded as failed; the study goes on
            record_failure(folder, run, error)
            failed.append(run.run_id)
            continue
        if run.run_id in failed_before:
            (folder / "failed" / f"{run.run_id}.json").unlink(missing_ok=True)
        front = run_columns(run, "model", GAMES[game].rules_version)
        if agent_tables:
            table = agent_tables[-1]
            agent_tables[-1] = pa.table(
                [pa.array([value] * table.num_rows) for value in front.values()]
                + table.columns, names=list(front) + table.column_names)
        for column, value in front.items():
            model_columns.setdefault(column, []).extend([value] * steps)
        model_columns.setdefault("Step", []).extend(range(steps))
        for column, values in reported.items():
            model_columns.setdefault(column, []).extend(values)
    tables = [pa.table(model_columns)] if model_columns else []
    return write_batch(folder, len(runs), failed, tables, agent_tables)
