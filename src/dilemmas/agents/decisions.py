"""Behaviours written once, over arrays (docs/how-to/add-a-behaviour.md).

A behaviour's array form is ``batch_decide(batch, group, phase)``: the decisions of the seats
``group.seats`` in every episode of a batch (``dilemmas.models.batch``). A behaviour class
that defines ``batch_decide`` but not one of its game's decision methods (``decisions``, the
methods the Mesa model calls: ``choose_action``, and Bucket Brigade's ``choose_signal``) gets
that method from its array form: it decides by ``batch_decide`` on the model's one episode,
as the model shows it to an array behaviour (``model.array_view(agent, method)``: the arrays the
batch engine would hold, with one episode), for its own seat, with its own memory
(``batch_memory``) kept between its decisions, and its random numbers drawn from
``model.random`` (``PhasedModel.behaviour_draw``), as a Python behaviour's are. So one
``batch_decide`` plays on the engine and on the model alike.

A class that defines a decision method itself (or any other method) below its
``batch_decide`` is played by the model only (``dilemmas.models.on_arrays.off_arrays``).
"""

from typing import ClassVar

import numpy as np

from dilemmas.models.batch import Group


class ArrayDecisions:
    """The part of every game's agent class that gives an array behaviour its decision
    methods (module docstring)."""

    #: The methods in which a behaviour decides, called by the model's phases.
    decisions: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "batch_decide" in vars(cls):
            for method in cls.decisions:
                if method not in vars(cls):
                    setattr(cls, method, _from_arrays(method))

    def held(self):
        """``(group, place)``: this seat's behaviour group on its model's episode
        (``model.episode``) and its place in the group's seats; None where the model
        holds no episode or the behaviour has no group there."""
        episode = getattr(self.model, "episode", None)
        for group in episode.groups if episode is not None else ():
            if group.behaviour is type(self):
                return group, int(np.flatnonzero(group.seats == self.seat)[0])
        return None


def seat_memory(name: str, meaning: str) -> property:
    """An array behaviour's memory ``name`` (``batch_memory``) for this seat: its entry of its
    group's memory on the model's episode, as a Python number or list; setting it sets the
    entry (for the seat's next decision)."""
    def get(agent):
        group, place = agent.held()
        return group.memory[name][0, place].tolist()

    def put(agent, value):
        group, place = agent.held()
        whole = np.array(group.memory[name])
        whole[0, place] = value
        group.memory[name] = whole

    return property(get, put, doc=meaning)


def _from_arrays(method: str):
    def decide(self):
        return decide_on_arrays(self, method)

    decide.__name__ = decide.__qualname__ = method
    decide.from_arrays = True
    decide.__doc__ = (f"``{method}`` by this behaviour's ``batch_decide`` on the model's one "
                      "episode (``dilemmas.agents.decisions``).")
    return decide


def decide_on_arrays(agent, method: str):
    """``agent``'s decision in ``method`` by its class's ``batch_decide``, on its model's one
    episode (``model.array_view``), decoded into what ``method`` returns
    (``model.array_decisions``). Where the model holds its episode on a batch engine
    (``model.episode``), the seat's memory is its entry of its behaviour's group there."""
    model, behaviour = agent.model, type(agent)
    view, phase = model.array_view(agent, method)
    episode = getattr(model, "episode", None)
    held, place = agent.held() or (None, None)
    if held is not None:
        memory = {name: value[:, place:place + 1] for name, value in held.memory.items()}
    else:
        memory = agent.__dict__.get("array_memory")
    group = Group(behaviour, np.array([agent.seat]), memory)
    if group.memory is None:
        starts = getattr(behaviour, "batch_memory", None)
        group.memory = dict(starts(view, group)) if starts else {}
    holding = [engine for engine in (episode, view) if hasattr(engine, "deciding")]
    for engine in holding:
        engine.deciding = True
    try:
        decided = behaviour.batch_decide(view, group, phase)
    finally:
        for engine in holding:
            engine.deciding = False
    if held is not None:
        for name, value in group.memory.items():
            whole = np.array(held.memory[name])
            whole[:, place] = value[:, 0]
            held.memory[name] = whole
    else:
        agent.array_memory = group.memory
    return model.array_decisions(method, decided)[0]
