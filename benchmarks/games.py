"""Rounds per second of every registered game with ``random`` agents (docs/rules/README.md,
rule 8).

For each game, each configuration its registration lists (``Game.benchmarks``) plays whole
episodes back to back in one process, with the DataCollector off and on (a configuration
that has every agent build its observation on every action: off only). ``<round>s/s``
counts every round over the whole time, including building each model as a sweep does;
``steps only`` leaves the building out; ``build us`` is the mean time to build one model
(most of it Mesa's own ``Model.__init__`` and grid). ``random`` agents never ask for an
observation, so the observing configurations use a benchmark-only behaviour that builds one
before each decision and then decides as ``random``.

Run: ``make bench`` or ``.venv/bin/python benchmarks/games.py [--games NAME ...]
[--seconds S]``.
"""

import argparse
import time

from dilemmas import GAMES
from dilemmas.models.phases import AgentPhase


def measure(build, seconds: float) -> dict:
    """Build (``build(seed)``) and play episodes back to back for about ``seconds``: rounds
    per second over the whole time and over the stepping only, the mean build time in
    microseconds and the number of episodes."""
    clock = time.perf_counter
    played = episodes = 0
    building = stepping = 0.0
    while building + stepping < seconds:
        start = clock()
        model = build(episodes)
        built = clock()
        model.run_model()
        building += built - start
        stepping += clock() - built
        played += model.steps
        episodes += 1
    return {"per_s": played / (building + stepping), "steps_only": played / stepping,
            "build_us": building / episodes * 1e6, "episodes": episodes}


def observing_behaviour(game) -> str:
    """Add to ``game.behaviours``, for this benchmark process only, a behaviour that calls
    ``observe()`` before each of its decisions and then decides as ``random``; return its
    name."""
    decisions = {phase.method for phase in game.model.phases if isinstance(phase, AgentPhase)}

    def observing(method):
        def decide(self):
            self.observe()
            return getattr(super(type(self), self), method)()
        return decide

    name = "observing_random"
    game.behaviours.setdefault(name, type(
        "ObservingRandomAgent", (game.behaviours["random"],),
        {"behaviour": name, **{method: observing(method) for method in decisions}}))
    return name


def table(game, seconds: float) -> list[str]:
    unit = f"{game.round}s/s"
    lines = [f"{game.title:<44} {unit:>9} {'steps only':>10} {'build us':>8} {'episodes':>8}"]
    for benchmark in game.benchmarks:
        population = observing_behaviour(game) if benchmark.observe else "random"
        for collect_data in (False,) if benchmark.observe else (False, True):
            r = measure(lambda seed: game.model(**benchmark.parameters, population=population,
                                                collect_data=collect_data, rng=seed), seconds)
            label = f"{benchmark.label}, DataCollector {'on' if collect_data else 'off'}"
            lines.append(f"{label:<44} {r['per_s']:>9,.0f} {r['steps_only']:>10,.0f} "
                         f"{r['build_us']:>8,.0f} {r['episodes']:>8}")
    return lines


def main():
    parser = argparse.ArgumentParser(description="Rounds per second of every registered "
                                     "game with random agents")
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES),
                        help="games to measure (default: every registered game)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    for name in args.games:
        print("\n".join(table(GAMES[name], args.seconds)), flush=True)


if __name__ == "__main__":
    main()
