"""Episodes per second of the sweep runner against ``mesa.batch_run``, and their peak memory.

The same Bucket Brigade study (default scenario, ``random``, model data of every night) is
played on the Mesa model (``engine = "model"``; ``benchmarks/engine.py`` measures the batch
engine) by ``dilemmas.analysis.studies.runner.run_study`` with 1 and 2 local workers and by ``mesa.batch_run``
with 1 and 2 processes, on the same seeds (the study's). Each configuration runs in a fresh
Python process, so the peak resident memory reported is its own: ``parent MB`` for the
process that holds the results (the runner writes them to disk, ``batch_run`` returns them
all), ``worker MB`` the largest worker. ``--episodes`` (default 1000) sets the size; the
runner's ``parent MB`` at 1,000 and 4,000 episodes shows whether it grows with the study.
Run: ``.venv/bin/python benchmarks/runner.py [--episodes N]``.
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time


def one(kind: str, workers: int, episodes: int) -> dict:
    from dilemmas.analysis.studies.runner import run_study
    from dilemmas.analysis.studies.study import Study
    from dilemmas import GAMES

    study = Study(game="bucket_brigade", name="bench", replicates=episodes, seed=1,
                  fixed={"population": "random"}, engine="model")
    start = time.perf_counter()
    if kind == "runner":
        with tempfile.TemporaryDirectory() as out:
            run_study(study, out, workers=workers, progress=False)
    else:
        import mesa

        rows = mesa.batch_run(GAMES["bucket_brigade"].model, {"population": "random"},
                              rng=[run.seed for run in study.runs()], number_processes=workers,
                              data_collection_period=1, display_progress=False)
        assert rows
    elapsed = time.perf_counter() - start
    return {"episodes_per_s": episodes / elapsed,
            "parent_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "worker_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--one", nargs=2, metavar=("KIND", "WORKERS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), args.episodes)))
        return
    configurations = [("runner", 1, args.episodes), ("runner", 2, args.episodes),
                      ("batch_run", 1, args.episodes), ("batch_run", 2, args.episodes),
                      ("runner", 2, 4 * args.episodes), ("batch_run", 2, 4 * args.episodes)]
    print(f"{'Bucket Brigade study, default, random':<40} {'episodes':>8} {'episodes/s':>10} "
          f"{'parent MB':>9} {'worker MB':>9}")
    for kind, workers, episodes in configurations:
        output = subprocess.run(
            [sys.executable, __file__, "--one", kind, str(workers), "--episodes",
             str(episodes)], capture_output=True, text=True, check=True).stdout
        r = json.loads(output.strip().splitlines()[-1])
        label = f"{kind}, {workers} worker{'s' if workers > 1 else ''}"
        print(f"{label:<40} {episodes:>8} {r['episodes_per_s']:>10,.0f} "
              f"{r['parent_mb']:>9,.0f} {r['worker_mb']:>9,.0f}")


if __name__ == "__main__":
    main()
