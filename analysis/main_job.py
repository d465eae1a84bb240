"""The main job (``make run``): a small Bucket Brigade sweep and its summary table.

Plays each behaviour mix of ``analysis.bucket_brigade.MIXES`` for 20 seeds under the default
scenario with ``mesa.batch_run`` on 2 processes, prints the mean per mix, and writes the
per-episode table to ``results/bucket_brigade_episodes.parquet``.
"""

import argparse
from pathlib import Path

import pandas as pd

from analysis import bucket_brigade
from models.files import write_atomic


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="episodes per mix")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("results"), help="folder for results")
    args = parser.parse_args(argv)

    nightly = bucket_brigade.sweep(seeds=range(args.seeds), processes=args.processes)
    episodes = bucket_brigade.episode_table(nightly)
    table = bucket_brigade.summary_table(episodes)

    args.out.mkdir(parents=True, exist_ok=True)
    target = write_atomic(args.out / "bucket_brigade_episodes.parquet",
                          episodes.to_parquet(index=False))
    with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
        print(f"Bucket Brigade, default scenario, {args.seeds} seeds per behaviour mix "
              "(means over episodes)\n")
        print(table.to_string())
    print(f"\nper-episode rows: {target}")


if __name__ == "__main__":
    main()
