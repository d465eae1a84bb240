"""Many episodes at once: the batch engine every array game shares.

A game whose rules are written over arrays of episodes (``models/<game>_arrays.py``)
registers a batch engine (``Game.batch``, a subclass of :class:`BatchEngine` in
``models/<game>_batch.py``). It plays ``episodes`` episodes of one parameter set together,
round by round, with the same rule functions the game's Mesa model calls for its one
episode, and with behaviours that decide for all episodes at once: a behaviour class that
defines ``batch_decide`` (see each game's agents module) can play in a batch. The engine
records the model reporters after construction and after every round of every episode,
exactly the columns the model's DataCollector would collect (``Step`` counts the
collections), and with ``agents=True`` the agent reporters too.

The results agree with the Mesa model's in distribution, not draw for draw: the episodes
share one generator (``rng``), so each episode's numbers depend on the others in its batch.
A batch is reproducible from its seed, its parameters and its number of episodes.

``BatchEngine(episodes, rng, **parameters)`` checks the parameters by building the game's
Mesa model once (so the two take the same parameters and mean the same by them) and refuses
a population with a behaviour that cannot decide on arrays (``unable`` names them).
"""

from dataclasses import dataclass

import numpy as np

from dilemmas.models.phases import AgentPhase
from dilemmas.registry import GAMES


def decides_on_arrays(behaviour: type, methods) -> bool:
    """Whether a behaviour class can play in a batch: it has ``batch_decide``, defined in
    the class that defines its decision ``methods`` or in a subclass of it (a subclass that
    changes a decision method without its own ``batch_decide`` cannot)."""
    def owner(name):
        return next((cls for cls in behaviour.__mro__ if name in vars(cls)), None)

    batch = owner("batch_decide")
    return batch is not None and all(issubclass(batch, owner(method)) for method in methods
                                     if owner(method) is not None)


def unable(model) -> list[str]:
    """The behaviours seated in ``model`` that cannot decide on arrays
    (``decides_on_arrays``); empty when its game's batch engine can play its parameters."""
    methods = [phase.method for phase in model.phases if isinstance(phase, AgentPhase)]
    return sorted({agent.behaviour for agent in model.seats
                   if not decides_on_arrays(type(agent), methods)})


@dataclass
class Group:
    """Seats of one behaviour: the class, the seat numbers and the behaviour's own arrays
    (``memory``: name -> array whose first axis is the episodes, kept in step with them)."""

    behaviour: type
    seats: np.ndarray
    memory: dict


class BatchEngine:
    """The shared part of a game's batch engine: parameters, groups of seats, recording
    and the dropping of finished episodes.

    A subclass sets ``game`` (the registered name), lists in ``state`` the names of its
    per-episode arrays (first axis: the episodes still playing) and in ``decisions`` the
    round's decision phases, and defines ``start()`` (the arrays after construction),
    ``blank(phase)`` (the arrays a phase's decisions fill, ``(episodes, seats)`` each),
    ``take(phase, decisions)`` (the decisions take effect), ``resolve()`` (the rest of the
    round; returns the mask of the episodes that ended), ``model_row()`` (the model
    reporters of the episodes still playing, name -> array) and, for agent rows,
    ``agent_row()``. A round is ``begin_round()``, then ``decide`` and ``take`` for each
    decision phase, then ``resolve()`` (``play_round``); an environment that supplies some
    seats' decisions itself (``external=True``: the ``policy`` seats) plays the same calls
    (``dilemmas.envs.vector``).
    """

    game: str = ""
    state: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()

    def __init__(self, episodes: int, rng: np.random.Generator, *, agents: bool = False,
                 external: bool = False, **parameters):
        if type(episodes) is not int or episodes < 1:
            raise ValueError(f"episodes={episodes!r} is invalid: must be an integer >= 1")
        game = GAMES[self.game]
        self.parameters = parameters
        self.model = game.model(**parameters, collect_data=False, rng=0)
        behaviours = [type(agent) for agent in self.model.seats]
        if [name for name in unable(self.model) if not (external and name == "policy")]:
            raise ValueError(f"population={self.model.population!r}: {unable(self.model)} "
                             f"cannot play in the {game.title} batch engine; use the Mesa "
                             f"model ({game.model.__name__})")
        self.rng = rng
        self.episodes = episodes
        self.ids = np.arange(episodes)  # the episodes still playing
        self.t = 0
        self.groups = []
        for cls in dict.fromkeys(behaviours):
            seats = np.array([i for i, kind in enumerate(behaviours) if kind is cls])
            self.groups.append(Group(cls, seats, {}))
        self.collect_agents = agents
        self.agent_ids = np.array([agent.unique_id for agent in self.model.seats])
        self._model_rows: list[tuple[np.ndarray, dict]] = []
        self._agent_rows: list[tuple[np.ndarray, dict]] = []

    @property
    def size(self) -> int:
        """Episodes still playing."""
        return len(self.ids)

    def run(self) -> "Rows":
        """Play every episode to its end; the recorded rows, episode by episode."""
        self.start()
        self._record()
        while self.size:
            ended = self.play_round()
            self._record()
            if ended.any():
                self.keep(~ended)
        return Rows(self.episodes, *_stack(self._model_rows, self.episodes),
                    *(_stack(self._agent_rows, self.episodes) if self.collect_agents
                      else (None, None, None)))

    def _record(self):
        self._model_rows.append((self.ids, self.model_row()))
        if self.collect_agents:
            seats = len(self.model.seats)
            row = {"AgentID": np.tile(self.agent_ids, self.size)}
            row.update({name: np.asarray(values).reshape(-1)
                        for name, values in self.agent_row().items()})
            self._agent_rows.append((np.repeat(self.ids, seats), row))

    def keep(self, playing: np.ndarray) -> None:
        """Drop the episodes that ended from every per-episode array."""
        self.ids = self.ids[playing]
        for name in self.state:
            setattr(self, name, getattr(self, name)[playing])
        for group in self.groups:
            for key, value in group.memory.items():
                group.memory[key] = value[playing]

    def begin_round(self) -> None:
        """A round opens: ``t`` counts it."""
        self.t += 1

    def play_round(self) -> np.ndarray:
        """One round of every episode still playing; the mask of those that ended."""
        self.begin_round()
        for phase in self.decisions:
            self.take(phase, self.decide(phase))
        return self.resolve()

    def decide(self, phase: str, supplied: tuple | None = None) -> tuple:
        """Every seat's decision in ``phase``: each behaviour's ``batch_decide`` for its seats
        (a tuple of arrays shaped like ``blank(phase)``, or one array); the seats of
        behaviours without one take theirs from ``supplied`` (arrays like ``blank``)."""
        decided = self.blank(phase) if supplied is None else tuple(np.array(a) for a in supplied)
        for group in self.groups:
            if group.behaviour.behaviour != "policy":
                chosen = group.behaviour.batch_decide(self, group, phase)
                for target, part in zip(decided, chosen if isinstance(chosen, tuple) else (chosen,)):
                    target[:, group.seats] = part
        return decided

    def start(self):
        raise NotImplementedError

    def blank(self, phase: str) -> tuple:
        raise NotImplementedError

    def take(self, phase: str, decisions: tuple) -> None:
        raise NotImplementedError

    def resolve(self) -> np.ndarray:
        raise NotImplementedError

    def model_row(self) -> dict:
        raise NotImplementedError

    def agent_row(self) -> dict:
        """Agent reporter -> ``(episodes playing, seats)`` array."""
        raise NotImplementedError


def _stack(rows, episodes: int):
    """Rows recorded round by round -> (episode of each row, Step of each row, columns), in
    episode order and, within an episode, in Step order (agents in seat order). Each round
    recorded the episodes playing in increasing order, so a row's place is known without
    sorting: its episode's first row plus the rows of its earlier rounds."""
    counts = [np.bincount(ids, minlength=episodes) for ids, _ in rows]
    first = np.concatenate(([0], np.cumsum(sum(counts))[:-1]))
    total = sum(len(ids) for ids, _ in rows)
    episode, step = np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64)
    columns = {}
    placed = np.zeros(episodes, dtype=np.int64)  # rows of each episode placed so far
    for t, ((ids, values), count) in enumerate(zip(rows, counts)):
        rank = np.arange(len(ids)) - np.searchsorted(ids, ids)  # seat, for agent rows
        places = first[ids] + placed[ids] + rank
        episode[places], step[places] = ids, t
        for name, value in values.items():
            value = np.asarray(value)
            if name not in columns:
                columns[name] = np.empty(total, dtype=value.dtype)
            columns[name][places] = value
        placed += count
    return episode, step, columns


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
