"""Learning agents in numpy: the behaviours ``q_learning`` and ``linear_q`` (docs/learning.md).

Every game offers both behaviours. A learning seat decides, like a ``policy`` seat, at the
start of each phase its game's environment interface names (``Interface.phases``), from the
observation the PettingZoo environment would show it, and it learns from its own rewards as
the rounds go by: at each decision it updates on the transition from its previous decision
(the reward is what it earned in between), and once more, as a terminal transition, when the
episode ends (whether the rules ended it or ``max_steps`` did).

* ``q_learning`` -- tabular Q-learning (Watkins): the state is the game's documented tabular
  features of the observation (``Interface.features``, listed in each rules file under
  "Learning agents"); ``Q(s, a) += learning_rate * (r + discount * max Q(s', a') - Q(s, a))``,
  the max over the actions allowed in ``s'`` and 0 after the last decision. Unseen states
  start at 0.
* ``linear_q`` -- Q-learning with a linear function of the full observation vector,
  ``Q(x, a) = weights[a] @ x + bias[a]``, by the normalised semi-gradient step
  ``weights[a] += learning_rate * delta * x / (1 + x @ x)`` (and ``bias[a] += learning_rate
  * delta / (1 + x @ x)``), where ``delta`` is the same temporal-difference error; the
  normalisation keeps the step stable whatever the scale of the observation.

Both act epsilon-greedily: with probability ``epsilon`` an allowed action uniformly at random,
drawn from the model's generator ``model.rng`` (so a learner's episode is reproducible from
the seed), else the allowed action of highest value (ties to the lowest). Independent
learners with shared parameters: every learning seat of a model uses the model's one learner
of its kind, and each seat learns from its own observations and rewards; where the rules let
an agent know its seat, the features (and the observation) include it, so seats may learn
different things.

A model's learner of each kind comes from its ``learner`` parameter when that is a learner
of the kind (an object, shared with the caller and updated in place -- how
``dilemmas.analysis.learning.training`` carries learning across episodes -- or the path of a learner
file, read afresh), and is otherwise a fresh learner with the default settings. A learner is a
policy (``dilemmas.models.policies``): the greedy policy of its values. Its file is a policy file
with its settings added, so ``policy=`` plays a saved learner without learning.
"""

from pathlib import Path

import numpy as np

from dilemmas.models import validation as check
from dilemmas.models.policies import LinearPolicy, PolicyError, TabularPolicy, read_policy_file, \
    save_policy

#: The default settings of a fresh learner.
SETTINGS = {"learning_rate": 0.1, "discount": 0.95, "epsilon": 0.1}


class Learning:
    """What both learners share: settings, epsilon-greedy acting, the TD target."""

    def configure(self, learning_rate, discount, epsilon):
        """Set the learning settings, each checked."""
        self.learning_rate = check.probability("learning_rate", learning_rate)
        self.discount = check.probability("discount", discount)
        self.epsilon = check.probability("epsilon", epsilon)

    def settings(self) -> dict:
        return {"learning_rate": self.learning_rate, "discount": self.discount,
                "epsilon": self.epsilon}

    def act(self, inputs, mask, rng) -> int:
        """Epsilon-greedy over the allowed actions (``mask``), drawing from ``rng``."""
        if self.epsilon and rng.random() < self.epsilon:
            allowed = np.flatnonzero(mask)
            return int(allowed[rng.integers(len(allowed))])
        return self.greedy(inputs, mask)

    def greedy(self, inputs, mask) -> int:
        return int(np.argmax(np.where(np.asarray(mask).astype(bool), self.q(inputs),
                                      -np.inf)))

    def target(self, reward, inputs, mask) -> float:
        """``reward + discount * max`` over the allowed actions of the next values; the reward
        alone after the last decision (``inputs`` None)."""
        if inputs is None:
            return float(reward)
        values = self.q(inputs)[np.asarray(mask).astype(bool)]
        return float(reward) + self.discount * float(values.max())

    def save(self, path, **extra):
        """Write the learner's file (a policy file with its settings), atomically."""
        return save_policy(path, self, **{key: np.float64(value)
                                          for key, value in self.settings().items()}, **extra)


class TabularQ(Learning, TabularPolicy):
    """Tabular Q-learning over the game's tabular features (module docstring)."""

    behaviour = "q_learning"

    def __init__(self, actions: int, keys=(), values=(), game: str = "", path=None, *,
                 learning_rate=SETTINGS["learning_rate"], discount=SETTINGS["discount"],
                 epsilon=SETTINGS["epsilon"]):
        TabularPolicy.__init__(self, actions, keys, values, game, path)
        self.configure(learning_rate, discount, epsilon)

    @classmethod
    def fresh(cls, model, **settings):
        return cls(model.game.interface.actions(model), game=model.game.name, **settings)

    def inputs(self, model, agent, observation):
        return model.game.interface.features(model, agent, observation["observation"])

    q = TabularPolicy.values

    def update(self, inputs, action, reward, next_inputs, next_mask) -> None:
        row = self.table.get(inputs)
        if row is None:
            row = self.table[inputs] = np.zeros(self.actions)
        target = self.target(reward, next_inputs, next_mask)
        row[action] += self.learning_rate * (target - row[action])


class LinearQ(Learning, LinearPolicy):
    """Q-learning with a linear function of the observation vector (module docstring)."""

    behaviour = "linear_q"

    def __init__(self, weights, bias, game: str = "", path=None, *,
                 learning_rate=SETTINGS["learning_rate"], discount=SETTINGS["discount"],
                 epsilon=SETTINGS["epsilon"]):
        LinearPolicy.__init__(self, weights, bias, game, path)
        self.configure(learning_rate, discount, epsilon)

    @classmethod
    def fresh(cls, model, **settings):
        interface = model.game.interface
        actions = interface.actions(model)
        return cls(np.zeros((actions, interface.observation_length(model))),
                   np.zeros(actions), game=model.game.name, **settings)

    def inputs(self, model, agent, observation):
        return observation["observation"].astype(np.float64)

    def q(self, inputs) -> np.ndarray:
        return self.weights @ inputs + self.bias

    def update(self, inputs, action, reward, next_inputs, next_mask) -> None:
        delta = self.target(reward, next_inputs, next_mask) - self.q(inputs)[action]
        step = self.learning_rate * delta / (1.0 + inputs @ inputs)
        self.weights[action] += step * inputs
        self.bias[action] += step


LEARNERS = {cls.behaviour: cls for cls in (TabularQ, LinearQ)}


def load_learner(path):
    """A learner file's learner (a policy file with ``learning_rate``, ``discount`` and
    ``epsilon``); ``PolicyError`` names the file and the field at fault."""
    fields = read_policy_file(path)
    missing = [key for key in SETTINGS if key not in fields]
    if missing:
        raise PolicyError(f"learner file {str(path)!r}: the field {missing[0]!r} is missing "
                          "(a policy file that is not a learner's)")
    settings = {key: float(fields[key]) for key in SETTINGS}
    try:
        if fields["kind"] == "linear":
            return LinearQ(fields["weights"], fields["bias"], fields["game"], path, **settings)
        values = fields["values"]
        return TabularQ(int(values.shape[-1]), fields["keys"], values, fields["game"], path,
                        **settings)
    except (ValueError, TypeError) as error:
        raise PolicyError(f"learner file {str(path)!r}: {error}") from None


def check_learner(name, value, values):
    """The ``learner`` parameter: None, a learner, or the path of a learner file for this game
    (kind ``Custom`` of ``dilemmas.models.parameters``)."""
    if value is None or isinstance(value, tuple(LEARNERS.values())):
        learner = value
    elif isinstance(value, (str, Path)):
        try:
            learner = load_learner(value)
        except PolicyError as error:
            raise ValueError(f"{name}={str(value)!r} is invalid: {error}; it must be a "
                             "learner file (docs/learning.md)") from None
    else:
        raise ValueError(f"{name}={value!r} is invalid: must be None, a learner "
                         "(dilemmas.models.learners) or the path of a learner file")
    if learner is not None and learner.game != values["game"]:
        raise ValueError(f"{name}: the learner is for the game {learner.game!r}, not "
                         f"{values['game']!r}")
    return learner


def learner_parameter():
    """The declaration of a game's ``learner`` parameter (``dilemmas.models.parameters``)."""
    from dilemmas.models.parameters import Custom, Parameter, Text
    from dilemmas.models.policies import trained_files

    return Parameter(
        "learner", None,
        Custom(check_learner, "`None`, a learner (`dilemmas.models.learners`), or the path "
                             "of a learner file for this game",
               invalid=(5, "no_such_learner.npz")),
        "the learner of the `q_learning` or `linear_q` seats (docs/learning.md); None: a fresh "
        "one", control=Text(files=lambda game: trained_files(game, ("learner.npz",)),
                            listed="the trained seeds' learner.npz under results/training"))
