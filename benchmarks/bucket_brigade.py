"""Nights per second for Bucket Brigade with ``random`` agents (spec contract, rule 8).

Plays whole episodes back to back, one process, and counts every night played; the time
includes building each model, as in a sweep. Run: ``make bench`` or
``.venv/bin/python benchmarks/bucket_brigade.py [--seconds S]``.
"""

import argparse
import time

from models.bucket_brigade import BucketBrigadeModel


def nights_per_second(num_agents: int, collect_data: bool, seconds: float) -> tuple[float, int]:
    nights, seed = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        model = BucketBrigadeModel(num_agents=num_agents, collect_data=collect_data, rng=seed)
        model.run_model()
        nights += model.night
        seed += 1
    return nights / (time.perf_counter() - start), seed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    print(f"{'agents':>6} {'DataCollector':>13} {'nights/s':>10} {'episodes':>9}")
    for num_agents in (4, 10):
        for collect_data in (False, True):
            rate, episodes = nights_per_second(num_agents, collect_data, args.seconds)
            print(f"{num_agents:>6} {'on' if collect_data else 'off':>13} {rate:>10,.0f} {episodes:>9}")


if __name__ == "__main__":
    main()
