"""numpy or JAX: the few operations the games' array rules need from either.

Each game's rules are pure functions over arrays of episodes (``models/<game>/arrays.py``).
The Mesa model calls them with numpy arrays for its one episode; the batch engine calls the
same functions with JAX arrays, traced and compiled (``dilemmas.models.batch``). A function
asks ``namespace(array)`` for the module of its inputs and writes its rules with what
numpy and ``jax.numpy`` share; the rest is here: a loop whose body depends on the previous
iteration (``fori``), counting per row (``counts_per_row``), setting part of an array
(``set_at``), limiting integers to a range (``clamp``) and Python's own float sum
(``python_sum``). Importing this module does not import JAX.
"""

import numpy as np


_NUMPY = (np.ndarray, np.generic, int, float, bool)


def namespace(*arrays):
    """``numpy`` if every array is a numpy array or scalar, else ``jax.numpy``."""
    for array in arrays:
        if not isinstance(array, _NUMPY):
            import jax.numpy as jnp

            return jnp
    return np


def clamp(values, low, high):
    """``values`` limited to ``[low, high]``: ``clip``'s result, for the integer indices of
    the rules, without the checks that make numpy's ``clip`` cost several microseconds a call
    on the small arrays of one episode."""
    xp = namespace(values)
    return xp.minimum(xp.maximum(values, low), high)


def fori(lower: int, upper: int, body, carry, xp):
    """``carry = body(i, carry)`` for ``i`` from ``lower`` to ``upper - 1``: a Python loop
    for numpy, ``jax.lax.fori_loop`` for JAX (one compiled loop, not ``upper`` copies)."""
    if xp is np:
        for i in range(lower, upper):
            carry = body(i, carry)
        return carry
    from jax import lax

    return lax.fori_loop(lower, upper, body, carry)


def repeat_while(condition, body, carry, xp):
    """``carry = body(carry)`` while ``condition(carry)``: a Python loop for numpy,
    ``jax.lax.while_loop`` for JAX."""
    if xp is np:
        while condition(carry):
            carry = body(carry)
        return carry
    from jax import lax

    return lax.while_loop(condition, body, carry)


def counts_per_row(indices, length: int):
    """``(E, length)``: how often each of ``range(length)`` appears in each row of
    ``indices`` ``(E, k)`` (numpy's ``bincount`` per row; a scatter-add with JAX)."""
    episodes = indices.shape[0]
    if isinstance(indices, np.ndarray):
        offsets = (np.arange(episodes) * length)[:, None]
        return np.bincount((indices + offsets).ravel(),
                           minlength=episodes * length).reshape(episodes, length)
    import jax.numpy as jnp

    rows = jnp.broadcast_to(jnp.arange(episodes)[:, None], indices.shape)
    return jnp.zeros((episodes, length), dtype=int).at[rows, indices].add(1)


def smallest(values, count: int):
    """``(E, n)`` booleans: in each row of ``values`` ``(E, n)``, the ``count`` smallest (equal
    values ranked by position, as a stable sort ranks them). Short rows compare every pair,
    which XLA does much faster than it sorts many short rows; long ones sort once."""
    xp = namespace(values)
    n = values.shape[1]
    if n <= 64:
        position = xp.arange(n)
        before = (values[:, None, :] < values[:, :, None]) | (
            (values[:, None, :] == values[:, :, None]) & (position < position[:, None]))
        return before.sum(axis=2) < count
    order = xp.argsort(values, axis=1, stable=True)
    return xp.argsort(order, axis=1, stable=True) < count


def never(mask) -> bool:
    """Whether ``mask`` is known to hold no True now: a numpy array with none (so that a
    rule may skip work that would change nothing); a traced JAX array is never known."""
    return isinstance(mask, np.ndarray) and not mask.any()


def set_at(array, index, values):
    """A copy of ``array`` with ``array[index] = values``."""
    if isinstance(array, np.ndarray):
        out = array.copy()
        out[index] = values
        return out
    return array.at[index].set(values)


def put_where(array, index, values, where):
    """A copy of ``array`` with ``array[index] = values`` where ``where`` holds and the rest
    untouched (``index``: a tuple of integer arrays that broadcast to ``where``'s shape,
    ``values`` to it and ``array``'s axes after the indexed ones). With JAX the entries
    left out go to an index past the last axis indexed and are dropped, so that the update
    is done in place where XLA can."""
    if isinstance(array, np.ndarray):
        out = array.copy()
        chosen = tuple(np.broadcast_to(i, where.shape)[where] for i in index)
        trailing = array.shape[len(index):]
        out[chosen] = np.broadcast_to(values, where.shape + trailing)[where]
        return out
    import jax.numpy as jnp

    past = array.shape[len(index) - 1]
    index = (*index[:-1], jnp.where(where, index[-1], past))
    return array.at[index].set(values, mode="drop")


def python_sum(rows):
    """``(E,)``: each row of ``rows`` ``(E, k)`` added up as Python's built-in ``sum`` adds
    floats (Python 3.12+: Neumaier's compensated summation, the compensation added once at
    the end when it is finite and not zero), so that array rules add up exactly as a model's
    Python code does: with numpy, ``sum`` itself; with JAX, the same steps over the
    columns."""
    if isinstance(rows, np.ndarray):
        return np.array([sum(row) for row in rows.tolist()], dtype=float)
    import jax.numpy as jnp

    total = compensation = jnp.zeros(rows.shape[0], dtype=rows.dtype)
    for column in range(rows.shape[1]):
        term = rows[:, column]
        added = total + term
        compensation = compensation + jnp.where(jnp.abs(total) >= jnp.abs(term),
                                                (total - added) + term, (term - added) + total)
        total = added
    return jnp.where((compensation != 0) & jnp.isfinite(compensation), total + compensation,
                     total)
