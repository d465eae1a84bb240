"""Every game of ``models.GAMES`` runs under ``mesa.batch_run`` as it is: two processes give
the rows of one, the rows are those of the model played directly, and the seed matters."""

import mesa
import pandas as pd
import pytest

from models import GAMES

#: Two valid behaviour mixes per game, at the game's default number of agents.
MIXES = {
    "bucket_brigade": ["random", "firefighter:2,liar:2"],                 # 4 agents
    "state_punishment": ["random", "greedy_forager:1,civic_voter:2"],     # 3 agents
    "stag_hunt": ["random", "cooperator:2,hare_hunter:1"],                # 3 agents
    "firefighting_graph": ["random", "fixed0:5,belief_tracker:5"],        # a row of 10
}
KEYS = ["population", "rng", "Step", "AgentID"]


def rows(game, processes):
    frame = pd.DataFrame(mesa.batch_run(
        GAMES[game], {"population": MIXES[game]}, rng=[1, 2], number_processes=processes,
        data_collection_period=1, display_progress=False))
    # RunId is batch_run's bookkeeping, not the model's: compare by what defines a run.
    return frame.sort_values(KEYS, kind="stable").drop(columns="RunId").reset_index(drop=True)


def test_every_game_has_two_mixes():
    assert set(MIXES) == set(GAMES)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_batch_run_in_two_processes_gives_the_rows_of_one_process(game):
    single, double = rows(game, 1), rows(game, 2)
    assert len(single) > 0
    assert set(map(tuple, single[["population", "rng"]].drop_duplicates().values)) == {
        (mix, seed) for mix in MIXES[game] for seed in (1, 2)}
    pd.testing.assert_frame_equal(single, double)

    # The rows of a run are the model's own DataCollector tables, from the first collection
    # (after construction) to the last step. A model column that shares its name with an
    # agent reporter (State Punishment's votes_up, votes_down, collected) holds the agent's
    # value in batch_run's rows (analysis.sweeps), so only the others are compared.
    mix = MIXES[game][1]
    model = GAMES[game](population=mix, rng=2)
    model.run_model()
    run = single[(single["population"] == mix) & (single["rng"] == 2)]
    reported = model.datacollector.get_model_vars_dataframe()
    columns = [c for c in reported.columns if c not in GAMES[game].agent_reporters]
    per_step = run.drop_duplicates("Step").set_index("Step")[columns]
    assert list(per_step.index) == list(range(len(reported)))
    pd.testing.assert_frame_equal(per_step.reset_index(drop=True),
                                  reported[columns].reset_index(drop=True), check_dtype=False)
    agents = model.datacollector.get_agent_vars_dataframe().reset_index()
    assert len(run) == len(agents)

    # The seed is used: the two seeds of a mix do not play the same episode.
    by_seed = [single[(single["population"] == mix) & (single["rng"] == seed)]
               .drop_duplicates("Step")[columns].reset_index(drop=True) for seed in (1, 2)]
    assert not by_seed[0].equals(by_seed[1])
