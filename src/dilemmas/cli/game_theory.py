"""The game-theory commands of ``dilemmas``: ``rank``, ``schelling``, ``evolve``,
``alpharank``, ``population``, ``psro`` and ``optimal`` (docs/game-theory.md)."""

import numpy as np
import pandas as pd

from dilemmas.models.files import check_writable, make_folder
from dilemmas.cli.arguments import behaviour_list, interval_text, settings


def play_mixes(args, study):
    """Run a mix study and say where its results are."""
    from dilemmas.analysis.studies.runner import run_study

    report = run_study(study, args.out, backend=args.backend, workers=args.workers,
                       scheduler=args.scheduler, progress=not args.no_progress)
    print(f"{study.name}: {report.total} runs, {report.played} played now, "
          f"{len(report.failed)} failed\nresults: {report.folder}")
    if report.failed:
        raise ValueError(f"{len(report.failed)} runs failed (see {report.folder}/failed); "
                         "nothing to analyse until they succeed")
    return report.folder


def rank(args):
    from dilemmas.analysis.figures.paper import save
    from dilemmas.analysis.game_theory.ranking import (
        fit,
        propose,
        ranking_figure,
        ranking_study,
    )

    study = ranking_study(args.game, behaviour_list(args.behaviours),
                          fixed=settings(args.game, args.set), replicates=args.replicates,
                          seed=args.seed, teams=args.teams, name=args.study_name)
    if args.propose < 1:
        raise ValueError(f"--propose {args.propose} must be at least 1")
    folder = play_mixes(args, study)
    ranking = fit(folder)
    print(f"\nteam outcome: mean final reward per seat of {ranking.players} seats; "
          f"{ranking.runs} runs; residual sd {ranking.sigma:.4g};\nthe additive model "
          f"explains {ranking.r_squared:.0%} of its variance over runs")
    shown = ranking.table[["rank", "behaviour"]].assign(**{
        f"{column} (95% CI)": [interval_text(*values) for values in ranking.table[
            [column, f"{column}_low", f"{column}_high"]].to_numpy()]
        for column in ("value", "marginal")})
    print(shown.to_string(index=False))
    print(f"\nthe next {args.propose} runs that most narrow the intervals: teams, runs each,"
          f"\nand the trace of the values' covariance after them (now "
          f"{np.trace(ranking.covariance):.4g})")
    print(propose(ranking, args.propose).to_string(index=False,
                                                   float_format="{:.4g}".format))
    path = save(ranking_figure(ranking, study.name), folder, "ranking")[-1]
    print(f"\nfigure: {path}")


def schelling(args):
    from dilemmas.analysis.figures.paper import save
    from dilemmas.analysis.game_theory.schelling import (
        diagnostics,
        diagram,
        schelling_figure,
        schelling_study,
    )

    study = schelling_study(args.game, args.cooperator, args.defector,
                            fixed=settings(args.game, args.set),
                            replicates=args.replicates, seed=args.seed, name=args.study_name)
    folder = play_mixes(args, study)
    curves, team = diagram(folder)
    shown = curves.assign(**{"payoff (95% CI)": [
        interval_text(*values) for values in curves[["payoff", "payoff_low", "payoff_high"]]
        .to_numpy()]})[["role", "behaviour", "others", "n", "payoff (95% CI)"]]
    print("\npayoff per seat against the number of other cooperators")
    print(shown.to_string(index=False))
    print("\nteam payoff per seat against the number of cooperators")
    print(team.assign(**{"payoff (95% CI)": [
        interval_text(*values) for values in team[["payoff", "payoff_low", "payoff_high"]]
        .to_numpy()]})[["cooperators", "n", "payoff (95% CI)"]].to_string(index=False))
    print("\ndiagnostics (difference of the two sides, and in standard errors)")
    print(diagnostics(curves, team).to_string(index=False, float_format="{:.4g}".format,
                                              na_rep=""))
    path = save(schelling_figure(folder, study.name), folder, "schelling")[-1]
    print(f"\nfigure: {path}")


def evolution_game(args, strength: str):
    """The study of every mix (``evolution_study``) of ``evolve`` and ``alpharank``, its
    arguments checked (``strength`` names the selection's) before it plays: the study, its
    folder and its payoff table."""
    from dilemmas.analysis.game_theory import evolution
    from dilemmas.analysis.game_theory.payoffs import empirical_game, seats

    fixed = settings(args.game, args.set)
    study = evolution.evolution_study(args.game, behaviour_list(args.behaviours), fixed=fixed,
                                      replicates=args.replicates, seed=args.seed,
                                      name=args.study_name)
    check_population(args, strength, seats(args.game, fixed))
    folder = play_mixes(args, study)
    return study, folder, empirical_game(folder)


def check_population(args, strength: str, players: int) -> None:
    """``--population-size`` (from the game's seats, and 2), the selection's ``strength``
    (finite, >= 0) and ``--resamples`` (at least 2), before anything plays."""
    from dilemmas.analysis.game_theory.moran import MAX_POPULATION

    if not max(players, 2) <= args.population_size <= MAX_POPULATION:
        raise ValueError(f"--population-size {args.population_size} must be from the "
                         f"game's {players} seats (and 2) to {MAX_POPULATION:,}")
    value = getattr(args, strength)
    if not 0 <= value < float("inf"):
        raise ValueError(f"--{strength} {value} must be a finite number >= 0")
    if args.resamples < 2:
        raise ValueError(f"--resamples {args.resamples} must be at least 2")


def evolve(args):
    from dilemmas.analysis.figures.paper import save
    from dilemmas.analysis.game_theory import evolution
    from dilemmas.models.files import write_atomic

    study, folder, game = evolution_game(args, "selection")
    beta = evolution.selection_strength(game, args.selection)
    uncertain = evolution.uncertainty(game, args.resamples, args.seed,
                                      population_size=args.population_size, selection=beta)
    tables = evolution.report(game, args.population_size, beta, uncertain)
    payoffs = folder / "payoffs.csv"
    write_atomic(payoffs, game.table().to_csv(index=False, float_format="%.10g").encode())
    print(f"\npayoff table: {len(game.counts)} mixes of {game.players} seats, "
          f"{min(len(s) for s in game.samples)} or more runs each; as CSV (each mix,\n"
          f"each behaviour's mean payoff and its standard error):\nresults: {payoffs}\n"
          f"intervals: 95% percentile bootstrap over {args.resamples} resamples of the runs")
    print("\nsymmetric Nash equilibria (shares of the population)")
    for index, row in tables["equilibria"].iterrows():
        print(f"  {index + 1}. {row['support']}\n     {row['stability']} under the replicator "
              f"dynamics, payoff {row['payoff']:.4g}, found in "
              f"{row['found in resamples']:.0%} of resamples")
        for name in game.behaviours:
            if row[name] > 0:
                low, high = row[f"{name} 95% low"], row[f"{name} 95% high"]
                print(f"     {name} {interval_text(row[name], low, high)}")
    print("\nwhere the replicator dynamics ends, from a lattice of interior starting points"
          "\n(shares below 0.0005 not shown)")
    for _, row in tables["rest_points"].iterrows():
        shares = ", ".join(f"{name} {row[name]:.3g}" for name in game.behaviours
                           if row[name] >= 5e-4) if row["settled"] else "does not settle"
        print(f"  {row['share of starts']:.0%} of starts: {shares}")
    print(f"\nMoran process, Z = {args.population_size}, selection {args.selection:g} per "
          f"payoff range (beta = {beta:.4g}):\nfixation probability of one mutant among "
          f"residents; neutral 1/Z = {1 / args.population_size:.3g}")
    moran = tables["fixation"]
    print(moran[["resident", "mutant"]].assign(**{"fixation (95% CI)": [
        interval_text(*values) for values in moran[["fixation probability", "95% low",
                                                "95% high"]].to_numpy()]},
        **{"x neutral": moran["rho Z (1 = neutral)"].map("{:.3g}".format)})
        .to_string(index=False))
    figure = evolution.evolution_figure(game, args.population_size, beta, uncertain,
                                        title=f"{study.name}: {game.players} seats")
    print(f"\nfigure: {save(figure, folder, 'evolution')[-1]}")


def _cases(text: str) -> list[tuple[int, int]]:
    cases = []
    for item in text.split(","):
        firefighters, sep, horizon = item.strip().partition("x")
        if not (sep and firefighters.isdigit() and horizon.isdigit()):
            raise ValueError(f"--cases {item.strip()!r} must be FIREFIGHTERSxHORIZON, e.g. 2x3")
        cases.append((int(firefighters), int(horizon)))
    return cases


#: Parameters that ``dilemmas optimal`` sets from ``--cases`` (or does not vary).
OPTIMAL_FIXED = ("n_agents", "max_steps", "layout", "n_width", "n_height", "population",
                 "policy", "learner")


def optimal(args):
    from dilemmas.analysis import optimum
    from dilemmas.analysis.figures.paper import save
    from dilemmas.models.firefighting_graph import optimal

    parameters = {"preset": "oliehoek", **settings("firefighting_graph", args.set)}
    for name in OPTIMAL_FIXED:
        if name in parameters:
            raise ValueError(f"--set {name}: not settable here: the instances are rows of "
                             "houses whose firefighters and horizon --cases gives")
    if args.seed < 0:
        raise ValueError(f"--seed {args.seed} must be an integer >= 0")
    cases = _cases(args.cases)
    for name, value in (("episodes", args.episodes), ("learner-episodes",
                                                       args.learner_episodes)):
        if value < 2:
            raise ValueError(f"--{name} {value} must be at least 2")
    for firefighters, horizon in cases:  # every instance checked before any is solved
        optimal.tables("firefighting_graph", horizon, **parameters, n_agents=firefighters)
    check_writable(args.out)
    values = optimal.optimal_table(cases, **parameters)
    print(f"exact optimal expected total team reward, {parameters}")
    print(values.to_string(index=False, float_format="{:.6g}".format))
    baselines = optimum.baseline_table(cases, args.episodes, args.seed,
                                       learner_episodes=args.learner_episodes, **parameters)
    print(f"\neach behaviour in every seat, {args.episodes} episodes each (rng = {args.seed} "
          f"+ episode); gap = optimum - mean")
    shown = baselines[["firefighters", "horizon", "behaviour", "mean", "se", "exact", "gap",
                       "gap_se"]].rename(columns={"gap_se": "gap_in_se"})
    print(shown.to_string(index=False, float_format="{:.4g}".format, na_rep=""))
    for firefighters, horizon in cases:
        found = optimal.optimal_value("firefighting_graph", horizon, **parameters,
                                      n_agents=firefighters)
        print(f"\nan optimal joint policy, {firefighters} firefighters, horizon {horizon} "
              "(flames seen so far -> action)")
        for seat, table in enumerate(found.policy):
            print(f"  firefighter {seat}: " + ", ".join(
                f"{''.join(map(str, history)) or '-'}:{action}"
                for history, action in table.items()))
    make_folder(args.out)
    values.to_csv(args.out / "optimal.csv", index=False)
    baselines.to_csv(args.out / "baselines.csv", index=False)
    path = save(optimum.optimal_figure(baselines), args.out, "optimal")[-1]
    print(f"\ntables: {args.out / 'optimal.csv'}, {args.out / 'baselines.csv'}\nfigure: {path}")


#: The ranking intensities (per payoff range) of ``dilemmas alpharank``'s sweep.
ALPHA_SWEEP = np.geomspace(0.01, 14, 29)
#: The states of most mass ``dilemmas alpharank`` prints (alpharank.csv holds every one).
SHOWN = 20


def population_game(args, file, seatings: str):
    """Play the meta-game of the population ``file`` (``metagame_study``): the population,
    the study, its folder and its payoff table (an EmpiricalGame, or a ProfileGame for
    ``roles``)."""
    from pathlib import Path

    from dilemmas.analysis.game_theory import metagame

    if args.replicates < 1:
        raise ValueError(f"--replicates {args.replicates} must be at least 1")
    population = metagame.Population.from_file(Path(file))
    study = metagame.metagame_study(population, seatings, args.out, args.replicates,
                                    args.seed)
    print(f"population {population.name} of {population.game}, {population.players} seats, "
          f"policies played {population.play}:\n{metagame.describe(population)}")
    folder = play_mixes(args, study)
    return population, study, folder, metagame.payoff_table(population, folder, seatings)


def population(args):
    from scipy import stats

    from dilemmas.analysis.game_theory import metagame
    from dilemmas.models.files import write_atomic

    if args.seed < 0:
        raise ValueError(f"--seed {args.seed} must be an integer >= 0")
    _, _, folder, game = population_game(args, args.file, args.seatings)
    rows = []
    if args.seatings == "roles":
        table = metagame.profile_table(game)
        for _, row in table.iterrows():
            for k in range(game.players):
                rows.append({"profile": ", ".join(row[f"seat{j}"] for j in range(game.players)),
                             "seat": k, "runs": row["runs"],
                             "payoff": row[f"seat{k}_payoff"],
                             "se": row[f"seat{k}_payoff_se"]})
    else:
        table = game.table()
        for i, counts in enumerate(game.counts):
            mix = ", ".join(f"{name}:{c}" for name, c in zip(game.behaviours, counts) if c)
            for k, name in enumerate(game.behaviours):
                if counts[k]:
                    rows.append({"mix": mix, "strategy": name, "runs": len(game.samples[i]),
                                 "payoff": game.means[i, k], "se": game.ses[i, k]})
    write_atomic(folder / "payoffs.csv", table.to_csv(index=False, float_format="%.10g")
                 .encode())
    shown = pd.DataFrame(rows)
    half = stats.t.ppf(0.975, np.maximum(shown["runs"] - 1, 1)) * shown["se"]
    shown["payoff (95% CI)"] = [interval_text(m, m - h, m + h) if h == h else f"{m:.4g}"
                                for m, h in zip(shown["payoff"], half)]
    print(f"\neach seat's final reward, mean over the runs of each "
          f"{'profile' if args.seatings == 'roles' else 'mix'} (Student-t 95% intervals)")
    print(shown.drop(columns=["payoff", "se"]).to_string(index=False))
    print(f"\nthe payoff table:\nresults: {folder / 'payoffs.csv'}")
    if args.seatings == "roles" and game.players == 2:
        from dilemmas.analysis.figures.paper import save

        figure = metagame.roles_figure(game, f"{folder.name}: each strategy against each other")
        print(f"figure: {save(figure, folder, 'cross_play')[-1]}")


def alpharank(args):
    from pathlib import Path

    from dilemmas import GAMES
    from dilemmas.analysis.figures.paper import save
    from dilemmas.analysis.game_theory import alpharank as ranking
    from dilemmas.models.files import write_atomic

    if args.game in GAMES:
        study, folder, game = evolution_game(args, "alpha")
    elif Path(args.game).is_file():
        for given, flag in ((args.behaviours, "--behaviours"), (args.set, "--set")):
            if given:
                raise ValueError(f"{flag}: a population file names its strategies and "
                                 "parameters itself")
        check_population(args, "alpha", 2)
        _, study, folder, game = population_game(args, args.game, args.seatings)
    else:
        raise ValueError(f"{args.game!r} is neither a game ({', '.join(sorted(GAMES))}) nor a "
                         "population file")
    local = args.selection_model == "local"
    alpha = ranking.relative_alpha(game, args.alpha)
    scale = args.alpha / alpha if alpha > 0 else 1.0
    result = ranking.alpharank(game, alpha, args.population_size, local)
    uncertain = ranking.uncertainty(game, alpha, args.population_size, local,
                                    args.resamples, args.seed)
    table = ranking.report(result, uncertain)
    swept = ranking.sweep(game, ALPHA_SWEEP / scale, args.population_size, local)
    swept.insert(1, "alpha per payoff range", swept["alpha"] * scale)
    write_atomic(folder / "alpharank.csv", table.to_csv(index=False).encode())
    write_atomic(folder / "alpharank-sweep.csv", swept.to_csv(index=False).encode())
    states = len(result.states)
    model = (f"{args.selection_model} selection" if result.local is not None
             else f"one population per seat, {states} profiles")
    print(f"\nalpha-Rank over {game.players} seats, population Z = {args.population_size}, "
          f"{model};\n"
          f"alpha {args.alpha:g} per payoff range (alpha = {alpha:.4g});\nintervals: 95% "
          f"percentile bootstrap over {args.resamples} resamples of the runs")
    shown = table.head(SHOWN)
    print(shown.assign(**{"mass (95% CI)": [
        interval_text(*values) for values in shown[["mass", "95% low", "95% high"]]
        .to_numpy()]})[["rank", "state", "mass (95% CI)", "first in resamples"]]
        .rename(columns={"state": "behaviour" if result.local is not None else "profile"})
        .to_string(index=False, float_format="{:.3g}".format))
    if len(table) > SHOWN:
        print(f"... and {len(table) - SHOWN} more of less mass (all in alpharank.csv)")
    figure = ranking.alpharank_figure(result, swept, uncertain, scale=scale,
                                      title=f"{study.name}: {game.players} seats")
    print(f"\nthe ranking, and pi against alpha per payoff range (the sweep):\n"
          f"results: {folder / 'alpharank.csv'}\nresults: {folder / 'alpharank-sweep.csv'}\n"
          f"figure: {save(figure, folder, 'alpharank')[-1]}")


def psro(args):
    """PSRO over a population file's network policies and scripted behaviours with IPPO best
    responses (``dilemmas.learning.oracle``)."""
    from pathlib import Path

    from dilemmas.analysis.game_theory import metagame
    from dilemmas.analysis.game_theory import psro as loop
    from dilemmas.analysis.learning.training import TrainingError
    from dilemmas.learning.deep import DeepTraining
    from dilemmas.learning.training_file import read_training
    from dilemmas.learning.oracle import run_psro

    if args.iterations < 1:
        raise ValueError(f"--iterations {args.iterations} must be at least 1")
    population = metagame.Population.from_file(Path(args.file), least=1)
    try:
        oracle = read_training(args.oracle)
    except TrainingError as error:
        raise ValueError(str(error)) from None
    if not isinstance(oracle, DeepTraining):
        raise ValueError(f"--oracle {str(args.oracle)!r} must be a deep training file "
                         "(algorithm = \"ippo\" or \"mappo\")")
    print(f"population {population.name} of {population.game}, {population.players} seats, "
          f"policies played {population.play}:\n{metagame.describe(population)}")
    iterations = run_psro(population, oracle, args.out, args.solver, args.iterations,
                          args.replicates, args.seed, args.backend, args.workers,
                          args.scheduler, not args.no_progress)
    folder = Path(args.out) / f"{population.name}-psro"
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(f"\nPSRO ({args.solver} meta-solver): each iteration's meta-strategy, its value, "
              "the best response's expected payoff against it and the gain (payoffs: each "
              "seat's final reward)")
        print(loop.report(iterations).to_string(index=False, float_format="%.4g"))
    print(f"\nresults: {folder / 'psro.csv'}\nfigure: {folder / 'psro.pdf'}")
