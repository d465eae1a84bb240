"""The benchmark suite (dilemmas/scenarios, docs/scenarios.md): the catalogue and its ids,
the versions that keep an id to one definition, seated policies, a scenario's evaluation
(against episodes played here by hand), the stored baselines and the commands."""

import dataclasses
import json
import re

import numpy as np
import pandas as pd
import pytest

from dilemmas import GAMES
from dilemmas.cli.main import main
from dilemmas.models.policies import (LinearPolicy, PolicyError, SeatedPolicy, load_policy,
                                      save_policy, seated_policy)
from dilemmas.scenarios import ScenarioError, catalogue, scenarios, select
from dilemmas.scenarios import baselines, scoring
from dilemmas.scenarios.catalogue import check_versions, read_catalogue, record_versions

FG_ROW = {"preset": "oliehoek", "layout": "row", "n_agents": 2, "max_steps": 3}


def constant(action, game="firefighting_graph", parameters=FG_ROW):
    """A linear policy that always plays ``action`` (a bias of one at it)."""
    model = GAMES[game].model(**parameters, rng=0, collect_data=False)
    interface = GAMES[game].interface
    actions, length = interface.actions(model), interface.observation_length(model)
    bias = np.zeros(actions)
    bias[action] = 1.0
    return LinearPolicy(np.zeros((actions, length)), bias, game)


def play(game, parameters, seed, **seating):
    model = GAMES[game].model(**parameters, **seating, rng=seed)
    while model.running:
        model.step()
    return model


# --- The catalogue ------------------------------------------------------------------------

def test_every_game_has_five_or_more_scenarios_with_versioned_unique_ids():
    found = scenarios()
    assert len(found) >= 20
    for game in GAMES:
        if GAMES[game].rules.parent.name == "rules" and game in catalogue.catalogues():
            assert sum(s.game == game for s in found.values()) >= 5, game
    assert set(catalogue.catalogues()) == {"bucket_brigade", "state_punishment", "stag_hunt",
                                           "firefighting_graph"}
    for scenario_id, scenario in found.items():
        assert re.fullmatch(rf"{scenario.game}/[a-z0-9_]+_v{scenario.version}", scenario_id)
        assert len(scenario.description) > 80
        assert scenario.rules_version == GAMES[scenario.game].rules_version


def test_select_takes_an_id_a_game_or_all_and_names_a_bad_one():
    assert [s.id for s in select("stag_hunt/hare_partner_v2")] == ["stag_hunt/hare_partner_v2"]
    assert {s.game for s in select("stag_hunt")} == {"stag_hunt"}
    assert len(select("all")) == len(scenarios())
    with pytest.raises(ScenarioError, match="'stag_hunt/nope_v1' is not a scenario id"):
        select("stag_hunt/nope_v1")


def test_a_scenario_seats_its_focal_seats_first_and_its_bots_as_policy_seats():
    scenario = scenarios()["bucket_brigade/trained_team_v2"]
    population, parts = scenario.seating("policy", "mine.npz")
    assert population == "policy:2,policy:2"
    assert parts == [("mine.npz", 2), (scenario.bots["mappo_team"].path, 2)]
    population, parts = scenario.seating("firefighter")
    assert population == "firefighter:2,policy:2" and len(parts) == 1
    assert scenarios()["bucket_brigade/liars_v2"].seating("hero") == ("hero:2,liar:2", [])


def test_every_bot_is_shipped_and_fits_its_substrate():
    for game, found in catalogue.catalogues().items():
        for bot in found.bots.values():
            policy = load_policy(bot.path)
            assert policy.game == game and bot.path.stat().st_size < 200_000
            scenario = next(s for s in found.scenarios if bot.name in s.bots)
            population, parts = scenario.seating("random")
            policy.check_fits(GAMES[game].model(**scenario.parameters, population=population,
                                                policy=policy, rng=0))


@pytest.mark.parametrize("change, fragment", [
    ('rules_version = 1', "rules are at version"),
    ('metrics = ["nope"]', "'nope' is not an episode statistic"),
    ('surprise = 1', "unknown key 'surprise'"),
])
def test_a_bad_catalogue_names_the_file_and_what_is_wrong(tmp_path, change, fragment):
    text = (catalogue.CATALOGUE / "stag_hunt.toml").read_text()
    key = change.partition(" =")[0]
    text = re.sub(rf"^{key} = .*$", change, text, flags=re.M) if f"\n{key} =" in text \
        else f"{change}\n{text}"
    path = tmp_path / "stag_hunt.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=re.escape(fragment)) as error:
        read_catalogue(path)
    assert str(path) in str(error.value)


@pytest.mark.parametrize("change, fragment", [
    ('name = "stag_partner"', "the id 'stag_hunt/stag_partner_v2' is given twice"),
    ("episodes = 121", "episodes=121 must be a multiple of [training] seeds (3)"),
    ("parameters = 5", "scenario 'hare_partner' parameters must be a table"),
    ("parameters = { nope = 1 }", "unknown key 'nope'"),
])
def test_a_bad_scenario_entry_is_named(tmp_path, change, fragment):
    text = (catalogue.CATALOGUE / "stag_hunt.toml").read_text()
    text = text.replace('name = "hare_partner"', change if change.startswith("name") else
                        f'name = "hare_partner"\n{change}')
    path = tmp_path / "stag_hunt.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=re.escape(fragment)):
        read_catalogue(path)


@pytest.mark.parametrize("background, fragment", [
    ("nobody:1", "names 'nobody'"), ("policy:1", "names 'policy'"),
    ("cooperator:3", "counts add up to 4"),
])
def test_a_bad_scenario_is_named(tmp_path, background, fragment):
    text = (catalogue.CATALOGUE / "stag_hunt.toml").read_text()
    text = text.replace('background = "hare_hunter:1"', f'background = "{background}"')
    path = tmp_path / "stag_hunt.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=re.escape(fragment)) as error:
        read_catalogue(path)
    assert "scenario 'hare_partner'" in str(error.value)


# --- Versions -----------------------------------------------------------------------------

def test_every_scenario_is_recorded_under_its_id_with_its_current_definition():
    assert check_versions() == []


@pytest.mark.parametrize("change", [
    {"episodes": 121}, {"focal": 1, "background": "hare_hunter:1"},
    {"parameters": {"num_agents": 2, "num_agents_to_spawn": 2, "heal_delay": 2}},
    {"metrics": ("stags",)}, {"rules_version": 2},
])
def test_a_definition_changed_under_the_same_id_fails_the_check(change):
    current = scenarios()
    scenario = current["stag_hunt/self_play_v2"]
    changed = {**current, scenario.id: dataclasses.replace(scenario, **change)}
    assert check_versions(changed) == [
        "stag_hunt/self_play_v2: its definition changed but its id did not: raise its version "
        "(a new id) and compute its baselines"]
    renamed = dataclasses.replace(scenario, version=3, **change)
    assert check_versions({**current, renamed.id: renamed})[0].startswith(
        "stag_hunt/self_play_v3: not recorded")


def test_a_retrained_bot_changes_the_fingerprint_and_a_description_does_not(monkeypatch):
    scenario = scenarios()["stag_hunt/trained_partner_v2"]
    before = scenario.fingerprint()
    assert dataclasses.replace(scenario, description="other words").fingerprint() == before
    monkeypatch.setattr(catalogue.Bot, "digest", lambda self: "0" * 64)
    assert scenario.fingerprint() != before


def test_recording_adds_new_ids_and_never_overwrites_one(tmp_path, monkeypatch):
    versions = tmp_path / "versions.json"
    recorded = json.loads(catalogue.VERSIONS.read_text())
    current = scenarios()
    some = dict([item for item in recorded.items() if item[0] in current][:3])
    versions.write_text(json.dumps(some))
    monkeypatch.setattr(catalogue, "VERSIONS", versions)
    added = record_versions()
    assert set(added) == set(scenarios()) - set(some)
    assert json.loads(versions.read_text()) == {s.id: s.fingerprint()
                                                for s in scenarios().values()}
    first = next(iter(some))
    versions.write_text(json.dumps({**recorded, first: "f" * 64}))
    with pytest.raises(ScenarioError, match=f"{re.escape(first)}: its definition changed"):
        record_versions()
    assert json.loads(versions.read_text())[first] == "f" * 64


# --- Seated policies ----------------------------------------------------------------------

def test_a_seated_policy_plays_each_part_in_its_own_seats(tmp_path):
    path = save_policy(tmp_path / "seated.npz", seated_policy([(constant(0), 1),
                                                                (constant(1), 1)]))
    policy = load_policy(path)
    assert isinstance(policy, SeatedPolicy) and [s for _, s in policy.parts] == [1, 1]
    seated = play("firefighting_graph", FG_ROW, 11, population="policy:2", policy=str(path))
    fixed = play("firefighting_graph", FG_ROW, 11, population="fixed0:1,fixed1:1")
    pd.testing.assert_frame_equal(seated.datacollector.get_model_vars_dataframe(),
                                  fixed.datacollector.get_model_vars_dataframe())
    swapped = play("firefighting_graph", FG_ROW, 11, population="fixed1:1,fixed0:1")
    assert not seated.datacollector.get_model_vars_dataframe().equals(
        swapped.datacollector.get_model_vars_dataframe())


def test_a_seated_policy_for_other_seats_or_nested_or_damaged_is_refused(tmp_path):
    path = save_policy(tmp_path / "three.npz", seated_policy([(constant(0), 2),
                                                               (constant(1), 1)]))
    with pytest.raises(ValueError, match="plays 3 'policy' seats, but the population seats 2"):
        GAMES["firefighting_graph"].model(**FG_ROW, population="policy:2", policy=str(path))
    with pytest.raises(ValueError, match="cannot itself be a seated policy"):
        SeatedPolicy([(load_policy(path), 1)])
    with pytest.raises(PolicyError, match="for one game"):
        seated_policy([(constant(0), 1), (constant(0, "stag_hunt", {}), 1)])
    fields = dict(np.load(path))
    del fields["part1_bias"]
    np.savez(tmp_path / "damaged.npz", **fields)
    with pytest.raises(PolicyError, match="part 1: the field 'bias' is missing"):
        load_policy(tmp_path / "damaged.npz")


# --- Scoring ------------------------------------------------------------------------------

def small(scenario_id, episodes=6):
    return dataclasses.replace(scenarios()[scenario_id], episodes=episodes)


def test_an_evaluation_scores_the_episodes_played_by_hand(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scenario = small("bucket_brigade/free_riders_v2")
    mine = [str(save_policy("mine.npz", constant(3, "bucket_brigade", scenario.parameters)))]
    row = scoring.evaluate(scenario, "policy", mine, "out", seed=5, progress=False)
    focal, background = [], []
    for run in scoring.study(scenario, "policy", mine, "out", 5).runs():
        model = play("bucket_brigade", run.parameters, run.seed)
        rewards = [agent.reward for agent in model.seats]
        focal.append(np.mean(rewards[:2]))
        background.append(np.mean(rewards[2:]))
    assert row["n"] == 6
    assert row["focal_return"] == pytest.approx(np.mean(focal))
    assert row["background_return"] == pytest.approx(np.mean(background))
    assert row["focal_return_low"] < row["focal_return"] < row["focal_return_high"]
    assert set(scenario.metrics) <= set(row)


def test_an_evaluation_reproduces_from_its_seed_whatever_its_name_and_files_place(tmp_path,
                                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)
    scenario = small("firefighting_graph/trained_partner_v1", 12)
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    mine = save_policy(tmp_path / "here" / "policy.npz", constant(1))
    elsewhere = (tmp_path / "there" / "copy.npz")
    elsewhere.write_bytes(mine.read_bytes())
    first = scoring.evaluate(scenario, "policy", [str(mine)], "out", "a", seed=1,
                             progress=False)
    again = scoring.evaluate(scenario, "policy", [str(elsewhere)], "out", "b", seed=1,
                             progress=False)
    resumed = scoring.evaluate(scenario, "policy", [str(mine)], "out", "a", seed=1,
                               progress=False)
    other = scoring.evaluate(scenario, "policy", [str(mine)], "out", "a", seed=2,
                             progress=False)
    assert first == again == resumed
    assert other["focal_return"] != first["focal_return"]
    assert sorted(p.name for p in (tmp_path / "out" / "a").iterdir()) == [
        "firefighting_graph-trained_partner_v1-seed1",
        "firefighting_graph-trained_partner_v1-seed2"]


def test_a_policy_beside_a_bot_plays_their_seated_policy_named_by_its_contents(tmp_path,
                                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    scenario = small("firefighting_graph/trained_partner_v1", 4)
    mine = save_policy(tmp_path / "mine.npz", constant(1))
    study = scoring.study(scenario, "policy", [str(mine)], "out", 0)
    written = sorted((tmp_path / "out" / "policies").glob("*.npz"))
    assert len(written) == 1 and study.fixed["policy"] == f"out/policies/{written[0].name}"
    assert study.fixed["population"] == "policy:1,policy:1"
    seated = load_policy(written[0])
    assert [part.kind for part, _ in seated.parts] == ["linear", "network"]
    assert scoring.study(scenario, "policy", [str(mine)], "out", 0) == study
    save_policy(mine, constant(0))  # a changed file is a different study
    assert scoring.study(scenario, "policy", [str(mine)], "out", 0).fixed["policy"] \
        != study.fixed["policy"]


def test_learned_baselines_split_their_episodes_over_the_training_seeds(tmp_path,
                                                                        monkeypatch):
    monkeypatch.chdir(tmp_path)
    scenario = small("firefighting_graph/team_v1", 12)
    files = [str(save_policy(tmp_path / f"seed-{i}.npz", constant(i))) for i in range(2)]
    third = constant(1)
    third.bias[0] = 0.5
    files.append(str(save_policy(tmp_path / "seed-2.npz", third)))
    study = scoring.study(scenario, "policy", files, "out", 0)
    assert study.replicates == 4 and len(study.sweep["policy"]) == 3


def test_standing_ranks_among_the_baselines_and_normalises_between_random_and_the_best():
    table = pd.DataFrame({"scenario": ["s"] * 3, "baseline": ["random", "a", "b"],
                          "focal_return": [-10.0, 0.0, 10.0]})
    assert scoring.standing({"scenario": "s", "focal_return": 5.0}, table) == {
        "rank": "2 of 4", "best": "b 10", "normalised": 0.75}
    assert scoring.standing({"scenario": "t", "focal_return": 5.0}, table)["rank"] == ""


# --- The stored baselines -----------------------------------------------------------------

def test_the_stored_baselines_cover_every_scenario_with_every_baseline():
    table = baselines.stored()
    for scenario in scenarios().values():
        here = table[table["scenario"] == scenario.id]
        wanted = {"random", *baselines.scripted(scenario.game), *baselines.LEARNED}
        if baselines.exact_optimum(scenario) is not None:
            wanted.add("optimum")
        assert set(here["baseline"]) == wanted, scenario.id
        played = here[here["baseline"] != "optimum"]
        assert (played["n"] == scenario.episodes).all(), scenario.id
        assert (here["seed"] == 0).all()
        assert (here["training"] == baselines.training_digest(scenario.game)).all(), \
            f"{scenario.id}: the baselines were trained with another [training]: recompute"
        assert (played["focal_return_low"] <= played["focal_return"]).all()
        assert (played["focal_return"] <= played["focal_return_high"]).all()


def test_the_optimum_is_the_best_any_baseline_scores_within_its_interval():
    table = baselines.stored()
    team = table[table["scenario"] == "firefighting_graph/team_v1"].set_index("baseline")
    optimum = team.loc["optimum", "focal_return"]
    assert optimum == pytest.approx(-5.806353540740741, abs=1e-6)
    assert (team.drop("optimum")["focal_return_low"] <= optimum).all()


def test_the_leaderboard_shows_every_scenario_and_its_best_scripted_behaviour():
    text = baselines.leaderboard()
    for scenario_id in scenarios():
        assert f"`{scenario_id}`" in text
    best = baselines.best_scripted(baselines.stored())
    row = best[best["scenario"] == "stag_hunt/hare_partner_v2"].iloc[0]
    assert f"({row['baseline']})" in text.split("`stag_hunt/hare_partner_v2`")[1].split("\n")[0]


# --- The commands -------------------------------------------------------------------------

def test_scenarios_lists_every_id_and_describes_one(capsys):
    assert main(["scenarios"]) == 0
    out = capsys.readouterr().out
    assert all(scenario_id in out for scenario_id in scenarios())
    assert main(["scenarios", "stag_hunt/hare_partner_v2"]) == 0
    out = capsys.readouterr().out
    assert "1 focal of 2 seats, background hare_hunter:1" in out and "naive" in out


@pytest.mark.parametrize("scenario_id", ["firefighting_graph/left_partner_v1",
                                         "firefighting_graph/trained_partner_v1"])
def test_evaluate_replays_a_behaviours_stored_baseline_and_places_it(tmp_path, capsys,
                                                                     monkeypatch, scenario_id):
    monkeypatch.chdir(tmp_path)
    assert main(["evaluate", "fixed1", "--scenario", scenario_id, "--no-progress",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out
    scores = pd.read_csv(tmp_path / "results/scenarios/fixed1/scores.csv")
    stored = baselines.stored().set_index(["scenario", "baseline"])
    # the default out and seed play the very runs of the stored baseline, bot or not
    for column in ("focal_return", "background_return", "focal_return_low"):
        assert scores[column].iloc[0] == pytest.approx(stored.loc[(scenario_id, "fixed1"),
                                                                  column], rel=1e-9)
    assert re.search(rf"{scenario_id}\s+1200 ", out)
    assert scores["rank"].iloc[0].endswith(" of 8")
    assert (tmp_path / "results/scenarios/fixed1/firefighting_graph.png").exists()


@pytest.mark.parametrize("arguments, fragment", [
    (["evaluate", "random", "--scenario", "nope"], "'nope' is not a scenario id"),
    (["evaluate", "missing.npz", "--scenario", "stag_hunt"], "'missing.npz' does not exist"),
    (["evaluate", "firefighter", "--scenario", "stag_hunt/self_play_v2"],
     "the behaviour 'firefighter' is a behaviour of bucket_brigade, not stag_hunt"),
    (["evaluate", "x.toml", "--seed", "3"], "--name and --seed are for --scenario"),
    (["evaluate", "q_learning", "--scenario", "stag_hunt/self_play_v2"],
     "'q_learning' is a learner, which would play untrained"),
    (["evaluate", "policy", "--scenario", "stag_hunt/self_play_v2"],
     "the focal seats of 'policy' need a policy file"),
    (["evaluate", ".", "--scenario", "stag_hunt"], "the policy file '.' is not a file"),
    (["evaluate", "random", "--scenario", "stag_hunt", "--name", "../up"],
     "--name: name='../up' must be"),
    (["scenarios", "nope"], "'nope' is not a scenario id, a game or 'all'"),
])
def test_evaluate_with_a_bad_request_exits_2_with_one_line(tmp_path, capsys, monkeypatch,
                                                          arguments, fragment):
    monkeypatch.chdir(tmp_path)
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1


def test_all_means_the_scenarios_of_the_policys_or_the_behaviours_game(tmp_path):
    from dilemmas.cli.scenarios import playable

    path = str(save_policy(tmp_path / "fg.npz", constant(0)))
    assert {s.game for s in playable(select("all"), [path], True, "all")} == \
        {"firefighting_graph"}
    with pytest.raises(ValueError, match="is for firefighting_graph, not stag_hunt"):
        playable(select("stag_hunt"), [path], True, "stag_hunt")
    assert {s.game for s in playable(select("all"), ["random"], False, "all")} == \
        set(catalogue.catalogues())
    assert {s.game for s in playable(select("all"), ["hero"], False, "all")} == \
        {"bucket_brigade"}


def test_the_learned_baselines_train_every_seat_on_the_substrate_and_bots_on_their_own_seed():
    for game, found in catalogue.catalogues().items():
        trainings = baselines.trainings(game)
        seats = baselines.seats(game)
        assert trainings["q_learning"].population == f"q_learning:{seats}"
        assert trainings["q_learning"].episodes == found.training["episodes"]
        for algorithm, reward in (("ippo", "own"), ("mappo", "mean")):
            training = trainings[algorithm]
            assert (training.algorithm, training.ppo["reward"]) == (algorithm, reward)
            assert training.population == f"policy:{seats}"
            assert training.updates == found.training["updates"]
        for training in trainings.values():
            assert training.parameters == found.substrate
            assert (training.seeds, training.seed) == (found.training["seeds"],
                                                       found.training["seed"])
        for bot in found.bots.values():
            training = baselines.bot_training(bot)
            assert (training.algorithm, training.seeds, training.seed) == \
                (bot.algorithm, 1, bot.seed)
            assert bot.seed != found.training["seed"]


def test_several_policy_files_share_a_scenarios_episodes(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    policies = [constant(0), constant(1), constant(1)]
    policies[2].bias[0] = 0.5  # another file, the same play
    files = [str(save_policy(tmp_path / "a" / f"policy-{i}.npz", policy))
             for i, policy in enumerate(policies)]
    assert main(["evaluate", *files, "--scenario", "firefighting_graph/team_v1",
                 "--no-progress", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    (folder,) = (tmp_path / "results/scenarios").glob("policy-0-x3-*")
    study = json.loads((folder / "firefighting_graph-team_v1" / "study.json").read_text())
    assert len(study["sweep"]["policy"]) == 3 and study["replicates"] == 400
    assert re.search(r"firefighting_graph/team_v1\s+1200 ", out)
    assert main(["evaluate", files[0], files[0], "--scenario", "firefighting_graph"]) == 2
    assert "hold the same policy" in capsys.readouterr().err
    stag = str(save_policy(tmp_path / "stag.npz", constant(0, "stag_hunt", {})))
    assert main(["evaluate", files[0], stag, "--scenario", "all"]) == 2
    assert "the policy files are for different games" in capsys.readouterr().err
    assert main(["evaluate", "a.toml", "b.toml"]) == 2
    assert "one training file at a time" in capsys.readouterr().err
