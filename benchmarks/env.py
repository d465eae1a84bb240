"""The environments against the earlier implementations' own, side by side in one run.

Everything is measured per CPU-second (``time.process_time``: every thread of the process
counts), in processes pinned to one core, with random actions (uniform over every action,
as cognac's are: any action may be played, docs/rules/README.md, "Learning agents"; the
array forms draw allowed ones from the masks) and every observation built:

1. **PettingZoo** (``dilemmas.parallel_env``, one episode after another): the Firefighting
   Graph row of 10 firefighters in steps, and Bucket Brigade with 4 agents in nights (two
   steps each), beside cognac's ``RowFireFightingGraphEnvironment`` (n = 10), the earlier
   implementation of the Firefighting Graph, installed from PyPI into its own virtual
   environment (``.bench/cognac``) by this script. The earlier Bucket Brigade is not on PyPI:
   the figure it reached on this machine type, 12,500 nights per CPU-second, is the target.
2. **Vector** (``dilemmas.vector_env``, ``--episodes`` episodes, default 8,192): each game's
   episode steps per CPU-second (a ``step()`` counts one step of every episode; a Bucket
   Brigade night is two), the actions drawn with numpy from the masks, and the ratio to
   cognac's environment.
3. **Functional** (``dilemmas.functional_env``): ``reset`` and ``step`` mapped over
   ``--episodes`` episodes with ``jax.vmap`` and over 50 steps with ``jax.lax.scan``, the
   random allowed actions drawn inside, compiled before the clock starts (called once on
   ``reset``'s state and once on the state it returns, the state the timed calls see); beside
   it the batch engine's own ``run()`` of the same game (no observations), in rounds per
   second.

No timed region compiles: each raises if JAX compiled anything inside it
(``compiles.no_compiles``). The JAX device is named (a GPU where the CUDA plugin is
installed). Run: ``.venv/bin/python benchmarks/env.py [--seconds S] [--episodes N] [--cpu C]
[--sections 1 2 3]`` (``--sections 3``: the functional section only, without cognac).
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from compiles import no_compiles

ROOT = Path(__file__).resolve().parent.parent
COGNAC = ROOT / ".bench" / "cognac"
GAMES = ("bucket_brigade", "firefighting_graph", "state_punishment", "stag_hunt")

COGNAC_RUN = """
import os, sys, time
import numpy as np
from cognac.env.FirefightingGraph.env import RowFireFightingGraphEnvironment
os.sched_setaffinity(0, {int(sys.argv[2])})
env, rng = RowFireFightingGraphEnvironment(n=10, max_steps=100), np.random.default_rng(0)
seconds, steps, seed = float(sys.argv[1]), 0, 0
start = time.process_time()
while time.process_time() - start < seconds:
    env.reset(seed=seed)
    seed += 1
    while env.agents:
        actions = {agent: int(rng.integers(env.action_space(agent).n)) for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        steps += 1
        if any(terminations.values()) or any(truncations.values()):
            break
print(steps / (time.process_time() - start))
"""


def cognac_python() -> Path | None:
    """The Python of a virtual environment holding cognac from PyPI, made on first use."""
    python = COGNAC / "bin" / "python"
    if not python.exists():
        print(f"installing cognac from PyPI into {COGNAC} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(COGNAC)], check=True)
        install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "cognac"],
                                 capture_output=True, text=True)
        if install.returncode != 0:
            print(f"cognac could not be installed: {install.stderr.strip()[-500:]}")
            return None
    return python


def cognac_steps(seconds: float, cpu: int) -> float | None:
    python = cognac_python()
    if python is None:
        return None
    out = subprocess.run([str(python), "-c", COGNAC_RUN, str(seconds), str(cpu)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def pettingzoo_steps(game: str, seconds: float) -> float:
    """Steps per CPU-second of ``parallel_env`` with random allowed actions."""
    import dilemmas

    env, rng = dilemmas.parallel_env(game, collect_data=False), np.random.default_rng(0)
    count = env.action_space(env.possible_agents[0]).n
    steps, seed, start = 0, 0, time.process_time()
    with no_compiles(f"parallel_env({game!r})"):
        while time.process_time() - start < seconds:
            observations, infos = env.reset(seed=seed)
            seed += 1
            while env.agents:
                actions = {agent: int(rng.integers(count)) for agent in env.agents}
                observations, rewards, terminations, truncations, infos = env.step(actions)
                steps += 1
    return steps / (time.process_time() - start)


def vector_steps(game: str, seconds: float, episodes: int) -> float:
    """Episode steps per CPU-second of ``vector_env`` (compiled before the clock starts)."""
    import dilemmas

    env, draw = dilemmas.vector_env(game, episodes, seed=0), np.random.default_rng(0).random
    observations, infos = env.reset()
    for _ in range(4):  # every decision's program compiled
        mask = infos["action_mask"]
        observations, rewards, terminated, truncated, infos = env.step(
            np.argmax(draw(mask.shape) * mask, axis=1))
    steps, start = 0, time.process_time()
    with no_compiles(f"vector_env({game!r})"):
        while time.process_time() - start < seconds:
            mask = infos["action_mask"]
            observations, rewards, terminated, truncated, infos = env.step(
                np.argmax(draw(mask.shape) * mask, axis=1))
            steps += episodes
    return steps / (time.process_time() - start)


def functional_steps(game: str, seconds: float, episodes: int, length: int = 50) -> float:
    """Episode steps per CPU-second of ``functional_env`` under ``jit``, ``vmap`` and
    ``scan``."""
    import jax
    import jax.numpy as jnp

    import dilemmas

    env = dilemmas.functional_env(game)

    def one(state, key):
        choose, play = jax.random.split(key)
        masks = env.get_avail_actions(state)
        actions = {agent: jax.random.categorical(jax.random.fold_in(choose, i),
                                                 jnp.where(masks[agent] > 0, 0.0, -jnp.inf))
                   for i, agent in enumerate(env.agents)}
        observations, state, rewards, dones, infos = jax.vmap(env.step)(
            jax.random.split(play, episodes), state, actions)
        seen = sum(observation.sum() for observation in observations.values())
        return state, seen + sum(rewards.values()).sum()

    @jax.jit
    def run(state, key):
        return jax.lax.scan(one, state, jax.random.split(key, length))

    def call(state, key):
        key, now = jax.random.split(key)
        state, seen = run(state, now)
        jax.block_until_ready((state, seen))
        return state, key

    _, state = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(0), episodes))
    key = jax.random.key(1)
    for _ in range(2):  # compiled for reset's state, then for the state run returns
        state, key = call(state, key)
    steps, start = 0, time.process_time()
    with no_compiles(f"functional_env({game!r})"):
        while time.process_time() - start < seconds:
            state, key = call(state, key)
            steps += episodes * length
    return steps / (time.process_time() - start)


def engine_rounds(game: str, seconds: float, episodes: int) -> float:
    """Rounds per CPU-second of the game's batch engine ``run()`` (random, no
    observations), compiled before the clock starts."""
    from dilemmas import GAMES

    batch = GAMES[game].batch
    batch(episodes, np.random.default_rng(0), population="random").run(compiled=True)
    rounds, start, seed = 0, time.process_time(), 1
    with no_compiles(f"{game} batch engine"):
        while time.process_time() - start < seconds:
            rows = batch(episodes, np.random.default_rng(seed), population="random").run(
                compiled=True)
            rounds, seed = rounds + int((rows.step > 0).sum()), seed + 1
    return rounds / (time.process_time() - start)


def pettingzoo(args, theirs: float | None) -> None:
    print("\n1. PettingZoo, one episode after another, per CPU-second")
    fg = pettingzoo_steps("firefighting_graph", args.seconds)
    bb = pettingzoo_steps("bucket_brigade", args.seconds) / 2
    if theirs is not None:
        print(f"  cognac, Firefighting Graph row of 10:        {theirs:>12,.0f} steps")
    print(f"  dilemmas, Firefighting Graph row of 10:      {fg:>12,.0f} steps"
          + (f"   {fg / theirs:.2f} x cognac" if theirs else ""))
    print(f"  dilemmas, Bucket Brigade, 4 agents:          {bb:>12,.0f} nights"
          f"   {bb / 12_500:.2f} x the 12,500 target")


def vector(args, theirs: float | None) -> None:
    print(f"\n2. Vector environment, {args.episodes:,} episodes, episode steps per CPU-second")
    for game in GAMES:
        rate = vector_steps(game, args.seconds, args.episodes)
        ratio = f"   {rate / theirs:,.0f} x cognac" if theirs else ""
        night = f"  ({rate / 2:,.0f} nights, {rate / 2 / 12_500:,.0f} x 12,500)" \
            if game == "bucket_brigade" else ""
        print(f"  {game:<20} {rate:>12,.0f}{ratio}{night}", flush=True)


def functional(args) -> None:
    print(f"\n3. Functional, jit + vmap over {args.episodes:,} episodes + scan, per "
          "CPU-second; the batch engine's run() beside it")
    for game in GAMES:
        rate = functional_steps(game, args.seconds, args.episodes)
        rounds = engine_rounds(game, args.seconds, args.episodes)
        print(f"  {game:<20} {rate:>12,.0f} steps   engine {rounds:>12,.0f} rounds",
              flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--episodes", type=int, default=8192)
    parser.add_argument("--cpu", type=int, default=0, help="the core to pin to")
    parser.add_argument("--sections", type=int, nargs="+", choices=(1, 2, 3),
                        default=[1, 2, 3], help="the sections to run (default all)")
    args = parser.parse_args()
    os.sched_setaffinity(0, {args.cpu})
    import jax

    print(f"one core (cpu {args.cpu}); JAX device: {jax.devices()[0].device_kind} "
          f"({jax.default_backend()}); {args.seconds:g} s per measurement")
    theirs = cognac_steps(args.seconds, args.cpu) if {1, 2} & set(args.sections) else None
    if 1 in args.sections:
        pettingzoo(args, theirs)
    if 2 in args.sections:
        vector(args, theirs)
    if 3 in args.sections:
        functional(args)


if __name__ == "__main__":
    main()
