"""Policies for the ``policy`` behaviour: the model parameter ``policy`` (docs/policies.md).

A policy is any callable ``observation -> action``, where ``observation`` is what the game's
PettingZoo environment shows an agent (a dict with the float32 vector ``"observation"`` and
the int8 ``"action_mask"``) and ``action`` an integer of its action space. ``policy=`` takes
such a callable, or the path of a saved policy file, read by ``load_policy``.

A policy file is NumPy's ``.npz`` with the arrays ``format`` (``"dilemmas/policy"``),
``version`` (1), ``game`` (the game's name), ``kind`` (``"linear"``), ``weights`` (actions x
observation length) and ``bias`` (actions): the action is the allowed one with the highest
``weights @ observation + bias`` (ties to the lowest). ``save_policy`` writes one atomically.
"""

import io
import zipfile
from pathlib import Path

import numpy as np

from models.files import write_atomic

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

    def __call__(self, observation) -> int:
        scores = self.weights @ observation["observation"] + self.bias
        scores = np.where(observation["action_mask"].astype(bool), scores, -np.inf)
        return int(np.argmax(scores))


def save_policy(path, policy: LinearPolicy) -> Path:
    """Write ``policy`` as a policy file (atomically)."""
    buffer = io.BytesIO()
    np.savez(buffer, format=FORMAT, version=VERSION, game=policy.game, kind="linear",
             weights=policy.weights, bias=policy.bias)
    return write_atomic(path, buffer.getvalue())


def load_policy(path) -> LinearPolicy:
    """A policy file's policy; ``PolicyError`` names the file and the field at fault."""
    path = Path(path)
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("it is not an .npz archive of arrays")
        with data:
            fields = {key: data[key] for key in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise PolicyError(f"policy file {str(path)!r} cannot be read: {error}") from None
    for key in ("format", "version", "game", "kind", "weights", "bias"):
        if key not in fields:
            raise PolicyError(f"policy file {str(path)!r}: the field {key!r} is missing")
    if str(fields["format"]) != FORMAT or str(fields["version"]) != str(VERSION):
        raise PolicyError(f"policy file {str(path)!r} is not a {FORMAT} file of version "
                          f"{VERSION}")
    if str(fields["kind"]) != "linear":
        raise PolicyError(f"policy file {str(path)!r}: kind={str(fields['kind'])!r} is not "
                          "known; known: ['linear']")
    try:
        return LinearPolicy(fields["weights"], fields["bias"], str(fields["game"]), path)
    except ValueError as error:
        raise PolicyError(f"policy file {str(path)!r}: {error}") from None


def check_action(action, count: int, who: str) -> int:
    """An action of a ``Discrete(count)`` space: an integer (numpy's too, not a bool) from 0
    to ``count - 1``; a ValueError names ``who`` chose it."""
    if type(action) is not int and (isinstance(action, (bool, np.bool_))
                                    or not isinstance(action, np.integer)) \
            or not 0 <= action < count:
        raise ValueError(f"{who}'s action {action!r} is invalid: must be an integer from 0 "
                         f"to {count - 1}")
    return int(action)


def policy_parameter():
    """The declaration of a game's ``policy`` parameter (``models.parameters``)."""
    from models.parameters import Custom, Parameter, Text

    return Parameter(
        "policy", None,
        Custom(check_policy, "None, a callable observation -> action, or the path of a "
               "policy file", invalid=(5, "no_such_policy.npz")),
        "decision rule of the seats whose behaviour is 'policy' (docs/policies.md)",
        control=Text())


def check_policy(name, value, values):
    """The ``policy`` parameter: None, a callable, or the path of a policy file for this
    game (kind ``Custom`` of ``models.parameters``)."""
    if value is None or callable(value):
        return value
    if isinstance(value, (str, Path)):
        try:
            policy = load_policy(value)
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
