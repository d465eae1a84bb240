"""The run viewer's data (``dilemmas.dashboard.runs``): listing and opening the runs of a study folder
and Bucket Brigade replay files, rebuilding the world at any round, checking a rebuilt
episode against its stored rows, batch-engine runs replayed from their blocks, and a
one-line ``RunError`` for every bad input."""

import json
import shutil

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dilemmas.analysis.studies import manifest
from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study
from dilemmas.dashboard import runs
from dilemmas.dashboard.runs import RunError
from dilemmas.dashboard.viewer import in_order, matching
from dilemmas import GAMES
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.replay import save_replay, to_replay

BB = """\
game = "bucket_brigade"
seed = 4
replicates = 2
collect = ["model", "agent"]
engine = "model"

[fixed]
max_steps = 30
work_costs = [0.5, 0.5, 0.5, 1.0]

[sweep]
population = ["random", "firefighter:2,liar:2"]
"""

SP = """\
game = "state_punishment"
engine = "model"
seed = 9
replicates = 2

[fixed]
max_steps = 12

[sweep]
initial_punishment = [0.0, 0.5]
"""

FG_BATCH = """\
game = "firefighting_graph"
seed = 3
replicates = 3

[fixed]
max_steps = 10
population = "random"
"""


def write_study(root, name, text):
    """Run the study file ``text`` serially into ``root`` and return its folder."""
    path = root / f"{name}.toml"
    path.write_text(text)
    return run_study(Study.from_file(path), root / "out", backend="serial",
                     progress=False).folder


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("studies")
    return {name: write_study(root, name, text)
            for name, text in (("bb", BB), ("sp", SP), ("fg", FG_BATCH))}


def fresh_model(recording, steps):
    model = recording.game.model(**recording.parameters, rng=recording.seed)
    for _ in range(steps):
        model.step()
    return model


def model_rows(model):
    return model.datacollector.get_model_vars_dataframe()


# --- Listing and opening the runs of a study folder --------------------------------------

@pytest.mark.parametrize("name", ["bb", "sp"])
def test_list_runs_gives_every_stored_run_in_run_id_order_with_its_parameters(folders, name):
    folder = folders[name]
    study = Study.from_file(folder.parent.parent / f"{name}.toml")
    listed = runs.list_runs(folder)
    expected = {run.run_id: run for run in study.runs()}
    assert [entry["run_id"] for entry in listed] == sorted(expected)
    assert set(results.load(folder)["run_id"]) == set(expected)
    for entry in listed:
        run = expected[entry["run_id"]]
        swept = ", ".join(f"{k}={run.parameters[k]}" for k in study.sweep)
        assert entry == {"run_id": run.run_id, "replicate": run.replicate, "seed": run.seed,
                         "engine": "model", **run.parameters,
                         "name": f"{swept} · replicate {run.replicate} · seed {run.seed}"}
    if name == "bb":  # a list parameter as the model takes it, not its JSON text
        assert listed[0]["work_costs"] == [0.5, 0.5, 0.5, 1.0]


@pytest.mark.parametrize("name", ["bb", "sp"])
def test_an_opened_run_holds_its_rows_and_verifies_identical(folders, name):
    folder = folders[name]
    stored = results.load(folder)
    for entry in runs.list_runs(folder):
        recording = runs.open_run(folder, entry["run_id"])
        assert recording.game is GAMES[results.definition(folder)["game"]]
        assert (recording.run_id, recording.seed, recording.engine, recording.refusal) \
            == (entry["run_id"], entry["seed"], "model", None)
        assert recording.parameters == {k: v for k, v in entry.items() if k not in
                                         ("run_id", "replicate", "seed", "engine", "name")}
        assert recording.name == entry["name"]
        own = stored[stored["run_id"] == entry["run_id"]].reset_index(drop=True)
        pd.testing.assert_frame_equal(recording.rows, own)
        assert recording.rounds == own["Step"].iloc[-1] == len(own) - 1
        assert (recording.agent_rows is None) == (name == "sp")
        assert recording.source == str(folder)
        verdict = runs.verify(recording)
        assert verdict.identical, verdict.message
        agents = "" if name == "sp" else f" and {len(recording.agent_rows)} stored agent rows"
        assert verdict.message == f"identical to its {len(own)} stored rows{agents}"


def test_model_at_is_a_fresh_model_stepped_that_far_forwards_and_backwards(folders):
    recording = runs.open_run(folders["bb"], runs.list_runs(folders["bb"])[-1]["run_id"])
    last = recording.rounds
    previous = None
    for k in [0, 2, 3, last, 1, np.int64(last // 2), last]:
        model = runs.model_at(recording, k, previous)
        if previous is not None:  # forward reuses the model, backwards rebuilds it
            assert (model is previous) == (previous.steps <= k)
        assert model.steps == k
        pd.testing.assert_frame_equal(model_rows(model), model_rows(fresh_model(recording, k)))
        assert model.houses.tolist() == fresh_model(recording, k).houses.tolist()
        assert model_rows(model).iloc[-1]["safe"] == recording.rows["safe"].iloc[k]
        previous = model
    other = runs.open_run(folders["bb"], runs.list_runs(folders["bb"])[0]["run_id"])
    start = runs.model_at(recording, 0)
    moved = runs.model_at(other, 1, start)  # another episode's model: rebuilt, not stepped on
    assert moved is not start
    pd.testing.assert_frame_equal(model_rows(moved), model_rows(fresh_model(other, 1)))
    for wrong in (-1, last + 1, 1.0, "2"):
        with pytest.raises(RunError, match="is not a round of .*: it has rounds 0 to"):
            runs.model_at(recording, wrong)


def test_model_at_in_state_punishment_reaches_its_stored_last_row(folders):
    recording = runs.open_run(folders["sp"], runs.list_runs(folders["sp"])[0]["run_id"])
    model = runs.model_at(recording, 5)
    model = runs.model_at(recording, recording.rounds, model)
    pd.testing.assert_frame_equal(
        model_rows(model).reset_index(drop=True),
        recording.rows[list(model_rows(model).columns)], check_dtype=False)


# --- Rows that differ -----------------------------------------------------------------

def tamper(folder, run_id, level, column, step, value):
    """Rewrite one value of ``run_id``'s rows in its ``level`` file, and the file's checksum
    in the manifest (so the file counts as intact)."""
    entry = next(e for e in manifest.entries(folder) if run_id in e["runs"])
    name = next(n for n in entry["files"] if n.endswith(f".{level}.parquet"))
    path = folder / "runs" / name
    frame = pq.read_table(path).to_pandas()
    where = (frame["run_id"] == run_id) & (frame["Step"] == step)
    frame.loc[where.idxmax() if level == "agent" else where, column] = value
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    text = (folder / manifest.NAME).read_text().replace(entry["files"][name],
                                                        manifest.digest(path.read_bytes()))
    (folder / manifest.NAME).write_text(text)
    return path


def test_a_changed_stored_value_is_named_by_column_and_step(folders, tmp_path):
    folder = shutil.copytree(folders["bb"], tmp_path / "bb")
    run_id = runs.list_runs(folder)[1]["run_id"]
    tamper(folder, run_id, "model", "safe", 4, 0)
    verdict = runs.verify(runs.open_run(folder, run_id))
    assert not verdict.identical
    assert "column 'safe' differs at step 4: stored 0, rebuilt" in verdict.message
    assert "\n" not in verdict.message

    other = runs.list_runs(folder)[2]["run_id"]
    tamper(folder, other, "agent", "reward", 3, 1234.5)
    verdict = runs.verify(runs.open_run(folder, other))
    assert not verdict.identical
    assert "agent column 'reward' differs at step 3, agent 1: stored 1234.5" in verdict.message


def test_a_changed_loaded_row_is_named_too(folders):
    recording = runs.open_run(folders["sp"], runs.list_runs(folders["sp"])[0]["run_id"])
    recording.rows.loc[7, "punishment_level"] = float("nan")
    verdict = runs.verify(recording)
    assert not verdict.identical
    assert "column 'punishment_level' differs at step 7: stored nan" in verdict.message
    recording.rows = recording.rows.drop(index=recording.rounds)
    assert "the rebuilt episode has" in runs.verify(recording).message


def test_a_file_that_no_longer_matches_its_checksum_is_refused(folders, tmp_path):
    folder = shutil.copytree(folders["bb"], tmp_path / "bb")
    run_id = runs.list_runs(folder)[0]["run_id"]
    path = tamper(folder, run_id, "model", "safe", 1, 0)
    path.write_bytes(path.read_bytes()[:-20])  # cut short after its checksum was recorded
    with pytest.raises(RunError, match=f"{path}.*checksum"):
        runs.open_run(folder, run_id)


def test_a_folder_from_before_manifests_lists_and_opens_its_runs(folders, tmp_path):
    folder = shutil.copytree(folders["sp"], tmp_path / "sp")
    (folder / manifest.NAME).unlink()
    listed = runs.list_runs(folder)
    assert listed == runs.list_runs(folders["sp"])
    assert runs.verify(runs.open_run(folder, listed[0]["run_id"])).identical


# --- Batch-engine runs ------------------------------------------------------------------

def test_a_batch_engine_run_is_replayed_from_its_block_as_a_world(folders):
    listed = runs.list_runs(folders["fg"])
    assert len(listed) == 3 and {entry["engine"] for entry in listed} == {"batch"}
    recording = runs.open_run(folders["fg"], listed[0]["run_id"])
    assert recording.engine == "batch" and recording.rounds == 10
    assert recording.parameters == {"max_steps": 10, "population": "random"}
    assert recording.refusal is None
    assert recording.block.seeds == tuple(entry["seed"] for entry in
                                          sorted(listed, key=lambda e: e["replicate"]))
    assert recording.block.episode == recording.replicate
    verdict = runs.verify(recording)
    assert verdict == (True, "identical to its 11 stored rows")
    stored = recording.rows
    for round_ in (0, 4, 10, 2):
        model = runs.model_at(recording, round_)
        assert model.t == round_ == stored["step"].iloc[round_]
        assert model.mean_fire == stored["mean_fire"].iloc[round_]
    with pytest.raises(RunError, match="has rounds 0 to 10"):
        runs.model_at(recording, 11)


# --- Bad input ----------------------------------------------------------------------------

def test_bad_folders_and_run_ids_raise_one_line_naming_them(folders, tmp_path):
    cases = [
        (tmp_path / "nowhere", "x", "nowhere: no such folder"),
        (tmp_path, "x", "is not a study folder: it has no study.json"),
        (folders["bb"], "0123456789abcdef", "no stored run has the id '0123456789abcdef'"),
        (folders["bb"], None, "no stored run has the id None"),
    ]
    for folder, run_id, message in cases:
        with pytest.raises(RunError, match=message) as raised:
            runs.open_run(folder, run_id)
        assert "\n" not in str(raised.value)
    with pytest.raises(RunError, match="no such folder"):
        runs.list_runs(tmp_path / "nowhere")

    damaged = shutil.copytree(folders["sp"], tmp_path / "damaged")
    (damaged / "study.json").write_text('{"game": "state_punishment", "seed": 9,')
    with pytest.raises(RunError, match="study.json is not valid JSON"):
        runs.list_runs(damaged)
    (damaged / "study.json").write_text(json.dumps({"game": "chess", "seed": 1}))
    with pytest.raises(RunError, match="the field 'replicates' is missing"):
        runs.list_runs(damaged)
    definition = json.loads((folders["sp"] / "study.json").read_text())
    (damaged / "study.json").write_text(json.dumps({**definition, "game": "chess"}))
    with pytest.raises(RunError, match="game='chess' is not a game"):
        runs.open_run(damaged, runs.list_runs(folders["sp"])[0]["run_id"])


def test_a_failed_run_says_it_failed(folders, tmp_path):
    folder = shutil.copytree(folders["sp"], tmp_path / "sp")
    (folder / "failed" / "00000000000000ff.json").write_text(
        json.dumps({"run_id": "00000000000000ff", "error": "ValueError: boom"}))
    with pytest.raises(RunError, match="failed when the study ran \\(ValueError: boom\\)"):
        runs.open_run(folder, "00000000000000ff")


# --- Bucket Brigade replay files ----------------------------------------------------------

@pytest.fixture
def episode(tmp_path):
    model = BucketBrigadeModel(population="firefighter:2,liar,random", scenario="hard", rng=8)
    model.run_model()
    return save_replay(model, tmp_path / "episode.json"), model


def test_a_replay_opens_verifies_and_scrubs(episode):
    path, model = episode
    recording = runs.open_replay(path)
    assert (recording.seed, recording.rounds, recording.source) == (8, model.night, str(path))
    assert recording.engine == "model" and recording.agent_rows is None
    # every model column, computed from the recorded nights as the model computes it
    pd.testing.assert_frame_equal(
        recording.rows.set_index("Step"), model_rows(model).rename_axis("Step"),
        check_dtype=False, check_index_type=False)
    verdict = runs.verify(recording)
    assert verdict == (True, f"identical to its {model.night} recorded nights")
    nights = to_replay(model)["nights"]
    previous = None
    for k in [0, 3, model.night, 2]:
        previous = runs.model_at(recording, k, previous)
        expected = nights[k - 1]["houses"] if k else list(model.initial_houses)
        assert previous.houses.tolist() == expected and previous.night == k


def test_a_replay_that_plays_otherwise_names_the_night(episode):
    path, _ = episode
    data = json.loads(path.read_text())
    data["nights"][2]["rewards"][0] += 1.0
    path.write_text(json.dumps(data))
    verdict = runs.verify(runs.open_replay(path))
    assert not verdict.identical and "night 3: rewards recorded" in verdict.message


def test_a_replay_of_other_rules_is_shown_but_not_played(episode):
    path, _ = episode
    data = json.loads(path.read_text())
    data["rules_version"] = 1
    path.write_text(json.dumps(data))
    recording = runs.open_replay(path)
    verdict = runs.verify(recording)
    assert not verdict.identical and "recorded under version 1" in verdict.message
    with pytest.raises(RunError, match="recorded under version 1"):
        runs.model_at(recording, 1)
    assert recording.rows["safe"].tolist()[1:] == [n["houses"].count(0) for n in data["nights"]]


@pytest.mark.parametrize("content, message", [
    ("{not json", "not a JSON replay"),
    ('{"format": "something else"}', "format"),
    (None, "no such file"),
])
def test_a_corrupted_replay_raises_a_run_error(episode, content, message):
    path, _ = episode
    if content is None:
        path.unlink()
    else:
        path.write_text(content)
    with pytest.raises(RunError, match=message) as raised:
        runs.open_replay(path)
    assert str(path) in str(raised.value) and "\n" not in str(raised.value)


# --- Runs of a sampled design -----------------------------------------------------------------

LHS = """\
game = "firefighting_graph"
seed = 5
replicates = 2
engine = "{engine}"

[fixed]
max_steps = 8
population = "random"

[design]
kind = "lhs"
samples = 3

[design.parameters]
p_ignite = [0.1, 0.5]
n_agents = {{low = 2, high = 6}}
"""


@pytest.mark.parametrize("engine", ["model", "auto"])
def test_the_runs_of_a_sampled_design_are_listed_by_their_values_and_verify(tmp_path, engine):
    folder = write_study(tmp_path, f"lhs_{engine}", LHS.format(engine=engine))
    stored = results.load(folder)
    listed = runs.list_runs(folder)
    assert len(listed) == len(stored["run_id"].unique()) == 6
    for entry in listed:
        row = stored[stored["run_id"] == entry["run_id"]].iloc[0]
        assert entry["name"] == (f"p_ignite={row['p_ignite']}, n_agents={row['n_agents']} · "
                                 f"replicate {entry['replicate']} · seed {entry['seed']}")
        recording = runs.open_run(folder, entry["run_id"])
        assert recording.name == entry["name"]
        assert runs.verify(recording).message.startswith("identical to its ")


def entry(replicate, seed, **swept):
    return {"run_id": f"r{replicate}-{seed}", "replicate": replicate, "seed": seed,
            "engine": "model", **swept, "name": runs.run_name(swept, replicate, seed)}


def test_runs_are_listed_by_swept_values_as_numbers_then_replicate_and_seed():
    entries = [entry(r, s, num_agents=n, scenario=c) for n in (10, 2) for c in ("hard", "easy")
               for r, s in ((10, 5), (2, 99), (0, 7))]
    ordered = [(e["num_agents"], e["scenario"], e["replicate"]) for e in in_order(entries)]
    assert ordered == [(n, c, r) for n in (2, 10) for c in ("easy", "hard") for r in (0, 2, 10)]
    rates = [entry(0, 1, beta=b) for b in (0.1, 0.05, 1e-3, -0.5, 0.25)]
    assert [e["beta"] for e in in_order(rates)] == [-0.5, 1e-3, 0.05, 0.1, 0.25]


def test_a_filter_keeps_the_runs_whose_values_it_names():
    entries = [entry(r, 10 + r, beta=b, scenario=c, work_costs=[0.5, 1.0])
               for b in (0.1, 0.25) for c in ("hard", "easy") for r in range(3)]
    assert matching(entries, "") == entries
    kept = matching(entries, "beta=0.25 scenario=hard")
    assert [(e["beta"], e["scenario"]) for e in kept] == [(0.25, "hard")] * 3
    assert [e["replicate"] for e in matching(entries, "beta=0.1 replicate=2")] == [2, 2]
    assert [e["seed"] for e in matching(entries, "seed=11")] == [11] * 4
    assert matching(entries, "work_costs=[0.5, 1.0]".replace(" ", "")) == entries
    assert matching(entries, "beta=0.3") == []
    assert len(matching(entries, "EASY")) == 6  # a word: in the run's name, any case
    with pytest.raises(ValueError, match="no parameter 'colour'"):
        matching(entries, "colour=blue")
