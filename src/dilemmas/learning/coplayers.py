"""Frozen co-players of a PPO training (``CoPlayers``; ``dilemmas.learning.ppo``'s docstring,
"Frozen co-players"; PSRO's best response, docs/game-theory.md): the seats they take, their
network policies or scripted behaviours, the weights they are drawn with, and their logits
in JAX (a ``NetworkPolicy``'s arithmetic)."""

from dataclasses import dataclass

import numpy as np



@dataclass(frozen=True)
class CoPlayers:
    """Frozen co-players (module docstring): the environment's agents (indices) they sit in,
    their policies (each a ``NetworkPolicy`` or a scripted behaviour's name), the
    probability each is drawn with, and how the networks play (``greedy`` or
    ``sampled``)."""

    seats: tuple
    policies: tuple
    weights: tuple
    play: str = "sampled"

    def __post_init__(self):
        weights = np.asarray(self.weights, dtype=np.float64)
        if not self.seats or len(set(self.seats)) < len(self.seats):
            raise ValueError(f"co-player seats={list(self.seats)!r} must be distinct agents")
        if not self.policies or len(weights) != len(self.policies) \
                or not np.isfinite(weights).all() or (weights < 0).any() or weights.sum() <= 0:
            raise ValueError(f"co-player weights={list(self.weights)!r} must be one finite "
                             "number >= 0 per policy, not all 0")
        for policy in self.policies:
            if not isinstance(policy, str) and getattr(policy, "kind", None) != "network":
                raise ValueError("a co-player must be a network policy (a deep learner's) or "
                                 "a scripted behaviour's name; got a "
                                 f"{getattr(policy, 'kind', type(policy).__name__)} policy")
        if self.play not in ("greedy", "sampled"):
            raise ValueError(f"co-player play={self.play!r} must be 'greedy' or 'sampled'")

    @property
    def networks(self) -> tuple:
        """The network policies, in order."""
        return tuple(policy for policy in self.policies if not isinstance(policy, str))

    @property
    def scripted(self) -> tuple:
        """The scripted behaviours' names, in order (the environment's stand-ins)."""
        return tuple(policy for policy in self.policies if isinstance(policy, str))

    def places(self) -> tuple[np.ndarray, np.ndarray]:
        """For each policy its index among ``networks`` and among ``scripted`` (-1 where it is
        not one)."""
        scripted = np.array([isinstance(policy, str) for policy in self.policies])
        return (np.where(scripted, -1, np.cumsum(~scripted) - 1),
                np.where(scripted, np.cumsum(scripted) - 1, -1))

    def memory(self, shape) -> tuple:
        """Each network's memory, zeros ``shape + (hidden,)`` (``hidden`` 0 without a cell)."""
        import jax.numpy as jnp

        return tuple(jnp.zeros((*shape, 0 if policy.cell is None else policy.cell[3].shape[0]))
                     for policy in self.networks)

    def logits(self, observations, memory, first):
        """Every network's logits ``(networks, ..., actions)`` of ``observations`` ``(...,
        inputs)`` and each one's memory after them, reset where ``first`` ``(...)`` before it
        is used (``NetworkPolicy.forward``'s arithmetic)."""
        import jax
        import jax.numpy as jnp

        found, kept = [], []
        for policy, hidden in zip(self.networks, memory):
            x = observations
            for weight, bias in policy.layers:
                x = x @ jnp.asarray(weight).T + jnp.asarray(bias)
                x = jnp.tanh(x) if policy.activation == "tanh" else jnp.maximum(x, 0)
            if policy.cell is not None:
                weight_ih, weight_hh, bias, bias_n = map(jnp.asarray, policy.cell)
                hidden = jnp.where(first[..., None], 0.0, hidden)
                i_reset, i_input, i_new = jnp.split(x @ weight_ih.T + bias, 3, axis=-1)
                h_reset, h_input, h_new = jnp.split(hidden @ weight_hh.T, 3, axis=-1)
                reset = jax.nn.sigmoid(i_reset + h_reset)
                update = jax.nn.sigmoid(i_input + h_input)
                new = jnp.tanh(i_new + reset * (h_new + bias_n))
                hidden = new + update * (hidden - new)
                x = hidden
            weight, bias = policy.head
            found.append(x @ jnp.asarray(weight).T + jnp.asarray(bias))
            kept.append(hidden)
        return jnp.stack(found), tuple(kept)

    def draw(self, key, shape):
        """The co-player each seat plays (indices into ``policies``), ``shape + (seats,)``."""
        import jax
        import jax.numpy as jnp

        weights = np.asarray(self.weights, dtype=np.float64)
        with np.errstate(divide="ignore"):  # a weight of 0: never drawn
            log = jnp.asarray(np.log(weights / weights.sum()), dtype=jnp.float32)
        return jax.random.categorical(key, log, shape=(*shape, len(self.seats)))
