"""Cross-play between training seeds (dilemmas.analysis.learning.crossplay): the pair files
seat the right networks, the matrix reads the runs back as the Mesa model plays them, and
the self-play against cross-play summary is right on matrices known by hand."""

import numpy as np
import pandas as pd
import pytest

from dilemmas import GAMES
from dilemmas.analysis.learning import crossplay
from dilemmas.analysis.learning.training import TrainingError
from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.runner import run_study
from dilemmas.cli.main import main
from dilemmas.learning import deep
from dilemmas.learning.deep import DeepTraining
from dilemmas.models.policies import load_policy

FG = {"n_agents": 2, "max_steps": 3, "layout": "row", "preset": "oliehoek"}


def tiny(share=True, seeds=2, **changes) -> DeepTraining:
    fields = {"game": "firefighting_graph", "population": "policy:2", "updates": 1,
              "name": "tiny", "seeds": seeds, "seed": 5, "parameters": dict(FG),
              "network": {"kind": "mlp", "hidden": 8, "share": share},
              "ppo": {"envs": 4, "steps": 6, "minibatches": 2, "epochs": 1},
              "evaluate": {"seeds": 3, "backgrounds": [""]}}
    return DeepTraining(**{**fields, **changes})


def arrays(policy) -> dict:
    return {key: np.asarray(value) for key, value in policy.arrays().items()}


def assert_same_policy(left, right):
    a, b = arrays(left), arrays(right)
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key


@pytest.fixture(scope="module", params=[True, False], ids=["shared", "per-seat"])
def trained(request, tmp_path_factory):
    training = tiny(share=request.param)
    out = tmp_path_factory.mktemp("trained")
    deep.train(training, out, progress=False)
    return training, out


def test_each_pair_seats_the_row_seed_first_and_the_column_seed_after(trained, tmp_path,
                                                                      monkeypatch):
    training, out = trained
    monkeypatch.chdir(tmp_path)
    study = crossplay.crossplay_study(training, out, tmp_path, replicates=2)
    files = study.sweep["policy"]
    assert [f.split("/")[-1] for f in files] == ["0-0.npz", "0-1.npz", "1-0.npz", "1-1.npz"]
    seeds = [load_policy(deep.policy_path(out / "tiny", index)) for index in (0, 1)]
    for name in files:
        i, j = map(int, name.split("/")[-1][:-4].split("-"))
        pair = load_policy(name)
        assert pair.kind == "seats" and [count for _, count in pair.parts] == [1, 1]
        assert_same_policy(pair.parts[0][0], crossplay.seat_policies(seeds[i], 2)[0])
        assert_same_policy(pair.parts[1][0], crossplay.seat_policies(seeds[j], 2)[1])
    assert study.fixed["population"] == "policy:2" and study.replicates == 2
    assert study.sweep["policy_play"] == ["greedy", "sampled"]


def test_the_diagonal_plays_the_training_s_own_policy(trained, tmp_path, monkeypatch):
    training, out = trained
    monkeypatch.chdir(tmp_path)
    study = crossplay.crossplay_study(training, out, tmp_path, replicates=1)
    for index in (0, 1):
        for play in ("greedy", "sampled"):
            rewards = []
            for policy in (f"{study.name}/pairs/{index}-{index}.npz",
                           str(deep.policy_path(out / "tiny", index))):
                model = GAMES["firefighting_graph"].model(**FG, population="policy:2",
                                                          policy=policy, policy_play=play,
                                                          rng=11)
                model.run_model()
                rewards.append([agent.reward for agent in model.agents])
            assert rewards[0] == rewards[1]


def test_the_matrix_holds_each_run_s_returns_as_the_model_plays_them(trained, tmp_path,
                                                                     monkeypatch):
    training, out = trained
    monkeypatch.chdir(tmp_path)
    study = crossplay.crossplay_study(training, out, tmp_path, replicates=2)
    report = run_study(study, tmp_path, backend="serial", progress=False)
    runs = crossplay.per_run(report.folder, 2)
    assert len(runs) == 4 * 2 * 2  # pairs x plays x replicates
    seeds = results.load(report.folder, "model").groupby("run_id")[["seed", "policy", "policy_play"]].first()
    for run in runs.itertuples():
        row = seeds.loc[run.run_id]
        model = GAMES["firefighting_graph"].model(**FG, population="policy:2",
                                                  policy=row["policy"],
                                                  policy_play=row["policy_play"],
                                                  rng=int(row["seed"]))
        model.run_model()
        first, second = sorted(model.agents, key=lambda agent: agent.unique_id)
        assert (run.row_return, run.column_return) == (first.reward, second.reward)
        assert run.learners_return == pytest.approx((first.reward + second.reward) / 2)
        assert f"{run.row}-{run.column}.npz" == row["policy"].split("/")[-1]
    assert "efficiency" in runs  # the social outcomes of each run
    table = crossplay.matrix(report.folder, 2)
    assert sorted(table["play"].unique()) == ["greedy", "sampled"]
    assert table.set_index(["play", "row", "column"])["efficiency"].equals(
        runs.groupby(["play", "row", "column"])["efficiency"].mean())
    assert table["n"].tolist() == [2] * 8
    means = runs.groupby(["play", "row", "column"])["learners_return"].mean()
    assert table.set_index(["play", "row", "column"])["learners_return"].equals(means)


def cells(values) -> pd.DataFrame:
    values = np.asarray(values, dtype=float)
    rows, columns = np.indices(values.shape)
    return pd.DataFrame({"play": "greedy", "row": rows.ravel(), "column": columns.ravel(),
                         "learners_return": values.ravel()})


def test_the_summary_compares_the_diagonal_with_the_cells_off_it():
    # self-play 10 everywhere on the diagonal, 4 off it: every resample gives the same
    found = crossplay.summary(cells([[10, 4, 4], [4, 10, 4], [4, 4, 10]])).iloc[0]
    assert (found["self_play"], found["cross_play"], found["difference"]) == (10, 4, 6)
    assert found["relative_loss"] == pytest.approx(0.6)
    for name in ("self_play", "cross_play", "difference"):
        assert found[f"{name}_low"] == found[f"{name}_high"] == found[name]
    # no convention at all: every cell the same, no loss
    flat = crossplay.summary(cells(np.full((4, 4), 3.0))).iloc[0]
    assert flat["difference"] == flat["difference_low"] == flat["difference_high"] == 0


def test_the_summary_s_interval_covers_the_spread_between_seeds():
    # seed 2 is worse beside everyone: its row and column are low, so the cross-play mean
    # depends on whether it is drawn; the interval must span the means without and with it
    values = np.full((3, 3), 8.0)
    values[2, :] = values[:, 2] = 2.0
    np.fill_diagonal(values, 10.0)
    found = crossplay.summary(cells(values), seed=1).iloc[0]
    assert found["cross_play"] == pytest.approx((2 * 8 + 4 * 2) / 6)
    assert found["cross_play_low"] <= 2.0 + 1e-9 and found["cross_play_high"] >= 8.0 - 1e-9
    assert found["self_play_low"] == found["self_play_high"] == 10.0


def test_cross_play_refuses_one_seed_and_one_learning_seat(tmp_path):
    with pytest.raises(TrainingError, match="at least 2 training seeds, and it has 1"):
        crossplay.crossplay_study(tiny(seeds=1), tmp_path, tmp_path)
    one_seat = tiny(population="policy:1,random:1",
                    evaluate={"seeds": 3, "backgrounds": ["random:1"]})
    with pytest.raises(TrainingError, match="at least 2 learning seats, and its population "
                                            "seats 1"):
        crossplay.crossplay_study(one_seat, tmp_path, tmp_path)


def test_the_command_prints_the_matrix_and_writes_the_table(trained, tmp_path, monkeypatch,
                                                            capsys):
    training, out = trained
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.toml").write_text(
        'game = "firefighting_graph"\nalgorithm = "ippo"\npopulation = "policy:2"\n'
        'updates = 1\nseeds = 2\nseed = 5\n[parameters]\nn_agents = 2\nmax_steps = 3\n'
        'layout = "row"\npreset = "oliehoek"\n[network]\nkind = "mlp"\nhidden = 8\n'
        f'share = {str(training.settings().share).lower()}\n'
        '[ppo]\nenvs = 4\nsteps = 6\nminibatches = 2\nepochs = 1\n'
        '[evaluate]\nseeds = 3\nbackgrounds = [""]\n')
    assert main(["evaluate", "tiny.toml", "--cross-play", "--replicates", "2", "--trained",
                 str(out), "--out", "res", "--backend", "serial", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "greedy play: return per learning seat" in said and "self-play" in said
    table = pd.read_csv(tmp_path / "res" / "tiny-cross-play" / "cross_play.csv")
    assert len(table) == 8 and (tmp_path / "res" / "tiny-cross-play" / "cross_play.png").exists()


def test_replicates_belong_to_cross_play(tmp_path, capsys):
    assert main(["evaluate", "x.toml", "--replicates", "3"]) == 2
    assert "--replicates is for --cross-play" in capsys.readouterr().err
