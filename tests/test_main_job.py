"""The main job (``make run``) and the sweep summary it prints."""

import pandas as pd
import pytest

from analysis import bucket_brigade
from analysis.main_job import main
from models.bucket_brigade import BucketBrigadeModel


def test_main_job_prints_a_row_per_mix_and_writes_the_episodes(tmp_path, capsys):
    main(["--seeds", "3", "--processes", "1", "--out", str(tmp_path)])
    printed = capsys.readouterr().out
    for mix in bucket_brigade.MIXES:
        assert mix in printed
    for column in ("saved", "lies", "work_rate"):
        assert column in printed
    episodes = pd.read_parquet(tmp_path / "bucket_brigade_episodes.parquet")
    assert len(episodes) == 3 * len(bucket_brigade.MIXES)


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
