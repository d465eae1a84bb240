"""The test-only Public Goods game (tests/public_goods/) works everywhere a game is found
through the registry, with no file outside its own folder knowing it: ``dilemmas games``,
``dilemmas play``, a study through the runner (CLI and Python, local pool and serial), its
summary and figures, and the dashboard page. The contract suite (test_contract.py) checks
its model like the four games'."""

import ipyvuetify as v
import pandas as pd
import pytest
import solara

from dilemmas.analysis.studies import results
from dilemmas.cli.main import main
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study
from dilemmas import GAMES
from public_goods import GAME, PublicGoodsModel
from support import DashboardAt, widgets_under


def test_it_is_registered_like_the_four_games():
    assert GAMES["public_goods"] is GAME and GAME.model is PublicGoodsModel
    assert PublicGoodsModel.__module__ == "public_goods"


def test_the_dilemma_holds():
    # With 1 < multiplier < players, keeping pays each player more whatever the others do,
    # and everyone contributing pays everyone more than no one contributing.
    model = PublicGoodsModel(population="cooperate:2,defect:2", max_steps=1, rng=0)
    model.run_model()
    cooperators, defectors = model.seats[:2], model.seats[2:]
    assert all(d.reward > c.reward for d in defectors for c in cooperators)
    assert defectors[0].reward == pytest.approx(1.0 + 1.6 * 2 / 4)
    everyone, no_one = (PublicGoodsModel(population=p, max_steps=1, rng=0)
                        for p in ("cooperate", "defect"))
    everyone.run_model()
    no_one.run_model()
    assert everyone.mean_reward == pytest.approx(1.6) and no_one.mean_reward == 1.0


def test_dilemmas_games_and_play(capsys):
    assert main(["games"]) == 0
    assert any(line.startswith("public_goods  ") or line.startswith("public_goods ")
               for line in capsys.readouterr().out.splitlines())
    assert main(["games", "public_goods"]) == 0
    out = capsys.readouterr().out
    assert "  multiplier = 1.6: finite number from 0 to 1,000,000\n" in out
    assert "  cooperate" in out and "Always contributes." in out
    assert main(["play", "public_goods", "--seed", "2", "--set", "max_steps=5"]) == 0
    assert capsys.readouterr().out.startswith("public_goods, seed 2, 5 steps")


def test_its_study_runs_through_the_runner_and_the_cli(tmp_path, capsys):
    study = Study.from_file(GAME.study)
    pooled = run_study(study, tmp_path / "pool", workers=2, progress=False)
    serial = run_study(study, tmp_path / "serial", backend="serial", progress=False)
    assert pooled.total == len(study.combinations()) * study.replicates == pooled.played
    pd.testing.assert_frame_equal(results.load(pooled.folder), results.load(serial.folder))

    assert main(["run", str(GAME.study), "--out", str(tmp_path / "cli"), "--backend",
                 "serial", "--no-progress"]) == 0
    assert "24 runs, 0 done before, 24 played now, 0 failed" in capsys.readouterr().out
    folder = tmp_path / "cli" / study.name
    pd.testing.assert_frame_equal(results.load(folder), results.load(serial.folder))

    summary = results.summary(folder)
    assert list(summary["population"].unique()) == study.sweep["population"]
    defect = summary[summary["population"] == "defect"]
    assert (defect["cooperation"] == 0).all() and (defect["n"] == 3).all()
    assert main(["figures", str(folder), "--out", str(tmp_path / "figures")]) == 0
    assert {p.name for p in (tmp_path / "figures").iterdir()} == {
        f"{study.name}_cooperation_by_mix.pdf", f"{study.name}_cooperation_by_mix.png"}


def test_it_has_a_page_in_the_dashboard():
    box, rc = solara.render(DashboardAt(), handle_error=False)
    try:
        picker = rc.find(v.Select, label="game").widget
        assert "Public Goods" in picker.items
        picker.v_model = "Public Goods"
        def caption():  # the world's widget holds it (issue 63)
            (shown,) = [w.caption for w in widgets_under(rc.container) if w.has_trait("caption")]
            return shown

        assert caption() == "round 0 · population random · seed 1"
        rc.find(v.Btn, children=["Step"]).widget.click()
        assert caption() == "round 1 · population random · seed 1"
        rc.find(v.Select, label="population: a declared mix").assert_single()
        rc.find(v.Slider, label="multiplier = 1.6").assert_single()
    finally:
        rc.close()


def test_its_interface_makes_it_a_pettingzoo_environment_and_gives_it_policy_seats():
    import numpy as np
    from pettingzoo.test import parallel_api_test

    parallel_api_test(models_env(), num_cycles=100)
    env = models_env(population="policy:2,defect:2")
    observations, _ = env.reset(seed=4)
    while env.agents:  # the policy seats always contribute
        observations, *_ = env.step({name: 1 for name in env.agents})
    model = PublicGoodsModel(population="policy:2,defect:2", policy=lambda o: 1, rng=4)
    model.run_model()
    assert env.model.datacollector.get_model_vars_dataframe().equals(
        model.datacollector.get_model_vars_dataframe())
    assert np.array_equal(env.state(), [0.5, 1.0])


def models_env(**parameters):
    from dilemmas import parallel_env

    return parallel_env("public_goods", **parameters)
