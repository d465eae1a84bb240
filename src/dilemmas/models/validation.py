"""Parameter validation shared by every game (docs/rules/README.md, rule 7).

Each check returns the value in a plain Python type or raises a ``ValueError`` that names
the parameter, the value given and what is allowed. Booleans are not numbers here: a
``True`` where a count or a probability belongs is a mistake, not a 1.
"""

import math
import operator
from decimal import Decimal
from numbers import Integral, Real

import numpy as np


def _invalid(name, value, allowed):
    return ValueError(f"{name}={_shown(value)!r} is invalid: {allowed}")


def _is_real(value):
    return type(value) in (float, int) or (
        isinstance(value, Real) and not isinstance(value, bool))


def range_text(low, high) -> str:
    """"from low to high", ">= low", "<= high" or "" (no bound)."""
    if low is not None and high is not None:
        return f"from {low} to {high}"
    if low is not None:
        return f">= {low}"
    if high is not None:
        return f"<= {high}"
    return ""


def _bounds(kind, low, high):
    return f"must be {kind} {range_text(low, high)}".rstrip()


def integer(name, value, *, low=None, high=None):
    """An integer in [low, high] (either bound may be open)."""
    if (type(value) is not int and (isinstance(value, bool) or not isinstance(value, Integral))
            or (low is not None and value < low) or (high is not None and value > high)):
        raise _invalid(name, value, _bounds("an integer", low, high))
    return int(value)


def real(name, value, *, low=None, high=None):
    """A finite real number in [low, high] (either bound may be open); an integer too large
    for a float is not finite."""
    try:
        number = float(value) if _is_real(value) else math.nan
    except OverflowError:
        number = math.nan
    if (not math.isfinite(number)
            or (low is not None and number < low) or (high is not None and number > high)):
        raise _invalid(name, value, _bounds("a finite number", low, high))
    return number


def _shown(value):
    """``value`` for an error message: an integer of more than 20 digits by its size, so a
    5,000-digit count neither floods the message nor trips Python's digit limit."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return _Text(f"<an integer of about {int(value.bit_length() * math.log10(2)) + 1:,} "
                     "digits>")
    return value


class _Text(str):
    def __repr__(self):
        return str(self)


def probability(name, value):
    """A probability in [0, 1]."""
    allowed = "must be a probability in [0, 1]"
    if not _is_real(value) or not 0 <= value <= 1:
        raise _invalid(name, value, allowed)
    return float(value)


def choice(name, value, allowed):
    """One of the names in ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise _invalid(name, value, f"must be one of {sorted(allowed)}")
    return value


def boolean(name, value):
    """True or False."""
    if not isinstance(value, bool):
        raise _invalid(name, value, "must be True or False")
    return value


def reals(name, values, length, *, low=None):
    """A list, tuple or 1-D array of ``length`` finite numbers, each at least ``low``."""
    shaped = values.ndim == 1 if isinstance(values, np.ndarray) \
        else isinstance(values, (list, tuple))
    if not shaped or len(values) != length:
        raise _invalid(name, values, f"must be a list or tuple of {length} numbers")
    return tuple(real(f"{name}[{i}]", value, low=low) for i, value in enumerate(values))


def seed(name, value):
    """None or an integer >= 0 (a seed for the model's generators)."""
    if value is None:
        return None
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, Integral)) \
            or value < 0:
        raise _invalid(name, value, "must be None or an integer >= 0")
    return int(value)


def from_table(given: dict, table: dict) -> dict:
    """``given`` with every None replaced by the value in ``table`` (a named scenario or
    preset): explicit values override the table's, one parameter at a time."""
    return {key: table[key] if value is None else value for key, value in given.items()}


def subset(name, value, allowed: str):
    """A set of the one-letter names in ``allowed``, given as a string ("ABD") or a
    collection of letters."""
    letters = tuple(value) if isinstance(value, str) else value
    if not isinstance(letters, (tuple, list, set, frozenset)) or not all(
            isinstance(letter, str) and len(letter) == 1 and letter in allowed
            for letter in letters):
        raise _invalid(name, value, f"must be a set of names from {allowed}, e.g. "
                                    f"{allowed!r} or {tuple(allowed[:2])!r}")
    return frozenset(letters)


def decision(agent, value, size: int, what: str) -> int:
    """A behaviour's choice of one of ``size`` options (0..size-1): an integer, not a bool.
    Raises a ValueError naming the agent (``seat`` and ``behaviour``)."""
    try:
        index = operator.index(value)
    except TypeError:
        index = None
    if isinstance(value, bool) or index is None or not 0 <= index < size:
        raise ValueError(f"agent {agent.seat} ({agent.behaviour}) chose {what} {value!r}; "
                         f"it must be one of 0..{size - 1}")
    return index


def written_decimal(x: float) -> Decimal:
    """The decimal a user wrote for ``x`` (0.1 is 1/10, not the float nearest it)."""
    return Decimal(repr(x))
