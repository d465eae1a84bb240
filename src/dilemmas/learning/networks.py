"""The networks of a PPO training (``dilemmas.learning.ppo``'s docstring, "Networks"): equinox
MLPs and GRUs made as PureJaxRL initialises them, their weights as a policy file's arrays,
masked logits, and the seat-wise application over a batch (shared by the learning seats or
each seat's own)."""

from typing import Any

import numpy as np

from dilemmas.learning.ppo_settings import Settings

#: The logit of an action the mask forbids: never sampled, no weight in the loss.
MASKED = -1e9


def _network_class():
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    class Network(eqx.Module):
        """Dense layers, an optional GRU cell and a linear head; ``(x, hidden) -> (out,
        hidden)`` for one input vector (``hidden`` of length 0 without a cell)."""

        layers: list
        cell: Any
        head: Any
        activation: str = eqx.field(static=True)

        def __call__(self, x, hidden):
            act = jnp.tanh if self.activation == "tanh" else jax.nn.relu
            for layer in self.layers:
                x = act(layer(x))
            if self.cell is not None:
                hidden = self.cell(x, hidden)
                x = hidden
            return self.head(x), hidden

    return Network


def network(key, inputs: int, outputs: int, settings: Settings, head_gain: float):
    """A fresh network: orthogonal weights (gain sqrt 2 in the layers, ``head_gain`` in the
    head) and zero biases, as PureJaxRL initialises PPO's networks; the GRU cell as equinox
    initialises it."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    keys = jax.random.split(key, settings.layers + 2)
    sizes = [inputs] + [settings.hidden] * settings.layers

    def dense(key, size_in, size_out, gain):
        layer = eqx.nn.Linear(size_in, size_out, key=key)
        weight = jax.nn.initializers.orthogonal(gain)(key, (size_out, size_in))
        return eqx.tree_at(lambda l: (l.weight, l.bias), layer,
                           (weight, jnp.zeros(size_out)))

    layers = [dense(k, a, b, np.sqrt(2)) for k, a, b in zip(keys, sizes[:-1], sizes[1:])]
    cell = eqx.nn.GRUCell(sizes[-1], settings.hidden, key=keys[-2]) \
        if settings.network == "gru" else None
    head = dense(keys[-1], settings.hidden if cell is not None else sizes[-1], outputs,
                 head_gain)
    return _network_class()(layers, cell, head, settings.activation)


def weights(inputs: int, outputs: int, settings: Settings) -> int:
    """The number of weights and biases of ``network(key, inputs, outputs, settings, ...)``."""
    sizes = [inputs] + [settings.hidden] * settings.layers
    count = sum((a + 1) * b for a, b in zip(sizes[:-1], sizes[1:]))
    if settings.network == "gru":  # equinox's GRUCell: weight_ih, weight_hh, bias, bias_n
        count += 3 * settings.hidden * (sizes[-1] + settings.hidden + 1) + settings.hidden
        sizes[-1] = settings.hidden
    return count + (sizes[-1] + 1) * outputs


def memory_size(settings: Settings) -> int:
    return settings.hidden if settings.network == "gru" else 0


def network_arrays(net) -> dict:
    """A network's weights as named numpy arrays (the policy file's ``"network"`` kind,
    ``dilemmas.models.policies.NetworkPolicy``)."""
    arrays = {"activation": np.array(net.activation)}
    for i, layer in enumerate(net.layers):
        arrays[f"layer{i}_weight"] = np.asarray(layer.weight)
        arrays[f"layer{i}_bias"] = np.asarray(layer.bias)
    if net.cell is not None:
        for name in ("weight_ih", "weight_hh", "bias", "bias_n"):
            arrays[f"gru_{name}"] = np.asarray(getattr(net.cell, name))
    arrays["head_weight"] = np.asarray(net.head.weight)
    arrays["head_bias"] = np.asarray(net.head.bias)
    return arrays


def masked_logits(logits, mask):
    import jax.numpy as jnp

    return jnp.where(mask.astype(bool), logits, MASKED)


def apply(net, inputs, hidden, first):
    """``net`` over a batch ``(..., inputs)`` at one decision: the memory ``hidden`` reset
    where ``first`` (an episode's first decision) before it is used."""
    import jax
    import jax.numpy as jnp

    hidden = jnp.where(first[..., None], jnp.zeros_like(hidden), hidden)
    rows = int(np.prod(inputs.shape[:-1]))
    flat_x = inputs.reshape(rows, inputs.shape[-1])
    flat_h = hidden.reshape(rows, hidden.shape[-1])
    out, new = jax.vmap(net)(flat_x, flat_h)
    return out.reshape(*inputs.shape[:-1], -1), new.reshape(hidden.shape)


def replay(net, inputs, hidden, first):
    """``net`` over a sequence ``(T, ..., inputs)`` from the memory ``hidden`` at its start."""
    import jax

    def one(hidden, step):
        x, f = step
        out, hidden = apply(net, x, hidden, f)
        return hidden, out

    return jax.lax.scan(one, hidden, (inputs, first))[1]


def seatwise(run, share: bool, net, inputs, hidden, first):
    """``run`` (``apply`` or ``replay``) of one network shared by the seats, or of each
    seat's own (``net`` stacked over the seats): the seat axis of ``inputs`` and ``hidden``
    is their second last, of ``first`` its last, as in the results."""
    import equinox as eqx

    if share:
        return run(net, inputs, hidden, first)
    return eqx.filter_vmap(run, in_axes=(eqx.if_array(0), -2, -2, -1), out_axes=-2)(
        net, inputs, hidden, first)


def seat_vmap(function, inputs, axes, settings):
    """``function(*inputs, *settings)`` mapped over the seats (the ``axes`` of ``inputs``),
    each of ``settings`` a number shared by the seats or an array of one per seat."""
    import jax

    per_seat = [i for i, value in enumerate(settings) if np.ndim(value)]
    shared = list(settings)

    def one(*args):
        values = list(shared)
        for i, value in zip(per_seat, args[len(inputs):]):
            values[i] = value
        return function(*args[:len(inputs)], *values)

    return jax.vmap(one, in_axes=(*axes, *[0] * len(per_seat)))(
        *inputs, *[settings[i] for i in per_seat])
