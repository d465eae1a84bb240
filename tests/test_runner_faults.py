"""The runner under attack: damaged files, two runners, killed main processes, Ctrl-C, closed
pipes, permissions and oversized studies (dilemmas/analysis/studies/runner.py, dilemmas/analysis/studies/manifest.py). Faults
that involve processes use real subprocesses."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from dilemmas.cli import main as cli
from dilemmas.analysis.studies import manifest
from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study, StudyError

ROOT = Path(__file__).resolve().parents[1]
KEYS = {"model": ["run_id", "Step"], "agent": ["run_id", "Step", "AgentID"]}
SLOW = """\
game = "state_punishment"
engine = "model"
seed = 3
replicates = 30
collect = ["model", "agent"]

[fixed]
max_steps = 100

[sweep]
population = ["random", "civic_voter"]
"""


#: Long enough (60 runs of 100 steps: 6.5 s on one core, 2026-12-07; about 0.1 s a run)
#: that a signal sent after the first two batches of one run lands while the study is still
#: running, on a machine several times faster too.
LONG = SLOW
LONG_RUNS = 60


def small(**changes):
    """A quick Bucket Brigade study on the Mesa model, whose runs are cut in batches of
    ``batch_size`` as these tests count them (the batch engine's blocks under the same
    faults: tests/test_runner_batch.py)."""
    fields = dict(game="bucket_brigade", name="small", seed=5, replicates=4,
                  collect=("model", "agent"), sweep={"population": ["random", "firefighter"],
                                                     "beta": [0.1, 0.3]}, engine="model")
    fields.update(changes)
    return Study(**fields)


def rows(folder):
    return {level: results.load(folder, level) for level in ("model", "agent")}


def assert_same(folder, expected):
    for level, frame in rows(folder).items():
        assert not frame.duplicated(KEYS[level]).any(), level
        pd.testing.assert_frame_equal(frame, expected[level])


# --- Damage that resume must notice ------------------------------------------------------

def corrupt_inside(path: Path):
    """Random bytes in the middle of the file; the Parquet footer stays intact."""
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 16] = os.urandom(16)
    path.write_bytes(bytes(data))


def copy_of_another(path: Path):
    others = sorted(p for p in path.parent.glob("*.model.parquet") if p != path)
    path.write_bytes(others[0].read_bytes())


DAMAGE = {
    "bytes changed inside a model file": ("model", corrupt_inside),
    "a model file replaced by a copy of another batch": ("model", copy_of_another),
    "an agent file deleted": ("agent", Path.unlink),
    "an agent file cut short": ("agent", lambda p: p.write_bytes(p.read_bytes()[:300])),
    "a model file emptied": ("model", lambda p: p.write_bytes(b"")),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_run_files_are_found_and_their_runs_played_again(tmp_path, damage):
    study = small()
    first = run_study(study, tmp_path, backend="serial", batch_size=3, progress=False)
    expected = rows(first.folder)
    level, harm = DAMAGE[damage]
    victim = sorted((first.folder / "runs").glob(f"*.{level}.parquet"))[1]
    harm(victim)
    second = run_study(study, tmp_path, backend="serial", batch_size=3, progress=False)
    assert (second.already_done, second.played) == (16 - 3, 3)
    assert_same(first.folder, expected)
    third = run_study(study, tmp_path, backend="serial", batch_size=3, progress=False)
    assert third.played == 0


def test_an_unrecorded_file_and_a_torn_manifest_line_do_not_count(tmp_path):
    study = small()
    first = run_study(study, tmp_path, backend="serial", batch_size=4, progress=False)
    expected = rows(first.folder)
    lines = (first.folder / manifest.NAME).read_text().splitlines(keepends=True)
    # the last batch's line cut short, as a crash while appending it leaves it
    (first.folder / manifest.NAME).write_text("".join(lines[:-1]) + lines[-1][:30])
    assert len(manifest.files(first.folder, "model")) == 3   # load ignores that batch
    second = run_study(study, tmp_path, backend="serial", batch_size=2, progress=False)
    assert (second.already_done, second.played) == (12, 4)
    assert_same(first.folder, expected)


def test_a_folder_from_before_manifests_is_adopted_without_losing_a_run(tmp_path):
    study = small()
    first = run_study(study, tmp_path, backend="serial", batch_size=4, progress=False)
    expected = rows(first.folder)
    (first.folder / manifest.NAME).unlink()
    second = run_study(study, tmp_path, backend="serial", progress=False)
    assert (second.already_done, second.played) == (16, 0)
    assert_same(first.folder, expected)


def test_a_truncated_study_definition_is_named_not_called_another_study(tmp_path):
    folder = run_study(small(), tmp_path, backend="serial", progress=False).folder
    (folder / "study.json").write_text('{"game": "bucket_bri')
    with pytest.raises(StudyError, match=r"study.json.* is not a study.s definition \(not JSON"):
        run_study(small(), tmp_path, backend="serial", progress=False)


# --- One writer ----------------------------------------------------------------------------

def start(study_file, out, *extra):
    """``dilemmas run`` in its own process group, with Ctrl-C's signal handled as in a
    terminal (a job started in the background by a shell, as CI may start the tests,
    inherits SIGINT ignored)."""
    command = [sys.executable, "-m", "dilemmas", "run", str(study_file), "--out", str(out),
               "--no-progress", *extra]
    return subprocess.Popen(command, cwd=ROOT, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def pool_processes(session: int, kinds=(b"multiprocessing.forkserver",)) -> set[int]:
    """The processes of ``session`` (the one ``start`` opens) that run a multiprocessing fork
    server or one of its workers (their command line is the server's; ``kinds``: the words
    of the command lines looked for): only those, since the suite's other workers may run
    pools of their own meanwhile."""
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and any(kind in (entry / "cmdline").read_bytes()
                                            for kind in kinds) \
                    and int((entry / "stat").read_text().rpartition(")")[2].split()[3]) \
                    == session:
                found.add(int(entry.name))
        except OSError:  # ended meanwhile
            pass
    return found


def wait_for(condition, process, what, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, f"no {what} in {seconds} s"
        time.sleep(0.005)


def recorded(folder) -> int:
    path = folder / manifest.NAME
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_a_second_runner_on_the_same_folder_is_refused(tmp_path):
    study_file = tmp_path / "slow.toml"
    study_file.write_text(LONG)
    folder = tmp_path / "out" / "slow"
    process = start(study_file, tmp_path / "out", "--workers", "1", "--batch-size", "1")
    try:
        wait_for(lambda: recorded(folder) >= 1, process, "recorded batch")
        with pytest.raises(StudyError, match=rf"is being written by process {process.pid}"):
            run_study(Study.from_file(study_file), tmp_path / "out", backend="serial",
                      progress=False)
        second = subprocess.run(
            [sys.executable, "-m", "dilemmas", "run", str(study_file), "--out",
             str(tmp_path / "out"), "--no-progress"], cwd=ROOT, capture_output=True,
            text=True, timeout=60)
        assert second.returncode == 2 and "is being written by" in second.stderr
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.mark.parametrize("workers", [1, 2])
def test_killing_the_main_process_stops_its_workers_and_frees_the_folder(tmp_path, workers):
    study_file = tmp_path / "slow.toml"
    study_file.write_text(LONG)
    folder = tmp_path / "out" / "slow"
    process = start(study_file, tmp_path / "out", "--workers", str(workers), "--batch-size", "1")
    wait_for(lambda: recorded(folder) >= 2, process, "recorded batch")
    assert pool_processes(process.pid), "the pool's fork server and workers are not seen"
    process.send_signal(signal.SIGKILL)      # the main process only, not its group
    process.wait()
    time.sleep(0.5)                          # a surviving worker would write within this
    files = sorted(p.name for p in (folder / "runs").iterdir())
    time.sleep(1.5)
    assert sorted(p.name for p in (folder / "runs").iterdir()) == files, \
        "a worker went on writing after its main process died"
    assert not pool_processes(process.pid), \
        "the fork server or a worker outlived the main process"
    study = Study.from_file(study_file)
    resumed = run_study(study, tmp_path / "out", workers=2, progress=False)   # not locked
    assert resumed.already_done >= 2 and resumed.already_done + resumed.played == LONG_RUNS
    whole = run_study(study, tmp_path / "whole", workers=2, progress=False)
    assert_same(folder, rows(whole.folder))


@pytest.mark.parametrize("delay", [0, 0.1, 0.2])
def test_killing_the_main_process_while_its_pool_starts_leaves_no_process(tmp_path, delay):
    # Killed as soon as its fork server appears, before the server has imported the games
    # (about 3 s here) and so before it would see its parent gone: the server, which ties its
    # life to the main process first thing, ends with the main process, not after that import.
    study_file = tmp_path / "slow.toml"
    study_file.write_text(LONG)
    process = start(study_file, tmp_path / "out", "--workers", "2", "--batch-size", "1")
    wait_for(lambda: pool_processes(process.pid), process, "fork server")
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 1.5
    while pool_processes(process.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    left = pool_processes(process.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, "the fork server or a worker outlived the main process by 1.5 s"


def test_killing_the_main_process_stops_its_dask_workers_too(tmp_path):
    study_file = tmp_path / "slow.toml"
    study_file.write_text(LONG)
    folder = tmp_path / "out" / "slow"
    process = start(study_file, tmp_path / "out", "--backend", "dask", "--workers", "1",
                    "--batch-size", "1")
    wait_for(lambda: recorded(folder) >= 2, process, "recorded batch", seconds=120)
    workers = (b"multiprocessing.spawn", b"multiprocessing.resource_tracker")
    assert pool_processes(process.pid, workers)
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 1.5        # the cluster's workers see their pipe close
    while pool_processes(process.pid, workers) and time.monotonic() < deadline:
        time.sleep(0.01)
    left = pool_processes(process.pid, workers)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, "a Dask worker outlived the main process by 1.5 s"
    files = sorted(p.name for p in (folder / "runs").iterdir())
    time.sleep(2)
    assert sorted(p.name for p in (folder / "runs").iterdir()) == files, \
        "a Dask worker went on writing after the runner died"
    resumed = run_study(Study.from_file(study_file), tmp_path / "out", backend="serial",
                        batch_size=50, progress=False)
    assert resumed.already_done >= 2 and resumed.already_done + resumed.played == LONG_RUNS


def test_ctrl_c_stops_with_one_line_and_status_130_and_the_study_resumes(tmp_path):
    study_file = tmp_path / "slow.toml"
    study_file.write_text(LONG)
    folder = tmp_path / "out" / "slow"
    process = start(study_file, tmp_path / "out", "--workers", "2", "--batch-size", "1")
    wait_for(lambda: recorded(folder) >= 2, process, "recorded batch")
    os.killpg(process.pid, signal.SIGINT)    # as a terminal does: the whole group
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert stderr.strip() == ("dilemmas run: interrupted (run the same command again to "
                              "resume)"), stderr
    study = Study.from_file(study_file)
    resumed = run_study(study, tmp_path / "out", workers=2, progress=False)
    assert resumed.already_done + resumed.played == LONG_RUNS and resumed.already_done >= 2
    assert resumed.played > 0   # the interruption came before the end
    whole = run_study(study, tmp_path / "whole", workers=2, progress=False)
    assert_same(folder, rows(whole.folder))


# --- Files and the command line ---------------------------------------------------------------

@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_files_the_runner_writes_respect_the_umask(tmp_path, umask, mode):
    study_file = tmp_path / "small.toml"
    study_file.write_text('game = "bucket_brigade"\nreplicates = 2\ncollect = ["model", '
                          '"agent"]\n')
    code = (f"import os, sys; os.umask({umask}); from dilemmas.cli.main import main; "
            f"sys.exit(main(['run', {str(study_file)!r}, '--out', {str(tmp_path)!r}, "
            "'--backend', 'serial', '--no-progress']))")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)
    written = [p for p in (tmp_path / "small").rglob("*") if p.is_file() and p.name != ".lock"]
    assert {p.suffix for p in written} >= {".json", ".parquet", ".jsonl"}
    assert {oct(p.stat().st_mode & 0o777) for p in written} == {oct(mode)}


def test_a_closed_pipe_ends_a_command_quietly(monkeypatch, capsys):
    read, write = os.pipe()
    os.close(read)
    stdout = os.fdopen(write, "w", buffering=1)
    monkeypatch.setattr(sys, "stdout", stdout)
    assert cli.main(["games", "bucket_brigade"]) == 141
    assert capsys.readouterr().err == ""


# --- Sizes checked before anything is built ---------------------------------------------------

def test_an_oversized_study_is_refused_before_any_model_is_built(monkeypatch):
    from dilemmas import GAMES

    built = []
    monkeypatch.setattr(GAMES["bucket_brigade"].model, "__init__",
                        lambda self, **kwargs: built.append(kwargs))
    with pytest.raises(StudyError, match=r"100,000,000 runs .* more than max_runs=100,000"):
        Study(game="bucket_brigade", name="big", replicates=10 ** 8)
    with pytest.raises(StudyError, match=r"1,000,000 runs \(1 replicates of 1,000,000 "
                                         r"combinations\)"):
        Study(game="bucket_brigade", name="wide", replicates=1,
              sweep={"beta": [0.5] * 1000, "kappa": [0.5] * 1000})
    with pytest.raises(StudyError, match=r"runs \(10 replicates of "):
        Study(game="bucket_brigade", name="digits", replicates=10,
              sweep={"beta": [0.5] * 10 ** 5})
    assert built == []


def test_max_runs_raises_the_limit_when_meant(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('game = "bucket_brigade"\nreplicates = 200000\nmax_runs = 300000\n')
    assert Study.from_file(path).replicates == 200000
    path.write_text('game = "bucket_brigade"\nmax_runs = 0\n')
    with pytest.raises(StudyError, match="max_runs=0 must be an integer from 1 to 68,719,476 "):
        Study.from_file(path)


@pytest.mark.parametrize("text, message", [
    ('collect = [["model"]]', "collect=\\[\\['model'\\]\\] must be"),
    ('name = "' + "x" * 300 + '"', "must be 1 to 100 letters"),
    ('name = "a b"', "must be 1 to 100 letters"),
    ("replicates = " + "9" * 400, "more than max_runs"),
])
def test_malformed_study_files_name_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "study.toml"
    path.write_text(f'game = "bucket_brigade"\n{text}\n')
    with pytest.raises(StudyError, match=message):
        Study.from_file(path)
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


def test_killed_at_random_moments_again_and_again_the_study_ends_whole(tmp_path):
    # Five kills at moments drawn from a seeded generator, alternately of the main process
    # alone (its workers must die with it) and of the whole process group, each followed
    # by a resume; then one run to the end. The rows are those of a study never stopped.
    import random

    study_file = tmp_path / "slow.toml"
    study_file.write_text(SLOW)
    moments = random.Random(2026)
    for attempt in range(5):
        process = start(study_file, tmp_path / "out", "--workers", "2", "--batch-size", "2")
        time.sleep(moments.uniform(0.3, 2.0))
        if process.poll() is None:
            if attempt % 2:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.send_signal(signal.SIGKILL)
        process.wait()
        time.sleep(0.3)
    final = subprocess.run(
        [sys.executable, "-m", "dilemmas", "run", str(study_file), "--out",
         str(tmp_path / "out"), "--no-progress"], cwd=ROOT, capture_output=True, text=True,
        timeout=300)
    assert final.returncode == 0, final.stderr
    whole = run_study(Study.from_file(study_file), tmp_path / "whole", workers=2,
                      progress=False)
    assert_same(tmp_path / "out" / "slow", rows(whole.folder))
    leftovers = [p for p in (tmp_path / "out" / "slow").rglob("*.tmp")]
    assert leftovers == []


# --- A folder the system refuses to write ---------------------------------------------------

SMALL = 'game = "firefighting_graph"\nseed = 1\nreplicates = 2\n'


def _refuse(target: str):
    """A stand-in for a file operation that the system refuses on paths containing ``target``
    (the tests may run as root, whom permissions do not stop)."""
    def refuse(original):
        def operation(self_or_path, *args, **kwargs):
            if target in str(self_or_path):
                raise PermissionError(13, "Permission denied", str(self_or_path))
            return original(self_or_path, *args, **kwargs)
        return operation
    return refuse


def _snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != ".lock"}


@pytest.mark.parametrize("case", ["the folder", "the lock", "a stale file"])
def test_a_folder_the_system_will_not_write_is_one_line_and_leaves_what_was_there(
        tmp_path, capsys, monkeypatch, case):
    study_file = tmp_path / "small.toml"
    study_file.write_text(SMALL)
    out = tmp_path / "out"
    folder = out / "small"
    if case != "the folder":  # a study already played there
        assert cli.main(["run", str(study_file), "--out", str(out), "--no-progress"]) == 0
        (folder / ".stale.tmp").write_bytes(b"left by a killed runner")
    before = _snapshot(folder) if folder.exists() else {}
    if case == "the folder":
        monkeypatch.setattr(Path, "mkdir", _refuse("small")(Path.mkdir))
        named = str(folder)
    elif case == "the lock":
        monkeypatch.setattr(manifest, "open", _refuse(".lock")(open), raising=False)
        named = str(folder / ".lock")
    else:
        monkeypatch.setattr(Path, "unlink", _refuse(".stale.tmp")(Path.unlink))
        named = str(folder / ".stale.tmp")
    capsys.readouterr()
    assert cli.main(["run", str(study_file), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"dilemmas run: cannot write {named!r}: Permission denied; nothing was "
                   "left half-written there"]
    monkeypatch.undo()
    assert (_snapshot(folder) if folder.exists() else {}) == before
