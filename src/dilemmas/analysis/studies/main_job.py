"""The main job (``make run``): a small study of each game, its results, figures and summary.

Runs the example study of each registered game (its registration's ``study``, e.g.
``src/dilemmas/examples/studies/bucket_brigade.toml``) with the sweep runner on a local process
pool, into ``<out>/<study>/`` (Parquet, resumable: running the job again plays only what is
missing), draws each game's paper figures into ``<out>/figures/`` (PDF and PNG), and prints where
everything is and, per combination of the study's swept parameters, the mean of the game's
episode statistics over the seeds (``dilemmas summary``).
"""

import argparse
import dataclasses
from pathlib import Path

from dilemmas.analysis.studies import results
from dilemmas.analysis.figures.paper import make_figures
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study
from dilemmas import GAMES


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results"), help="folder for results")
    parser.add_argument("--workers", type=int, help="processes (default: every core)")
    parser.add_argument("--replicates", type=int,
                        help="seeds per combination (default: each study file's)")
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)

    folders = []
    for name in args.games:
        game = GAMES[name]
        study = Study.from_file(game.study)
        if args.replicates:
            study = dataclasses.replace(study, replicates=args.replicates,
                                        name=f"{study.name}_{args.replicates}")
        report = run_study(study, args.out, workers=args.workers,
                           progress=not args.no_progress)
        folders.append(report.folder)
        swept = " x ".join(study.sweep) or "replicates"
        print(f"\n{game.title}: {swept}: {report.total} runs ({report.played} played "
              f"now, {len(report.failed)} failed) in {report.folder}\n")
        print(results.summary_text(report.folder))
    figures = make_figures(folders, args.out / "figures")
    print(f"\n{len(figures)} figure files (PDF and PNG) in {args.out / 'figures'}:")
    for path in figures:
        if path.suffix == ".pdf":
            print(f"  {path.with_suffix('')}.{{pdf,png}}")


if __name__ == "__main__":
    main()
