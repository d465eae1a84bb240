"""Parameter validation shared by every game (spec contract, rule 7).

Each check returns the value in a plain Python type or raises a ``ValueError`` that names
the parameter, the value given and what is allowed. Booleans are not numbers here: a
``True`` where a count or a probability belongs is a mistake, not a 1.
"""

import math
from numbers import Integral, Real

import numpy as np


def _invalid(name, value, allowed):
    return ValueError(f"{name}={value!r} is invalid: {allowed}")


def _is_real(value):
    return type(value) in (float, int) or (
        isinstance(value, Real) and not isinstance(value, bool))


def integer(name, value, *, low=None, high=None):
    """An integer in [low, high] (either bound may be open)."""
    if low is not None and high is not None:
        allowed = f"must be an integer from {low} to {high}"
    elif low is not None:
        allowed = f"must be an integer >= {low}"
    else:
        allowed = "must be an integer"
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, Integral)):
        raise _invalid(name, value, allowed)
    if (low is not None and value < low) or (high is not None and value > high):
        raise _invalid(name, value, allowed)
    return int(value)


def real(name, value, *, low=None):
    """A finite real number, at least ``low`` if given."""
    allowed = "must be a finite number" + (f" >= {low}" if low is not None else "")
    if not _is_real(value) or not math.isfinite(value):
        raise _invalid(name, value, allowed)
    if low is not None and value < low:
        raise _invalid(name, value, allowed)
    return float(value)


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
    if not isinstance(values, (list, tuple, np.ndarray)) or np.ndim(values) != 1 \
            or len(values) != length:
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
