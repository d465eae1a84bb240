"""Every registered game as an environment for learning agents: a PettingZoo
``ParallelEnv`` on its Mesa model (``parallel``) and many episodes at once on its batch
engine (``vector``); docs/rules/README.md, "Learning agents"."""


def parallel_env(game: str, render_mode: str | None = None, **parameters):
    """The PettingZoo ``ParallelEnv`` of a registered game (``dilemmas.envs.parallel``)."""
    from dilemmas.envs.parallel import DilemmaEnv

    return DilemmaEnv(game, render_mode=render_mode, **parameters)


def vector_env(game: str, num_envs: int, *, seed=None, **parameters):
    """``num_envs`` episodes of a game at once on its batch engine, as one environment
    (``dilemmas.envs.vector``)."""
    from dilemmas.envs.vector import VectorDilemmaEnv

    return VectorDilemmaEnv(game, num_envs, seed=seed, **parameters)
