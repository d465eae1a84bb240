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
``batch_decide`` is played by the model only (``dilemmas.models.batch.off_arrays``).
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


def _from_arrays(method: str):
    def decide(self):
        return decide_on_arrays(self, method)

    decide.__name__ = decide.__qualname__ = method
    decide.__doc__ = (f"``{method}`` by this behaviour's ``batch_decide`` on the model's one "
                      "episode (``dilemmas.agents.decisions``).")
    return decide


def decide_on_arrays(agent, method: str):
    """``agent``'s decision in ``method`` by its class's ``batch_decide``, on its model's one
    episode (``model.array_view``), decoded into what ``method`` returns
    (``model.array_decision``)."""
    model, behaviour = agent.model, type(agent)
    view, phase = model.array_view(agent, method)
    group = Group(behaviour, np.array([agent.seat]), agent.__dict__.get("array_memory"))
    if group.memory is None:
        starts = getattr(behaviour, "batch_memory", None)
        group.memory = dict(starts(view, group)) if starts else {}
    decided = behaviour.batch_decide(view, group, phase)
    agent.array_memory = group.memory
    return model.array_decision(method, decided)
