"""Every registered game as an environment for learning agents: a PettingZoo
``ParallelEnv`` (``parallel``) and its AEC form (``aec_env``), pure JAX functions of one episode for JAX trainers
(``functional``, games with a batch engine) and a Gymnasium vector environment of many
episodes' agents (``vector``, on the functional one; ``sb3`` shows it to Stable-Baselines3) and one seat as a single-agent Gymnasium
``Env`` (``single``); docs/rules/README.md, "Learning agents". Importing it registers every
game with PettingZoo's registry and its single-agent view with Gymnasium's."""


def parallel_env(game: str, render_mode: str | None = None, **parameters):
    """The PettingZoo ``ParallelEnv`` of a registered game (``dilemmas.envs.parallel``)."""
    from dilemmas.envs.parallel import DilemmaEnv

    return DilemmaEnv(game, render_mode=render_mode, **parameters)


def aec_env(game: str, render_mode: str | None = None, **parameters):
    """The same environment in PettingZoo's AEC form (the agents act one after another,
    each action kept until every agent has chosen; ``pettingzoo.utils.parallel_to_aec``)."""
    from pettingzoo.utils.conversions import parallel_to_aec

    return parallel_to_aec(parallel_env(game, render_mode=render_mode, **parameters))


def functional_env(game: str, **parameters):
    """One episode of a game as pure JAX functions, ``reset(key)`` and ``step(key, state,
    actions)`` (``dilemmas.envs.functional``)."""
    from dilemmas.envs.functional import FunctionalEnv

    return FunctionalEnv(game, **parameters)


def vector_env(game: str, episodes: int, *, seed=None, render_mode=None, **parameters):
    """``episodes`` episodes of a game at once, their agents the rows of a Gymnasium
    ``VectorEnv`` (``dilemmas.envs.vector``)."""
    from dilemmas.envs.vector import VectorDilemmaEnv

    return VectorDilemmaEnv(game, episodes, seed=seed, render_mode=render_mode, **parameters)


def sb3_vec_env(game: str, episodes: int, *, seed=None, render_mode=None, **parameters):
    """``vector_env``'s rows as a Stable-Baselines3 ``VecEnv``, seeded by ``PPO(...,
    seed=...)`` as its own are (``dilemmas.envs.sb3``; needs Stable-Baselines3)."""
    try:
        from dilemmas.envs.sb3 import DilemmaVecEnv
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in ("stable_baselines3", "torch"):
            raise
        raise ImportError("sb3_vec_env needs Stable-Baselines3, which is not installed: "
                          "pip install stable-baselines3") from None
    return DilemmaVecEnv(vector_env(game, episodes, seed=seed, render_mode=render_mode,
                                    **parameters))


def single_env(game: str, others=None, render_mode: str | None = None, **parameters):
    """One seat of a game as a single-agent Gymnasium ``Env``: the first ``policy`` seat of
    ``population`` learns, ``others`` (a callable or a policy file) plays the other
    ``policy`` seats (``dilemmas.envs.single``)."""
    from dilemmas.envs.single import SingleAgentEnv

    return SingleAgentEnv(game, others=others, render_mode=render_mode, **parameters)


def _register_with_pettingzoo() -> None:
    """Each game in PettingZoo's registry (PettingZoo 1.27 and later have one), as
    ``dilemmas/<game>-v0`` in both its ``"parallel"`` and ``"aec"`` registries:
    ``pettingzoo.make("parallel", "dilemmas/bucket_brigade-v0", **parameters)`` is
    ``parallel_env("bucket_brigade", **parameters)``. Registered on importing this module."""
    import functools

    import pettingzoo

    from dilemmas.registry import GAMES

    if not hasattr(pettingzoo, "register"):
        return
    for name, game in GAMES.items():
        if game.interface is not None:
            for kind, make in (("parallel", parallel_env), ("aec", aec_env)):
                pettingzoo.register(kind, f"dilemmas/{name}-v0",
                                    entry_point=functools.partial(make, name))


def _register_with_gymnasium() -> None:
    """Each game's single-agent view in Gymnasium's registry, as ``dilemmas/<game>-v0``:
    ``gymnasium.make("dilemmas/stag_hunt-v0", **arguments)`` is ``single_env("stag_hunt",
    **arguments)``, wrapped as ``gymnasium.make`` wraps. Registered on importing this
    module."""
    import functools

    import gymnasium

    from dilemmas.registry import GAMES

    for name, game in GAMES.items():
        if game.interface is not None:
            gymnasium.register(f"dilemmas/{name}-v0",
                               entry_point=functools.partial(single_env, name))


_register_with_pettingzoo()
_register_with_gymnasium()
