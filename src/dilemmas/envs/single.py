"""One seat of a game as a single-agent Gymnasium ``Env``, over the game's PettingZoo
``ParallelEnv`` (``dilemmas.envs.parallel``).

``single_env(game, others=None, **parameters)`` builds ``parallel_env(game, **parameters)``.
The learning seat is the first ``policy`` seat of ``population``; the seats of other
behaviours play inside the model, as in the parallel env, and every other ``policy`` seat is
played by ``others``: a callable ``observation -> action`` or the path of a policy file for
the game (not a seated one), what the model parameter ``policy`` takes (docs/policies.md),
given each of those seats' ``{"observation": ..., "action_mask": ...}`` and asked as the
model asks its ``policy`` (``decide(model, agent, observation)`` where the policy has it: a
tabular policy's features, a recurrent network's memory of each seat). ``others`` is
required exactly when the population seats more than one ``policy`` seat, refused when it
seats one, and checked to fit the game as the model checks its ``policy``; ``policy=`` is
refused (the learner's actions come to ``step``), each with a ValueError of one line.

* Spaces, observations, rewards, terminations and truncations are the learning seat's in
  the parallel env; ``info`` is its info there (``"action_mask"``, ``"phase"``,
  ``"round"``).
* ``reset(seed=s)`` resets the parallel env with ``seed=s`` (and seeds ``np_random``), so
  an episode is the parallel env's episode of that seed with the learner's actions and the
  others' choices; unseeded resets follow the parallel env's convention.
* ``render()`` and ``close()`` are the parallel env's; ``env.parallel`` is the parallel env
  and ``env.learner`` the learning agent's name there.
"""

import gymnasium

from dilemmas.envs.parallel import DilemmaEnv
from dilemmas.models.policies import check_policy


class SingleAgentEnv(gymnasium.Env):
    """The learning seat of a game as a Gymnasium ``Env`` (module docstring)."""

    metadata = {"render_modes": DilemmaEnv.metadata["render_modes"]}

    def __init__(self, game: str, others=None, render_mode: str | None = None,
                 max_cycles: int | None = None, **parameters):
        if "policy" in parameters:
            raise ValueError("policy= is the environment's own: give the learner's actions to "
                             "step() and the other 'policy' seats' policy as others=")
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
            if hasattr(others, "check_fits"):
                try:
                    others.check_fits(self.parallel.model)
                except ValueError as error:
                    raise ValueError(f"others: {error}") from None
        self.others = others
        self.learner = agents[0]
        self.observation_space = self.parallel.observation_space(self.learner)
        self.action_space = self.parallel.action_space(self.learner)
        self.render_mode = render_mode

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._observations, self._infos = self.parallel.reset(seed=seed, options=options)
        self._seats = {DilemmaEnv.name(agent): agent
                       for agent in self.parallel.model.policy_seats()}
        return self._observations[self.learner], self._infos[self.learner]

    def step(self, action):
        """The learning seat's ``action`` and every other policy seat's from ``others``, one
        step of the parallel env: the learning seat's ``(observation, reward, terminated,
        truncated, info)``."""
        if not self.parallel.agents:
            raise RuntimeError("the episode has ended (or not begun): call reset()")
        decide = getattr(self.others, "decide", None)
        actions = {self.learner: action}
        for name in self.parallel.agents:
            if name != self.learner:
                seen = {"observation": self._observations[name],
                        "action_mask": self._infos[name]["action_mask"]}
                actions[name] = decide(self.parallel.model, self._seats[name], seen) \
                    if decide else self.others(seen)
        observations, rewards, terminations, truncations, infos = self.parallel.step(actions)
        self._observations, self._infos = observations, infos
        me = self.learner
        return (observations[me], rewards[me], terminations[me], truncations[me], infos[me])

    def render(self):
        return self.parallel.render()

    def close(self):
        self.parallel.close()
