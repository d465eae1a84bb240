"""The main job (``make run``): a small sweep of every built game and its summary table.

For each game, plays each behaviour mix of its ``analysis.<game>.MIXES`` for
``analysis.<game>.SEEDS`` seeds under the default parameters with ``mesa.batch_run`` on 2
processes, writes the per-episode table to ``results/<game>_episodes.parquet``, and prints the
mean per mix and the mean final reward of each behaviour in each mix.
"""

import argparse
from pathlib import Path

import pandas as pd

from analysis import bucket_brigade, firefighting_graph, stag_hunt, state_punishment
from analysis.sweeps import behaviour_table
from models.files import write_atomic

#: game name -> (its analysis module, the title of its tables)
GAMES = {
    "bucket_brigade": (bucket_brigade, "Bucket Brigade, default scenario"),
    "state_punishment": (state_punishment, "State Punishment, default parameters"),
    "stag_hunt": (stag_hunt, "Stag Hunt Physical, default map and agents"),
    "firefighting_graph": (firefighting_graph, "Firefighting Graph, default row game"),
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
        module, title = GAMES[game]
        seeds = args.seeds or module.SEEDS
        episodes = module.episode_table(module.sweep(seeds=range(seeds),
                                                     processes=args.processes))
        target = write_atomic(args.out / f"{game}_episodes.parquet",
                              episodes.to_parquet(index=False))
        with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
            print(f"{title}, {seeds} seeds per behaviour mix (means over episodes)\n")
            print(module.summary_table(episodes).to_string())
            print("\nmean final reward of each behaviour in each mix\n")
            print(behaviour_table(episodes).to_string(na_rep="-"))
        print(f"\nper-episode rows: {target}\n")


if __name__ == "__main__":
    main()
