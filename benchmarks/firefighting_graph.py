"""Steps per second for the Firefighting Graph with ``random`` firefighters.

Plays whole episodes (cognac preset, up to 100 steps) back to back in one process and counts
every step over the whole time, including building each model (``steps only`` leaves the
building out), for the row of 10, the 5 x 5 grid and the 50 x 50 grid (2,500 firefighters),
with the DataCollector off and on. Run: ``make bench`` or
``.venv/bin/python benchmarks/firefighting_graph.py [--seconds S]``.
"""

import argparse

from episodes import measure, print_table

from models.firefighting_graph import FirefightingGraphModel

LAYOUTS = {
    "row, 10 firefighters": dict(layout="row", n_agents=10),
    "grid 5 x 5": dict(layout="grid", n_width=5, n_height=5),
    "grid 50 x 50": dict(layout="grid", n_width=50, n_height=50),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    rows = []
    for label, parameters in LAYOUTS.items():
        for collect_data in (False, True):
            result = measure(
                lambda seed: FirefightingGraphModel(**parameters, collect_data=collect_data,
                                                    rng=seed),
                lambda model: model.t, args.seconds)
            rows.append((f"{label}, DataCollector {'on' if collect_data else 'off'}", result))
    print_table("Firefighting Graph", "steps/s", rows)


if __name__ == "__main__":
    main()
