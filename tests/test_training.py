"""``dilemmas train`` and ``dilemmas evaluate`` (docs/learning.md): checked training files, the
same curve from the same seed, resuming after a kill, evaluation as a study."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dilemmas.cli import main as cli
from dilemmas.analysis.learning.evaluation import comparison, evaluation_study, returns
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.learning.training import Training, TrainingError, curves, episode_returns, train
from dilemmas.learning.sweeps import TrainingSweep
from dilemmas.learning.deep import DeepTraining
from dilemmas.learning.training_file import read_training
from dilemmas.models.learners import load_learner

ROOT = Path(__file__).resolve().parents[1]
SMALL = """\
game = "firefighting_graph"
population = "q_learning:2,random:1"
episodes = 12
seeds = 2
seed = 7
checkpoint_every = 5

[parameters]
n_agents = 3
shared_reward = true
max_steps = 20

[learner]
learning_rate = 0.2
explore_episodes = 8

[evaluate]
seeds = 4
backgrounds = ["random:1", "fixed0:1"]
"""


def write(tmp_path, text=SMALL, name="small.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def learner_arrays(folder, index):
    learner = load_learner(folder / f"seed-{index}" / "learner.npz")
    return {key: learner.table[key].tolist() for key in sorted(learner.table)}


def test_the_example_training_files_are_valid():
    files = sorted((ROOT / "src" / "dilemmas" / "examples" / "training").glob("*.toml"))
    games = {"bucket_brigade", "state_punishment", "stag_hunt", "firefighting_graph"}
    deep = {"bucket_brigade_mappo", "state_punishment_ippo", "stag_hunt_ippo",
            "firefighting_graph_ippo"}
    assert {path.stem for path in files} == games | deep | {"stag_hunt_sweep"}
    for path in files:
        training = read_training(path)
        if path.stem == "stag_hunt_sweep":
            assert type(training) is TrainingSweep and len(training.trainings()) == 6
            continue
        assert type(training) is (DeepTraining if path.stem in deep else Training)
        assert training.learning_seats >= 1 and training.evaluate.get("seeds", 30) >= 30


def test_training_writes_curves_checkpoints_and_a_figure(tmp_path):
    training = Training.from_file(write(tmp_path))
    report = train(training, tmp_path / "out", backend="serial", progress=False)
    folder = tmp_path / "out" / "small"
    assert report.episodes_played == 24 and report.episodes_before == 0
    assert (folder / "learning_curve.png").exists() and (folder / "learning_curve.pdf").exists()
    assert sorted(p.name for p in (folder / "seed-0").iterdir()) == [
        "curve-000000000.parquet", "curve-000000005.parquet", "curve-000000010.parquet",
        "learner.npz"]
    rows = curves(folder)
    for column in ("run_id", "replicate", "seed", "n_agents", "shared_reward", "max_steps",
                   "population", "Step", "episode", "epsilon", "learner_return",
                   "background_return", "mean_fire"):
        assert column in rows.columns, column
    per_episode = episode_returns(folder)
    assert len(per_episode) == 24 and per_episode["run_id"].is_unique
    assert per_episode.groupby("replicate")["episode"].apply(list).tolist() == \
        [list(range(12))] * 2
    # epsilon falls linearly from 1 to 0.05 over 8 episodes, then stays
    epsilon = per_episode[per_episode["replicate"] == 0]["epsilon"].to_numpy()
    assert epsilon == pytest.approx([1 - 0.95 * e / 8 for e in range(8)] + [0.05] * 4)
    # shared reward: every seat earns the same
    assert (per_episode["learner_return"] == per_episode["background_return"]).all()
    assert load_learner(folder / "seed-0" / "learner.npz").learning_rate == 0.2
    # a second call has nothing left to do
    again = train(training, tmp_path / "out", backend="serial", progress=False)
    assert again.episodes_played == 0 and again.episodes_before == 24


def test_the_same_training_gives_the_same_curve_on_every_backend(tmp_path):
    training = Training.from_file(write(tmp_path))
    train(training, tmp_path / "a", backend="serial", progress=False)
    train(training, tmp_path / "b", backend="local", workers=2, progress=False)
    a, b = tmp_path / "a" / "small", tmp_path / "b" / "small"
    pd.testing.assert_frame_equal(curves(a), curves(b))
    assert learner_arrays(a, 1) == learner_arrays(b, 1)
    assert not curves(a)[curves(a)["replicate"] == 0]["seed"].isin(
        curves(a)[curves(a)["replicate"] == 1]["seed"]).any()


def test_a_killed_training_resumes_to_the_same_curve(tmp_path):
    text = SMALL.replace("episodes = 12", "episodes = 120").replace("max_steps = 20",
                                                                     "max_steps = 100")
    path = write(tmp_path, text)
    whole = Training.from_file(path)
    train(whole, tmp_path / "whole", backend="serial", progress=False)
    out = tmp_path / "killed"
    process = subprocess.Popen(
        [sys.executable, "-m", "dilemmas", "train", str(path), "--out", str(out),
         "--backend", "serial", "--no-progress"], cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    checkpoint = out / "small" / "seed-0" / "learner.npz"
    deadline = time.monotonic() + 60
    while not checkpoint.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert checkpoint.exists(), "the training wrote no checkpoint within 60 s"
    # a curve file beyond the checkpoint, as a kill between the two writes leaves it
    stray = out / "small" / "seed-0" / "curve-000000035.parquet"
    stray.write_bytes(b"cut short")
    report = train(whole, out, backend="serial", progress=False)
    assert 0 < report.episodes_before < 240
    pd.testing.assert_frame_equal(curves(out / "small"), curves(tmp_path / "whole" / "small"))
    for index in (0, 1):
        assert learner_arrays(out / "small", index) == \
            learner_arrays(tmp_path / "whole" / "small", index)


def test_a_damaged_checkpoint_is_named_and_nothing_is_overwritten(tmp_path):
    training = Training.from_file(write(tmp_path))
    train(training, tmp_path / "out", backend="serial", progress=False)
    folder = tmp_path / "out" / "small"
    damaged = folder / "seed-1" / "learner.npz"
    damaged.write_bytes(damaged.read_bytes()[:100])
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    with pytest.raises(TrainingError, match=r"checkpoint '.*seed-1/learner.npz' cannot be "
                                            r"used .*remove its seed's folder"):
        train(training, tmp_path / "out", backend="serial", progress=False)
    assert cli.main(["train", str(tmp_path / "small.toml"), "--out", str(tmp_path / "out"),
                     "--no-progress"]) == 2
    assert before == {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def test_training_on_dask_gives_the_same_curve(tmp_path):
    training = Training.from_file(write(tmp_path))
    train(training, tmp_path / "serial", backend="serial", progress=False)
    train(training, tmp_path / "dask", backend="dask", workers=2, progress=False)
    pd.testing.assert_frame_equal(curves(tmp_path / "serial" / "small"),
                                  curves(tmp_path / "dask" / "small"))


@pytest.mark.parametrize("change, message", [
    ("population = \"random:3\"", "must seat one learning behaviour"),
    ("population = \"random:1,q_learning:2\"", "must seat one learning behaviour"),
    ("population = \"q_learning:1,linear_q:2\"", "must seat one learning behaviour"),
    ("population = \"q_learning:2\"", "counts add up to 2, but the game has 3 agents"),
    ("episodes = 0", "episodes=0 must be an integer >= 1"),
    ("seeds = 1.5", "seeds=1.5 must be an integer >= 1"),
    ("flavour = 1", "unknown key 'flavour'"),
    ("[learner]\nlearning_rate = 2", "learning_rate=2 must be a number from 0 to 1"),
    ("[learner]\nmomentum = 0.9", "[learner] momentum: not allowed here"),
    ("[parameters]\npolicy = \"x.npz\"", "[parameters] policy: not allowed here"),
    ("[parameters]\np_ignite = 2.0", "p_ignite=2.0 is invalid"),
    ("[evaluate]\nbackgrounds = [\"nobody:1\"]", "unknown behaviour 'nobody'"),
    ("[evaluate]\nseeds = 0", "[evaluate] seeds=0 must be an integer >= 1"),
])
def test_a_bad_training_file_names_what_is_wrong(tmp_path, change, message):
    key, _, value = change.rpartition("\n")[2].partition(" = ")
    lines = SMALL.splitlines()
    table = change.partition("\n")[0] if "\n" in change else None
    if table:  # replace or add the key inside its table
        start = lines.index(table)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")),
                   len(lines))
        body = [line for line in lines[start + 1:end] if not line.startswith(key + " ")]
        lines[start + 1:end] = body + [f"{key} = {value}"]
    else:
        lines = [line for line in lines if not line.startswith(key + " ")]
        lines.insert(0, f"{key} = {value}")
    path = write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(TrainingError) as error:
        Training.from_file(path)
    assert str(path) in str(error.value) and message in str(error.value)
    assert cli.main(["train", str(path), "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


def test_a_different_training_into_the_same_folder_is_refused(tmp_path):
    train(Training.from_file(write(tmp_path)), tmp_path / "out", backend="serial",
          progress=False)
    changed = write(tmp_path, SMALL.replace("learning_rate = 0.2", "learning_rate = 0.3"))
    with pytest.raises(TrainingError, match="holds a different training"):
        train(Training.from_file(changed), tmp_path / "out", backend="serial", progress=False)


def test_a_seats_agent_id_is_its_seat_plus_one_in_every_game():
    # the evaluation tells focal seats from background ones by AgentID in the agent rows
    from dilemmas import GAMES

    for name, game in GAMES.items():
        model = game.model(rng=0)
        assert [agent.unique_id for agent in model.seats] == \
            [seat + 1 for seat in range(len(model.seats))], name


def test_evaluation_plays_trained_and_random_focal_seats_as_a_study(tmp_path, capsys):
    path = write(tmp_path)
    training = Training.from_file(path)
    with pytest.raises(TrainingError, match="seed 0 has trained 0 of 12 episodes"):
        evaluation_study(training, tmp_path / "trained")
    train(training, tmp_path / "trained", backend="serial", progress=False)
    study = evaluation_study(training, tmp_path / "trained")
    assert study.replicates == 4 and study.collect == ("model", "agent")
    assert study.sweep["population"] == ["policy:2,random:1", "random:2,random:1",
                                         "policy:2,fixed0:1", "random:2,fixed0:1"]
    assert len(study.sweep["policy"]) == 2
    report = run_study(study, tmp_path / "eval", backend="serial", progress=False)
    assert report.played == 32
    table = returns(report.folder, focal=2)
    assert len(table) == 2 * 2 + 2   # each background: a row per policy, one pooled random
    assert set(table.loc[table["policy"] == "(random)", "n"]) == {8}
    assert set(table.loc[table["policy"] != "(random)", "n"]) == {4}
    # shared reward: focal and background seats earn the same in every run
    assert np.allclose(table["focal_return"], table["background_return"])
    versus = comparison(table, training)
    assert len(versus) == 4
    assert np.allclose(versus["difference"], versus["trained"] - versus["random"])
    # the command: resumes (plays nothing again), prints the table, draws the figure
    code = cli.main(["evaluate", str(path), "--trained", str(tmp_path / "trained"), "--out",
                     str(tmp_path / "eval"), "--backend", "serial", "--no-progress"])
    printed = capsys.readouterr().out
    assert code == 0 and "32 runs, 0 played now" in printed and "in_SE" in printed
    assert (report.folder / "evaluation.png").exists()
    tables = [line for line in printed.splitlines() if not line.startswith(("results in",
                                                                             "figure:"))]
    assert max(map(len, tables)) <= 100
    # it feeds the game's figures: those its sweep supports are drawn, the others named
    assert cli.main(["figures", str(report.folder), "--out", str(tmp_path / "figures")]) == 0
    streams = capsys.readouterr()
    assert "small-evaluation_fire_over_time.png" in streams.out
    assert "skipped: figure 'fire_vs_ignition' needs the parameter 'p_ignite'" in streams.err
