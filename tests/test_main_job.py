"""The main job (``make run``) and the sweep summary it prints."""

import pandas as pd
import pytest

from analysis import bucket_brigade, firefighting_graph, stag_hunt, state_punishment
from analysis import results
from analysis.main_job import GAMES, STUDIES, main
from analysis.studies import Study
from models.bucket_brigade import BucketBrigadeModel
from models.firefighting_graph import FirefightingGraphModel
from models.stag_hunt import StagHuntModel
from models.state_punishment import StatePunishmentModel


def test_main_job_runs_a_study_per_game_and_writes_results_and_figures(tmp_path, capsys):
    main(["--replicates", "2", "--workers", "2", "--out", str(tmp_path), "--no-progress"])
    printed = capsys.readouterr().out
    columns = {"bucket_brigade": ("saved", "lie_rate", "work_rate", "cooperation"),
               "state_punishment": ("mean_p", "votes_up", "harm"),
               "firefighting_graph": ("mean_fire", "doubled", "flame_rate"),
               "stag_hunt": ("stags", "coordinated", "stag_share")}
    assert set(GAMES) == set(columns)
    for game, (module, title) in GAMES.items():
        study = Study.from_file(STUDIES / f"{game}.toml")
        folder = tmp_path / f"{study.name}_2"
        assert f"{title}: {len(study.combinations()) * 2} runs" in printed
        assert str(folder) in printed
        for mix in study.sweep["population"]:
            assert mix in printed
        for column in columns[game]:
            assert column in printed
        assert len(results.episodes(folder)) == len(study.combinations()) * 2
    pdfs = sorted((tmp_path / "figures").glob("*.pdf"))
    assert len(pdfs) >= 2 * len(GAMES)
    for pdf in pdfs:
        assert pdf.with_suffix(".png").stat().st_size > 0 and pdf.stat().st_size > 0


@pytest.mark.parametrize("population", ["random", "firefighter:2,free_rider:2"])
def test_episode_rows_match_a_direct_run_of_the_model(population):
    episodes = bucket_brigade.episode_table(
        bucket_brigade.sweep(populations=[population], seeds=[5, 6], processes=1))
    for row in episodes.itertuples():
        model = BucketBrigadeModel(population=population, rng=int(row.seed))
        model.run_model()
        frame = model.datacollector.get_model_vars_dataframe().iloc[1:]
        assert row.nights == model.night
        assert row.saved == model.safe / 10 and row.ruined == model.ruined / 10
        assert row.lies == model.cumulative_lies
        assert row.work_rate == pytest.approx(frame["work_rate"].mean())
        assert row.lie_rate == pytest.approx(model.cumulative_lies / (4 * model.night))
        fire_nights = frame["cooperation_rate"].dropna()
        assert row.cooperation == pytest.approx(fire_nights.mean())
        assert row.team_reward == pytest.approx(model.team_reward)
        for behaviour in {agent.behaviour for agent in model.seats}:
            rewards = [agent.reward for agent in model.seats if agent.behaviour == behaviour]
            assert getattr(row, f"reward_{behaviour}") == pytest.approx(
                sum(rewards) / len(rewards))


@pytest.mark.parametrize("population", ["random", "greedy_forager:2,civic_voter:1"])
def test_state_punishment_episode_rows_match_a_direct_run(population):
    episodes = state_punishment.episode_table(
        state_punishment.sweep(populations=[population], seeds=[3], processes=1))
    row = episodes.iloc[0]
    model = StatePunishmentModel(population=population, rng=3)
    model.run_model()
    frame = model.datacollector.get_model_vars_dataframe().iloc[1:]
    assert row.turns == model.turn == 100
    assert row.mean_p == pytest.approx(frame["punishment_level"].mean())
    assert row.final_p == model.punishment_level
    assert (row.votes_up, row.votes_down) == (model.cumulative_votes_up,
                                              model.cumulative_votes_down)
    assert row.collected == model.collected
    assert row.harm == pytest.approx(model.social_harm_generated)
    assert row.punishment == pytest.approx(model.punishment_total)
    assert row.mean_reward == pytest.approx(model.mean_reward)
    for behaviour in {agent.behaviour for agent in model.seats}:
        rewards = [agent.reward for agent in model.seats if agent.behaviour == behaviour]
        assert row[f"reward_{behaviour}"] == pytest.approx(sum(rewards) / len(rewards))


def test_firefighting_graph_episode_rows_match_a_direct_run():
    episodes = firefighting_graph.episode_table(firefighting_graph.sweep(
        populations=["belief_tracker:5,random:5"], seeds=[4], processes=1))
    row = episodes.iloc[0]
    model = FirefightingGraphModel(population="belief_tracker:5,random:5", rng=4)
    model.run_model()
    frame = model.datacollector.get_model_vars_dataframe().iloc[1:]
    assert row.steps == model.t
    assert row.mean_fire == pytest.approx(frame["mean_fire"].mean())
    assert row.final_fire == model.mean_fire and row.burning == model.burning_houses
    assert row.mean_reward == pytest.approx(model.mean_reward)
    for behaviour in ("belief_tracker", "random"):
        rewards = [agent.reward for agent in model.seats if agent.behaviour == behaviour]
        assert row[f"reward_{behaviour}"] == pytest.approx(sum(rewards) / len(rewards))


def test_stag_hunt_episode_rows_match_a_direct_run():
    population = "cooperator:1,stag_hunter:1,hare_hunter:1"
    episodes = stag_hunt.episode_table(stag_hunt.sweep(
        populations=[population], seeds=[2, 7], processes=1, num_agents_to_spawn=3))
    for row in episodes.itertuples():
        model = StagHuntModel(population=population, num_agents_to_spawn=3, rng=int(row.seed))
        model.run_model()
        frame = model.datacollector.get_model_vars_dataframe().iloc[1:]
        assert row.turns == model.turn == 50
        assert (row.stags, row.hares) == (model.stags_defeated, model.hares_defeated)
        assert row.coordinated == model.coordinated_stag_kills
        assert row.attacks == frame["attacks"].sum()
        assert row.punishments == frame["punishments"].sum()
        assert row.removals == model.removals
        assert row.mean_reward == pytest.approx(model.mean_reward)
        for agent in model.seats:
            assert getattr(row, f"reward_{agent.behaviour}") == pytest.approx(agent.reward)
