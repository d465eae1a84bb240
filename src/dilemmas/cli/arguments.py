"""What several commands of ``dilemmas`` take: a study or training file or a game's name
for its packaged example, the backend, behaviour mixes and ``--set`` values."""

import argparse
import tomllib
from pathlib import Path

from dilemmas import GAMES
from dilemmas.analysis.studies.study import BACKENDS, game_parameters


def example(kind: str):
    """An argument type: a path, or the name of a game for the example file its registration
    names (``kind``: ``study`` or ``training``) unless a file of that name exists here."""
    def path(text: str) -> Path:
        given = Path(text)
        if text in GAMES and not given.exists():
            example = getattr(GAMES[text], kind)
            if example is None:
                raise argparse.ArgumentTypeError(f"the game {text!r} ships no example {kind} file")
            return example
        return given
    return path


def backend_arguments(parser):
    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help="local process pool (default), dask, or serial")
    parser.add_argument("--workers", type=int, help="processes (default: every core)")
    parser.add_argument("--scheduler", help="dask scheduler address (default: a LocalCluster)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def metagame_arguments(parser, out: str):
    """The runs of each mix or profile of a population's meta-game, its seed, where its
    results go (``out``: what under ``--out``), and the backend."""
    parser.add_argument("--replicates", type=int, default=10,
                        help="runs per mix or profile (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="the study's seed (default 0)")
    parser.add_argument("--out", type=Path, default=Path("results"),
                        help=f"results folder (default: results): {out}")
    backend_arguments(parser)


def figure_arguments(parser):
    """Where a figure's caption goes and how wide it is (``dilemmas.analysis.figures.paper``
    ``layout``)."""
    parser.add_argument("--caption", choices=("inside", "beside"), default="inside",
                        help="the caption under the axes (inside, default), or beside the "
                        "figure: <figure>.txt and a LaTeX <figure>.tex")
    parser.add_argument("--width", choices=("one", "two"),
                        help="one journal column (3.5 in) or two (7.2 in); default: the "
                        "figure's own width")


def study_arguments(parser):
    """The study a plot or sensitivity command reads, where a study file's results are, and
    where it writes."""
    parser.add_argument("study", type=Path, help="the study's results folder, or its study "
                        "file (TOML; its results in --results/<name>)")
    parser.add_argument("--results", type=Path, default=Path("results"),
                        help="where a study file's results are (default: results)")
    parser.add_argument("--out", type=Path, default=Path("results/figures"),
                        help="folder for the figure (default: results/figures)")
    figure_arguments(parser)


def mix_arguments(parser, replicates: int, behaviours: bool = True, population: bool = False):
    """The arguments of a command that plays a study of behaviour mixes of a game (with
    ``population``, or of a population file's strategies: ``population_arguments``)."""
    if population:
        parser.add_argument("game", metavar="GAME|POPULATION.toml",
                            help=f"one of {', '.join(sorted(GAMES))}, or a population file "
                            "(docs/game-theory.md)")
        parser.add_argument("--seatings", choices=("symmetric", "roles"), default="symmetric",
                            help="with a population file: every mix of the seats "
                            "(symmetric, default) or every profile, each seat a population "
                            "of its own (roles)")
    else:
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
    backend_arguments(parser)


def value(text: str):
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def settings(game: str, items) -> dict:
    """The parameters of ``--set KEY=VALUE`` items."""
    parameters = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r} must be KEY=VALUE")
        if key.strip() not in game_parameters(game):
            raise ValueError(f"--set {key.strip()}: not a parameter of {game}; "
                             f"allowed: {game_parameters(game)}")
        parameters[key.strip()] = value(text.strip())
    return parameters


def behaviour_list(text):
    return None if text is None else [name.strip() for name in text.split(",") if name.strip()]


def interval_text(mean, low, high) -> str:
    return "" if mean != mean else f"{mean:.4g} [{low:.4g}, {high:.4g}]"
