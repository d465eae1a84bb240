"""Nights per second for Bucket Brigade with ``random`` agents (spec contract, rule 8).

Plays whole episodes of the default scenario back to back in one process, N = 4 and 10,
with the DataCollector off and on. ``nights/s`` counts every night over the whole time,
including building each model as a sweep does; ``steps only`` leaves the building out;
``build us`` is the mean time to build one model (most of it Mesa's own
``Model.__init__``). Run: ``make bench`` or
``.venv/bin/python benchmarks/bucket_brigade.py [--seconds S]``.
"""

import argparse

from episodes import measure, print_table

from models.bucket_brigade import BucketBrigadeModel


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    rows = []
    for num_agents in (4, 10):
        for collect_data in (False, True):
            result = measure(
                lambda seed: BucketBrigadeModel(num_agents=num_agents, population="random",
                                                collect_data=collect_data, rng=seed),
                lambda model: model.night, args.seconds)
            label = f"{num_agents} agents, DataCollector {'on' if collect_data else 'off'}"
            rows.append((label, result))
    print_table("Bucket Brigade", "nights/s", rows)


if __name__ == "__main__":
    main()
