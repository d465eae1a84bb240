"""What a built-in behaviour's array form costs on the one-episode Mesa model, beside its
Python form, where a game still has both (docs/explanation/speed.md).

For each game and each built-in behaviour that decides on arrays, whole episodes of that
behaviour in every seat (``collect_data=False``, a new model per episode) are played back to
back in one process: as the built-in (its own Python decision methods, where it has them), and
as a subclass that keeps only its ``batch_decide``, whose decision methods then come from the
array form on the model's one episode (``dilemmas.agents.decisions``). Rounds per second of
each and their ratio (array over Python). A game whose built-ins are written only as arrays
(the Firefighting Graph) shows the same form twice. Pin the process to one core.

Run: ``taskset -c 0 .venv/bin/python benchmarks/behaviour_forms.py [--seconds S]
[--games NAME ...]``.
"""

import argparse
import time

from dilemmas import GAMES
from dilemmas.models.batch import decides_on_arrays


def rate(game, population: str, seconds: float) -> float:
    """Rounds per second of whole episodes of ``population``, models built included."""
    clock, played, seed = time.perf_counter, 0, 0
    start = clock()
    while clock() - start < seconds:
        model = game.model(population=population, rng=seed, collect_data=False)
        model.run_model()
        played, seed = played + model.steps, seed + 1
    return played / (clock() - start)


def array_only(behaviour: type) -> type:
    """A subclass of ``behaviour`` with its ``batch_decide`` and nothing else of its own."""
    owner = next(cls for cls in behaviour.__mro__ if "batch_decide" in vars(cls))
    return type(f"ArrayOnly{behaviour.__name__}", (behaviour,),
                {"behaviour": "array_only", "batch_decide": vars(owner)["batch_decide"]})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--games", nargs="+", choices=list(GAMES),
                        default=["bucket_brigade", "state_punishment", "stag_hunt",
                                 "firefighting_graph"])
    args = parser.parse_args()
    print(f"{'one core, rounds/s':<42} {'Python':>9} {'arrays':>9} {'ratio':>6}")
    for name in args.games:
        game = GAMES[name]
        for behaviour, cls in list(game.behaviours.items()):
            if not decides_on_arrays(cls):
                continue
            game.behaviours["array_only"] = array_only(cls)
            try:
                python = rate(game, behaviour, args.seconds)
                arrays = rate(game, "array_only", args.seconds)
            finally:
                del game.behaviours["array_only"]
            print(f"{game.title + ', ' + behaviour:<42} {python:>9,.0f} {arrays:>9,.0f} "
                  f"{arrays / python:>6.2f}")


if __name__ == "__main__":
    main()
