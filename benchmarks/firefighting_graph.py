"""Steps per second for the Firefighting Graph with ``random`` firefighters.

Plays whole episodes (cognac preset, up to 100 steps) back to back in one process and counts
every step over the whole time, including building each model (``steps only`` leaves the
building out): the row of 10, the 5 x 5
grid and the 50 x 50 grid (2,500 firefighters), with the DataCollector off and on. Run:
``make bench`` or ``.venv/bin/python benchmarks/firefighting_graph.py [--seconds S]``.
"""

import argparse
import time

from models.firefighting_graph import FirefightingGraphModel

LAYOUTS = {
    "row, 10 firefighters": dict(layout="row", n_agents=10),
    "grid 5 x 5": dict(layout="grid", n_width=5, n_height=5),
    "grid 50 x 50": dict(layout="grid", n_width=50, n_height=50),
}


def measure(parameters, collect_data, seconds):
    clock = time.perf_counter
    steps = episodes = 0
    building = stepping = 0.0
    while building + stepping < seconds:
        start = clock()
        model = FirefightingGraphModel(**parameters, collect_data=collect_data, rng=episodes)
        built = clock()
        model.run_model()
        building += built - start
        stepping += clock() - built
        steps += model.t
        episodes += 1
    return steps / (building + stepping), steps / stepping, episodes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    print(f"{'layout':<22} {'DataCollector':>13} {'steps/s':>9} {'steps only':>10} "
          f"{'episodes':>8}")
    for label, parameters in LAYOUTS.items():
        for collect_data in (False, True):
            rate, stepping_rate, episodes = measure(parameters, collect_data, args.seconds)
            print(f"{label:<22} {'on' if collect_data else 'off':>13} {rate:>9,.0f} "
                  f"{stepping_rate:>10,.0f} {episodes:>8}")


if __name__ == "__main__":
    main()
