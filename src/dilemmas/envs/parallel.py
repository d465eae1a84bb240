"""Every registered game as a PettingZoo ``ParallelEnv`` that drives the game's own model.

``parallel_env(game, **parameters)`` builds the game's Mesa model with ``population``
``"policy"`` in every seat (or the population given: then only its ``policy`` seats are the
environment's agents, the others play their scripted behaviours inside the model) and lets
the environment supply those seats' decisions. The rules are the model's: the environment
only shows observations, takes actions and reports what the model did.

* ``reset(seed=...)`` builds the model with ``rng=seed`` and plays up to the first decision;
  after a seeded reset, unseeded resets draw their seeds from it (Gymnasium's convention).
* ``step(actions)`` gives each agent's action to the model as its seat's decision and plays
  up to the next decision (``PhasedModel.advance``): one round, except where a round holds
  two decisions (Bucket Brigade: the signal, then house and mode once every signal is seen),
  so that such a round takes two steps.
* Rewards are each agent's reward in the model since its last step (0 on a step that ends no
  reward-paying phase); when the model's episode ends, every agent is terminated if the
  rules ended it and truncated if ``max_steps`` did, and ``agents`` becomes empty.
  ``max_cycles`` (PettingZoo's name; None: no limit) truncates the episode after that many
  steps, whatever the game's own ``max_steps``.
* Every agent takes part in the whole episode (``agents == possible_agents`` until it ends):
  a Stag Hunt seat not spawned in the episode, or removed from the grid, observes zeros, is
  paid nothing and may only NOOP, as in the array environments.
* Observations are the float32 vectors of the game's encoding (a ``Box``, which SuperSuit's
  wrappers take as it is); ``infos[agent]["action_mask"]`` is the int8 action mask (1: the
  action does something now), PettingZoo's convention for masks kept beside the observation.
  Any action in range is played: one the mask forbids does what the rules file says
  (docs/rules/README.md, "Learning agents").
* ``infos[agent]`` also holds the phase that comes next (``"phase"``) and the model's
  DataCollector model columns after the step (``"round"``: a dict; an undefined value, NaN
  in the DataCollector, is None here, so that equal episodes have equal infos).
* ``state()`` is the world for centralised training; ``render()`` draws the world as the
  dashboard does: an RGB array with ``render_mode="rgb_array"``, a matplotlib window with
  ``"human"``.

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

    metadata = {"name": "dilemmas", "render_modes": ["rgb_array", "human"],
                "is_parallelizable": True}

    def __init__(self, game: str, render_mode: str | None = None, max_cycles: int | None = None,
                 **parameters):
        if game not in GAMES:
            raise ValueError(f"game={game!r} is not a registered game; allowed: {sorted(GAMES)}")
        self.game = GAMES[game]
        self.interface = self.game.interface
        if self.interface is None:
            raise ValueError(f"game={game!r} has no environment interface (Game.interface)")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} is invalid: must be None, "
                             "'rgb_array' or 'human'")
        if max_cycles is not None and (type(max_cycles) is not int or max_cycles < 1):
            raise ValueError(f"max_cycles={max_cycles!r} is invalid: must be None or an "
                             "integer >= 1")
        for key in ("policy", "rng"):
            if key in parameters:
                raise ValueError(f"{key}= is the environment's own: give actions to step() "
                                 "and the seed to reset()")
        self.render_mode, self.max_cycles = render_mode, max_cycles
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
        self._window = None  # the figure of render_mode="human"

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
        self.agents = list(self.possible_agents)
        self._paid = {name: self._seats[name].reward for name in self.agents}
        self.cycles = 0
        self.phase = self.model.advance()
        self._round = self._model_columns()
        observations, infos = self._observed()
        return observations, infos

    def _observed(self) -> tuple[dict, dict]:
        """Each agent's observation vector and info (its action mask, the next phase and the
        model columns)."""
        seats = [self._seats[name] for name in self.agents]
        seen = self.interface.observe_all(self.model, seats, self.phase)
        observations, infos = {}, {}
        for name, observation in zip(self.agents, seen):
            observations[name] = observation["observation"]
            infos[name] = {"action_mask": observation["action_mask"], "phase": self.phase,
                           "round": self._round}
        return observations, infos

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
        self.cycles += 1
        self._round = self._model_columns()
        rewards = {}
        for name in self.agents:
            reward = self._seats[name].reward
            rewards[name] = float(reward - self._paid[name])
            self._paid[name] = reward
        ended = self.phase is None
        by_rules = ended and self.interface.ended_by_rules(self.model)
        cut = not ended and self.max_cycles is not None and self.cycles >= self.max_cycles
        terminations = dict.fromkeys(self.agents, by_rules)
        truncations = dict.fromkeys(self.agents, (ended and not by_rules) or cut)
        observations, infos = self._observed()
        if ended or cut:
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
        """The world as the dashboard draws it: an RGB array (``"rgb_array"``), or shown in
        a matplotlib window (``"human"``, returning None); None without a render mode."""
        if self.render_mode is None:
            return None
        image = self._image()
        if self.render_mode == "rgb_array":
            return image
        import matplotlib
        from matplotlib import pyplot

        if self._window is None:
            self._window = pyplot.figure(num=self.metadata["name"],
                                         figsize=(image.shape[1] / 100, image.shape[0] / 100))
            axes = self._window.add_axes((0, 0, 1, 1))
            axes.set_axis_off()
            self._shown = axes.imshow(image)
        self._shown.set_data(image)
        self._window.canvas.draw_idle()
        if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo",
                                                    "template"):
            pyplot.pause(0.001)  # an interactive backend: show the window and let it draw
        return None

    def _image(self) -> np.ndarray:
        return drawn(self.game, self.model)

    def close(self):
        if self._window is not None:
            from matplotlib import pyplot

            pyplot.close(self._window)
            self._window = None


def drawn(game, model) -> np.ndarray:
    """The RGB array of ``model``'s world as the dashboard draws it (``game.view``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from dilemmas.dashboard.scene import figure as world_figure

    figure = world_figure(game.view.scene(model))
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()
