"""Turns per second for Stag Hunt with 2 spawned ``random`` agents on the default map.

Plays whole 50-turn episodes back to back in one process and counts every turn over the
whole time, including building each model (``steps only`` leaves the building out). Three
configurations: DataCollector off, on, and off with every agent building its observation on
every action (``random`` agents never ask for one, so a benchmark-only behaviour does).
Run: ``make bench`` or ``.venv/bin/python benchmarks/stag_hunt.py [--seconds S]``.
"""

import argparse

from episodes import measure, print_table

from agents.stag_hunt import BEHAVIOURS, RandomAgent
from models.stag_hunt import StagHuntModel


class ObservingRandomAgent(RandomAgent):
    """Builds its observation, then acts uniformly at random (benchmark only)."""

    behaviour = "observing_random"

    def choose_action(self):
        self.observe()
        return super().choose_action()


BEHAVIOURS.setdefault(ObservingRandomAgent.behaviour, ObservingRandomAgent)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    rows = []
    for label, population, collect_data in (
            ("random, DataCollector off", "random", False),
            ("random, DataCollector on", "random", True),
            ("observing every action, DC off", "observing_random", False)):
        result = measure(
            lambda seed: StagHuntModel(population=population, collect_data=collect_data,
                                       rng=seed),
            lambda model: model.turn, args.seconds)
        rows.append((label, result))
    print_table("Stag Hunt (2 of 3 agents, 13 x 13)", "turns/s", rows)


if __name__ == "__main__":
    main()
