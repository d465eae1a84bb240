"""dilemmas: four multi-agent social-dilemma games as Mesa models, PettingZoo environments
and batch engines, with sweeps, game theory, learners, figures and a Solara dashboard.

Importing the package registers the four games (``dilemmas.games``). ``GAMES[name]`` is a
game's registration (``dilemmas.registry.Game``) and ``GAMES[name].model`` its Mesa model;
``parallel_env`` (and ``aec_env``), ``functional_env``, ``vector_env`` (and ``sb3_vec_env``) and ``single_env`` make
any game an environment for learning agents (PettingZoo, JAX trainers, Gymnasium and
Stable-Baselines3 vector environments, a single-agent Gymnasium ``Env`` of one seat).

The layers, each importing only those listed before it:

* ``dilemmas.models``: the rules -- each game's Mesa model, parameters, array rules, batch
  engine, environment encoding and replays in ``dilemmas.models.<game>``, and the machinery
  they share (phases, parameters, populations, policies and learners, batch engines);
* ``dilemmas.agents``: each game's behaviours, as Mesa ``Agent`` subclasses;
* ``dilemmas.analysis``: studies and the sweep runner, the tabular learners' training and
  evaluation, game theory and figures;
* ``dilemmas.dashboard``: the Solara dashboard;
* ``dilemmas.envs``: every game as a PettingZoo environment (drawn with the dashboard's
  scene), pure JAX functions, a Gymnasium vector environment and one seat as a Gymnasium
  ``Env``;
* ``dilemmas.learning``: the deep learners (IPPO, MAPPO) trained on those environments;
* ``dilemmas.scenarios``: the benchmark suite -- named, versioned scenarios with trained
  co-players, and their stored baselines;
* ``dilemmas.cli``: the ``dilemmas`` command;
* ``dilemmas.games``: the registrations, which name what each layer contributes to a game.

``dilemmas.batch_run`` (``dilemmas/batch_run.py``, beside the layers: it reaches only the
registry and ``dilemmas.models``) is ``mesa.batch_run``'s call and rows, with a registered
game's parameter combinations played on its batch engine where it can play them.
"""

import importlib

from dilemmas.registry import GAMES, Benchmark, Game, register
from dilemmas import games  # noqa: F401  (registers the four games)
# imported here, not lazily, so that ``dilemmas.batch_run`` is the function even after
# ``import dilemmas.batch_run`` (the module imports only the standard library until called)
from dilemmas.batch_run import batch_run

#: What ``dilemmas.<name>`` gives, imported when first asked for (PEP 562), so that importing
#: the package, as the command does, loads neither Mesa nor the environments' libraries.
_LAZY = {
    "aec_env": "dilemmas.envs", "functional_env": "dilemmas.envs",
    "parallel_env": "dilemmas.envs", "vector_env": "dilemmas.envs",
    "single_env": "dilemmas.envs", "sb3_vec_env": "dilemmas.envs",
    "BucketBrigadeModel": "dilemmas.models.bucket_brigade.model",
    "FirefightingGraphModel": "dilemmas.models.firefighting_graph.model",
    "StagHuntModel": "dilemmas.models.stag_hunt.model",
    "StatePunishmentModel": "dilemmas.models.state_punishment.model",
}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dilemmas' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_LAZY])

__all__ = ["GAMES", "Benchmark", "Game", "batch_run", "aec_env", "functional_env", "parallel_env", "vector_env",
           "single_env", "sb3_vec_env", "register",
           "BucketBrigadeModel", "FirefightingGraphModel", "StagHuntModel",
           "StatePunishmentModel"]
