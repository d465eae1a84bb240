"""Trainings as a study: a deep training file with a ``[sweep]`` table trains one training
per combination of the swept values (docs/learning.md, "Sweeping a learner").

The file is a deep training file (``dilemmas.learning.deep``) and a ``[sweep]`` table whose
keys name what varies -- a top-level key (``updates``, ``seeds``, ``seed``, ``algorithm``,
``population``) or a key of a table, dotted (``ppo.learning_rate``, ``network.hidden``,
``parameters.heal_delay``, ``evaluate.every``) -- each with a list of values; every
combination is trained::

    game = "stag_hunt"
    algorithm = "ippo"
    population = "policy:2"
    updates = 200
    seeds = 5

    [parameters]
    num_agents = 2
    num_agents_to_spawn = 2

    [ppo]
    envs = 32
    steps = 128

    [sweep]
    "ppo.learning_rate" = [0.00025, 0.0005, 0.001]
    "parameters.heal_delay" = [1, 2]

Each combination is a ``DeepTraining``, checked before anything trains (an error names the
combination and what is wrong), named ``<name>-<digest>`` (the first 12 hex digits of the
SHA-256 of its swept values' canonical JSON) and trained by ``deep.train`` into
``<out>/<name>/<its name>/``, resumable as any training (every seed of a combination in one
compiled program, from the file's ``seed``: the combinations share their training seeds'
keys). The study runner's backends place the combinations (``runner.play``): a process
pool on this machine (``workers``, default every core), Dask, or this process. A run again
resumes each unfinished training and leaves finished ones as they are. ``sweep.json``
holds the sweep's definition; another sweep into the same folder is an error.

``summary(folder)`` (written as ``summary.csv``): one row per combination, its swept
values, then the final scores of its training seeds -- each seed's mean over the last tenth
of its updates of ``learner_return``, ``objective_return`` and each ``end_<column>``, then
their mean over the seeds with a Student-t 95% interval (``_low``, ``_high``) -- and, where
the training evaluated greedily (``[evaluate] every``), the last evaluation's
``greedy_learner_return`` and ``greedy_objective_return`` the same way. ``summary_figure``
draws the final ``objective_return`` against each swept key (``summary.png`` / ``.pdf``).
"""

import hashlib
import itertools
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dilemmas.analysis.learning.training import TrainingError, write_definition
from dilemmas.analysis.studies.results import mean_interval
from dilemmas.analysis.studies.runner import play
from dilemmas.analysis.studies.study import canonical, check_name, read_toml
from dilemmas.learning import deep
from dilemmas.learning.deep import DeepTraining
from dilemmas.models.files import write_atomic

#: The top-level keys a sweep may vary, and the tables whose keys it may vary (dotted).
TOP = ("updates", "seeds", "seed", "algorithm", "population", "checkpoint_every")
TABLES = ("parameters", "network", "ppo", "evaluate")
#: The share of a training's last updates its final score averages.
LAST = 0.1


@dataclass(frozen=True)
class TrainingSweep:
    """A validated sweep of deep trainings (module docstring)."""

    name: str
    base: dict       # the training file without [sweep] and name
    sweep: dict      # key -> list of values

    def __post_init__(self):
        where = f"training sweep {self.name!r}"
        check_name(where, self.name, TrainingError)
        if not isinstance(self.sweep, dict) or not self.sweep:
            raise TrainingError(f"{where}: [sweep] must be a table of one or more keys, each "
                                "a list of values")
        for key, values in self.sweep.items():
            table, dot, inner = key.partition(".")
            if not (key in TOP or (dot and table in TABLES and inner)):
                raise TrainingError(
                    f"{where}: [sweep] {key!r} is not a key a sweep can vary; allowed: "
                    f"{list(TOP)} or a key of {list(TABLES)} written table.key "
                    "(e.g. \"ppo.learning_rate\")")
            if not isinstance(values, list) or not values:
                raise TrainingError(f"{where}: [sweep] {key!r} must be a non-empty list of "
                                    f"values, not {values!r}")
            if len({canonical(v) for v in values}) != len(values):
                raise TrainingError(f"{where}: [sweep] {key!r} lists a value twice: {values!r}")
        for values in self.combinations():
            try:
                self.training(values)
            except TrainingError as error:
                shown = ", ".join(f"{k} = {json.dumps(v)}" for k, v in values.items())
                raise TrainingError(f"{where}: the combination {shown}: "
                                    f"{str(error).partition(': ')[2]}") from None

    @classmethod
    def from_file(cls, path):
        """Read and validate a training file with a ``[sweep]``; ``TrainingError`` names the
        file, the combination and the key."""
        data = read_toml(path, "training", (*deep.KEYS, "sweep"), (), TrainingError)
        name, sweep = data.pop("name"), data.pop("sweep", None)
        for key in DeepTraining.REQUIRED:
            if key not in data and key not in (sweep or {}):
                raise TrainingError(f"training file {str(path)!r}: the key {key!r} is "
                                    "missing")
        try:
            return cls(name, data, sweep)
        except TrainingError as error:
            raise TrainingError(f"training file {str(path)!r}: {error}") from None

    def combinations(self) -> list[dict]:
        """Every combination of the swept values, in the file's order."""
        keys = list(self.sweep)
        return [dict(zip(keys, values))
                for values in itertools.product(*(self.sweep[key] for key in keys))]

    def training(self, values: dict) -> DeepTraining:
        """The training of one combination."""
        data = json.loads(json.dumps(self.base))  # a deep copy
        for key, value in values.items():
            table, dot, inner = key.partition(".")
            if dot:
                data.setdefault(table, {})[inner] = value
            else:
                data[key] = value
        return DeepTraining(**{**data, "name": f"{self.name}-{digest(values)}"})

    def trainings(self) -> list[DeepTraining]:
        return [self.training(values) for values in self.combinations()]

    def definition(self) -> dict:
        return {"base": self.base, "sweep": self.sweep}


def digest(values: dict) -> str:
    return hashlib.sha256(canonical(values).encode()).hexdigest()[:12]


def sweep_folder(sweep: TrainingSweep, out) -> Path:
    return Path(out) / sweep.name


def train_one(task) -> str:
    """Train one combination (in a worker): ``(training definition, folder)``; returns its
    name."""
    data, folder = task
    training = DeepTraining(**data)
    deep.train(training, folder, progress=False)
    return training.name


def train(sweep: TrainingSweep, out="results/training", *, backend="local", workers=None,
          scheduler=None, progress=True) -> Path:
    """Train every combination of ``sweep`` not yet trained into ``<out>/<name>/``, then
    write ``summary.csv`` and the summary figure; returns the folder."""
    from dilemmas.analysis.studies.runner import Progress, check_backend

    check_backend(backend, workers, scheduler)
    folder = sweep_folder(sweep, out)
    folder.mkdir(parents=True, exist_ok=True)
    write_definition(sweep, folder, "sweep.json", "training sweep")
    trainings = sweep.trainings()
    todo = [(training_data(training), str(folder)) for training in trainings
            if deep.updates_done(folder / training.name) < training.updates
            or not (folder / training.name / "learning_curve.png").exists()]
    bar = Progress(total=len(trainings), initial=len(trainings) - len(todo), unit="training",
                   desc=sweep.name, disable=not progress)
    try:
        for _ in play(train_one, todo, backend, workers or None, scheduler):
            bar.update(1)
    finally:
        bar.close()
    table = summary(folder, sweep)
    write_atomic(folder / "summary.csv", table.to_csv(index=False).encode())
    summary_figure(folder, sweep, table)
    return folder


def training_data(training: DeepTraining) -> dict:
    return {"name": training.name, **training.definition(), "evaluate": training.evaluate}


def final_scores(folder: Path) -> pd.DataFrame:
    """Per training seed: the means over its last tenth of updates (module docstring), and
    its last greedy evaluation's returns where it has one."""
    curve = deep.curves(folder)
    last = curve[curve["update"] > (1 - LAST) * curve["update"].max()]
    columns = ["learner_return", "objective_return",
               *[c for c in curve if c.startswith("end_")]]
    scores = last.groupby("replicate")[columns].mean()
    evaluations = deep.evaluations(folder)
    if len(evaluations):
        final = evaluations[evaluations["update"] == evaluations["update"].max()]
        final = final.set_index("replicate")[["learner_return", "objective_return"]]
        scores = scores.join(final.add_prefix("greedy_"))
    return scores


def summary(folder, sweep: TrainingSweep) -> pd.DataFrame:
    """One row per combination (module docstring)."""
    rows = []
    for values, training in zip(sweep.combinations(), sweep.trainings()):
        scores = final_scores(Path(folder) / training.name)
        row = {**{key: json.dumps(value) if isinstance(value, (list, dict)) else value
                  for key, value in values.items()},
               "training": training.name, "seeds": len(scores)}
        for column in scores:
            found = mean_interval(scores[column].dropna(), 0.95)
            row.update({column: found["mean"], f"{column}_low": found["low"],
                        f"{column}_high": found["high"]})
        rows.append(row)
    return pd.DataFrame(rows)


def summary_figure(folder, sweep: TrainingSweep, table: pd.DataFrame):
    """The final ``objective_return`` (mean and 95% interval over the seeds) against each
    swept key, one panel each, a line for each combination of the other keys; saved as
    ``summary.pdf`` / ``.png``. Returns the PNG's path."""
    import matplotlib

    from dilemmas.analysis.figures.paper import STYLE, PaperFigure, save

    keys = list(sweep.sweep)
    figure = PaperFigure(panels=(1, len(keys)))
    with matplotlib.rc_context(STYLE):
        axes = np.atleast_1d(figure.subplots(1, len(keys)))
        for axis, key in zip(axes, keys):
            others = [k for k in keys if k != key]
            groups = table.groupby(others, sort=False) if others else [((), table)]
            labels = [str(v) for v in table[key].drop_duplicates()]
            for group, rows in groups:
                group = group if isinstance(group, tuple) else (group,)
                x = [labels.index(str(v)) for v in rows[key]]
                axis.errorbar(x, rows["objective_return"],
                              yerr=[rows["objective_return"] - rows["objective_return_low"],
                                    rows["objective_return_high"] - rows["objective_return"]],
                              marker="o", capsize=3,
                              label=", ".join(f"{k} = {v}" for k, v in zip(others, group))
                              or None)
            axis.set_xticks(range(len(labels)), labels)
            axis.set_xlabel(key)
            axis.set_ylabel("final return of the reward trained on, per seat")
            if others:
                axis.legend(frameon=False, fontsize="small")
        figure.suptitle(f"{sweep.name}: the last {LAST:.0%} of updates, mean over the "
                        "training seeds (95% interval)")
    return save(figure, Path(folder), "summary")[-1]
