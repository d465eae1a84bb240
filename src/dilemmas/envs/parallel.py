"""Every registered game as a PettingZoo ``ParallelEnv`` that drives the game's own model.

``parallel_env(game, **parameters)`` builds the game's Mesa model with ``population``
``"policy"`` in every seat (or the population given: then only its ``policy`` seats are the
environment's agents, the others play their scripted behaviours inside the model) and lets
the environment supply those seats' decisions. The rules are the model's: the environment
only shows observations, takes actions and reports what the model did.

* ``reset(seed=...)`` builds the model with ``rng=seed`` and plays up to the first decision;
  after a seeded reset, unseeded resets draw their seeds from it (Gymnasium's convention).
  An episode in which no ``policy`` seat plays (Stag Hunt: none spawned) is played to its end
  at once and has no agents.
* ``step(actions)`` gives each agent's action to the model as its seat's decision and plays
  up to the next decision (``PhasedModel.advance``): one round, except where a round holds
  two decisions (Bucket Brigade: the signal, then house and mode once every signal is seen),
  so that such a round takes two steps.
* Rewards are each agent's reward in the model since its last step (0 on a step that ends no
  reward-paying phase); when the model's episode ends, every agent is terminated if the
  rules ended it and truncated if ``max_steps`` did, and ``agents`` becomes empty.
* ``infos[agent]`` holds the phase that comes next (``"phase"``) and the model's
  DataCollector model columns after the step (``"round"``: a dict; an undefined value, NaN
  in the DataCollector, is None here, so that equal episodes have equal infos).
* Agents are named ``"agent_<seat>"``. Stag Hunt's seats not spawned in an episode are not
  among its ``agents``; a removed hunter stays an agent whose only allowed action is NOOP.
* Observations are dicts with the float32 vector ``"observation"`` and the int8
  ``"action_mask"`` (1: the action does something); ``state()`` is the world for
  centralised training; ``render()`` with ``render_mode="rgb_array"`` draws the world as the
  dashboard does, as an RGB array.

Each game's encoding of observations and actions is its ``Interface`` (``Game.interface``,
``dilemmas/models/<game>/env.py``), documented in its rules file under "Learning agents".
"""

import functools

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from dilemmas.models.policies import check_action
from dilemmas.registry import GAMES


def _refuse(observation):
    raise RuntimeError("an environment supplies its agents' actions: call env.step(actions)")


class DilemmaEnv(ParallelEnv):
    """A registered game as a PettingZoo ``ParallelEnv`` (module docstring)."""

    metadata = {"name": "dilemmas", "render_modes": ["rgb_array"], "is_parallelizable": True}

    def __init__(self, game: str, render_mode: str | None = None, **parameters):
        if game not in GAMES:
            raise ValueError(f"game={game!r} is not a registered game; allowed: {sorted(GAMES)}")
        self.game = GAMES[game]
        self.interface = self.game.interface
        if self.interface is None:
            raise ValueError(f"game={game!r} has no environment interface (Game.interface)")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode={render_mode!r} is invalid: must be None or "
                             "'rgb_array'")
        for key in ("policy", "rng"):
            if key in parameters:
                raise ValueError(f"{key}= is the environment's own: give actions to step() "
                                 "and the seed to reset()")
        self.render_mode = render_mode
        self.parameters = {"population": "policy", **parameters}
        self.model = self._build(seed=0)
        seats = self.model.policy_seats()
        if not seats:
            raise ValueError(f"population={self.parameters['population']!r} seats no "
                             "'policy' behaviour: the environment would have no agents")
        self.possible_agents = [self.name(agent) for agent in seats]
        self._observation_space = self.interface.observation_space(self.model)
        self._action_space = spaces.Discrete(self.interface.actions(self.model))
        self._state_space = self.interface.state_space(self.model)
        self.metadata = {**self.metadata, "name": f"dilemmas_{game}"}
        self.agents = []
        self._seeds = None  # the seeds of unseeded resets after a seeded one

    @staticmethod
    def name(agent) -> str:
        return f"agent_{agent.seat}"

    def _build(self, seed):
        return self.game.model(**self.parameters, policy=_refuse, rng=seed)

    @functools.lru_cache(maxsize=None)
    def observation_space(self, agent):
        return self._observation_space

    @functools.lru_cache(maxsize=None)
    def action_space(self, agent):
        return self._action_space

    @property
    def state_space(self):
        return self._state_space

    def reset(self, seed=None, options=None):
        """A new episode: the model built with ``rng=seed``. After a seeded reset, unseeded
        ones take their seeds from a generator seeded with it (Gymnasium's convention), so
        ``reset(seed=s)`` then ``reset()`` replays the same episodes; before any seeded
        reset, an unseeded one draws a fresh seed."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        elif self._seeds is not None:
            seed = int(self._seeds.integers(2 ** 63))
        self.model = self._build(seed)
        self._seats = {self.name(agent): agent for agent in self.model.policy_seats()}
        self.agents = [self.name(agent) for agent in
                       self.interface.deciding(self.model, self.model.policy_seats())]
        self._paid = {name: self._seats[name].reward for name in self.agents}
        self.phase = self.model.advance()
        self._round = self._model_columns()
        observations = self._observations()
        return observations, {name: self._info() for name in self.agents}

    def _observations(self):
        seats = [self._seats[name] for name in self.agents]
        return dict(zip(self.agents, self.interface.observe_all(self.model, seats, self.phase)))

    def _info(self):
        return {"phase": self.phase, "round": self._round}

    def step(self, actions):
        if not hasattr(self, "_seats"):
            raise RuntimeError("call reset() before step()")
        if not self.agents:  # the episode has ended: nothing to play
            return {}, {}, {}, {}, {}
        missing = [name for name in self.agents if name not in actions]
        unknown = [name for name in actions if name not in self.agents]
        if missing or unknown:
            raise ValueError(f"step() needs one action for each of {self.agents}; "
                             f"missing: {missing}, not agents now: {unknown}")
        decisions, decode, count = {}, self.interface.decode, self._action_space.n
        for name in self.agents:
            agent = self._seats[name]
            action = check_action(actions[name], count, name)
            decisions[agent] = decode(self.model, agent, self.phase, action)
        self.model.supply(decisions)
        self.phase = self.model.advance()
        self._round = self._model_columns()
        rewards = {}
        for name in self.agents:
            reward = self._seats[name].reward
            rewards[name] = float(reward - self._paid[name])
            self._paid[name] = reward
        ended = self.phase is None
        by_rules = ended and self.interface.ended_by_rules(self.model)
        terminations = dict.fromkeys(self.agents, by_rules)
        truncations = dict.fromkeys(self.agents, ended and not by_rules)
        observations = self._observations()
        infos = {name: self._info() for name in self.agents}
        if ended:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _model_columns(self) -> dict:
        """The model's DataCollector model columns now; an undefined value (NaN) is None."""
        columns = self.model.model_reporters
        pairs = columns.items() if isinstance(columns, dict) else ((c, c) for c in columns)
        values = {column: getattr(self.model, attribute) for column, attribute in pairs}
        return {column: None if value != value else value for column, value in values.items()}

    def state(self) -> np.ndarray:
        return self.interface.state(self.model, self.phase)

    def render(self):
        if self.render_mode is None:
            return None
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        from dilemmas.dashboard.scene import draw_on

        scene = self.game.view.scene(self.model)
        size = (scene.width * scene.scale / 100, scene.height * scene.scale / 100)
        figure = Figure(figsize=size, dpi=100)
        draw_on(figure.add_axes((0, 0, 1, 1)), scene)
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        return np.asarray(canvas.buffer_rgba())[..., :3].copy()

    def close(self):
        pass

