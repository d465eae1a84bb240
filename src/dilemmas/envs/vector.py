"""Many episodes of a game at once, as a Gymnasium vector environment of its agents.

``vector_env(game, episodes, seed=None, **parameters)`` plays ``episodes`` episodes of one
parameter set together on the game's batch engine, through its functional interface
(``dilemmas.envs.functional``: the same rules, observations and rewards, ``vmap``-ped over
the episodes and compiled by JAX). It is a ``gymnasium.vector.VectorEnv`` whose sub-
environments are the agents of every episode, the layout SuperSuit's
``pettingzoo_env_to_vec_env_v1`` gives a PettingZoo environment: ``num_envs = episodes x
agents`` rows, row ``e * agents + j`` the agent ``env.agents[j]`` of episode ``e``, so that a
single-agent learner (Stable-Baselines3, CleanRL) trains one policy shared by all agents.

* ``reset(seed=None)`` -> ``(observations, infos)``; ``observations`` float32 ``(num_envs,
  L)``, and ``infos["action_mask"]`` int8 ``(num_envs, A)``: what ``parallel_env`` gives each
  agent (docs/rules/<game>.md, "Learning agents").
* ``step(actions)``, ``actions`` integers ``(num_envs,)`` in ``0 .. A - 1`` (out of range: a
  ValueError naming the row) -> ``(observations, rewards, terminations, truncations,
  infos)``, each ``(num_envs,)`` after the observations: each agent's reward since its last
  step, terminated where the rules ended its episode, truncated where ``max_steps`` did. An
  action the mask forbids is played as it is everywhere else (docs/rules/README.md,
  "Learning agents").
* ``infos["action_mask"]``: the masks of the observations returned; ``infos["phase"]``: the
  decision that comes next, one entry per row as Gymnasium's ``DictInfoToList`` wants (every
  episode is at the same one: a round with two decisions, Bucket Brigade's, takes two steps,
  and an episode ends only after a round's last).
* ``render()`` with ``render_mode="rgb_array"``: a tuple of RGB arrays, one per episode
  (its agents' rows share it), each the episode's world as the dashboard draws it (its state
  loaded into the game's Mesa model, the batch engine's ``load``); None without a render
  mode.

Automatic reset, per episode (Gymnasium's ``AutoresetMode.SAME_STEP``): on the step where an
episode ends, its rows report the ended episode's rewards and flags, and already hold the
observations of a fresh episode; the observations it closed with are in
``infos["final_obs"]`` (``(num_envs, L)``, rows that did not end as they were) where
``infos["_final_obs"]`` is True. No row sits idle.

Randomness: one JAX key, from ``seed`` (``reset(seed=...)`` replaces it; an unseeded first
reset draws one), split for every step: the same seed and actions give the same arrays on
a given backend.
"""

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from dilemmas.envs.functional import FunctionalEnv


def vector_env(game: str, episodes: int, *, seed=None, render_mode=None,
               **parameters) -> "VectorDilemmaEnv":
    """``episodes`` episodes of a game with a batch engine at once (module docstring)."""
    return VectorDilemmaEnv(game, episodes, seed=seed, render_mode=render_mode, **parameters)


class VectorDilemmaEnv(VectorEnv):
    """A game's agents in ``episodes`` episodes as one Gymnasium vector environment (module
    docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["rgb_array"]}

    def __init__(self, game: str, episodes: int, *, seed=None, render_mode=None, **parameters):
        if type(episodes) is not int or episodes < 1:
            raise ValueError(f"episodes={episodes!r} is invalid: must be an integer >= 1")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode={render_mode!r} is invalid: must be None or "
                             "'rgb_array'")
        import jax

        self.functional = functional = FunctionalEnv(game, **parameters)
        self.game = functional.game
        self.episodes = episodes
        self.agents = self.possible_agents = list(functional.agents)
        self.num_agents = functional.num_agents
        self.num_envs = episodes * self.num_agents
        self.single_observation_space = functional.observation_space(self.agents[0])
        self.single_action_space = functional.action_space(self.agents[0])
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = render_mode
        self._parameters = parameters
        self._length = self.single_observation_space.shape[0]
        self._key = None if seed is None else jax.random.key(seed)
        self._start = jax.jit(self._started)
        self._decisions = [jax.jit(self._decided(index))
                           for index in range(len(functional.decisions))]
        self.state, self.phase = None, None

    def _started(self, key):
        import jax

        key, now = jax.random.split(key)
        vectors, state = jax.vmap(self.functional.start)(jax.random.split(now, self.episodes))
        return key, vectors, state

    def _decided(self, index: int):
        """The batch's step in the decision ``index``: the functional environment's
        ``decide_and_reset`` over every episode, but the episodes' end observed and fresh
        episodes drawn only on a step where one ended."""
        import jax
        import jax.numpy as jnp

        functional, episodes = self.functional, self.episodes
        last = index + 1 == len(functional.decisions)

        def each(function, keys, *arrays):
            return jax.vmap(function)(keys, *arrays)

        def decided(key, state, chosen):
            key, *now = jax.random.split(key, 6)
            keys = [jax.random.split(k, episodes) for k in now]
            after, rewards, ended, by_rules, _ = each(
                lambda k, s, c: functional.advance(index, k, s, c), keys[0], state, chosen)
            if not last:
                vectors, after = each(lambda k, s: functional.observed(k, s, index + 1),
                                      keys[1], after)
                return key, vectors, after, rewards, ended, by_rules, vectors
            any_ended = ended.any()
            final = jax.lax.cond(any_ended, lambda s: each(functional.closing, keys[2], s),
                                 lambda s: jnp.zeros((episodes, functional.num_agents,
                                                      self._length), jnp.float32), after)
            after = each(functional.opened, keys[3], after)

            def renewed(after):
                fresh = each(lambda k: functional._begun(k), keys[4])
                return jax.tree_util.tree_map(
                    lambda new, old: jnp.where(ended.reshape(-1, *(1,) * (old.ndim - 1)),
                                               new, old), fresh, after)

            after = jax.lax.cond(any_ended, renewed, lambda s: s, after)
            vectors, after = each(lambda k, s: functional.observed(k, s, 0), keys[1], after)
            return key, vectors, after, rewards, ended, by_rules, final

        return decided

    def reset(self, seed=None, options=None):
        """Fresh episodes in every row; ``seed`` replaces the key."""
        import jax

        if seed is not None or self._key is None:
            self._key = jax.random.key(np.random.SeedSequence(seed).generate_state(1)[0]
                                       if seed is None else seed)
        self._key, vectors, self.state = self._start(self._key)
        self.phase = 0
        return self._observations(vectors), self._infos()

    def step(self, actions):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        chosen = self._checked(actions).reshape(self.episodes, self.num_agents)
        (self._key, vectors, self.state, rewards, ended, by_rules,
         final) = self._decisions[self.phase](self._key, self.state, chosen)
        self.phase = (self.phase + 1) % len(self._decisions)
        ended, by_rules = np.asarray(ended), np.asarray(by_rules)
        terminated = np.repeat(ended & by_rules, self.num_agents)
        truncated = np.repeat(ended & ~by_rules, self.num_agents)
        infos = self._infos()
        if ended.any():
            infos["final_obs"] = self._observations(final)
            infos["_final_obs"] = terminated | truncated
        return (self._observations(vectors), np.asarray(rewards, dtype=np.float64).reshape(-1),
                terminated, truncated, infos)

    def _observations(self, vectors) -> np.ndarray:
        return np.asarray(vectors).reshape(self.num_envs, -1)

    def _infos(self) -> dict:
        return {"action_mask": np.asarray(self.state.mask).reshape(self.num_envs, -1),
                "phase": np.full(self.num_envs, self.functional.decisions[self.phase])}

    def render(self):
        """Each episode's world as an RGB array (module docstring)."""
        if self.render_mode is None:
            return None
        if self.state is None:
            raise RuntimeError("call reset() before render()")
        from dilemmas.envs.parallel import _refuse, drawn

        arrays = {name: np.asarray(value) for name, value in self.state.arrays.items()}
        frames = []
        for e, t in enumerate(np.asarray(self.state.t).tolist()):
            model = self.game.model(**{"population": "policy", **self._parameters},
                                    policy=_refuse, collect_data=False, rng=0)
            self.functional.template.load(model, {"t": t, **{name: value[e, 0] for name, value
                                                            in arrays.items()}})
            frames.append(drawn(self.game, model))
        return tuple(frames)

    def _checked(self, actions) -> np.ndarray:
        """The actions as int32 ``(num_envs,)``; a ValueError names the first row whose
        action is not an integer in range."""
        given = np.asarray(actions)
        count = self.single_action_space.n
        if given.shape != (self.num_envs,) or given.dtype.kind not in "iu":
            raise ValueError(f"actions must be an integer array of shape ({self.num_envs},), "
                             f"one per row (episodes x agents); got {given.dtype} "
                             f"{given.shape}")
        wrong = (given < 0) | (given >= count)
        if wrong.any():
            row = int(np.argmax(wrong))
            raise ValueError(f"action {given[row]} in row {row} (episode "
                             f"{row // self.num_agents}, {self.agents[row % self.num_agents]}) "
                             f"is invalid: must be in 0 .. {count - 1}")
        return given.astype(np.int32)

    def close(self, **kwargs):
        """Let go of the episodes' arrays (``reset`` starts afresh)."""
        self.state = None
