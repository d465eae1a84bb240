"""Every game with a batch engine as pure JAX functions, in JaxMARL's idiom.

``env = functional_env(game, **parameters)`` plays one episode of the game's rules on its
batch engine (``dilemmas.models.batch``; the games with ``GAMES[game].batch``), written as
functions of an explicit state and JAX keys, so that a trainer can ``jit`` them, ``vmap``
them over thousands of episodes and ``lax.scan`` them over time together with its
policy and its update:

* ``env.reset(key, params=None)`` -> ``(observations, state)``;
* ``env.step(key, state, actions, params=None)`` -> ``(observations, state, rewards,
  dones, infos)``, resetting the episode when it ends (below); ``env.step_env`` is the
  same step without the reset.

``observations``, ``rewards`` and ``actions`` are dicts keyed by agent (``env.agents``,
``"agent_<seat>"``): each observation the float32 vector of the PettingZoo environment's
``"observation"`` (``dilemmas.envs.parallel``; docs/rules/<game>.md, "Learning agents"), each
action an integer of shape ``()`` or ``(1,)`` (JaxMARL's IPPO gives ``(1,)``: its actions
reshaped to one column per episode), each reward the agent's reward since its last step.
``env.get_avail_actions(state)`` gives the PettingZoo environment's ``"action_mask"`` for
each agent (1: the action does something different now; any action in range may be given,
and a forbidden one is played as the rules file says); ``env.world_state(state)`` the
centralised state (``state()`` there). ``dones[agent]`` and ``dones["__all__"]`` say the
episode ended. Every leaf of ``infos`` holds one value per agent, shape ``(agents,)``, as
JaxMARL's IPPO reshapes them (``(episodes x agents,)`` once mapped over episodes), each agent's
copy the same: ``infos["terminated"]`` whether the rules ended the episode,
``infos["truncated"]`` whether ``max_steps`` did, and each ``infos["round"][column]`` a
DataCollector model column after the step (of the episode that ended, where one did). The
observations an ended episode closes with are ``step_env``'s, which does not reset (JaxMARL's
``step`` is ``step_env``, then ``reset`` where the episode ended). As in
``parallel_env``, ``population`` defaults to ``"policy"`` in every seat; in a mixed one only
the ``policy`` seats are agents and the others play their ``batch_decide`` inside the step.

Actions, checked as ``parallel_env`` checks them where JAX allows: ``step`` and ``step_env``
refuse with a ValueError naming the agent (or the key) a dict without one action for each
agent or with any other key, and an action that is not an integer (a float, NaN or a bool)
or not of shape ``()`` or ``(1,)``; these are known while ``jit`` or ``vmap`` traces the
step, so they are refused there too, once, when it compiles. An action outside ``0 ..
actions - 1`` is refused where its value is known (a number or a concrete array, outside
``jit`` and ``vmap``); inside them its value is not known until it runs, no error can be
raised, and it is clipped into that range (-1 plays 0, 99 the last action).

Automatic reset (JaxMARL's): the step that ends an episode returns ``dones`` True, the
ended episode's rewards and a fresh episode's first observations and state, drawn from
the step's key; no step is spent idle.

A round with two decisions (Bucket Brigade: the signal, then house and mode) takes two
steps, as in ``parallel_env``; ``state.phase`` says which comes next. Mapped over episodes,
``step`` computes every decision's branch and keeps the one each episode is at (``lax.switch``
under ``vmap``). Episodes that start together stay at the same decision (an episode ends only
after a round's last), so a trainer may instead step a whole round with the decisions in
order, each ``decide_and_reset(index, key, state, chosen)`` (``chosen`` the actions
``(agents,)``; it returns a ``Decided`` of arrays), as the vector environment does: about
twice as fast for Bucket Brigade.

``params`` are the game's parameters (``env.default_params``, a hashable ``EnvParams``);
they fix the arrays' shapes, so they are static: another ``EnvParams`` of the same game
(``env.params_of(**parameters)``) plays with its own compiled functions.

Stand-ins (``stand_ins=(behaviours, agents)``; a training's frozen scripted co-players,
``dilemmas.learning.coplayers.CoPlayers``): each named scripted behaviour may decide, episode by
episode, for some of the agents (indices into ``env.agents``) instead of the actions given
for them. ``env.standing(state, which)`` sets it for the episode ``state`` holds:
``which`` ``(len(agents),)`` is the index into ``behaviours`` of the behaviour that decides
for each of those agents, or -1 for none (its given action stands); an episode begins with
none (a fresh episode of ``step``'s reset too: set it again). A stand-in decides as the
behaviour does in a seat of its own (its ``batch_decide``, from the state and the engine's
numbers), so its seat's observations, mask and rewards are those of the agent it stands in
for. The behaviours decide every step whether they stand in or not (their numbers drawn
either way).

Randomness comes only from the keys given: the same key, state and actions give the same
step, on a given backend. The episodes agree with the Mesa model's in distribution, not
draw for draw (the engine draws its numbers its own way).
"""

import copy
import functools
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

from dilemmas.models.batch import (STANDING, Group, _keep_compiled_programs, decides_on_arrays,
                                   unable)
from dilemmas.models.policies import POLICY, check_action
from dilemmas.registry import GAMES

#: Parameters that belong to the environment, not to the game.
OWN = ("policy", "rng", "collect_data")


def functional_env(game: str, stand_ins=None, **parameters) -> "FunctionalEnv":
    """One episode of a game with a batch engine as pure JAX functions (module docstring)."""
    return FunctionalEnv(game, stand_ins, **parameters)


def stands_in(game: str, behaviour: str) -> bool:
    """Whether ``behaviour`` can stand in for an agent of ``game`` (module docstring): a
    scripted behaviour of the game that decides on arrays."""
    known = GAMES[game].behaviours
    return behaviour in known and behaviour != POLICY and decides_on_arrays(known[behaviour])


@dataclass(frozen=True)
class EnvParams:
    """A game and its parameters, hashable, so that JAX can take them as a static argument."""

    game: str
    items: tuple

    def as_dict(self) -> dict:
        return dict(self.items)


class EnvState(NamedTuple):
    """One episode between two steps (a JAX pytree)."""

    arrays: dict     # the engine's per-episode arrays, each with a first axis of 1
    memory: tuple    # each scripted behaviour's arrays (``batch_memory``)
    kept: dict       # what the game's interface keeps from phase to phase
    t: Any           # rounds begun
    phase: Any       # the next decision: its index in the engine's ``decisions``
    mask: Any        # (agents, actions) int8: the actions allowed in it


def checked_engine(game: str, parameters: dict, episodes: int):
    """``(engine, model)``: a batch engine of ``episodes`` for ``game`` whose ``policy`` seats
    take their actions from outside, and the template model; a ValueError names what the
    parameters ask that an environment on the engine cannot do."""
    if game not in GAMES:
        raise ValueError(f"game={game!r} is not a registered game; allowed: {sorted(GAMES)}")
    entry = GAMES[game]
    if entry.batch is None or entry.interface is None:
        able = sorted(name for name, g in GAMES.items() if g.batch and g.interface)
        raise ValueError(f"game={game!r} has no batch engine, so no array environment (games "
                         f"with one: {able}); use dilemmas.parallel_env")
    for key in OWN:
        if key in parameters:
            raise ValueError(f"{key}= is the environment's own: give actions to step() and "
                             "keys or seeds to reset()")
    from dilemmas.envs.parallel import _refuse

    parameters = {"population": POLICY, **parameters, "policy": _refuse}
    model = entry.model(**parameters, collect_data=False, rng=0)
    scripted = [name for name in unable(model) if name != POLICY]
    if scripted:
        raise ValueError(f"population={model.population!r}: {scripted} cannot decide on "
                         "arrays, so they cannot play beside an array environment's agents; "
                         "use dilemmas.parallel_env")
    if not model.policy_seats():
        raise ValueError(f"population={model.population!r} seats no 'policy' behaviour: the "
                         "environment would have no agents")
    engine = entry.batch(episodes, np.random.default_rng(0), external=True, **parameters)
    return engine, model


class FunctionalEnv:
    """A game's rules as pure JAX functions of one episode (module docstring)."""

    def __init__(self, game: str, stand_ins=None, **parameters):
        import jax

        _keep_compiled_programs(jax)
        self.template, model = checked_engine(game, parameters, 1)
        self.game = GAMES[game]
        self.interface = self.game.interface
        self.default_params = EnvParams(game, tuple(sorted(parameters.items(), key=str)))
        self.seats = np.array([agent.seat for agent in model.policy_seats()], dtype=np.int64)
        self.agents = [f"agent_{seat}" for seat in self.seats]
        self.num_agents = len(self.agents)
        self.stand_ins = self._stand_ins(stand_ins)
        behaviours, agents = self.stand_ins
        self.own_groups = len(self.template.groups)
        self.template.groups = [*self.template.groups, *(
            Group(self.game.behaviours[name], self.seats[list(agents)], {})
            for name in behaviours)]
        self.decisions = self.template.decisions
        self.observation_spaces = dict.fromkeys(self.agents,
                                                self.interface.observation_space(model))
        self.action_spaces = dict.fromkeys(self.agents,
                                           spaces.Discrete(self.interface.actions(model)))
        self.state_space = self.interface.state_space(model)
        self._others = {}
        self._reset = jax.jit(self._reset_episode)
        self._step = jax.jit(self._step_with_reset)
        self._step_env = jax.jit(self._step_episode)
        self._world_state = jax.jit(self._world)

    def _stand_ins(self, stand_ins) -> tuple[tuple, tuple]:
        """``stand_ins`` checked (module docstring): ``(behaviours, agents)``, both tuples
        (empty without); a ValueError names what is wrong."""
        if stand_ins is None:
            return (), ()
        if not isinstance(stand_ins, tuple | list) or len(stand_ins) != 2:
            raise ValueError(f"stand_ins={stand_ins!r} must be (behaviours, agents)")
        behaviours, agents = map(tuple, stand_ins)
        for name in behaviours:
            if not stands_in(self.game.name, name):
                able = sorted(n for n in self.game.behaviours if stands_in(self.game.name, n))
                raise ValueError(f"stand_ins: {name!r} is not a scripted behaviour of "
                                 f"{self.game.name} that decides on arrays; allowed: {able}")
        if not behaviours or len(set(behaviours)) < len(behaviours):
            raise ValueError(f"stand_ins: behaviours={list(behaviours)!r} must be distinct "
                             "names, at least one")
        if not agents or len(set(agents)) < len(agents) or not all(
                type(j) is int and 0 <= j < self.num_agents for j in agents):
            raise ValueError(f"stand_ins: agents={list(agents)!r} must be distinct agents, "
                             f"from 0 to {self.num_agents - 1}")
        return behaviours, agents

    def with_stand_ins(self, behaviours, agents) -> "FunctionalEnv":
        """This game and its parameters with the stand-ins ``(behaviours, agents)``."""
        return FunctionalEnv(self.default_params.game, (behaviours, agents),
                             **self.default_params.as_dict())

    def standing(self, state: EnvState, which) -> EnvState:
        """``state`` with the stand-ins of ``which`` (module docstring, "Stand-ins")."""
        import jax.numpy as jnp

        which = jnp.asarray(which)
        memory = list(state.memory)
        for b in range(len(self.stand_ins[0])):
            memory[self.own_groups + b] = {**memory[self.own_groups + b],
                                           STANDING: (which == b)[None]}
        return state._replace(memory=tuple(memory))

    def observation_space(self, agent: str) -> spaces.Box:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def params_of(self, **parameters) -> EnvParams:
        """The ``EnvParams`` of this game with ``parameters``."""
        return EnvParams(self.default_params.game, tuple(sorted(parameters.items(), key=str)))

    def _with(self, params) -> "FunctionalEnv":
        if params is None or params == self.default_params:
            return self
        if not isinstance(params, EnvParams) or params.game != self.default_params.game:
            raise ValueError(f"params={params!r} is invalid: must be None or an EnvParams of "
                             f"{self.default_params.game!r} (env.params_of(**parameters))")
        if params not in self._others:
            stand_ins = self.stand_ins if self.stand_ins[0] else None
            self._others[params] = FunctionalEnv(params.game, stand_ins, **params.as_dict())
        return self._others[params]

    # The interface (each jitted once per instance).
    def reset(self, key, params=None):
        """A fresh episode drawn from ``key``: ``(observations, state)``."""
        return self._with(params)._reset(key)

    def step(self, key, state: EnvState, actions: dict, params=None):
        """One decision of every agent, and a fresh episode if this one ends."""
        env = self._with(params)
        return env._step(key, state, env._checked(actions))

    def step_env(self, key, state: EnvState, actions: dict, params=None):
        """``step`` without the automatic reset: an ended episode's state stays as it ended
        (stepping it further is meaningless)."""
        env = self._with(params)
        return env._step_env(key, state, env._checked(actions))

    def _checked(self, actions) -> dict:
        """``actions``, checked as ``parallel_env`` checks them (module docstring, "Actions"):
        one for each agent and no other key, each an integer of shape ``()`` or ``(1,)``
        and, where its value is known here (not traced by ``jit`` or ``vmap``), from 0 to
        ``actions - 1``; a ValueError names the agent or the key."""
        import jax

        if not isinstance(actions, dict) or set(actions) != set(self.agents):
            given = sorted(actions, key=str) if isinstance(actions, dict) else actions
            raise ValueError(f"step() needs a dict of one action for each of {self.agents}; "
                             f"given: {given!r}")
        count = self.action_spaces[self.agents[0]].n
        for name, action in actions.items():
            dtype = np.dtype(action.dtype if hasattr(action, "dtype") else type(action))
            shape = np.shape(action)
            if dtype.kind not in "iu":
                raise ValueError(f"{name}'s action {action!r} is invalid: must be an integer "
                                 f"from 0 to {count - 1}, not of dtype {dtype}")
            if shape not in ((), (1,)):
                raise ValueError(f"{name}'s action {action!r} is invalid: must be one "
                                 f"integer, of shape () or (1,), not {shape}")
            if not isinstance(action, jax.core.Tracer):
                check_action(np.asarray(action).reshape(()).item(), count, name)
        return actions

    def get_avail_actions(self, state: EnvState) -> dict:
        """Each agent's action mask (int8, 1: allowed)."""
        return {name: state.mask[..., j, :] for j, name in enumerate(self.agents)}

    def world_state(self, state: EnvState):
        """The centralised state (float32), as ``parallel_env``'s ``state()``."""
        return self._world_state(state)

    def _split(self, rows) -> dict:
        """Rows ``(agents, ...)`` as a dict keyed by agent."""
        return {name: rows[j] for j, name in enumerate(self.agents)}

    def _reset_episode(self, key):
        vectors, state = self.start(key)
        return self._split(vectors), state

    def _step_episode(self, key, state, actions):
        return self._as_dicts(self._switch(self.decide, key, state, actions))

    def _step_with_reset(self, key, state, actions):
        return self._as_dicts(self._switch(self.decide_and_reset, key, state, actions))

    def _switch(self, function, key, state, actions: dict) -> "Decided":
        """``function(index, ...)`` of the decision ``state.phase`` names."""
        import jax
        import jax.numpy as jnp

        # a traced action cannot be checked against the range: clipped into it
        chosen = jnp.clip(jnp.stack([jnp.asarray(actions[name], dtype=jnp.int32).reshape(())
                                     for name in self.agents]),
                          0, self.action_spaces[self.agents[0]].n - 1)
        branches = [functools.partial(function, index) for index in range(len(self.decisions))]
        if len(branches) == 1:
            return branches[0](key, state, chosen)
        return jax.lax.switch(state.phase, branches, key, state, chosen)

    def _as_dicts(self, decided: "Decided"):
        import jax
        import jax.numpy as jnp

        def per_agent(value):
            return jnp.broadcast_to(value, (self.num_agents,))

        dones = {**dict.fromkeys(self.agents, decided.ended), "__all__": decided.ended}
        infos = {"terminated": per_agent(decided.ended & decided.by_rules),
                 "truncated": per_agent(decided.ended & ~decided.by_rules),
                 "round": jax.tree_util.tree_map(per_agent, decided.columns)}
        return (self._split(decided.vectors), decided.state, self._split(decided.rewards), dones,
                infos)

    # One episode as arrays, on the engine's methods (dilemmas.models.batch); the vectorised
    # environment maps these over its episodes.
    def _bind(self, key, arrays: dict, memory, t):
        import jax.numpy as jnp

        engine = copy.copy(self.template)
        engine.xp, engine.key, engine.t = jnp, key, t
        for name, value in arrays.items():
            setattr(engine, name, value)
        engine.groups = [Group(group.behaviour, group.seats, dict(kept), group.arrays)
                         for group, kept in zip(self.template.groups, memory)]
        return engine

    def _held(self, engine, kept: dict) -> EnvState:
        """The state of ``engine`` (its decision and mask not yet set: ``observed``), every
        array strongly typed (``_strong``)."""
        import jax
        import jax.numpy as jnp

        return jax.tree_util.tree_map(_strong, EnvState(
            {name: getattr(engine, name) for name in engine.state},
            tuple(group.memory for group in engine.groups), kept,
            jnp.asarray(engine.t, dtype=jnp.int32), None, None))

    def observed(self, key, state: EnvState, index: int):
        """The observation vectors ``(agents, L)`` of the decision ``index`` and the state
        awaiting it, with its mask."""
        import jax.numpy as jnp

        engine = self._bind(key, state.arrays, state.memory, state.t)
        vectors, mask = self.interface.batch_observe(engine, self.seats,
                                                     self.decisions[index], state.kept)
        mask = jnp.asarray(mask, dtype=jnp.int8)
        mask = jnp.broadcast_to(mask[0] if mask.ndim == 3 else mask,
                                (self.num_agents, mask.shape[-1]))
        return vectors[0], state._replace(phase=jnp.int32(index), mask=mask)


    def _begun(self, key) -> EnvState:
        """A fresh episode drawn from ``key``, awaiting its first decision."""
        import jax.numpy as jnp

        engine = self._bind(key, {}, tuple({} for _ in self.template.groups), jnp.int32(0))
        engine.start()
        for group in engine.groups[self.own_groups:]:  # no stand-in yet (``standing``)
            group.memory[STANDING] = jnp.zeros((1, len(group.seats)), dtype=bool)
        kept = self.interface.batch_memory(engine)
        engine.begin_round()
        return self._held(engine, kept)

    def start(self, key):
        """A fresh episode drawn from ``key``: ``(vectors, state)``."""
        import jax

        key, seen = jax.random.split(key)
        return self.observed(seen, self._begun(key), 0)

    def advance(self, index: int, key, state: EnvState, chosen):
        """The decision ``index`` taken with the agents' actions ``chosen`` ``(agents,)``, and
        after the round's last the rest of the round: ``(state, rewards, ended, by_rules,
        columns)``: the state (after the round's last decision, before the next round, which
        ``opened`` begins; ``observed`` makes it await a decision), the agents' rewards, whether the
        episode ended and the rules (not ``max_steps``) ended it, and the model reporters."""
        import jax.numpy as jnp

        engine = self._bind(key, state.arrays, state.memory, state.t)
        kept = dict(state.kept)
        before = engine.rewards[0, self.seats]
        phase = self.decisions[index]
        decided = self.interface.batch_decisions(engine, self.seats, phase, chosen[None], kept)
        engine.take(phase, engine.decide(phase, decided))
        ended = by_rules = jnp.bool_(False)
        if index + 1 == len(self.decisions):
            ended = engine.resolve()[0]
            by_rules = self.interface.batch_ended_by_rules(engine)[0]
        rewards = engine.rewards[0, self.seats] - before
        columns = {name: value[0] for name, value in engine.model_row().items()}
        return self._held(engine, kept), rewards, ended, by_rules, columns

    def closing(self, key, state: EnvState):
        """The observation vectors ``(agents, L)`` of an episode that has ended
        (``advance``'s state after the round's last decision)."""
        engine = self._bind(key, state.arrays, state.memory, state.t)
        return self.interface.batch_observe(engine, self.seats, None, state.kept)[0][0]

    def opened(self, key, state: EnvState) -> EnvState:
        """The next round of ``advance``'s state after the round's last decision, awaiting its
        first decision."""
        engine = self._bind(key, state.arrays, state.memory, state.t)
        engine.begin_round()
        return self._held(engine, dict(state.kept))

    def decide(self, index: int, key, state: EnvState, chosen) -> "Decided":
        """The decision ``index`` taken with the agents' actions ``chosen`` ``(agents,)``;
        after the round's last, the rest of the round and the next round's opening (the
        observations those of the episode's end where it ended)."""
        import jax
        import jax.numpy as jnp

        key, close, open_, seen = jax.random.split(key, 4)
        after, rewards, ended, by_rules, columns = self.advance(index, key, state, chosen)
        if index + 1 < len(self.decisions):
            vectors, after = self.observed(seen, after, index + 1)
            return Decided(vectors, after, rewards, ended, by_rules, vectors, columns)
        final = self.closing(close, after)
        vectors, after = self.observed(seen, self.opened(open_, after), 0)
        return Decided(jnp.where(ended, final, vectors), after, rewards, ended, by_rules,
                       final, columns)

    def decide_and_reset(self, index: int, key, state: EnvState, chosen) -> "Decided":
        """``decide``, and a fresh episode (its first observations and state) where the
        episode ended."""
        import jax
        import jax.numpy as jnp

        if index + 1 < len(self.decisions):  # no episode ends before the round's last decision
            return self.decide(index, key, state, chosen)
        key, close, open_, seen, fresh = jax.random.split(key, 5)
        after, rewards, ended, by_rules, columns = self.advance(index, key, state, chosen)
        final = self.closing(close, after)
        after = jax.tree_util.tree_map(lambda new, old: jnp.where(ended, new, old),
                                       self._begun(fresh), self.opened(open_, after))
        vectors, after = self.observed(seen, after, 0)
        return Decided(vectors, after, rewards, ended, by_rules, final, columns)

    def state_at(self, index: int, state: EnvState):
        """The centralised state (float32) of an episode awaiting the decision ``index``."""
        engine = self._bind(None, state.arrays, state.memory, state.t)
        return self.interface.batch_state(engine, self.decisions[index], dict(state.kept))[0]

    def _world(self, state: EnvState):
        import jax

        branches = [functools.partial(self.state_at, index)
                    for index in range(len(self.decisions))]
        if len(branches) == 1:
            return branches[0](state)
        return jax.lax.switch(state.phase, branches, state)


def _strong(value):
    """``value`` with its dtype but not weakly typed. A fresh episode's arrays (``reset``'s,
    made from Python numbers) can be weakly typed where a stepped episode's are not (a
    ``jnp.where`` with a strongly typed one, a ``lax.scan`` carry): the same dtypes, but
    another signature, so that a ``jit`` given ``step``'s state after ``reset``'s would
    compile again. The values are unchanged; NumPy values are strongly typed already."""
    import jax
    import jax.numpy as jnp

    if isinstance(value, np.ndarray | np.generic):
        return value
    value = jnp.asarray(value)
    return jax.lax.convert_element_type(value, value.dtype) if value.weak_type else value


class Decided(NamedTuple):
    """What one decision did to one episode (arrays; ``FunctionalEnv.decide``)."""

    vectors: Any     # (agents, L) the observations that follow
    state: EnvState
    rewards: Any     # (agents,)
    ended: Any       # the episode ended
    by_rules: Any    # the rules ended it (else max_steps)
    final: Any       # (agents, L) the observations the episode closes with
    columns: dict    # the model reporters after the decision
