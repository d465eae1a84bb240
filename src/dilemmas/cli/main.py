"""The ``dilemmas`` command (also ``python -m analysis``): play, run studies, summarise, draw.

::

    dilemmas games [GAME]                   the games; a game's parameters and behaviours
    dilemmas play GAME [--set k=v ...]      one episode, and its summary
    dilemmas run STUDY.toml [...]           a study, resumable, with a progress bar
    dilemmas summary FOLDER [--ci]          a study's statistics per parameter combination
    dilemmas figures [FOLDER ...]           the paper figures of studies, as PDF and PNG
                                            (default: of every study in results/)
    dilemmas plot STUDY --x P --y S [...]   any statistic of a study against a parameter
    dilemmas sensitivity STUDY --statistic S  Sobol or Morris indices of a sampled design
    dilemmas train TRAIN.toml [...]         train learners, resumable, with a progress bar
    dilemmas evaluate TRAIN.toml [...]      trained learners against random in the same
                                            seats, beside background behaviours
    dilemmas evaluate POLICY --scenario ID  a policy file or behaviour scored on benchmark
                                            scenarios, against the stored baselines
    dilemmas scenarios [ID|GAME]            the benchmark scenarios
    dilemmas baselines [...]                recompute the scenarios' stored baselines
    dilemmas rank GAME [...]                rank behaviours by their value to a team
    dilemmas schelling GAME [...]           a Schelling diagram and its diagnostics
    dilemmas evolve GAME [...]              replicator and Moran dynamics, Nash equilibria
    dilemmas alpharank GAME|POP.toml [...]  alpha-Rank of behaviours or a population
    dilemmas population POP.toml [...]      a population's meta-game: its payoff table
    dilemmas psro POP.toml --oracle T.toml  PSRO with IPPO best responses from a population
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
import re
import subprocess
import sys
from pathlib import Path

from dilemmas import GAMES
from dilemmas.analysis.studies.study import BACKENDS, Study, StudyError
from dilemmas.cli import game_theory, learning, scenarios
from dilemmas.cli.arguments import (backend_arguments, example, figure_arguments,
                                    metagame_arguments, mix_arguments, settings,
                                    study_arguments)
from dilemmas.models.files import check_writable, make_folder
from dilemmas.cli.describe import first_sentence


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
    except OSError as error:  # a path the system refuses: a loop of links, no permission
        where = f"{str(error.filename)!r}: " if error.filename else ""
        print(f"dilemmas {args.name}: {where}{error.strerror or error}", file=sys.stderr)
        return 2


#: Commands that pick up where an interrupted run of them stopped.
RESUMABLE = ("run", "train", "evaluate", "baselines", "rank", "schelling", "evolve",
             "alpharank", "population", "psro")


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
    run.add_argument("study", type=example("study"),
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
    figure_arguments(figures)
    figures.set_defaults(command=_figures, name="figures")

    plot = commands.add_parser(
        "plot", help="plot any episode statistic of a study against a parameter",
        description="Draw the mean of an episode statistic against a parameter of a study "
        "(any study, any game), one line per value of --hue and one panel per value of "
        "--facet, with 95% confidence bands over the runs, in the paper figures' style; a "
        "parameter of a sampled design is binned (docs/how-to/sensitivity.md).")
    plot.add_argument("--x", required=True, metavar="PARAMETER",
                      help="the parameter on the horizontal axis")
    plot.add_argument("--y", required=True, metavar="STATISTIC",
                      help="the episode statistic on the vertical axis")
    plot.add_argument("--hue", metavar="PARAMETER", help="one line per value of it")
    plot.add_argument("--facet", metavar="PARAMETER", help="one panel per value of it")
    study_arguments(plot)
    plot.set_defaults(command=_plot, name="plot")

    sensitivity = commands.add_parser(
        "sensitivity", help="sensitivity indices of a study with a sampled design",
        description="First-order and total Sobol indices (a sobol design), Morris mu* and "
        "sigma (a morris design) or RBD-FAST first-order indices (an lhs design) of an "
        "episode statistic, with 95% bootstrap intervals, from the statistic's mean over "
        "the replicates of each design point; prints the table and the share of the "
        "variance that is replicate noise, and writes a CSV and a figure "
        "(docs/how-to/sensitivity.md).")
    sensitivity.add_argument("--statistic", required=True,
                             help="the episode statistic (e.g. saved for Bucket Brigade)")
    study_arguments(sensitivity)
    sensitivity.set_defaults(command=_sensitivity, name="sensitivity")

    train = commands.add_parser(
        "train", help="train learning agents from a TOML file",
        description="Train the learners of a training file: "
        "each training seed in parallel (tabular and linear learners on --backend; deep "
        "learners, algorithm = ippo or mappo, every seed in one compiled JAX program), "
        "checkpointed, so an interrupted training resumes; writes learning curves (Parquet) "
        "and a learning-curve figure. A deep training file with a [sweep] table trains one "
        "training per combination of the swept values, placed on --backend, and writes a "
        "table and a figure of their final scores.")
    train.add_argument("training", type=example("training"),
                       help="the training file (TOML), or a game's name for its example "
                       "training file (shipped with the package)")
    train.add_argument("--out", type=Path, default=Path("results/training"),
                       help="folder (default: results/training); writes <out>/<name>")
    backend_arguments(train)
    train.set_defaults(command=learning.train, name="train")

    evaluate = commands.add_parser(
        "evaluate", help="evaluate trained learners, or score a policy on scenarios",
        description="Play the trained policies of a training file in its learning seats, "
        "beside background behaviours, and random in the same seats, as a study (resumable); "
        "print focal and background returns with 95% intervals over the evaluation seeds. "
        "With --scenario: score a policy file or a behaviour on benchmark scenarios (each a "
        "study, resumable) and print its returns, metrics and standing among the stored "
        "baselines, with a figure per game (docs/scenarios.md).")
    evaluate.add_argument("training", type=Path, nargs="+", metavar="TRAINING|POLICY",
                          help="the training file (TOML); with --scenario, a behaviour's "
                          "name or one or more policy files (.npz; several, e.g. one per "
                          "training seed, share each scenario's episodes)")
    evaluate.add_argument("--cross-play", action="store_true",
                          help="play every training seed beside every other (seed i in the "
                          "first learning seat, seed j in the others): a matrix, self-play "
                          "against cross-play, and a figure")
    evaluate.add_argument("--replicates", type=int,
                          help="with --cross-play: runs per pair and play (default: the "
                          "training's [evaluate] seeds)")
    evaluate.add_argument("--scenario", metavar="ID|GAME|all",
                          help="score on this scenario, a game's scenarios, or all of them")
    evaluate.add_argument("--trained", type=Path,
                          help="where it was trained (default: results/training)")
    evaluate.add_argument("--name", dest="label",
                          help="with --scenario: the name of the results (default: the "
                          "behaviour, or the policy file's stem and digest)")
    evaluate.add_argument("--seed", type=int, default=0,
                          help="with --scenario: the evaluation's seed (default 0)")
    evaluate.add_argument("--out", type=Path, help="results folder (default: results; with "
                          "--scenario, results/scenarios, writing <out>/<name>/<scenario>)")
    backend_arguments(evaluate)
    evaluate.set_defaults(command=_evaluate, name="evaluate")

    listing = commands.add_parser(
        "scenarios", help="list the benchmark scenarios",
        description="List the benchmark scenarios (docs/scenarios.md), or describe one.")
    listing.add_argument("spec", nargs="?", default="all", metavar="ID|GAME|all",
                         help="a scenario's id, a game, or all (default)")
    listing.set_defaults(command=scenarios.list_scenarios, name="scenarios")

    baselines = commands.add_parser(
        "baselines", help="recompute the scenarios' stored baselines",
        description="Train the learned baselines on each game's substrate (and any missing "
        "bot), play every scenario with random, every scripted behaviour and each learner "
        "(resumable), and write the package's baseline table (docs/scenarios.md).")
    baselines.add_argument("--out", type=Path, default=Path("results/scenarios"),
                           help="trainings, runs and a copy of the table (default: "
                           "results/scenarios)")
    baselines.add_argument("--seed", type=int, default=0,
                           help="the evaluations' seed (default 0)")
    backend_arguments(baselines)
    baselines.set_defaults(command=scenarios.compute_baselines, name="baselines")

    rank = commands.add_parser(
        "rank", help="rank behaviours by their value to a team",
        description="Play teams of GAME's seats mixed from BEHAVIOURS (a study, resumable), "
        "fit each behaviour's value to the team's mean reward per seat (additive model, "
        "Bayesian ridge regression) and print its marginal value with 95% intervals, the "
        "next teams that would most narrow them, and a figure (docs/game-theory.md).")
    mix_arguments(rank, replicates=10)
    rank.add_argument("--teams", type=int, default=120,
                      help="at most this many teams: every mix if fewer, else the pure "
                      "teams and a sample (default 120)")
    rank.add_argument("--propose", type=int, default=10, metavar="K",
                      help="propose the next K teams to play (default 10)")
    rank.set_defaults(command=game_theory.rank, name="rank")

    schelling = commands.add_parser(
        "schelling", help="a Schelling diagram: cooperator and defector payoffs",
        description="Play every mix of GAME's seats over a cooperative and a selfish "
        "behaviour (a study, resumable); print each one's payoff against the number of "
        "other cooperators with 95% intervals, the dilemma's diagnostics, and a figure "
        "(docs/game-theory.md).")
    mix_arguments(schelling, replicates=30, behaviours=False)
    schelling.add_argument("--cooperator", help="the cooperative behaviour (default: the "
                           "game's, see docs/game-theory.md)")
    schelling.add_argument("--defector", help="the selfish behaviour (default: the game's)")
    schelling.set_defaults(command=game_theory.schelling, name="schelling")

    evolve = commands.add_parser(
        "evolve", help="evolutionary dynamics over behaviours from a payoff table",
        description="Play every mix of GAME's seats over BEHAVIOURS (a study, resumable) and "
        "print, from the resulting payoff table, the symmetric Nash equilibria, where the "
        "replicator dynamics ends, and Moran fixation probabilities, each with a bootstrap "
        "95% interval over the runs; and a figure (docs/game-theory.md).")
    mix_arguments(evolve, replicates=10)
    evolve.add_argument("--population-size", type=int, default=100, metavar="Z",
                        help="population of the Moran process (default 100)")
    evolve.add_argument("--selection", type=float, default=1.0,
                        help="selection strength in units of 1/(payoff range of the table), "
                        "default 1: the best payoff e times as fit as the worst")
    evolve.add_argument("--resamples", type=int, default=100,
                        help="bootstrap resamples of the runs (default 100)")
    evolve.set_defaults(command=game_theory.evolve, name="evolve")

    alpharank = commands.add_parser(
        "alpharank", help="alpha-Rank of behaviours or of a population's strategies",
        description="Play every mix of GAME's seats over BEHAVIOURS (the study of evolve, "
        "resumable and shared with it), or the meta-game of a population file's strategies "
        "(the study of dilemmas population), and rank them by alpha-Rank (Omidshafiei et al. "
        "2019): the stationary distribution of the chain of monomorphic populations, with "
        "a bootstrap 95% interval over the runs, its sweep over the ranking intensity, "
        "and a figure (docs/game-theory.md).")
    mix_arguments(alpharank, replicates=10, population=True)
    alpharank.add_argument("--population-size", type=int, default=50, metavar="Z",
                           help="the finite population (default 50, as OpenSpiel's)")
    alpharank.add_argument("--alpha", type=float, default=10.0,
                           help="ranking intensity in units of 1/(payoff range of the "
                           "table), default 10 (at Z = 50 up to 14 keeps every fixation "
                           "probability above 0 in floating point)")
    alpharank.add_argument("--selection-model", choices=("local", "population"),
                           default="local",
                           help="local (default, as OpenSpiel's): a mutant and a resident "
                           "compared in the mix of one mutant; population: each one's "
                           "payoff against co-players drawn from the whole population")
    alpharank.add_argument("--resamples", type=int, default=100,
                           help="bootstrap resamples of the runs (default 100)")
    alpharank.set_defaults(command=game_theory.alpharank, name="alpharank")

    population = commands.add_parser(
        "population", help="the meta-game of a population of policies and behaviours",
        description="Play the meta-game of a population file's strategies (scripted "
        "behaviours, policy files, trained bots): every mix of the game's seats over them, "
        "or every profile with --seatings roles (a study, resumable), and print and write "
        "its payoff table with 95% intervals (docs/game-theory.md).")
    population.add_argument("file", type=Path, metavar="POPULATION.toml",
                            help="the population file")
    population.add_argument("--seatings", choices=("symmetric", "roles"), default="symmetric",
                            help="every mix of the seats (symmetric, default) or every "
                            "profile, each seat a population of its own (roles)")
    metagame_arguments(population, "<out>/<name>-<seatings>")
    population.set_defaults(command=game_theory.population, name="population")

    psro = commands.add_parser(
        "psro", help="PSRO over a population's policies, with IPPO best responses",
        description="Policy-Space Response Oracles (Lanctot et al. 2017) from a population "
        "file of network policies and scripted behaviours: solve the meta-game, train a best response with the "
        "--oracle deep training against co-players drawn from the meta-strategy, add it, "
        "repeat; print and write each iteration's meta-strategy, value and gain, and a "
        "figure (resumable; docs/game-theory.md).")
    psro.add_argument("file", type=Path, metavar="POPULATION.toml",
                      help="the population file (one strategy or more, every one a network)")
    psro.add_argument("--oracle", type=Path, required=True, metavar="TRAIN.toml",
                      help="the deep training file whose learner trains each best response")
    psro.add_argument("--solver", choices=("nash", "alpharank", "uniform"), default="nash",
                      help="the meta-solver (default nash)")
    psro.add_argument("--iterations", type=int, default=3, help="at most (default 3)")
    metagame_arguments(psro, "<out>/<population>-psro")
    psro.set_defaults(command=game_theory.psro, name="psro")

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
    optimal.set_defaults(command=game_theory.optimal, name="optimal")

    dashboard = commands.add_parser(
        "dashboard", help="serve the dashboard on 127.0.0.1",
        description="Fill the front-end cache if needed (dilemmas.dashboard.assets, from the "
        "npm registry) and serve dilemmas.dashboard.app with `solara run` on 127.0.0.1, "
        "without the CDN.")
    dashboard.add_argument("--port", type=int, default=8765,
                           help="port, 1 to 65535 (default 8765)")
    dashboard.add_argument("--assets", type=Path, help="the front-end cache folder (default: "
                           "$SOLARA_ASSETS_PROXY_CACHE_DIR, else ~/.cache/dilemmas/"
                           "solara-assets)")
    dashboard.set_defaults(command=_dashboard, name="dashboard")
    return parser


def _games(args):
    if args.game is None:
        width = max(map(len, GAMES))
        for game in GAMES.values():  # no behaviours here: listing them would import Mesa
            print(f"{game.name:<{width}}  {game.title}: {len(game.parameters)} parameters, "
                  f"rules version {game.rules_version}, round: {game.round}")
        print("\n`dilemmas games GAME` lists a game's parameters and behaviours.")
        return
    game = GAMES[args.game]
    print(f"{game.title} ({game.name}); rounds: {game.round}s; rules: {game.rules}")
    print(f"example study: {game.study} (`dilemmas run {game.name}` runs it)\n")
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


def _play(args):
    parameters = settings(args.game, args.set)
    game = GAMES[args.game]
    model = game.model(**parameters, rng=args.seed)
    model.run_model()
    rows = model.datacollector.get_model_vars_dataframe()
    statistics = game.statistics(rows.assign(run=0), "run")
    print(f"{args.game}, seed {args.seed}, {len(rows) - 1} steps"
          + (f", {parameters}" if parameters else ""))
    print(f"\nfinal state (the model columns at the last step: some count that step alone, "
          f"some the episode so far, as docs/rules/{game.rules.name} says of each)\n"
          + rows.iloc[-1].to_string())
    for column in rows.columns[rows.iloc[-1].isna()]:
        print(f"  {column} is NaN: {_column_meaning(game, column)}")
    print("\nepisode (statistics of the whole episode)\n" + statistics.iloc[0].to_string())
    if "reward" in model.agent_reporters:
        agents = model.datacollector.get_agent_vars_dataframe()
        final = agents.xs(agents.index.get_level_values(0).max(), level=0)
        seat = {agent.unique_id: agent.seat for agent in model.seats}
        final.insert(0, "pettingzoo", [f"agent_{seat[i]}" for i in final.index])
        print("\nagents (the last step; AgentID is the Mesa model's, pettingzoo the same seat "
              "in the PettingZoo environment)\n" + final.to_string())


def _column_meaning(game, column: str) -> str:
    """A model column's row of the table in the game's rules (docs/rules/<game>.md), which
    says when it is NaN."""
    found = re.search(rf"^\| `{re.escape(column)}` \| (.+?) \|$", game.rules.read_text(), re.M)
    where = f"docs/rules/{game.rules.name}"
    return f"{found.group(1)} ({where})" if found else f"see {where}"


def _run(args):
    from dilemmas.analysis.studies.runner import run_study

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
    from dilemmas.analysis.studies import results

    print(results.summary_text(args.folder, args.ci))


def _figures(args):
    from dilemmas.analysis.figures.paper import make_figures

    folders = args.folders or sorted(p.parent for p in args.results.glob("*/study.json"))
    if not folders:
        raise FileNotFoundError(f"no study results in {args.results} (no */study.json)")
    check_writable(args.out)
    skipped = []
    for path in make_figures(folders, args.out, skipped, args.caption, args.width):
        print(path)
    for reason in skipped:
        print(f"skipped: {reason}", file=sys.stderr)


def _results(args) -> Path:
    """The results folder of a plot or sensitivity command's STUDY: a folder, or the study
    file's ``<--results>/<name>``."""
    if args.study.is_dir():
        return args.study
    if args.study.is_file():
        return args.results / Study.from_file(args.study).name
    raise FileNotFoundError(f"{args.study} is neither a study's results folder nor a study "
                            "file")


def _plot(args):
    from dilemmas.analysis.figures.paper import layout, save
    from dilemmas.analysis.figures.plot import plot

    folder = _results(args)
    check_writable(args.out)
    with layout(args.caption, args.width):
        figure = plot(folder, args.x, args.y, args.hue, args.facet)
    name = "_".join([folder.name, "plot", args.y, "by", args.x,
                     *([f"hue_{args.hue}"] if args.hue else []),
                     *([f"facet_{args.facet}"] if args.facet else [])])
    for path in save(figure, args.out, name):
        print(path)


def _sensitivity(args):
    from dilemmas.analysis.figures.indices import indices_figure
    from dilemmas.analysis.figures.paper import layout, save
    from dilemmas.analysis.sensitivity import sensitivity, text

    folder = _results(args)
    check_writable(args.out)
    table = sensitivity(folder, args.statistic)
    print(text(table))
    name = f"{folder.name}_sensitivity_{args.statistic}"
    make_folder(args.out)
    csv = args.out / f"{name}.csv"
    extra = {key: table.attrs[key] for key in ("statistic", "kind", "points", "replicates",
                                               "runs", "noise_share", "noise_in_means")}
    table.assign(**extra).to_csv(csv, index=False)
    with layout(args.caption, args.width):
        figure = indices_figure(table)
    print()
    for path in [csv, *save(figure, args.out, name)]:
        print(path)


def _evaluate(args):
    if args.replicates is not None and not args.cross_play:
        raise ValueError("--replicates is for --cross-play; an evaluation takes its runs from "
                         "the training file's [evaluate] seeds")
    if args.replicates is not None and args.replicates < 1:
        raise ValueError(f"--replicates {args.replicates} is invalid: must be an integer >= 1")
    if args.scenario is not None:
        if args.cross_play:
            raise ValueError("--cross-play is for a training file, not --scenario")
        if args.trained is not None:
            raise ValueError("--trained is for a training file; with --scenario, give the "
                             "policy file itself")
        return scenarios.evaluate(args)
    if args.label is not None or args.seed != 0:
        raise ValueError("--name and --seed are for --scenario; a training file's evaluation "
                         "takes its seed from the file")
    if len(args.training) > 1:
        raise ValueError("one training file at a time (several policy files are for "
                         "--scenario)")
    args.training = args.training[0]
    args.out = args.out or Path("results")
    args.trained = args.trained or Path("results/training")
    return learning.evaluate(args)


def _dashboard(args):
    from dilemmas.dashboard.assets import default_cache

    if not 1 <= args.port <= 65535:  # a TCP port; 0 would be any free port, not told
        raise ValueError(f"--port {args.port} is invalid: must be a TCP port from 1 to 65535")
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
