"""The ``dilemmas`` command (also ``python -m analysis``): play, run studies, summarise, draw.

::

    dilemmas games [GAME]                   the games; a game's parameters and behaviours
    dilemmas play GAME [--set k=v ...]      one episode, and its summary
    dilemmas run STUDY.toml [...]           a study, resumable, with a progress bar
    dilemmas summary FOLDER [--ci]          a study's statistics per parameter combination
    dilemmas figures [FOLDER ...]           the paper figures of studies, as PDF and PNG
                                            (default: of every study in results/)
    dilemmas train TRAIN.toml [...]         train learners, resumable, with a progress bar
    dilemmas evaluate TRAIN.toml [...]      trained learners against random in the same
                                            seats, beside background behaviours
    dilemmas rank GAME [...]                rank behaviours by their value to a team
    dilemmas schelling GAME [...]           a Schelling diagram and its diagnostics
    dilemmas evolve GAME [...]              replicator and Moran dynamics, Nash equilibria
    dilemmas optimal [...]                  exact optimal Firefighting Graph baselines
    dilemmas dashboard [--port P]           the Solara dashboard on 127.0.0.1

``--set`` values are read as TOML values (``beta=0.3``, ``population="firefighter"``,
``spawn_weights=[1, 1, 1, 1, 2]``); a bare word that is not TOML is taken as a string.
Errors in the input (an unknown game, a bad study file, a bad parameter) print one line
naming what is wrong and exit with status 2. Ctrl-C prints one line and exits with status
130 (``run``, ``train`` and ``evaluate`` resume when run again); a closed pipe (``| head``)
ends the command quietly with status 141, as it would a Unix tool.
"""

import argparse
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np

from dilemmas.analysis.studies import results
from dilemmas.cli.describe import first_sentence
from dilemmas.analysis.studies.runner import BACKENDS, run_study
from dilemmas.analysis.studies.study import Study, StudyError, game_parameters
from dilemmas import GAMES


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.command(args) or 0
    except (StudyError, ValueError, FileNotFoundError) as error:
        print(f"dilemmas {args.name}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        again = " (run the same command again to resume)" if args.name in RESUMABLE else ""
        print(f"\ndilemmas {args.name}: interrupted{again}", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


#: Commands that pick up where an interrupted run of them stopped.
RESUMABLE = ("run", "train", "evaluate", "rank", "schelling", "evolve")


def _parser():
    parser = argparse.ArgumentParser(
        prog="dilemmas", description="Social-dilemma games as Mesa models: play an "
        "episode, run a study, summarise its results, draw its figures, train and evaluate "
        "learning agents.")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    games = commands.add_parser(
        "games", help="list the games, or one game's parameters and behaviours",
        description="List the registered games; with GAME, its parameters (default, what is "
        "allowed, meaning) and its behaviours.")
    games.add_argument("game", nargs="?", choices=sorted(GAMES), metavar="GAME",
                       help=f"one of {', '.join(sorted(GAMES))}")
    games.set_defaults(command=_games, name="games")

    play = commands.add_parser("play", help="play one episode and print its summary",
                               description="Play one episode of GAME and print its summary.")
    play.add_argument("game", choices=sorted(GAMES), metavar="GAME",
                      help=f"one of {', '.join(sorted(GAMES))}")
    play.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                      help="a model parameter (repeatable), e.g. --set beta=0.3")
    play.add_argument("--seed", type=int, default=0, help="the model's rng (default 0)")
    play.set_defaults(command=_play, name="play")

    run = commands.add_parser("run", help="run a study from a TOML file",
                              description="Run a study; runs already done are skipped, so an "
                              "interrupted study resumes.")
    run.add_argument("study", type=_example("studies"),
                     help="the study file (TOML), or a game's name for its example study "
                     "(shipped with the package)")
    run.add_argument("--out", type=Path, default=Path("results"),
                     help="results folder (default: results); the study writes <out>/<name>")
    run.add_argument("--backend", choices=BACKENDS, default="local",
                     help="local process pool (default), dask, or serial")
    run.add_argument("--workers", type=int, help="processes (default: every core)")
    run.add_argument("--scheduler", help="dask scheduler address (default: a LocalCluster)")
    run.add_argument("--batch-size", type=int, help="runs per written file (default: auto)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(command=_run, name="run")

    summary = commands.add_parser("summary", help="summarise a study's results",
                                  description="Mean of each episode statistic over the seeds "
                                  "of each parameter combination of a study, in the study's "
                                  "order, as a table at most 100 characters wide (split into "
                                  "blocks of columns, each repeating the parameters).")
    summary.add_argument("folder", type=Path, help="the study's results folder")
    summary.add_argument("--ci", action="store_true",
                         help="each cell as mean [low, high], the 95%% confidence interval "
                         "(inside the statistic's range)")
    summary.set_defaults(command=_summary, name="summary")

    figures = commands.add_parser("figures", help="draw the figures of studies",
                                  description="Draw each study's paper figures (PDF and PNG).")
    figures.add_argument("folders", type=Path, nargs="*",
                         help="study results folders (default: every study in --results)")
    figures.add_argument("--results", type=Path, default=Path("results"),
                         help="where to look for studies when no folder is given "
                         "(default: results)")
    figures.add_argument("--out", type=Path, default=Path("results/figures"),
                         help="folder for the figures (default: results/figures)")
    figures.set_defaults(command=_figures, name="figures")

    train = commands.add_parser(
        "train", help="train learning agents from a TOML file",
        description="Train the learners of a training file: "
        "each training seed in parallel, checkpointed, so an interrupted training resumes; "
        "writes learning curves (Parquet) and a learning-curve figure.")
    train.add_argument("training", type=_example("training"),
                       help="the training file (TOML), or a game's name for its example "
                       "training file (shipped with the package)")
    train.add_argument("--out", type=Path, default=Path("results/training"),
                       help="folder (default: results/training); writes <out>/<name>")
    _backend_arguments(train)
    train.set_defaults(command=_train, name="train")

    evaluate = commands.add_parser(
        "evaluate", help="evaluate trained learners against random in the same seats",
        description="Play the trained policies of a training file in its learning seats, "
        "beside background behaviours, and random in the same seats, as a study (resumable); "
        "print focal and background returns with 95%% intervals over the evaluation seeds.")
    evaluate.add_argument("training", type=Path, help="the training file (TOML)")
    evaluate.add_argument("--trained", type=Path, default=Path("results/training"),
                          help="where it was trained (default: results/training)")
    evaluate.add_argument("--out", type=Path, default=Path("results"),
                          help="results folder of the evaluation study (default: results)")
    _backend_arguments(evaluate)
    evaluate.set_defaults(command=_evaluate, name="evaluate")

    rank = commands.add_parser(
        "rank", help="rank behaviours by their value to a team",
        description="Play teams of GAME's seats mixed from BEHAVIOURS (a study, resumable), "
        "fit each behaviour's value to the team's mean reward per seat (additive model, "
        "Bayesian ridge regression) and print its marginal value with 95%% intervals, the "
        "next teams that would most narrow them, and a figure (docs/game-theory.md).")
    _mix_arguments(rank, replicates=10)
    rank.add_argument("--teams", type=int, default=120,
                      help="at most this many teams: every mix if fewer, else the pure "
                      "teams and a sample (default 120)")
    rank.add_argument("--propose", type=int, default=10, metavar="K",
                      help="propose the next K teams to play (default 10)")
    rank.set_defaults(command=_rank, name="rank")

    schelling = commands.add_parser(
        "schelling", help="a Schelling diagram: cooperator and defector payoffs",
        description="Play every mix of GAME's seats over a cooperative and a selfish "
        "behaviour (a study, resumable); print each one's payoff against the number of "
        "other cooperators with 95%% intervals, the dilemma's diagnostics, and a figure "
        "(docs/game-theory.md).")
    _mix_arguments(schelling, replicates=30, behaviours=False)
    schelling.add_argument("--cooperator", help="the cooperative behaviour (default: the "
                           "game's, see docs/game-theory.md)")
    schelling.add_argument("--defector", help="the selfish behaviour (default: the game's)")
    schelling.set_defaults(command=_schelling, name="schelling")

    evolve = commands.add_parser(
        "evolve", help="evolutionary dynamics over behaviours from a payoff table",
        description="Play every mix of GAME's seats over BEHAVIOURS (a study, resumable) and "
        "print, from the resulting payoff table, the symmetric Nash equilibria, where the "
        "replicator dynamics ends, and Moran fixation probabilities, each with a bootstrap "
        "95%% interval over the runs; and a figure (docs/game-theory.md).")
    _mix_arguments(evolve, replicates=10)
    evolve.add_argument("--population-size", type=int, default=100, metavar="Z",
                        help="population of the Moran process (default 100)")
    evolve.add_argument("--selection", type=float, default=1.0,
                        help="selection strength in units of 1/(payoff range of the table), "
                        "default 1: the best payoff e times as fit as the worst")
    evolve.add_argument("--resamples", type=int, default=100,
                        help="bootstrap resamples of the runs (default 100)")
    evolve.set_defaults(command=_evolve, name="evolve")

    optimal = commands.add_parser(
        "optimal", help="exact optimal Firefighting Graph values and how far behaviours are",
        description="The exact optimal expected team reward of the Firefighting Graph "
        "Dec-POMDP (oliehoek preset, row of houses, uniform initial fire levels) for each "
        "instance, by two independent exact methods, an optimal joint policy, and each "
        "behaviour's simulated mean against it; writes a table and a figure "
        "(docs/game-theory.md).")
    optimal.add_argument("--cases", default="2x1,2x2,2x3,3x1,3x2", metavar="NxH,...",
                         help="instances: firefighters x horizon (default "
                         "2x1,2x2,2x3,3x1,3x2)")
    optimal.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                         help="a Firefighting Graph parameter (default preset=\"oliehoek\")")
    optimal.add_argument("--episodes", type=int, default=2000,
                         help="simulated episodes per behaviour and instance (default 2000)")
    optimal.add_argument("--learner-episodes", type=int, default=10_000,
                         help="training episodes of the q_learning baseline (default 10000)")
    optimal.add_argument("--seed", type=int, default=0, help="first episode's rng (default 0)")
    optimal.add_argument("--out", type=Path, default=Path("results/optimal"),
                         help="folder of optimal.csv, baselines.csv and the figure "
                         "(default: results/optimal)")
    optimal.set_defaults(command=_optimal, name="optimal")

    dashboard = commands.add_parser(
        "dashboard", help="serve the dashboard on 127.0.0.1",
        description="Fill the front-end cache if needed (dilemmas.dashboard.assets, from the "
        "npm registry) and serve dilemmas.dashboard.app with `solara run` on 127.0.0.1, "
        "without the CDN.")
    dashboard.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    dashboard.add_argument("--assets", type=Path, help="the front-end cache folder (default: "
                           "$SOLARA_ASSETS_PROXY_CACHE_DIR, else ~/.cache/dilemmas/"
                           "solara-assets)")
    dashboard.set_defaults(command=_dashboard, name="dashboard")
    return parser


def _example(kind: str):
    """An argument type: a path, or the name of a game for the package's example file of
    ``kind`` (``studies``, ``training``) unless a file of that name exists here."""
    def path(text: str) -> Path:
        given = Path(text)
        if text in GAMES and not given.exists():
            return GAMES[text].study if kind == "studies" else \
                GAMES[text].study.parents[1] / kind / f"{text}.toml"
        return given
    return path


def _backend_arguments(parser):
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="local process pool (default), dask, or serial")
    parser.add_argument("--workers", type=int, help="processes (default: every core)")
    parser.add_argument("--scheduler", help="dask scheduler address (default: a LocalCluster)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _mix_arguments(parser, replicates: int, behaviours: bool = True):
    """The arguments of a command that plays a study of behaviour mixes of a game."""
    parser.add_argument("game", choices=sorted(GAMES), metavar="GAME",
                        help=f"one of {', '.join(sorted(GAMES))}")
    if behaviours:
        parser.add_argument("--behaviours", metavar="NAME,NAME,...",
                            help="the behaviours (default: every fixed behaviour of GAME)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a model parameter fixed for every run (repeatable)")
    parser.add_argument("--replicates", type=int, default=replicates,
                        help=f"runs per mix (default {replicates})")
    parser.add_argument("--seed", type=int, default=0, help="the study's seed (default 0)")
    parser.add_argument("--name", dest="study_name",
                        help="the study's name (default: GAME-ranking, GAME-schelling, "
                        "GAME-evolution); its results go to <out>/<name>")
    parser.add_argument("--out", type=Path, default=Path("results"),
                        help="results folder (default: results)")
    _backend_arguments(parser)


def _play_mixes(args, study):
    """Run a mix study and say where its results are."""
    report = run_study(study, args.out, backend=args.backend, workers=args.workers,
                       scheduler=args.scheduler, progress=not args.no_progress)
    print(f"{study.name}: {report.total} runs, {report.played} played now, "
          f"{len(report.failed)} failed\nresults: {report.folder}")
    if report.failed:
        raise ValueError(f"{len(report.failed)} runs failed (see {report.folder}/failed); "
                         "nothing to analyse until they succeed")
    return report.folder


def _behaviour_list(text):
    return None if text is None else [name.strip() for name in text.split(",") if name.strip()]


def _rank(args):
    from dilemmas.analysis.figures.paper import save
    from dilemmas.analysis.game_theory.ranking import fit, propose, ranking_figure, ranking_study

    study = ranking_study(args.game, _behaviour_list(args.behaviours),
                          fixed=_settings(args.game, args.set), replicates=args.replicates,
                          seed=args.seed, teams=args.teams, name=args.study_name)
    if args.propose < 1:
        raise ValueError(f"--propose {args.propose} must be at least 1")
    folder = _play_mixes(args, study)
    ranking = fit(folder)
    print(f"\nteam outcome: mean final reward per seat of {ranking.players} seats; "
          f"{ranking.runs} runs; residual sd {ranking.sigma:.4g};\nthe additive model "
          f"explains {ranking.r_squared:.0%} of its variance over runs")
    shown = ranking.table[["rank", "behaviour"]].assign(**{
        f"{column} (95% CI)": [_interval(*values) for values in ranking.table[
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


def _schelling(args):
    from dilemmas.analysis.figures.paper import save
    from dilemmas.analysis.game_theory.schelling import diagnostics, diagram, schelling_figure, schelling_study

    study = schelling_study(args.game, args.cooperator, args.defector,
                            fixed=_settings(args.game, args.set),
                            replicates=args.replicates, seed=args.seed, name=args.study_name)
    folder = _play_mixes(args, study)
    curves, team = diagram(folder)
    shown = curves.assign(**{"payoff (95% CI)": [
        _interval(*values) for values in curves[["payoff", "payoff_low", "payoff_high"]]
        .to_numpy()]})[["role", "behaviour", "others", "n", "payoff (95% CI)"]]
    print("\npayoff per seat against the number of other cooperators")
    print(shown.to_string(index=False))
    print("\nteam payoff per seat against the number of cooperators")
    print(team.assign(**{"payoff (95% CI)": [
        _interval(*values) for values in team[["payoff", "payoff_low", "payoff_high"]]
        .to_numpy()]})[["cooperators", "n", "payoff (95% CI)"]].to_string(index=False))
    print("\ndiagnostics (difference of the two sides, and in standard errors)")
    print(diagnostics(curves, team).to_string(index=False, float_format="{:.4g}".format,
                                              na_rep=""))
    path = save(schelling_figure(folder, study.name), folder, "schelling")[-1]
    print(f"\nfigure: {path}")


def _evolve(args):
    from dilemmas.analysis.game_theory import evolution
    from dilemmas.analysis.figures.paper import save
    from dilemmas.analysis.game_theory.payoffs import empirical_game, seats

    fixed = _settings(args.game, args.set)
    study = evolution.evolution_study(args.game, _behaviour_list(args.behaviours), fixed=fixed,
                                      replicates=args.replicates, seed=args.seed,
                                      name=args.study_name)
    players = seats(args.game, fixed)
    if not max(players, 2) <= args.population_size <= evolution.MAX_POPULATION:
        raise ValueError(f"--population-size {args.population_size} must be from the "
                         f"game's {players} seats (and 2) to {evolution.MAX_POPULATION:,}")
    if not 0 <= args.selection < float("inf"):
        raise ValueError(f"--selection {args.selection} must be a finite number >= 0")
    if args.resamples < 2:
        raise ValueError(f"--resamples {args.resamples} must be at least 2")
    folder = _play_mixes(args, study)
    game = empirical_game(folder)
    beta = evolution.selection_strength(game, args.selection)
    uncertain = evolution.uncertainty(game, args.resamples, args.seed,
                                      population_size=args.population_size, selection=beta)
    tables = evolution.report(game, args.population_size, beta, uncertain)
    print(f"\npayoff table: {len(game.counts)} mixes of {game.players} seats, "
          f"{min(len(s) for s in game.samples)} or more runs each;\nintervals: 95% "
          f"percentile bootstrap over {args.resamples} resamples of the runs")
    print("\nsymmetric Nash equilibria (shares of the population)")
    for index, row in tables["equilibria"].iterrows():
        print(f"  {index + 1}. {row['support']}\n     {row['stability']} under the replicator "
              f"dynamics, payoff {row['payoff']:.4g}, found in "
              f"{row['found in resamples']:.0%} of resamples")
        for name in game.behaviours:
            if row[name] > 0:
                low, high = row[f"{name} 95% low"], row[f"{name} 95% high"]
                print(f"     {name} {_interval(row[name], low, high)}")
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
        _interval(*values) for values in moran[["fixation probability", "95% low",
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


def _optimal(args):
    from dilemmas.analysis import optimum
    from dilemmas.analysis.figures.paper import save
    from dilemmas.models.firefighting_graph import optimal

    parameters = {"preset": "oliehoek", **_settings("firefighting_graph", args.set)}
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
    args.out.mkdir(parents=True, exist_ok=True)
    values.to_csv(args.out / "optimal.csv", index=False)
    baselines.to_csv(args.out / "baselines.csv", index=False)
    path = save(optimum.optimal_figure(baselines), args.out, "optimal")[-1]
    print(f"\ntables: {args.out / 'optimal.csv'}, {args.out / 'baselines.csv'}\nfigure: {path}")


def _games(args):
    if args.game is None:
        width = max(map(len, GAMES))
        for game in GAMES.values():
            print(f"{game.name:<{width}}  {game.title}: {len(game.parameters)} parameters, "
                  f"behaviours {', '.join(game.behaviours)}")
        print("\n`dilemmas games GAME` lists a game's parameters and behaviours.")
        return
    game = GAMES[args.game]
    print(f"{game.title} ({game.name}); rounds: {game.round}s; rules: {game.rules}\n")
    print("parameters (name = default: allowed; meaning)")
    for name, default, allowed, description in game.parameters.describe():
        print(f"  {name} = {default}: {allowed}")
        print(f"      {description}")
    print("  rng = None: None or an integer >= 0 (the seed)")
    print("  collect_data = True: True or False (False: no DataCollector, for speed)")
    print("\nbehaviours (for population)")
    width = max(map(len, game.behaviours))
    for name, behaviour in game.behaviours.items():
        print(f"  {name:<{width}}  {first_sentence(behaviour.__doc__)}")


def _value(text: str):
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _settings(game: str, items) -> dict:
    """The parameters of ``--set KEY=VALUE`` items."""
    parameters = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r} must be KEY=VALUE")
        if key.strip() not in game_parameters(game):
            raise ValueError(f"--set {key.strip()}: not a parameter of {game}; "
                             f"allowed: {game_parameters(game)}")
        parameters[key.strip()] = _value(text.strip())
    return parameters


def _play(args):
    parameters = _settings(args.game, args.set)
    game = GAMES[args.game]
    model = game.model(**parameters, rng=args.seed)
    model.run_model()
    rows = model.datacollector.get_model_vars_dataframe()
    statistics = game.statistics(rows.assign(run=0), "run")
    print(f"{args.game}, seed {args.seed}, {len(rows) - 1} steps"
          + (f", {parameters}" if parameters else ""))
    print("\nfinal state\n" + rows.iloc[-1].to_string())
    print("\nepisode\n" + statistics.iloc[0].to_string())
    if "reward" in model.agent_reporters:
        agents = model.datacollector.get_agent_vars_dataframe()
        final = agents.xs(agents.index.get_level_values(0).max(), level=0)
        print("\nagents\n" + final.to_string())


def _run(args):
    study = Study.from_file(args.study)
    report = run_study(study, args.out, backend=args.backend, workers=args.workers,
                       scheduler=args.scheduler, batch_size=args.batch_size,
                       progress=not args.no_progress)
    print(f"{study.name}: {report.total} runs, {report.already_done} done before, "
          f"{report.played} played now, {len(report.failed)} failed; results in "
          f"{report.folder}")
    for run_id in report.failed:
        print(f"  failed: {report.folder / 'failed' / (run_id + '.json')}")
    return 1 if report.failed else 0


def _summary(args):
    print(results.summary_text(args.folder, args.ci))


def _figures(args):
    from dilemmas.analysis.figures.paper import make_figures

    folders = args.folders or sorted(p.parent for p in args.results.glob("*/study.json"))
    if not folders:
        raise FileNotFoundError(f"no study results in {args.results} (no */study.json)")
    skipped = []
    for path in make_figures(folders, args.out, skipped):
        print(path)
    for reason in skipped:
        print(f"skipped: {reason}", file=sys.stderr)


def _train(args):
    from dilemmas.analysis.learning.training import Training, train

    training = Training.from_file(args.training)
    report = train(training, args.out, backend=args.backend, workers=args.workers,
                   scheduler=args.scheduler, progress=not args.no_progress)
    print(f"{training.name}: {report.seeds} seeds x {training.episodes} episodes, "
          f"{report.episodes_before} trained before, {report.episodes_played} now; learners "
          f"in {report.folder}/seed-*/learner.npz, curve in {report.folder}/learning_curve.png")


def _evaluate(args):
    from dilemmas.analysis.learning.evaluation import comparison, evaluation_figure, evaluation_study, returns
    from dilemmas.analysis.learning.training import Training

    training = Training.from_file(args.training)
    study = evaluation_study(training, args.trained)
    report = run_study(study, args.out, backend=args.backend, workers=args.workers,
                       scheduler=args.scheduler, progress=not args.no_progress)
    table = returns(report.folder, training.learning_seats)
    shown = table[["population", "policy", "n"]].assign(**{
        f"{seats} (95% CI)": [_interval(*values) for values in table[
            [f"{seats}_return", f"{seats}_return_low", f"{seats}_return_high"]].to_numpy()]
        for seats in ("focal", "background")})
    versus = comparison(table, training).rename(columns={"standard_errors": "in_SE"})
    print(f"{study.name}: {report.total} runs, {report.played} played now; focal = the first "
          f"{training.learning_seats} seats; returns per seat\nresults in {report.folder}\n")
    print(shown.to_string(index=False))
    print("\ntrained focal seats against random in the same seats")
    print(versus.to_string(index=False, float_format="{:.4g}".format))
    print(f"\nfigure: {evaluation_figure(report.folder, table)}")
    return 1 if report.failed else 0


def _interval(mean, low, high) -> str:
    return "" if mean != mean else f"{mean:.4g} [{low:.4g}, {high:.4g}]"


def _dashboard(args):
    from dilemmas.dashboard.assets import default_cache

    cache = (args.assets or default_cache()).expanduser().resolve()
    subprocess.run([sys.executable, "-m", "dilemmas.dashboard.assets", "--cache", str(cache)],
                   check=True)
    os.execve(sys.executable, [sys.executable, "-m", "solara", "run", "dilemmas.dashboard.app",
                               "--host", "127.0.0.1", "--port", str(args.port),
                               "--production"],
              {**os.environ, "SOLARA_ASSETS_PROXY_CACHE_DIR": str(cache),
               "SOLARA_TELEMETRY_MIXPANEL_ENABLE": "False"})


if __name__ == "__main__":
    sys.exit(main())
