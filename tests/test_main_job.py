"""The main job (``make run``), and each game's episode statistics against a direct run."""

import pytest

from dilemmas.analysis.studies import results
from dilemmas.analysis.bucket_brigade import statistics as bucket_brigade_statistics
from dilemmas.analysis.firefighting_graph import statistics as firefighting_graph_statistics
from dilemmas.analysis.studies.main_job import main
from dilemmas.analysis.stag_hunt import statistics as stag_hunt_statistics
from dilemmas.analysis.state_punishment import statistics as state_punishment_statistics
from dilemmas.analysis.studies.study import Study
from dilemmas import GAMES
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.firefighting_graph.model import FirefightingGraphModel
from dilemmas.models.stag_hunt.model import StagHuntModel
from dilemmas.models.state_punishment.model import StatePunishmentModel


def test_main_job_runs_the_example_study_of_every_game_and_draws_its_figures(tmp_path,
                                                                            capsys):
    main(["--replicates", "2", "--workers", "2", "--out", str(tmp_path), "--no-progress"])
    printed = capsys.readouterr().out
    for game in GAMES.values():
        study = Study.from_file(game.study)
        folder = tmp_path / f"{study.name}_2"
        runs = len(study.combinations()) * 2
        assert f"{game.title}: {' x '.join(study.sweep)}: {runs} runs" in printed
        assert str(folder) in printed
        for mix in study.sweep["population"]:
            assert mix in printed
        for column in game.statistics(results.load(folder), "run_id").columns:
            assert column in printed
        assert len(results.episodes(folder)) == runs
    pdfs = sorted((tmp_path / "figures").glob("*.pdf"))
    assert len(pdfs) == sum(len(game.figures) for game in GAMES.values())
    for pdf in pdfs:
        assert pdf.with_suffix(".png").stat().st_size > 0 and pdf.stat().st_size > 0


def episode(model, statistics):
    """The one row of episode statistics of a model that has played."""
    return statistics(model.datacollector.get_model_vars_dataframe().assign(run=0),
                      "run").iloc[0]


@pytest.mark.parametrize("population", ["random", "firefighter:2,free_rider:2"])
def test_bucket_brigade_statistics_match_the_model(population):
    for seed in (5, 6):
        model = BucketBrigadeModel(population=population, rng=seed)
        model.run_model()
        row = episode(model, bucket_brigade_statistics)
        frame = model.datacollector.get_model_vars_dataframe().iloc[1:]
        assert row.nights == model.night
        assert row.saved == model.safe / 10 and row.ruined == model.ruined / 10
        assert row.lies == model.cumulative_lies
        assert row.work_rate == pytest.approx(frame["work_rate"].mean())
        assert row.lie_rate == pytest.approx(model.cumulative_lies / (4 * model.night))
        fire_nights = frame["cooperation_rate"].dropna()
        assert row.cooperation == pytest.approx(fire_nights.mean())
        assert row.team_reward == pytest.approx(model.team_reward)
        assert row.mean_reward == pytest.approx(model.mean_reward)


@pytest.mark.parametrize("population", ["random", "greedy_forager:2,civic_voter:1"])
def test_state_punishment_statistics_match_the_model(population):
    model = StatePunishmentModel(population=population, rng=3)
    model.run_model()
    row = episode(model, state_punishment_statistics)
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


def test_firefighting_graph_statistics_match_the_model():
    model = FirefightingGraphModel(population="belief_tracker:5,random:5", rng=4)
    model.run_model()
    row = episode(model, firefighting_graph_statistics)
    frame = model.datacollector.get_model_vars_dataframe().iloc[1:]
    assert row.steps == model.t
    assert row.mean_fire == pytest.approx(frame["mean_fire"].mean())
    assert row.final_fire == model.mean_fire and row.burning == model.burning_houses
    assert row.mean_reward == pytest.approx(model.mean_reward)


def test_stag_hunt_statistics_match_the_model():
    population = "cooperator:1,stag_hunter:1,hare_hunter:1"
    for seed in (2, 7):
        model = StagHuntModel(population=population, num_agents_to_spawn=3, rng=seed)
        model.run_model()
        row = episode(model, stag_hunt_statistics)
        frame = model.datacollector.get_model_vars_dataframe().iloc[1:]
        assert row.turns == model.turn == 50
        assert (row.stags, row.hares) == (model.stags_defeated, model.hares_defeated)
        assert row.coordinated == model.coordinated_stag_kills
        assert row.attacks == frame["attacks"].sum()
        assert row.punishments == frame["punishments"].sum()
        assert row.removals == model.removals
        assert row.mean_reward == pytest.approx(model.mean_reward)
