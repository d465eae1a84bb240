"""PSRO with IPPO best responses (dilemmas/learning/oracle.py, ``dilemmas psro``): the
response's training against the meta-strategy's co-players, the loop end to end on a small
Firefighting Graph, its resumption, and bad input named in one line. The loop's logic
against exact best responses is tests/test_psro.py."""

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dilemmas.analysis.game_theory.metagame import Population, Strategy
from dilemmas.analysis.studies.study import StudyError
from dilemmas.cli.main import main
from dilemmas.learning import deep
from dilemmas.learning.training_file import read_training
from dilemmas.learning.oracle import check_oracle, check_population, response_training
from dilemmas.models.policies import BOTS, load_policy

FG = {"preset": "oliehoek", "layout": "row", "n_agents": 2, "max_steps": 3,
      "shared_reward": True}
BOT = str(BOTS / "firefighting_graph_ippo_firefighter.npz")

POPULATION = """\
name = "fg"
game = "firefighting_graph"
play = "sampled"

[parameters]
preset = "oliehoek"
layout = "row"
n_agents = 2
max_steps = 3
shared_reward = true

[strategies]
bot = {bot = "ippo_firefighter"}
"""

ORACLE = """\
game = "firefighting_graph"
algorithm = "ippo"
population = "policy:2"
updates = 4
seeds = 2
checkpoint_every = 2

[parameters]
preset = "oliehoek"
layout = "row"
n_agents = 2
max_steps = 3
shared_reward = true

[network]
share = false
hidden = 8

[ppo]
envs = 4
steps = 6
minibatches = 2
epochs = 1
"""


@pytest.fixture
def files(tmp_path):
    (tmp_path / "pop.toml").write_text(POPULATION)
    (tmp_path / "oracle.toml").write_text(ORACLE)
    return tmp_path


def population(*strategies):
    return Population("p", "firefighting_graph", tuple(strategies), dict(FG), "greedy")


def test_the_response_trains_in_seat_0_against_the_meta_strategys_support(files):
    chosen = population(Strategy("a", policy=BOT), Strategy("b", policy="x.npz", seat=1),
                        Strategy("c", policy=BOT))
    training = response_training(read_training(files / "oracle.toml"), chosen,
                                 np.array([0.25, 0.0, 0.75]), "response-0")
    assert training.population == "policy:2" and training.parameters == FG
    assert training.network["share"] is False and training.name == "response-0"
    assert training.coplayers == {"seats": [1], "policies": [{"policy": BOT}, {"policy": BOT}],
                                  "weights": [0.25, 0.75], "play": "greedy"}
    frozen = training.frozen()
    assert frozen.seats == (1,) and frozen.weights == (0.25, 0.75)


def test_psro_runs_writes_its_report_and_resumes_to_the_same(files):
    out = files / "out"
    argv = ["psro", str(files / "pop.toml"), "--oracle", str(files / "oracle.toml"),
            "--replicates", "2", "--out", str(out), "--backend", "serial", "--no-progress"]
    assert main(argv + ["--iterations", "1"]) == 0
    folder = out / "fg-psro"
    first = pd.read_csv(folder / "psro.csv")
    assert list(first["iteration"]) == [0] and first.loc[0, "meta-strategy"] == "bot 1"
    assert first.loc[0, "response"] == "response0" and first.loc[0, "share_bot"] == 1
    assert first.loc[0, "gain"] == pytest.approx(first.loc[0, "response value"]
                                                 - first.loc[0, "value"])
    assert (folder / "psro.pdf").is_file() and (folder / "psro.png").is_file()
    response = folder / "response-0"
    assert (response / "training.json").is_file()
    assert load_policy(deep.policy_path(response, 0)).kind == "seats"
    def written():
        return {path: os.stat(path).st_mtime_ns for path in
                [deep.checkpoint_path(response), *folder.glob("fg-*-symmetric/runs/*")]}

    before = written()
    assert len(before) == 1 + 2 * (2 + 3 * 2)  # model and agent files of 1 mix, then 3
    # again, one iteration more: the first is found on disk (its tables and its training)
    assert main(argv + ["--iterations", "2"]) == 0
    assert {path: written()[path] for path in before} == before
    again = pd.read_csv(folder / "psro.csv")
    pd.testing.assert_frame_equal(again.iloc[:1][first.columns], first, check_dtype=False)
    if first.loc[0, "gain"] > 0:  # the response was added and a second iteration ran
        assert list(again["strategies"]) == [1, 2]
        assert abs(again.loc[1, ["share_bot", "share_response0"]].sum() - 1) < 1e-9


def test_a_scripted_strategy_is_a_coplayer_that_stands_in(files):
    """A population of the bot and the scripted ``fixed0``: the first response trains
    against the meta-strategy's support, the behaviour named as a scripted co-player (it
    stands in for its seat inside the compiled training, tests/test_coplayers.py), and the
    next table plays the response against both."""
    (files / "pop.toml").write_text(POPULATION + 'fixed = "fixed0"\n')
    out = files / "out"
    assert main(["psro", str(files / "pop.toml"), "--oracle", str(files / "oracle.toml"),
                 "--replicates", "2", "--out", str(out), "--backend", "serial",
                 "--no-progress", "--iterations", "1"]) == 0
    report = pd.read_csv(out / "fg-psro" / "psro.csv")
    shares = {"bot": report.loc[0, "share_bot"], "fixed": report.loc[0, "share_fixed"]}
    entries = {"bot": {"policy": BOT}, "fixed": {"behaviour": "fixed0"}}
    training = json.loads((out / "fg-psro" / "response-0" / "training.json").read_text())
    assert training["coplayers"]["policies"] == [entries[k] for k, v in shares.items() if v > 0]
    assert training["coplayers"]["weights"] == [v for v in shares.values() if v > 0]
    # 6 mixes of 3 strategies in 2 seats, 2 replicates, a model and an agent file each
    assert len(list((out / "fg-psro").glob("fg-1-symmetric/runs/*"))) == 6 * 2 * 2


@pytest.mark.parametrize("change, message", [
    (("[strategies]\nbot = {bot = \"ippo_firefighter\"}\n", "[strategies]\n"),
     "[strategies] must be a table of 1 or more strategies"),
], ids=["none"])
def test_a_population_psro_cannot_play_is_one_line(files, capsys, change, message):
    (files / "pop.toml").write_text(POPULATION.replace(*change))
    assert main(["psro", str(files / "pop.toml"), "--oracle", str(files / "oracle.toml"),
                 "--out", str(files / "out")]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1, error
    assert not (files / "out").exists()


@pytest.mark.parametrize("oracle, message", [
    (ORACLE.split("[parameters]")[0].replace('"firefighting_graph"', '"stag_hunt"')
     + "[parameters]\nnum_agents = 2\n[network]\nshare = false\n",
     "the oracle trains 'stag_hunt', the population plays 'firefighting_graph'"),
    (ORACLE.replace("max_steps = 3", "max_steps = 4"),
     "the oracle's [parameters] {'preset': 'oliehoek', 'layout': 'row', 'n_agents': 2, "
     "'max_steps': 4, 'shared_reward': True} differ from the population's"),
    (ORACLE.replace("updates = 4", "updates = 0"), "updates=0"),
], ids=["game", "parameters", "updates"])
def test_an_oracle_that_does_not_fit_is_one_line(files, capsys, oracle, message):
    (files / "oracle.toml").write_text(oracle)
    assert main(["psro", str(files / "pop.toml"), "--oracle", str(files / "oracle.toml"),
                 "--out", str(files / "out")]) == 2
    error = capsys.readouterr().err
    assert message in error and len(error.strip().splitlines()) == 1, error
    assert not (files / "out").exists()


def test_checks_name_what_cannot_be_a_coplayer(files):
    check_population(population(Strategy("cooperate", behaviour="fixed0")))
    with pytest.raises(StudyError, match="'learn' is the behaviour 'q_learning', which cannot "
                                         "decide on arrays"):
        check_population(population(Strategy("learn", behaviour="q_learning")))
    oracle = read_training(files / "oracle.toml")
    check_oracle(oracle, population(Strategy("a", policy=BOT)))
    with pytest.raises(StudyError, match=r"\[coplayers\]: PSRO sets them"):
        check_oracle(response_training(oracle, population(Strategy("a", policy=BOT)),
                                       [1.0], "r"), population(Strategy("a", policy=BOT)))


def test_iterations_below_one_are_refused(files, capsys):
    assert main(["psro", str(files / "pop.toml"), "--oracle", str(files / "oracle.toml"),
                 "--iterations", "0"]) == 2
    assert "--iterations 0 must be at least 1" in capsys.readouterr().err


EXAMPLES = sorted(path for path in (Path(deep.__file__).parents[1] / "examples" / "psro")
                  .glob("*.toml") if not path.stem.endswith("_oracle"))


def test_every_game_has_a_psro_example_whose_response_can_train():
    from dilemmas import GAMES

    assert {path.stem for path in EXAMPLES} == set(GAMES) - {"public_goods"}
    for path in EXAMPLES:
        chosen = Population.from_file(path, least=1)
        oracle = read_training(path.with_name(f"{path.stem}_oracle.toml"))
        check_population(chosen)
        check_oracle(oracle, chosen)
        training = response_training(oracle, chosen, [1.0], "response-0")
        assert training.frozen().seats == tuple(range(1, chosen.players))


def test_a_psro_killed_while_its_response_trains_resumes(files, monkeypatch):
    """Killed after its first table, while the response trains (half of its updates done),
    PSRO run again finishes the training from its checkpoint and the loop; once more, it
    gives the same report from the disk."""
    out = files / "out"
    argv = ["psro", str(files / "pop.toml"), "--oracle", str(files / "oracle.toml"),
            "--replicates", "2", "--out", str(out), "--backend", "serial", "--no-progress"]
    save = deep.save_checkpoint

    def killed(*args):  # the first checkpoint is written, then the kill comes
        save(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(deep, "save_checkpoint", killed)
    assert main(argv) == 130
    assert not (out / "fg-psro" / "psro.csv").exists()
    assert deep.updates_done(out / "fg-psro" / "response-0") == 2
    monkeypatch.setattr(deep, "save_checkpoint", save)
    assert main(argv) == 0
    assert deep.updates_done(out / "fg-psro" / "response-0") == 4
    resumed = pd.read_csv(out / "fg-psro" / "psro.csv")
    assert main(argv) == 0
    pd.testing.assert_frame_equal(pd.read_csv(out / "fg-psro" / "psro.csv"), resumed)
