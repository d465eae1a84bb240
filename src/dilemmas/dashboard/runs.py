"""Recorded runs for the dashboard's run viewer (``dilemmas.dashboard.viewer``): the data, no page.

A run comes from a study folder written by ``dilemmas.analysis.studies.runner.run_study`` (opened by
its run id) or from a Bucket Brigade replay file (``dilemmas.models.bucket_brigade.replay``).
Opened, it is a :class:`Recording`: its game, parameters and seed, and its stored rows. From those

* ``model_at(recording, round)`` rebuilds the world after any round (all of a model's
  randomness comes from its seed, so rebuilding is exact), stepping on from the previous
  model when the scrubber moves forward;
* ``verify(recording)`` plays the whole episode again and says in one line whether it is
  identical to the stored rows, or names the first column and step that differ.

Where a run's parameters come from: the study's definition (``study.json``, read as an
``dilemmas.analysis.studies.study.Study``), not the run columns of its rows, which hold list values
as JSON text and may hold an integer as a float. The run's stored replicate picks its combination:
the one whose derived run id is the run's, which proves the parameters and the seed.

A run the batch engine played (``engine == "batch"``, ``dilemmas.analysis.studies.blocks``) drew its
random numbers from one generator shared by its whole block of runs: it is rebuilt by playing
its block again (the study fixes the block: its combination, its replicates and their seeds,
``Recording.block``) with the engine's ``replay``, which keeps the run's arrays after every
round; ``model_at`` loads them into a model of the game (the engine's ``world``), and
``verify`` compares that model's own reporters, round by round, with the stored rows. The
replayed block is kept per recording. A block of ``COMPILED_FROM`` episodes or more was
played compiled by JAX in 32-bit floats, which the model's reporters compute in 64: its
floats are compared to 32-bit precision, and the verdict says so.

A run recorded under another version of the game's rules (for a batch run: any other
version than this code's) draws other numbers from the same seed: it cannot be rebuilt, is
shown from its stored rows only; ``verify`` says so and ``model_at`` refuses
(``Recording.refusal``).

Every bad input -- a missing folder, a folder without ``study.json``, an unknown run id, a
damaged file, an invalid replay -- raises :class:`RunError` with one line naming it.
"""

import copy
import functools
import json
import math
import numbers
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from dilemmas.analysis.studies import manifest
from dilemmas.analysis.studies.designs import Design, DesignError
from dilemmas.analysis.studies.results import varied
from dilemmas.analysis.studies.study import (MEMORY, RUN_BYTES, Study, StudyError,
                                             canonical)
from dilemmas import GAMES
from dilemmas.registry import Game

#: The columns ``dilemmas.analysis.studies.run_files.run_columns`` puts in front of every row
#: (then the run's parameters).
FRONT = ("run_id", "replicate", "seed", "engine", "rules_version", "design_point")
#: Study fields ``study.json`` must hold.
DEFINITION = ("game", "seed", "replicates", "collect", "fixed", "sweep")
#: How a ``StudyError`` of the study read from ``study.json`` (named "study") begins.
PREFIX = "study 'study': "


class RunError(ValueError):
    """A run that cannot be opened, rebuilt or scrubbed to, with the reason in one line."""


@dataclass(eq=False)
class Recording:
    """One opened run.

    ``parameters`` are as the model's constructor takes them; ``rows`` are the stored model
    rows (one per ``Step``, 0 to ``rounds``), ``agent_rows`` the stored agent rows sorted by
    ``Step`` and ``AgentID`` (None when the study did not collect agents); ``source`` names
    the study folder or replay file. ``refusal`` is None if the run can be rebuilt from its
    seed, else why not (one line). ``replay`` is a replay file's data (None for a study run).
    ``block`` is the block a batch-engine run was played in (None for the model's runs).
    """

    game: Game
    run_id: str
    seed: int
    parameters: dict
    engine: str
    rows: pd.DataFrame
    agent_rows: pd.DataFrame | None
    rounds: int
    source: str
    replicate: int | None = None
    refusal: str | None = None
    block: "Block | None" = None
    replay: dict | None = None
    swept: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        """What the run is: its swept parameters, replicate and seed (a replay: its file)."""
        if self.replicate is None:
            return f"{Path(self.source).name} · seed {self.seed}"
        return run_name(self.swept, self.replicate, self.seed)


class Block(NamedTuple):
    """The block of a study a batch-engine run was played in
    (``dilemmas.analysis.studies.blocks``): its combination's parameters, the seeds of its
    runs in order, the run's place among them, and whether agents were collected."""

    parameters: dict
    seeds: tuple
    episode: int
    agents: bool

    def engine(self, game: Game):
        """A new engine of the block, seeded as the study seeded it."""
        return game.batch(len(self.seeds), np.random.default_rng(list(self.seeds)),
                          agents=self.agents, **self.parameters)


class Verdict(NamedTuple):
    """Whether the rebuilt episode is identical to the stored one, and a line saying so."""

    identical: bool
    message: str


# --- Study folders ---------------------------------------------------------------------

def studies_under(folder: str) -> list[str] | str:
    """``folder`` if it holds a study, else its subfolders that do, sorted; or why the
    folder cannot be read."""
    try:
        path = Path(folder).expanduser()
        if (path / "study.json").is_file():
            return [str(path)]
        if not path.is_dir():
            return []
        return sorted(str(p.parent) for p in path.glob("*/study.json"))
    except Exception as problem:  # a name too long, a folder not readable, "~nobody"
        return f"{folder!r} cannot be read: {' '.join(str(problem).split())}"


def list_runs(folder) -> list[dict]:
    """One dict per stored run of a study folder, by run id: ``run_id``, ``replicate``,
    ``seed``, ``engine`` ("model" or "batch"), ``name`` (``run_name``) and the run's
    parameters (as the model takes them). Reads only ``study.json`` and ``manifest.jsonl``, no rows (a folder from before
    manifests: the ``run_id`` column of its model files)."""
    folder, study, definition = _study_folder(folder)
    stored = _stored_runs(folder)
    engine = "batch" if definition.get("engine") == "batch" else "model"
    listed = [{"run_id": run.run_id, "replicate": run.replicate, "seed": run.seed,
               "engine": engine,
               "name": run_name(_varied(definition, run), run.replicate, run.seed),
               **run.parameters}
              for run in study.runs() if run.run_id in stored]
    return sorted(listed, key=lambda entry: entry["run_id"])


def run_name(swept: dict, replicate: int, seed: int) -> str:
    """A study's run named by what it is: its swept parameters' values, its replicate and
    its seed."""
    values = ", ".join(f"{name}={value}" for name, value in swept.items())
    return f"{values + ' · ' if values else ''}replicate {replicate} · seed {seed}"


def _varied(definition: dict, run) -> dict:
    """The values a run takes of the parameters its study varies (swept or sampled)."""
    return {name: run.parameters[name] for name in varied(definition)}


def open_run(folder, run_id: str) -> Recording:
    """The run ``run_id`` of a study folder: its rows (files checked against the manifest's
    checksums), and its parameters and seed from the study's definition."""
    folder, study, definition = _study_folder(folder)
    files = _stored_runs(folder).get(run_id) if isinstance(run_id, str) else None
    model_file = next((name for name in files or () if name.endswith(".model.parquet")), None)
    if model_file is None:
        raise RunError(_unknown(folder, run_id))
    rows = _read_rows(folder, model_file, files[model_file], run_id, ["Step"])
    agent_rows = None
    if "agent" in study.collect:
        agent_file = model_file.replace(".model.", ".agent.")
        if agent_file not in files:
            raise RunError(f"{folder / 'runs' / agent_file}: missing, though the study "
                           "collects agents (run the study again to repair the folder)")
        agent_rows = _read_rows(folder, agent_file, files[agent_file], run_id,
                                ["Step", "AgentID"])
    found = _run_of(study, run_id, int(rows["replicate"].iloc[0]))
    if found is None:
        raise RunError(f"{folder}: the rows of run {run_id} match no run of the study in "
                       "study.json (the rows and study.json are not of the same study)")
    game = GAMES[study.game]
    engine = str(rows["engine"].iloc[0]) if "engine" in rows else "model"
    version = (int(rows["rules_version"].iloc[0]) if "rules_version" in rows
               else definition.get("rules_version", 1))
    index, combination, run = found
    block = _block_of(study, index, combination, run.replicate) if engine == "batch" else None
    return Recording(game, run_id, run.seed, copy.deepcopy(run.parameters), engine, rows,
                     agent_rows, int(rows["Step"].iloc[-1]), str(folder), run.replicate,
                     _refusal(run_id, game, engine, version),
                     swept=_varied(definition, run),
                     block=block)


def _block_of(study: Study, index: int, combination: dict, replicate: int) -> Block:
    """The block ``blocks.play_blocks`` played replicate ``replicate`` of combination
    ``index`` in: replicates cut by ``BLOCK`` (``AGENT_BLOCK`` with agents collected)."""
    from dilemmas.analysis.studies.blocks import AGENT_BLOCK, BLOCK

    agents = "agent" in study.collect
    size = AGENT_BLOCK if agents else BLOCK
    first = replicate // size * size
    runs = study.runs_of(index, combination, first, min(first + size, study.replicates))
    return Block(copy.deepcopy(combination), tuple(run.seed for run in runs),
                 replicate - first, agents)


def _study_folder(folder) -> tuple[Path, Study, dict]:
    """The folder, its study (``study.json`` as a ``Study``) and that file's contents."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise RunError(f"{folder}: no such folder")
    path = folder / "study.json"
    if not path.is_file():
        raise RunError(f"{folder} is not a study folder: it has no study.json")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RunError(f"{path} cannot be read: {error}") from None
    return folder, *_study_of(text, str(path))


@functools.lru_cache(maxsize=16)
def _study_of(text: str, where: str) -> tuple[Study, dict]:
    """``study.json``'s text as a ``Study`` (which builds each combination's model once,
    as the runner did) and as a dict; kept, since the viewer opens run after run."""
    try:
        definition = json.loads(text)
    except ValueError as error:
        raise RunError(f"{where} is not valid JSON (cut short or damaged): {error}") from None
    if not isinstance(definition, dict):
        raise RunError(f"{where} must hold a JSON object (a study's definition)")
    missing = [key for key in DEFINITION if key not in definition]
    if missing:
        raise RunError(f"{where}: the field {missing[0]!r} is missing")
    try:
        design = (Design.recorded(definition["design"], where) if "design" in definition
                  else None)
        study = Study(game=definition["game"], seed=definition["seed"],
                      replicates=definition["replicates"], collect=definition["collect"],
                      fixed=definition["fixed"], sweep=definition["sweep"], name="study",
                      max_runs=MEMORY // RUN_BYTES,  # study.json does not record it
                      engine="auto" if definition.get("engine") == "batch" else "model",
                      design=design)
    except (StudyError, DesignError, TypeError, KeyError) as error:
        raise RunError(f"{where}: {str(error).removeprefix(PREFIX)}") from None
    return study, definition


def _stored_runs(folder: Path) -> dict[str, dict]:
    """Run id -> its batch's files (name -> SHA-256) as ``manifest.jsonl`` records them:
    the first line naming a run, if its files are on disk. A folder from before manifests:
    the runs of every model file, with no checksum (None)."""
    runs = folder / "runs"
    stored = {}
    if (folder / manifest.NAME).exists():
        try:
            recorded = manifest.entries(folder)
        except StudyError as error:
            raise RunError(str(error)) from None
        for entry in recorded:
            if all((runs / name).is_file() for name in entry["files"]):
                for run_id in entry["runs"]:
                    stored.setdefault(run_id, entry["files"])
        return stored
    for path in sorted(runs.glob("*.model.parquet")):
        files = {path.name: None}
        agent = path.name.replace(".model.", ".agent.")
        if (runs / agent).is_file():
            files[agent] = None
        try:
            ids = pq.read_table(path, columns=["run_id"]).column("run_id").to_pylist()
        except (pa.ArrowException, OSError, KeyError) as error:
            raise RunError(f"{path} cannot be read as a run file: {error}") from None
        for run_id in ids:
            stored.setdefault(run_id, files)
    return stored


def _unknown(folder: Path, run_id) -> str:
    """Why ``run_id`` has no rows: it failed (its record says how), or no run has it."""
    failed = folder / "failed" / f"{run_id}.json"
    if isinstance(run_id, str) and run_id.isalnum() and failed.is_file():
        try:
            error = json.loads(failed.read_text()).get("error", "see its record")
        except (OSError, ValueError, AttributeError):
            error = "see its record"
        return f"{folder}: run {run_id} failed when the study ran ({error}); it has no rows"
    return f"{folder}: no stored run has the id {run_id!r}"


def _read_rows(folder: Path, name: str, checksum: str | None, run_id: str,
               keys: list[str]) -> pd.DataFrame:
    """The rows of ``run_id`` in the run file ``name``, sorted by ``keys``; the file's bytes
    are checked against the manifest's ``checksum`` first."""
    path = folder / "runs" / name
    try:
        data = manifest.checked_bytes(path, checksum)
    except StudyError as error:
        raise RunError(str(error)) from None
    try:
        table = pq.read_table(pa.BufferReader(data), filters=[("run_id", "==", run_id)])
    except (pa.ArrowException, OSError, ValueError) as error:
        raise RunError(f"{path} cannot be read as a run file: {error}") from None
    missing = [key for key in ["replicate", *keys] if key not in table.column_names]
    if missing or table.num_rows == 0:
        raise RunError(f"{path} holds no rows of run {run_id}" if not missing
                       else f"{path}: the column {missing[0]!r} is missing")
    return table.to_pandas().sort_values(keys, kind="stable", ignore_index=True)


def _run_of(study: Study, run_id: str, replicate: int):
    """``(combination index, combination, run)``: the study's run ``run_id`` of replicate
    ``replicate`` (``dilemmas.analysis.studies.study.Run``) and its combination, the one whose
    derived run id is ``run_id``; or None."""
    for index, combination in enumerate(study.combinations()):
        run = study.runs_of(index, combination, replicate, replicate + 1)[0]
        if run.run_id == run_id:
            return index, combination, run
    return None


def _refusal(run_id: str, game: Game, engine: str, version: int) -> str | None:
    """Why a stored run cannot be rebuilt (from its seed, or a batch run from its block),
    or None if it can."""
    if engine == "batch" and version != game.rules_version:
        return (f"run {run_id} was played by the batch engine under version {version} of the "
                f"{game.name} rules and this code plays version {game.rules_version}, whose "
                "random numbers differ: it is shown from its stored rows only and cannot be "
                "replayed as a world")
    if engine != "batch" and version not in game.model_versions:
        return (f"run {run_id} was played under version {version} of the {game.name} rules "
                f"and this code plays version {game.rules_version}, whose random numbers "
                "differ: it is shown from its stored rows only and cannot be replayed as a "
                "world")
    return None


# --- Bucket Brigade replay files --------------------------------------------------------

def open_replay(path) -> Recording:
    """A Bucket Brigade replay file (``load_replay``) as a recording; its ``rows`` are the
    model's DataCollector columns computed from the recorded nights (``replay_rows``)."""
    from dilemmas.models.bucket_brigade.replay import (ReplayError, load_replay, replay_model,
                                                        replay_rows)

    try:
        path = Path(path).expanduser()
        regular = path.is_file()
    except (RuntimeError, OSError, ValueError) as error:  # "~nobody", too long, a NUL
        raise RunError(f"{str(path)!r} cannot be read: {error}") from None
    if not regular:
        raise RunError(f"{path}: no such file (a replay is a .json file)")
    try:
        data = load_replay(path)
    except ReplayError as error:
        raise RunError(str(error)) from None
    refusal = None
    try:  # no nights: only the rules-version check and the model's construction
        replay_model({**data, "nights": []})
    except ReplayError as error:
        refusal = f"{path}: {error}"
    return Recording(GAMES["bucket_brigade"], path.stem, data["seed"],
                     {"rules": data["rules"], **data["parameters"]}, "model",
                     replay_rows(data), None, len(data["nights"]), str(path),
                     refusal=refusal, replay=data)


# --- Rebuilding and checking ------------------------------------------------------------

#: Each model ``model_at`` built -> the episode it plays (game, seed, parameters).
_EPISODES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
#: Each batch-engine recording -> ``(engine, states)``: its block replayed (``_replayed``).
_REPLAYED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def model_at(recording: Recording, round: int, previous=None):
    """The recording's world after ``round`` rounds (0 to ``recording.rounds``): a new model
    of its game with its parameters and seed, stepped ``round`` times -- or ``previous``, a
    model this function returned, stepped on in place when it plays the same episode and
    is not past ``round``. A batch-engine run: a model loaded with its replayed state after
    each round up to ``round`` (``BatchEngine.world``), likewise loaded on from
    ``previous``."""
    if recording.refusal:
        raise RunError(recording.refusal)
    if isinstance(round, bool) or not isinstance(round, numbers.Integral) \
            or not 0 <= round <= recording.rounds:
        raise RunError(f"round={round!r} is not a round of {recording.run_id}: it has rounds "
                       f"0 to {recording.rounds}")
    episode = _episode(recording)
    if recording.block is not None:
        episode = ("batch", *episode, recording.block.seeds, recording.block.episode)
        engine, states = _replayed(recording)
        if round >= len(states):
            raise RunError(f"round {round} of {recording.run_id}: its block, played again, "
                           f"ends it after round {len(states) - 1}")
        same = previous is not None and _EPISODES.get(previous) == episode
        model = engine.world(states, round, previous if same else None)
        _EPISODES[model] = episode
        return model
    model = previous
    if model is None or _EPISODES.get(model) != episode or model.steps > round:
        model = _build(recording)
        _EPISODES[model] = episode
    while model.steps < round:
        model.step()
    return model


def verify(recording: Recording) -> Verdict:
    """Play the recording's whole episode again and compare it with the stored one: every
    model column (and agent column, if stored) value for value, NaN equal to NaN; a replay
    file with ``verify_replay``. The message names the first column and step that differ."""
    if recording.refusal:
        return Verdict(False, recording.refusal)
    if recording.replay is not None:
        return _verify_replay(recording)
    if recording.block is not None:
        engine, states = _replayed(recording)
        model = engine.world(states, len(states) - 1)
    else:
        model = _build(recording)
        model.run_model()
    collected = model.datacollector.model_vars
    steps = len(next(iter(collected.values())))
    rebuilt = pd.DataFrame({"Step": range(steps), **collected})
    front = {*FRONT, *recording.parameters}
    close = _compiled(recording)
    difference = _difference(recording.rows, rebuilt, front, "", close)
    if difference is None and recording.agent_rows is not None:
        agents = model.datacollector.get_agent_vars_dataframe().reset_index()
        difference = _difference(recording.agent_rows,
                                 agents.sort_values(["Step", "AgentID"], ignore_index=True),
                                 front, "agent ", close)
    if difference:
        return Verdict(False, f"not identical: {difference}")
    agents = ("" if recording.agent_rows is None
              else f" and {len(recording.agent_rows)} stored agent rows")
    if close:
        return Verdict(True, f"matches its {len(recording.rows)} stored rows{agents}: "
                             "integers exactly, floats to the 32-bit precision its block was "
                             "played in (compiled by JAX)")
    return Verdict(True, f"identical to its {len(recording.rows)} stored rows{agents}")


def _replayed(recording: Recording) -> tuple:
    """``(engine, states)`` of a batch-engine recording: its block played again by a new
    engine (``BatchEngine.replay`` of the run's episode), kept per recording."""
    kept = _REPLAYED.get(recording)
    if kept is None:
        block = recording.block
        try:
            engine = block.engine(recording.game)
            kept = _REPLAYED[recording] = (engine, engine.replay(block.episode))
        except (ValueError, TypeError) as error:
            raise RunError(f"the block of run {recording.run_id} cannot be played again: "
                           f"{error}") from None
    return kept


def _compiled(recording: Recording) -> bool:
    """Whether a recording's block was played compiled by JAX (32-bit floats)."""
    from dilemmas.models.batch import COMPILED_FROM

    return recording.block is not None and len(recording.block.seeds) >= COMPILED_FROM


def _build(recording: Recording):
    return recording.game.model(**recording.parameters, rng=recording.seed)


def _episode(recording: Recording) -> tuple:
    return recording.game.name, recording.seed, canonical(recording.parameters)


def _difference(stored: pd.DataFrame, rebuilt: pd.DataFrame, front: set,
                level: str, close: bool = False) -> str | None:
    """The first difference between stored and rebuilt rows (both sorted alike) -- the
    earliest row where a column differs, and that column -- or None if they are the same.
    Values are compared as Python values (an int equals the same float), missing (None,
    NaN) equal to missing; with ``close``, floats to 32-bit precision (``_close``)."""
    same = _close if close else _same
    if len(stored) != len(rebuilt):
        return (f"the rebuilt episode has {len(rebuilt)} {level}rows, the stored one "
                f"{len(stored)}")
    extra = [c for c in stored.columns if c not in front and c not in rebuilt.columns]
    missing = [c for c in rebuilt.columns if c not in stored.columns]
    if missing or extra:
        return (f"the {level}column {missing[0]!r} is not among the stored rows" if missing
                else f"the stored {level}column {extra[0]!r} is not one the model reports")
    first = None
    for column in rebuilt.columns:
        pairs = list(zip(stored[column].tolist(), rebuilt[column].tolist()))
        row = next((i for i, (a, b) in enumerate(pairs) if not same(a, b)), None)
        if row is not None and (first is None or row < first[0]):
            first = (row, column, *pairs[row])
    if first is None:
        return None
    row, column, value, again = first
    where = f"step {int(rebuilt['Step'].iloc[row])}"
    if "AgentID" in rebuilt:
        where += f", agent {int(rebuilt['AgentID'].iloc[row])}"
    return f"{level}column {column!r} differs at {where}: stored {value!r}, rebuilt {again!r}"


def _same(a, b) -> bool:
    missing_a, missing_b = _missing(a), _missing(b)
    if missing_a or missing_b:
        return missing_a and missing_b
    return bool(a == b)


def _close(a, b) -> bool:
    """``_same``, or two floats within 4 units of the last place of a 32-bit float (the
    compiled engine's float32 sums and quotients against the model's float64 ones)."""
    if _same(a, b):
        return True
    if not (isinstance(a, float) or isinstance(b, float)) or _missing(a) or _missing(b):
        return False
    return bool(np.isclose(a, b, rtol=4 * 2.0**-23, atol=0.0))


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _verify_replay(recording: Recording) -> Verdict:
    """``verify_replay`` on a replay file's data, saying where playing its seed again first
    differs (``first_difference``)."""
    from dilemmas.models.bucket_brigade.replay import first_difference

    data = recording.replay
    difference = first_difference(data)
    if difference is None:
        return Verdict(True, f"identical to its {len(data['nights'])} recorded nights")
    return Verdict(False, f"not identical: {difference}")
