"""CPU time of the ``dilemmas`` command's quick answers: ``--help``, ``games``, ``games GAME``
and ``scenarios``, beside ``python -c pass`` (the interpreter alone) and ``import mesa``.

Each command runs ``--repeats`` times (default 5) as a fresh process; the table gives the
median and the smallest user + system CPU seconds of the child (``resource`` of the
children), so a loaded machine changes little. ``dilemmas --help`` and ``dilemmas games``
import no Mesa, pandas or JAX (``dilemmas.games`` registers the games by reference).
Run: ``.venv/bin/python benchmarks/cli.py [--repeats N]``.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

COMMAND = str(Path(sys.executable).parent / "dilemmas")
CASES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import mesa'": [sys.executable, "-c", "import mesa"],
    "dilemmas --help": [COMMAND, "--help"],
    "dilemmas games": [COMMAND, "games"],
    "dilemmas games stag_hunt": [COMMAND, "games", "stag_hunt"],
    "dilemmas scenarios": [COMMAND, "scenarios"],
}


def cpu_seconds(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"CPU seconds per command (user + system), {args.repeats} runs each, "
          f"{os.cpu_count()} cores")
    print(f"{'command':<28} {'median':>8} {'least':>8}")
    for label, command in CASES.items():
        times = [cpu_seconds(command) for _ in range(args.repeats)]
        print(f"{label:<28} {statistics.median(times):>8.3f} {min(times):>8.3f}")


if __name__ == "__main__":
    main()
