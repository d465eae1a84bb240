"""One seat of a game as a single-agent Gymnasium ``Env``, over the game's PettingZoo
``ParallelEnv`` (``dilemmas.envs.parallel``).

``single_env(game, others=None, **parameters)`` builds ``parallel_env(game, **parameters)``.
The learning seat is the first ``policy`` seat of ``population``; the seats of other
behaviours play inside the model, as in the parallel env, and every other ``policy`` seat is
played by ``others``: a callable ``observation -> action`` or the path of a policy file for
the game, what the model parameter ``policy`` takes (docs/policies.md), given each of those
seats' ``{"observation": ..., "action_mask": ...}``. ``others`` is required exactly when
the population seats more than one ``policy`` seat.

* Spaces, observations, rewards, terminations and truncations are the learning seat's in
  the parallel env; ``info`` is its info there (``"action_mask"``, ``"phase"``,
  ``"round"``).
* ``reset(seed=s)`` resets the parallel env with ``seed=s`` (and seeds ``np_random``), so
  an episode is the parallel env's episode of that seed with the learner's actions and the
  others' choices; unseeded resets follow the parallel env's convention.
* ``render()`` and ``close()`` are the parallel env's; ``env.parallel`` is the parallel env.
"""

import gymnasium

from dilemmas.models.policies import check_policy


class SingleAgentEnv(gymnasium.Env):
    """The learning seat of a game as a Gymnasium ``Env`` (module docstring)."""

    def __init__(self, game: str, others=None, render_mode: str | None = None,
                 max_cycles: int | None = None, **parameters):
        from dilemmas.envs.parallel import DilemmaEnv

        self.parallel = DilemmaEnv(game, render_mode=render_mode, max_cycles=max_cycles,
                                   **parameters)
        agents = self.parallel.possible_agents
        population = self.parallel.parameters["population"]
        if len(agents) > 1 and others is None:
            raise ValueError(f"population={population!r} seats {len(agents)} 'policy' seats: "
                             f"the first learns; give others= (a callable or a policy file) "
                             f"to play the other {len(agents) - 1}")
        if len(agents) == 1 and others is not None:
            raise ValueError(f"others= plays no seat: population={population!r} seats one "
                             "'policy' seat, the learning one")
        if others is not None:
            others = check_policy("others", others, {"game": game})
            if getattr(others, "kind", None) == "seats":
                raise ValueError(f"others={str(others.path)!r} is a seated policy file: "
                                 "give one policy for every other 'policy' seat")
        self.others = others
        self.learner = agents[0]
        self.observation_space = self.parallel.observation_space(self.learner)
        self.action_space = self.parallel.action_space(self.learner)
        self.render_mode = render_mode
        self.metadata = {"render_modes": self.parallel.metadata["render_modes"]}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._observations, self._infos = self.parallel.reset(seed=seed, options=options)
        return self._observations[self.learner], self._infos[self.learner]

    def step(self, action):
        if not self.parallel.agents:
            raise RuntimeError("the episode has ended (or not begun): call reset()")
        actions = {agent: self.others({"observation": self._observations[agent],
                                       "action_mask": self._infos[agent]["action_mask"]})
                   for agent in self.parallel.agents if agent != self.learner}
        actions[self.learner] = action
        observations, rewards, terminations, truncations, infos = self.parallel.step(actions)
        self._observations, self._infos = observations, infos
        me = self.learner
        return (observations[me], rewards[me], terminations[me], truncations[me], infos[me])

    def render(self):
        return self.parallel.render()

    def close(self):
        self.parallel.close()
