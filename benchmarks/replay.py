"""How long the run viewer takes to show a batch-engine run as a world: its block played
again (``BatchEngine.replay``, one episode's state kept after every round) and that state
loaded into the game's Mesa model at every round (``BatchEngine.world``), as scrubbing from
the first round to the last does.

Blocks of 10 and 1,000 episodes of every game, ``max_steps = 30``, played on numpy round by
round (a block under ``dilemmas.models.batch.COMPILED_FROM`` episodes), then a compiled block
of 1,024 Firefighting Graph episodes twice: the first time includes compiling its program.
The replayed episode is the block's middle one. Run:
``.venv/bin/python benchmarks/replay.py``.
"""

import time

import numpy as np

from dilemmas import GAMES

CASES = [(name, episodes) for name in ("bucket_brigade", "state_punishment", "stag_hunt",
                                       "firefighting_graph") for episodes in (10, 1000)]
CASES += [("firefighting_graph", 1024)] * 2


def main():
    print(f"{'game':22}{'episodes':>9}{'rounds':>8}{'replay (s)':>12}{'load all (s)':>14}")
    for name, episodes in CASES:
        engine = GAMES[name].batch(episodes, np.random.default_rng([1, 2]), max_steps=30)
        start = time.perf_counter()
        states = engine.replay(episodes // 2)
        replayed = time.perf_counter()
        model = None
        for round_ in range(len(states)):
            model = engine.world(states, round_, model)
        loaded = time.perf_counter()
        print(f"{name:22}{episodes:>9,}{len(states) - 1:>8}{replayed - start:>12.3f}"
              f"{loaded - replayed:>14.3f}")


if __name__ == "__main__":
    main()
