"""Training deep learners: ``dilemmas train TRAIN.toml`` with ``algorithm = "ippo"`` or
``"mappo"`` (docs/learning.md, "Deep learners").

A deep training file is TOML::

    name = "firefighting_graph_ippo"  # optional: the file's stem
    game = "firefighting_graph"
    algorithm = "ippo"                # or "mappo" (dilemmas.learning.ppo)
    population = "policy:2"           # the learning seats (policy), then background behaviours
    updates = 300                     # PPO updates per training seed
    seeds = 5                         # training seeds, trained together (vmapped)
    seed = 2026                       # default 0
    checkpoint_every = 50             # updates between checkpoints, default 50

    [parameters]                      # the game's other parameters
    n_agents = 2

    [network]                         # every key optional (defaults: ppo_settings.Settings)
    kind = "gru"                      # "mlp" or "gru"
    share = true                      # false: each learning seat its own networks
    hidden = 64
    layers = 2
    activation = "tanh"

    [ppo]                             # every key optional (defaults: ppo_settings.Settings); with
                                      # share = false learning_rate ... max_grad_norm may
                                      # be one per learning seat: [1e-3, 5e-4]
    envs = 64                         # parallel episodes per seed
    steps = 128                       # decisions per episode per update
    epochs = 4
    minibatches = 4
    learning_rate = 2.5e-4
    anneal = true
    discount = 0.99
    gae_lambda = 0.95
    clip = 0.2
    entropy = 0.01
    value = 0.5
    max_grad_norm = 0.5
    reward = "own"                    # "team", "mean", "prosocial", "inequity_aversion"
    prosociality = 0.0                # w of "prosocial": a number or one per learning seat
    inequity_alpha = 0.0              # alpha, beta and the smoothing of "inequity_aversion"
    inequity_beta = 0.0
    inequity_smoothing = 0.0

    [coplayers]                       # optional: frozen co-players (coplayers.CoPlayers)
    seats = [1]                       # the learning seats (from 0) they take
    policies = ["a.npz", {policy = "b.npz", seat = 0}, {bot = "hunter"},
                {behaviour = "hare_hunter"}]
    weights = [0.5, 0.3, 0.0, 0.2]    # each episode draws each seat's co-player by them
    play = "greedy"                   # or "sampled" (the default)

    [evaluate]                        # as for the tabular learners, and:
    seeds = 30
    backgrounds = [""]
    every = 10                        # greedy play every 10 updates (default: none) ...
    episodes = 100                    # ... of 100 episodes per seed (default 100)

The population's first entry seats ``policy``: those seats are the environment's agents,
played by the network being trained; the other entries are scripted behaviours that can play
on the batch engine. ``[coplayers]`` gives some of the learning seats to frozen network
policies (MLP or GRU; a file of several seats' policies names its ``seat``, a shipped bot
its ``bot`` name) or scripted behaviours (``behaviour``, one that plays on the batch
engine) drawn per episode by ``weights``, as PSRO's best response trains against
a meta-strategy (``dilemmas.learning.oracle``); it needs ``share = false`` and no
``[evaluate] every``, and its curves' returns are the other seats' (the ones that learn).
Training seed ``i`` starts from the JAX key ``fold_in(PRNGKey(seed), i)``; every seed
trains in one compiled program.

``train(training, out)`` writes into ``<out>/<name>/``:

* ``training.json`` -- the training's definition; a different one in the folder is an error.
* ``checkpoint.npz`` -- every seed's networks, optimiser, episodes in progress, memories and
  key after ``updates`` updates (``updates``, ``leaf<k>``): the training resumes from it.
* ``seed-<i>/policy.npz`` -- the seed's actor as a policy file (kind ``"network"``,
  ``dilemmas.models.policies``; with ``share = false`` kind ``"seats"``, each learning
  seat's own network a part of one seat, in seat order) with ``updates``: ``policy=``
  plays it in any model.
* ``curve-<updates before it>.parquet`` -- one row per seed and update: ``replicate`` (the
  seed), ``update`` (updates done), ``agent_steps`` (the learning seats' decisions so far),
  ``episodes`` (episodes that ended in the update), ``learner_return`` (their mean return
  per learning seat, the seats' own rewards), ``objective_return`` (the same of the reward
  trained on, ``[ppo] reward``), ``end_<column>`` (the mean of each model
  column at those episodes' ends) and the update's mean losses (``ppo.LOSSES``).
* ``evaluation-<update>.parquet`` (with ``[evaluate] every``) -- after every ``every``-th
  update, each seed's actor played greedily (``ppo.Trainer.evaluate``: its argmax, as its
  policy file plays by default) in ``episodes`` episodes of the functional environment, one
  row per seed: ``replicate``, ``update``, ``play`` (``"greedy"``), ``episodes`` (those that
  ended within ``max_steps``), ``learner_return``, ``objective_return`` and ``end_<column>``
  as in the curves, whose rows are the sampled play the training learns from. Its keys are
  ``fold_in(the seed's key, update)``, apart from the training's: a training evaluated or not
  gives the same networks and curves. The updates are done in chunks that end at every
  ``every``-th update.
* ``learning_curve.pdf`` / ``.png`` -- the returns per update, a moving average, mean over
  the seeds with a 95% band; with evaluations, their greedy return beside.

Every ``checkpoint_every`` updates the curve rows are written, then the checkpoint, then the
policy files, each atomically; a training killed at any moment resumes from the last
checkpoint (curve files beyond it are removed) and gives the same curve as one never
stopped.
"""

import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from dilemmas import GAMES
from dilemmas.analysis.learning.training import (
    DURING,
    Seating,
    TrainingError,
    TrainingReport,
    check_integer,
    folder_of,
    learning_curve_figure,
    write_definition,
)
from dilemmas.analysis.studies import manifest
from dilemmas.analysis.studies.run_files import parquet_bytes
from dilemmas.analysis.studies.runner import Progress
from dilemmas.learning.coplayers import CoPlayers
from dilemmas.learning.networks import network_arrays
from dilemmas.learning.ppo import Trainer
from dilemmas.learning.ppo_settings import ALGORITHMS, NETWORKS, Settings
from dilemmas.learning.rewards import WEIGHTS
from dilemmas.models.files import write_atomic
from dilemmas.models.policies import (POLICY, NetworkPolicy, SeatedPolicy, read_policy_file,
                                      save_policy)

KEYS = ("name", "game", "algorithm", "population", "updates", "seeds", "seed",
        "checkpoint_every", "parameters", "network", "ppo", "coplayers", "evaluate")
COPLAYER_KEYS = ("seats", "policies", "weights", "play")
NETWORK_KEYS = ("kind", "share", "hidden", "layers", "activation")
PPO_KEYS = ("envs", "steps", "epochs", "minibatches", "learning_rate", "anneal", "discount",
            "gae_lambda", "clip", "entropy", "value", "max_grad_norm", "value_norm", "reward",
            *WEIGHTS)


@dataclass(frozen=True)
class DeepTraining(Seating):
    """A validated deep training (module docstring); ``DeepTraining.from_file`` reads TOML."""

    KEYS: ClassVar = KEYS
    REQUIRED: ClassVar = ("game", "population", "updates")
    PLAYS: ClassVar = ("greedy", "sampled")  # a network's argmax, and draws as it trained

    game: str
    population: str
    updates: int
    name: str
    algorithm: str = "ippo"
    seeds: int = 1
    seed: int = 0
    checkpoint_every: int = 50
    parameters: dict = field(default_factory=dict)
    network: dict = field(default_factory=dict)
    ppo: dict = field(default_factory=dict)
    coplayers: dict = field(default_factory=dict)
    evaluate: dict = field(default_factory=dict)

    def __post_init__(self):
        where = f"training {self.name!r}"
        self.check_keys(where, {"updates": 1}, {"network": NETWORK_KEYS, "ppo": PPO_KEYS,
                                                "coplayers": COPLAYER_KEYS})
        if self.algorithm not in ALGORITHMS:
            raise TrainingError(f"{where}: algorithm={self.algorithm!r} is not a deep learner; "
                                f"allowed: {list(ALGORITHMS)}")
        if self.entries[0].partition(":")[0].strip() != POLICY \
                or any(e.partition(":")[0].strip() == POLICY for e in self.entries[1:]):
            raise TrainingError(f"{where}: population={self.population!r} must seat 'policy' "
                                "(the learning seats) in its first entry and only there")
        kind = self.network.get("kind", "mlp")
        if kind not in NETWORKS:
            raise TrainingError(f"{where}: [network] kind={kind!r} is invalid; allowed: "
                                f"{list(NETWORKS)}")
        try:
            self.settings()
        except ValueError as error:
            key = str(error).partition("=")[0]
            table = "[network]" if key in NETWORK_KEYS else "[ppo]"
            raise TrainingError(f"{where}: {table} {error}") from None
        self.check_evaluate(where)
        if self.coplayers and "every" in self.evaluate:
            raise TrainingError(f"{where}: [evaluate] every: a training with [coplayers] is "
                                "not evaluated greedily while it trains (its learners would "
                                "take the co-players' seats); leave every out")
        try:
            self.frozen()
        except ValueError as error:
            raise TrainingError(f"{where}: [coplayers] {error}") from None
        for key in DURING:
            if key in self.evaluate:
                check_integer(where, f"[evaluate] {key}", self.evaluate[key], 1)
        try:
            trainer = self.trainer()
        except ValueError as error:  # the batch does not split as [ppo] asks
            raise TrainingError(f"{where}: [ppo] {error}") from None
        try:
            trainer.check_footprint(self.seeds)
        except ValueError as error:
            raise TrainingError(f"{where}: [network] and [ppo]: {error}") from None

    def settings(self) -> Settings:
        network = {("network" if key == "kind" else key): value
                   for key, value in self.network.items()}
        return Settings(algorithm=self.algorithm, **network, **self.ppo)

    def env(self):
        from dilemmas.envs.functional import functional_env

        return functional_env(self.game, population=self.population, **self.parameters)

    def frozen(self) -> CoPlayers | None:
        """The ``[coplayers]`` table read (None without one); a ValueError names the key."""
        if not self.coplayers:
            return None
        from dilemmas.analysis.game_theory.metagame import strategy
        from dilemmas.analysis.studies.study import StudyError
        from dilemmas.envs.functional import stands_in
        from dilemmas.models.policies import PolicyError

        data = self.coplayers
        missing = [key for key in ("seats", "policies", "weights") if key not in data]
        if missing:
            raise ValueError(f"{missing[0]}: missing (seats, policies and weights are needed)")
        seats, policies, weights = data["seats"], data["policies"], data["weights"]
        if not isinstance(seats, list) or not all(type(seat) is int for seat in seats):
            raise ValueError(f"seats={seats!r} must be a list of learning seats (from 0)")
        kinds = "policy files, {policy = ..., seat = ...}, {bot = ...} or {behaviour = ...}"
        if not isinstance(policies, list) or not policies:
            raise ValueError(f"policies={policies!r} must be a list of {kinds}")
        loaded = []
        for index, value in enumerate(policies):
            if isinstance(value, dict) and "behaviour" in value:
                if set(value) != {"behaviour"} or not isinstance(value["behaviour"], str):
                    raise ValueError(f"policies[{index}]={value!r}: a scripted co-player is "
                                     "{behaviour = \"name\"} alone")
                value = value["behaviour"]
            elif isinstance(value, str):
                value = {"policy": value}
            try:
                chosen = strategy(self.game, f"coplayer{index}", value)
            except (StudyError, PolicyError) as error:
                raise ValueError(f"policies[{index}]: "
                                 f"{str(error).partition(': ')[2]}") from None
            if chosen.policy is None and not stands_in(self.game, chosen.behaviour):
                raise ValueError(f"policies[{index}]: behaviour={chosen.behaviour!r} cannot "
                                 "decide on arrays, so it cannot be a co-player inside the "
                                 "compiled training")
            loaded.append(chosen.behaviour if chosen.policy is None else chosen.loaded())
        if not isinstance(weights, list) or len(weights) != len(policies) or not all(
                isinstance(w, (int, float)) and not isinstance(w, bool) for w in weights):
            raise ValueError(f"weights={weights!r} must be a list of {len(policies)} numbers, "
                             "one per policy")
        if self.settings().share:
            raise ValueError("need [network] share = false (the learning seats' networks "
                             "their own, apart from the seats the co-players take)")
        learning = self.learning_seats
        if not set(seats) < set(range(learning)) or len(set(seats)) < len(seats):
            raise ValueError(f"seats={seats!r} must be distinct learning seats, some but not "
                             f"all of 0 to {learning - 1}")
        return CoPlayers(tuple(seats), tuple(loaded), tuple(map(float, weights)),
                         data.get("play", "sampled"))

    def trainer(self) -> Trainer:
        return Trainer(self.env(), self.settings(), self.updates, self.frozen())

    @property
    def learning_seats(self) -> int:
        return self.env().num_agents

    def keys(self):
        """Each training seed's starting key ``(seeds, 2)``."""
        import jax

        return np.stack([np.asarray(jax.random.fold_in(jax.random.PRNGKey(self.seed), index))
                         for index in range(self.seeds)])

    def definition(self) -> dict:
        return {"game": self.game, "algorithm": self.algorithm, "population": self.population,
                "updates": self.updates, "seeds": self.seeds, "seed": self.seed,
                "checkpoint_every": self.checkpoint_every, "parameters": self.parameters,
                "network": self.network, "ppo": self.ppo,
                **({"coplayers": self.coplayers} if self.coplayers else {})}

    def finished_policy(self, folder: Path, index: int) -> Path:
        """Training seed ``index``'s final policy file; a TrainingError if unfinished."""
        path = policy_path(folder, index)
        done = updates_done(folder)
        if done:
            write_definition(self, folder)  # a TrainingError if the folder holds another
        saved = int(read_policy_file(path).get("updates", -1)) if path.exists() else -1
        if done < self.updates or saved != self.updates:
            raise TrainingError(f"training {self.name!r}: {done} of {self.updates} updates "
                                f"done in {folder}"
                                + (f" (seed {index}'s policy file is of update {saved})"
                                   if done == self.updates else "")
                                + ": run `dilemmas train` first")
        return path


def policy_path(folder: Path, index: int) -> Path:
    return Path(folder) / f"seed-{index}" / "policy.npz"


def checkpoint_path(folder: Path) -> Path:
    return Path(folder) / "checkpoint.npz"


def updates_done(folder: Path) -> int:
    """Updates the folder's checkpoint holds (0 without one)."""
    path = checkpoint_path(folder)
    if not path.exists():
        return 0
    try:
        with np.load(path, allow_pickle=False) as data:
            return int(data["updates"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise TrainingError(f"checkpoint {str(path)!r} cannot be used ({error}); remove it "
                            "to train from the start") from None


# --- Checkpoints -----------------------------------------------------------------------------
def save_checkpoint(folder: Path, runners, updates: int) -> None:
    import equinox as eqx
    import jax

    leaves = jax.tree_util.tree_leaves(eqx.filter(runners, eqx.is_array))
    buffer = io.BytesIO()
    np.savez(buffer, updates=np.int64(updates),
             **{f"leaf{k}": np.asarray(leaf) for k, leaf in enumerate(leaves)})
    write_atomic(checkpoint_path(folder), buffer.getvalue())


def load_checkpoint(folder: Path, skeleton):
    """The runners of the folder's checkpoint, laid out as ``skeleton`` (fresh runners of the
    same training); a TrainingError names what does not fit."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    arrays, static = eqx.partition(skeleton, eqx.is_array)
    leaves, tree = jax.tree_util.tree_flatten(arrays)
    path = checkpoint_path(folder)
    try:
        with np.load(path, allow_pickle=False) as data:
            saved = [data[f"leaf{k}"] for k in range(len(leaves)) if f"leaf{k}" in data.files]
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise TrainingError(f"checkpoint {str(path)!r} cannot be used ({error}); remove it "
                            "to train from the start") from None
    if len(saved) != len(leaves) or any(a.shape != b.shape or a.dtype != b.dtype
                                        for a, b in zip(saved, leaves)):
        raise TrainingError(f"checkpoint {str(path)!r} does not fit this training's networks "
                            "and episodes; remove it to train from the start")
    return eqx.combine(jax.tree_util.tree_unflatten(tree, [jnp.asarray(a) for a in saved]),
                       static)


def save_policies(folder: Path, training: DeepTraining, runners, updates: int) -> None:
    """Each seed's actor as its policy file; none written, and a TrainingError naming the
    seeds, if any seed's weights are not finite (the training diverged)."""
    import jax

    def played(actor):
        return NetworkPolicy(network_arrays(actor), training.game)

    def taken(tree, index):
        return jax.tree_util.tree_map(lambda leaf: leaf[index], tree)

    share = training.settings().share
    seats = 1 if share else training.learning_seats
    policies = []
    for index in range(training.seeds):
        actor = taken(runners.actor, index)
        if share:
            policies.append(played(actor))
        else:  # the seats' own networks, in seat order
            policies.append(SeatedPolicy([(played(taken(actor, seat)), 1)
                                          for seat in range(seats)], training.game))
    diverged = [index for index, policy in enumerate(policies)
                if not all(np.isfinite(array).all() for array in policy.arrays().values()
                           if np.asarray(array).dtype.kind == "f")]
    if diverged:
        raise TrainingError(
            f"training {str(folder)!r}: the weights of seed{'s' * (len(diverged) > 1)} "
            f"{', '.join(map(str, diverged))} are not finite after {updates} "
            f"update{'s' * (updates != 1)} (the "
            "training diverged), so no policy file was written; lower [ppo] learning_rate or "
            "max_grad_norm and train in a fresh folder")
    for index, policy in enumerate(policies):
        save_policy(policy_path(folder, index), policy, updates=np.int64(updates))


# --- Training --------------------------------------------------------------------------------
def train(training: DeepTraining, out="results/training", *, progress=True) -> TrainingReport:
    """Train every seed of ``training`` to its last update, resuming from the checkpoint,
    and draw the learning curve (module docstring)."""
    folder = folder_of(training, out)
    with manifest.writing(folder):
        return _train(training, folder, progress)


def _train(training: DeepTraining, folder: Path, progress: bool) -> TrainingReport:
    write_definition(training, folder)
    for index in range(training.seeds):
        (folder / f"seed-{index}").mkdir(exist_ok=True)
    done = updates_done(folder)
    for stale in [*folder.glob(".*.tmp"), *folder.glob("seed-*/.*.tmp")]:
        stale.unlink()
    for curve in folder.glob("curve-*.parquet"):  # beyond the checkpoint
        if int(curve.stem.split("-")[1]) >= done:
            curve.unlink()
    for evaluation in folder.glob("evaluation-*.parquet"):
        if int(evaluation.stem.split("-")[1]) > done:
            evaluation.unlink()
    trainer = training.trainer()
    runners = trainer.start(training.keys())
    if done:
        runners = load_checkpoint(folder, runners)
    every = training.evaluate.get("every")
    report = TrainingReport(folder, training.seeds, episodes_before=done)
    bar = Progress(total=training.updates, initial=done, unit="update", desc=training.name,
                   disable=not progress)
    try:
        while done < training.updates:
            count = min(training.checkpoint_every, training.updates - done,
                        every - done % every if every else training.updates)
            runners, metrics = trainer.chunk(runners, count)
            write_atomic(folder / f"curve-{done:09d}.parquet",
                         parquet_bytes(_curve_rows(training, trainer, metrics, done)))
            done += count
            if every and done % every == 0:
                write_atomic(folder / f"evaluation-{done:09d}.parquet",
                             parquet_bytes(evaluate(training, trainer, runners, done)))
            save_checkpoint(folder, runners, done)
            save_policies(folder, training, runners, done)
            bar.update(count)
            report.episodes_played += count
    finally:
        bar.close()
    save_policies(folder, training, runners, done)  # again: a kill may have come before them
    learning_curve_figure(folder, returns=curves(folder), x="update",
                          greedy=evaluations(folder))
    return report


def evaluate(training: DeepTraining, trainer, runners, update: int) -> pa.Table:
    """Every seed's actor after ``update`` updates played greedily (module docstring,
    ``evaluation-<update>.parquet``), one row per seed."""
    import jax

    keys = np.stack([np.asarray(jax.random.fold_in(key, update)) for key in training.keys()])
    defaults = GAMES[training.game].parameters.defaults()
    rounds = {**defaults, **training.parameters}["max_steps"]
    metrics = trainer.evaluate(runners, keys, training.evaluate.get("episodes", 100), rounds)
    columns = {"replicate": np.arange(training.seeds),
               "update": np.full(training.seeds, update),
               "play": np.full(training.seeds, "greedy")}
    columns.update({name: np.asarray(value) for name, value in metrics.items()})
    return pa.table(columns)


def evaluations(folder) -> pd.DataFrame:
    """Every evaluation row of a deep training folder (empty without ``[evaluate] every``),
    by seed and update."""
    files = sorted(Path(folder).glob("evaluation-*.parquet"))
    if not files:
        return pd.DataFrame(columns=["replicate", "update", "play", "episodes",
                                     "learner_return", "objective_return"])
    rows = pd.concat([pq.read_table(path).to_pandas() for path in files], ignore_index=True)
    return rows.sort_values(["replicate", "update"], ignore_index=True)


def _curve_rows(training, trainer, metrics: dict, done: int) -> pa.Table:
    values = {name: np.asarray(value) for name, value in metrics.items()}
    seeds, count = values["episodes"].shape
    settings = trainer.settings
    update = np.tile(np.arange(done + 1, done + count + 1), seeds)
    columns = {"replicate": np.repeat(np.arange(seeds), count), "update": update,
               "agent_steps": update * settings.steps * settings.envs * len(trainer.learners)}
    columns.update({name: value.reshape(-1) for name, value in values.items()})
    return pa.table(columns)


def curves(folder) -> pd.DataFrame:
    """Every curve row of a deep training folder, by seed and update."""
    files = sorted(Path(folder).glob("curve-*.parquet"))
    if not files:
        raise FileNotFoundError(f"no learning curves in {folder} (curve-*.parquet)")
    rows = pd.concat([pq.read_table(path).to_pandas() for path in files], ignore_index=True)
    return rows.sort_values(["replicate", "update"], ignore_index=True)
