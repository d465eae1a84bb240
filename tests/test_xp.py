"""The numpy-or-JAX helpers the array rules use (``dilemmas.models.xp``): each gives the
same numbers with numpy and with JAX arrays."""

import jax
import jax.numpy as jnp
import numpy as np

from dilemmas.models.xp import (counts_per_row, fori, namespace, python_sum, repeat_while,
                                set_at)


def test_namespace_is_numpy_only_for_numpy_inputs():
    assert namespace(np.zeros(2), 1, 0.5, np.float64(1)) is np
    assert namespace(np.zeros(2), jnp.zeros(2)) is jnp


def test_python_sum_is_pythons_sum_with_numpy_and_with_jax():
    """Rows with terms of very different sizes, where the order and the compensation
    matter; JAX in 64-bit floats, so both are compared with Python's own sum exactly."""
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(500, 7)) * 10.0 ** rng.integers(-8, 9, size=(500, 7))
    rows[:5] = [1e16, 1.0, -1e16, 1.0, 0.0, 0.0, 0.0]
    expected = [sum(row) for row in rows.tolist()]
    assert python_sum(rows).tolist() == expected
    with jax.enable_x64(True):
        assert np.asarray(python_sum(jnp.asarray(rows))).tolist() == expected
    assert expected[0] == 2.0  # what naive left-to-right addition would get wrong


def test_counts_per_row_counts_each_value_in_each_row():
    indices = np.random.default_rng(1).integers(0, 6, size=(40, 9))
    expected = np.array([[list(row).count(v) for v in range(6)] for row in indices])
    assert np.array_equal(counts_per_row(indices, 6), expected)
    assert np.array_equal(np.asarray(counts_per_row(jnp.asarray(indices), 6)), expected)


def test_fori_and_set_at_chain_each_iteration_on_the_last():
    def body(i, array):
        return set_at(array, (slice(None), i), array[:, i - 1] * 2 + 1)

    for xp in (np, jnp):
        out = fori(1, 5, body, xp.ones((2, 5), dtype=int), xp)
        assert np.asarray(out).tolist() == [[1, 3, 7, 15, 31]] * 2
    numpy_in = np.zeros(3)
    set_at(numpy_in, 0, 5.0)
    assert numpy_in.tolist() == [0.0, 0.0, 0.0]  # a copy, never the array given


def test_repeat_while_runs_the_body_until_the_condition_fails():
    """Collatz steps from 27 (111 of them): a loop whose length the body decides."""
    def condition(carry):
        return carry[0] != 1

    def body(carry):
        x, steps = carry
        xp = namespace(x)
        return xp.where(x % 2 == 0, x // 2, 3 * x + 1), steps + 1

    for xp in (np, jnp):
        x, steps = repeat_while(condition, body, (xp.asarray(27), xp.asarray(0)), xp)
        assert (int(x), int(steps)) == (1, 111)
    traced = jax.jit(lambda x: repeat_while(condition, body, (x, jnp.asarray(0)), jnp))
    assert int(traced(jnp.asarray(27))[1]) == 111
