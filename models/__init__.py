"""The games, each a Mesa model registered once in ``GAMES`` (docs/rules/README.md, rule 1).

Importing this package registers the four games; ``GAMES[name]`` is a game's registration
(``models.registry.Game``) and ``GAMES[name].model`` its Mesa model class.
"""

from models.registry import GAMES, Benchmark, Game, register
from models.bucket_brigade import BucketBrigadeModel
from models.state_punishment import StatePunishmentModel
from models.stag_hunt import StagHuntModel
from models.firefighting_graph import FirefightingGraphModel



def parallel_env(game: str, render_mode: str | None = None, **parameters):
    """The PettingZoo ``ParallelEnv`` of a registered game (``models.env``)."""
    from models.env import DilemmaEnv

    return DilemmaEnv(game, render_mode=render_mode, **parameters)


def vector_env(game: str, num_envs: int, *, seed=None, **parameters):
    """``num_envs`` episodes of a game at once on its batch engine, as one environment
    (``models.vector_env``)."""
    from models.vector_env import VectorDilemmaEnv

    return VectorDilemmaEnv(game, num_envs, seed=seed, **parameters)


__all__ = ["GAMES", "Benchmark", "Game", "parallel_env", "vector_env", "register", "BucketBrigadeModel",
           "FirefightingGraphModel", "StagHuntModel", "StatePunishmentModel"]
