"""Schelling diagrams (dilemmas/analysis/game_theory/schelling.py) on the test-only Public Goods game, whose payoffs
are known exactly: with ``N`` players, ``T`` rounds, endowment ``e`` and multiplier ``r``, a
contributor among ``i`` other contributors ends with ``C(i) = T e r (i + 1) / N`` and a
keeper with ``D(i) = T e r i / N + T e``. With ``r < N`` keeping dominates (``D - C = T e (1 -
r / N) > 0``) though all contributing pays more than all keeping: the tragedy of the commons.
With ``r > N`` contributing dominates and there is no dilemma."""

import numpy as np
import pytest

from dilemmas.analysis.game_theory import schelling
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import StudyError


def play(tmp_path, multiplier):
    study = schelling.schelling_study("public_goods", fixed={"multiplier": multiplier},
                                      replicates=3, seed=4)
    return run_study(study, tmp_path, backend="serial", progress=False).folder


def test_study_plays_every_mix_cooperators_first():
    study = schelling.schelling_study("public_goods", replicates=2)
    assert study.sweep["population"] == ["cooperate:4", "cooperate:3,defect:1",
                                         "cooperate:2,defect:2", "cooperate:1,defect:3",
                                         "defect:4"]
    assert study.collect == ("model", "agent")


def test_curves_are_the_known_payoffs(tmp_path):
    curves, team = schelling.diagram(play(tmp_path, 1.6))
    c = curves[curves["role"] == "cooperator"].set_index("others")["payoff"]
    d = curves[curves["role"] == "defector"].set_index("others")["payoff"]
    others = np.arange(4)
    assert np.allclose(c.loc[others], 20 * 1.6 * (others + 1) / 4)
    assert np.allclose(d.loc[others], 20 * 1.6 * others / 4 + 20)
    k = np.arange(5)
    assert np.allclose(team.set_index("cooperators")["payoff"].loc[k], 20 + 20 * 0.6 * k / 4)
    assert (curves["n"] == 3).all()


def test_public_goods_is_a_tragedy_of_the_commons(tmp_path):
    curves, team = schelling.diagram(play(tmp_path, 1.6))
    table = schelling.diagnostics(curves, team).set_index("property")["holds"]
    holds = {name.partition(":")[0]: value for name, value in table.items()}
    assert holds == {"mutual cooperation preferred": True,
                     "cooperation preferred to exploitation": True, "fear": True,
                     "greed": True, "social dilemma": True, "defection dominant": True,
                     "social optimum": True, "tragedy of the commons": True}
    assert "social optimum: 4 cooperators" in table.index


def test_no_dilemma_when_contributing_pays(tmp_path):
    curves, team = schelling.diagram(play(tmp_path, 6.0))
    table = schelling.diagnostics(curves, team).set_index("property")["holds"]
    holds = {name.partition(":")[0]: value for name, value in table.items()}
    assert not holds["fear"] and not holds["greed"] and not holds["social dilemma"]
    assert not holds["defection dominant"] and not holds["tragedy of the commons"]
    assert "social optimum: 4 cooperators" in table.index


def test_figure_shows_both_curves_and_the_optimum(tmp_path):
    figure = schelling.schelling_figure(play(tmp_path, 1.6))
    left, right = figure.axes
    assert [t.get_text() for t in left.get_legend().get_texts()] == \
        ["cooperator: cooperate", "defector: defect"]
    assert len(left.lines) == 2 and len(left.collections) == 2  # two lines, two bands
    assert [t.get_text() for t in right.get_legend().get_texts()] == \
        ["mean over all seats", "social optimum"]


def test_every_game_names_a_dilemma_pair():
    from dilemmas import GAMES

    for game in GAMES.values():
        cooperator, defector = schelling.behaviours_of(game.name)
        assert {cooperator, defector} <= set(game.behaviours)


@pytest.mark.parametrize("kwargs, message", [
    ({"cooperator": "cooperate", "defector": "cooperate"}, "name one twice"),
    ({"cooperator": "saint"}, "'saint' is not a behaviour"),
    ({"fixed": {"num_agents": 1}}, "num_agents"),
])
def test_bad_input_is_named(kwargs, message):
    with pytest.raises(StudyError, match=message):
        schelling.schelling_study("public_goods", **kwargs)
