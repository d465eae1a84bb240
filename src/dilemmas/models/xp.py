"""numpy or JAX: the few operations the games' array rules need from either.

Each game's rules are pure functions over arrays of episodes (``models/<game>/arrays.py``).
The Mesa model calls them with numpy arrays for its one episode; the batch engine calls the
same functions with JAX arrays, traced and compiled (``dilemmas.models.batch``). A function
asks ``namespace(array)`` for the module of its inputs and writes its rules with what
numpy and ``jax.numpy`` share; the rest is here: a loop whose body depends on the previous
iteration (``fori``) and setting part of an array (``set_at``). Importing this module does
not import JAX.
"""

import numpy as np


def namespace(*arrays):
    """``numpy`` if every array is a numpy array or scalar, else ``jax.numpy``."""
    if all(isinstance(a, (np.ndarray, np.generic, int, float, bool)) for a in arrays):
        return np
    import jax.numpy as jnp

    return jnp


def fori(lower: int, upper: int, body, carry, xp):
    """``carry = body(i, carry)`` for ``i`` from ``lower`` to ``upper - 1``: a Python loop
    for numpy, ``jax.lax.fori_loop`` for JAX (one compiled loop, not ``upper`` copies)."""
    if xp is np:
        for i in range(lower, upper):
            carry = body(i, carry)
        return carry
    from jax import lax

    return lax.fori_loop(lower, upper, body, carry)


def set_at(array, index, values):
    """A copy of ``array`` with ``array[index] = values``."""
    if isinstance(array, np.ndarray):
        out = array.copy()
        out[index] = values
        return out
    return array.at[index].set(values)


def python_sum(terms):
    """Element-wise, what Python's built-in ``sum(terms)`` gives for floats (Python 3.12+:
    Neumaier's compensated summation, the compensation added once at the end when it is
    finite and not zero), so that array rules add up exactly as a model's Python code
    does."""
    total, compensation = 0.0, 0.0
    for term in terms:
        xp = namespace(term, total)
        added = total + term
        compensation = compensation + xp.where(xp.abs(total) >= xp.abs(term),
                                               (total - added) + term, (term - added) + total)
        total = added
    xp = namespace(total)
    return xp.where((compensation != 0) & xp.isfinite(compensation), total + compensation,
                    total)
