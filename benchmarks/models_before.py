"""The one-episode Mesa models of this tree against those of an earlier commit, side by side.

Checks the commit out into a temporary git worktree, then runs ``benchmarks/games.py`` of
this tree and of that one in alternation (``--pairs`` times, each run its own process pinned
to one core, with this environment's packages and each tree's own ``src``), and prints for
every configuration the median rounds per second of each and their ratio (this tree over the
earlier one; above 1 is faster now). Each tree is run once untimed first, so that code an
earlier version compiles and caches on disk is not compiled inside a measurement.

Run: ``.venv/bin/python benchmarks/models_before.py COMMIT [--seconds S] [--pairs N]``.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^(\S.*?)\s{2,}([\d,]+)\s")


def measure(tree: Path, seconds: float) -> dict:
    """``games.py`` of ``tree`` on one core: configuration (game: label) -> rounds/s."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    out = subprocess.run(["taskset", "-c", "0", sys.executable, str(tree / "benchmarks/games.py"),
                          "--seconds", str(seconds)],
                         check=True, capture_output=True, text=True, env=env, cwd=tree).stdout
    rates, game = {}, ""
    for line in out.splitlines():
        if line and not line.startswith(" ") and "/s" in line:
            game = line.split("  ")[0]
            continue
        match = ROW.match(line)
        if match:
            rates[f"{game}: {match[1]}"] = float(match[2].replace(",", ""))
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the earlier commit")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per configuration")
    parser.add_argument("--pairs", type=int, default=3, help="runs of each tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        before = Path(folder) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(before), args.commit],
                       check=True, cwd=HERE)
        try:
            for tree in (before, HERE):  # compiled code cached on disk (Numba's), not timed
                measure(tree, 0.1)
            runs = {"before": [], "now": []}
            for _ in range(args.pairs):
                runs["before"].append(measure(before, args.seconds))
                runs["now"].append(measure(HERE, args.seconds))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=HERE)
    print(f"{'one core, rounds/s (median of ' + str(args.pairs) + ')':<62} {args.commit[:10]:>10} "
          f"{'now':>10} {'ratio':>6}")
    for name in runs["now"][0]:
        old = statistics.median(r[name] for r in runs["before"] if name in r)
        new = statistics.median(r[name] for r in runs["now"])
        print(f"{name:<62} {old:>10,.0f} {new:>10,.0f} {new / old:>6.2f}")


if __name__ == "__main__":
    main()
