"""Timing whole episodes, shared by the games' benchmark scripts (spec contract, rule 8)."""

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
