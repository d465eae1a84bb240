"""The four games, each registered once (docs/rules/README.md, rule 1).

A registration reaches everything a game contributes -- its Mesa model and parameters,
behaviours, episode statistics, figures, dashboard view, environment interface and batch
engine -- by ``"module:name"``, imported on first use (``dilemmas.registry``): registering
the four games imports only their rules modules, not Mesa, so ``dilemmas --help`` and
``dilemmas games`` start quickly. This module
sits above every layer: the model code below it imports none of the behaviours, analysis or
dashboard modules that a registration names.
"""

from pathlib import Path

from dilemmas.models.bucket_brigade import rules as bucket_brigade
from dilemmas.models.firefighting_graph import rules as firefighting_graph
from dilemmas.models.stag_hunt import rules as stag_hunt
from dilemmas.models.state_punishment import rules as state_punishment
from dilemmas.registry import Benchmark, Game, register

PACKAGE = Path(__file__).resolve().parent


def contributions(name: str) -> dict:
    """The ``"module:name"`` references of what game ``name`` contributes, by the package's
    layout: behaviours in ``dilemmas.agents.<name>``, statistics, figures and the world's
    colours in ``dilemmas.analysis.<name>``, the dashboard view in
    ``dilemmas.dashboard.<name>``, the environment interface in
    ``dilemmas.models.<name>.env``, and the example study and training files and the rules
    shipped as package data."""
    return dict(behaviours=f"dilemmas.agents.{name}:BEHAVIOURS",
                statistics=f"dilemmas.analysis.{name}:statistics",
                ranges=f"dilemmas.analysis.{name}:RANGES",
                figures=f"dilemmas.analysis.{name}:FIGURES",
                world_colours=f"dilemmas.analysis.{name}:WORLD_COLOURS",
                view=f"dilemmas.dashboard.{name}:VIEW",
                interface=f"dilemmas.models.{name}.env:INTERFACE",
                study=PACKAGE / "examples" / "studies" / f"{name}.toml",
                training=PACKAGE / "examples" / "training" / f"{name}.toml",
                rules=PACKAGE / "rules" / f"{name}.md",
                parameters=f"dilemmas.models.{name}.rules:PARAMETERS")


register(Game(
    name="bucket_brigade", title="Bucket Brigade", round="night",
    model="dilemmas.models.bucket_brigade.model:BucketBrigadeModel",
    batch="dilemmas.models.bucket_brigade.batch:BucketBrigadeBatch",
    rules_version=bucket_brigade.RULES_VERSION, model_versions=bucket_brigade.MODEL_VERSIONS,
    benchmarks=[Benchmark(f"{n} agents", {"num_agents": n}) for n in (4, 10)],
    dilemma=("firefighter", "free_rider"), team_reward="team_reward",
    **contributions("bucket_brigade")))

register(Game(
    name="state_punishment", title="State Punishment",
    model="dilemmas.models.state_punishment.model:StatePunishmentModel",
    round="turn", rules_version=state_punishment.RULES_VERSION,
    batch="dilemmas.models.state_punishment.batch:StatePunishmentBatch",
    benchmarks=[Benchmark("random"), Benchmark("observing every action", observe=True)],
    dilemma=("civic_voter", "greedy_forager"),
    **contributions("state_punishment")))

register(Game(
    name="stag_hunt", title="Stag Hunt Physical", round="turn",
    model="dilemmas.models.stag_hunt.model:StagHuntModel",
    rules_version=stag_hunt.RULES_VERSION,
    batch="dilemmas.models.stag_hunt.batch:StagHuntBatch",
    benchmarks=[Benchmark("random"), Benchmark("observing every action", observe=True)],
    dilemma=("cooperator", "hare_hunter"),
    **contributions("stag_hunt")))

register(Game(
    name="firefighting_graph", title="Firefighting Graph",
    model="dilemmas.models.firefighting_graph.model:FirefightingGraphModel",
    round="step",
    batch="dilemmas.models.firefighting_graph.batch:FirefightingGraphBatch",
    rules_version=firefighting_graph.RULES_VERSION,
    model_versions=firefighting_graph.MODEL_VERSIONS,
    benchmarks=[Benchmark("row, 10 firefighters"),
                Benchmark("grid 5 x 5", {"layout": "grid"}),
                Benchmark("grid 50 x 50", {"layout": "grid", "n_width": 50, "n_height": 50})],
    dilemma=("random", "belief_tracker"),
    **contributions("firefighting_graph")))
