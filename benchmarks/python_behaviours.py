"""Behaviours written in Python: a study of them one model at a time against the same study in
blocks of the batch engine, for every game, side by side in one run.

For each game, each of its Python behaviours below (docs/how-to/add-a-behaviour.md's
examples, a subclass of a built-in that calls ``super()``, a fresh behaviour reading the
model) plays a study of ``--episodes`` episodes (replicates of one parameter set, model rows
of every round) through ``dilemmas.analysis.studies.runner.run_study`` on this process
(``backend="serial"``), pinned to one core: with ``engine="model"`` (one Mesa model after
another, as every study of a Python behaviour played before blocks) and with ``engine="auto"``
(blocks of the batch engine on numpy, the Python seats deciding episode by episode through
each episode's model, ``dilemmas.models.episode_models``). Each figure is episodes and
rounds per CPU-second (``time.process_time``: building the models, playing, and writing the
Parquet files included); ``speed-up`` is the blocks' over the models'. Beside them, the
references' one-episode speed with random agents: the earlier Bucket Brigade environment's
12,500 nights per CPU-second on this machine type (``benchmarks/env.py``; it is not on PyPI)
and cognac's Firefighting Graph row of 10, measured in this run where ``--cognac`` is given
(installed from PyPI into ``.bench/cognac`` by ``benchmarks/env.py``).

Run: ``.venv/bin/python benchmarks/python_behaviours.py [--episodes N] [--cpu C]
[--games G ...] [--cognac]``.
"""

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from dilemmas import GAMES
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study


def bucket_brigade():
    from dilemmas.agents.bucket_brigade import BucketBrigadeAgent, FirefighterAgent
    from dilemmas.models.bucket_brigade.rules import REST, WORK

    page = (Path(__file__).parents[1] / "docs/how-to/add-a-behaviour.md").read_text()
    namespace = {"__name__": "how_to"}
    exec(re.findall(r"```\{code-cell\}\n(.*?)```", page, re.S)[0], namespace)
    HomeGuard = namespace["HomeGuard"]  # docs/how-to/add-a-behaviour.md

    class Doubtful(FirefighterAgent):
        """A firefighter that, one night in ten, signals the opposite (``super()``)."""
        behaviour = "doubtful_firefighter"

        def choose_signal(self):
            signal = super().choose_signal()
            if self.model.random.random() < 0.1:
                return REST if signal == WORK else WORK
            return signal

    class Follower(BucketBrigadeAgent):
        """Works where seat 0 stands when seat 0 signalled WORK tonight."""
        behaviour = "follower"

        def choose_signal(self):
            return self.model.seats[0].signal or REST

        def choose_action(self):
            seen = self.model.observation
            if seen.signals[0] == WORK:
                return seen.locations[0], WORK
            return seen.locations[self.seat], REST

    return [(HomeGuard, "home_guard:2,free_rider:2"),
            (Doubtful, "doubtful_firefighter:2,free_rider:2"),
            (Follower, "firefighter:1,follower:3")]


def state_punishment():
    from dilemmas.agents.state_punishment import GreedyForagerAgent, StatePunishmentAgent

    class Voter(GreedyForagerAgent):
        """A greedy forager that votes to punish one turn in five (``super()`` otherwise)."""
        behaviour = "voting_forager"

        def choose_action(self):
            if self.model.random.random() < 0.2 and "vote_increase" in self.model.action_names:
                return "vote_increase"
            return super().choose_action()

    class Wanderer(StatePunishmentAgent):
        behaviour = "wanderer"

        def choose_action(self):
            return self.model.random.choice(self.model.action_names)

    return [(Voter, "voting_forager:2,greedy_forager:1"), (Wanderer, "wanderer:1,civic_voter:2")]


def stag_hunt():
    from dilemmas.agents.stag_hunt import HareHunterAgent, StagHuntAgent
    from dilemmas.models.stag_hunt.rules import NOOP

    class LazyHareHunter(HareHunterAgent):  # docs/how-to/add-a-behaviour.md
        behaviour = "lazy_hare_hunter"

        def choose_action(self):
            return NOOP if self.model.turn % 2 else super().choose_action()

    class Shuffler(StagHuntAgent):
        """Moves at random while another hunter is on the grid."""
        behaviour = "shuffler"

        def choose_action(self):
            others = [a for a in self.model.seats if a is not self and a.cell is not None]
            return self.model.random.randrange(9) if others else NOOP

    return [(LazyHareHunter, "lazy_hare_hunter:2,stag_hunter:1"),
            (Shuffler, "shuffler:1,cooperator:2")]


def firefighting_graph():
    from dilemmas.agents.firefighting_graph import BeliefTrackerAgent, FirefighterAgent

    class Doubter(BeliefTrackerAgent):
        """A belief tracker that, one step in ten, goes to the other house (``super()``)."""
        behaviour = "doubter"

        def choose_action(self):
            chosen = super().choose_action()
            return chosen if self.model.random.random() < 0.9 else 1 - chosen

    class Hotter(FirefighterAgent):
        """Goes to the hotter of its two houses, as the fire layer shows them."""
        behaviour = "hotter"

        def choose_action(self):
            levels = self.model.levels.reshape(-1)
            left, right = self.model.guarded[self.seat]
            return int(levels[right] > levels[left])

    return [(Doubter, "doubter:5,random:5"), (Hotter, "hotter:5,fixed0:5")]


BEHAVIOURS = {"bucket_brigade": bucket_brigade, "state_punishment": state_punishment,
              "stag_hunt": stag_hunt, "firefighting_graph": firefighting_graph}


def played(game: str, population: str, engine: str, episodes: int) -> tuple[float, int]:
    """``(CPU seconds, rounds)`` of a study of ``episodes`` episodes of ``population``."""
    study = Study(game=game, name="python", engine=engine, replicates=episodes,
                  fixed={"population": population})
    assert study.batch == (engine == "auto"), study.off_engine
    with tempfile.TemporaryDirectory() as folder:
        start = time.process_time()
        report = run_study(study, folder, backend="serial", progress=False)
        seconds = time.process_time() - start
        assert report.failed == [] and report.played == episodes
        from dilemmas.analysis.studies.results import load

        rounds = int((load(Path(folder) / "python")["Step"] > 0).sum())
    return seconds, rounds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--cpu", type=int, default=0)
    parser.add_argument("--games", nargs="+", default=list(BEHAVIOURS))
    parser.add_argument("--cognac", action="store_true",
                        help="measure cognac's Firefighting Graph row of 10 in this run")
    args = parser.parse_args()
    os.sched_setaffinity(0, {args.cpu})
    print(f"one core (cpu {args.cpu}); a study of {args.episodes:,} episodes per row, "
          "serial, per CPU-second (building, playing and writing included)")
    if args.cognac:
        sys.path.insert(0, str(Path(__file__).parent))
        from env import cognac_steps

        steps = cognac_steps(3.0, args.cpu)
        print(f"references, one episode at a time, random agents: cognac Firefighting Graph "
              f"row of 10 {steps:,.0f} steps; the earlier Bucket Brigade 12,500 nights")
    else:
        print("references, one episode at a time, random agents: the earlier Bucket Brigade "
              "12,500 nights (benchmarks/env.py --sections 1 measures cognac's)")
    print(f"\n{'behaviour (population)':52} {'one model at a time':>22} {'in blocks':>22} "
          f"{'speed-up':>9}")
    for game in args.games:
        print(GAMES[game].title)
        for cls, population in BEHAVIOURS[game]():
            GAMES[game].behaviours[cls.behaviour] = cls
            rates = []
            for engine in ("model", "auto"):
                seconds, rounds = played(game, population, engine, args.episodes)
                rates.append((args.episodes / seconds, rounds / seconds))
            (model_eps, model_rounds), (block_eps, block_rounds) = rates
            print(f"  {population:50} {model_eps:7,.0f} ep {model_rounds:8,.0f} r/s "
                  f"{block_eps:7,.0f} ep {block_rounds:8,.0f} r/s {block_eps / model_eps:8.1f}x")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
