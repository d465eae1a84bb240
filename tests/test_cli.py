"""The ``dilemmas`` command (``dilemmas.cli.main``; also ``python -m dilemmas``): help, games,
play, run and summary, exit statuses and one-line errors."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import dilemmas.agents.bucket_brigade
from dilemmas.agents.bucket_brigade import RandomAgent
from dilemmas.cli.main import _parser, main
from dilemmas.analysis.studies.study import Study
from dilemmas import GAMES

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ["games", "play", "run", "summary", "figures", "plot", "sensitivity", "train",
            "evaluate", "scenarios", "baselines", "rank", "schelling", "evolve", "optimal",
            "dashboard"]

STUDY = """\
game = "bucket_brigade"
seed = 4
replicates = 3

[sweep]
population = ["random", "firefighter:2,liar:2"]
beta = [0.3, 0.1]
"""


def one_line_error(capsys, command):
    """The one line a failed command printed on stderr (nothing on stdout)."""
    printed = capsys.readouterr()
    assert printed.out == ""
    lines = printed.err.splitlines()
    assert len(lines) == 1, printed.err
    assert lines[0].startswith(f"dilemmas {command}: ")
    return lines[0]


# --- Help -------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)])
def test_help_of_the_command_and_of_every_subcommand(capsys, command):
    with pytest.raises(SystemExit) as exit:
        main([*command, "--help"])
    assert exit.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: dilemmas {' '.join(command)}".rstrip())
    assert "%%" not in out  # argparse formats an option's help, not a description
    if not command:
        assert all(c in out for c in COMMANDS)


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit:
        main([])
    assert exit.value.code == 2
    assert "usage: dilemmas" in capsys.readouterr().err


# --- games and play ---------------------------------------------------------------------

def test_games_lists_every_registered_game(capsys):
    assert main(["games"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:len(GAMES)]] == list(GAMES)
    for game, line in zip(GAMES.values(), lines):
        assert f"{game.title}: {len(game.parameters)} parameters, rules version " \
            f"{game.rules_version}, round: {game.round}" in line
    assert "public_goods" in GAMES  # the test-only game is listed without a change here


@pytest.mark.parametrize("game", list(GAMES))
def test_games_game_lists_every_parameter_with_default_and_range_and_every_behaviour(
        capsys, game):
    assert main(["games", game]) == 0
    out = capsys.readouterr().out
    declared = GAMES[game].parameters
    lines = [line.strip() for line in out.splitlines()]
    for parameter in declared:
        default = repr(parameter.default)
        if parameter.default is None and parameter.table is not None:
            default += (f" ({parameter.table[0]} {declared[parameter.table[0]].default!r}: "
                        f"{declared.start_value(parameter.name)!r})")
        assert f"{parameter.name} = {default}: {parameter.allowed()}" in lines
        assert parameter.meaning in lines
    for name, behaviour in GAMES[game].behaviours.items():
        assert any(line.startswith(name + " ") for line in lines), name
    assert f"rules: {GAMES[game].rules}" in out
    assert f"example study: {GAMES[game].study} (`dilemmas run {game}` runs it)" in out


def test_games_bucket_brigade_shows_the_ranges(capsys):
    assert main(["games", "bucket_brigade"]) == 0
    out = capsys.readouterr().out
    assert "  num_agents = 4: integer from 4 to 10\n" in out
    assert ("  beta = None (scenario 'default': 0.25): `None` (the named `scenario`'s value) "
            "or probability in [0, 1]\n") in out
    assert ("  firefighter  Always honest; works on most nights with a fire; never "
            "free-rides.\n") in out


@pytest.mark.parametrize("game", list(GAMES))
def test_play_prints_an_episode_summary(capsys, game):
    assert main(["play", game, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    model = GAMES[game].model(rng=3)
    model.run_model()
    assert out.splitlines()[0] == f"{game}, seed 3, {model.steps} steps"
    rules = f"docs/rules/{GAMES[game].rules.name}"
    final = model.datacollector.get_model_vars_dataframe().iloc[-1]
    assert (f"\nfinal state (the model columns at the last step: some count that step alone, "
            f"some the episode so far, as {rules} says of each)\n{final.to_string()}\n") in out
    for column in final.index[final.isna()]:   # each NaN with its meaning, from the rules
        meaning = next(line for line in GAMES[game].rules.read_text().splitlines()
                       if line.startswith(f"| `{column}` |"))
        assert f"  {column} is NaN: {meaning.split(' | ', 1)[1][:-2]} ({rules})\n" in out
    assert "\nepisode (statistics of the whole episode)\n" in out
    assert ("\nagents (the last step; AgentID is the Mesa model's, pettingzoo the same seat in "
            "the PettingZoo environment)\n") in out
    table = out.split("PettingZoo environment)\n")[1].splitlines()
    assert table[0].split()[0] == "pettingzoo" and table[1].split() == ["AgentID"]
    for line in table[2:]:                       # AgentID k is agent_{k-1}
        agent_id, name = line.split()[:2]
        assert name == f"agent_{int(agent_id) - 1}"


def test_play_reads_set_values_as_toml(capsys):
    assert main(["play", "bucket_brigade", "--set", 'population="firefighter"',
                 "--set", "beta=0.3", "--set", "max_steps=3"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("{'population': 'firefighter', 'beta': 0.3, 'max_steps': 3}")
    assert main(["play", "state_punishment", "--set", "population=civic_voter",
                 "--set", "spawn_weights=[1, 1, 1, 1, 2]", "--set", "max_steps=7"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == ("state_punishment, seed 0, 7 steps, {'population': 'civic_voter', "
                     "'spawn_weights': [1, 1, 1, 1, 2], 'max_steps': 7}")


def test_play_with_the_same_seed_prints_the_same_and_another_seed_differs(capsys):
    outputs = []
    for seed in ("5", "5", "6"):
        assert main(["play", "state_punishment", "--seed", seed, "--set", "max_steps=30"]) == 0
        outputs.append(capsys.readouterr().out.split("\n", 1)[1])
    assert outputs[0] == outputs[1] != outputs[2]


@pytest.mark.parametrize("setting, fragments", [
    ("nope=1", ["--set nope", "not a parameter of bucket_brigade"]),
    ("beta=7.0", ["beta=7.0", "probability"]),
    ("population=poker_player", ["population='poker_player'", "unknown behaviour"]),
    ("num_agents=2.5", ["num_agents=2.5", "integer"]),
    ("beta", ["--set 'beta'", "KEY=VALUE"]),
])
def test_play_with_a_bad_setting_exits_2_with_one_line(capsys, setting, fragments):
    assert main(["play", "bucket_brigade", "--set", setting]) == 2
    line = one_line_error(capsys, "play")
    assert all(fragment in line for fragment in fragments)


def test_play_of_an_unknown_game_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["play", "poker"])
    assert exit.value.code == 2
    assert "invalid choice: 'poker'" in capsys.readouterr().err


# --- run and summary ----------------------------------------------------------------------

def test_run_then_summary_prints_one_row_per_combination(tmp_path, capsys):
    study_file = tmp_path / "small.toml"
    study_file.write_text(STUDY)
    out = tmp_path / "out"
    assert main(["run", str(study_file), "--out", str(out), "--workers", "2",
                 "--no-progress"]) == 0
    folder = out / "small"
    assert capsys.readouterr().out == (f"small: 12 runs, 0 done before, 12 played now, "
                                       f"0 failed; results in {folder}\n")
    assert main(["run", str(study_file), "--out", str(out), "--backend", "serial",
                 "--no-progress"]) == 0
    assert "12 runs, 12 done before, 0 played now, 0 failed" in capsys.readouterr().out

    assert main(["summary", str(folder)]) == 0
    text = capsys.readouterr().out
    assert max(map(len, text.splitlines())) <= 100
    block = text.split("\n\n")[0].splitlines()  # the first block of columns
    header, rows = block[0].split(), block[1:]
    assert len(rows) == 4
    assert {"population", "beta", "n"} <= set(header)
    assert "saved" in text.split()
    combos = {(row.split()[header.index("population")], float(row.split()[header.index("beta")]))
              for row in rows}
    assert combos == {(p, b) for p in ("random", "firefighter:2,liar:2") for b in (0.3, 0.1)}
    assert all(row.split()[header.index("n")] == "3" for row in rows)

    assert main(["summary", str(folder), "--ci"]) == 0
    text = capsys.readouterr().out
    assert max(map(len, text.splitlines())) <= 100
    caption, first = text.split("\n\n")[:2]
    assert "confidence interval" in caption
    header, rows = first.splitlines()[0].split(), first.splitlines()[1:]
    assert len(rows) == 4 and all(re.search(r"\[[-0-9.e]+, [-0-9.e]+\]", row) for row in rows)


def test_summary_lists_the_combinations_in_the_study_order(tmp_path, capsys):
    # Study.combinations(): "in file order (the last swept key varies fastest)", and
    # results.summary sorts "the combinations in the study's order".
    study_file = tmp_path / "small.toml"
    study_file.write_text(STUDY)
    assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", "serial",
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["summary", str(tmp_path / "small")]) == 0
    lines = capsys.readouterr().out.split("\n\n")[0].splitlines()
    header = lines[0].split()
    where = header.index("population"), header.index("beta")
    printed = [(row.split()[where[0]], float(row.split()[where[1]])) for row in lines[1:]]
    expected = [(c["population"], c["beta"])
                for c in Study.from_file(study_file).combinations()]
    assert printed == expected
    assert header[:2] == ["population", "beta"]


def test_summary_of_a_folder_without_results_exits_2(tmp_path, capsys):
    assert main(["summary", str(tmp_path)]) == 2
    assert "no study.json" in one_line_error(capsys, "summary")


def test_run_with_bad_options_exits_2_with_one_line(tmp_path, capsys):
    study_file = tmp_path / "small.toml"
    study_file.write_text(STUDY)
    assert main(["run", str(study_file), "--out", str(tmp_path), "--workers", "0"]) == 2
    assert "workers=0" in one_line_error(capsys, "run")
    assert main(["run", str(tmp_path / "missing.toml"), "--out", str(tmp_path)]) == 2
    assert "missing.toml" in one_line_error(capsys, "run")


class BrokenAgent(RandomAgent):
    behaviour = "broken"

    def choose_action(self):
        raise RuntimeError("broken on purpose")


def test_run_prints_the_failed_runs_and_exits_1(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(dilemmas.agents.bucket_brigade.BEHAVIOURS, "broken", BrokenAgent)
    study_file = tmp_path / "broken.toml"
    # engine = "model": BrokenAgent inherits RandomAgent.batch_decide, so the batch engine
    # would play its seats without calling choose_action
    study_file.write_text('game = "bucket_brigade"\nreplicates = 2\nengine = "model"\n'
                          '[sweep]\npopulation = ["random", "broken:1,random:3"]\n')
    failed = sorted(run.run_id for run in Study.from_file(study_file).runs()
                    if run.parameters["population"] != "random")
    assert main(["run", str(study_file), "--out", str(tmp_path), "--backend", "serial",
                 "--no-progress"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("broken: 4 runs, 0 done before, 4 played now, 2 failed")
    folder = tmp_path / "broken" / "failed"
    assert sorted(lines[1:]) == sorted(f"  failed: {folder / (i + '.json')}" for i in failed)
    assert all((folder / f"{i}.json").exists() for i in failed)


# --- Installed entry points ---------------------------------------------------------------

def test_the_console_script_and_python_dash_m_work():
    script = Path(sys.executable).parent / "dilemmas"
    assert script.exists()
    for command in ([str(script), "--help"], [sys.executable, "-m", "dilemmas", "--help"]):
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("usage: dilemmas")
    done = subprocess.run([str(script), "games"], cwd="/", capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    assert [line.split()[0] for line in done.stdout.splitlines()[:4]] == list(GAMES)[:4]


def test_figures_without_folders_draws_every_study_in_the_results_folder(tmp_path, capsys):
    study_file = tmp_path / "small.toml"
    study_file.write_text(STUDY)
    out = tmp_path / "out"
    assert main(["run", str(study_file), "--out", str(out), "--backend", "serial",
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["figures", "--results", str(out), "--out", str(tmp_path / "figs")]) == 0
    printed = capsys.readouterr().out.split()
    assert printed and all(Path(path).stat().st_size > 0 for path in printed)
    assert {Path(path).suffix for path in printed} == {".pdf", ".png"}
    assert all(Path(path).name.startswith("small_") for path in printed)
    assert main(["figures", "--results", str(tmp_path / "empty")]) == 2
    assert "no study results" in capsys.readouterr().err


def test_a_games_name_runs_its_packaged_example_or_says_it_has_none(capsys, monkeypatch,
                                                                    tmp_path):
    monkeypatch.chdir(tmp_path)
    parser = _parser()
    assert parser.parse_args(["run", "stag_hunt"]).study == GAMES["stag_hunt"].study
    assert parser.parse_args(["train", "stag_hunt"]).training == GAMES["stag_hunt"].training
    assert GAMES["stag_hunt"].training.is_file()
    with pytest.raises(SystemExit) as exit:
        parser.parse_args(["train", "public_goods"])  # the test-only game ships none
    assert exit.value.code == 2
    assert "the game 'public_goods' ships no example training file" in capsys.readouterr().err
