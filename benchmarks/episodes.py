"""Timing whole episodes, shared by the games' benchmark scripts (spec contract, rule 8)."""

import argparse
import time


def measure(build, rounds, seconds: float) -> dict:
    """Build and play episodes back to back for about ``seconds``.

    ``build(seed)`` returns a new model, ``rounds(model)`` the rounds it played. Returns
    rounds per second over the whole time (``per_s``), over the stepping only
    (``steps_only``), the mean time to build a model in microseconds (``build_us``) and the
    number of episodes."""
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
        played += rounds(model)
        episodes += 1
    return {"per_s": played / (building + stepping), "steps_only": played / stepping,
            "build_us": building / episodes * 1e6, "episodes": episodes}


def print_table(label_heading, unit, rows):
    """One line per ``(label, result of measure)``."""
    print(f"{label_heading:<40} {unit:>9} {'steps only':>10} {'build us':>8} {'episodes':>8}")
    for label, r in rows:
        print(f"{label:<40} {r['per_s']:>9,.0f} {r['steps_only']:>10,.0f} "
              f"{r['build_us']:>8,.0f} {r['episodes']:>8}")


def observing_behaviour(random_cls, behaviours) -> str:
    """Register, for a benchmark only, a behaviour that builds its observation on every
    action and then acts as ``random_cls`` (``random`` agents never ask for one); returns its
    name for ``population``."""

    class ObservingRandomAgent(random_cls):
        behaviour = "observing_random"

        def choose_action(self):
            self.observe()
            return super().choose_action()

    behaviours.setdefault(ObservingRandomAgent.behaviour, ObservingRandomAgent)
    return ObservingRandomAgent.behaviour


def random_and_observing(title, model_cls, random_cls, behaviours, rounds, description):
    """The benchmark of a gridworld game: ``random`` agents with the DataCollector off and
    on, and observing agents with it off; ``--seconds`` per configuration."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    observing = observing_behaviour(random_cls, behaviours)
    rows = []
    for label, population, collect_data in (
            ("random, DataCollector off", "random", False),
            ("random, DataCollector on", "random", True),
            ("observing every action, DC off", observing, False)):
        result = measure(
            lambda seed: model_cls(population=population, collect_data=collect_data,
                                   rng=seed),
            rounds, args.seconds)
        rows.append((label, result))
    print_table(title, "turns/s", rows)
