"""The main job (``make run``): a small sweep of every built game and its summary table.

For each game, plays each behaviour mix of its ``analysis.<game>.MIXES`` under the default
parameters with ``mesa.batch_run`` on 2 processes, prints the mean per mix, and writes the
per-episode table to ``results/<game>_episodes.parquet``, then the mean final reward of each
behaviour in each mix.
"""

import argparse
from pathlib import Path

import pandas as pd

from analysis import bucket_brigade, firefighting_graph, state_punishment
from models.files import write_atomic

#: game name -> (its analysis module, seeds per mix, what one table row is)
GAMES = {
    "bucket_brigade": (bucket_brigade, 20, "Bucket Brigade, default scenario"),
    "state_punishment": (state_punishment, 10, "State Punishment, default parameters"),
    "firefighting_graph": (firefighting_graph, 20, "Firefighting Graph, default row game"),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, help="episodes per mix (default: per game)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("results"), help="folder for results")
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=list(GAMES))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    for game in args.games:
        module, default_seeds, title = GAMES[game]
        seeds = args.seeds or default_seeds
        episodes = module.episode_table(module.sweep(seeds=range(seeds),
                                                     processes=args.processes))
        target = write_atomic(args.out / f"{game}_episodes.parquet",
                              episodes.to_parquet(index=False))
        with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
            print(f"{title}, {seeds} seeds per behaviour mix (means over episodes)\n")
            print(module.summary_table(episodes).to_string())
            print("\nmean final reward of each behaviour in each mix\n")
            print(module.behaviour_table(episodes).to_string(na_rep="-"))
        print(f"\nper-episode rows: {target}\n")


if __name__ == "__main__":
    main()
