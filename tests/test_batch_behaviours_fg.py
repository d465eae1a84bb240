"""Firefighting Graph: every behaviour's ``batch_decide`` makes its Mesa decisions.

Several Mesa models of one parameter set play side by side; before each step, the batch
version of the behaviour (``batch_decide``, ``dilemmas.models.firefighting_graph.batch``) decides for
all of them at once, one row per model, from the flames each model's firefighters saw, with
its memory carried from step to step as the engine carries it; the Mesa agents then decide
in their own step. The two must choose the same action for every firefighter of every
model at every step. ``random`` draws from ``model.random`` in the model and from the
batch's generator in the batch: the numbers the Mesa agents drew are recorded and handed to
the batch as its generator's, so both decide from the same numbers.
"""

from types import SimpleNamespace

import numpy as np
import pytest

from dilemmas.agents.firefighting_graph import BEHAVIOURS
from dilemmas.models.batch import Group
from dilemmas.models.firefighting_graph.model import FirefightingGraphModel

BATCHED = sorted(name for name, cls in BEHAVIOURS.items() if hasattr(cls, "batch_decide"))
CONFIGS = [dict(), dict(preset="oliehoek"), dict(layout="grid", n_width=3, n_height=2),
           dict(layout="grid", preset="oliehoek", n_width=4, n_height=3), dict(n_agents=3),
           # beliefs that start at 1/2 and move slowly: the threshold of 1/2 and ties matter
           dict(max_fire_level=1, p_ignite=0.05, p_observe=(0.3, 0.5, 0.7)),
           dict(layout="grid", max_fire_level=1, p_ignite=0.02, p_observe=(0.4, 0.5, 0.6)),
           # flames that tell nothing: every belief stays exactly 1/2, all tied
           dict(max_fire_level=1, p_ignite=0.0, p_observe=(0.5, 0.5, 0.5))]
MODELS, STEPS = 6, 25


def test_every_batched_behaviour_is_covered():
    assert BATCHED == ["belief_tracker", "fixed0", "fixed1", "random"]


class Recorder:
    """``model.random`` that records the numbers the Mesa agents draw."""

    def __init__(self, random):
        self.random_source, self.drawn = random, []

    def random(self):
        u = self.random_source.random()
        self.drawn.append(u)
        return u


class Replay:
    """The batch's generator: returns the numbers given, shaped as asked."""

    def __init__(self, numbers):
        self.numbers = numbers

    def random(self, shape):
        assert self.numbers.shape == shape
        return self.numbers


@pytest.mark.parametrize("behaviour", BATCHED)
@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_batch_decisions_equal_the_mesa_decisions_step_by_step(behaviour, config):
    models = [FirefightingGraphModel(**config, population=behaviour, max_steps=STEPS, rng=seed)
              for seed in range(MODELS)]
    first = models[0]
    seats = np.arange(first.n_agents)
    group = Group(type(first.seats[0]), seats, {})
    memory = getattr(group.behaviour, "batch_memory", None)
    if memory:
        group.memory = memory(SimpleNamespace(size=len(models), model=first, xp=np), group)
    chosen = {}
    for model in models:
        model.random = Recorder(model.random)
        model.visit = (lambda visit, model: lambda actions: (
            chosen.__setitem__(model, [int(a) for a in actions.values()]), visit(actions))[1]
        )(model.visit, model)
    for step in range(STEPS):
        seen = np.array([model.observations for model in models])  # flames of the last step
        for model in models:
            model.random.drawn.clear()
            model.step()
        drawn = np.array([model.random.drawn for model in models]) if behaviour == "random" \
            else None
        batch = SimpleNamespace(size=len(models), model=first, observations=seen, t=step + 1,
                                xp=np, draw=Replay(drawn).random)
        decided = group.behaviour.batch_decide(batch, group, "choose")
        expected = np.array([chosen[model] for model in models])
        assert decided.tolist() == expected.tolist(), f"step {step + 1}"
        if not all(model.running for model in models):
            break
