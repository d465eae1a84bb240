"""Inputs of the ``dilemmas`` command that once ended in a traceback or were silently
accepted (issue 46): each is refused with one line naming what is wrong and exit status 2,
before anything is written or played."""

import dask
# loaded first, so that dask.config.set, which restores by deleting the keys it made,
# takes away only its one key and not every default of 'distributed'
import distributed  # noqa: F401
import numpy as np
import pytest

from dilemmas.cli.main import main

STUDY = """\
game = "bucket_brigade"
replicates = 2

[fixed]
max_steps = 5
"""


def one_line_error(capsys, command) -> str:
    """The one line a failed command printed on stderr, without its ``dilemmas COMMAND: ``."""
    printed = capsys.readouterr()
    lines = printed.err.splitlines()
    assert printed.out == "" and len(lines) == 1, printed
    assert lines[0].startswith(f"dilemmas {command}: ")
    return lines[0].removeprefix(f"dilemmas {command}: ")


@pytest.fixture
def study_file(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(STUDY)
    return path


@pytest.mark.parametrize("below", ["", "/deeper/still"])
def test_run_into_an_out_that_is_a_file_names_the_file(tmp_path, capsys, study_file, below):
    (tmp_path / "taken").write_text("a file of the user's")
    out = f"{tmp_path / 'taken'}{below}"
    assert main(["run", str(study_file), "--out", out, "--backend", "serial"]) == 2
    assert one_line_error(capsys, "run") == (
        f"the folder '{out}/small' cannot be made: '{tmp_path / 'taken'}' is a file, not a "
        "folder; choose another output folder")
    assert (tmp_path / "taken").read_text() == "a file of the user's"


def test_sensitivity_into_an_out_that_is_a_file_names_the_file(tmp_path, capsys):
    from dilemmas.analysis.studies.runner import run_study
    from dilemmas.analysis.studies.study import Study

    study = Study(game="bucket_brigade", name="s", replicates=2, fixed={"max_steps": 5},
                  design={"kind": "sobol", "samples": 4,
                          "parameters": {"beta": [0.05, 0.5], "kappa": [0.1, 1.5]}})
    folder = run_study(study, tmp_path, backend="serial", progress=False).folder
    (tmp_path / "figures").write_text("")
    assert main(["sensitivity", str(folder), "--statistic", "saved", "--out",
                 str(tmp_path / "figures")]) == 2
    assert one_line_error(capsys, "sensitivity") == (   # checked before the table
        f"the folder '{tmp_path / 'figures'}' cannot be made: '{tmp_path / 'figures'}' is a "
        "file, not a folder; choose another output folder")


@pytest.mark.parametrize("backend", ["local", "serial"])
def test_a_scheduler_without_the_dask_backend_is_refused(tmp_path, capsys, study_file,
                                                         backend):
    assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", backend,
                 "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert one_line_error(capsys, "run") == (
        f"scheduler='tcp://127.0.0.1:8786' is for backend='dask', and the backend is "
        f"{backend!r}: choose the dask backend, or leave the scheduler out")
    assert not (tmp_path / "small").exists()


def test_an_unreachable_scheduler_is_one_line(tmp_path, capsys, study_file):
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", "dask",
                     "--scheduler", "tcp://127.0.0.1:9", "--no-progress"]) == 2
    assert one_line_error(capsys, "run") == (
        "scheduler='tcp://127.0.0.1:9': no dask scheduler can be reached there (Timed out "
        "trying to connect to tcp://127.0.0.1:9 after 1 s); start one (dask scheduler) and "
        "give its address, e.g. tcp://127.0.0.1:8786, or leave the scheduler out for a local "
        "cluster")
    assert not list((tmp_path / "small" / "runs").iterdir())


@pytest.mark.parametrize("port", ["0", "65536", "99999", "-1"])
def test_a_dashboard_port_out_of_range_is_refused_before_anything_starts(capsys, port):
    assert main(["dashboard", "--port", port]) == 2
    assert one_line_error(capsys, "dashboard") == (
        f"--port {port} is invalid: must be a TCP port from 1 to 65535")


@pytest.mark.parametrize("command", [["baselines"], ["rank", "bucket_brigade"],
                                     ["train", "stag_hunt"]])
def test_workers_0_is_refused_by_every_command_before_it_starts(tmp_path, capsys, command):
    assert main([*command, "--out", str(tmp_path), "--workers", "0"]) == 2
    assert one_line_error(capsys, command[0]) == (
        "workers=0 is invalid: must be None or an integer >= 1")
    assert list(tmp_path.iterdir()) == []


# --- A damaged study folder ------------------------------------------------------------

@pytest.fixture
def played(tmp_path, study_file):
    """``small``'s folder, played, and a copy of its rows."""
    from dilemmas.analysis.studies import results

    assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", "serial",
                 "--no-progress"]) == 0
    folder = tmp_path / "small"
    return folder, results.load(folder)


DAMAGED_DEFINITIONS = {
    b"[1, 2]": "a JSON array, not an object",
    b'"small"': "a JSON string, not an object",
    b'{"game": "bucket_brigade"}': "no 'seed'",
    b'{"game": "bucket_brigade", "seed": 0, "replicates": 2, "collect": ["model"], '
    b'"fixed": [], "sweep": {}}': "'fixed' must be a JSON object",
    b'{"game": "bucket_brigade", "seed": 0, "replicates": 2, "collect": ["model"], '
    b'"fixed": {}, "sweep": {}, "design": 3}': "'design' must be an object with its "
                                               "'parameters'",
    b"\xff\xfe{}": "not JSON: 'utf-8' codec can't decode byte 0xff in position 0: invalid "
                   "start byte",
}


@pytest.mark.parametrize("text", DAMAGED_DEFINITIONS)
@pytest.mark.parametrize("command", ["run", "summary", "plot", "sensitivity"])
def test_a_damaged_study_json_is_named_with_what_to_do(tmp_path, capsys, study_file, played,
                                                      text, command):
    folder, _ = played
    (folder / "study.json").write_bytes(text)
    capsys.readouterr()
    argv = {"run": ["run", str(study_file), "--out", str(tmp_path), "--backend", "serial"],
            "summary": ["summary", str(folder)],
            "plot": ["plot", str(folder), "--x", "beta", "--y", "saved"],
            "sensitivity": ["sensitivity", str(folder), "--statistic", "saved"]}[command]
    assert main(argv) == 2
    assert one_line_error(capsys, command) == (
        f"'{folder / 'study.json'}' is not a study's definition ({DAMAGED_DEFINITIONS[text]}): "
        "cut short or damaged; if its folder holds this study's results, delete it and run the "
        "study again (dilemmas run, same --out) to rewrite it and resume")


def test_deleting_a_damaged_study_json_and_running_again_resumes(tmp_path, capsys,
                                                                 study_file, played):
    from dilemmas.analysis.studies import results

    folder, rows = played
    (folder / "study.json").write_bytes(b"[1, 2]")
    (folder / "study.json").unlink()                # as the message says
    assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", "serial",
                 "--no-progress"]) == 0
    assert ", 2 done before, 0 played now" in capsys.readouterr().out
    assert results.load(folder).equals(rows)


@pytest.mark.parametrize("line", [b"\xff\xfe not utf-8", b"{not json", b"[1]"])
def test_a_damaged_manifest_line_stops_readers_and_running_again_repairs_it(
        tmp_path, capsys, study_file, played, line):
    from dilemmas.analysis.studies import manifest, results
    from dilemmas.dashboard import runs

    folder, rows = played
    recorded = (folder / manifest.NAME).read_bytes()
    (folder / manifest.NAME).write_bytes(line + b"\n" + recorded)
    capsys.readouterr()
    message = (f"'{folder / manifest.NAME}' line 1 is damaged (not a finished batch's "
               "record); run the study again (dilemmas run, same --out) to check every file "
               "against the manifest and play again the runs it lost")
    assert main(["summary", str(folder)]) == 2
    assert one_line_error(capsys, "summary") == message
    with pytest.raises(runs.RunError) as error:               # the dashboard's run viewer
        runs.open_run(folder, rows["run_id"].iloc[0])
    assert str(error.value) == message
    assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", "serial",
                 "--no-progress"]) == 0
    assert ", 2 done before, 0 played now" in capsys.readouterr().out
    assert (folder / manifest.NAME).read_bytes() == recorded
    assert results.load(folder).equals(rows)


@pytest.mark.parametrize("field", ["layer0_bias", "head_weight"])
def test_evaluate_a_network_policy_file_missing_an_array_is_one_line(tmp_path, capsys, field):
    arrays = dict(format="dilemmas/policy", version=1, game="firefighting_graph",
                  kind="network", activation="tanh", layer0_weight=np.ones((3, 2)),
                  layer0_bias=np.zeros(3), head_weight=np.ones((2, 3)), head_bias=np.zeros(2))
    del arrays[field]
    path = tmp_path / "cut.npz"
    np.savez(path, **arrays)
    assert main(["evaluate", str(path), "--scenario", "firefighting_graph/team_v1", "--out",
                 str(tmp_path / "out"), "--no-progress"]) == 2
    assert one_line_error(capsys, "evaluate") == (
        f"policy file '{path}': the field '{field}' is missing")
    assert not (tmp_path / "out").exists()


# --- Issue 63's inputs ------------------------------------------------------------------

DEEP = """\
game = "firefighting_graph"
algorithm = "ippo"
population = "policy"
updates = 3
"""


@pytest.mark.parametrize("more, message", [
    ("updates = 200000000", "[ppo] updates=200000000 x epochs=4 x minibatches=4 is "
     "3,200,000,000 gradient steps, more than the 2,147,483,647 the optimiser counts"),
    ("[network]\nlayers = 100000", "[network] layers=100000 must be an integer from 0 to 16"),
    ("[ppo]\nepochs = 1000000", "[ppo] epochs=1000000 must be an integer from 1 to 100"),
])
def test_a_training_too_long_or_too_deep_is_refused_in_one_line(tmp_path, capsys, more,
                                                                message):
    path = tmp_path / "big.toml"
    path.write_text(DEEP.replace("updates = 3\n", "") + more + "\n" if more.startswith("u")
                    else DEEP + more + "\n")
    assert main(["train", str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert one_line_error(capsys, "train") == (
        f"training file '{path}': training 'big': {message}")
    assert not (tmp_path / "out").exists()


def test_an_out_that_is_a_loop_of_links_is_one_line(tmp_path, capsys, study_file):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert main(["run", str(study_file), "--out", str(tmp_path / "a"), "--backend",
                 "serial"]) == 2
    assert one_line_error(capsys, "run") == (
        f"'{tmp_path / 'a' / 'small'}': Too many levels of symbolic links")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b", "small.toml"]


def test_a_big_study_says_it_is_checking_its_combinations(tmp_path, capsys, monkeypatch):
    from dilemmas.analysis.studies import study

    monkeypatch.setattr(study, "CHECKED_QUIETLY", 3)
    study.Study(game="bucket_brigade", name="s", sweep={"beta": [0.1, 0.2, 0.3]})
    assert "study 's': checking each combination's parameters" in capsys.readouterr().err
    study.Study(game="bucket_brigade", name="s", sweep={"beta": [0.1, 0.2]})
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", ["summary", "run"])
def test_a_fifo_is_refused_not_read(tmp_path, capsys, command):
    import os

    if command == "summary":
        (tmp_path / "folder").mkdir()
        os.mkfifo(tmp_path / "folder" / "study.json")
        argv, message = ["summary", str(tmp_path / "folder")], \
            f"'{tmp_path / 'folder' / 'study.json'}' is a FIFO, not a regular file"
    else:
        os.mkfifo(tmp_path / "study.toml")
        argv = ["run", str(tmp_path / "study.toml"), "--out", str(tmp_path / "out")]
        message = (f"study file '{tmp_path / 'study.toml'}' cannot be read: "
                   f"'{tmp_path / 'study.toml'}' is a FIFO, not a regular file")
    assert main(argv) == 2              # at once: reading a FIFO would wait for a writer
    assert one_line_error(capsys, command) == message
    assert not (tmp_path / "out").exists()


def test_a_sweep_that_repeats_a_value_is_refused(tmp_path, capsys):
    path = tmp_path / "twice.toml"
    path.write_text(STUDY + "\n[sweep]\nbeta = [0.1, 0.3, 0.1]\n")
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    assert one_line_error(capsys, "run") == (
        f"study file '{path}': study 'twice': [sweep] beta lists 0.1 more than once (a "
        "combination's runs share one id); list each value once, and raise replicates for "
        "more runs of it")
    assert not (tmp_path / "out").exists()


LINEAR = dict(format="dilemmas/policy", version=1, game="firefighting_graph", kind="linear",
              weights=np.ones((3, 2)), bias=np.zeros(3))


@pytest.mark.parametrize("change, message", [
    (dict(version="1"), "is not a dilemmas/policy file of version 1 (format "
     "'dilemmas/policy', version '1' of type <U1)"),
    (dict(version=1.0), "is not a dilemmas/policy file of version 1 (format "
     "'dilemmas/policy', version 1.0 of type float64)"),
    (dict(weights=np.ones((3, 2), dtype=bool)), ": the field 'weights' holds values of type "
     "bool (not numbers); a policy's arrays must be finite real numbers"),
])
def test_a_policy_file_with_a_text_version_or_boolean_weights_is_refused(tmp_path, capsys,
                                                                        change, message):
    path = tmp_path / "odd.npz"
    np.savez(path, **{**LINEAR, **change})
    for argv in (["evaluate", str(path), "--scenario", "firefighting_graph/team_v1", "--out",
                  str(tmp_path / "out"), "--no-progress"],
                 ["play", "firefighting_graph", "--set", "population=policy", "--set",
                  f"policy={path}"]):
        assert main(argv) == 2
        assert f"policy file '{path}' {message}".replace("' :", "':") \
            in one_line_error(capsys, argv[0])
    assert not (tmp_path / "out").exists()


def _damage(folder, how):
    from dilemmas.analysis.studies import manifest

    run_file = sorted((folder / "runs").glob("*.model.parquet"))[0]
    if how == "deleted":
        run_file.unlink()
        return f"'{run_file}' is missing (the manifest records it)"
    if how == "truncated":
        run_file.write_bytes(run_file.read_bytes()[:100])
        return f"'{run_file}' does not match its checksum in manifest.jsonl: it was cut short " \
               "or changed after it was written"
    text = (folder / manifest.NAME).read_bytes()
    assert text.count(b"\n") == 1                       # one batch: its line torn in two
    (folder / manifest.NAME).write_bytes(text[:len(text) // 2])
    return f"'{folder / manifest.NAME}' names none of the 1 model file in '{folder / 'runs'}'" \
           ": it is cut short or damaged"


@pytest.mark.parametrize("how", ["deleted", "truncated", "torn manifest"])
@pytest.mark.parametrize("command", ["summary", "plot", "sensitivity"])
def test_a_damaged_run_file_or_manifest_is_named_and_running_again_mends_it(
        tmp_path, capsys, how, command):
    from dilemmas.analysis.studies import results

    study_file = tmp_path / "s.toml"
    study_file.write_text(STUDY + '\n[design]\nkind = "sobol"\nsamples = 2\n'
                          '[design.parameters]\nbeta = [0.05, 0.5]\n')
    assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", "serial",
                 "--no-progress"]) == 0
    folder = tmp_path / "s"
    rows = results.load(folder)
    what = _damage(folder, how)
    capsys.readouterr()
    argv = {"summary": ["summary", str(folder)],
            "plot": ["plot", str(folder), "--x", "beta", "--y", "saved", "--out",
                     str(tmp_path / "figures")],
            "sensitivity": ["sensitivity", str(folder), "--statistic", "saved", "--out",
                            str(tmp_path / "figures")]}[command]
    assert main(argv) == 2
    assert one_line_error(capsys, command) == (
        f"{what}; run the study again (dilemmas run, same --out) to check every file against "
        "the manifest and play again the runs it lost")
    assert not (tmp_path / "figures").exists()
    assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", "serial",
                 "--no-progress"]) == 0
    assert results.load(folder).equals(rows)


def test_a_study_being_written_before_its_first_record_has_no_results_yet(tmp_path):
    """Run files on disk that no manifest line names yet are not damage while a runner holds
    the folder (its first batch is being recorded): readers say there are no results yet."""
    from dilemmas.analysis.studies import manifest, results

    study_file = tmp_path / "s.toml"
    study_file.write_text(STUDY)
    assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", "serial",
                 "--no-progress"]) == 0
    folder = tmp_path / "s"
    (folder / manifest.NAME).write_bytes(b"")               # nothing recorded yet
    with manifest.lock(folder):
        assert manifest.being_written(folder)
        with pytest.raises(FileNotFoundError, match="holds no model results yet"):
            results.load(folder)
    assert not manifest.being_written(folder)
    with pytest.raises(manifest.StudyError, match="names none of the 1 model file"):
        results.load(folder)
