"""The PettingZoo environments against their own models: rounds per second, side by side.

For each game with an environment interface, in one process, whole episodes with every
seat deciding at random, each model built as a sweep does, DataCollector off:

* ``model``: the model's own ``random`` behaviour;
* ``model+policy``: the model with every seat ``policy`` and a random policy, so every seat
  observes as an environment's agent does each round (the rules' observation, built by the
  model; in State Punishment and Stag Hunt most of the work);
* ``env``: the environment, ``reset`` and ``step`` with the same random choice of allowed
  actions, counted in the model's rounds (a Bucket Brigade night takes two steps).

``cost`` is the environment's cost over ``model+policy``, the model doing the same work:
``1 - env / model+policy``. The three are measured in turns, ``--repeats`` times each for
``--seconds`` (default 5 x 0.6 s), and each figure is the median of its repeats, so that the
machine's drift from second to second falls on all three alike. Run: ``make bench`` or
``.venv/bin/python benchmarks/env.py [--games NAME ...] [--seconds S] [--repeats N]
[--envs N]``.

For each game with a vectorised environment, a second line measures it
(``dilemmas.envs.vector``) on ``--envs`` episodes (default 1000), random allowed actions drawn
for all of them at once, measured in the same turns: ``env steps/s`` counts a
``step()`` of the ``--envs`` episodes as that many environment steps (comparable to the line
above), then the speed-up over it, then agent steps (x agents). The rows sitting out at the
end of a batch, and the step that starts a fresh one, count too: it is what a trainer gets.
"""

import argparse
import random
import time

import numpy as np

from dilemmas import GAMES, parallel_env
from dilemmas.envs.vector import vector_env


def chooser(seed=0):
    """A random allowed action of an observation (the same for the model and the env)."""
    draw = random.Random(seed).random

    def choose(observation) -> int:
        allowed = np.flatnonzero(observation["action_mask"])
        return int(allowed[int(draw() * len(allowed))])

    return choose


def model_rounds(game, seconds: float, **parameters) -> float:
    clock, rounds, start, seed = time.perf_counter, 0, time.perf_counter(), 0
    while clock() - start < seconds:
        model = game.model(**parameters, collect_data=False, rng=seed)
        model.run_model()
        rounds, seed = rounds + model.steps, seed + 1
    return rounds / (clock() - start)


def env_rounds(game, seconds: float) -> tuple[float, float]:
    env, choose = parallel_env(game.name, collect_data=False), chooser()
    clock, rounds, steps, start, seed = time.perf_counter, 0, 0, time.perf_counter(), 0
    while clock() - start < seconds:
        observations, _ = env.reset(seed=seed)
        while env.agents:
            observations, *_ = env.step({agent: choose(observation)
                                         for agent, observation in observations.items()})
            steps += 1
        rounds, seed = rounds + env.model.steps, seed + 1
    elapsed = clock() - start
    return rounds / elapsed, steps / elapsed


def vector_steps(game, seconds: float, envs: int) -> tuple[float, int]:
    """Environment steps (one per episode per ``step()``) per second of the vectorised
    environment with random allowed actions, and its number of agents."""
    env, draw = vector_env(game.name, envs, seed=0), np.random.default_rng(0).random
    observations, _ = env.reset()
    clock, steps, start = time.perf_counter, 0, time.perf_counter()
    while clock() - start < seconds:
        observations, *_ = env.step({
            agent: np.argmax(draw(o["action_mask"].shape) * o["action_mask"], axis=1)
            for agent, o in observations.items()})
        steps += envs
    return steps / (clock() - start), len(env.agents)


def main():
    parser = argparse.ArgumentParser(description="PettingZoo environments against their "
                                     "own models, rounds per second")
    names = [name for name, game in GAMES.items() if game.interface is not None]
    parser.add_argument("--games", nargs="+", choices=names, default=names)
    parser.add_argument("--seconds", type=float, default=0.6, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="measurements of each")
    parser.add_argument("--envs", type=int, default=1000, help="episodes of the vectorised "
                        "environment")
    args = parser.parse_args()
    print(f"{'rounds/s, DataCollector off':<28} {'model':>8} {'model+policy':>12} {'env':>8} "
          f"{'env steps/s':>11} {'cost':>5}")
    for name in args.games:
        game, runs, vectorised_runs = GAMES[name], [], []
        for _ in range(args.repeats):
            runs.append((model_rounds(game, args.seconds, population="random"),
                         model_rounds(game, args.seconds, population="policy",
                                      policy=chooser()),
                         *env_rounds(game, args.seconds)))
            if game.batch is not None:
                vectorised_runs.append(vector_steps(game, args.seconds, args.envs))
        alone, observing, env, steps = np.median(runs, axis=0)
        print(f"{game.title:<28} {alone:>8,.0f} {observing:>12,.0f} {env:>8,.0f} "
              f"{steps:>11,.0f} {1 - env / observing:>5.0%}", flush=True)
        if vectorised_runs:
            rate = np.median([rate for rate, _ in vectorised_runs])
            agents = vectorised_runs[0][1]
            print(f"{'  vectorised, ' + f'{args.envs:,} episodes':<28} {'':>8} {'':>12} "
                  f"{'':>8} {rate:>11,.0f} {rate / steps:>4.0f}x, "
                  f"{rate * agents:,.0f} agent steps/s", flush=True)

if __name__ == "__main__":
    main()
