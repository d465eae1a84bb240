"""The batch engines against the Mesa models, side by side on one core, and a study of many
episodes through the runner.

For each target of the array engine (Bucket Brigade with ``random`` agents, N = 4; the
Firefighting Graph row of 10 and 5 x 5 grid, ``random``; State Punishment's and Stag Hunt's
defaults, ``random``, and again with every agent building its observation before each of
its decisions), in one process pinned to one core: rounds per second of the batch engine playing ``--episodes`` episodes at once (the
whole ``run()``: starting, every round, and gathering the rows of every episode; compiled
once before the clock starts, on JAX's default device, which the output names), then of
the Mesa model playing episodes one after another with its DataCollector on, as a study
does (building each model included), each for about ``--seconds`` (the engine's timing
raises if JAX compiled anything inside it: ``compiles.no_compiles``). ``speed-up`` is their
ratio. Then ``--study`` episodes of a Bucket Brigade study (``random``, model rows of every
night) through ``dilemmas.analysis.studies.runner.run_study`` on one worker: seconds, episodes per second
and the process's peak resident memory, for two sizes, to show that memory does not grow
with the number of episodes (the rows stream to disk block by block).

Run: ``.venv/bin/python benchmarks/engine.py [--episodes N] [--seconds S] [--study N]``.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

from compiles import no_compiles

OBSERVING = "observing_random"
TARGETS = (
    ("bucket_brigade", "Bucket Brigade, N=4, random", {"population": "random"}),
    ("firefighting_graph", "Firefighting Graph, row of 10, random", {"population": "random"}),
    ("firefighting_graph", "Firefighting Graph, 5 x 5 grid, random",
     {"population": "random", "layout": "grid"}),
    ("state_punishment", "State Punishment, random", {"population": "random"}),
    ("state_punishment", "State Punishment, random, observing", {"population": OBSERVING}),
    ("stag_hunt", "Stag Hunt, random", {"population": "random"}),
    ("stag_hunt", "Stag Hunt, random, observing", {"population": OBSERVING}),
)


def observing_behaviour() -> None:
    """``OBSERVING``, for this benchmark process only: State Punishment's and Stag Hunt's
    ``random``, building the acting agent's observation (``arrays.views``, and for Stag Hunt
    ``arrays.observation``) before each decision, in the model (``observe()``) as in the
    engine; the engine's decision depends on the observation, so that the compiler cannot
    leave it out."""
    import dilemmas.agents.stag_hunt as hunters
    import dilemmas.agents.state_punishment as foragers
    from dilemmas import GAMES
    from dilemmas.models.stag_hunt import arrays as stag_hunt
    from dilemmas.models.state_punishment import arrays as state_punishment

    def seen_by_sp(batch):
        model = batch.model
        return state_punishment.views(batch.current, model.rules, model.vision_radius,
                                      model.full_view, model.composite_views,
                                      batch.acting[:, None])

    def seen_by_sh(batch):
        model = batch.model
        view, features, position = stag_hunt.observation(
            batch.current, model.rules, batch.t, batch.acting[:, None], model.vision_radius,
            model.channels, model.embedding_size)
        return view.sum(axis=(1, 2, 3, 4)) + features.sum(axis=(1, 2)) + position.sum(axis=(1, 2))

    for game, agents, seen in (("state_punishment", foragers, seen_by_sp),
                               ("stag_hunt", hunters, seen_by_sh)):
        class ObservingRandomAgent(agents.RandomAgent):
            behaviour = OBSERVING
            observed = staticmethod(seen)

            def choose_action(self):
                if self.cell is not None:
                    self.observe()
                return super().choose_action()

            @classmethod
            def batch_decide(cls, batch, group, phase):
                seen = cls.observed(batch)
                seen = seen.sum(axis=tuple(range(1, seen.ndim)))
                return batch.xp.where(seen > 0, super().batch_decide(batch, group, phase), 0)

        GAMES[game].behaviours[OBSERVING] = ObservingRandomAgent


def pin_to_one_core() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def engine_rate(game, parameters, episodes: int, seconds: float) -> float:
    """Rounds per second of whole batches of ``episodes``, repeated for about ``seconds``."""
    from dilemmas import GAMES

    GAMES[game].batch(episodes, np.random.default_rng(0), **parameters).run()  # compile
    rounds, spent, seed = 0, 0.0, 0
    with no_compiles(f"{game} batch engine, {parameters}"):
        while spent < seconds:
            start = time.perf_counter()
            rows = GAMES[game].batch(episodes, np.random.default_rng(seed), **parameters).run()
            spent += time.perf_counter() - start
            rounds += int(np.count_nonzero(rows.step))
            seed += 1
    return rounds / spent


def model_rate(game, parameters, seconds: float) -> float:
    """Rounds per second of the Mesa model, one episode after another, DataCollector on."""
    from dilemmas import GAMES

    GAMES[game].model(**parameters, rng=0).run_model()
    rounds, spent, seed = 0, 0.0, 0
    while spent < seconds:
        start = time.perf_counter()
        model = GAMES[game].model(**parameters, rng=seed)
        model.run_model()
        spent += time.perf_counter() - start
        rounds += model.steps
        seed += 1
    return rounds / spent


def study(episodes: int) -> dict:
    """One Bucket Brigade study of ``episodes`` runs through the runner (in this process)."""
    from dilemmas.analysis.studies.runner import run_study
    from dilemmas.analysis.studies.study import Study

    plan = Study(game="bucket_brigade", name="engine_bench", replicates=episodes, seed=1,
                 fixed={"population": "random"}, max_runs=episodes)
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        report = run_study(plan, out, backend="serial", progress=False)
        elapsed = time.perf_counter() - start
    assert report.played == episodes and not report.failed
    return {"seconds": elapsed,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=10_000, help="episodes per batch")
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--study", type=int, default=1_000_000,
                        help="episodes of the largest runner study (also one tenth of it)")
    parser.add_argument("--one-study", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    pin_to_one_core()
    observing_behaviour()
    import jax

    if args.one_study:
        print(json.dumps(study(args.one_study)))
        return
    print(f"{'one core':<40} {'engine':>11} {'Mesa model':>11} {'speed-up':>8}")
    for game, label, parameters in TARGETS:
        batch = engine_rate(game, parameters, args.episodes, args.seconds)
        model = model_rate(game, parameters, args.seconds)
        print(f"{label:<40} {batch:>11,.0f} {model:>11,.0f} {batch / model:>7,.0f}x",
              flush=True)
    print(f"(rounds per second; engine: batches of {args.episodes:,} episodes, compiled by JAX "
          f"on {jax.devices()[0].device_kind}, {jax.devices()[0].platform}; the Mesa model on "
          f"one core)")
    print(f"\n{'runner, Bucket Brigade study':<40} {'seconds':>8} {'episodes/s':>11} "
          f"{'peak MB':>8}")
    for episodes in (args.study // 10, args.study):
        out = subprocess.run([sys.executable, __file__, "--one-study", str(episodes)],
                             check=True, capture_output=True, text=True).stdout
        result = json.loads(out)
        print(f"{episodes:>11,} episodes{'':<20} {result['seconds']:>8.1f} "
              f"{episodes / result['seconds']:>11,.0f} {result['peak_mb']:>8,.0f}", flush=True)


if __name__ == "__main__":
    main()
