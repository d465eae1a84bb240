"""Many episodes at once: the batch engine every array game shares.

A game whose rules are written over arrays of episodes (``models/<game>/arrays.py``)
registers a batch engine (``Game.batch``, a subclass of :class:`BatchEngine` in
``models/<game>/batch.py``). It plays ``episodes`` episodes of one parameter set together,
round by round, with the same rule functions the game's Mesa model calls for its one
episode, and with behaviours that decide for all episodes at once: a behaviour class that
defines ``batch_decide`` (see each game's agents module) can play in a batch. The engine
records the model reporters after construction and after every round of every episode,
exactly the columns the model's DataCollector would collect (``Step`` counts the
collections), and with ``agents=True`` the agent reporters too.

``run()`` plays the whole batch compiled by JAX (``jit`` and ``lax.scan``, on the default
JAX device: a CPU, or a GPU where the CUDA plugin is installed): the engine's methods are
traced once with JAX arrays for every per-episode array and the rule functions run on
them (``dilemmas.models.xp``); every episode plays every round, and the rounds after an
episode's end are not recorded (nothing of them is kept). The compiled program is kept for
the next batch of the same parameters and size. Called round by round instead (``start``, ``play_round``
or ``begin_round``, ``decide``, ``take``, ``resolve``, ``keep``, as ``dilemmas.envs.vector``
does), the engine runs the same methods on numpy arrays and drops the episodes that end.

Randomness: every number comes from ``draw(shape)``, uniform in [0, 1): from the numpy
generator ``rng`` round by round, from a JAX key derived from ``rng`` in ``run()``. The
episodes share it, so the results agree with the Mesa model's in distribution, not draw for
draw; a batch is reproducible from its seed, its parameters and its number of episodes, on
a given JAX backend.

Replaying (``replay(episode)``, ``world(states, round)``): an engine built as the block's
was (same episodes, parameters and seed) plays the block again exactly as ``run()`` played it
-- on numpy round by round under ``COMPILED_FROM`` episodes, else by the same compiled rounds
(``Replay``, a ``Program`` that also returns one episode's arrays) from the same key -- and
keeps the chosen episode's arrays after every round it played; ``world`` loads them into a
Mesa model of the game (each game's ``load``), whose DataCollector then holds that episode's
rows as the model's own reporters compute them. Nothing ``run()`` records changes.

``BatchEngine(episodes, rng, **parameters)`` checks the parameters by building the game's
Mesa model once (so the two take the same parameters and mean the same by them) and refuses
a population with a behaviour that cannot decide on arrays (``unable`` names them).
"""

import copy
import math
import os
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dilemmas.models.episode_models import EpisodeModels, off_blocks
from dilemmas.models.on_arrays import decides_on_arrays, off_arrays
from dilemmas.models.phases import _columns, round_of
from dilemmas.models.policies import POLICY
from dilemmas.models.xp import fori, set_at
from dilemmas.registry import GAMES


#: The entry of an engine's ``agent_row()`` that marks the seats with agent rows, where a game
#: seats some agents without rows (Stag Hunt's seats not spawned); not an agent reporter.
SEATED = "seated"

def gathered(kind: type) -> property:
    """A property of an engine holding the arrays named by the fields of ``kind`` (a
    NamedTuple of the game's ``arrays``) as one ``kind``; setting it sets each array."""
    fields = kind._fields

    def get(engine):
        arrays = engine.__dict__
        return kind._make([arrays[name] for name in fields])

    def put(engine, value):
        engine.__dict__.update(zip(fields, value))

    return property(get, put, doc=f"The episodes' ``{kind.__name__}`` (one array of the "
                                  "engine's each).")


def _shown_only():
    raise RuntimeError("a world replayed from a batch-engine block shows a recorded episode "
                       "and cannot play on: build the game's model to play")


def unable(model) -> list[str]:
    """The behaviours seated in ``model`` that cannot decide on arrays
    (``decides_on_arrays``): what a compiled program (``run(compiled=True)``, the functional
    environment) cannot play; a block on numpy plays them through its episodes' models."""
    return sorted({agent.behaviour for agent in model.seats
                   if not decides_on_arrays(type(agent))})


def in_python(model) -> list[str]:
    """The behaviours seated in ``model`` that a block plays in Python, episode by episode,
    through each episode's model (``dilemmas.models.episode_models``), with why each is not
    on arrays: ``["home_guard (no batch_decide)", ...]``."""
    named = {}
    for agent in model.seats:
        reason = off_arrays(type(agent))
        if reason and off_blocks(type(agent)) is None:
            named.setdefault(agent.behaviour, reason)
    return [f"{name} ({_short(reason)})" for name, reason in named.items()]


def _short(reason: str) -> str:
    """``off_arrays``'s reason in a few words, without the behaviour's own name."""
    if reason.endswith("(it has no batch_decide)"):
        return "no batch_decide"
    return reason.split(") ", 1)[1].removesuffix(" without its own batch_decide")


def why_off_engine(model) -> str | None:
    """In one line, the first seated behaviour (by seat) that keeps ``model``'s parameters
    off the batch engine and why (``off_blocks``: it plays the model's policy, learns while
    it plays, or declares ``one_model``), or the engine's own refusal; None when the engine
    can play them (behaviours that decide in Python included, ``in_python``)."""
    for agent in model.seats:
        reason = off_blocks(type(agent))
        if reason:
            return reason
    engine = model.game.batch
    if engine is None:
        return f"{model.game.title} has no batch engine"
    return engine.refusal(model)


def _groups(behaviours: list[type]) -> list["Group"]:
    """The seats of each behaviour, in the order the behaviours first sit."""
    return [Group(cls, np.array([i for i, kind in enumerate(behaviours) if kind is cls]), {})
            for cls in dict.fromkeys(behaviours)]


#: The memory entry of a stand-in group (``Group``): ``(episodes, seats)`` booleans, where it
#: decides for the seat in the episode.
STANDING = "standing in"


@dataclass
class Group:
    """Seats of one behaviour: the class, the seat numbers and the behaviour's own arrays
    (``memory``: name -> array whose first axis is the episodes, kept in step with them).

    A stand-in group (``memory[STANDING]``) decides for seats whose decisions are supplied
    from outside (``policy`` seats of an environment) only where its ``STANDING`` entry
    holds, episode by episode: a frozen scripted co-player of a training
    (``dilemmas.envs.functional``, ``stand_ins``). Elsewhere the supplied decision stands."""

    behaviour: type
    seats: np.ndarray
    memory: dict
    #: Whether the behaviour decides on arrays (``decides_on_arrays``, as it was when the
    #: group was made: an engine's or a model's seats are judged once).
    arrays: bool | None = None

    def __post_init__(self):
        if self.arrays is None:
            self.arrays = decides_on_arrays(self.behaviour)


#: Batches of fewer episodes play on numpy, round by round, unless ``run(compiled=True)``:
#: compiling a program takes about 2 s on a CPU, longer than such a batch plays on numpy.
COMPILED_FROM = 1024


class BatchEngine:
    """The shared part of a game's batch engine: parameters, groups of seats, random
    numbers, the compiled run and the dropping of finished episodes.

    A subclass sets ``game`` (the registered name), lists in ``state`` the names of its
    per-episode arrays (first axis: the episodes still playing) and in ``decisions`` the
    round's decision phases, and defines ``setup()`` (the arrays after construction),
    ``blank(phase)`` (the arrays a phase's decisions fill, ``(episodes, seats)`` each),
    ``take(phase, decisions)`` (the decisions take effect), ``resolve()`` (the rest of the
    round; returns the mask of the episodes that ended), ``model_row()`` (the model
    reporters, name -> ``(episodes,)`` array) and ``agent_row()`` (the numeric agent
    reporters, name -> ``(episodes, seats)``, and ``SEATED``, the seats that have agent
    rows, where only some do); ``labels`` names the agent reporters recorded as words
    (reporter -> the words for False and True; None before the first round);
    ``seat_columns`` the agent reporters read from the Mesa model's seats (fixed for an
    agent); ``load(model, state)`` sets the game's Mesa model to one episode's arrays (a
    round of ``replay``), for ``world``.
    Every method builds new arrays with ``self.xp`` (numpy or ``jax.numpy``) and never
    changes one in place, so that JAX can trace it. A round is ``begin_round()``, then
    ``decide`` and ``take`` for each decision phase, then ``resolve()`` (``play_round``); an
    environment that supplies some seats' decisions itself (``external=True``: the ``policy``
    seats) plays the same calls (``dilemmas.envs.vector``).
    """

    game: str = ""
    state: tuple[str, ...] = ()

    labels: dict[str, tuple[str, str]] = {}
    seat_columns: tuple[str, ...] = ("behaviour",)
    #: Rounds per compiled call of ``run()``, between looks at which episodes still play.
    chunk = 4

    def __init__(self, episodes: int, rng: np.random.Generator, *, agents: bool = False,
                 external: bool = False, seeds=None, **parameters):
        if type(episodes) is not int or episodes < 1:
            raise ValueError(f"episodes={episodes!r} is invalid: must be an integer >= 1")
        game = GAMES[self.game]
        self.parameters = parameters
        self.model = game.model(**parameters, collect_data=False, rng=0)
        behaviours = [type(agent) for agent in self.model.seats]
        refused = sorted({agent.behaviour for agent in self.model.seats
                          if off_blocks(type(agent)) or external and not
                          decides_on_arrays(type(agent))} - ({POLICY} if external else set()))
        if refused:
            raise ValueError(f"population={self.model.population!r}: {refused} "
                             f"cannot play in the {game.title} batch engine; use the Mesa "
                             f"model ({game.model.__name__})")
        refused = self.refusal(self.model)
        if refused:
            raise ValueError(f"{refused}: the {game.title} batch engine cannot play it; use the "
                             f"Mesa model ({game.model.__name__})")
        self.rng = rng
        self.xp = np
        self.key = None  # a JAX key while run() traces the engine
        self.episodes = episodes
        self.ids = np.arange(episodes)  # the episodes still playing
        self.t = 0
        self.groups = _groups(behaviours)
        self.collect_agents = agents
        self.seeds = None
        if any(not g.arrays and off_blocks(g.behaviour) is None for g in self.groups):
            if seeds is None:
                seeds = rng.integers(0, 2**63, size=episodes)
            self.seeds = [int(seed) for seed in seeds]
            if len(self.seeds) != episodes:
                raise ValueError(f"seeds: {len(self.seeds)} seeds for {episodes} episodes")

    @property
    def decisions(self) -> tuple[str, ...]:
        """The round's decision phases, from its model's declared round (``round_of``; an
        engine that plays its own round lists them itself)."""
        return round_of(type(self.model))[1]

    @classmethod
    def one(cls, model) -> "BatchEngine":
        """An engine of one episode that holds ``model``'s state (``model.episode``): the
        model is its template, the rules draw from ``model.rng`` and the behaviours that
        decide on arrays from ``model.random`` (``PhasedModel.behaviour_draw``), as a Python
        behaviour does; the game's ``setup`` is left to the model, which gives it its own
        first state."""
        engine = cls.__new__(cls)
        engine.parameters, engine.model, engine.rng, engine.held = {}, model, None, True
        engine.xp, engine.key, engine.episodes, engine.ids, engine.t = np, None, 1, np.arange(1), 0
        engine.behaviour_draw = model.behaviour_draw
        engine.groups = _groups([type(agent) for agent in model.seats])
        engine.collect_agents = False
        return engine

    @classmethod
    def refusal(cls, model) -> str | None:
        """Why the engine cannot play ``model``'s parameters (None: it can), beside the
        behaviours that cannot decide on arrays (``unable``)."""
        return None

    @property
    def size(self) -> int:
        """Episodes still playing."""
        return len(self.ids)

    #: Where the behaviours' numbers come from round by round (None: ``rng``, as the rules').
    behaviour_draw = None
    deciding = False
    #: An engine that holds a model's episode (``one``) draws from ``model.rng``.
    held = False
    #: Each episode's Mesa model, for the seats that decide in Python (``EpisodeModels``;
    #: made by ``start`` where the population has such seats, else None).
    episode_models = None
    #: Each episode's run seed, for its model (None: no seat decides in Python).
    seeds = None

    def draw(self, shape) -> np.ndarray:
        """Uniform numbers in [0, 1) of ``shape``."""
        if self.key is None:
            if self.deciding and self.behaviour_draw is not None:
                return self.behaviour_draw(shape)
            return (self.model.rng if self.held else self.rng).random(shape)
        import jax

        self.key, key = jax.random.split(self.key)
        # drawn flat and by 16 numbers (the first of them the same as drawn exactly: JAX's
        # threefry counts its numbers by position): XLA generates such an array several times
        # faster than a narrow one, above all when the functional environment maps an
        # episode's few numbers over thousands of keys
        count = math.prod(shape)
        return jax.random.uniform(key, (-(-count // 16) * 16,))[:count].reshape(shape)

    def start(self) -> None:
        """The arrays after construction (``setup()``) and each group's memory as its
        behaviour starts it (``start_memory``)."""
        self.setup()
        self.start_memory()
        if self.seeds is not None:
            self.episode_models = EpisodeModels(self, self.seeds)

    def start_memory(self) -> None:
        """Each group's memory as its behaviour starts it (``batch_memory(batch, group)``,
        for behaviours that carry arrays from one decision to the next)."""
        for group in self.groups:
            starts = getattr(group.behaviour, "batch_memory", None)
            group.memory = dict(starts(self, group)) if starts else {}

    def run(self, compiled: bool | None = None, rounds: int | None = None) -> "Rows":
        """Play every episode to its end, or for at most ``rounds`` rounds (round by round on
        numpy only); the recorded rows, episode by episode. ``compiled``: by JAX (True) or
        round by round on numpy (False); by default, JAX from ``COMPILED_FROM`` episodes on
        (and on numpy where ``rounds`` is given)."""
        if compiled and self.seeds is not None:
            warnings.warn(f"{', '.join(in_python(self.model))} decide in Python: the block "
                          "plays on numpy, round by round, not compiled", UserWarning,
                          stacklevel=2)
            compiled = False
        if compiled is None:
            compiled = self.episodes >= COMPILED_FROM and rounds is None \
                and self.seeds is None
        if compiled and rounds is not None:
            raise ValueError("rounds= stops a batch played round by round on numpy; a "
                             "compiled batch plays every episode to its end")
        if not compiled:
            return self._run_on_numpy(rounds)
        import jax

        program = Program.of(self, padded(self.episodes))
        seeds = self.rng.integers(0, 2**32, size=2)
        carry, first = program.first(jax.random.fold_in(jax.random.key(int(seeds[0])),
                                                        int(seeds[1])))
        rounds = [jax.device_get(first)]
        while not bool(carry["done"][:self.episodes].all()):
            carry, rows = program.rounds(carry)
            rounds.append(jax.device_get(rows))
        return collected(program.engine, rounds, self.episodes)

    def _run_on_numpy(self, most: int | None = None) -> "Rows":
        """``run()`` round by round on numpy, every episode playing every round as in the
        compiled program (what an ended episode plays is not recorded), for at most ``most``
        rounds."""
        self.start()
        done = np.zeros(self.episodes, dtype=bool)
        rounds = [self.rows()]
        while not done.all() and (most is None or len(rounds) <= most):
            playing = ~done
            done = done | self.play_round()
            rounds.append(_as_chunk({**self.rows(), "playing": playing}))
        return collected(self, rounds, self.episodes)

    def replay(self, episode: int) -> list[dict]:
        """Play the batch again as ``run()`` plays it (the engine must be new, built with the
        batch's episodes, parameters and a generator seeded alike) and return episode
        ``episode``'s state after its start and after every round it played: one dict per
        round, each array of ``state`` for that episode (``"t"``: the round)."""
        if type(episode) is not int or not 0 <= episode < self.episodes:
            raise ValueError(f"episode={episode!r} is not an episode of a batch of "
                             f"{self.episodes}")
        if self.episodes >= COMPILED_FROM:
            return Replay.of(self, padded(self.episodes)).episode(self, episode)
        self.start()
        states, done = [self._one(episode)], np.zeros(self.episodes, dtype=bool)
        while not done[episode]:  # every episode plays every round, as in _run_on_numpy
            done = done | self.play_round()
            states.append(self._one(episode))
        return states

    def _one(self, episode: int) -> dict:
        """Episode ``episode``'s arrays now (copies), with ``"t"``."""
        return {"t": int(self.t), **{name: np.array(getattr(self, name)[episode])
                                     for name in self.state}}

    def world(self, states: list[dict], round: int, model=None):
        """A Mesa model of the game showing a replayed episode (``replay``) after ``round``
        rounds: built with the batch's parameters, its state loaded from ``states[r]`` (the
        game's ``load``) and collected by its own DataCollector for r = 0 .. ``round`` (its
        ``steps`` and ``time`` are r), so its reporters and rows are the episode's as the
        model computes them. ``model``, one this method returned at an earlier round, is
        loaded on in place."""
        import mesa

        if model is None or model.steps > round:
            model = GAMES[self.game].model(**self.parameters, collect_data=False, rng=0)
            model.collect_data = True
            model.datacollector = mesa.DataCollector(
                model_reporters=_columns(model.model_reporters),
                agent_reporters=_columns(model.agent_reporters))
            model.step = _shown_only
            start = 0
        else:
            start = model.steps + 1
        for r in range(start, round + 1):
            self.load(model, states[r])
            model.steps, model.time = r, float(r)
            model.running = r < len(states) - 1
            model.datacollector.collect(model)
        return model

    def load(self, model, state: dict) -> None:
        """Set ``model`` (the game's Mesa model of the batch's parameters) to one episode's
        ``state`` (a dict of ``replay``): its episode's round and arrays, then ``shown``."""
        episode = model.episode
        episode.t = state["t"]
        for name in self.state:
            setattr(episode, name, state[name][None])
        self.shown(model, state)

    def shown(self, model, state: dict) -> None:
        """After ``load``: ``model``'s grid and agents show its episode (``model.show``) and
        it reports the round (``model.end_of_round``)."""
        model.show()
        model.end_of_round()

    def rows(self) -> dict:
        """The rows of the current state: ``{"model": model_row()}``, and ``"agent"`` when
        agents are collected."""
        rows = {"model": self.model_row()}
        if self.collect_agents:
            rows["agent"] = self.agent_row()
        return rows

    def keep(self, playing: np.ndarray) -> None:
        """Drop the episodes that ended from every per-episode array."""
        self.ids = self.ids[playing]
        for name in self.state:
            setattr(self, name, getattr(self, name)[playing])
        for group in self.groups:
            for key, value in group.memory.items():
                group.memory[key] = value[playing]

    def open_round(self) -> None:
        """A round opens: ``t`` counts it."""
        self.t += 1

    def begin_round(self) -> None:
        """A round opens (``open_round``) and its rule phases before its first decision are
        played (``round_of``: the phases its model declares)."""
        self.open_round()
        for phase in round_of(type(self.model))[0]:
            getattr(self, phase.method or phase.name)()
        if self.episode_models is not None:
            self.episode_models.opened()

    def resolve(self) -> np.ndarray:
        """The round's rule phases after its last decision; the mask of the episodes that
        end (what the phase declared ``ends`` returns)."""
        ended = None
        for phase in round_of(type(self.model))[2]:
            result = getattr(self, phase.method or phase.name)()
            if phase.ends:
                ended = result
        if self.episode_models is not None:
            self.episode_models.closed(ended)
        return ended

    def play_round(self) -> np.ndarray:
        """One round of every episode still playing; the mask of those that ended."""
        self.begin_round()
        for phase in self.decisions:
            self.take(phase, self.decide(phase))
        return self.resolve()

    def decide(self, phase: str, supplied: tuple | None = None) -> tuple:
        """Every seat's decision in ``phase``: each behaviour's ``batch_decide`` for its seats
        (a tuple of arrays shaped like ``blank(phase)``, or one array); the seats of
        behaviours without one take theirs from ``supplied`` (arrays like ``blank``), but
        where a stand-in group stands in for them (``Group``)."""
        self.deciding = True
        try:
            if supplied is None and len(self.groups) == 1 \
                    and self.groups[0].arrays:  # one behaviour in every seat
                group = self.groups[0]
                chosen = group.behaviour.batch_decide(self, group, phase)
                return chosen if isinstance(chosen, tuple) else (chosen,)
            decided = self.blank(phase) if supplied is None else tuple(supplied)
            for group in self.groups:
                if group.arrays:
                    chosen = group.behaviour.batch_decide(self, group, phase)
                    standing = group.memory.get(STANDING)
                    decided = tuple(
                        set_at(target, (slice(None), group.seats), part if standing is None
                               else self.xp.where(standing, part, target[:, group.seats]))
                        for target, part in zip(decided, chosen if isinstance(chosen, tuple)
                                                else (chosen,)))
            if self.episode_models is not None:
                decided = self.episode_models.decide(phase, decided)
        finally:
            self.deciding = False
        return decided

    def setup(self):
        raise NotImplementedError

    def blank(self, phase: str) -> tuple:
        raise NotImplementedError

    def take(self, phase: str, decisions: tuple) -> None:
        raise NotImplementedError

    def model_row(self) -> dict:
        raise NotImplementedError

    def agent_row(self) -> dict:
        """Numeric agent reporter -> ``(episodes playing, seats)`` array."""
        raise NotImplementedError


class InTurnEngine(BatchEngine):
    """An engine whose agents act one after another (the gridworlds' act phase, declared
    ``AgentPhase(..., order="in turn")``): when the rule phases before it have been played,
    the round's rule draws the acting order (``turn_order()`` -> ``order``, ``(episodes,
    seats)``); each behaviour then chooses for the seat acting now in each episode
    (``acting``) when its place comes, and the action takes effect at once (``act``). The
    Mesa model plays the same order and ``act`` on its one episode (``PhasedModel.in_turn``).
    A subclass says how the order is drawn (``turn_order``), how many places a round has
    (``places``) and what one action does (``act(action)``: it sets the new state and
    returns what the model records of it)."""

    order = None
    acting = None

    def turn_order(self):
        raise NotImplementedError

    def places(self) -> int:
        raise NotImplementedError

    def act(self, action):
        raise NotImplementedError

    def begin_round(self) -> None:
        """The rule phases before the act phase (``BatchEngine.begin_round``), then the
        acting order is drawn."""
        super().begin_round()
        self.order = self.turn_order()

    def decide(self, phase, supplied=None):
        """Only the seats whose actions come from outside choose now (``supplied``); the
        others choose at their place in the order (``take``)."""
        return self.blank(phase) if supplied is None else tuple(supplied)

    def take(self, phase, decisions):
        """The agents act one after another, each behaviour choosing for its seat when its
        place comes."""
        (supplied,) = decisions
        xp = self.xp
        episodes = xp.arange(self.size)

        def place(i, carry):
            self.current, self.key = carry
            self.acting = self.order[:, i]
            action = supplied[episodes, self.acting]
            for group in self.groups:
                if group.arrays:
                    mine = self.acting[:, None] == xp.asarray(group.seats)
                    if STANDING in group.memory:
                        mine = mine & group.memory[STANDING]
                    mine = mine.any(axis=1)
                    action = xp.where(mine, group.behaviour.batch_decide(self, group, phase),
                                      action)
            if self.episode_models is not None:
                action = self.episode_models.act(phase, action)
            self.act(action)
            return self.current, self.key

        self.current, self.key = fori(0, self.places(), place, (self.current, self.key), xp)
        self.acting = None


class Program:
    """A batch engine's rounds compiled by JAX, for one game, parameter set, number of
    episodes and choice of agent rows (``Program.of`` keeps the last few).

    ``first(key)`` -> ``(carry, rows)``: the arrays after ``start()`` and their rows;
    ``rounds(carry)`` -> ``(carry, rows)``: ``BatchEngine.chunk`` more rounds, ``rows``
    stacked round by round with ``playing`` (which episodes played each round). The carry
    holds every per-episode array, each group's memory, the key, ``t`` and ``done``.
    """

    kept: "OrderedDict[tuple, Program]" = OrderedDict()

    @classmethod
    def of(cls, engine: BatchEngine, episodes: int) -> "Program":
        """The program of ``engine``'s game and parameters for ``episodes`` episodes."""
        key = (type(engine), repr(sorted(engine.parameters.items())), episodes,
               engine.collect_agents)
        if key not in cls.kept:
            cls.kept[key] = cls(engine, episodes)
            while len(cls.kept) > 16:
                cls.kept.popitem(last=False)
        cls.kept.move_to_end(key)
        return cls.kept[key]

    def __init__(self, engine: BatchEngine, episodes: int):
        import jax

        _keep_compiled_programs(jax)
        self.engine = copy.copy(engine)
        self.engine.rng = None
        self.engine.episodes, self.engine.ids = episodes, np.arange(episodes)
        self.first = jax.jit(self._first)
        self.rounds = jax.jit(self._rounds)

    def _bind(self, carry) -> BatchEngine:
        import jax.numpy as jnp

        engine = copy.copy(self.engine)
        engine.xp = jnp
        engine.key, engine.t = carry["key"], carry["t"]
        for name, value in carry["state"].items():
            setattr(engine, name, value)
        engine.groups = [Group(g.behaviour, g.seats, dict(memory), g.arrays)
                         for g, memory in zip(self.engine.groups, carry["memory"])]
        return engine

    @staticmethod
    def _carry(engine, done) -> dict:
        return {"state": {name: getattr(engine, name) for name in engine.state},
                "memory": [group.memory for group in engine.groups],
                "key": engine.key, "t": engine.t, "done": done}

    def _first(self, key):
        import jax.numpy as jnp

        engine = self._bind({"key": key, "t": jnp.int32(0), "state": {},
                             "memory": [{} for _ in self.engine.groups]})
        engine.start()
        done = jnp.zeros(engine.episodes, dtype=bool)
        return self._carry(engine, done), engine.rows()

    def _rounds(self, carry):
        import jax
        import jax.numpy as jnp

        def one(carry, _):
            engine = self._bind(carry)
            playing = ~carry["done"]
            ended = engine.play_round()
            after = self._carry(engine, carry["done"] | ended)
            return after, {**engine.rows(), "playing": playing}

        return jax.lax.scan(one, carry, length=self.engine.chunk)

class Replay(Program):
    """A ``Program`` that also returns one episode's arrays after every round (``episode``,
    an argument, so one compilation serves every episode): the same rounds, traced from the
    same engine methods and key, for ``BatchEngine.replay`` of a block played compiled. The
    program ``run()`` uses is not this one, so what it records does not change."""

    kept: "OrderedDict[tuple, Program]" = OrderedDict()

    @staticmethod
    def _pick(carry, episode) -> dict:
        return {"t": carry["t"], **{name: value[episode]
                                    for name, value in carry["state"].items()}}

    def _first(self, key, episode):
        carry, rows = super()._first(key)
        return carry, self._pick(carry, episode)

    def _rounds(self, carry, episode):
        import jax

        def one(carry, _):
            engine = self._bind(carry)
            playing = ~carry["done"]
            ended = engine.play_round()
            after = self._carry(engine, carry["done"] | ended)
            return after, {"state": self._pick(after, episode), "playing": playing[episode]}

        return jax.lax.scan(one, carry, length=self.engine.chunk)

    def episode(self, engine: BatchEngine, episode: int) -> list[dict]:
        """``BatchEngine.replay`` of ``engine`` (a new engine of this program's batch): its
        key drawn from ``engine.rng`` as ``run()`` draws it, the rounds played chunk by
        chunk until episode ``episode`` has ended."""
        import jax

        seeds = engine.rng.integers(0, 2**32, size=2)
        carry, first = self.first(jax.random.fold_in(jax.random.key(int(seeds[0])),
                                                     int(seeds[1])), episode)
        states = [jax.device_get(first)]
        while True:
            carry, out = self.rounds(carry, episode)
            out = jax.device_get(out)
            for r in range(self.engine.chunk):
                if not out["playing"][r]:
                    break
                states.append({name: value[r] for name, value in out["state"].items()})
            if not out["playing"].all() or bool(carry["done"][episode]):
                break
        return [{name: np.array(value) if name != "t" else int(value)
                 for name, value in state.items()} for state in states]


def collected(engine: BatchEngine, rounds: list, episodes: int) -> "Rows":
    """The rows of ``engine`` (a batch of ``engine.episodes``) after its start and every round
    (``BatchEngine.rows``; each later one with ``playing``, which episodes played the round;
    a compiled program's stacked by ``chunk``) -> ``Rows``: the rounds the first
    ``episodes`` episodes played, episode by episode, in the dtypes of the Mesa model's
    columns."""
    first, later = rounds[0], rounds[1:]
    playing = np.concatenate([np.ones((1, engine.episodes), dtype=bool)]
                             + [r["playing"] for r in later])  # (rounds + 1, E)
    playing[:, episodes:] = False
    mask = playing.T
    steps = np.broadcast_to(np.arange(len(playing))[:, None], playing.shape).T[mask]
    episode = np.broadcast_to(np.arange(engine.episodes)[:, None], mask.shape)[mask]

    def stacked(part, name):
        values = np.concatenate([np.asarray(first[part][name])[None]]
                                + [np.asarray(r[part][name]) for r in later])
        return np.moveaxis(values, 0, 1)[mask]

    def gather(part):
        order = list(getattr(engine.model, f"{part}_reporters"))  # JAX sorts dict keys
        return {name: _as_mesa(stacked(part, name))
                for name in sorted(set(first[part]) & set(order), key=order.index)}

    model = gather("model")
    if not engine.collect_agents:
        return Rows(episodes, episode, steps, model)
    seats = engine.model.seats
    agent = {"AgentID": np.tile([a.unique_id for a in seats], len(steps))}
    for name in engine.seat_columns:
        agent[name] = np.tile(np.array([getattr(a, name) for a in seats], dtype=object),
                              len(steps))
    first_round = np.repeat(steps == 0, len(seats))
    for name, values in gather("agent").items():
        values = values.reshape(-1)
        if name in engine.labels:
            values = np.where(first_round, None,
                              np.array(engine.labels[name], dtype=object)[values.astype(int)])
        agent[name] = values
    agent_episode, agent_step = np.repeat(episode, len(seats)), np.repeat(steps, len(seats))
    if SEATED in first["agent"]:
        seated = stacked("agent", SEATED).reshape(-1).astype(bool)
        agent = {name: values[seated] for name, values in agent.items()}
        agent_episode, agent_step = agent_episode[seated], agent_step[seated]
    return Rows(episodes, episode, steps, model, agent_episode, agent_step, agent)


def _as_chunk(rows: dict) -> dict:
    """One round's rows as a compiled chunk of one round (a leading axis of length 1)."""
    return {name: _as_chunk(value) if isinstance(value, dict) else np.asarray(value)[None]
            for name, value in rows.items()}


def _keep_compiled_programs(jax) -> None:
    """JAX's persistent compilation cache, in ``$XDG_CACHE_HOME/dilemmas/jax`` (default
    ``~/.cache``), unless the user chose one: every process (each of a study's workers, each
    command) then loads a program another one compiled instead of compiling it again."""
    if jax.config.jax_compilation_cache_dir is None:
        home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        jax.config.update("jax_compilation_cache_dir", str(home / "dilemmas" / "jax"))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)


def padded(episodes: int) -> int:
    """The number of episodes a batch of ``episodes`` plays compiled: the next power of two
    up to 1,024, then the next multiple of 1,024, so that batches of nearby sizes share one
    compiled program (the extra episodes are played and dropped)."""
    return 1 << (episodes - 1).bit_length() if episodes <= 1024 else -(-episodes // 1024) * 1024


def _as_mesa(values: np.ndarray) -> np.ndarray:
    """Floats as float64 and integers as int64, as the Mesa model's Python numbers are."""
    if values.dtype.kind == "f":
        return values.astype(np.float64)
    if values.dtype.kind in "iu":
        return values.astype(np.int64)
    return values


@dataclass
class Rows:
    """What a batch recorded. ``model``: model reporter -> array, one row per collection of
    each episode, episode by episode (``episode`` and ``step`` say whose and which);
    ``agent`` likewise with one row per agent (``AgentID`` and the agent reporters), or
    None."""

    episodes: int
    episode: np.ndarray
    step: np.ndarray
    model: dict
    agent_episode: np.ndarray | None = None
    agent_step: np.ndarray | None = None
    agent: dict | None = None

    def bounds(self, episode_of_rows: np.ndarray) -> np.ndarray:
        """Start of each episode's rows (and the end of the last) in rows ordered by
        episode."""
        return np.searchsorted(episode_of_rows, np.arange(self.episodes + 1))

    def last(self) -> dict:
        """Each model column's value at the end of each episode, in episode order."""
        ends = np.r_[self.episode[1:] != self.episode[:-1], True]
        return {name: values[ends] for name, values in self.model.items()}
