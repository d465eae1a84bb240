"""Parameter validation shared by every game (spec contract, rule 7).

Each check returns the value in a plain Python type or raises a ``ValueError`` that names
the parameter, the value given and what is allowed. Booleans are not numbers here: a
``True`` where a count or a probability belongs is a mistake, not a 1.
"""

import math
from numbers import Integral, Real


def _invalid(name, value, allowed):
    return ValueError(f"{name}={value!r} is invalid: {allowed}")


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
    if type(value) not in (float, int) and (isinstance(value, bool) or not isinstance(value, Real)):
        raise _invalid(name, value, allowed)
    if not math.isfinite(value):
        raise _invalid(name, value, allowed)
    if low is not None and value < low:
        raise _invalid(name, value, allowed)
    return float(value)


def probability(name, value):
    """A probability in [0, 1]."""
    allowed = "must be a probability in [0, 1]"
    if type(value) not in (float, int) and (isinstance(value, bool) or not isinstance(value, Real)):
        raise _invalid(name, value, allowed)
    if not 0 <= value <= 1:
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
