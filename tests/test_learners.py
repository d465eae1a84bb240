"""The learners' mechanics (docs/learning.md): update rules on hand-computed cases,
epsilon-greedy acting, learning inside the model from the seat's own rewards, learner files."""

import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.models.learners import LEARNERS, LinearQ, TabularQ, load_learner
from dilemmas.models.policies import PolicyError, load_policy, save_policy
from tests.support import assert_rate

#: Every registered game with an environment interface (the test-only Public Goods too).
GAME_NAMES = [name for name, game in GAMES.items() if game.interface is not None]


def test_tabular_update_is_watkins_q_learning_over_allowed_actions():
    learner = TabularQ(2, game="g", learning_rate=0.5, discount=0.9)
    learner.table[("next",)] = np.array([1.0, 3.0])
    # the max is over the allowed actions of the next state: 1.0, not 3.0
    learner.update(("s",), 1, 2.0, ("next",), np.array([1, 0]))
    assert learner.table[("s",)] == pytest.approx([0.0, 0.5 * (2.0 + 0.9 * 1.0)])
    learner.update(("s",), 1, 2.0, ("next",), np.array([1, 1]))
    q = 1.45 + 0.5 * (2.0 + 0.9 * 3.0 - 1.45)
    assert learner.table[("s",)] == pytest.approx([0.0, q])
    learner.update(("s",), 0, -1.0, None, None)   # terminal: the reward alone
    assert learner.table[("s",)] == pytest.approx([-0.5, q])
    assert learner.q(("unseen",)).tolist() == [0.0, 0.0]


def test_linear_update_is_the_normalised_semi_gradient_step():
    learner = LinearQ(np.zeros((2, 2)), np.zeros(2), game="g", learning_rate=0.5,
                      discount=0.5)
    learner.weights[1] = [0.0, 4.0]                # next values: [0, 4] at x' = (0, 1)
    x = np.array([1.0, 2.0])
    learner.update(x, 0, 1.0, np.array([0.0, 1.0]), np.array([1, 1]))
    step = 0.5 * (1.0 + 0.5 * 4.0 - 0.0) / (1 + 5.0)   # delta = 3, |x|^2 = 5
    assert learner.weights[0] == pytest.approx([step, 2 * step])
    assert learner.bias[0] == pytest.approx(step)
    q = learner.q(x)[0]
    learner.update(x, 0, -2.0, None, None)           # terminal
    step2 = 0.5 * (-2.0 - q) / 6.0
    assert learner.weights[0] == pytest.approx([step + step2, 2 * (step + step2)])


def test_greedy_takes_the_best_allowed_action_ties_to_the_lowest():
    learner = TabularQ(4, game="g", epsilon=0.0)
    learner.table[(0,)] = np.array([5.0, 2.0, 2.0, 1.0])
    rng = np.random.default_rng(0)
    assert learner.act((0,), np.array([0, 1, 1, 1]), rng) == 1
    assert learner.act((0,), np.array([1, 1, 1, 1]), rng) == 0
    assert learner.act((9,), np.array([0, 0, 1, 1]), rng) == 2   # unseen: all 0, lowest


def test_exploration_is_uniform_over_the_allowed_actions():
    learner = TabularQ(5, game="g", epsilon=1.0)
    rng = np.random.default_rng(11)
    mask = np.array([1, 0, 1, 1, 0])
    actions = [learner.act((0,), mask, rng) for _ in range(6000)]
    assert set(actions) == {0, 2, 3}
    for action in (0, 2, 3):
        assert_rate(actions.count(action), len(actions), 1 / 3, f"action {action}")


def test_exploration_happens_with_probability_epsilon():
    learner = TabularQ(2, game="g", epsilon=0.3)
    learner.table[(0,)] = np.array([1.0, 0.0])
    rng = np.random.default_rng(3)
    actions = [learner.act((0,), np.array([1, 1]), rng) for _ in range(8000)]
    # action 1 only by exploring, which picks it half the time
    assert_rate(actions.count(1), len(actions), 0.3 / 2, "exploratory action 1")


class Recording:
    """Wraps a learner, recording every update."""

    def __init__(self, learner):
        self.learner, self.updates = learner, []

    def __getattr__(self, name):
        return getattr(self.learner, name)

    def update(self, inputs, action, reward, next_inputs, next_mask):
        self.updates.append((reward, next_inputs is None))
        self.learner.update(inputs, action, reward, next_inputs, next_mask)


POPULATIONS = {"bucket_brigade": {"population": "q_learning:2,free_rider:2"},
               "state_punishment": {"population": "q_learning:2,greedy_forager:1"},
               "stag_hunt": {"population": "q_learning:2", "num_agents": 2,
                             "num_agents_to_spawn": 2, "max_steps": 30},
               "firefighting_graph": {"population": "q_learning:3,random:7"},
               "public_goods": {"population": "q_learning:2,defect:2"}}


@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_game_with_an_interface_seats_both_learners(name):
    game = GAMES[name]
    assert {"q_learning", "linear_q"} <= set(game.behaviours)
    assert "learner" in game.parameters.names
    assert name in POPULATIONS
    assert all(isinstance(n, str) for n in game.interface.feature_names(game.model(rng=0)))


@pytest.mark.parametrize("behaviour", list(LEARNERS))
@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_learning_seat_learns_from_exactly_its_own_rewards(name, behaviour):
    parameters = dict(POPULATIONS[name])
    parameters["population"] = parameters["population"].replace("q_learning", behaviour)
    model = GAMES[name].model(**parameters, rng=4)
    recording = Recording(model.learners[behaviour])
    model.learners[behaviour] = recording
    seats = model.learning_seats()
    decisions = 0
    original = model._learn_and_decide

    def counting(phase):
        nonlocal decisions
        decisions += len(model.game.interface.deciding(model, seats))
        original(phase)

    model._learn_and_decide = counting
    model.run_model()
    rewards = [reward for reward, _ in recording.updates]
    # every decision but each seat's first closes a transition, and the episode's end one more
    # per seat: the rewards handed to the learner add up to what the seats earned
    assert len(recording.updates) == decisions
    assert sum(rewards) == pytest.approx(sum(agent.reward for agent in seats))
    assert sum(terminal for _, terminal in recording.updates) == len(seats)
    assert recording.updates[-1][1]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_learning_carries_across_episodes_through_the_learner_parameter(name):
    model = GAMES[name].model(**POPULATIONS[name], rng=1)
    learner = model.learners["q_learning"]
    model.run_model()
    size = len(learner.table)
    assert size > 0
    snapshot = {key: row.copy() for key, row in learner.table.items()}
    again = GAMES[name].model(**POPULATIONS[name], learner=learner, rng=2)
    assert again.learners["q_learning"] is learner
    again.run_model()
    assert any(key not in snapshot or (row != snapshot[key]).any()
               for key, row in learner.table.items())


@pytest.mark.parametrize("behaviour", list(LEARNERS))
@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_saved_learner_loads_identical_and_plays_as_a_policy(name, behaviour, tmp_path):
    parameters = dict(POPULATIONS[name])
    population = parameters.pop("population").replace("q_learning", behaviour)
    model = GAMES[name].model(**parameters, population=population, rng=1)
    model.run_model()
    learner = model.learners[behaviour]
    learner.epsilon = 0.25
    path = learner.save(tmp_path / "learner.npz")
    loaded = load_learner(path)
    assert type(loaded) is type(learner) and loaded.settings() == learner.settings()
    assert loaded.game == name and loaded.path == path
    if behaviour == "q_learning":
        assert loaded.table.keys() == learner.table.keys()
        assert all((loaded.table[k] == learner.table[k]).all() for k in learner.table)
    else:
        assert (loaded.weights == learner.weights).all() and (loaded.bias == learner.bias).all()
    # as a policy file: plays greedily and learns nothing; the same episode every time
    policy = load_policy(path)
    policy_population = population.replace(behaviour, "policy")
    runs = []
    for _ in range(2):
        played = GAMES[name].model(**parameters, population=policy_population, policy=str(path),
                                   rng=9)
        played.run_model()
        runs.append(played.datacollector.get_model_vars_dataframe())
    assert runs[0].equals(runs[1])
    assert type(policy).__name__ in ("TabularPolicy", "LinearPolicy")
    # the file loaded as a learner keeps learning from where it stopped
    resumed = GAMES[name].model(**parameters, population=population, learner=str(path), rng=9)
    assert resumed.learners[behaviour].settings() == learner.settings()


def test_a_policy_file_that_is_not_a_learner_is_refused_as_a_learner(tmp_path):
    model = GAMES["firefighting_graph"].model(population="linear_q", rng=0)
    path = save_policy(tmp_path / "policy.npz", model.learners["linear_q"])
    with pytest.raises(PolicyError, match="'learning_rate' is missing"):
        load_learner(path)
    with pytest.raises(ValueError, match="learner=.*is missing.*learner file"):
        GAMES["firefighting_graph"].model(population="linear_q", learner=str(path))


def test_a_learner_of_another_game_or_shape_is_refused(tmp_path):
    model = GAMES["firefighting_graph"].model(population="q_learning", rng=0)
    model.run_model()
    path = model.learners["q_learning"].save(tmp_path / "ff.npz")
    with pytest.raises(ValueError, match="learner: the learner is for the game "
                                         "'firefighting_graph', not 'bucket_brigade'"):
        GAMES["bucket_brigade"].model(population="q_learning", learner=str(path))
    with pytest.raises(ValueError, match="learner: the policy file .* has 2 actions and keys "
                                         "of \\[3\\] features, but with these parameters the "
                                         "game has 4 actions"):
        GAMES["firefighting_graph"].model(population="q_learning", layout="grid",
                                          learner=str(path))
    with pytest.raises(ValueError, match="policy: the policy file .* has 2 actions"):
        GAMES["firefighting_graph"].model(population="policy", layout="grid",
                                          policy=str(path))


def test_learner_settings_are_checked():
    with pytest.raises(ValueError, match="learning_rate=1.5 is invalid"):
        TabularQ(2, learning_rate=1.5)
    with pytest.raises(ValueError, match="epsilon=True is invalid"):
        LinearQ(np.zeros((2, 2)), np.zeros(2), epsilon=True)


def test_a_tabular_policy_is_not_a_bare_callable():
    with pytest.raises(TypeError, match="plays inside a model"):
        TabularQ(2)({"observation": np.zeros(3), "action_mask": np.ones(2)})


@pytest.mark.parametrize("name", GAME_NAMES)
def test_features_are_small_integers_of_the_declared_length(name):
    model = GAMES[name].model(**POPULATIONS[name], rng=5)
    model.run_model()
    width = len(GAMES[name].interface.feature_names(model))
    keys = model.learners["q_learning"].table
    assert len(keys) > 1
    assert all(len(key) == width and all(type(v) is int and v >= 0 for v in key)
               for key in keys)
