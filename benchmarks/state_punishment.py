"""Turns per second for State Punishment with 3 ``random`` agents on the default grid.

Plays whole 100-turn episodes back to back in one process and counts every turn over the
whole time, including building each model (``steps only`` leaves the building out). Three
configurations: DataCollector off, on, and off with every agent building its observation on
every action (``random`` agents never ask for one, so a benchmark-only behaviour does).
Run: ``make bench`` or ``.venv/bin/python benchmarks/state_punishment.py [--seconds S]``.
"""

from episodes import random_and_observing

from agents.state_punishment import BEHAVIOURS, RandomAgent
from models.state_punishment import StatePunishmentModel

if __name__ == "__main__":
    random_and_observing("State Punishment (3 agents, 10 x 10)", StatePunishmentModel,
                         RandomAgent, BEHAVIOURS, lambda model: model.turn,
                         __doc__.splitlines()[0])
