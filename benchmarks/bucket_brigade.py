"""Nights per second for Bucket Brigade with ``random`` agents (spec contract, rule 8).

Plays whole episodes of the default scenario back to back in one process. ``nights/s`` counts
every night over the whole time, including building each model as a sweep does;
``steps only`` leaves the building out; ``build us`` is the mean time to build one model
(most of it Mesa's own ``Model.__init__``). Run: ``make bench`` or
``.venv/bin/python benchmarks/bucket_brigade.py [--seconds S]``.
"""

import argparse
import time

from models.bucket_brigade import BucketBrigadeModel


def measure(num_agents: int, collect_data: bool, seconds: float) -> dict:
    clock = time.perf_counter
    nights = episodes = 0
    building = stepping = 0.0
    while building + stepping < seconds:
        start = clock()
        model = BucketBrigadeModel(num_agents=num_agents, collect_data=collect_data,
                                   population="random", rng=episodes)
        built = clock()
        model.run_model()
        building += built - start
        stepping += clock() - built
        nights += model.night
        episodes += 1
    return {"nights/s": nights / (building + stepping), "steps only": nights / stepping,
            "build us": building / episodes * 1e6, "episodes": episodes}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    print(f"{'agents':>6} {'DataCollector':>13} {'nights/s':>9} {'steps only':>10} "
          f"{'build us':>8} {'episodes':>8}")
    for num_agents in (4, 10):
        for collect_data in (False, True):
            r = measure(num_agents, collect_data, args.seconds)
            print(f"{num_agents:>6} {'on' if collect_data else 'off':>13} "
                  f"{r['nights/s']:>9,.0f} {r['steps only']:>10,.0f} "
                  f"{r['build us']:>8,.0f} {r['episodes']:>8}")


if __name__ == "__main__":
    main()
