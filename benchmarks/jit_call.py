"""What one call of a compiled JAX function costs on this machine before any work: a jitted
function that adds 1 to each of its inputs, with one input, and with twenty small inputs
(the size of a one-episode round's state), their outputs kept on the device or brought back
to numpy as a Mesa model would read them (docs/explanation/speed.md). Compiled before the
clock starts. Pin the process to one core.

Run: ``taskset -c 0 .venv/bin/python benchmarks/jit_call.py [--calls N]``.
"""

import argparse
import time

import jax
import numpy as np


@jax.jit
def add_one(*arrays):
    return tuple(array + 1 for array in arrays)


def microseconds(call, calls: int) -> float:
    call()  # compiled here, not in the timed loop
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    one = [np.zeros((1, 10))]
    twenty = [np.zeros((1, 10)) for _ in range(20)]
    cases = {
        "1 input, output on the device": lambda: jax.block_until_ready(add_one(*one)),
        "20 inputs, outputs on the device": lambda: jax.block_until_ready(add_one(*twenty)),
        "20 inputs, outputs to numpy": lambda: [np.asarray(a) for a in add_one(*twenty)],
    }
    print(f"one jitted call on {jax.devices()[0].platform}, microseconds")
    for name, call in cases.items():
        print(f"  {name:<36} {microseconds(call, args.calls):8.1f}")


if __name__ == "__main__":
    main()
