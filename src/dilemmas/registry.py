"""The one registry of games (docs/rules/README.md, rule 1).

A game registers once, with a :class:`Game` record (the four games' registrations are
``dilemmas.games``; a game kept elsewhere registers when its module is imported); everything
else -- the CLI, studies and the runner, results and figures, the dashboard, the
benchmarks and the contract tests -- finds it in ``dilemmas.GAMES`` and reaches from there
whatever the game contributes besides its model:

* ``behaviours``: behaviour name -> ``Agent`` subclass (what ``population`` accepts);
* ``statistics``: ``statistics(rows, run)``, one row of episode statistics per run from the
  model's DataCollector rows;
* ``ranges``: episode statistic -> ``(low, high)``, the range its values can take (None for
  an open end), which keeps its confidence intervals inside it
  (``dilemmas.analysis.studies.results.aggregate``); optional: a statistic not in it gets a
  Student-t interval;
* ``figures``: figure name -> ``draw(folder)``, the paper figures of a study of the game;
* ``view``: the dashboard's drawing of the world and its plots (``dilemmas.dashboard.View``);
* ``interface``: how learning agents see and act in the game
  (``dilemmas.models.interface.Interface``), which makes it a PettingZoo environment
  (``dilemmas.parallel_env``) and gives the ``policy`` behaviour its observations; None for a game
  without one;
* ``study``: an example study file (TOML), which the main job runs;
* ``training``: an example training file (TOML), for ``dilemmas train GAME``; None for a
  game without one;
* ``dilemma``: its cooperative and its selfish behaviour, the pair of its Schelling diagram
  (``dilemmas.analysis.game_theory.schelling``); None for a game without one;
* ``batch``: its batch engine (``dilemmas.models.batch.BatchEngine``), which plays many
  episodes at once with the model's own rule functions; None for a game played by its model only;
* ``rules_version``: the version of its rules that results record (1 until a change of
  the rules changes the results of the same parameters and seed);
* ``model_versions``: the rules versions whose Mesa-model episodes its model plays again
  number for number (a version may change only the batch engine's); ``(rules_version,)``
  unless given;
* ``benchmarks``: the configurations its benchmark plays;
* ``rules``: its rules document, whose DataCollector columns the contract suite checks.

``model``, ``parameters`` (default: the model's), ``behaviours``, ``statistics``,
``ranges``, ``figures``, ``view``, ``interface`` and ``batch`` may be given as
``"module:name"``, imported when first used: the registration then imports none of the
model, behaviours, analysis or dashboard code before it is needed (a sweep needs no
dashboard; ``dilemmas --help`` needs no Mesa), and the model code never names them
(``tests/test_layers.py``).

``register`` also tells the model its registration, ``model.game``, so a model finds its
behaviours: at once for a model class given itself, and for one given as ``"module:name"``
when its class is defined (``PhasedModel.__init_subclass__`` asks ``registration_of``).
"""

import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: Every registered game, by name, in the order registered.
GAMES: dict[str, "Game"] = {}


@dataclass(frozen=True)
class Benchmark:
    """One benchmark configuration: a label and the model parameters it plays with.
    ``observe``: every agent builds its observation on every action (the scripted and
    ``random`` behaviours never ask for one)."""

    label: str
    parameters: dict = field(default_factory=dict)
    observe: bool = False


def load(reference):
    """The object a ``"module:name"`` reference names (imported), or ``reference`` itself."""
    if isinstance(reference, str):
        module, _, attribute = reference.partition(":")
        return getattr(importlib.import_module(module), attribute)
    return reference


class _Loaded:
    """A ``"module:name"`` reference, imported on first use and then kept."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, game, owner=None):
        if game is None:
            return self
        reference = load(game.references[self.name])
        game.__dict__[self.name] = reference  # later reads skip this method
        return reference


#: The registrations of models given as ``"module:name"``, by that reference: a model class
#: defined after its game registered finds its registration here (``registration_of``).
_BY_MODEL: dict[str, "Game"] = {}


def registration_of(cls) -> "Game | None":
    """The registration of the model class ``cls`` given by reference, if any."""
    return _BY_MODEL.get(f"{cls.__module__}:{cls.__qualname__}")


class Game:
    """Everything a game contributes, reached from its one registration (module docstring).

    ``round`` names one ``step()`` of the game ("night", "turn", "step"), for tables.
    ``team_reward`` names the model column of the team reward where the rules define one
    (as it would stand if the episode ended now): the deep learners' ``reward = "team"``.
    ``world_colours``: every colour the dashboard draws the game's world in (its cells,
    houses, resources, beams), which no behaviour's colour may come near
    (``dilemmas.analysis.figures.colours.behaviour_colours``).
    """

    model = _Loaded()
    behaviours = _Loaded()
    statistics = _Loaded()
    ranges = _Loaded()
    figures = _Loaded()
    view = _Loaded()
    interface = _Loaded()
    batch = _Loaded()
    world_colours = _Loaded()

    def __init__(self, *, name: str, title: str, model, behaviours, statistics,
                 figures, view, study, rules, training=None, benchmarks=(),
                 round: str = "round", parameters=None,
                 interface=None, dilemma: tuple[str, str] | None = None, ranges=None,
                 batch=None, rules_version: int = 1, model_versions=None,
                 team_reward: str | None = None, world_colours=None):
        self.name, self.title, self.round = name, title, round
        self.team_reward = team_reward
        self.references = {"model": model, "behaviours": behaviours, "statistics": statistics,
                           "parameters": parameters,
                           "ranges": {} if ranges is None else ranges,
                           "figures": figures, "view": view, "interface": interface,
                           "batch": batch,
                           "world_colours": () if world_colours is None else world_colours}
        self.rules_version = rules_version
        self.model_versions = (rules_version,) if model_versions is None else model_versions
        self.study, self.rules = Path(study), Path(rules)
        self.training = None if training is None else Path(training)
        self.benchmarks = tuple(benchmarks)
        self.dilemma = None if dilemma is None else tuple(dilemma)

    @property
    def parameters(self):
        """The declared parameters (``dilemmas.models.parameters.Parameters``): those the
        registration names, else its model's."""
        reference = self.references["parameters"]
        return self.model.parameters if reference is None else load(reference)

    def __repr__(self):
        model = self.references["model"]
        return f"Game({self.name!r}, {model if isinstance(model, str) else model.__name__})"


def register(game: Game) -> Game:
    """Add ``game`` to ``GAMES`` (a name registered twice is an error) and tell its model:
    a model class given itself at once, one given as ``"module:name"`` when its class is
    defined (``registration_of``), so registering imports none of it."""
    model = game.references["model"]
    if game.name in GAMES and GAMES[game.name].references["model"] != model \
            and GAMES[game.name].references["model"] is not model:
        raise ValueError(f"a game named {game.name!r} is already registered")
    GAMES[game.name] = game
    if isinstance(model, str):
        _BY_MODEL[model] = game
        if model.partition(":")[0] in sys.modules:  # the class was defined before its game registered
            load(model).game = game
    else:
        model.game = game
    return game
