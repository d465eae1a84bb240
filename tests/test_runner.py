"""The study runner (``dilemmas.analysis.studies.runner.run_study``) and the results helpers: resume after a
kill, partial files, failure isolation, determinism across backends, workers and batch sizes,
derived seeds, refusing a different study, bad study files, and the confidence intervals of
``results.aggregate``."""

import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

import dilemmas.agents.bucket_brigade
from dilemmas.agents.bucket_brigade import RandomAgent
from dilemmas.analysis.studies import manifest
from dilemmas.analysis.studies import results
from dilemmas.cli.main import main
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study, StudyError

ROOT = Path(__file__).resolve().parents[1]
KEYS = ["run_id", "Step"]


def small(name="bb", seed=5, replicates=3, collect=("model",), engine="auto", **sweep):
    """A quick Bucket Brigade study (a run takes a few milliseconds). ``engine="model"``
    plays it on the Mesa model, a batch of ``batch_size`` runs per file, which the tests of
    batches, partial files and failing runs are about; with ``"auto"`` a study whose
    behaviours can all decide on arrays is played by the batch engine in blocks
    (tests/test_runner_batch.py)."""
    sweep = sweep or {"population": ["random", "firefighter:2,liar:2"], "beta": [0.1, 0.3]}
    return Study(game="bucket_brigade", name=name, seed=seed, replicates=replicates,
                 collect=collect, sweep=sweep, engine=engine)


def snapshot(folder):
    """Every file under ``folder``: relative path -> bytes."""
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def temporary_files(folder):
    return sorted(Path(folder).rglob(".*.tmp"))


# --- Resume after a kill --------------------------------------------------------------

SLOW = """\
game = "state_punishment"
engine = "model"
seed = 11
replicates = 6
collect = ["model", "agent"]

[fixed]
max_steps = 200

[sweep]
population = ["random", "civic_voter"]
initial_punishment = [0.0, 0.5]
"""


def test_a_killed_study_resumes_to_the_rows_of_an_uninterrupted_run(tmp_path):
    study_file = tmp_path / "slow.toml"
    study_file.write_text(SLOW)
    total = len(Study.from_file(study_file).runs())
    command = [sys.executable, "-m", "dilemmas", "run", str(study_file),
               "--out", str(tmp_path / "killed"), "--workers", "1", "--batch-size", "1",
               "--no-progress"]
    runs = tmp_path / "killed" / "slow" / "runs"
    process = subprocess.Popen(command, cwd=ROOT, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while len(list(runs.glob("*.model.parquet"))) < 3:
            assert process.poll() is None, process.stderr.read().decode()
            assert time.monotonic() < deadline, "no run written in 60 s"
            time.sleep(0.005)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)   # the command and its pool worker
        process.wait()
    # the runs recorded in the manifest with their files intact (a file written but not yet
    # recorded when the kill came is not done: it is removed and its run played again)
    done = len(manifest.verify(tmp_path / "killed" / "slow"))
    assert 2 <= done < total

    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert (f"slow: {total} runs, {done} done before, {total - done} played now, 0 failed"
            in again.stdout)
    assert temporary_files(tmp_path / "killed") == []

    whole = run_study(Study.from_file(study_file), tmp_path / "whole", workers=2,
                      progress=False)
    assert (whole.played, whole.failed) == (total, [])
    killed = results.load(tmp_path / "killed" / "slow")
    assert not killed.duplicated(KEYS).any() and killed["run_id"].nunique() == total
    pd.testing.assert_frame_equal(killed, results.load(whole.folder))
    pd.testing.assert_frame_equal(results.load(tmp_path / "killed" / "slow", "agent"),
                                  results.load(whole.folder, "agent"))


# --- Partial files never count ----------------------------------------------------------

def test_temporary_files_never_count_and_are_removed(tmp_path):
    study = small(engine="model")
    first = run_study(study, tmp_path, backend="serial", batch_size=2, progress=False)
    assert (first.total, first.already_done, first.played) == (12, 0, 12)
    before = results.load(first.folder)

    runs = first.folder / "runs"
    stray = runs / ".0123456789abcdef.model.parquet.x1y2z3.tmp"
    stray.write_bytes(b"not parquet at all")
    # A model file cut short while it was written: its runs are not done.
    victim = sorted(runs.glob("*.model.parquet"))[0]
    lost = set(pd.read_parquet(victim)["run_id"])
    truncated = runs / f".{victim.name}.a1b2c3.tmp"
    truncated.write_bytes(victim.read_bytes()[:200])
    victim.unlink()
    failed_tmp = first.folder / "failed" / ".abc.json.q9.tmp"
    failed_tmp.write_text('{"run_id": ')

    second = run_study(study, tmp_path, backend="serial", batch_size=2, progress=False)
    assert (second.already_done, second.played, second.failed) == (12 - len(lost), len(lost), [])
    assert len(lost) == 2
    assert temporary_files(first.folder) == []
    pd.testing.assert_frame_equal(results.load(first.folder), before)

    third = run_study(study, tmp_path, backend="serial", progress=False)
    assert (third.already_done, third.played) == (12, 0)
    pd.testing.assert_frame_equal(results.load(first.folder), before)


def test_a_stale_temporary_study_definition_is_removed(tmp_path):
    # A kill while study.json is written leaves .study.json.<random>.tmp in the study folder.
    study = small()
    folder = run_study(study, tmp_path, backend="serial", progress=False).folder
    stale = folder / ".study.json.k3j4h5.tmp"
    stale.write_text('{"game": "bucket')
    assert run_study(study, tmp_path, backend="serial", progress=False).played == 0
    assert temporary_files(folder) == []


def test_agent_rows_of_a_batch_killed_between_its_two_files_are_not_counted_twice(tmp_path):
    # A batch writes its agent file, then its model file. A kill between the two leaves an
    # agent file whose runs are not done; the resumed study plays them again in other batches.
    study = small(collect=("model", "agent"), engine="model")
    first = run_study(study, tmp_path, backend="serial", batch_size=3, progress=False)
    whole = results.load(first.folder, "agent")
    sorted(first.folder.glob("runs/*.model.parquet"))[0].unlink()   # the state after such a kill

    second = run_study(study, tmp_path, backend="serial", batch_size=1, progress=False)
    assert (second.already_done, second.played) == (9, 3)
    agent_rows = results.load(first.folder, "agent")
    assert not agent_rows.duplicated(["run_id", "Step", "AgentID"]).any()
    pd.testing.assert_frame_equal(agent_rows, whole)


@pytest.mark.parametrize("damage", [b"", b"PAR1 cut short by a crash"])
def test_a_run_file_a_crash_left_unreadable_is_removed_and_its_runs_played_again(tmp_path,
                                                                                   damage):
    # Run files are renamed into place without fsync; after a crash of the machine one may
    # be empty or cut short. Resuming must not count it as done, nor fail on it.
    study = small(collect=("model", "agent"), engine="model")
    first = run_study(study, tmp_path, backend="serial", batch_size=3, progress=False)
    whole = {level: results.load(first.folder, level) for level in ("model", "agent")}
    damaged = sorted(first.folder.glob("runs/*.model.parquet"))[0]
    damaged.write_bytes(damage)

    second = run_study(study, tmp_path, backend="serial", batch_size=3, progress=False)
    assert (second.already_done, second.played) == (9, 3)
    for level in ("model", "agent"):
        pd.testing.assert_frame_equal(results.load(first.folder, level), whole[level])


# --- Failure isolation ------------------------------------------------------------------

class BrokenAgent(RandomAgent):
    behaviour = "broken"

    def choose_action(self):
        raise RuntimeError("broken on purpose")


class MendedAgent(RandomAgent):
    behaviour = "broken"


def failing_study(name="bb_broken"):
    # On the Mesa model: BrokenAgent inherits RandomAgent.batch_decide, so the batch engine
    # would play it without calling choose_action (failing blocks: test_runner_batch.py).
    return small(name=name, seed=3, population=["random", "broken:1,random:3"],
                 engine="model")


# The failure is patched into this process: the local pool's workers, started by a fork
# server, never see it (test_runner_faults.py kills real workers).
@pytest.mark.parametrize("backend", ["serial"])
def test_a_run_that_raises_is_recorded_and_the_others_complete(tmp_path, monkeypatch,
                                                                backend):
    monkeypatch.setitem(dilemmas.agents.bucket_brigade.BEHAVIOURS, "broken", BrokenAgent)
    study = failing_study()
    broken = {run.run_id: run for run in study.runs()
              if run.parameters["population"] != "random"}
    report = run_study(study, tmp_path, backend=backend, workers=2, batch_size=2,
                       progress=False)
    assert (report.total, report.played) == (6, 6)
    assert sorted(report.failed) == sorted(broken)

    folder = report.folder
    assert sorted(p.stem for p in (folder / "failed").glob("*.json")) == sorted(broken)
    for run_id, run in broken.items():
        record = json.loads((folder / "failed" / f"{run_id}.json").read_text())
        assert record["run_id"] == run_id
        assert record["parameters"] == {"population": "broken:1,random:3"}
        assert (record["seed"], record["replicate"]) == (run.seed, run.replicate)
        assert record["error"] == "RuntimeError: broken on purpose"
        assert "choose_action" in record["traceback"]
        assert "RuntimeError: broken on purpose" in record["traceback"]
    table = results.failures(folder)
    assert sorted(table["run_id"]) == sorted(broken)
    assert set(table["parameters"]) == {'{"population": "broken:1,random:3"}'}
    assert set(table["error"]) == {"RuntimeError: broken on purpose"}

    # The other runs are complete: the rows of the same runs in a study of "random" alone.
    rows = results.load(folder)
    reference = run_study(small(name="bb_random", seed=3, population=["random"],
                                engine="model"), tmp_path, backend="serial", progress=False)
    pd.testing.assert_frame_equal(rows, results.load(reference.folder))

    # Running again tries the failed runs again, and only them.
    again = run_study(study, tmp_path, backend=backend, workers=2, progress=False)
    assert (again.already_done, again.played, sorted(again.failed)) == (3, 3, sorted(broken))

    # Mended, they succeed and their failure records go.
    monkeypatch.setitem(dilemmas.agents.bucket_brigade.BEHAVIOURS, "broken", MendedAgent)
    mended = run_study(study, tmp_path, backend=backend, workers=2, progress=False)
    assert (mended.already_done, mended.played, mended.failed) == (3, 3, [])
    assert list((folder / "failed").iterdir()) == []
    assert results.failures(folder).empty
    rows = results.load(folder)
    assert set(rows["run_id"]) == {run.run_id for run in study.runs()}
    assert not rows.duplicated(KEYS).any()


def test_a_constructor_error_is_refused_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.setitem(dilemmas.agents.bucket_brigade.BEHAVIOURS, "broken", BrokenAgent)
    study_file = tmp_path / "bad_mix.toml"
    study_file.write_text('game = "bucket_brigade"\nreplicates = 2\n[sweep]\n'
                          'population = ["random", "broken:2,random:3"]\n')
    with pytest.raises(StudyError, match=r"population='broken:2,random:3' is invalid.*"
                                         r"add up to 5.*4 agents"):
        Study.from_file(study_file)
    assert main(["run", str(study_file), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert not (tmp_path / "out").exists()


# --- Determinism ------------------------------------------------------------------------

def test_every_backend_worker_count_and_batch_size_gives_the_same_tables(tmp_path):
    # batch_size cuts the Mesa model's runs; the batch engine's blocks: test_runner_batch.py
    study = small(collect=("model", "agent"), engine="model")
    setups = {"local1": dict(backend="local", workers=1),
              "local2": dict(backend="local", workers=2, batch_size=1),
              "serial": dict(backend="serial", batch_size=5),
              "dask2": dict(backend="dask", workers=2, batch_size=2)}
    tables = {}
    for name, options in setups.items():
        report = run_study(study, tmp_path / name, progress=False, **options)
        assert (report.played, report.failed) == (12, [])
        tables[name] = (results.load(report.folder), results.load(report.folder, "agent"))
    model, agent = tables.pop("local1")
    assert model["run_id"].nunique() == 12 and not model.duplicated(KEYS).any()
    assert set(agent["run_id"]) == set(model["run_id"])
    for name, (other_model, other_agent) in tables.items():
        pd.testing.assert_frame_equal(other_model, model, obj=name)
        pd.testing.assert_frame_equal(other_agent, agent, obj=name)


def test_a_runs_seed_and_data_depend_on_the_study_seed_and_its_parameters_only(tmp_path):
    def seeds(study):
        return {(json.dumps(run.parameters, sort_keys=True), run.replicate): (run.run_id,
                                                                               run.seed)
                for run in study.runs()}

    base = seeds(small(beta=[0.1, 0.3], population=["random", "firefighter"]))
    reordered = seeds(small(population=["firefighter", "random"], beta=[0.3, 0.1]))
    assert reordered == base
    wider = seeds(small(beta=[0.2, 0.1, 0.3], population=["random", "firefighter"],
                        replicates=4))
    assert {key: wider[key] for key in base} == base
    assert len(wider) == 24
    other = seeds(small(seed=6, beta=[0.1, 0.3], population=["random", "firefighter"]))
    assert other.keys() == base.keys()
    assert all(other[key][1] != base[key][1] and other[key][0] != base[key][0]
               for key in base)
    assert len({seed for _, seed in base.values()}) == len(base)

    # A run's rows are the same in any study that holds it.
    # (on the Mesa model; the batch engine's blocks: test_runner_batch.py)
    one = run_study(small(name="one", beta=[0.1, 0.3], population=["random"], engine="model"),
                    tmp_path, backend="serial", progress=False)
    two = run_study(small(name="two", beta=[0.3, 0.2], population=["random"], engine="model"),
                    tmp_path, backend="serial", progress=False)
    shared = results.load(one.folder).query("beta == 0.3").reset_index(drop=True)
    assert shared["run_id"].nunique() == 3
    pd.testing.assert_frame_equal(
        shared, results.load(two.folder).query("beta == 0.3").reset_index(drop=True))


# --- One study per folder -----------------------------------------------------------------

def test_a_different_study_into_the_same_folder_is_refused_and_changes_nothing(tmp_path):
    study = small(name="same")
    folder = run_study(study, tmp_path, backend="serial", progress=False).folder
    (folder / "runs" / ".leftover.model.parquet.zz.tmp").write_bytes(b"partial")
    before = snapshot(folder)
    for other in (small(name="same", replicates=4), small(name="same", seed=6),
                  small(name="same", beta=[0.1], population=["random"]),
                  small(name="same", collect=("model", "agent"))):
        with pytest.raises(StudyError, match="holds results of a different study"):
            run_study(other, tmp_path, backend="serial", progress=False)
        assert snapshot(folder) == before
    # The same study with its sweep keys in another order is the same study.
    same = small(name="same", beta=[0.1, 0.3], population=["random", "firefighter:2,liar:2"])
    assert run_study(same, tmp_path, backend="serial", progress=False).played == 0


# --- Bad study files ----------------------------------------------------------------------

GOOD = 'game = "bucket_brigade"\nreplicates = 2\n'
BAD_STUDIES = {
    "unknown_game": ('game = "poker"\n', ["game='poker'", "bucket_brigade"]),
    "unknown_fixed": (GOOD + "[fixed]\nbetta = 0.1\n", ["[fixed] betta", "not a parameter"]),
    "unknown_swept": (GOOD + "[sweep]\nkapa = [0.1]\n", ["[sweep] kapa", "not a parameter"]),
    "out_of_range": (GOOD + "[sweep]\nbeta = [0.1, 7.0]\n",
                     ["beta=7.0", "probability", "{'beta': 7.0}"]),
    "malformed": (GOOD + "[sweep\nbeta = [0.1]\n", ["not valid TOML"]),
    "unknown_key": (GOOD + "seeds = 3\n", ["unknown key 'seeds'"]),
    "missing_game": ("replicates = 2\n", ["'game' is missing"]),
    "no_replicates": ('game = "bucket_brigade"\nreplicates = 0\n', ["replicates=0"]),
    "not_a_list": (GOOD + "[sweep]\nbeta = 0.3\n", ["[sweep] beta=0.3", "list"]),
    "empty_sweep": (GOOD + "[sweep]\nbeta = []\n", ["[sweep] beta=[]", "non-empty"]),
    "both": (GOOD + "[fixed]\nbeta = 0.1\n[sweep]\nbeta = [0.2]\n", ["['beta']", "both"]),
    "collect_agents": (GOOD + 'collect = ["agents"]\n', ["collect=['agents']"]),
    "negative_seed": (GOOD + "seed = -1\n", ["seed=-1"]),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", ["not UTF-8 text (byte 0 is b'\\x89')"]),
    "latin_1": ('game = "bucket_brigade"\nname = "caf\xe9"\n'.encode("latin-1"),
                ["not UTF-8 text (byte 35 is b'\\xe9')"]),
}


@pytest.mark.parametrize("name", sorted(BAD_STUDIES))
def test_a_bad_study_file_is_one_clear_error_before_anything_runs(tmp_path, capsys, name):
    text, fragments = BAD_STUDIES[name]
    study_file = tmp_path / f"{name}.toml"
    study_file.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(StudyError) as error:
        Study.from_file(study_file)
    for fragment in [str(study_file), *fragments]:
        assert fragment in str(error.value)

    out = tmp_path / "out"
    assert main(["run", str(study_file), "--out", str(out), "--no-progress"]) == 2
    printed = capsys.readouterr()
    assert printed.out == ""
    lines = printed.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dilemmas run: ")
    assert all(fragment in lines[0] for fragment in fragments)
    assert not out.exists()


def test_a_missing_study_file_is_a_study_error(tmp_path):
    with pytest.raises(StudyError, match="cannot be read"):
        Study.from_file(tmp_path / "nowhere.toml")


# --- Aggregates -----------------------------------------------------------------------------

def test_aggregate_gives_student_t_intervals_of_the_mean():
    table = pd.DataFrame({"mix": ["a"] * 4 + ["b"] + ["c"] * 3,
                          "x": [1.0, 2.0, 4.0, 7.0, 5.0, 2.0, float("nan"), 6.0]})
    out = results.aggregate(table, "mix", "x").set_index("mix")
    assert list(out.index) == ["a", "b", "c"]
    assert list(out["n"]) == [4, 1, 3]

    def interval(values, confidence):
        n = len(values)
        mean = sum(values) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        half = stats.t.ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
        return mean, mean - half, mean + half

    for mix, values in (("a", [1.0, 2.0, 4.0, 7.0]), ("c", [2.0, 6.0])):
        assert tuple(out.loc[mix, ["x", "x_low", "x_high"]]) == pytest.approx(
            interval(values, 0.95), rel=1e-12)
    assert out.loc["a", "x_high"] == pytest.approx(3.5 + 3.182446305284263 * math.sqrt(7) / 2)
    assert out.loc["b", "x"] == 5.0
    assert math.isnan(out.loc["b", "x_low"]) and math.isnan(out.loc["b", "x_high"])

    narrow = results.aggregate(table, ["mix"], ["x"], confidence=0.9).set_index("mix")
    assert tuple(narrow.loc["a", ["x", "x_low", "x_high"]]) == pytest.approx(
        interval([1.0, 2.0, 4.0, 7.0], 0.9), rel=1e-12)
