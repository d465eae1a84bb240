"""Meta-games of a population (dilemmas.analysis.game_theory.metagame): population files
read and refused, the seating of every case, the payoff tables against the behaviours'
own study in distribution, the roles' profiles, resumption, and the two commands."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dilemmas.analysis.game_theory import evolution, metagame
from dilemmas.analysis.game_theory.alpharank import ProfileGame
from dilemmas.analysis.game_theory.payoffs import empirical_game
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import StudyError
from dilemmas.cli.main import main
from dilemmas.models.policies import LinearPolicy, load_policy, save_policy, seated_policy



def shape(game="bucket_brigade", **parameters):
    """The actions and the observation length of ``game`` with ``parameters``."""
    from dilemmas import GAMES

    model = GAMES[game].model(rng=0, **parameters)
    return GAMES[game].interface.actions(model), GAMES[game].interface.observation_length(model)


def write(tmp_path, text, name="pop.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def linear(tmp_path, name, action, game="bucket_brigade", **parameters):
    """A linear policy file that always takes ``action`` (a bias, no weights)."""
    actions, length = shape(game, **parameters)
    bias = np.arange(actions, dtype=float)
    bias[action] = actions
    path = tmp_path / f"{name}.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    save_policy(path, LinearPolicy(np.zeros((actions, length)), bias, game))
    return path


@pytest.fixture
def population(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a, b = linear(tmp_path, "a", 0), linear(tmp_path, "b", 1)
    both = tmp_path / "both.npz"
    save_policy(both, seated_policy([(a, 1), (b, 1)]))
    return write(tmp_path, f'''
name = "bb"
game = "bucket_brigade"
[parameters]
max_steps = 15
[strategies]
firefighter = "firefighter"
first = {{policy = "{a}"}}
second = {{policy = "{both}", seat = 1}}
free_rider = "free_rider"
''')


def test_a_population_file_is_read_with_its_strategies(population):
    pop = metagame.Population.from_file(population)
    assert pop.names == ("firefighter", "first", "second", "free_rider")
    assert pop.players == 4 and pop.play == "greedy" and pop.parameters == {"max_steps": 15}
    assert pop.strategies[2].seat == 1
    assert int(np.argmax(pop.strategies[1].loaded().bias)) == 0
    assert int(np.argmax(pop.strategies[2].loaded().bias)) == 1  # seat 1 of both.npz


def test_each_case_seats_its_strategies_in_order(population, tmp_path):
    """A case's population names the scripted seats and 'policy' for the policy seats, in
    the seating's order; its seated policy file plays each policy seat's own policy."""
    pop = metagame.Population.from_file(population)
    case = metagame.case(pop, (0, 1, 2, 3), tmp_path / "out")
    assert case["population"] == "firefighter:1,policy:2,free_rider:1"
    seated = load_policy(case["policy"])
    assert [count for _, count in seated.parts] == [1, 1]
    assert [int(np.argmax(part.bias)) for part, _ in seated.parts] == [0, 1]
    assert metagame.case(pop, (0, 0, 3, 3), tmp_path / "out") == {
        "population": "firefighter:2,free_rider:2", "policy": None}
    assert metagame.case(pop, (1, 1, 1, 2), tmp_path / "out")["population"] == "policy:4"
    mixes = metagame.seatings(pop)
    assert len(mixes) == 35 and mixes[0] == (0, 0, 0, 0) and mixes[-1] == (3, 3, 3, 3)
    assert len(metagame.seatings(pop, "roles")) == 4 ** 4


def test_scripted_strategies_give_the_behaviours_payoff_table_in_distribution(tmp_path,
                                                                              monkeypatch):
    """A population of two behaviours is the study of evolve by another route (other
    seeds): every mix's payoffs agree within 4 standard errors of their difference (about a
    1 in 15,000 chance each of a false alarm under the same distribution)."""
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, 'game = "bucket_brigade"\n[parameters]\nmax_steps = 20\n'
                 '[strategies]\nfirefighter = "firefighter"\nfree_rider = "free_rider"\n')
    pop = metagame.Population.from_file(path)
    ours = metagame.payoff_table(pop, run_study(
        metagame.metagame_study(pop, "symmetric", tmp_path, replicates=40), tmp_path,
        backend="serial", progress=False).folder)
    study = evolution.evolution_study("bucket_brigade", ["firefighter", "free_rider"],
                                      fixed={"max_steps": 20}, replicates=40, seed=5)
    theirs = empirical_game(run_study(study, tmp_path, backend="serial",
                                      progress=False).folder)
    assert np.array_equal(ours.counts, theirs.counts)
    gap = np.abs(ours.means - theirs.means)
    spread = np.sqrt(ours.ses ** 2 + theirs.ses ** 2)
    seated = ~np.isnan(ours.means)
    assert np.array_equal(seated, ~np.isnan(theirs.means))
    assert (gap[seated] <= 4 * spread[seated]).all(), (gap / spread)[seated]


def test_policies_play_their_own_actions_and_roles_keep_each_seat(population, tmp_path):
    """Seats of 'first' always take action 0 and of 'second' action 1; in the roles'
    table each profile keeps its seats apart and the runs resume."""
    pop = metagame.Population.from_file(population)
    small = metagame.Population("bb", pop.game, pop.strategies[1:3], pop.parameters)
    study = metagame.metagame_study(small, "roles", tmp_path, replicates=2)
    report = run_study(study, tmp_path, backend="serial", progress=False)
    assert report.played == 2 * 16
    assert run_study(study, tmp_path, backend="serial", progress=False).played == 0
    game = metagame.payoff_table(small, report.folder, "roles")
    assert isinstance(game, ProfileGame) and game.means.shape == (2, 2, 2, 2, 4)
    assert len(game.profiles) == 16 and all(len(s) == 2 for s in game.samples)
    table = metagame.profile_table(game)
    assert list(table.columns[:4]) == ["seat0", "seat1", "seat2", "seat3"]
    from dilemmas.analysis.studies import results
    agents = results.load(report.folder, "agent").dropna(subset=["mode"])
    cases = results.definition(report.folder)["design"]["cases"]
    modes = {0: set(), 1: set()}  # action 0 works at house 0, action 1 rests there
    for point, seating in enumerate(metagame.seatings(small, "roles")):
        assert cases[point]["population"] == "policy:4"
        runs = agents[agents["design_point"] == point]
        for seat, chosen in enumerate(seating):
            modes[chosen] |= set(runs.loc[runs["AgentID"] == seat + 1, "mode"])
    assert len(modes[0]) == len(modes[1]) == 1 and modes[0] != modes[1]


def test_a_payoff_table_of_another_population_is_refused(population, tmp_path):
    pop = metagame.Population.from_file(population)
    small = metagame.Population("bb", pop.game, pop.strategies[:2], pop.parameters)
    report = run_study(metagame.metagame_study(small, "symmetric", tmp_path, replicates=1),
                       tmp_path, backend="serial", progress=False)
    with pytest.raises(StudyError, match="not the symmetric meta-game of this population"):
        metagame.payoff_table(pop, report.folder)


BAD = {
    "game": ('game = "chess"\n[strategies]\na = "x"\nb = "y"', "game='chess' is not a game"),
    "key": ('game = "bucket_brigade"\ncolour = 1\n[strategies]\na = "hero"\nb = "hero"',
            "unknown key 'colour'"),
    "one": ('game = "bucket_brigade"\n[strategies]\na = "hero"', "2 or more strategies"),
    "behaviour": ('game = "bucket_brigade"\n[strategies]\na = "hero"\nb = "villain"',
                  "[strategies] b: 'villain' is not a behaviour"),
    "adaptive": ('game = "bucket_brigade"\n[strategies]\na = "hero"\nb = "q_learning"',
                 "[strategies] b: 'q_learning' is not a fixed behaviour"),
    "file": ('game = "bucket_brigade"\n[strategies]\na = "hero"\nb = {policy = "no.npz"}',
             "[strategies] b: policy='no.npz' is not a file"),
    "bot": ('game = "bucket_brigade"\n[strategies]\na = "hero"\nb = {bot = "nobody"}',
            "bot='nobody' is not a bot of bucket_brigade; shipped: ['mappo_team']"),
    "form": ('game = "bucket_brigade"\n[strategies]\na = "hero"\nb = 3',
             "[strategies] b = 3 must be a behaviour's name"),
    "name": ('game = "bucket_brigade"\n[strategies]\na = "hero"\n"b c" = "hero"',
             "name='b c' must be 1 to 100 letters"),
    "play": ('game = "bucket_brigade"\nplay = "wild"\n[strategies]\na = "hero"\nb = "hero"',
             "play='wild' must be one of ['greedy', 'sampled']"),
    "population": ('game = "bucket_brigade"\n[parameters]\npopulation = "hero"\n[strategies]\n'
                   'a = "hero"\nb = "hero"', "[parameters] population: set by the population"),
    "parameter": ('game = "bucket_brigade"\n[parameters]\nnum_agents = 99\n[strategies]\n'
                  'a = "hero"\nb = "firefighter"', "num_agents"),
    "toml": ('game = "bucket_brigade"\n[strategies\n', "is not valid TOML"),
    "fits": ('game = "firefighting_graph"\n[strategies]\na = "fixed0"\n'
             'b = {bot = "ippo_firefighter"}', "is a network of 2 actions x 7 inputs"),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_population_file_is_one_line_and_writes_nothing(case, tmp_path, capsys):
    text, message = BAD[case]
    path = write(tmp_path, text)
    out = tmp_path / "out"
    assert main(["population", str(path), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_a_several_seat_policy_needs_its_seat(population, tmp_path):
    both = tmp_path / "both.npz"
    path = write(tmp_path, f'game = "bucket_brigade"\n[strategies]\na = "hero"\n'
                 f'b = {{policy = "{both}"}}\n', "seat.toml")
    with pytest.raises(StudyError, match="holds the policies of 2 seats: say whose plays, "
                                         "seat = 0 to 1"):
        metagame.Population.from_file(path)
    path = write(tmp_path, f'game = "stag_hunt"\n[strategies]\na = "stag_hunter"\n'
                 f'b = {{policy = "{tmp_path / "a.npz"}"}}\n', "game.toml")
    with pytest.raises(StudyError, match="is a policy of 'bucket_brigade', not of 'stag_hunt'"):
        metagame.Population.from_file(path)


def test_the_commands_print_and_write_the_table_and_the_ranking(population, tmp_path, capsys):
    out = tmp_path / "results"
    small = write(tmp_path, population.read_text().replace(
        'free_rider = "free_rider"\n', "").replace('second = {', '# second = {'), "small.toml")
    common = ["--replicates", "2", "--out", str(out), "--backend", "serial", "--no-progress"]
    assert main(["population", str(small), *common]) == 0
    printed = capsys.readouterr().out
    assert "payoff (95% CI)" in printed and "firefighter:2, first:2" in printed
    table = pd.read_csv(out / "bb-symmetric" / "payoffs.csv")
    assert len(table) == 5 and list(table.columns[:2]) == ["firefighter_count", "first_count"]
    assert main(["alpharank", str(small), *common, "--resamples", "5"]) == 0
    printed = capsys.readouterr().out
    assert ", 0 played now" in printed and "mass (95% CI)" in printed
    assert (out / "bb-symmetric" / "alpharank.png").exists()
    assert main(["alpharank", str(small), *common, "--resamples", "5", "--seatings",
                 "roles"]) == 0
    printed = capsys.readouterr().out
    assert "one population per seat, 16 profiles" in printed
    assert main(["alpharank", "nowhere.toml", *common]) == 2
    assert "neither a game" in capsys.readouterr().err
    assert main(["alpharank", str(small), "--behaviours", "hero", *common]) == 2
    assert "--behaviours: a population file names" in capsys.readouterr().err


EXAMPLES = sorted((Path(metagame.__file__).parents[2] / "examples" / "populations").glob(
    "*.toml"))


def test_every_game_has_an_example_population():
    from dilemmas import GAMES

    assert {metagame.Population.from_file(path).game for path in EXAMPLES} == \
        set(GAMES) - {"public_goods"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_the_example_populations_play(path, tmp_path, capsys):
    argv = ["population", str(path), "--replicates", "1", "--out", str(tmp_path),
            "--backend", "serial", "--no-progress"]
    assert main(argv) == 0, capsys.readouterr().err
    population = metagame.Population.from_file(path)
    table = pd.read_csv(tmp_path / f"{population.name}-symmetric" / "payoffs.csv")
    assert len(table) == len(metagame.seatings(population))


def test_a_training_stands_for_its_seeds_and_roles_draw_the_cross_play(tmp_path, capsys,
                                                                       monkeypatch):
    """``{training = folder}`` is one strategy per seed, <name>.<seed> in the seeds' order
    (10 after 9); with two seats the roles' meta-game is their cross-play, drawn."""
    monkeypatch.chdir(tmp_path)
    for seed in (0, 1, 10):
        linear(tmp_path / "trained" / f"seed-{seed}", "policy", seed % 3, "stag_hunt",
               num_agents=2)
    path = write(tmp_path, 'game = "stag_hunt"\n[parameters]\nnum_agents = 2\nmax_steps = 10\n'
                 '[strategies]\nhare = "hare_hunter"\nlearned = {training = "trained"}\n')
    population = metagame.Population.from_file(path)
    assert population.names == ("hare", "learned.0", "learned.1", "learned.10")
    assert population.strategies[3].policy == str(Path("trained/seed-10/policy.npz"))
    out = tmp_path / "out"
    assert main(["population", str(path), "--seatings", "roles", "--replicates", "1",
                 "--out", str(out), "--backend", "serial", "--no-progress"]) == 0
    assert (out / "pop-roles" / "cross_play.png").exists()
    assert len(pd.read_csv(out / "pop-roles" / "payoffs.csv")) == 16
    some = write(tmp_path, 'game = "stag_hunt"\n[parameters]\nnum_agents = 2\n[strategies]\n'
                 'hare = "hare_hunter"\nlearned = {training = "trained", seeds = [10, 0]}\n',
                 "some.toml")
    assert metagame.Population.from_file(some).names == ("hare", "learned.10", "learned.0")
    for wrong in ("[3]", "[0, 0]", "[]", '"all"'):
        path = write(tmp_path, some.read_text().replace("[10, 0]", wrong), "wrong.toml")
        with pytest.raises(StudyError, match=r"must be a list of distinct trained seeds of "
                                             r"'trained': \[0, 1, 10\]"):
            metagame.Population.from_file(path)
    empty = write(tmp_path, 'game = "stag_hunt"\n[strategies]\nhare = "hare_hunter"\n'
                  'learned = {training = "nowhere"}\n', "empty.toml")
    with pytest.raises(StudyError, match="training='nowhere' holds no trained seeds"):
        metagame.Population.from_file(empty)
