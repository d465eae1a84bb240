"""Many episodes at once for training: a game's PettingZoo environment over its batch engine.

``vector_env(game, num_envs, seed=None, **parameters)`` plays ``num_envs`` episodes of one
parameter set together on the game's batch engine (``dilemmas.models.batch``; the games with
``GAMES[game].batch``), with the rule functions of its Mesa model. Row ``i`` of every array
is episode ``i``, and means for it what ``parallel_env(game, **parameters)`` means for its
one episode (``dilemmas.envs.parallel``; docs/rules/<game>.md, "Learning agents"): the same
observation vector and mask for the same state, built by the game's own encoding (its
``Interface``'s ``batch_observe``, the function its Mesa-model interface calls with one episode),
the same actions, each agent's reward since its last step, terminated if the rules ended the episode
and truncated if ``max_steps`` did. As in ``parallel_env``, ``population`` defaults to
``"policy"`` in every seat; in a mixed one only the ``policy`` seats are agents and the
others play their ``batch_decide`` inside the engine (a behaviour without one is refused).

* ``reset(seed=None)`` -> ``(observations, infos)``; ``observations[agent]`` is
  ``{"observation": float32 (num_envs, L), "action_mask": int8 (num_envs, A)}``.
* ``step(actions)``, ``actions[agent]`` an integer array ``(num_envs,)``, -> ``(observations,
  rewards, terminations, truncations, infos)``, each ``[agent]`` an array ``(num_envs,)``
  (rewards float64, the flags bool). An action the mask refuses in a row still playing is a
  ValueError naming the agent and the row.
* ``infos["active"]``: the rows whose actions this step played (a reset plays none);
  ``infos["phase"]``: the decision phase the rows still playing are in (None once all have
  ended). ``env.playing``: the rows whose next actions will be played.

Episode ends (autoreset): the episodes of a batch start together. A row whose episode ends
reports ``terminated`` or ``truncated`` on that step, with its reward and its final
observation; it then sits out -- reward 0, actions ignored (not checked), flags still True,
observation frozen, ``infos["active"]`` False -- until every row has ended. The step after
that starts a fresh batch and plays no action: it returns the new batch's first
observations, rewards 0, flags False and ``active`` all False (Gymnasium's "next step"
autoreset, for the whole batch). ``reset()`` starts a fresh batch at any time.

What a game adds to its ``Interface`` for this, over the engine's arrays (``E`` episodes
still playing, ``seats`` the agents' seats), through the same encoding its Mesa-model
interface uses: ``batch_observe(batch, seats, phase, memory)`` -> the vectors ``(E, seats,
L)`` and the mask (``(A,)`` or ``(E, seats, A)``; ``phase`` None: after the episode);
``batch_decisions(batch, seats, phase, actions, memory)`` -> ``batch.blank(phase)`` with the
seats' actions ``(E, seats)`` decoded into their columns; ``batch_ended_by_rules(batch)`` ->
``(E,)``, whether the rules (not ``max_steps``) ended each episode. ``memory`` (name ->
array, one row per episode, kept in step with the engine's) is the interface's own, for what
an observation needs that the engine's arrays no longer hold.

Randomness: one numpy Generator, seeded with ``seed`` (``reset(seed=...)`` reseeds it;
``reset()`` goes on with it), draws every batch: the same seed and actions give the same
arrays. The episodes share it, so they agree with the Mesa model's in distribution, not
draw for draw (``dilemmas.models.batch``).
"""

import numpy as np
from gymnasium import spaces

from dilemmas.models.batch import unable
from dilemmas.envs.parallel import _refuse
from dilemmas.registry import GAMES


def vector_env(game: str, num_envs: int, *, seed=None, **parameters) -> "VectorDilemmaEnv":
    """``num_envs`` episodes of a game with a batch engine at once (module docstring)."""
    return VectorDilemmaEnv(game, num_envs, seed=seed, **parameters)


class VectorDilemmaEnv:
    """A game's PettingZoo environment batched over ``num_envs`` episodes (module docstring)."""

    def __init__(self, game: str, num_envs: int, *, seed=None, **parameters):
        if game not in GAMES:
            raise ValueError(f"game={game!r} is not a registered game; allowed: {sorted(GAMES)}")
        self.game = GAMES[game]
        with_engine = sorted(name for name, entry in GAMES.items() if entry.batch is not None)
        if self.game.batch is None:
            raise ValueError(f"game={game!r} has no batch engine, so no vectorised environment "
                             f"(games with one: {with_engine}); use dilemmas.parallel_env")
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} is invalid: must be an integer >= 1")
        for key in ("policy", "rng", "collect_data"):
            if key in parameters:
                raise ValueError(f"{key}= is the environment's own: give actions to step() "
                                 "and the seed to vector_env() or reset()")
        self.num_envs = num_envs
        self.interface = self.game.interface
        self.parameters = {"population": "policy", **parameters, "policy": _refuse}
        model = self.game.model(**self.parameters, collect_data=False, rng=0)
        scripted = [name for name in unable(model) if name != "policy"]
        if scripted:
            raise ValueError(f"population={model.population!r}: {scripted} cannot decide on "
                             f"arrays, so they cannot play beside a vectorised environment's "
                             "agents; use dilemmas.parallel_env")
        self.seats = np.array([agent.seat for agent in model.policy_seats()], dtype=np.int64)
        if not len(self.seats):
            raise ValueError(f"population={model.population!r} seats no 'policy' behaviour: "
                             "the environment would have no agents")
        self.possible_agents = [f"agent_{seat}" for seat in self.seats]
        self.agents = list(self.possible_agents)
        self._observation_space = self.interface.observation_space(model)
        self._action_space = spaces.Discrete(self.interface.actions(model))
        self.rng = np.random.default_rng(seed)
        self.engine, self.phase = None, None

    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    @property
    def playing(self) -> np.ndarray:
        """The rows whose episode is in play: their next actions will be played."""
        playing = np.zeros(self.num_envs, dtype=bool)
        if self.engine is not None and self.phase is not None:
            playing[self.engine.ids] = True
        return playing

    def reset(self, seed=None, options=None):
        """A fresh batch of episodes; ``seed`` reseeds the generator."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        return self._start(), self._infos(np.zeros(self.num_envs, dtype=bool))

    def _start(self):
        """Start a batch and play up to its first decision."""
        self.engine = self.game.batch(self.num_envs, self.rng, external=True, **self.parameters)
        self.engine.start()
        self.engine.begin_round()
        self.memory = {}  # what the interface keeps from phase to phase, one row per episode
        self.terminated = np.zeros(self.num_envs, dtype=bool)
        self.truncated = np.zeros(self.num_envs, dtype=bool)
        self.phase = self.engine.decisions[0]
        return self._observe(self.phase, np.ones(self.num_envs, dtype=bool))

    def _observe(self, phase, which):
        """The observations after the episodes of the engine's rows ``which`` (a mask over
        them) were observed in ``phase``; the other rows keep theirs. The arrays handed out
        are never written again (the mask may be a read-only broadcast)."""
        vectors, mask = self.interface.batch_observe(self.engine, self.seats, phase, self.memory)
        mask = np.broadcast_to(mask, (*vectors.shape[:2], mask.shape[-1]))
        if self.engine.size == self.num_envs and which.all():
            self.vectors, self.masks = vectors, mask
        else:
            rows = self.engine.ids[which]
            self.vectors, self.masks = self.vectors.copy(), self.masks.copy()
            self.vectors[rows], self.masks[rows] = vectors[which], mask[which]
        return {name: {"observation": self.vectors[:, j], "action_mask": self.masks[:, j]}
                for j, name in enumerate(self.agents)}

    def _infos(self, active):
        return {"active": active, "phase": self.phase}

    def step(self, actions):
        if self.engine is None:
            raise RuntimeError("call reset() before step()")
        chosen = self._checked(actions)
        if self.phase is None:  # every row has ended: a fresh batch, no action played
            observations = self._start()
            zeros = np.zeros(self.num_envs, dtype=bool)
            return (observations, self._each(np.zeros(self.num_envs)), self._each(zeros),
                    self._each(zeros), self._infos(zeros))
        engine, phase, rows, active = self.engine, self.phase, self.engine.ids, self.playing
        paid = engine.rewards[:, self.seats].copy()
        decided = self.interface.batch_decisions(engine, self.seats, phase, chosen[rows],
                                                 self.memory)
        engine.take(phase, engine.decide(phase, decided))
        rewards = np.zeros((self.num_envs, len(self.seats)))
        following = engine.decisions.index(phase) + 1
        if following < len(engine.decisions):
            self.phase = engine.decisions[following]
            rewards[rows] = engine.rewards[:, self.seats] - paid
            observations = self._observe(self.phase, np.ones(len(rows), dtype=bool))
        else:
            observations = self._finish_round(rows, paid, rewards)
        return (observations, self._each(rewards.T), self._each(self.terminated),
                self._each(self.truncated), self._infos(active))

    def _finish_round(self, rows, paid, rewards):
        """The rest of the round; the rows that end show their final observation and leave
        the engine, the others go on to the next round's first decision."""
        engine = self.engine
        ended = engine.resolve()
        rewards[rows] = engine.rewards[:, self.seats] - paid
        by_rules = self.interface.batch_ended_by_rules(engine)
        self.terminated[rows[ended & by_rules]] = True
        self.truncated[rows[ended & ~by_rules]] = True
        observations = self._observe(None, ended) if ended.any() else None
        if ended.all():
            self.phase = None
            return observations
        if ended.any():
            engine.keep(~ended)
            self.memory = {key: value[~ended] for key, value in self.memory.items()}
        engine.begin_round()
        self.phase = engine.decisions[0]
        return self._observe(self.phase, np.ones(engine.size, dtype=bool))

    def _each(self, values):
        """Per agent, its own copy of ``values`` (rows of ``values`` by agent, or one array
        for all)."""
        if values.ndim == 1:
            return {name: values.copy() for name in self.agents}
        return {name: row.copy() for name, row in zip(self.agents, values)}

    def _checked(self, actions) -> np.ndarray:
        """``(num_envs, agents)`` actions; a ValueError names the agent and the row of an
        invalid one (the rows sitting out are not checked)."""
        missing = [name for name in self.agents if name not in actions]
        unknown = [name for name in actions if name not in self.agents]
        if missing or unknown:
            raise ValueError(f"step() needs one array of actions for each of {self.agents}; "
                             f"missing: {missing}, not agents: {unknown}")
        playing, count = self.playing, self._action_space.n
        chosen = np.empty((self.num_envs, len(self.agents)), dtype=np.int64)
        for j, name in enumerate(self.agents):
            given = np.asarray(actions[name])
            if given.shape != (self.num_envs,) or given.dtype.kind not in "iu":
                raise ValueError(f"{name}'s actions must be an integer array of shape "
                                 f"({self.num_envs},), one per row; got {given.dtype} "
                                 f"{given.shape}")
            inside = (given >= 0) & (given < count)
            allowed = inside & (self.masks[np.arange(self.num_envs), j,
                                           np.where(inside, given, 0)] == 1)
            wrong = playing & ~allowed
            if wrong.any():
                row = int(np.argmax(wrong))
                raise ValueError(f"{name}'s action {given[row]} in row {row} is invalid: the "
                                 f"mask allows {np.flatnonzero(self.masks[row, j]).tolist()} "
                                 f"(of 0 to {count - 1})")
            chosen[:, j] = given
        return chosen

    def close(self):
        pass
