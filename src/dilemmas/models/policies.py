"""Policies for the ``policy`` behaviour: the model parameter ``policy`` (docs/policies.md).

A policy is any callable ``observation -> action``, where ``observation`` is what the game's
PettingZoo environment shows an agent (a dict with the float32 vector ``"observation"`` and
the int8 ``"action_mask"``) and ``action`` an integer of its action space. ``policy=`` takes
such a callable, or the path of a saved policy file, read by ``load_policy``.

A policy file is NumPy's ``.npz`` with the arrays ``format`` (``"dilemmas/policy"``),
``version`` (the integer 1, not the text), ``game`` (the game's name) and ``kind``, then the
kind's own arrays, of finite real numbers (a file missing one of them, or holding NaN,
infinities, booleans or complex numbers in one, is refused, naming the field):

* ``"linear"``: ``weights`` (actions x observation length) and ``bias`` (actions): the
  action is the allowed one with the highest ``weights @ observation + bias``;
* ``"tabular"``: ``keys`` (rows of the game's tabular features, ``Interface.features``) and
  ``values`` (one row of action values per key): the action is the allowed one with the
  highest value in the row of the seat's features (all zeros for a key not in the table).

* ``"network"``: a deep learner's actor (``dilemmas.learning.ppo``): ``activation``
  (``"tanh"`` or ``"relu"``), dense layers ``layer<i>_weight`` (out x in) and
  ``layer<i>_bias``, each followed by the activation; for a recurrent actor a GRU cell
  ``gru_weight_ih`` (3 hidden x in), ``gru_weight_hh`` (3 hidden x hidden), ``gru_bias`` (3
  hidden) and ``gru_bias_n`` (hidden), in equinox's ``GRUCell`` equations; then the head
  ``head_weight`` (actions x in) and ``head_bias``: the action is the allowed one with the
  highest head output (its greedy action). A recurrent actor keeps each seat's memory from
  decision to decision, starting from zeros at the seat's first decision of an episode; it
  plays inside a model (``decide``), where each seat is told apart.
* ``"seats"``: several policies side by side, for a population whose ``policy`` seats are
  played by different policies (a scenario's focal seats and its trained co-players,
  ``dilemmas.scenarios``): ``seats`` (how many ``policy`` seats each part plays, in seat
  order) and each part ``i``'s ``kind`` and arrays prefixed ``part<i>_``. It plays inside a
  model, whose ``policy`` seats must number ``sum(seats)``; ``seated_policy`` makes one.

Ties go to the lowest action. A learner's file (``dilemmas.models.learners``) is a policy file with
its settings added, so a trained learner plays as a policy. ``save_policy`` writes one
atomically. A tabular policy reads features the game computes from the model, so it plays
inside a model (``decide(model, agent, observation)``), not as a bare callable.
"""

import io
import weakref
import zipfile
from pathlib import Path

import numpy as np

from dilemmas.models.files import read_bytes, write_atomic

#: The behaviour of a seat played by the model's ``policy`` (``dilemmas.agents.policy``).
POLICY = "policy"
FORMAT = "dilemmas/policy"
VERSION = 1


class PolicyError(ValueError):
    """A policy file that cannot be used, naming the file and what is wrong."""


class LinearPolicy:
    """The allowed action with the highest ``weights @ observation + bias``; ``path`` is the
    file it was read from, if any."""

    def __init__(self, weights, bias, game: str = "", path=None):
        self.weights = np.asarray(weights, dtype=np.float64)
        self.bias = np.asarray(bias, dtype=np.float64)
        self.game, self.path = game, path
        if self.weights.ndim != 2 or self.bias.shape != (self.weights.shape[0],):
            raise ValueError(f"weights of shape {self.weights.shape} and bias of shape "
                             f"{self.bias.shape} do not make a linear policy: weights must be "
                             "actions x observation length and bias of length actions")

    kind = "linear"

    def __call__(self, observation) -> int:
        return best(self.weights @ observation["observation"] + self.bias,
                    observation["action_mask"])

    def decide(self, model, agent, observation) -> int:
        return self(observation)

    def arrays(self) -> dict:
        return {"weights": self.weights, "bias": self.bias}

    def check_fits(self, model) -> None:
        """A ValueError unless the weights fit the model's actions and observations."""
        interface = model.game.interface
        shape = (interface.actions(model), interface.observation_length(model))
        if self.weights.shape != shape:
            raise ValueError(
                f"{self._where()} has weights of {self.weights.shape[0]} actions x "
                f"{self.weights.shape[1]} inputs, but with these parameters the game has "
                f"{shape[0]} actions and observations of length {shape[1]}")

    def _where(self) -> str:
        return f"the policy file {str(self.path)!r}" if self.path else "the policy"


class TabularPolicy:
    """The allowed action with the highest value in the row of the seat's tabular features
    (``Interface.features``); ``table`` maps a features tuple to its action values."""

    kind = "tabular"

    def __init__(self, actions: int, keys=(), values=(), game: str = "", path=None):
        keys = np.asarray(keys, dtype=np.int64)
        values = np.asarray(values, dtype=np.float64)
        if not len(keys):
            keys, values = keys.reshape(0, 0), values.reshape(0, actions)
        if type(actions) is not int or actions < 1 or keys.ndim != 2 \
                or values.shape != (len(keys), actions):
            raise ValueError(f"values of shape {values.shape} do not make a tabular policy of "
                             f"{actions} actions: there must be one row of {actions} values "
                             "per key")
        self.actions, self.game, self.path = actions, game, path
        self.table = {tuple(map(int, key)): row.copy() for key, row in zip(keys, values)}

    def values(self, key) -> np.ndarray:
        """The action values of ``key`` (zeros if the table has no row for it)."""
        row = self.table.get(key)
        return np.zeros(self.actions) if row is None else row

    def decide(self, model, agent, observation) -> int:
        key = model.game.interface.features(model, agent, observation["observation"])
        return best(self.values(key), observation["action_mask"])

    def __call__(self, observation):
        raise TypeError("a tabular policy reads features of the model: it plays inside a "
                        "model (the 'policy' behaviour), or call decide(model, agent, "
                        "observation)")

    def arrays(self) -> dict:
        keys = sorted(self.table)
        width = len(keys[0]) if keys else 0
        return {"keys": np.array(keys, dtype=np.int64).reshape(len(keys), width),
                "values": np.array([self.table[key] for key in keys]).reshape(
                    len(keys), self.actions)}

    def check_fits(self, model) -> None:
        """A ValueError unless the table fits the model's actions and features."""
        interface = model.game.interface
        actions, width = interface.actions(model), len(interface.feature_names(model))
        widths = {len(key) for key in self.table}
        if self.actions != actions or widths - {width}:
            where = f"the policy file {str(self.path)!r}" if self.path else "the policy"
            raise ValueError(
                f"{where} has {self.actions} actions and keys of {sorted(widths)} features, "
                f"but with these parameters the game has {actions} actions and {width} "
                f"features ({', '.join(interface.feature_names(model))})")


class NetworkPolicy:
    """A deep learner's actor, in numpy (float32, as it was trained), played greedy or, in
    a model with ``policy_play='sampled'``, sampled; ``arrays`` the file's fields (module
    docstring)."""

    kind = "network"

    def __init__(self, arrays: dict, game: str = "", path=None):
        self.game, self.path = game, path
        self.activation = str(arrays["activation"])
        if self.activation not in ("tanh", "relu"):
            raise ValueError(f"activation={self.activation!r} must be 'tanh' or 'relu'")
        count = sum(1 for key in arrays if key.startswith("layer") and key.endswith("_weight"))
        self.layers = [(np.asarray(arrays[f"layer{i}_weight"], dtype=np.float32),
                        np.asarray(arrays[f"layer{i}_bias"], dtype=np.float32))
                       for i in range(count)]
        self.cell = tuple(np.asarray(arrays[f"gru_{name}"], dtype=np.float32)
                          for name in ("weight_ih", "weight_hh", "bias", "bias_n")) \
            if "gru_weight_ih" in arrays else None
        self.head = (np.asarray(arrays["head_weight"], dtype=np.float32),
                     np.asarray(arrays["head_bias"], dtype=np.float32))
        width = self.inputs
        for weight, bias in self.layers:
            _check_layer(weight, bias, width)
            width = weight.shape[0]
        if self.cell is not None:
            weight_ih, weight_hh, bias, bias_n = self.cell
            hidden = bias_n.shape[0] if bias_n.ndim == 1 else -1
            if weight_ih.shape != (3 * hidden, width) or weight_hh.shape != (3 * hidden, hidden) \
                    or bias.shape != (3 * hidden,):
                raise ValueError(f"a GRU cell of shapes {weight_ih.shape}, {weight_hh.shape}, "
                                 f"{bias.shape}, {bias_n.shape} does not follow a layer of "
                                 f"{width} units")
            width = hidden
        _check_layer(*self.head, width)
        self.memories = weakref.WeakKeyDictionary()

    @property
    def inputs(self) -> int:
        return (self.layers[0][0] if self.layers else
                self.cell[0] if self.cell is not None else self.head[0]).shape[1]

    def forward(self, x, hidden=None):
        """``(head outputs, memory)`` for one observation vector."""
        x = np.asarray(x, dtype=np.float32)
        for weight, bias in self.layers:
            x = weight @ x + bias
            x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0)
        if self.cell is not None:
            weight_ih, weight_hh, bias, bias_n = self.cell
            if hidden is None:
                hidden = np.zeros(weight_hh.shape[1], dtype=np.float32)
            i_reset, i_input, i_new = np.split(weight_ih @ x + bias, 3)
            h_reset, h_input, h_new = np.split(weight_hh @ hidden, 3)
            reset = _sigmoid(i_reset + h_reset)
            update = _sigmoid(i_input + h_input)
            new = np.tanh(i_new + reset * (h_new + bias_n))
            hidden = new + update * (hidden - new)
            x = hidden
        weight, bias = self.head
        return weight @ x + bias, hidden

    def __call__(self, observation) -> int:
        if self.cell is not None:
            raise TypeError("a recurrent network keeps each seat's memory: it plays inside a "
                            "model (the 'policy' behaviour), or call decide(model, agent, "
                            "observation)")
        return best(self.forward(observation["observation"])[0], observation["action_mask"])

    def decide(self, model, agent, observation) -> int:
        """The seat's action: greedy, or drawn from ``model.rng`` with
        ``policy_play='sampled'``."""
        outputs, self.memories[agent] = self.forward(observation["observation"],
                                                     self.memories.get(agent))
        if getattr(model, "policy_play", "greedy") == "sampled":
            return drawn(outputs, observation["action_mask"], model.rng)
        return best(outputs, observation["action_mask"])

    def arrays(self) -> dict:
        arrays = {"activation": np.array(self.activation)}
        for i, (weight, bias) in enumerate(self.layers):
            arrays[f"layer{i}_weight"], arrays[f"layer{i}_bias"] = weight, bias
        if self.cell is not None:
            for name, value in zip(("weight_ih", "weight_hh", "bias", "bias_n"), self.cell):
                arrays[f"gru_{name}"] = value
        arrays["head_weight"], arrays["head_bias"] = self.head
        return arrays

    def check_fits(self, model) -> None:
        """A ValueError unless the network reads the model's observations and gives its
        actions."""
        interface = model.game.interface
        shape = (interface.actions(model), interface.observation_length(model))
        if (self.head[0].shape[0], self.inputs) != shape:
            where = f"the policy file {str(self.path)!r}" if self.path else "the policy"
            raise ValueError(
                f"{where} is a network of {self.head[0].shape[0]} actions x {self.inputs} "
                f"inputs, but with these parameters the game has {shape[0]} actions and "
                f"observations of length {shape[1]}")


class SeatedPolicy:
    """Several policies side by side: ``parts`` is a list of ``(policy, seats)``, the first
    ``seats`` of the model's ``policy`` seats (in seat order) played by the first policy, the
    next by the second, and so on (module docstring, kind ``"seats"``)."""

    kind = "seats"

    def __init__(self, parts, game: str = "", path=None):
        self.parts, self.game, self.path = list(parts), game, path
        if not self.parts or any(type(seats) is not int or seats < 1
                                 for _, seats in self.parts):
            raise ValueError("a seated policy needs one or more parts of 1 or more seats each")
        if any(policy.kind == self.kind for policy, _ in self.parts):
            raise ValueError("a part of a seated policy cannot itself be a seated policy")
        self.owners = weakref.WeakKeyDictionary()

    def __call__(self, observation):
        raise TypeError("a seated policy tells its seats apart: it plays inside a model (the "
                        "'policy' behaviour), or call decide(model, agent, observation)")

    def decide(self, model, agent, observation) -> int:
        policy = self.owners.get(agent)
        if policy is None:
            seats = model.policy_seats()
            owners = [policy for policy, count in self.parts for _ in range(count)]
            self.owners.update(zip(seats, owners))
            policy = self.owners[agent]
        decide = getattr(policy, "decide", None)
        return decide(model, agent, observation) if decide else policy(observation)

    def arrays(self) -> dict:
        arrays = {"seats": np.array([seats for _, seats in self.parts], dtype=np.int64)}
        for i, (policy, _) in enumerate(self.parts):
            arrays[f"part{i}_kind"] = np.array(policy.kind)
            arrays.update({f"part{i}_{key}": value for key, value in policy.arrays().items()})
        return arrays

    def check_fits(self, model) -> None:
        """A ValueError unless the parts play exactly the model's ``policy`` seats and each
        part fits the model."""
        wanted, given = len(model.policy_seats()), sum(seats for _, seats in self.parts)
        if wanted != given:
            where = f"the policy file {str(self.path)!r}" if self.path else "the policy"
            raise ValueError(f"{where} plays {given} 'policy' seats, but the population "
                             f"seats {wanted}")
        for policy, _ in self.parts:
            if hasattr(policy, "check_fits"):
                policy.check_fits(model)


def seated_policy(parts) -> SeatedPolicy:
    """A :class:`SeatedPolicy` of ``parts``: ``(policy or policy file, seats)`` pairs, the
    game the parts' own (one game)."""
    parts = [(load_policy(policy) if isinstance(policy, (str, Path)) else policy, seats)
             for policy, seats in parts]
    games = {policy.game for policy, _ in parts}
    if len(games) != 1:
        raise PolicyError(f"the parts of a seated policy are for the games {sorted(games)}: "
                          "they must be for one game")
    return SeatedPolicy(parts, games.pop())


def _check_layer(weight, bias, width):
    if weight.ndim != 2 or weight.shape[1] != width or bias.shape != (weight.shape[0],):
        raise ValueError(f"a layer of weights {weight.shape} and bias {bias.shape} does not "
                         f"follow one of {width} units")


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def best(values, mask) -> int:
    """The allowed action (``mask``) of the highest value, ties to the lowest."""
    return int(np.argmax(np.where(np.asarray(mask).astype(bool), values, -np.inf)))


def drawn(logits, mask, rng) -> int:
    """An allowed action (``mask``) drawn with ``rng`` from the softmax of ``logits`` over
    the allowed actions (a network's action distribution, as it was trained to sample)."""
    allowed = np.asarray(mask).astype(bool)
    scores = np.where(allowed, np.asarray(logits, dtype=np.float64), -np.inf)
    weights = np.exp(scores - scores[allowed].max())
    return int(rng.choice(len(weights), p=weights / weights.sum()))


#: How a network policy's seats play (the model parameter ``policy_play``).
PLAYS = ("greedy", "sampled")


def samples(policy) -> bool:
    """Whether ``policy`` has an action distribution to draw from (a network, or seated
    networks only)."""
    if isinstance(policy, SeatedPolicy):
        return all(samples(part) for part, _ in policy.parts)
    return isinstance(policy, NetworkPolicy)


def check_play(model) -> None:
    """A ValueError if ``policy_play='sampled'`` asks a policy with no action distribution
    to sample (a callable, a linear or tabular policy): it would play greedy unsaid."""
    if getattr(model, "policy_play", "greedy") == "sampled" and model.policy_seats() \
            and not samples(model.policy):
        kind = getattr(model.policy, "kind", "a callable")
        raise ValueError(f"policy_play='sampled' draws from a network policy's action "
                         f"distribution, but the policy ({kind}) has none: play it with "
                         "policy_play='greedy'")


def play_parameter():
    """The declaration of a game's ``policy_play`` parameter."""
    from dilemmas.models.parameters import Choice, Parameter, Select

    return Parameter(
        "policy_play", "greedy", Choice(PLAYS),
        "how the `policy` seats play a network policy: `greedy`, its highest allowed "
        "output; `sampled`, an action drawn from its softmax over the allowed actions with "
        "the model's `rng` (docs/policies.md)", control=Select())


KINDS = {"linear": LinearPolicy, "tabular": TabularPolicy, "network": NetworkPolicy,
         "seats": SeatedPolicy}


def save_policy(path, policy, **extra) -> Path:
    """Write ``policy`` (of any kind) as a policy file, atomically; ``extra`` arrays
    are stored with it (a learner's settings)."""
    buffer = io.BytesIO()
    np.savez(buffer, format=FORMAT, version=VERSION, game=policy.game, kind=policy.kind,
             **policy.arrays(), **extra)
    return write_atomic(path, buffer.getvalue())


def load_policy(path):
    """A policy file's policy; ``PolicyError`` names the file and the field at fault."""
    fields = read_policy_file(path)
    path = Path(path)
    try:
        if fields["kind"] == "seats":
            parts = [(_policy(_part(fields, i, path), path), int(seats))
                     for i, seats in enumerate(np.atleast_1d(fields["seats"]))]
            return SeatedPolicy(parts, fields["game"], path)
        return _policy(fields, path)
    except (ValueError, TypeError) as error:
        raise PolicyError(f"policy file {str(path)!r}: {error}") from None


def _policy(fields, path):
    """The policy of a file's (or a seated policy's part's) checked fields."""
    if fields["kind"] == "linear":
        return LinearPolicy(fields["weights"], fields["bias"], fields["game"], path)
    if fields["kind"] == "network":
        return NetworkPolicy(fields, fields["game"], path)
    values = fields["values"]
    return TabularPolicy(int(values.shape[-1]), fields["keys"], values, fields["game"], path)


def _part(fields, index, path) -> dict:
    """Part ``index`` of a seated policy's fields, checked as a file of its kind is."""
    prefix = f"part{index}_"
    part = {key[len(prefix):]: value for key, value in fields.items()
            if key.startswith(prefix)}
    part["kind"], part["game"] = str(part.get("kind", "")), fields["game"]
    _check_fields(part, path, f"part {index}: ")
    return part


def read_policy_file(path) -> dict:
    """The arrays of a policy file, checked for format, version, kind and the kind's fields
    (``game`` and ``kind`` as strings); ``PolicyError`` names the file and the field."""
    path = Path(path)
    try:
        data = np.load(io.BytesIO(read_bytes(path)), allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("it is not an .npz archive of arrays")
        with data:
            fields = {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise PolicyError(f"policy file {str(path)!r} cannot be read: {error}") from None
    for key in ("format", "version", "game", "kind"):
        if key not in fields:
            raise PolicyError(f"policy file {str(path)!r}: the field {key!r} is missing")
    version = fields["version"]
    if str(fields["format"]) != FORMAT or version.shape != () or version.dtype.kind not in "iu" \
            or int(version) != VERSION:
        raise PolicyError(f"policy file {str(path)!r} is not a {FORMAT} file of version "
                          f"{VERSION} (format {str(fields['format'])!r}, version "
                          f"{version.tolist()!r} of type {version.dtype})")
    fields["kind"], fields["game"] = str(fields["kind"]), str(fields["game"])
    _check_fields(fields, path)
    return fields


def _check_fields(fields, path, part=""):
    """The kind and the kind's own fields of a policy file (or of a seated policy's part)."""
    kind, known = fields["kind"], sorted(set(KINDS) - ({"seats"} if part else set()))
    if kind not in known:
        raise PolicyError(f"policy file {str(path)!r}: {part}kind={kind!r} is not known; "
                          f"known: {known}")
    for key in _needed(fields, kind):
        if key not in fields:
            raise PolicyError(f"policy file {str(path)!r}: {part}the field {key!r} is missing")
        if key != "activation" and not _finite_reals(fields[key]):
            raise PolicyError(f"policy file {str(path)!r}: {part}the field {key!r} holds "
                              f"{_what(fields[key])}; a policy's arrays must be finite real "
                              "numbers")


def _needed(fields, kind) -> list[str]:
    """The fields a policy of ``kind`` reads (module docstring): a network's every layer
    ``0 .. n-1`` of its ``n`` ``layer<i>_weight`` fields, and its GRU cell's four fields if
    it has any of them."""
    if kind != "network":
        return {"linear": ["weights", "bias"], "tabular": ["keys", "values"],
                "seats": ["seats"]}[kind]
    layers = sum(1 for key in fields if key.startswith("layer") and key.endswith("_weight"))
    cell = [f"gru_{name}" for name in ("weight_ih", "weight_hh", "bias", "bias_n")]
    return ["activation", *(f"layer{i}_{part}" for i in range(layers)
                            for part in ("weight", "bias")),
            *(cell if any(key.startswith("gru_") for key in fields) else []),
            "head_weight", "head_bias"]


def _finite_reals(array) -> bool:
    array = np.asarray(array)
    return array.dtype.kind in "iu" or array.dtype.kind == "f" and bool(
        np.isfinite(array).all())


def _what(array) -> str:
    """What is wrong with an array that is not of finite real numbers."""
    array = np.asarray(array)
    return "NaN or infinite values" if array.dtype.kind == "f" else \
        f"values of type {array.dtype} (not numbers)" if array.dtype.kind == "b" else \
        f"values of type {array.dtype} (not real numbers)"


def check_action(action, count: int, who: str) -> int:
    """An action of a ``Discrete(count)`` space: an integer (numpy's too, not a bool) from 0
    to ``count - 1``; a ValueError names ``who`` chose it."""
    if type(action) is not int and (isinstance(action, (bool, np.bool_))
                                    or not isinstance(action, np.integer)) \
            or not 0 <= action < count:
        raise ValueError(f"{who}'s action {action!r} is invalid: must be an integer from 0 "
                         f"to {count - 1}")
    return int(action)


#: The trained co-players shipped with the package (``dilemmas.scenarios``), ``<game>_*.npz``.
BOTS = Path(__file__).resolve().parents[1] / "scenarios" / "bots"
#: Where ``dilemmas train`` writes its trainings by default, from the working folder.
TRAININGS = Path("results") / "training"


def trained_files(game: str, names=("policy.npz", "learner.npz")) -> list[str]:
    """The files of ``game`` that a page offers and reads for a policy: the packaged bots by
    file name (``policy_file`` finds them on any checkout), then every training seed's
    ``names`` under ``results/training/<training>/seed-<i>/`` (a training whose
    ``training.json`` names the game; relative to the working folder), sorted."""
    import json

    bots = sorted(path.name for path in BOTS.glob(f"{game}_*.npz")) if "policy.npz" in names \
        else []
    found = []
    for definition in sorted(TRAININGS.glob("*/training.json")):
        try:
            if json.loads(definition.read_text()).get("game") != game:
                continue
        except (OSError, ValueError, AttributeError):  # not a training's folder
            continue
        found += [str(path) for name in names
                  for path in sorted(definition.parent.glob(f"seed-*/{name}"))]
    return bots + found


def policy_parameter():
    """The declaration of a game's ``policy`` parameter (``dilemmas.models.parameters``)."""
    from dilemmas.models.parameters import Custom, Parameter, Text

    return Parameter(
        "policy", None,
        Custom(check_policy, "`None`, a callable `observation -> action`, or the path of a "
               "policy file for this game", invalid=(5, "no_such_policy.npz")),
        "decision rule of the seats whose behaviour is `policy` (docs/policies.md); required "
        "when `population` seats `policy`",
        control=Text(files=trained_files, listed="the packaged bots and the trained seeds' "
                     "policy.npz and learner.npz under results/training"))


def policy_file(value) -> Path:
    """The file a ``policy`` value names: the path as given or, where there is no such file,
    the packaged bot of that file name (``BOTS``), so that a bot's bare name reads the same
    on every checkout (the dashboard's choices and links keep it so)."""
    path = Path(value)
    if not path.exists() and path.parent == Path(".") and (BOTS / path.name).is_file():
        return BOTS / path.name
    return path


def check_policy(name, value, values):
    """The ``policy`` parameter: None, a callable, or the path of a policy file for this
    game (kind ``Custom`` of ``dilemmas.models.parameters``)."""
    if value is None or callable(value):
        return value
    if isinstance(value, (str, Path)):
        try:
            policy = load_policy(policy_file(value))
        except PolicyError as error:
            raise ValueError(f"{name}={str(value)!r} is invalid: {error}; it must be a "
                             "policy file (docs/policies.md)") from None
        game = values["game"]
        if policy.game != game:
            raise ValueError(f"{name}={str(value)!r} is invalid: the policy file is for the "
                             f"game {policy.game!r}, not {game!r}")
        return policy
    raise ValueError(f"{name}={value!r} is invalid: must be None, a callable observation -> "
                     "action, or the path of a policy file")
