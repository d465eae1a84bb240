"""PSRO with IPPO best responses over a population of network policies and scripted
behaviours (docs/game-theory.md, "PSRO"; ``dilemmas psro``).

``run_psro(population, oracle, out)`` runs the loop of ``dilemmas.analysis.game_theory.psro``
with

* **the meta-game** of the population so far: its symmetric payoff table
  (``metagame.metagame_study``, a resumable study of every mix, ``replicates`` runs each, in
  ``<out>/<population>-psro/<population>-<k>-symmetric`` for the population of its first
  ``k`` responses);
* **the oracle**: a deep training (``oracle``, a ``DeepTraining`` whose learner settings are
  used: algorithm, updates, seeds, seed, ``[network]``, ``[ppo]``, whose ``reward`` must be
  ``"own"``, the meta-game's payoff) of the game's every seat, seat 0 learning and the
  others frozen co-players (``[coplayers]``, ``coplayers.CoPlayers``), each episode drawing each
  co-player seat's strategy from the meta-strategy, as the population plays them
  (``play``); it is trained into ``<out>/<population>-psro/response-<k>`` with ``share =
  false``. Of its training seeds the one of the highest return (its ``learner_return``
  over the last tenth of the updates in which episodes ended: sampled play against the
  meta-strategy's co-players) is the response, ``response<k>`` (its seat 0). Its expected
  payoff against the meta-strategy is read from the table of the population with it added
  (the next iteration's, played once): the same engine and play as the meta-strategy's value.

Every strategy is a network policy (a policy file, a seat of one, a training's seeds or a
shipped bot) or a scripted behaviour that decides on arrays, which stands in for its
co-player seat inside the compiled training (``dilemmas.envs.functional``, "Stand-ins"); a
tabular or linear policy file, or a behaviour that decides only in Python, is refused. The
response learns in seat 0; the symmetric table plays it in every seat.

Resumable: each table is a study and each response a training, both resumed or reused from
``out``; run the same command again after a kill and the loop repeats, playing and training
only what is missing, to the same result (the meta-solvers are deterministic). The
iterations so far are written to ``psro.csv`` (``psro.report``) after each one, and the
figure ``psro.pdf``/``.png`` at the end.
"""

from dataclasses import replace
from pathlib import Path

import numpy as np

from dilemmas.analysis.game_theory import metagame, psro
from dilemmas.analysis.game_theory.dynamics import expected_payoffs
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import StudyError
from dilemmas.envs.functional import stands_in
from dilemmas.learning import deep
from dilemmas.learning.deep import DeepTraining

#: The seat the best response learns in; the co-players sit in the others.
LEARNER = 0


def check_population(population: metagame.Population) -> None:
    """A StudyError naming the first strategy that cannot be a co-player (neither a network
    nor a scripted behaviour that decides on arrays)."""
    for chosen in population.strategies:
        if chosen.policy is None:
            if not stands_in(population.game, chosen.behaviour):
                raise StudyError(f"strategy {chosen.name!r} is the behaviour "
                                 f"{chosen.behaviour!r}, which cannot decide on arrays: PSRO's "
                                 "co-players play inside the compiled training")
        elif chosen.loaded().kind != "network":
            raise StudyError(f"strategy {chosen.name!r} is a {chosen.loaded().kind} policy: "
                             "PSRO's co-players are network policies (deep learners') or "
                             "scripted behaviours")


def check_oracle(oracle: DeepTraining, population: metagame.Population) -> None:
    """A StudyError naming what of the oracle's training file does not fit the population."""
    if oracle.game != population.game:
        raise StudyError(f"the oracle trains {oracle.game!r}, the population plays "
                         f"{population.game!r}")
    if oracle.parameters and oracle.parameters != population.parameters:
        raise StudyError(f"the oracle's [parameters] {oracle.parameters} differ from the "
                         f"population's {population.parameters}: leave them out (the "
                         "population's are used)")
    if oracle.coplayers:
        raise StudyError("the oracle's [coplayers]: PSRO sets them (the meta-strategy); leave "
                         "them out")
    reward = oracle.settings().reward
    if reward != "own":
        raise StudyError(f"the oracle's [ppo] reward={reward!r}: a best response maximises the "
                         "meta-game's payoff, each seat's own reward; set reward = \"own\"")


def response_training(oracle: DeepTraining, population: metagame.Population, meta,
                      name: str) -> DeepTraining:
    """The oracle's training of a best response to ``meta`` (shares over the population's
    strategies) in seat ``LEARNER``, co-players in every other seat (module docstring)."""
    support = [k for k, share in enumerate(meta) if share > 0]
    policies = [{"behaviour": population.strategies[k].behaviour}
                if population.strategies[k].policy is None else
                {"policy": population.strategies[k].policy,
                 **({} if population.strategies[k].seat is None
                    else {"seat": population.strategies[k].seat})} for k in support]
    n = population.players
    return replace(oracle, name=name, population=f"policy:{n}",
                   parameters=dict(population.parameters),
                   network={**oracle.network, "share": False}, evaluate={},
                   coplayers={"seats": [s for s in range(n) if s != LEARNER],
                              "policies": policies,
                              "weights": [float(meta[k]) for k in support],
                              "play": population.play})


def best_seed(folder: Path) -> int:
    """The training seed of the highest ``learner_return`` over the last tenth (at least
    one) of its updates in which episodes ended (its curves)."""
    curve = deep.curves(folder).dropna(subset=["learner_return"])
    if curve.empty:
        raise StudyError(f"{folder}: no episode ended while the response trained; give the "
                         "oracle more updates or [ppo] steps")
    last = curve.groupby("replicate")["learner_return"].apply(
        lambda returns: returns.iloc[-max(1, len(returns) // 10):].mean())
    return int(last.idxmax())


def run_psro(population: metagame.Population, oracle: DeepTraining, out="results",
             solver: str = "nash", iterations: int = 3, replicates: int = 10, seed: int = 0,
             backend: str = "local", workers=None, scheduler=None, progress: bool = True,
             **options) -> list[psro.Iteration]:
    """PSRO from ``population`` with the IPPO oracle ``oracle`` (module docstring); the
    ``options`` go to ``psro.meta_strategy``. Returns the iterations."""
    check_population(population)
    check_oracle(oracle, population)
    if type(replicates) is not int or replicates < 2:
        raise StudyError(f"replicates={replicates!r} must be an integer >= 2 (the payoffs' "
                         "standard errors)")
    folder = Path(out) / f"{population.name}-psro"
    strategies = list(population.strategies)
    done = []

    def grown(count: int) -> metagame.Population:
        return replace(population, name=f"{population.name}-{count - len(population.strategies)}",
                       strategies=tuple(strategies[:count]))

    def table(names):
        chosen = grown(len(names))
        study = metagame.metagame_study(chosen, "symmetric", folder, replicates, seed)
        report = run_study(study, folder, backend=backend, workers=workers,
                           scheduler=scheduler, progress=progress)
        if report.failed:
            raise StudyError(f"{len(report.failed)} runs failed (see {report.folder}/failed)")
        return metagame.payoff_table(chosen, report.folder)

    def respond(names, game, meta):
        k = len(names) - len(population.strategies)
        training = response_training(oracle, grown(len(names)), meta, f"response-{k}")
        trained = deep.train(training, folder, progress=progress).folder
        index = best_seed(trained)
        strategies[len(names):] = [metagame.Strategy(
            f"response{k}", policy=str(deep.policy_path(trained, index)), seat=LEARNER)]
        extended = table((*names, strategies[-1].name))
        x = np.append(meta, 0.0)

        def payoff(game, x):
            return expected_payoffs(game, x)[-1]

        return strategies[-1].name, payoff(extended, x), psro.standard_error(extended, x, payoff)

    def written(iteration):
        done.append(iteration)
        psro.write_report(done, folder / "psro.csv")

    found = psro.psro([s.name for s in strategies], table, respond, solver, iterations,
                      on_iteration=written, **options)
    psro.save_figure(found, folder)
    return found
