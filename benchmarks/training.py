"""Training speed: rounds per second of each game with each tabular and linear learner, and
agent-steps per second of each deep learner, as ``dilemmas train`` plays them.

For each example training file (``src/dilemmas/examples/training/<game>.toml``: its game, parameters and
population) and each learner (``q_learning``, ``linear_q`` in the learning seats), whole
episodes with one learner carried across them at ``epsilon = 0.1``, each model built as a
training builds it. ``collect on``: with the DataCollector, as ``dilemmas train`` runs (it
keeps every round for the learning curves); ``collect off``: without it. ``decisions/s``
counts the learning seats' decisions (seats x rounds x deciding phases; each an observation,
a feature or vector, an update and a choice). Each figure is the median of ``--repeats``
runs of ``--seconds`` (default 3 x 1 s). Run: ``make bench`` or
``.venv/bin/python benchmarks/training.py``.

Deep learners (``--deep``): each example deep training file (``<game>_ippo.toml``,
``<game>_mappo.toml``) with one training seed, its network and PPO settings: updates timed on
the wall clock after the program is compiled (``block_until_ready``; a timing raises if JAX
compiled anything inside it, ``compiles.no_compiles``), agent-steps =
updates x ``steps`` x ``envs`` x learning seats (each an observation, a forward pass of
actor and critic, the environment's step, and its share of the epochs of backward passes
and Adam steps). ``--cpu C`` pins the process to C cores (default 1) before JAX starts; the
JAX device is printed (a GPU where the CUDA plugin is installed; ``--cpu`` then pins only
the host).
"""

import argparse
import dataclasses
import os
import statistics
import time
from pathlib import Path

from compiles import no_compiles
from dilemmas.analysis.learning.training import Training
from dilemmas.learning.training_file import read_training
from dilemmas.models.learners import LEARNERS

ROOT = Path(__file__).resolve().parents[1]


def rounds_per_second(training: Training, behaviour: str, collect: bool,
                      seconds: float) -> tuple[float, float]:
    """Rounds and learning-seat decisions per second over whole episodes."""
    population = training.population.replace(training.learning_behaviour, behaviour)
    parameters = {**training.parameters, "population": population}
    model = training.model(rng=0, collect_data=False)
    learner = LEARNERS[behaviour].fresh(model)
    game = model.game.model
    rounds = decisions = episode = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        model = game(**parameters, learner=learner, rng=episode, collect_data=collect)
        seats = model.learning_seats()
        model.run_model()
        rounds += model.steps
        decisions += len(seats) * model.steps * len(model.game.interface.phases)
        episode += 1
    elapsed = time.perf_counter() - start
    return rounds / elapsed, decisions / elapsed


def deep_speed(training, updates: int, repeats: int) -> tuple[float, float]:
    """``(agent-steps per second, compile seconds)`` of ``training``'s PPO, one seed."""
    import jax

    trainer = training.trainer()
    runners = trainer.start(training.keys()[:1])
    start = time.perf_counter()
    runners, metrics = trainer.chunk(runners, updates)
    jax.block_until_ready(metrics)
    compiled = time.perf_counter() - start
    rates = []
    for _ in range(repeats):  # on the runners chunk returns, as compiled above
        with no_compiles(f"{training.algorithm} of {training.game}"):
            start = time.perf_counter()
            runners, metrics = trainer.chunk(runners, updates)
            jax.block_until_ready(metrics)
            settings = trainer.settings
            steps = updates * settings.steps * settings.envs * trainer.seats
            rates.append(steps / (time.perf_counter() - start))
    return statistics.median(rates), compiled


def deep(args) -> None:
    import jax

    from dilemmas.learning.deep import DeepTraining

    print(f"JAX device: {jax.devices()[0].device_kind} ({jax.devices()[0].platform}); "
          f"{len(os.sched_getaffinity(0))} CPU core(s)")
    print(f"{'deep training file':<28} {'algorithm':>9} {'network':>7} {'seats':>5} "
          f"{'envs x steps':>12} {'agent-steps/s':>14} {'compile s':>9}")
    for path in sorted((ROOT / "src" / "dilemmas" / "examples" / "training").glob("*.toml")):
        training = read_training(path)
        if not isinstance(training, DeepTraining) or not path.stem.startswith(args.files):
            continue
        for envs in args.envs or [training.settings().envs]:
            sized = dataclasses.replace(training, seeds=1, ppo={**training.ppo, "envs": envs})
            settings = sized.settings()
            rate, compiled = deep_speed(sized, args.updates, args.repeats)
            print(f"{path.stem:<28} {training.algorithm:>9} {settings.network:>7} "
                  f"{training.learning_seats:>5} {f'{settings.envs} x {settings.steps}':>12} "
                  f"{rate:>14,.0f} {compiled:>9.1f}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--deep", action="store_true", help="the deep learners only")
    parser.add_argument("--updates", type=int, default=5, help="updates per deep timing")
    parser.add_argument("--cpu", type=int, default=1, help="cores for the deep learners")
    parser.add_argument("--envs", type=lambda text: [int(n) for n in text.split(",")],
                        help="parallel episodes per seed to time each deep file at")
    parser.add_argument("--files", type=lambda text: tuple(text.split(",")), default=("",),
                        help="the deep files whose names start with one of these")
    args = parser.parse_args(argv)
    if args.deep:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:args.cpu])
        deep(args)
        return
    print(f"{'training file, learner':<38} {'rounds/s':>10} {'rounds/s':>10} "
          f"{'decisions/s':>12}")
    print(f"{'':<38} {'collect on':>10} {'collect off':>10} {'collect on':>12}")
    for path in sorted((ROOT / "src" / "dilemmas" / "examples" / "training").glob("*.toml")):
        training = read_training(path)
        if not isinstance(training, Training):
            continue  # a deep learner's: --deep
        for behaviour in LEARNERS:
            on = [rounds_per_second(training, behaviour, True, args.seconds)
                  for _ in range(args.repeats)]
            off = [rounds_per_second(training, behaviour, False, args.seconds)
                   for _ in range(args.repeats)]
            print(f"{path.stem + ', ' + behaviour:<38} "
                  f"{statistics.median(r for r, _ in on):>10,.0f} "
                  f"{statistics.median(r for r, _ in off):>10,.0f} "
                  f"{statistics.median(d for _, d in on):>12,.0f}")


if __name__ == "__main__":
    main()
