"""Training learning agents: ``dilemmas train TRAIN.toml`` (docs/learning.md).

A training file is TOML::

    name = "firefighting_graph_q"     # optional: the file's stem
    game = "firefighting_graph"
    population = "q_learning:10"      # the learning seats first, then background behaviours
    episodes = 2000                   # per training seed
    seeds = 3                         # training seeds, trained in parallel
    seed = 2026                       # default 0
    checkpoint_every = 100            # episodes between checkpoints, default 100

    [parameters]                      # the game's other parameters (default: its defaults)
    shared_reward = true

    [learner]                         # every key optional
    learning_rate = 0.05              # default 0.1
    discount = 0.9                    # default 0.95
    epsilon_start = 1.0               # epsilon falls linearly from epsilon_start ...
    epsilon_end = 0.05                # ... to epsilon_end
    explore_episodes = 1000           # ... over this many episodes (default: half of them)

    [evaluate]                        # for ``dilemmas evaluate``
    (dilemmas.analysis.learning.evaluation) seeds = 30                        # evaluation seeds,
    default 30 backgrounds = ["random:2"]        # background mixes, default the training's

The population seats exactly one learning behaviour (``q_learning`` or ``linear_q``), in its
first entry. Each training seed ``i`` trains one learner (shared by the learning seats,
``dilemmas.models.learners``) over ``episodes`` episodes; episode ``e`` is the game's model built
with the learner, ``epsilon`` for ``e`` and a seed derived from the training seed, ``i`` and
``e`` (SHA-256, as a study derives its run seeds), so a training is the same on any machine.

``train(training, out)`` writes into ``<out>/<name>/``:

* ``training.json`` -- the training's definition; training a different one into the same
  folder is an error.
* ``seed-<i>/learner.npz`` -- the checkpoint: the learner's file (a policy file that the
  ``policy`` behaviour plays, ``dilemmas.models.learners``) with ``episodes``, the episodes trained.
* ``seed-<i>/curve-<first episode>.parquet`` -- the learning curve: every episode's model
  DataFrame with the columns of a study's run files (``run_id``, ``replicate`` = the training
  seed, ``seed``, the parameters, ``Step``, the game's columns) and ``episode``, ``epsilon``,
  ``learner_return`` and ``background_return`` (the per-capita returns of the learning and
  the other seats in that episode, on each of its rows).
* ``learning_curve.pdf`` / ``.png`` -- returns per episode, mean over the training seeds
  with a 95% band.

One ``dilemmas train`` writes a folder at a time (``dilemmas.analysis.studies.manifest.lock``).
Every ``checkpoint_every`` episodes a seed writes its curve rows, then its checkpoint, each
atomically; a training killed at any moment resumes from the last checkpoint (curve files
beyond it are removed) and gives the same curve as one never stopped. The seeds train in
parallel on the runner's backends (``dilemmas.analysis.studies.runner``).
"""

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from dilemmas.analysis.studies import manifest
from dilemmas.analysis.studies.run_files import parquet_bytes
from dilemmas.analysis.studies.runner import Progress, check_backend, play
from dilemmas.analysis.studies.study import StudyError, canonical, check_name, read_toml
from dilemmas import GAMES
from dilemmas.models.files import write_atomic
from dilemmas.models.learners import LEARNERS, SETTINGS, load_learner
from dilemmas.models.policies import POLICY, PolicyError

KEYS = ("name", "game", "population", "episodes", "seeds", "seed", "checkpoint_every",
        "parameters", "learner", "evaluate")
LEARNER_KEYS = ("learning_rate", "discount", "epsilon_start", "epsilon_end",
                "explore_episodes")
EVALUATE_KEYS = ("seeds", "backgrounds", "every", "episodes")
#: The ``[evaluate]`` keys of deep trainings only: greedy play during training.
DURING = ("every", "episodes")
OWN = ("population", "policy", "learner")  # parameters the training sets itself


class TrainingError(StudyError):
    """A training that cannot run, naming the file and the key at fault."""


def check_integer(where, key, value, low):
    if type(value) is not int or value < low:
        raise TrainingError(f"{where}: {key}={value!r} must be an integer >= {low}")
    return value


class Seating:
    """Who plays in a training: its ``population``'s first entry the learning seats, the
    rest the background (shared by ``Training`` and the deep learners' ``DeepTraining``,
    each naming its file's ``KEYS`` and ``REQUIRED`` keys). ``PLAYS``: how its learners'
    policy files are played in evaluations (``policy_play``): a tabular learner greedily."""

    PLAYS: ClassVar = ("greedy",)

    @classmethod
    def from_file(cls, path):
        """Read and validate a training file; ``TrainingError`` names the file and the key."""
        data = read_toml(path, "training", cls.KEYS, cls.REQUIRED, TrainingError)
        try:
            return cls(**data)
        except TrainingError as error:
            raise TrainingError(f"training file {str(path)!r}: {error}") from None

    @property
    def entries(self) -> list[str]:
        if not isinstance(self.population, str):
            raise TrainingError(f"training {self.name!r}: population={self.population!r} must "
                                "be a behaviour mix, its learning seats first")
        return [entry.strip() for entry in self.population.split(",")]

    @property
    def background(self) -> str:
        return ",".join(self.entries[1:])

    def focal_population(self, focal: str, background: str) -> str:
        """The population with the learning seats played by ``focal``."""
        count = self.entries[0].partition(":")[2].strip()
        entry = f"{focal}:{count}" if count else focal
        return ",".join(part for part in (entry, background) if part)

    def check_keys(self, where: str, counts: dict, tables: dict) -> None:
        """The name, the game, ``seeds``, ``seed``, ``checkpoint_every`` and the ``counts``
        (name -> lowest value) as integers, and ``[parameters]``, ``[evaluate]`` and the
        ``tables`` (name -> allowed keys) as tables of allowed keys."""
        check_name(where, self.name, TrainingError)
        if self.game not in GAMES:
            raise TrainingError(f"{where}: game={self.game!r} is not a game; allowed: "
                                f"{sorted(GAMES)}")
        for key, low in {**counts, "seeds": 1, "seed": 0, "checkpoint_every": 1}.items():
            check_integer(where, key, getattr(self, key), low)
        for table, keys in {"parameters": None, **tables, "evaluate": EVALUATE_KEYS}.items():
            value = getattr(self, table)
            if not isinstance(value, dict):
                raise TrainingError(f"{where}: [{table}] must be a table")
            allowed = keys or [k for k in GAMES[self.game].parameters.names if k not in OWN]
            unknown = sorted(set(value) - set(allowed))
            if unknown:
                raise TrainingError(f"{where}: [{table}] {unknown[0]}: not allowed here; "
                                    f"allowed: {list(allowed)}")

    def check_evaluate(self, where: str) -> None:
        """The ``[evaluate]`` table: its seeds, and each background beside the learning
        seats played by a policy or by ``random``."""
        check_integer(where, "[evaluate] seeds", self.evaluate.get("seeds", 30), 1)
        backgrounds = self.evaluate.get("backgrounds", [self.background])
        if not isinstance(backgrounds, list) or not backgrounds \
                or not all(isinstance(b, str) for b in backgrounds):
            raise TrainingError(f"{where}: [evaluate] backgrounds={backgrounds!r} must be a "
                                "non-empty list of behaviour mixes (\"\" for none)")
        try:
            for background in backgrounds:
                for focal in (POLICY, "random"):
                    GAMES[self.game].model(**self.parameters, rng=0, collect_data=False,
                                           population=self.focal_population(focal, background),
                                           policy=_first_allowed)
        except (ValueError, TypeError) as error:
            raise TrainingError(f"{where}: {error}") from None


@dataclass(frozen=True)
class Training(Seating):
    """A validated training (module docstring); ``Training.from_file`` reads TOML."""

    KEYS: ClassVar = KEYS
    REQUIRED: ClassVar = ("game", "population", "episodes")

    game: str
    population: str
    episodes: int
    name: str
    seeds: int = 1
    seed: int = 0
    checkpoint_every: int = 100
    parameters: dict = field(default_factory=dict)
    learner: dict = field(default_factory=dict)
    evaluate: dict = field(default_factory=dict)

    def __post_init__(self):
        where = f"training {self.name!r}"
        self.check_keys(where, {"episodes": 1}, {"learner": LEARNER_KEYS})
        learning = self.learning_behaviour  # checks the population's first entry
        for key, value in self.learner.items():
            if key == "explore_episodes":
                check_integer(where, f"[learner] {key}", value, 0)
            elif isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not 0 <= value <= 1:
                raise TrainingError(f"{where}: [learner] {key}={value!r} must be a number "
                                    "from 0 to 1")
        during = sorted(set(DURING) & set(self.evaluate))
        if during:
            raise TrainingError(f"{where}: [evaluate] {during[0]}: evaluation during "
                                "training is for deep learners (algorithm = \"ippo\" or "
                                "\"mappo\")")
        self.check_evaluate(where)
        try:
            model = self.model(rng=0, collect_data=False)
        except (ValueError, TypeError) as error:
            raise TrainingError(f"{where}: {error}") from None
        if LEARNERS[learning].behaviour != learning or not model.learning_seats():
            raise TrainingError(f"{where}: population={self.population!r} seats no learner")

    # --- Who plays -------------------------------------------------------------------
    @property
    def learning_behaviour(self) -> str:
        first = self.entries[0].partition(":")[0].strip()
        others = {entry.partition(":")[0].strip() for entry in self.entries[1:]}
        if first not in LEARNERS or others & set(LEARNERS):
            raise TrainingError(
                f"training {self.name!r}: population={self.population!r} must seat one "
                f"learning behaviour ({' or '.join(LEARNERS)}), in its first entry")
        return first

    @property
    def learning_seats(self) -> int:
        model = self.model(rng=0, collect_data=False)
        return len(model.learning_seats())

    def model(self, **kwargs):
        return GAMES[self.game].model(**self.parameters, population=self.population, **kwargs)

    # --- The schedule ----------------------------------------------------------------
    def settings(self) -> dict:
        return {key: self.learner.get(key, SETTINGS[key]) for key in ("learning_rate",
                                                                       "discount")}

    def epsilon(self, episode: int) -> float:
        start = self.learner.get("epsilon_start", 1.0)
        end = self.learner.get("epsilon_end", 0.05)
        span = self.learner.get("explore_episodes", self.episodes // 2)
        return float(end if episode >= span else start + (end - start) * episode / span)

    def run(self, index: int, episode: int) -> tuple[str, int]:
        """The run id and model seed of episode ``episode`` of training seed ``index``."""
        digest = hashlib.sha256(f"{self.seed}|training|{index}|{episode}".encode()).digest()
        return digest[:8].hex(), int.from_bytes(digest[8:16], "big") >> 1

    def finished_policy(self, folder: Path, index: int) -> Path:
        """Training seed ``index``'s final learner file; a TrainingError if unfinished."""
        done = episodes_done(folder, index)
        if done < self.episodes:
            raise TrainingError(f"training {self.name!r}: seed {index} has trained "
                                f"{done} of {self.episodes} episodes in {folder}: run "
                                "`dilemmas train` first")
        return checkpoint(folder, index)

    def definition(self) -> dict:
        return {"game": self.game, "population": self.population, "episodes": self.episodes,
                "seeds": self.seeds, "seed": self.seed,
                "checkpoint_every": self.checkpoint_every, "parameters": self.parameters,
                "learner": self.learner}


def _first_allowed(observation):
    return int(np.flatnonzero(observation["action_mask"])[0])


# --- Training ----------------------------------------------------------------------------
@dataclass
class TrainingReport:
    folder: Path
    seeds: int
    episodes_before: int = 0
    episodes_played: int = 0


def folder_of(training: Training, out) -> Path:
    return Path(out) / training.name


def checkpoint(folder: Path, index: int) -> Path:
    return folder / f"seed-{index}" / "learner.npz"


def episodes_done(folder: Path, index: int) -> int:
    """Episodes a seed's checkpoint holds (0 without one)."""
    path = checkpoint(folder, index)
    if not path.exists():
        return 0
    try:
        load_learner(path)
        with np.load(path, allow_pickle=False) as data:
            episodes = int(data["episodes"]) if "episodes" in data.files else None
    except (PolicyError, OSError, ValueError, TypeError) as error:
        raise TrainingError(f"checkpoint {str(path)!r} cannot be used ({error}); remove its "
                            "seed's folder to train that seed again") from None
    if episodes is None:
        raise TrainingError(f"checkpoint {str(path)!r} holds no 'episodes': not a training "
                            "checkpoint; remove its seed's folder to train that seed again")
    return episodes


def train(training: Training, out="results/training", *, backend="local", workers=None,
          scheduler=None, progress=True) -> TrainingReport:
    """Train every seed of ``training`` to its last episode, resuming from checkpoints, and
    draw the learning curve (module docstring)."""
    check_backend(backend, workers, scheduler)
    folder = folder_of(training, out)
    with manifest.writing(folder):
        return _train(training, folder, backend, workers, scheduler, progress)


def _train(training, folder, backend, workers, scheduler, progress) -> TrainingReport:
    _prepare(training, folder)
    done = {index: episodes_done(folder, index) for index in range(training.seeds)}
    report = TrainingReport(folder, training.seeds, episodes_before=sum(done.values()))
    bar = Progress(total=training.seeds * training.episodes, initial=report.episodes_before,
                   unit="episode", desc=training.name, disable=not progress)
    try:
        while any(count < training.episodes for count in done.values()):
            tasks = [(training, index, count, str(folder)) for index, count in done.items()
                     if count < training.episodes]
            for index, count in play(train_chunk, tasks, backend, workers, scheduler):
                bar.update(count - done[index])
                report.episodes_played += count - done[index]
                done[index] = count
    finally:
        bar.close()
    learning_curve_figure(folder)
    return report


def write_definition(training, folder: Path, file: str = "training.json",
                     what: str = "training") -> None:
    """Write ``training.definition()`` as ``file`` (JSON), or check that the folder's is the
    same: a TrainingError names the folder holding a different ``what``."""
    definition = folder / file
    if definition.exists():
        try:
            existing = canonical(json.loads(definition.read_text()))
        except ValueError:
            existing = None
        if existing != canonical(training.definition()):
            raise TrainingError(f"{what} {training.name!r}: {folder} holds a different "
                                f"{what} (see {definition}); choose another name or folder")
    else:
        write_atomic(definition, (json.dumps(training.definition(), indent=2) + "\n").encode())


def _prepare(training: Training, folder: Path) -> None:
    write_definition(training, folder)
    for index in range(training.seeds):
        seed_folder = folder / f"seed-{index}"
        seed_folder.mkdir(exist_ok=True)
        for stale in seed_folder.glob(".*.tmp"):
            stale.unlink()
        done = episodes_done(folder, index)
        for curve in seed_folder.glob("curve-*.parquet"):  # beyond the checkpoint
            if int(curve.stem.split("-")[1]) >= done:
                curve.unlink()


def train_chunk(task) -> tuple[int, int]:
    """Train one seed from its checkpoint up to its next one (in a worker); returns
    ``(seed index, episodes done)``."""
    training, index, start, folder = task
    folder = Path(folder)
    if start:
        try:
            learner = load_learner(checkpoint(folder, index))
        except PolicyError as error:
            raise TrainingError(f"training {training.name!r}: {error}") from None
    else:
        learner = LEARNERS[training.learning_behaviour].fresh(
            training.model(rng=0, collect_data=False), **training.settings())
    stop = min(training.episodes, start + training.checkpoint_every)
    tables = []
    for episode in range(start, stop):
        learner.epsilon = epsilon = training.epsilon(episode)
        run_id, seed = training.run(index, episode)
        model = training.model(learner=learner, rng=seed)
        model.run_model()
        tables.append(_curve_rows(training, model, index, episode, epsilon, run_id, seed))
    write_atomic(folder / f"seed-{index}" / f"curve-{start:09d}.parquet",
                 parquet_bytes(pa.concat_tables(tables)))
    learner.save(checkpoint(folder, index), episodes=np.int64(stop))
    return index, stop


def _curve_rows(training, model, index, episode, epsilon, run_id, seed) -> pa.Table:
    rows = model.datacollector.get_model_vars_dataframe().reset_index(drop=True)
    played, learners = set(model.agents), set(model.learning_seats())
    learning = [agent.reward for agent in model.seats if agent in learners and agent in played]
    others = [agent.reward for agent in model.seats
              if agent not in learners and agent in played]
    front = {"run_id": run_id, "replicate": index, "seed": seed,
             **{key: canonical(value) if isinstance(value, (list, tuple, dict)) else value
                for key, value in {**training.parameters,
                                   "population": training.population}.items()},
             "episode": episode, "epsilon": epsilon,
             "learner_return": float(np.mean(learning)) if learning else float("nan"),
             "background_return": float(np.mean(others)) if others else float("nan")}
    columns = {key: [value] * len(rows) for key, value in front.items()}
    columns["Step"] = list(range(len(rows)))
    columns.update({column: rows[column].tolist() for column in rows.columns})
    return pa.table(columns)


# --- Reading the curves ----------------------------------------------------------------------
def curves(folder) -> pd.DataFrame:
    """Every curve row of a training folder (every seed, every episode, every step)."""
    files = sorted(Path(folder).glob("seed-*/curve-*.parquet"))
    if not files:
        raise FileNotFoundError(f"no learning curves in {folder} (seed-*/curve-*.parquet)")
    return pd.concat([pq.read_table(path).to_pandas() for path in files], ignore_index=True)


def episode_returns(folder) -> pd.DataFrame:
    """One row per training seed and episode: its returns, epsilon and the game's episode
    statistics."""
    rows = curves(folder)
    game = GAMES[json.loads((Path(folder) / "training.json").read_text())["game"]]
    statistics = game.statistics(rows, "run_id")
    ends = rows.groupby("run_id", sort=False).last()
    per_episode = ends[["replicate", "episode", "epsilon", "learner_return",
                        "background_return"]].join(statistics)
    return per_episode.reset_index().sort_values(["replicate", "episode"],
                                                 ignore_index=True)


def learning_curve_figure(folder, window: int | None = None, returns=None,
                          x: str = "episode", greedy=None):
    """Per-capita returns of the learning and background seats per episode (or per ``x``,
    the column of ``returns``, by default the folder's ``episode_returns``), and of the reward
    the learning seats trained on where a deep training's curve holds one that differs from
    their own (``objective_return``): the mean over
    training seeds of a moving average over ``window`` of them (default: a twentieth), with
    a 95% band (t over the seeds' smoothed curves); and, where ``greedy`` holds a deep
    training's evaluations (``dilemmas.learning.deep.evaluations``), the learning seats'
    greedy return at each evaluation, mean and band over the seeds, unsmoothed. Saved as ``learning_curve.pdf`` and
    ``.png`` in the folder; returns the PNG's path."""
    import matplotlib

    from dilemmas.analysis.figures.paper import CONFIDENCE, STYLE, PaperFigure, save
    from dilemmas.analysis.studies.results import aggregate

    folder = Path(folder)
    returns = episode_returns(folder) if returns is None else returns
    if "background_return" not in returns:
        returns = returns.assign(background_return=np.nan)
    episodes = int(returns[x].max()) + 1
    window = window or max(1, episodes // 20)
    seeds = returns["replicate"].nunique()
    figure = PaperFigure()
    with matplotlib.rc_context(STYLE):
        axis = figure.subplots()
        for column, label, colour in (("learner_return", "learning seats", "C0"),
                                      ("objective_return", "learning seats, reward trained on",
                                       "C2"),
                                      ("background_return", "background seats", "C1")):
            if column not in returns or returns[column].isna().all() \
                    or (column == "objective_return"
                        and returns[column].equals(returns["learner_return"])):
                continue
            smooth = returns.assign(**{column: returns.groupby("replicate")[column].transform(
                lambda values: values.rolling(window, min_periods=1).mean())})
            stats = aggregate(smooth, x, column, CONFIDENCE).sort_values(x)
            axis.plot(stats[x], stats[column], color=colour, label=label)
            axis.fill_between(stats[x], stats[f"{column}_low"],
                              stats[f"{column}_high"], color=colour, alpha=0.25, linewidth=0)
        if greedy is not None and len(greedy):
            stats = aggregate(greedy, x, "learner_return", CONFIDENCE).sort_values(x)
            axis.errorbar(stats[x], stats["learner_return"],
                          yerr=[stats["learner_return"] - stats["learner_return_low"],
                                stats["learner_return_high"] - stats["learner_return"]],
                          color="C3", marker="o", markersize=3, capsize=2,
                          label="learning seats, greedy play")
        axis.set_xlabel(f"training {x}")
        axis.set_ylabel("return per seat in the episode")
        axis.legend(frameon=False)
        figure.suptitle(f"{folder.name}: moving average over {window} {x}s; mean of "
                        f"{seeds} training seed{'s' * (seeds > 1)}"
                        + (f" ({CONFIDENCE:.0%} band)" if seeds > 1 else ""))
    return save(figure, folder, "learning_curve")[-1]
