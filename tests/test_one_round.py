"""One round, one state, one behaviour (docs/explanation/architecture.md): where a model
declares its rule phases as ``RulePhase``s (every game), the Mesa model and the
batch engine play the same methods, the model's state is its one episode on the engine, and
the built-in behaviours exist only as ``batch_decide``."""

import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.agents import bucket_brigade as bb_agents
from dilemmas.agents import firefighting_graph as fg_agents
from dilemmas.agents import stag_hunt as sh_agents
from dilemmas.agents import state_punishment as sp_agents
from dilemmas.models.batch import decides_on_arrays, round_of
from dilemmas.models.bucket_brigade.batch import BucketBrigadeBatch
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.rules import BURNING, REST, SAFE, WORK
from dilemmas.models.firefighting_graph.batch import FirefightingGraphBatch
from dilemmas.models.firefighting_graph.model import FirefightingGraphModel
from dilemmas.models.phases import RulePhase
from dilemmas.models.stag_hunt.batch import StagHuntBatch
from dilemmas.models.stag_hunt.model import StagHuntModel
from dilemmas.models.stag_hunt.rules import ATTACK, FORWARD, TURN_RIGHT
from dilemmas.models.state_punishment.batch import StatePunishmentBatch
from dilemmas.models.state_punishment.model import StatePunishmentModel

#: Game -> (model, engine, the rule methods before the decisions, the decisions, the rule
#: methods after them, the engine's methods of an act phase played in turn, the game's
#: agent class).
ROUNDS = {
    "firefighting_graph": (FirefightingGraphModel, FirefightingGraphBatch, (), ("choose",),
                           ("transition", "observe", "reward", "terminate"), (),
                           fg_agents.FirefighterAgent),
    "bucket_brigade": (BucketBrigadeModel, BucketBrigadeBatch, ("observe",), ("signal", "act"),
                       ("extinguish", "spread", "burn_out", "spark", "reward_and_log",
                        "terminate"), (), bb_agents.BucketBrigadeAgent),
    "stag_hunt": (StagHuntModel, StagHuntBatch,
                  ("advance_turn", "update_removals", "entity_transitions"), ("act",),
                  ("record_metrics",), ("turn_order", "act"), sh_agents.StagHuntAgent),
    "state_punishment": (StatePunishmentModel, StatePunishmentBatch, ("spawn",), ("act",),
                         ("log_turn",), ("turn_order", "act"), sp_agents.StatePunishmentAgent),
}
LEARNERS = {"policy", "q_learning", "linear_q"}
BUILT_INS = [(game, name) for game in ROUNDS
             for name in sorted(set(GAMES[game].behaviours) - LEARNERS)]


def methods(phases):
    return tuple(phase.method or phase.name for phase in phases)


@pytest.mark.parametrize("game", ROUNDS)
def test_the_round_is_declared_once_and_the_engine_plays_it(game):
    Model, Engine, before, decisions, after, in_turn, _ = ROUNDS[game]
    rules_before, declared, rules_after = round_of(Model)
    assert methods(rules_before) == before and methods(rules_after) == after
    assert all(isinstance(phase, RulePhase) for phase in rules_before + rules_after)
    assert declared == decisions == Engine(2, np.random.default_rng(0)).decisions
    if in_turn:
        (act,) = [phase for phase in Model.phases if phase.name == "act"]
        assert act.order == "in turn"
    assert "begin_round" not in vars(Engine) and "resolve" not in vars(Engine)


@pytest.mark.parametrize("game", ROUNDS)
def test_model_and_engine_run_the_same_rule_methods(game, monkeypatch):
    """A rule phase changed in the engine's class changes the model's step too."""
    Model, Engine, before, _, after, in_turn, _ = ROUNDS[game]
    calls = []
    for name in before + after + in_turn:
        original = getattr(Engine, name)

        def spy(self, *args, _name=name, _original=original):
            calls.append((self.episodes, _name))
            return _original(self, *args)

        monkeypatch.setattr(Engine, name, spy)
    model = Model(population="random", rng=0)
    model.step()
    mine = list(calls)
    calls.clear()
    engine = Engine(3, np.random.default_rng(0))
    engine.start()
    engine.play_round()
    acted = {"stag_hunt": lambda: len(model.action_order),
             "state_punishment": lambda: len(model.history)}.get(game, lambda: 0)()

    def played(acts):
        return [*before, *(["turn_order", *["act"] * acts] if in_turn else []), *after]

    assert calls == [(3, name) for name in played(engine.places() if in_turn else 0)]
    assert mine == [(1, name) for name in played(acted)]
    assert model.phases_run == [phase.name for phase in Model.phases]


@pytest.mark.parametrize("game, name", BUILT_INS)
def test_each_built_in_behaviour_is_written_once_over_arrays(game, name):
    cls = GAMES[game].behaviours[name]
    assert decides_on_arrays(cls)
    base = ROUNDS[game][6]
    for method in base.decisions:
        assert getattr(getattr(cls, method), "from_arrays", False)  # from its batch_decide
    for klass in cls.__mro__[:cls.__mro__.index(base)]:
        own = {key for key, value in vars(klass).items()
               if callable(value) and key not in base.decisions}
        assert all(key.startswith("batch_") for key in own), (klass, own)


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


# --- The gridworlds ------------------------------------------------------------------


def test_the_stag_hunt_state_is_its_episode_and_setting_it_by_hand_counts():
    model = StagHuntModel(ascii_map="WWWWWW\nWP..2W\nWWWWWW", num_agents=1,
                          num_agents_to_spawn=1, random_agent_spawning=False,
                          population="hare_hunter", agent_config=[{}], rng=0)
    (hunter,) = model.seats
    episode = model.episode
    assert episode.episodes == 1 and episode.model is model
    assert episode.resource.base is model.resource_kinds  # the layer is the array
    hunter.cell = model.grid[(1, 3)]                 # moved by hand, next to the hare
    assert (episode.row[0, 0], episode.col[0, 0]) == (1, 3)
    hunter.orientation = 1                            # facing it (East)
    model.resource_health[1, 4] = 1                   # a hare of 1 health, set by hand
    model.step()
    assert hunter.hares == 1 and model.resource_kinds[1, 4] == 0
    assert model.episode.resource[0, 1, 4] == 0 and model.turn == 1 == model.steps
    model.resource_kinds[1, 1] = 2                    # a hare put on the map by hand
    model.resource_health[1, 1] = 1
    hunter.orientation = 3                            # West, with (1, 2) between
    hunter.cell = model.grid[(1, 2)]
    assert hunter.next_attack > model.turn and hunter.choose_action() != ATTACK
    hunter.next_attack = 0                            # and its cooldown cut short
    assert hunter.choose_action() == ATTACK
    model.step()
    assert hunter.hares == 2 and model.hares_defeated == 2


class _Marcher(sh_agents.StagHuntAgent):
    """Forward, or attack when off cooldown, or turn right every third turn: no numbers."""

    behaviour = "marcher"

    @classmethod
    def batch_decide(cls, batch, group, phase):
        xp, state = batch.xp, batch.current
        ready = state.next_attack[xp.arange(state.row.shape[0]), batch.acting] <= batch.t
        return xp.where(batch.t % 3 == 0, TURN_RIGHT, xp.where(ready, ATTACK, FORWARD))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_stag_hunt_model_without_numbers_in_decisions_plays_the_engines_episode(
        seed, monkeypatch):
    """Seats whose behaviour draws no numbers: the model's episode is, array for array, a
    1-episode engine's played round by round on numpy from a generator seeded alike."""
    monkeypatch.setitem(GAMES["stag_hunt"].behaviours, "marcher", _Marcher)
    parameters = dict(population="marcher", agent_health=1, respawn_lag=2,
                      punish_cooldown=0, max_steps=25)
    model = StagHuntModel(**parameters, rng=seed)
    engine = StagHuntBatch(1, np.random.default_rng(seed), **parameters)
    engine.start()
    while model.running:
        for name in engine.state:
            assert np.array_equal(getattr(model.episode, name), getattr(engine, name)), name
        model.step()
        engine.play_round()
    assert engine.t == model.turn == 25


def test_the_state_punishment_state_is_its_episode_and_setting_it_by_hand_counts():
    model = StatePunishmentModel(num_agents=1, population="greedy_forager", spawn_prob=0.0,
                                 initial_resources=0, taboo="", rng=0)
    (agent,) = model.seats
    grid = model.grids[0]
    assert model.episode.resource.base is model.resources
    agent.cell = grid[(2, 2)]                         # moved by hand
    assert (model.episode.row[0, 0], model.episode.col[0, 0]) == (2, 2)
    grid.resource.data[2, 3] = 3                      # a C put next to it by hand
    assert agent.choose_action() == "right"
    model.step()
    assert agent.cell.coordinate == (2, 3) and agent.collected == 1
    assert model.collected_by_kind["C"] == 1 and grid.resource.data[2, 3] == 0


class _Rightward(sp_agents.StatePunishmentAgent):
    """Always right, voting up on even turns where the mode allows: no numbers."""

    behaviour = "rightward"

    @classmethod
    def batch_decide(cls, batch, group, phase):
        names = batch.model.action_names
        simple = batch.model.action_mode == "simple"
        up, right = ("vote_increase", "right") if simple else ("right_increase", "right_no_vote")
        return batch.xp.where(batch.t % 2 == 0, names.index(up), names.index(right)) \
            + batch.xp.zeros(batch.acting.shape, dtype=int)


@pytest.mark.parametrize("more", [{}, {"activation": "sequential", "num_worlds": 2},
                                  {"action_mode": "composite",
                                   "punishment_mode": "stochastic"}])
def test_a_state_punishment_model_without_numbers_in_decisions_plays_the_engines_episode(
        more, monkeypatch):
    """As for Stag Hunt: the model's episode is a 1-episode engine's, array for array."""
    monkeypatch.setitem(GAMES["state_punishment"].behaviours, "rightward", _Rightward)
    parameters = dict(population="rightward", max_steps=20, **more)
    model = StatePunishmentModel(**parameters, rng=4)
    engine = StatePunishmentBatch(1, np.random.default_rng(4), **parameters)
    engine.start()
    while model.running:
        for name in engine.state:
            assert np.array_equal(getattr(model.episode, name), getattr(engine, name)), name
        model.step()
        engine.play_round()
    assert engine.t == model.turn == 20


# --- Bucket Brigade -------------------------------------------------------------------


def test_the_bucket_brigade_state_is_its_episode_and_setting_it_by_hand_counts():
    model = BucketBrigadeModel(population="always_work", rho_ignite=0.0, p_spark=0.0,
                               beta=0.0, kappa=100.0, N_min=5, rng=0)
    assert model.episode.episodes == 1 and model.episode.model is model
    assert model.houses.tolist() == [SAFE] * 10
    model.houses = [SAFE, SAFE, BURNING] + [SAFE] * 7    # a fire lit by hand
    model.seats[3].house = 9                              # an agent moved by hand
    assert model.episode.houses.tolist() == [model.houses.tolist()]
    assert model.episode.locations.tolist() == [[0, 1, 2, 9]]
    model.step()                         # every agent signals WORK and works at house 2
    assert [agent.signal for agent in model.seats] == [WORK] * 4
    assert [(agent.house, agent.mode) for agent in model.seats] == [(2, WORK)] * 4
    assert model.houses[2] == SAFE and model.night == 1 == model.steps
    model.seats[0].mode = REST                            # a mode set by hand
    assert model.working.tolist() == [[False, True, True, True]]
    assert model.history[-1].actions == ((2, WORK),) * 4


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("parameters", [{}, {"scenario": "hard", "num_agents": 6},
                                        {"rules": "reference", "num_houses": 12}])
def test_a_bucket_brigade_model_without_numbers_in_decisions_plays_the_engines_episode(
        seed, parameters):
    """Seats whose behaviour draws no numbers: the model's episode is, array for array, a
    1-episode engine's played night by night on numpy from a generator seeded alike."""
    parameters = dict(population="always_work", **parameters)
    model = BucketBrigadeModel(**parameters, rng=seed)
    engine = BucketBrigadeBatch(1, np.random.default_rng(seed), **parameters)
    engine.start()
    while model.running:
        for name in engine.state:
            assert np.array_equal(getattr(model.episode, name), getattr(engine, name)), name
        model.step()
        ended = engine.play_round()
    assert ended[0] and engine.t == model.night
