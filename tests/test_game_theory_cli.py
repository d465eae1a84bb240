"""``dilemmas rank``, ``schelling``, ``evolve`` and ``alpharank`` on every game, end to end: the study runs
(and resumes: a second call plays nothing), the tables print within 100 columns, the figure
is written; bad input is one line with status 2."""

import pandas as pd
import pytest

from dilemmas.cli.main import main
from dilemmas import GAMES

#: Small, fast settings per game (the commands' defaults are for real use).
SMALL = {
    "bucket_brigade": ["--behaviours", "firefighter,free_rider,hero"],
    "state_punishment": ["--set", "max_steps=20"],
    "stag_hunt": ["--set", "max_steps=30", "--set", "num_agents=2", "--behaviours",
                  "hare_hunter,cooperator"],
    "firefighting_graph": ["--set", "n_agents=3", "--set", "max_steps=20"],
}
REAL_GAMES = sorted(SMALL)


def test_every_real_game_is_covered():
    assert set(REAL_GAMES) == set(GAMES) - {"public_goods"}


def run(capsys, *argv):
    status = main([*argv, "--replicates", "2", "--backend", "serial", "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    tables = [line for line in out.splitlines() if not line.startswith(("results:", "figure:"))]
    assert max(map(len, tables)) <= 100, max(tables, key=len)
    return out


@pytest.mark.parametrize("game", REAL_GAMES)
def test_rank(game, tmp_path, capsys):
    argv = ["rank", game, *SMALL[game], "--out", str(tmp_path), "--propose", "3"]
    out = run(capsys, *argv)
    assert "marginal (95% CI)" in out and "runs that most narrow the intervals" in out
    assert (tmp_path / f"{game}-ranking" / "ranking.png").exists()
    assert (tmp_path / f"{game}-ranking" / "ranking.pdf").exists()
    assert ", 0 played now" in run(capsys, *argv)


@pytest.mark.parametrize("game", REAL_GAMES)
def test_schelling(game, tmp_path, capsys):
    argv = ["schelling", game, *[a for a in SMALL[game] if "," not in a and a != "--behaviours"],
            "--out", str(tmp_path)]
    out = run(capsys, *argv)
    cooperator, defector = GAMES[game].dilemma
    assert f"cooperator {cooperator}" in " ".join(out.split())
    assert "social dilemma" in out and "tragedy of the commons" in out
    assert (tmp_path / f"{game}-schelling" / "schelling.png").exists()


@pytest.mark.parametrize("argv, message", [
    (["rank", "bucket_brigade", "--behaviours", "hero,nobody"], "'nobody' is not a behaviour"),
    (["schelling", "stag_hunt", "--cooperator", "policy"], "not a fixed behaviour"),
    (["rank", "bucket_brigade", "--set", "num_agents=99"], "num_agents"),
    (["schelling", "bucket_brigade", "--set", "colour=3"], "not a parameter"),
    (["schelling", "stag_hunt"], "only 2 of its 3 seats play"),
    (["schelling", "firefighting_graph", "--set", "n_agents=1"], "at least 2 seats"),
    (["rank", "bucket_brigade", "--behaviours", ","], "no behaviours given"),
    (["rank", "bucket_brigade", "--propose", "0"], "--propose 0"),
])
def test_bad_input_is_one_line(argv, message, tmp_path, capsys):
    assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("game", REAL_GAMES)
def test_evolve(game, tmp_path, capsys):
    behaviours = ",".join(GAMES[game].dilemma)
    options = [a for a in SMALL[game] if "," not in a and a != "--behaviours"]
    argv = ["evolve", game, *options, "--behaviours", behaviours, "--out", str(tmp_path),
            "--resamples", "5", "--population-size", "20"]
    out = run(capsys, *argv)
    assert "symmetric Nash equilibria" in out and "fixation (95% CI)" in out
    assert "where the replicator dynamics ends" in out
    assert (tmp_path / f"{game}-evolution" / "evolution.png").exists()
    payoffs = tmp_path / f"{game}-evolution" / "payoffs.csv"
    assert f"results: {payoffs}" in out
    table = pd.read_csv(payoffs)
    first, second = GAMES[game].dilemma
    counts = table[[f"{first}_count", f"{second}_count"]].to_numpy()
    players = counts.sum(axis=1)
    assert len(set(players)) == 1 and len(table) == players[0] + 1  # every mix of two
    for name in (first, second):  # a payoff where the mix seats the behaviour, none elsewhere
        seated = table[f"{name}_count"] > 0
        assert table.loc[seated, f"{name}_payoff"].notna().all()
        assert table.loc[~seated, f"{name}_payoff"].isna().all()
    assert (table["runs"] >= 2).all()


@pytest.mark.parametrize("game", REAL_GAMES)
def test_alpharank(game, tmp_path, capsys):
    """alpha-Rank plays evolve's study (so after evolve it plays nothing), prints the
    ranking with intervals and writes the table, the sweep and the figure; the table is
    alpha-Rank of the study's payoff table at alpha per payoff range."""
    from dilemmas.analysis.game_theory import alpharank
    from dilemmas.analysis.game_theory.payoffs import empirical_game

    behaviours = ",".join(GAMES[game].dilemma)
    options = [a for a in SMALL[game] if "," not in a and a != "--behaviours"]
    common = [game, *options, "--behaviours", behaviours, "--out", str(tmp_path),
              "--resamples", "5", "--population-size", "20"]
    run(capsys, "evolve", *common)
    out = run(capsys, "alpharank", *common, "--alpha", "3")
    assert ", 0 played now" in out and "mass (95% CI)" in out
    folder = tmp_path / f"{game}-evolution"
    assert (folder / "alpharank.png").exists() and (folder / "alpharank-sweep.csv").exists()
    table = pd.read_csv(folder / "alpharank.csv")
    payoffs = empirical_game(folder)
    expected = alpharank.alpharank(payoffs, alpharank.relative_alpha(payoffs, 3.0), 20)
    assert dict(zip(table["state"], table["mass"])) == pytest.approx(
        dict(zip(expected.states, expected.stationary)), rel=1e-9)
    assert (table["95% low"] <= table["95% high"]).all()


def test_optimal(tmp_path, capsys):
    status = main(["optimal", "--cases", "2x1,3x1", "--episodes", "50",
                   "--learner-episodes", "20", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "-2.48148" in out  # 2 firefighters, horizon 1: -67/27
    assert "firefighter 2:" in out and "belief_tracker" in out and "q_learning" in out
    assert {p.name for p in tmp_path.iterdir()} == {"optimal.csv", "baselines.csv",
                                                    "optimal.pdf", "optimal.png"}


@pytest.mark.parametrize("argv, message", [
    (["optimal", "--cases", "2by3"], "must be FIREFIGHTERSxHORIZON"),
    (["optimal", "--cases", "2x0"], "horizon"),
    (["optimal", "--cases", "9x9"], "joint policies"),
    (["optimal", "--set", "p_ignite=2"], "p_ignite"),
    (["evolve", "stag_hunt", "--set", "num_agents=2", "--behaviours", "cooperator"],
     "at least 2"),
    (["evolve", "bucket_brigade", "--population-size", "10000000000"], "--population-size"),
    (["evolve", "bucket_brigade", "--population-size", "3"], "--population-size"),
    (["evolve", "bucket_brigade", "--selection", "-1"], "--selection"),
    (["evolve", "bucket_brigade", "--selection", "nan"], "--selection"),
    (["evolve", "bucket_brigade", "--resamples", "1"], "--resamples"),
    (["alpharank", "bucket_brigade", "--alpha", "nan"], "--alpha"),
    (["alpharank", "bucket_brigade", "--population-size", "2"], "--population-size"),
    (["alpharank", "bucket_brigade", "--resamples", "1"], "--resamples"),
    (["optimal", "--set", "n_agents=3"], "not settable here"),
    (["optimal", "--set", "max_steps=1"], "not settable here"),
    (["optimal", "--set", 'layout="grid"'], "not settable here"),
    (["optimal", "--seed", "-5"], "--seed"),
])
def test_bad_optimal_and_evolve_input_is_one_line(argv, message, tmp_path, capsys):
    assert main([*argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
