"""Turns per second for State Punishment with 3 ``random`` agents on the default grid.

Plays whole 100-turn episodes back to back in one process and counts every turn over the
whole time, including building each model. Three configurations: DataCollector off, on,
and off with every agent building its observation on every action (``random`` agents never
ask for one, so a benchmark-only behaviour does). Run: ``make bench`` or
``.venv/bin/python benchmarks/state_punishment.py [--seconds S]``.
"""

import argparse
import time

from agents.state_punishment import BEHAVIOURS, RandomAgent
from models.state_punishment import StatePunishmentModel


class ObservingRandomAgent(RandomAgent):
    """Builds its observation, then acts uniformly at random (benchmark only)."""

    behaviour = "observing_random"

    def choose_action(self):
        self.observe()
        return super().choose_action()


BEHAVIOURS.setdefault(ObservingRandomAgent.behaviour, ObservingRandomAgent)


def turns_per_second(population, collect_data, seconds):
    turns = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        model = StatePunishmentModel(population=population, collect_data=collect_data,
                                     rng=episodes)
        model.run_model()
        turns += model.turn
        episodes += 1
    return turns / (time.perf_counter() - start), episodes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    print(f"{'configuration':<34} {'turns/s':>8} {'episodes':>8}")
    for label, population, collect_data in (
            ("random, DataCollector off", "random", False),
            ("random, DataCollector on", "random", True),
            ("observing every action, DC off", "observing_random", False)):
        rate, episodes = turns_per_second(population, collect_data, args.seconds)
        print(f"{label:<34} {rate:>8,.0f} {episodes:>8}")


if __name__ == "__main__":
    main()
