"""Batch-engine runs replayed as worlds (``BatchEngine.replay``, ``BatchEngine.world``, each
game's ``load``; ``dilemmas.dashboard.runs``): for a small batch study of each game, every run
verifies identical to its stored rows, the world at every round reports its stored row and
draws; a compiled block (>= ``COMPILED_FROM`` episodes) replays to its rows at 32-bit
precision; replaying changes none of the rows the engine records."""

import math

import numpy as np
import pytest

from dilemmas import GAMES
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study
from dilemmas.dashboard import runs
from dilemmas.dashboard.runs import RunError
from dilemmas.models.batch import COMPILED_FROM
from dilemmas.models.phases import _columns

STUDIES = {
    "bucket_brigade": """\
game = "bucket_brigade"
seed = 11
replicates = 3
collect = ["model", "agent"]

[fixed]
max_steps = 12
population = "random"

[sweep]
num_agents = [4, 5]
""",
    "firefighting_graph": """\
game = "firefighting_graph"
seed = 12
replicates = 3
collect = ["model", "agent"]

[fixed]
max_steps = 8
population = "random"
""",
    "state_punishment": """\
game = "state_punishment"
seed = 13
replicates = 3
collect = ["model", "agent"]

[fixed]
max_steps = 8
population = "random"
initial_punishment = 0.2
""",
    "stag_hunt": """\
game = "stag_hunt"
seed = 14
replicates = 3
collect = ["model", "agent"]

[fixed]
max_steps = 8
height = 7
width = 7
population = "random"
""",
}


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    root = tmp_path_factory.mktemp("batch_studies")
    folders = {}
    for name, text in STUDIES.items():
        (root / f"{name}.toml").write_text(text)
        folders[name] = run_study(Study.from_file(root / f"{name}.toml"), root / "out",
                                  backend="serial", progress=False).folder
    return folders


def same(a, b) -> bool:
    missing = [v is None or (isinstance(v, float) and math.isnan(v)) for v in (a, b)]
    return all(missing) if any(missing) else a == b


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_every_batch_run_replays_identical_as_a_world_at_every_round(studies, name):
    listed = runs.list_runs(studies[name])
    assert len(listed) >= 3 and {entry["engine"] for entry in listed} == {"batch"}
    game = GAMES[name]
    for entry in listed:
        recording = runs.open_run(studies[name], entry["run_id"])
        assert recording.refusal is None and recording.block is not None
        verdict = runs.verify(recording)
        assert verdict.identical, verdict.message
        assert verdict.message == (f"identical to its {len(recording.rows)} stored rows and "
                                   f"{len(recording.agent_rows)} stored agent rows")
        model = None
        for round_ in range(recording.rounds + 1):
            model = runs.model_at(recording, round_, model)
            stored = recording.rows.iloc[round_]
            for column, attribute in _columns(model.model_reporters).items():
                assert same(getattr(model, attribute), stored[column]), (column, round_)
            assert game.view.status(model)
            assert game.view.scene(model) is not None
            game.view.key(model)
        assert not model.running  # the last round ends the episode
        back = runs.model_at(recording, 1, model)  # backwards: loaded afresh
        assert back is not model and back.steps == 1


def test_model_at_refuses_a_round_the_run_does_not_have(studies):
    recording = runs.open_run(studies["firefighting_graph"],
                              runs.list_runs(studies["firefighting_graph"])[0]["run_id"])
    with pytest.raises(RunError, match="has rounds 0 to"):
        runs.model_at(recording, recording.rounds + 1)


def test_a_batch_run_of_another_rules_version_is_still_refused(studies):
    recording = runs.open_run(studies["firefighting_graph"],
                              runs.list_runs(studies["firefighting_graph"])[0]["run_id"])
    game = recording.game
    refusal = runs._refusal(recording.run_id, game, "batch", game.rules_version - 1)
    assert "cannot be replayed as a world" in refusal
    assert runs._refusal(recording.run_id, game, "batch", game.rules_version) is None


@pytest.mark.parametrize("episodes", [7, COMPILED_FROM])
def test_replaying_changes_none_of_the_rows_the_engine_records(episodes):
    parameters = dict(max_steps=3, population="random", n_agents=3)
    game = GAMES["firefighting_graph"]
    before = game.batch(episodes, np.random.default_rng([5, 6]), agents=True,
                        **parameters).run()
    game.batch(episodes, np.random.default_rng([5, 6]), agents=True,
               **parameters).replay(episodes - 1)
    after = game.batch(episodes, np.random.default_rng([5, 6]), agents=True,
                       **parameters).run()
    for part in ("model", "agent"):
        for column, values in getattr(before, part).items():
            np.testing.assert_array_equal(getattr(after, part)[column], values)


@pytest.mark.parametrize("name", ["firefighting_graph", "bucket_brigade"])
def test_a_compiled_block_replays_to_its_rows_at_32_bit_precision(name):
    """A block of ``COMPILED_FROM`` episodes plays compiled by JAX: its replay's states load
    into worlds whose reporters are its rows (integers exactly, floats to float32)."""
    parameters = dict(max_steps=3, population="random")
    game = GAMES[name]
    rows = game.batch(COMPILED_FROM, np.random.default_rng([7]), **parameters).run()
    for episode in (0, 517, COMPILED_FROM - 1):
        engine = game.batch(COMPILED_FROM, np.random.default_rng([7]), **parameters)
        states = engine.replay(episode)
        model = engine.world(states, len(states) - 1)
        mine = rows.episode == episode
        assert len(states) == mine.sum()
        for column, values in model.datacollector.model_vars.items():
            stored = rows.model[column][mine]
            assert len(values) == len(stored)
            for value, kept in zip(values, stored.tolist()):
                assert runs._close(value, kept), (column, value, kept)
                if not isinstance(kept, float):
                    assert value == kept


def test_a_run_of_a_compiled_block_is_replayed_and_says_its_floats_are_32_bit(tmp_path):
    """A study of ``COMPILED_FROM`` replicates: its block plays compiled, and a run of it
    opens as a world whose rows match the stored ones (floats to 32-bit precision)."""
    path = tmp_path / "fg.toml"
    path.write_text(f'game = "firefighting_graph"\nseed = 21\nreplicates = {COMPILED_FROM}\n'
                    '\n[fixed]\nmax_steps = 2\npopulation = "random"\n')
    folder = run_study(Study.from_file(path), tmp_path / "out", backend="serial",
                       progress=False).folder
    listed = runs.list_runs(folder)
    entry = next(e for e in listed if e["replicate"] == COMPILED_FROM - 3)
    recording = runs.open_run(folder, entry["run_id"])
    assert recording.refusal is None and len(recording.block.seeds) == COMPILED_FROM
    verdict = runs.verify(recording)
    assert verdict.identical, verdict.message
    assert verdict.message == (f"matches its {len(recording.rows)} stored rows: integers "
                               "exactly, floats to the 32-bit precision its block was played "
                               "in (compiled by JAX)")
    model = runs.model_at(recording, recording.rounds)
    assert model.t == recording.rows["step"].iloc[-1]
    assert model.total_fire == recording.rows["total_fire"].iloc[-1]


def test_a_replayed_world_cannot_play_on():
    engine = GAMES["firefighting_graph"].batch(3, np.random.default_rng(2), max_steps=4,
                                               population="random")
    model = engine.world(engine.replay(1), 2)
    with pytest.raises(RuntimeError, match="cannot play on"):
        model.step()
