"""A game's agents as a Stable-Baselines3 vector environment, seeded as its users seed it.

``dilemmas.sb3_vec_env(game, episodes, seed=None, **parameters)`` is ``vector_env``'s episodes
(``dilemmas.envs.vector``: the same rows, ``num_envs = episodes x agents``, row
``e * agents + j`` the agent ``env.agents[j]`` of episode ``e``, the same observations,
rewards and automatic reset) behind Stable-Baselines3's ``VecEnv`` interface, so that
``PPO("MlpPolicy", sb3_vec_env("stag_hunt", 8), seed=0)`` trains one policy shared by every
agent:

* ``seed(s)`` (which ``PPO(..., seed=s)`` calls) keeps ``s`` for the next ``reset()``, as
  Stable-Baselines3's own vector environments do; the whole batch draws from one JAX key,
  so the seed of row 0 (``s``) is the batch's and the same seed gives the same episodes.
* ``step_wait()`` -> ``(observations, rewards, dones, infos)``: ``dones`` where an
  episode ended (terminated or truncated); each row's info dict holds its
  ``action_mask``, and where its episode ended ``terminal_observation`` (what the episode
  closed with; the row already observes a fresh episode) and ``TimeLimit.truncated``
  (``max_steps`` ended it, not the rules), as Stable-Baselines3 bootstraps them.
* ``render()``/``get_images()`` with ``render_mode="rgb_array"``: each episode's world, one
  image per row (the rows of an episode share it).

There are no sub-environment objects: ``get_attr``, ``set_attr`` and ``env_method`` reach
the one ``VectorDilemmaEnv`` (a method is called once, and every row gets its value; asked
to set or call for some rows only, they refuse with a ``ValueError``), and
no row is wrapped by a Gymnasium wrapper. SuperSuit's chain into Stable-Baselines3 cannot be seeded this way
(docs/how-to/environments.md): its ``ConcatVecEnv`` has no ``seed``.
"""

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from dilemmas.envs.vector import VectorDilemmaEnv


class DilemmaVecEnv(VecEnv):
    """``VectorDilemmaEnv``'s rows as a Stable-Baselines3 ``VecEnv`` (module docstring)."""

    def __init__(self, vector: VectorDilemmaEnv):
        self.vector = vector
        self.render_mode = vector.render_mode
        super().__init__(vector.num_envs, vector.single_observation_space,
                         vector.single_action_space)
        self._actions = None

    def reset(self):
        observations, infos = self.vector.reset(seed=self._seeds[0])
        self.reset_infos = self._row_infos(infos)
        self._reset_seeds()
        self._reset_options()
        return np.array(observations)  # writable, as PyTorch wants

    def step_async(self, actions):
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self):
        observations, rewards, terminated, truncated, infos = self.vector.step(self._actions)
        dones = terminated | truncated
        rows = self._row_infos(infos)
        for row in np.flatnonzero(dones):
            rows[row]["terminal_observation"] = infos["final_obs"][row]
            rows[row]["TimeLimit.truncated"] = bool(truncated[row] and not terminated[row])
        return np.array(observations), rewards.astype(np.float32), dones, rows

    def _row_infos(self, infos) -> list[dict]:
        return [{"action_mask": mask} for mask in infos["action_mask"]]

    def close(self):
        self.vector.close()

    def get_images(self):
        frames = self.vector.render()
        if frames is None:
            return [None] * self.num_envs
        return [frames[row // self.vector.num_agents] for row in range(self.num_envs)]

    def get_attr(self, attr_name, indices=None):
        return [getattr(self.vector, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name, value, indices=None):
        self._every_row(indices, f"set_attr({attr_name!r})")
        setattr(self.vector, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        self._every_row(indices, f"env_method({method_name!r})")
        result = getattr(self.vector, method_name)(*method_args, **method_kwargs)  # once
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._get_indices(indices)]

    def _every_row(self, indices, what: str) -> None:
        """Refuse to change some rows only: every row is the one ``VectorDilemmaEnv``."""
        if sorted(self._get_indices(indices)) != list(range(self.num_envs)):
            raise ValueError(f"{what} reaches every row at once (they share one "
                             f"VectorDilemmaEnv), so indices must name all {self.num_envs} "
                             "rows or be None")
