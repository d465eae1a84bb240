"""The stored baselines of every scenario: ``dilemmas baselines`` (docs/scenarios.md).

Per game, on the substrate of its catalogue and with every seat learning (Melting Pot's
protocol: trained on the substrate, tested on scenarios whose co-players they never met),
``[training]`` trains three learners, each with ``seeds`` training seeds:

* ``q_learning``: the tabular learner (``dilemmas.analysis.learning.training``), its
  ``episodes`` episodes;
* ``ippo``: IPPO (``dilemmas.learning.deep``) on each seat's own reward, ``updates`` updates;
* ``mappo``: MAPPO on the mean of the learning seats' rewards (``mean``).

Both deep learners train without value normalisation (``value_norm = false``), as the
stored baselines and bots were trained before it existed.

Every scenario is then played (``dilemmas.scenarios.scoring``) with its focal seats played by
``random``, by each of the game's scripted behaviours, and by each learner (its episodes
split over the training seeds' final policies); the Firefighting Graph's scenario without a
background also gets the exact optimum of the team's return
(``dilemmas.models.firefighting_graph.optimal``). The table, one row per scenario and
baseline (with the evaluation ``seed`` and a digest of the game's ``[training]`` table), is
written to ``<out>/baselines.csv`` and to ``baselines.csv`` in this package
(``BASELINES``), which ``dilemmas evaluate --scenario`` reads and the documentation's
leaderboard shows. The runs go to ``<out>/<baseline>/<slug>`` (default ``out``:
``results/scenarios``, where ``dilemmas evaluate`` puts its own), the trainings to
``<out>/trainings``.

A bot (``Catalogue.bots``) is trained the same way with its own ``algorithm`` and training
``seed`` (one seed, so never one of the baselines' policies) and copied to ``bots/`` once:
a scenario's id records the bot's file, so ``dilemmas baselines`` trains a bot only where
its file is missing.
"""

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from dilemmas import GAMES
from dilemmas.analysis.learning.training import Training, train as train_tabular
from dilemmas.analysis.studies.runner import check_backend
from dilemmas.learning import deep
from dilemmas.models.files import write_atomic
from dilemmas.models.learners import LEARNERS
from dilemmas.analysis.studies.study import canonical
from dilemmas.scenarios.catalogue import (HERE, Bot, ScenarioError, catalogues, check_versions,
                                          record_versions, scenarios)
from dilemmas.scenarios import scoring

BASELINES = HERE / "baselines.csv"
LEARNED = ("q_learning", "ippo", "mappo")
REWARDS = {"ippo": "own", "mappo": "mean"}


def seats(game: str) -> int:
    """The number of seats of the game's substrate."""
    return next(iter(catalogues()[game].scenarios)).seats


def scripted(game: str) -> list[str]:
    """The game's scripted behaviours: all but ``random``, ``policy`` and the learners."""
    return [name for name in GAMES[game].behaviours
            if name not in ("random", "policy", *LEARNERS)]


def trainings(game: str) -> dict:
    """The baselines' trainings of ``game`` (module docstring), by learner."""
    catalogue = catalogues()[game]
    setup, substrate = catalogue.training, dict(catalogue.substrate)
    common = dict(seeds=setup.get("seeds", 3), seed=setup.get("seed", 0),
                  parameters=substrate)
    found = {"q_learning": Training(game=game, name=f"{game}-q_learning",
                                    episodes=setup["episodes"],
                                    population=f"q_learning:{seats(game)}", **common)}
    for algorithm in ("ippo", "mappo"):
        found[algorithm] = _deep(game, algorithm, f"{game}-{algorithm}", **common)
    return found


def bot_training(bot: Bot) -> deep.DeepTraining:
    """The training of ``bot``: its algorithm on the substrate, one seed, its own."""
    catalogue = catalogues()[bot.game]
    return _deep(bot.game, bot.algorithm, f"{bot.game}-bot-{bot.name}", seeds=1,
                 seed=bot.seed, parameters=dict(catalogue.substrate))


def _deep(game, algorithm, name, **common) -> deep.DeepTraining:
    setup = catalogues()[game].training
    return deep.DeepTraining(
        name=name, game=game, algorithm=algorithm, population=f"policy:{seats(game)}",
        updates=setup["updates"], checkpoint_every=max(setup["updates"] // 4, 1),
        network=dict(setup.get("network", {})),
        ppo={**setup.get("ppo", {}), "reward": REWARDS[algorithm], "value_norm": False},
        **common)


def train_all(out: Path, progress=True) -> dict:
    """Train (or resume) every game's baselines into ``<out>/trainings`` and the missing
    bots into ``<out>/trainings/bots``; return ``{game: {learner: [final policy files]}}``."""
    policies = {}
    for game, catalogue in catalogues().items():
        for bot in catalogue.bots.values():
            if not bot.path.exists():
                training = bot_training(bot)
                deep.train(training, out / "trainings" / "bots", progress=progress)
                shutil.copyfile(deep.policy_path(out / "trainings" / "bots" / training.name, 0),
                                bot.path)
        policies[game] = {}
        for learner, training in trainings(game).items():
            if isinstance(training, Training):
                train_tabular(training, out / "trainings", progress=progress)
            else:
                deep.train(training, out / "trainings", progress=progress)
            folder = out / "trainings" / training.name
            policies[game][learner] = [str(training.finished_policy(folder, index))
                                       for index in range(training.seeds)]
    return policies


def compute(out="results/scenarios", seed: int = 0, progress=True, **runner) -> pd.DataFrame:
    """Train what is missing, play every scenario with every baseline into
    ``<out>/<baseline>/<slug>`` (resumable), and write the table to ``<out>/baselines.csv``
    and to the package's ``BASELINES``."""
    check_backend(**runner)  # before the trainings, which take long
    out = Path(out)
    changed = [problem for problem in check_versions() if "not recorded" not in problem]
    if changed:
        raise ScenarioError("; ".join(changed))
    policies = train_all(out, progress)
    record_versions()
    rows = []
    for scenario in scenarios().values():
        game = scenario.game
        plays = [("random", "random", ()), *[(name, name, ()) for name in scripted(game)],
                 *[(learner, "policy", policies[game][learner]) for learner in LEARNED]]
        for baseline, focal, files in plays:
            row = scoring.evaluate(scenario, focal, files, out, baseline, seed,
                                   progress=progress, **runner)
            rows.append({"baseline": baseline, "kind": _kind(baseline, game), **row})
        optimum = exact_optimum(scenario)
        if optimum is not None:
            rows.append({"scenario": scenario.id, "baseline": "optimum", "kind": "exact",
                         "n": 0, "focal_return": optimum, "focal_return_low": optimum,
                         "focal_return_high": optimum})
    table = pd.DataFrame(rows).assign(seed=seed, training=[
        training_digest(row["scenario"].partition("/")[0]) for row in rows])
    first = ["scenario", "baseline", "kind"]
    table = table[[*first, *[c for c in table.columns if c not in first]]]
    data = table.to_csv(index=False, float_format="%.10g").encode()
    write_atomic(out / "baselines.csv", data)
    try:
        write_atomic(BASELINES, data)
    except OSError as error:
        raise ScenarioError(f"the package's baseline table {str(BASELINES)!r} cannot be "
                            f"written ({error.strerror}); the table is in "
                            f"{str(out / 'baselines.csv')!r}") from None
    return table


def training_digest(game: str) -> str:
    """A digest of the ``[training]`` table of the game's catalogue, stored with its
    baselines, so that a changed training shows as stale baselines."""
    return hashlib.sha256(canonical(catalogues()[game].training).encode()).hexdigest()[:16]


def _kind(baseline: str, game: str) -> str:
    if baseline in LEARNED:
        return "tabular" if baseline == "q_learning" else "deep"
    return "random" if baseline == "random" else "scripted"


def exact_optimum(scenario) -> float | None:
    """The exact optimum of the focal per-capita return, where one is known: a Firefighting
    Graph scenario whose seats are all focal (the team's return, shared by every seat)."""
    if scenario.game != "firefighting_graph" or scenario.background:
        return None
    from dilemmas.models.firefighting_graph.optimal import optimal_value

    parameters = dict(scenario.parameters)
    return float(optimal_value("firefighting_graph", parameters.pop("max_steps"),
                               **parameters).value)


def stored() -> pd.DataFrame:
    """The shipped baseline table (empty, with its columns, where none is stored)."""
    if not BASELINES.exists():
        return pd.DataFrame(columns=["scenario", "baseline", "kind", "n", "focal_return"])
    return pd.read_csv(BASELINES)


def best_scripted(table: pd.DataFrame) -> pd.DataFrame:
    """Per scenario, the scripted baseline of the highest focal return."""
    scripted_rows = table[table["kind"] == "scripted"]
    return scripted_rows.loc[scripted_rows.groupby("scenario", sort=False)["focal_return"]
                             .idxmax()]


def leaderboard(table: pd.DataFrame | None = None) -> str:
    """The baseline table as Markdown, one section per game: per scenario, the focal return
    (95% interval) of ``random``, the best scripted behaviour, each learner and the optimum."""
    table = stored() if table is None else table
    lines = []
    for game, catalogue in catalogues().items():
        lines += [f"**{GAMES[game].title}**", "",
                  "| scenario | random | best scripted | q_learning | ippo | mappo | optimum |",
                  "|---|---|---|---|---|---|---|"]
        best = best_scripted(table).set_index("scenario")
        for scenario in catalogue.scenarios:
            here = table[table["scenario"] == scenario.id].set_index("baseline")
            cells = [f"`{scenario.id}`"]
            for baseline in ("random", "best", *LEARNED, "optimum"):
                row = best.loc[scenario.id] if baseline == "best" and scenario.id in best.index \
                    else here.loc[baseline] if baseline in here.index else None
                cells.append("" if row is None else _cell(row, baseline == "best"))
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def _cell(row, named: bool) -> str:
    mean, low, high = row["focal_return"], row["focal_return_low"], row["focal_return_high"]
    text = f"{mean:.4g}" if low == high or np.isnan(low) else \
        f"{mean:.4g} [{low:.4g}, {high:.4g}]"
    return f"{text} ({row['baseline']})" if named else text
