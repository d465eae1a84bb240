"""The hyper-parameters of a PPO training (``Settings``; docs/learning.md, "Deep learners"),
checked when made: the algorithm, the network, the batch's shape, PPO's numbers (each may
be one per learning seat, ``SEAT_SETTINGS``) and the reward trained on
(``dilemmas.learning.rewards``). ``dilemmas.learning.ppo`` trains with them."""

import math
from dataclasses import dataclass

from dilemmas.learning import rewards

ALGORITHMS = ("ippo", "mappo")
NETWORKS = ("mlp", "gru")
ACTIVATIONS = ("tanh", "relu")


#: The numeric settings' ranges (both ends allowed; ``POSITIVE`` ones must also not be 0).
RANGES = {"learning_rate": (0, math.inf), "discount": (0, 1), "gae_lambda": (0, 1),
          "clip": (0, math.inf), "entropy": (0, math.inf), "value": (0, math.inf),
          "max_grad_norm": (0, math.inf)}
POSITIVE = ("learning_rate", "clip", "max_grad_norm")
#: The integer settings' ranges (None: no upper end but the memory check's,
#: ``Trainer.check_footprint``). More layers than 16 or epochs than 100 are far outside PPO's
#: practice (2 and 4 here, as in PureJaxRL) and compile or train for minutes before
#: anything is written.
INTEGERS = {"hidden": (1, None), "layers": (0, 16), "envs": (1, None), "steps": (1, None),
            "epochs": (1, 100), "minibatches": (1, None)}
#: The most gradient steps a training may take (updates x epochs x minibatches): optax counts
#: them, and anneals the learning rate over them, in int32.
MAX_STEPS = 2 ** 31 - 1
#: The settings a learning seat may have its own of (with ``share`` false): a list of one
#: per learning seat in place of the number.
SEAT_SETTINGS = tuple(RANGES)


@dataclass(frozen=True)
class Settings:
    """The hyper-parameters of a PPO training (module docstring)."""

    algorithm: str = "ippo"
    network: str = "mlp"
    share: bool = True
    hidden: int = 64
    layers: int = 2
    activation: str = "tanh"
    envs: int = 64
    steps: int = 128
    epochs: int = 4
    minibatches: int = 4
    learning_rate: float | tuple = 2.5e-4
    anneal: bool = True
    discount: float | tuple = 0.99
    gae_lambda: float | tuple = 0.95
    clip: float | tuple = 0.2
    entropy: float | tuple = 0.01
    value: float | tuple = 0.5
    max_grad_norm: float | tuple = 0.5
    value_norm: bool = True
    reward: str = "own"
    prosociality: float | tuple = 0.0
    inequity_alpha: float | tuple = 0.0
    inequity_beta: float | tuple = 0.0
    inequity_smoothing: float | tuple = 0.0

    def __post_init__(self):
        for key, allowed in (("algorithm", ALGORITHMS), ("network", NETWORKS),
                             ("activation", ACTIVATIONS)):
            if getattr(self, key) not in allowed:
                raise ValueError(f"{key}={getattr(self, key)!r} is invalid: allowed: "
                                 f"{list(allowed)}")
        for key, (low, high) in INTEGERS.items():
            value = getattr(self, key)
            if type(value) is not int or value < low or (high is not None and value > high):
                raise ValueError(f"{key}={value!r} must be an integer "
                                 + (f">= {low}" if high is None else f"from {low} to {high}"))
        for key in ("share", "anneal", "value_norm"):
            if not isinstance(getattr(self, key), bool):
                raise ValueError(f"{key}={getattr(self, key)!r} must be true or false")
        for key, (low, high) in RANGES.items():
            value = getattr(self, key)
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            if not values or any(isinstance(v, bool) or not isinstance(v, (int, float))
                                 or not math.isfinite(v) or v < low or v > high
                                 or (v == 0 and key in POSITIVE) for v in values):
                raise ValueError(f"{key}={value!r} must be a finite number "
                                 + (f"from {low} to {high}" if high < math.inf else
                                    "> 0" if key in POSITIVE else f">= {low}")
                                 + ", or a list of them (one per learning seat)")
            if isinstance(value, (list, tuple)):
                if self.share:
                    raise ValueError(f"{key}={list(value)!r} gives each learning seat its own "
                                     "value: that needs [network] share = false (each seat "
                                     "its own networks and optimiser)")
                object.__setattr__(self, key, tuple(map(float, values)))
        for key, value in rewards.check(self.reward, self.weights()).items():
            object.__setattr__(self, key, value)

    def weights(self) -> dict:
        """The reward's weights (``rewards.WEIGHTS``), by key."""
        return {key: getattr(self, key) for key in rewards.WEIGHTS}
