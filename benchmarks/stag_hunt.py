"""Turns per second for Stag Hunt with 2 spawned ``random`` agents on the default map.

Plays whole 50-turn episodes back to back in one process and counts every turn over the
whole time, including building each model (``steps only`` leaves the building out). Three
configurations: DataCollector off, on, and off with every agent building its observation on
every action (``random`` agents never ask for one, so a benchmark-only behaviour does).
Run: ``make bench`` or ``.venv/bin/python benchmarks/stag_hunt.py [--seconds S]``.
"""

from episodes import random_and_observing

from agents.stag_hunt import BEHAVIOURS, RandomAgent
from models.stag_hunt import StagHuntModel

if __name__ == "__main__":
    random_and_observing("Stag Hunt (2 of 3 agents, 13 x 13)", StagHuntModel, RandomAgent,
                         BEHAVIOURS, lambda model: model.turn, __doc__.splitlines()[0])
