"""One round, one state, one behaviour (docs/explanation/architecture.md): where a model
declares its rule phases as ``RulePhase``s (the Firefighting Graph), the Mesa model and the
batch engine play the same methods, the model's state is its one episode on the engine, and
the built-in behaviours exist only as ``batch_decide``."""

import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.agents import firefighting_graph as fg_agents
from dilemmas.models.batch import decides_on_arrays, round_of
from dilemmas.models.firefighting_graph.batch import FirefightingGraphBatch
from dilemmas.models.firefighting_graph.model import FirefightingGraphModel
from dilemmas.models.phases import RulePhase

RULES = ("transition", "observe", "reward", "terminate")


def test_the_round_is_declared_once_and_the_engine_plays_it():
    before, decisions, after = round_of(FirefightingGraphModel)
    assert before == () and decisions == ("choose",)
    assert tuple(phase.name for phase in after) == RULES
    assert all(isinstance(phase, RulePhase) for phase in after)
    engine = FirefightingGraphBatch(4, np.random.default_rng(0))
    assert engine.decisions == ("choose",)


def test_model_and_engine_run_the_same_rule_methods(monkeypatch):
    """A rule phase changed in the engine's class changes the model's step too."""
    calls = []
    for name in RULES:
        original = getattr(FirefightingGraphBatch, name)

        def spy(self, _name=name, _original=original):
            calls.append((self.episodes, _name))
            return _original(self)

        monkeypatch.setattr(FirefightingGraphBatch, name, spy)
    model = FirefightingGraphModel(population="random", rng=0)
    model.step()
    engine = FirefightingGraphBatch(3, np.random.default_rng(0))
    engine.start()
    engine.play_round()
    assert calls == [(1, name) for name in RULES] + [(3, name) for name in RULES]
    assert model.phases_run == ["choose", *RULES]


def test_the_model_state_is_its_episode_and_setting_it_by_hand_counts():
    model = FirefightingGraphModel(n_agents=2, population="fixed1:1,fixed0:1",
                                   initial_levels=[0, 0, 0], p_ignite=0.0, rng=0)
    assert model.episode.episodes == 1 and model.episode.model is model
    model.fire.data[0, 1] = 3            # a level set on the grid by hand
    model.rewards = [10.0, 20.0]          # and rewards
    model.step()                          # both visit house 1 and put it out (p_two_agents)
    assert model.visited.tolist() == [1, 1] == model.episode.visited[0].tolist()
    assert [agent.house for agent in model.seats] == [1, 1]
    assert model.rewards.tolist() == [10.0, 20.0]   # level 0 after the transition: -0 each
    assert model.fire.data.tolist() == [[0, 0, 0]] and model.episode.levels.tolist() == [[[0, 0, 0]]]
    model.fire.data[0, 2] = 5
    model.visited = [0, 0]
    model.reward()                        # a rule phase by hand, on the episode
    assert model.rewards.tolist() == [10.0, 20.0]
    assert model.t == 1 == model.steps


@pytest.mark.parametrize("name", ["random", "fixed0", "fixed1", "belief_tracker"])
def test_each_built_in_behaviour_is_written_once_over_arrays(name):
    cls = fg_agents.BEHAVIOURS[name]
    assert decides_on_arrays(cls)
    assert getattr(cls.choose_action, "from_arrays", False)  # from its batch_decide
    own = {key for key, value in vars(cls).items() if callable(value) and key != "choose_action"}
    assert own <= {"batch_decide", "batch_memory"}


def test_a_direct_choice_between_steps_is_the_next_steps_choice():
    """``choose_action`` called between steps decides as the step would, from the same
    memory and numbers."""
    for population in ("belief_tracker", "random"):
        played = FirefightingGraphModel(population=population, rng=5, max_steps=12)
        asked = FirefightingGraphModel(population=population, rng=5, max_steps=12)
        while played.running:
            state = asked.random.getstate()
            memory = {name: np.array(value) for group in asked.episode.groups
                      for name, value in group.memory.items()}
            chosen = [agent.choose_action() for agent in asked.seats]
            asked.random.setstate(state)  # the step draws the same numbers again
            for group in asked.episode.groups:
                group.memory.update({name: memory[name] for name in group.memory})
            played.step()
            asked.step()
            assert chosen == [int(a) for a in
                              np.argmax(played.guarded == played.visited[:, None], axis=1)]
