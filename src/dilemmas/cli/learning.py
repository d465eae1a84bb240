"""The learning commands of ``dilemmas``: ``train`` and ``evaluate`` (docs/learning.md)."""


from dilemmas.cli.arguments import interval_text


def train(args):
    import pandas as pd

    from dilemmas.learning import deep, sweeps
    from dilemmas.analysis.learning.training import train
    from dilemmas.learning.training_file import read_training

    training = read_training(args.training)
    if isinstance(training, sweeps.TrainingSweep):  # a training per combination, placed
        folder = sweeps.train(training, args.out, backend=args.backend, workers=args.workers,
                              scheduler=args.scheduler, progress=not args.no_progress)
        table = pd.read_csv(folder / "summary.csv")
        shown = table[[*training.sweep, "training", "seeds"]].assign(**{
            f"{column} (95% CI)": [interval_text(*values) for values in table[
                [column, f"{column}_low", f"{column}_high"]].to_numpy()]
            for column in ("learner_return", "objective_return", "greedy_learner_return")
            if column in table})
        print(f"{training.name}: {len(table)} trainings; final scores (the last tenth of the "
              f"updates, mean over the training seeds)\n{shown.to_string(index=False)}\n"
              f"table: {folder / 'summary.csv'}\nfigure: {folder / 'summary.png'}")
        return
    if isinstance(training, deep.DeepTraining):  # one process: every seed in one program
        if args.backend != "local" or args.workers is not None or args.scheduler is not None:
            raise ValueError("--backend, --workers and --scheduler place the tabular "
                             "learners' seeds; a deep training (algorithm = "
                             f"{training.algorithm!r}) trains every seed in one JAX program "
                             "in this process: leave them out")
        report = deep.train(training, args.out, progress=not args.no_progress)
        print(f"{training.name}: {training.algorithm}, {report.seeds} seeds x "
              f"{training.updates} updates, {report.episodes_before} done before, "
              f"{report.episodes_played} now; policies in {report.folder}/seed-*/policy.npz, "
              f"curve in {report.folder}/learning_curve.png")
        return
    report = train(training, args.out, backend=args.backend, workers=args.workers,
                   scheduler=args.scheduler, progress=not args.no_progress)
    print(f"{training.name}: {report.seeds} seeds x {training.episodes} episodes, "
          f"{report.episodes_before} trained before, {report.episodes_played} now; learners "
          f"in {report.folder}/seed-*/learner.npz, curve in {report.folder}/learning_curve.png")


def evaluate(args):
    from dilemmas.analysis.learning.evaluation import (
        comparison,
        evaluation_figure,
        evaluation_study,
        returns,
    )
    from dilemmas.analysis.studies.runner import run_study
    from dilemmas.learning.training_file import read_training

    training = read_training(args.training)
    if args.cross_play:
        return cross_play(training, args)
    study = evaluation_study(training, args.trained)
    report = run_study(study, args.out, backend=args.backend, workers=args.workers,
                       scheduler=args.scheduler, progress=not args.no_progress)
    table = returns(report.folder, training.learning_seats)
    shown = table[["population", "policy", "play", "n"]].assign(**{
        f"{seats} (95% CI)": [interval_text(*values) for values in table[
            [f"{seats}_return", f"{seats}_return_low", f"{seats}_return_high"]].to_numpy()]
        for seats in ("focal", "background")})
    versus = comparison(table, training).rename(columns={"standard_errors": "in_SE"})
    print(f"{study.name}: {report.total} runs, {report.played} played now; focal = the first "
          f"{training.learning_seats} seats; returns per seat\nresults in {report.folder}\n")
    print(shown.to_string(index=False))
    social = [column for column in ("efficiency", "equality", "sustainability", "peace",
                                    "signal_information") if column in table]
    print("\nsocial outcomes of all seats, mean over runs (Perolat et al. 2017; "
          "docs/learning.md)")
    print(table[["population", "policy", "play", *social]].to_string(
        index=False, float_format="{:.4g}".format))
    print("\ntrained focal seats against random in the same seats")
    print(versus.to_string(index=False, float_format="{:.4g}".format))
    print(f"\nfigure: {evaluation_figure(report.folder, table)}")
    return 1 if report.failed else 0




def cross_play(training, args):
    """``dilemmas evaluate TRAIN.toml --cross-play``: every training seed beside every other
    (``dilemmas.analysis.learning.crossplay``)."""
    from dilemmas.analysis.learning import crossplay
    from dilemmas.analysis.studies.runner import run_study

    study = crossplay.crossplay_study(training, args.trained, args.out, args.replicates)
    report = run_study(study, args.out, backend=args.backend, workers=args.workers,
                       scheduler=args.scheduler, progress=not args.no_progress)
    table = crossplay.matrix(report.folder, training.learning_seats)
    table.to_csv(report.folder / "cross_play.csv", index=False)
    print(f"{study.name}: {report.total} runs, {report.played} played now; seed i in the "
          f"first learning seat, seed j in the other {training.learning_seats - 1}; returns "
          f"per seat, mean over {study.replicates} runs\nresults in {report.folder}\n")
    for play, cells in table.groupby("play"):
        print(f"{play} play: return per learning seat (rows: i, columns: j)")
        print(cells.pivot(index="row", columns="column", values="learners_return").to_string(
            float_format="{:.4g}".format))
    print("\nself-play (the diagonal) against cross-play (off it), 95% bootstrap intervals "
          "over the training seeds")
    print(crossplay.summary(table, training.seed).to_string(
        index=False, float_format="{:.4g}".format))
    print(f"\ntable: {report.folder / 'cross_play.csv'}\nfigure: "
          f"{crossplay.crossplay_figure(report.folder, table)}")
    return 1 if report.failed else 0
