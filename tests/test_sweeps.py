"""Trainings as a study (dilemmas.learning.sweeps): every combination trained as its own
training would be, resumable, the summary the seeds' final scores, bad sweeps named."""

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy import stats

from dilemmas.analysis.learning.training import TrainingError
from dilemmas.cli.main import main
from dilemmas.learning import deep, sweeps
from dilemmas.learning.deep import DeepTraining
from dilemmas.learning.training_file import read_training

BASE = """\
game = "firefighting_graph"
algorithm = "ippo"
population = "policy:2"
updates = 2
seeds = 2
seed = 4
checkpoint_every = 1

[parameters]
n_agents = 2
max_steps = 3
layout = "row"
preset = "oliehoek"

[network]
kind = "mlp"
hidden = 8

[ppo]
envs = 4
steps = 6
minibatches = 2
epochs = 1
"""

SWEEP = BASE + """
[sweep]
"ppo.learning_rate" = [0.001, 0.01]
"parameters.max_steps" = [3]
"""


def write(tmp_path, text, name="grid"):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    sweep = read_training(write(tmp, SWEEP))
    folder = sweeps.train(sweep, tmp / "out", backend="serial", progress=False)
    return sweep, folder


def test_a_sweep_trains_each_combination_as_its_own_training_file_would(swept, tmp_path):
    sweep, folder = swept
    assert isinstance(sweep, sweeps.TrainingSweep)
    names = [t.name for t in sweep.trainings()]
    assert len(names) == 2 and all(name.startswith("grid-") for name in names)
    # the second combination, written out as a plain training file and trained alone
    alone = write(tmp_path, BASE.replace("epochs = 1", "epochs = 1\nlearning_rate = 0.01"),
                  name=names[1])
    report = deep.train(read_training(alone), tmp_path / "alone", progress=False)
    for curve in sorted(report.folder.glob("curve-*.parquet")):
        assert pq.read_table(curve).equals(pq.read_table(folder / names[1] / curve.name))
    assert json.loads((folder / "sweep.json").read_text())["sweep"] == sweep.sweep


def test_the_summary_holds_each_combination_s_final_scores(swept):
    sweep, folder = swept
    table = pd.read_csv(folder / "summary.csv")
    assert table["ppo.learning_rate"].tolist() == [0.001, 0.01]
    assert table["seeds"].tolist() == [2, 2]
    for row in table.itertuples():
        curve = deep.curves(folder / row.training)
        last = curve[curve["update"] > 0.9 * curve["update"].max()]  # the last update
        per_seed = last.groupby("replicate")["objective_return"].mean()
        assert row.objective_return == pytest.approx(per_seed.mean())
        half = stats.t.ppf(0.975, 1) * per_seed.std(ddof=1) / np.sqrt(2)
        assert row.objective_return_high == pytest.approx(per_seed.mean() + half)
    assert (folder / "summary.png").exists() and (folder / "summary.pdf").exists()


def test_a_sweep_run_again_trains_only_what_is_missing(swept, tmp_path):
    import shutil

    sweep, folder = swept
    copy = shutil.copytree(folder, tmp_path / "grid")
    first = sweep.trainings()[0].name
    shutil.rmtree(copy / first)  # as if the first had never been trained
    untouched = {p: p.read_bytes() for p in (copy / sweep.trainings()[1].name).rglob("*.parquet")}
    sweeps.train(sweep, tmp_path, backend="serial", progress=False)
    for curve in sorted((folder / first).glob("curve-*.parquet")):
        assert pq.read_table(curve).equals(pq.read_table(copy / first / curve.name))
    assert untouched == {p: p.read_bytes() for p in untouched}


def test_a_folder_refuses_another_sweep(swept, tmp_path):
    import shutil

    sweep, folder = swept
    shutil.copytree(folder, tmp_path / "grid")
    other = read_training(write(tmp_path, SWEEP.replace("[0.001, 0.01]", "[0.002]")))
    with pytest.raises(TrainingError, match="holds a different training sweep"):
        sweeps.train(other, tmp_path, backend="serial", progress=False)


@pytest.mark.parametrize("sweep, said", [
    ('"ppo.learning_rate" = 0.01', r"\[sweep\] 'ppo.learning_rate' must be a non-empty list"),
    ('"ppo.learning_rate" = []', r"\[sweep\] 'ppo.learning_rate' must be a non-empty list"),
    ('name = ["a"]', r"\[sweep\] 'name' is not a key a sweep can vary"),
    ('"colour.x" = [1]', r"\[sweep\] 'colour.x' is not a key a sweep can vary"),
    ('"ppo.clip" = [0.1, 0.1]', r"\[sweep\] 'ppo.clip' lists a value twice"),
    ('"ppo.learning_rate" = [0.01, -1.0]',
     r'the combination ppo.learning_rate = -1.0: \[ppo\] learning_rate=-1.0'),
    ('"parameters.n_agents" = [2, 0]', r"the combination parameters.n_agents = 0: .*n_agents"),
])
def test_a_bad_sweep_is_named(tmp_path, sweep, said):
    with pytest.raises(TrainingError, match=said):
        read_training(write(tmp_path, BASE + "\n[sweep]\n" + sweep + "\n"))


def test_a_swept_required_key_may_be_missing_from_the_file(tmp_path):
    text = BASE.replace("updates = 2\n", "") + '\n[sweep]\nupdates = [1, 2]\n'
    sweep = read_training(write(tmp_path, text))
    assert [t.updates for t in sweep.trainings()] == [1, 2]
    with pytest.raises(TrainingError, match="the key 'updates' is missing"):
        read_training(write(tmp_path, BASE.replace("updates = 2\n", "")
                            + '\n[sweep]\nseeds = [1]\n'))


def test_a_tabular_training_cannot_sweep(tmp_path):
    text = ('game = "firefighting_graph"\npopulation = "q_learning:2"\nepisodes = 3\n'
            '[sweep]\nseeds = [1, 2]\n')
    with pytest.raises(TrainingError, match=r"\[sweep\] sweeps deep trainings"):
        read_training(write(tmp_path, text))


def test_the_command_prints_the_final_scores(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, SWEEP.replace("[0.001, 0.01]", "[0.001]"), name="one")
    assert main(["train", "one.toml", "--out", "out", "--backend", "serial",
                 "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "one: 1 trainings; final scores" in said and "objective_return (95% CI)" in said
    assert (tmp_path / "out" / "one" / "summary.csv").exists()
