"""Scoring a policy on scenarios: ``dilemmas evaluate POLICY --scenario ID|GAME|all``
(docs/scenarios.md).

A scenario's evaluation is a study (``dilemmas.analysis.studies``) in
``<out>/<name>/<slug>`` (``<slug>-seed<s>`` for a seed other than 0): the scenario's
parameters fixed, the focal seats played by the behaviour or the policy file under test and
the background by the scenario's behaviours and bots, ``episodes`` replicates with agent
data. The runner plays it, so it resumes and runs on every backend. A learned baseline
trained with several seeds plays its episodes split evenly over its seeds' policy files
(swept).

The policy the ``policy`` seats play is first written to ``<out>/policies/<digest>.npz``,
named by the SHA-256 of its files' bytes and seats: a copy of the one file, or, when the
seats are played by more than one (a policy under test beside a bot), their seated policy
(``dilemmas.models.policies.SeatedPolicy``). The study names that copy, so its run seeds
(derived from its parameters) depend on ``seed``, the scenario, ``out`` and the policies'
contents -- not on the name, nor on where the package or the policy file lie -- and a
changed policy file is another study. The stored baselines were played into the default
``out`` (``results/scenarios``), so a behaviour evaluated there replays its baseline's very
runs.

``summarise`` reads an evaluation back: the number of episodes, the focal and the background
per-capita returns (per episode, the mean final reward of those seats; then the mean and the
95% interval over episodes), and each of the scenario's metrics (mean and interval, kept
inside the statistic's range).
"""

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from dilemmas import GAMES
from dilemmas.analysis.learning.evaluation import relative_path
from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study
from dilemmas.models.files import make_folder, write_atomic
from dilemmas.models.learners import LEARNERS
from dilemmas.models.policies import POLICY, save_policy, seated_policy
from dilemmas.scenarios.catalogue import Scenario, ScenarioError

CONFIDENCE = 0.95


def study(scenario: Scenario, focal: str, policies=(), out="results/scenarios",
          seed: int = 0) -> Study:
    """The evaluation of ``scenario`` with its focal seats played by the behaviour ``focal``,
    or, with ``focal = "policy"``, by each of the policy files ``policies`` in turn."""
    behaviours = GAMES[scenario.game].behaviours
    if focal == POLICY and not policies:
        raise ScenarioError("the focal seats of 'policy' need a policy file: give its path")
    if focal in LEARNERS:
        raise ScenarioError(f"{focal!r} is a learner, which would play untrained: give its "
                            "trained learner file (seed-<i>/learner.npz) instead")
    if focal not in behaviours:
        raise ScenarioError(f"{focal!r} is neither a policy file nor a behaviour of "
                            f"{scenario.game}; behaviours: "
                            f"{sorted(set(behaviours) - {'policy', *LEARNERS})}")
    seatings = [scenario.seating(focal, policy) for policy in policies or [None]]
    for population, parts in seatings:
        _check_fits(scenario, population, parts)
    files = [relative_path(_copy(parts, Path(out) / "policies"))
             for _, parts in seatings if parts]
    if len(set(files)) < len(files):
        raise ScenarioError(f"two of the policy files {[str(p) for p in policies]} hold the "
                            "same policy: give each once")
    fixed = {**scenario.parameters, "population": seatings[0][0]}
    sweep = {"policy": files} if len(files) > 1 else {}
    if len(files) == 1:
        fixed["policy"] = files[0]
    name = scenario.slug if seed == 0 else f"{scenario.slug}-seed{seed}"
    return Study(game=scenario.game, name=name, seed=seed, collect=("model", "agent"),
                 replicates=scenario.episodes // max(len(files), 1), fixed=fixed,
                 sweep=sweep)


def _check_fits(scenario: Scenario, population: str, parts) -> None:
    """A ScenarioError naming the policy files if they do not play the scenario's seats."""
    try:
        policy = seated_policy(parts) if len(parts) > 1 else \
            parts[0][0] if parts else None
        GAMES[scenario.game].model(**scenario.parameters, population=population,
                                   policy=str(policy) if isinstance(policy, Path) else policy,
                                   rng=0, collect_data=False)
    except (ValueError, OSError) as error:
        raise ScenarioError(f"{scenario.id}: {error}") from None


def _copy(parts, folder: Path) -> Path:
    """The policy of ``parts`` (``(policy file, seats)`` pairs) written into ``folder`` under
    its digest (module docstring)."""
    try:
        contents = [(Path(path).read_bytes(), seats) for path, seats in parts]
    except OSError as error:
        raise ScenarioError(f"the policy file {str(error.filename)!r} cannot be read: "
                            f"{error.strerror}") from None
    make_folder(folder)
    digest = hashlib.sha256()
    for data, seats in contents:
        digest.update(f"{hashlib.sha256(data).hexdigest()}:{seats};".encode())
    path = folder / f"{digest.hexdigest()[:20]}.npz"
    if not path.exists():
        if len(parts) == 1:
            write_atomic(path, contents[0][0])
        else:
            save_policy(path, seated_policy(parts))
    return path


def evaluate(scenario: Scenario, focal: str, policies=(), out="results/scenarios",
             name: str | None = None, seed: int = 0, **runner) -> dict:
    """Play the evaluation (``study``) into ``<out>/<name>`` (``name`` default: ``focal``)
    and return its ``summarise`` row; ``runner`` goes to ``run_study`` (backend, workers,
    scheduler, progress)."""
    evaluation = study(scenario, focal, policies, out, seed)
    report = run_study(evaluation, Path(out) / (name or focal), **runner)
    if report.failed:
        raise ScenarioError(f"{scenario.id}: {len(report.failed)} episodes failed; their "
                            f"errors are in {report.folder}")
    return summarise(report.folder, scenario)


def summarise(folder, scenario: Scenario) -> dict:
    """The episodes, returns and metrics of an evaluation (module docstring), one row."""
    agents = results.load(folder, "agent")
    last = agents[agents["Step"] == agents.groupby("run_id")["Step"].transform("max")]
    focal = (last["AgentID"] - 1) < scenario.focal
    per_run = pd.DataFrame({
        "focal_return": last[focal].groupby("run_id")["reward"].mean(),
        "background_return": last[~focal].groupby("run_id")["reward"].mean()})
    row = {"scenario": scenario.id, "n": len(per_run)}
    for column in ("focal_return", "background_return"):
        row.update(_interval(column, per_run[column].to_numpy()))
    statistics = results.episodes(folder)
    ranges = GAMES[scenario.game].ranges
    for metric in scenario.metrics:
        row.update(_interval(metric, statistics[metric].to_numpy(dtype=float),
                             ranges.get(metric, (None, None))))
    return row


def _interval(name, values, bounds=(None, None)) -> dict:
    found = results.mean_interval(values, CONFIDENCE, bounds)
    return {name: found["mean"], f"{name}_low": found["low"], f"{name}_high": found["high"]}


def standing(row: dict, baselines: pd.DataFrame) -> dict:
    """Where an evaluation's focal return stands among a scenario's ``baselines`` (rows of
    the baseline table): its rank (1 = best) among them and itself, the best baseline, and
    the normalised score ``(x - random) / (best - random)`` (0 = random, 1 = the best
    baseline)."""
    here = baselines[baselines["scenario"] == row["scenario"]]
    if here.empty:
        return {"rank": "", "best": "", "normalised": np.nan}
    values = here["focal_return"].to_numpy()
    best = here.loc[here["focal_return"].idxmax()]
    random = here.loc[here["baseline"] == "random", "focal_return"]
    spread = best["focal_return"] - random.iloc[0] if len(random) else np.nan
    normalised = (row["focal_return"] - random.iloc[0]) / spread \
        if len(random) and spread > 0 else np.nan
    return {"rank": f"{1 + int(np.sum(values > row['focal_return']))} of {len(values) + 1}",
            "best": f"{best['baseline']} {best['focal_return']:.4g}",
            "normalised": normalised}
