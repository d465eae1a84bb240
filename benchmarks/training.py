"""Training speed: rounds per second of each game with each learner, as ``dilemmas train``
plays them.

For each example training file (``src/dilemmas/examples/training/<game>.toml``: its game, parameters and
population) and each learner (``q_learning``, ``linear_q`` in the learning seats), whole
episodes with one learner carried across them at ``epsilon = 0.1``, each model built as a
training builds it. ``collect on``: with the DataCollector, as ``dilemmas train`` runs (it
keeps every round for the learning curves); ``collect off``: without it. ``decisions/s``
counts the learning seats' decisions (seats x rounds x deciding phases; each an observation,
a feature or vector, an update and a choice). Each figure is the median of ``--repeats``
runs of ``--seconds`` (default 3 x 1 s). Run: ``make bench`` or
``.venv/bin/python benchmarks/training.py``.
"""

import argparse
import statistics
import time
from pathlib import Path

from dilemmas.analysis.learning.training import Training
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'training file, learner':<38} {'rounds/s':>10} {'rounds/s':>10} "
          f"{'decisions/s':>12}")
    print(f"{'':<38} {'collect on':>10} {'collect off':>10} {'collect on':>12}")
    for path in sorted((ROOT / "src" / "dilemmas" / "examples" / "training").glob("*.toml")):
        training = Training.from_file(path)
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
