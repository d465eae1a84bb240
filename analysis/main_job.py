"""The main job (``make run``): a small study of each game, its results, figures and summary.

Runs the example study of each game (``analysis/studies/<game>.toml``) with the sweep runner
on a local process pool, into ``<out>/<study>/`` (Parquet, resumable: running the job again
plays only what is missing), draws each game's paper figures into ``<out>/figures/`` (PDF and
PNG), and prints where everything is and, per behaviour mix, the mean of the game's episode
statistics over the study's other parameters and seeds.
"""

import argparse
from pathlib import Path

import pandas as pd

from analysis import bucket_brigade, firefighting_graph, results, stag_hunt, state_punishment
from analysis.figures import make_figures
from analysis.runner import run_study
from analysis.studies import Study

STUDIES = Path(__file__).parent / "studies"

#: game name -> (its analysis module, the title of its table)
GAMES = {
    "bucket_brigade": (bucket_brigade, "Bucket Brigade: beta x kappa x behaviour mix"),
    "state_punishment": (state_punishment,
                         "State Punishment: initial punishment x behaviour mix"),
    "stag_hunt": (stag_hunt, "Stag Hunt Physical: heal_delay x behaviour mix"),
    "firefighting_graph": (firefighting_graph, "Firefighting Graph: p_ignite x behaviour mix"),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results"), help="folder for results")
    parser.add_argument("--workers", type=int, help="processes (default: every core)")
    parser.add_argument("--replicates", type=int,
                        help="seeds per combination (default: each study file's)")
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=list(GAMES))
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)

    folders = []
    for game in args.games:
        study = Study.from_file(STUDIES / f"{game}.toml")
        if args.replicates:
            study = Study(**{**study.__dict__, "replicates": args.replicates,
                             "name": f"{study.name}_{args.replicates}"})
        report = run_study(study, args.out, workers=args.workers,
                           progress=not args.no_progress)
        folders.append(report.folder)
        module, title = GAMES[game]
        episodes = results.episodes(report.folder)
        with pd.option_context("display.width", 200, "display.float_format", "{:.3f}".format):
            print(f"\n{title}: {report.total} runs ({report.played} played now, "
                  f"{len(report.failed)} failed) in {report.folder}\n")
            print(module.summary_table(episodes).to_string())
    figures = make_figures(folders, args.out / "figures")
    print(f"\n{len(figures)} figure files (PDF and PNG) in {args.out / 'figures'}:")
    for path in figures:
        if path.suffix == ".pdf":
            print(f"  {path.with_suffix('')}.{{pdf,png}}")


if __name__ == "__main__":
    main()
