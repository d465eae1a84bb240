"""A study: a game, a grid or sampled design of its parameters, seeds, and what to collect.

A study file is TOML::

    name = "bucket_brigade_beta_kappa"   # optional: the file's stem
    game = "bucket_brigade"              # a name of dilemmas.GAMES
    seed = 2026                          # the study's seed (integer >= 0), default 0
    replicates = 10                      # runs per parameter combination, default 10
    collect = ["model"]                  # "model" and/or "agent" DataFrames, default model

    engine = "auto"                      # "auto" (default) or "model"; see below

    [fixed]                              # one value each (any the model takes)
    scenario = "default"

    [sweep]                              # a list of values each; every combination runs
    beta = [0.1, 0.2, 0.3]
    population = ["random", "firefighter"]

Instead of ``[sweep]``, a ``[design]`` table (``dilemmas.analysis.studies.designs``) samples
the varied parameters: a Latin hypercube (``kind = "lhs"``), Saltelli's scheme for Sobol
indices (``"sobol"``) or Morris trajectories (``"morris"``), each point a combination whose
replicates run as above; a factorial design is the same grid as a ``[sweep]``. The two
together are refused.

A value that is itself a list (``spawn_weights``) goes in ``[fixed]`` as a list, or in
``[sweep]`` as a list of lists. Everything is checked before anything runs: unknown keys,
an unknown game or a parameter the game does not declare, and every combination's values,
by building its model once (``rng=0``, no data collection) -- an error names the study, the
key and the problem. A study's size is checked before any of it is built: at most
``max_runs`` runs (default 100,000), and ``max_runs`` at most 68,719,476, the runs that fit
in 16 GiB (``MEMORY``).

``engine``: with ``"auto"``, a study of a game that has a batch engine (``Game.batch``) whose
every combination the engine can play is played by that engine, thousands of episodes at
once (``dilemmas.analysis.studies.blocks``): behaviours with an array form on arrays, those
that decide in Python episode by episode through each episode's model
(``dilemmas.models.episode_models``; ``Study.in_python`` names them); otherwise, or with
``"model"``, each run is played by the game's Mesa model. The two agree in distribution, not draw
for draw, so the engine that plays a study (``Study.batch``) is part of its definition: a folder
played by one is never resumed by the other. Where ``"auto"`` finds a combination the engine
cannot play, ``Study.off_engine`` says in one line which behaviour (or parameter) and why
(``dilemmas.models.batch.why_off_engine``), and the runner prints it.

Each run is a parameter combination and a replicate number. Its seed is derived from the
study's seed and the run's parameters and replicate (SHA-256 of their canonical JSON), so the
same study gives the same seeds, hence the same data, on any machine and any number of
workers; the same digest names the run (``run_id``). In a sampled design the index of the
run's point is hashed with them (``design_point``, a column of its rows), so points that
coincide after rounding to integers or levels still have runs of their own.
"""

import hashlib
import itertools
import json
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from tqdm.auto import tqdm

from dilemmas import GAMES
from dilemmas.analysis.studies.designs import Design, DesignError
from dilemmas.models.files import read_bytes

COLLECT = ("model", "agent")
STUDY_KEYS = ("name", "game", "seed", "replicates", "collect", "fixed", "sweep", "design",
              "max_runs", "engine")
ENGINES = ("auto", "model")
class Progress(tqdm):
    """tqdm without its monitor thread (no thread of ours runs beside the runner's pool)."""

    monitor_interval = 0


#: A study of more combinations than this shows a progress bar while it checks them.
CHECKED_QUIETLY = 10_000
#: The most runs (combinations x replicates) a study may hold unless it sets ``max_runs``.
MAX_RUNS = 100_000
#: What a study may hold in memory before it plays: the runner lists every run (``runs``),
#: about ``RUN_BYTES`` each (a ``Run`` of a shared combination, measured with tracemalloc),
#: so ``max_runs`` may be at most ``MEMORY // RUN_BYTES`` (68,719,476).
MEMORY = 16 * 2 ** 30
RUN_BYTES = 250


#: Where the runner plays a study's runs (``dilemmas.analysis.studies.runner``).
BACKENDS = ("local", "dask", "serial")


class StudyError(ValueError):
    """A study that cannot run, with the reason (naming the key at fault)."""


class Run(NamedTuple):
    """One episode of a study: its parameters (fixed and swept), replicate and seed; the
    index of its point in a sampled design (``point``, None in a grid)."""

    run_id: str
    index: int
    parameters: dict
    replicate: int
    seed: int
    point: int | None = None


#: The type of each field of a study's written definition (``Study.definition``).
DEFINITION = {"game": str, "seed": int, "replicates": int, "collect": list, "fixed": dict,
              "sweep": dict}
#: JSON's names of those types.
JSON_TYPES = {str: "string", int: "integer", list: "array", dict: "object"}


def read_definition(path) -> dict:
    """A study folder's ``study.json`` (``Study.definition``); a StudyError names the file
    when it is not one (cut short, bytes changed, another shape) and says what to do."""
    path = Path(path)
    text = read_bytes(path)
    try:
        definition = json.loads(text.decode("utf-8"))
        why = _definition_fault(definition)
    except ValueError as error:  # UnicodeDecodeError too
        why = f"not JSON: {error}"
    if why:
        raise StudyError(f"{str(path)!r} is not a study's definition ({why}): cut short or "
                         "damaged; if its folder holds this study's results, delete it and run "
                         "the study again (dilemmas run, same --out) to rewrite it and resume")
    return definition


def _definition_fault(definition) -> str | None:
    """What keeps ``definition`` (parsed JSON) from being a study's definition, or None."""
    if not isinstance(definition, dict):
        return f"a JSON {JSON_TYPES.get(type(definition), 'value')}, not an object"
    for key, kind in DEFINITION.items():
        if key not in definition:
            return f"no {key!r}"
        if type(definition[key]) is not kind:
            return f"{key!r} must be a JSON {JSON_TYPES[kind]}"
    design = definition.get("design", {"parameters": {}})
    if not isinstance(design, dict) or not isinstance(design.get("parameters"), dict):
        return "'design' must be an object with its 'parameters'"
    return None


def canonical(value) -> str:
    """JSON with sorted keys and no spaces; tuples as lists."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def game_parameters(game: str) -> list[str]:
    """The declared parameters of a game (``rng`` and ``collect_data`` are the runner's)."""
    return GAMES[game].parameters.names


def read_toml(path, what: str, keys, required, error) -> dict:
    """The table of a ``what`` file (a study or a training) with ``name`` defaulting to the
    file's stem; ``error`` names the file and what is wrong: unreadable, not UTF-8, not TOML,
    a key not in ``keys``, a ``required`` key missing."""
    path = Path(path)
    try:
        text = read_bytes(path)
    except (OSError, ValueError) as problem:
        raise error(f"{what} file {str(path)!r} cannot be read: "
                    f"{getattr(problem, 'strerror', None) or problem}") from None
    try:
        data = tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError as problem:
        raise error(f"{what} file {str(path)!r} is not UTF-8 text (byte {problem.start} is "
                    f"{problem.object[problem.start:problem.start + 1]!r}): a {what} file "
                    "is TOML") from None
    except tomllib.TOMLDecodeError as problem:
        raise error(f"{what} file {str(path)!r} is not valid TOML: {problem}") from None
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise error(f"{what} file {str(path)!r}: unknown key {unknown[0]!r}; allowed: "
                    f"{list(keys)}")
    for key in required:
        if key not in data:
            raise error(f"{what} file {str(path)!r}: the key {key!r} is missing")
    data.setdefault("name", path.stem)
    return data


def check_name(where: str, name, error) -> None:
    """A name usable as a folder name on any system (letters, digits, ``._-``, not starting
    with a dot, at most 100 characters), or ``error``."""
    if not isinstance(name, str) or not 0 < len(name) <= 100 or name.startswith(".") \
            or not all(c.isascii() and (c.isalnum() or c in "._-") for c in name):
        shown = repr(name) if len(repr(name)) <= 60 else repr(name)[:57] + "..."
        raise error(f"{where}: name={shown} must be 1 to 100 letters, digits, '.', '_' or '-' "
                    "(a folder name), not starting with '.'")


@dataclass(frozen=True)
class Study:
    """A validated study (see the module docstring); ``Study.from_file`` reads TOML."""

    game: str
    sweep: dict = field(default_factory=dict)
    fixed: dict = field(default_factory=dict)
    replicates: int = 10
    seed: int = 0
    collect: tuple = ("model",)
    name: str = ""
    max_runs: int = MAX_RUNS
    engine: str = "auto"
    design: Design | dict | None = None

    def __post_init__(self):
        where = f"study {self.name!r}" if self.name else "study"
        check_name(where, self.name, StudyError)
        if self.game not in GAMES:
            raise StudyError(f"{where}: game={self.game!r} is not a game; "
                             f"allowed: {sorted(GAMES)}")
        if type(self.replicates) is not int or self.replicates < 1:
            raise StudyError(f"{where}: replicates={self.replicates!r} must be an integer >= 1")
        if type(self.seed) is not int or self.seed < 0:
            raise StudyError(f"{where}: seed={self.seed!r} must be an integer >= 0")
        collect = (self.collect,) if isinstance(self.collect, str) else self.collect
        if not isinstance(collect, (list, tuple)) or not collect \
                or not all(isinstance(c, str) for c in collect) \
                or not set(collect) <= set(COLLECT) or "model" not in collect:
            raise StudyError(f"{where}: collect={self.collect!r} must be ['model'] or "
                             "['model', 'agent']")
        object.__setattr__(self, "collect", tuple(c for c in COLLECT if c in collect))
        for table in ("fixed", "sweep"):
            if not isinstance(getattr(self, table), dict):
                raise StudyError(f"{where}: [{table}] must be a table of parameters")
        known = game_parameters(self.game)
        for table in ("fixed", "sweep"):
            for key in getattr(self, table):
                if key not in known:
                    raise StudyError(f"{where}: [{table}] {key}: not a parameter of "
                                     f"{self.game}; allowed: {known}")
        both = set(self.fixed) & set(self.sweep)
        if both:
            raise StudyError(f"{where}: {sorted(both)} in both [fixed] and [sweep]")
        self._check_max_runs(where)
        self._design(where)
        size = self.replicates * (len(self.points) if self.design is not None else 1)
        for key, values in self.sweep.items():
            if not isinstance(values, (list, tuple)) or not values:
                raise StudyError(f"{where}: [sweep] {key}={values!r} must be a non-empty "
                                 "list of values")
            size *= len(values)
        if self.engine not in ENGINES:
            raise StudyError(f"{where}: engine={self.engine!r} must be one of {list(ENGINES)}")
        if size > self.max_runs:
            raise StudyError(f"{where}: {size:,} runs ({self.replicates:,} replicates of "
                             f"{size // self.replicates:,} combinations) is more than "
                             f"max_runs={self.max_runs:,}; split the study, or set max_runs "
                             "in the study file if you mean it")
        for key, values in self.sweep.items():
            seen = set()
            for value in values:
                if canonical(value) in seen:
                    raise StudyError(f"{where}: [sweep] {key} lists {value!r} more than once "
                                     "(a combination's runs share one id); list each value "
                                     "once, and raise replicates for more runs of it")
                seen.add(canonical(value))
        # imports Mesa: only when a study is made
        from dilemmas.models.batch import in_python, why_off_engine

        batch = self.engine == "auto" and GAMES[self.game].references["batch"] is not None
        off, python = None, {}
        checked = set()
        combinations = self.combinations()
        # each combination's model is built once (about a millisecond): a big study says so
        for combination in Progress(combinations, desc=f"study {self.name!r}: checking each "
                                "combination's parameters", unit="combination",
                                disable=len(combinations) < CHECKED_QUIETLY, file=sys.stderr,
                                leave=False):
            if self.design is not None:  # sampled points may repeat: each checked once
                text = canonical(combination)
                if text in checked:
                    continue
                checked.add(text)
            try:
                model = GAMES[self.game].model(**combination, rng=0, collect_data=False)
            except (ValueError, TypeError) as error:
                swept = {key: combination[key] for key in [*self.sweep, *self.varied]
                         if key in combination}
                raise StudyError(f"{where}: {error}"
                                 + (f" (in the combination {swept})" if swept else "")) from None
            if batch:
                off = why_off_engine(model)
                batch = off is None
                python.update(dict.fromkeys(in_python(model)))
        object.__setattr__(self, "batch", batch)
        object.__setattr__(self, "off_engine", off)
        object.__setattr__(self, "in_python", list(python) if batch else [])

    def _check_max_runs(self, where: str) -> None:
        """``max_runs``: an integer from 1 to ``MEMORY // RUN_BYTES``, checked before the
        sizes that are compared with it."""
        ceiling = MEMORY // RUN_BYTES
        if type(self.max_runs) is not int or not 1 <= self.max_runs <= ceiling:
            raise StudyError(f"{where}: max_runs={self.max_runs!r} must be an integer from 1 "
                             f"to {ceiling:,} (the runner holds every run in memory, about "
                             f"{RUN_BYTES} bytes each: more would take over "
                             f"{MEMORY // 2 ** 30} GiB)")

    @classmethod
    def from_file(cls, path) -> "Study":
        """Read and validate a study file; ``StudyError`` names the file and the key."""
        data = read_toml(path, "study", STUDY_KEYS, ("game",), StudyError)
        try:
            return cls(**data)
        except StudyError as error:
            raise StudyError(f"study file {str(path)!r}: {error}") from None

    def _design(self, where: str) -> None:
        """Read a ``[design]`` table (``dilemmas.analysis.studies.designs``): a factorial one
        becomes the sweep; a sampled one is kept with its points (``self.points``)."""
        object.__setattr__(self, "points", None)
        if self.design is None:
            return
        if self.sweep:
            raise StudyError(f"{where}: [design] and [sweep] together; a design gives every "
                             "varied parameter: move the [sweep] into [design.parameters] as "
                             "{levels = [...]}, or drop the [design]")
        design = self.design
        if not isinstance(design, Design):
            try:
                design = Design.from_table(design, self.seed, GAMES[self.game].parameters)
            except DesignError as error:
                raise StudyError(f"{where}: {error}") from None
        both = sorted(set(self.fixed) & set(design.names))
        if both:
            raise StudyError(f"{where}: {both} in both [fixed] and [design.parameters]")
        if design.kind == "factorial":
            object.__setattr__(self, "sweep", design.sweep())
            object.__setattr__(self, "design", None)
            return
        size = self.replicates * design.size
        if size > self.max_runs:  # checked before SALib draws millions of points
            raise StudyError(f"{where}: {size:,} runs ({self.replicates:,} replicates of "
                             f"{design.size:,} design points) is more than "
                             f"max_runs={self.max_runs:,}; make the design smaller, or set "
                             "max_runs in the study file if you mean it")
        object.__setattr__(self, "design", design)
        object.__setattr__(self, "points", design.points())

    @property
    def varied(self) -> list[str]:
        """The parameters that vary between runs: the swept ones, or the design's."""
        return list(self.sweep) if self.design is None else self.design.names

    def combinations(self) -> list[dict]:
        """Every combination of the swept values with the fixed ones, in file order (the
        last swept key varies fastest); of a sampled design, its points in SALib's order."""
        if self.design is not None:
            return [{**self.fixed, **point} for point in self.points]
        keys = list(self.sweep)
        return [{**self.fixed, **dict(zip(keys, values))}
                for values in itertools.product(*(self.sweep[key] for key in keys))]

    def runs(self) -> list[Run]:
        """Every run: each combination, each replicate, with its derived seed."""
        return [run for index, combination in enumerate(self.combinations())
                for run in self.runs_of(index, combination, 0, self.replicates)]

    def runs_of(self, index: int, combination: dict, first: int, stop: int) -> list[Run]:
        """The runs of replicates ``first .. stop - 1`` of the ``index``-th combination. In
        a sampled design the point's index is part of what seeds a run (two points that
        coincide, as integers or levels may, are two points with their own runs)."""
        runs = []
        # canonical({"parameters": combination, "replicate": replicate}), written faster;
        # a design's point first: canonical({"design_point": index, ...})
        point = None if self.design is None else index
        head = (f'{self.seed}|{{"parameters":{canonical(combination)},"replicate":'
                if point is None else
                f'{self.seed}|{{"design_point":{index},"parameters":{canonical(combination)},'
                '"replicate":')
        for replicate in range(first, stop):
            digest = hashlib.sha256(f"{head}{replicate}}}".encode()).digest()
            runs.append(Run(digest[:8].hex(), index * self.replicates + replicate, combination,
                            replicate, int.from_bytes(digest[8:16], "big") >> 1, point))
        return runs

    @property
    def rules_version(self) -> int:
        """The version of the game's rules that plays the study (``Game.rules_version``)."""
        return GAMES[self.game].rules_version

    def definition(self) -> dict:
        """What makes the study's data: written next to its results, compared on resume.
        The engine that plays it is there when it is the batch engine, and the rules version
        when it is not 1, so folders written before either existed still match; a folder
        played by one engine is never resumed by the other."""
        definition = {"game": self.game, "seed": self.seed, "replicates": self.replicates,
                      "collect": list(self.collect), "fixed": self.fixed, "sweep": self.sweep}
        if self.design is not None:
            definition["design"] = self.design.definition(self.points)
        if self.batch:
            definition["engine"] = "batch"
        if self.rules_version != 1:
            definition["rules_version"] = self.rules_version
        return definition

