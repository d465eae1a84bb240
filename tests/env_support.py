"""Helpers for tests/test_env.py: the configurations under test, fixed-seed environments,
policies, episode drivers and the scripted "shadow" agents of the parity tests."""

import copy
import itertools
import math
import warnings

import numpy as np
import pandas as pd

import dilemmas
from dilemmas.envs.parallel import DilemmaEnv
from dilemmas.models.bucket_brigade.rules import WORK
from dilemmas.models.policies import LinearPolicy
from dilemmas.models.population import parse_population

GAMES = ("bucket_brigade", "state_punishment", "stag_hunt", "firefighting_graph")

#: An ASCII Stag Hunt map (docs/rules/stag_hunt.md, "World"): walls, three spawn points, a
#: stag, a hare and a resource of drawn kind.
STAG_HUNT_MAP = """
WWWWWWWW
WP  1  W
W   2 PW
W a    W
W  P   W
WWWWWWWW
"""

#: (id, game, parameters): every game on its defaults and on the configurations of the brief.
CONFIGS = [
    ("bb-default", "bucket_brigade", {}),
    ("bb-10-agents", "bucket_brigade", {"num_agents": 10}),
    ("bb-hard-reference", "bucket_brigade", {"scenario": "hard", "rules": "reference"}),
    ("bb-mixed", "bucket_brigade", {"population": "policy:2,firefighter:2"}),
    ("sp-default", "state_punishment", {}),
    ("sp-composite", "state_punishment", {"action_mode": "composite"}),
    ("sp-6-agents-3-worlds", "state_punishment", {"num_agents": 6, "num_worlds": 3}),
    ("sp-full-view", "state_punishment", {"full_view": True}),
    ("sp-composite-views", "state_punishment", {"composite_views": True}),
    ("sh-default", "stag_hunt", {}),
    ("sh-ascii-map", "stag_hunt", {"ascii_map": STAG_HUNT_MAP}),
    ("sh-beam", "stag_hunt", {"attack_mode": "beam"}),
    ("sh-spawn-all", "stag_hunt", {"num_agents_to_spawn": 3}),
    ("fg-default", "firefighting_graph", {}),
    ("fg-grid", "firefighting_graph", {"layout": "grid"}),
    ("fg-oliehoek", "firefighting_graph", {"preset": "oliehoek"}),
    ("fg-row-10", "firefighting_graph", {"layout": "row", "n_agents": 10}),
]

class FixedSeedEnv(DilemmaEnv):
    """The environment, except that ``reset()`` without a seed takes the next seed of a
    fixed sequence instead of one from the operating system: PettingZoo's API tests reset
    without a seed, and the tests must replay the same way on every run."""

    def __init__(self, game, *, first_seed=1000, **parameters):
        super().__init__(game, **parameters)
        self._next_seeds = itertools.count(first_seed)

    def reset(self, seed=None, options=None):
        if seed is None:
            seed = next(self._next_seeds)
        return super().reset(seed=seed, options=options)


class CollectingWarnings:
    """``with CollectingWarnings() as caught:`` records every warning (none filtered, none
    shown once only); ``caught.messages`` lists their texts."""

    def __enter__(self):
        self._context = warnings.catch_warnings(record=True)
        self.records = self._context.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        return self._context.__exit__(*exc)

    @property
    def messages(self):
        return [str(record.message) for record in self.records]


def linear_policy(env, seed=7, game=None) -> LinearPolicy:
    """A LinearPolicy with fixed random weights for the env's game and parameters."""
    interface, model = env.interface, env.model
    rng = np.random.default_rng(seed)
    actions, length = interface.actions(model), interface.observation_length(model)
    return LinearPolicy(rng.normal(size=(actions, length)), rng.normal(size=actions),
                        game or env.game.name)


def last_allowed(observation) -> int:
    """A deterministic policy: the highest action the mask allows."""
    return int(np.flatnonzero(observation["action_mask"])[-1])


def seen(observations, infos) -> dict:
    """What each agent sees, as a model's ``policy`` is given it: its observation vector and
    its action mask (``infos[agent]["action_mask"]``) in one dict."""
    return {name: {"observation": observation, "action_mask": infos[name]["action_mask"]}
            for name, observation in observations.items()}


def random_actions(observations, generator) -> dict:
    """One allowed action per agent, drawn from ``generator`` (a numpy Generator), from what
    the agents see (``seen``)."""
    return {name: int(generator.choice(np.flatnonzero(obs["action_mask"])))
            for name, obs in observations.items()}


def seat(name: str) -> int:
    return int(name.rsplit("_", 1)[1])


def frames(model):
    """The model's DataCollector model and agent DataFrames."""
    collector = model.datacollector
    return collector.get_model_vars_dataframe(), collector.get_agent_vars_dataframe()


def assert_frames_equal(left, right, drop_agent_columns=()):
    """Model and agent DataFrames of two models equal exactly (``drop_agent_columns`` left
    out of the agent frames)."""
    left_model, left_agents = frames(left)
    right_model, right_agents = frames(right)
    assert len(left_model) > 1, "the episode played no step"
    pd.testing.assert_frame_equal(left_model, right_model, check_exact=True)
    pd.testing.assert_frame_equal(left_agents.drop(columns=list(drop_agent_columns)),
                                  right_agents.drop(columns=list(drop_agent_columns)),
                                  check_exact=True)


def own_episode(game, parameters, seed, **extra):
    """The model's own episode (no environment), played to its end."""
    model = dilemmas.GAMES[game].model(**parameters, **extra, rng=seed)
    for _ in range(100_000):
        if not model.running:
            return model
        model.step()
    raise AssertionError("the model's episode did not end")


def env_episode(env, seed, choose):
    """Play one episode of ``env`` from ``reset(seed)``, the actions ``choose(seen)`` of what
    the agents see (``seen``); returns the number of steps."""
    observations, infos = env.reset(seed=seed)
    steps = 0
    while env.agents:
        observations, _, _, _, infos = env.step(choose(seen(observations, infos)))
        steps += 1
    return steps


def same(a, b) -> bool:
    """Exact equality of nested dicts / lists / arrays / numbers, NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return bool(a == b)


# --- Scripted parity -----------------------------------------------------------------------

def make_shadows(env, behaviours_population):
    """For each env agent, the scripted class of its seat and the behaviour's own memory (the
    attributes its ``__init__`` adds to a policy seat's, e.g. ``beliefs``), taken from a
    prototype model."""
    game = env.game
    model = env.model
    classes = parse_population(behaviours_population, len(model.seats), game.behaviours)
    parameters = {k: v for k, v in env.parameters.items() if k != "population"}
    prototype = game.model(**parameters, population=behaviours_population, rng=0,
                           collect_data=False)
    shadows = {}
    for agent in model.policy_seats():
        memory = {key: copy.deepcopy(value)
                  for key, value in prototype.seats[agent.seat].__dict__.items()
                  if key not in agent.__dict__ and key not in ("model", "_mesa_cell")}
        shadows[env.name(agent)] = (classes[agent.seat], memory)
    return shadows


def _as_scripted(agent, cls, memory, decide):
    """``decide()`` while the env's agent itself plays as ``cls`` (so that it is the same
    object to the model and to the other agents), its memory kept on it."""
    for key, value in memory.items():
        agent.__dict__.setdefault(key, value)
    policy_class, agent.__class__ = agent.__class__, cls
    try:
        return decide(agent)
    finally:
        agent.__class__ = policy_class


def scripted_actions(env, shadows) -> dict:
    """The env actions the scripted behaviours choose now, in seat order (the order in which
    the model's own simultaneous phase asks its agents)."""
    actions = {}
    for name in sorted(env.agents, key=seat):
        cls, memory = shadows[name]
        agent = env.model.seats[seat(name)]
        if agent not in env.model.agents:  # a Stag Hunt seat not spawned: it never acts
            actions[name] = 0
        elif env.game.name == "bucket_brigade":
            if env.phase == "signal":
                signal = _as_scripted(agent, cls, memory, lambda a: a.choose_signal())
                actions[name] = 0 if signal == WORK else 1
            else:
                house, mode = _as_scripted(agent, cls, memory, lambda a: a.choose_action())
                actions[name] = 2 * house + (0 if mode == WORK else 1)
        elif env.game.name == "state_punishment":
            action = _as_scripted(agent, cls, memory, lambda a: a.choose_action())
            actions[name] = env.model.action_names.index(action)
        else:
            actions[name] = _as_scripted(agent, cls, memory, lambda a: a.choose_action())
    return actions


class RewardsTimes:
    """A functional environment (``dilemmas.functional_env``) whose rewards are multiplied by
    ``factors``: one number for every seat, or one per seat."""

    def __init__(self, env, factors):
        import jax.numpy as jnp

        self._env, self._factors = env, jnp.asarray(factors, jnp.float32)

    def __getattr__(self, name):
        return getattr(self._env, name)

    def decide_and_reset(self, *args):
        decided = self._env.decide_and_reset(*args)
        return decided._replace(rewards=decided.rewards * self._factors)
