"""Issue 45 item 6: a training's learning curve and its seeds' final returns in the page
(``dilemmas.dashboard.trainings``): the curve is the mean over seeds of the curve rows the
training wrote, the table each seed's mean over its last tenth with the Student-t interval
over seeds; a folder without curves is said in one line."""

import json

import ipyvuetify as v
import numpy as np
import pandas as pd
import pytest
import solara
from support import widgets_under

from dilemmas.analysis.learning.training import Training, episode_returns, train
from dilemmas.analysis.studies.results import mean_interval
from dilemmas.dashboard import trainings
from solara.widgets import HTML

TRAINING = """\
game = "firefighting_graph"
population = "q_learning:3"
episodes = 30
seeds = 3
checkpoint_every = 10

[parameters]
layout = "row"
n_agents = 3
max_steps = 10
"""


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("trainings")
    (root / "tiny.toml").write_text(TRAINING)
    train(Training.from_file(root / "tiny.toml"), root / "results" / "training",
          backend="serial", progress=False)
    deep = root / "results" / "training" / "deep"  # a deep training's curve rows
    deep.mkdir()
    (deep / "training.json").write_text(json.dumps({"game": "stag_hunt"}))
    rows = pd.DataFrame({"replicate": np.repeat([0, 1], 5), "update": np.tile(range(1, 6), 2),
                         "learner_return": np.arange(10.0)})
    rows.to_parquet(deep / "curve-000000000.parquet")
    empty = root / "results" / "training" / "empty"
    empty.mkdir()
    (empty / "training.json").write_text(json.dumps({"game": "stag_hunt"}))
    return root


def test_a_tabular_trainings_curve_and_final_returns(trained):
    folder = trained / "results" / "training" / "tiny"
    x, rows = trainings.curve_of(folder)
    assert x == "episode"
    pd.testing.assert_frame_equal(rows, episode_returns(folder))
    curve = trainings.mean_curve(x, rows)
    expected = rows.groupby("episode")["learner_return"].mean()
    assert curve["learner_return"] == pytest.approx(expected.tolist())
    finals = trainings.final_returns(x, rows)
    assert list(finals["seed"]) == [0, 1, 2] and set(finals["episode"]) == {29}
    for seed, row in finals.set_index("seed").iterrows():
        own = rows[rows["replicate"] == seed].sort_values("episode")
        assert row["learner_return"] == pytest.approx(own["learner_return"].tail(3).mean())
    table = trainings.summary_html(x, finals)
    interval = mean_interval(finals["learner_return"])
    assert f"{interval['mean']:.4g} [{interval['low']:.4g}, {interval['high']:.4g}]" in table
    assert "background seats" not in table  # every seat learns: no background column


def test_a_deep_trainings_curve_is_by_update(trained):
    x, rows = trainings.curve_of(trained / "results" / "training" / "deep")
    assert x == "update"
    curve = trainings.mean_curve(x, rows)
    assert np.isnan(curve["learner_return"][0])  # no update 0: a gap
    assert curve["learner_return"][1:] == pytest.approx([2.5, 3.5, 4.5, 5.5, 6.5])
    finals = trainings.final_returns(x, rows)
    assert finals["learner_return"].tolist() == [4.0, 9.0]  # the last of five updates


def test_a_folder_without_curves_is_said(trained, tmp_path):
    with pytest.raises(ValueError, match="no curve rows yet"):
        trainings.curve_of(trained / "results" / "training" / "empty")
    with pytest.raises(ValueError, match="not a training folder"):
        trainings.curve_of(tmp_path)


def test_the_page_shows_a_picked_trainings_curve_and_table(trained, monkeypatch):
    monkeypatch.chdir(trained)
    box, rc = solara.render(trainings.TrainingView(), handle_error=False)
    try:
        picker = rc.find(v.Select, label="training").widget
        assert picker.items == [f"results/training/{n}" for n in ("deep", "empty", "tiny")]
        picker.v_model = "results/training/tiny"
        shown = [w.unsafe_innerHTML for w in widgets_under(box) if isinstance(w, HTML)
                 and "training-view" in (w.attributes or {}).get("class", "")]
        assert len(shown) == 1
        assert 'aria-label="tiny: return per seat, mean over 3 seeds"' in shown[0]
        assert "mean over 3 seeds [95% interval]" in shown[0]
        picker.v_model = "results/training/empty"
        said = [w.children[0] for w in widgets_under(box)
                if isinstance(w, v.Html) and "inline-message" in (w.class_ or "")]
        assert any("no curve rows yet" in m for m in said), said
    finally:
        rc.close()
