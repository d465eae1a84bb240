"""Issue 45 item 1: the files the dashboard exports (``dilemmas.dashboard.export``) hold what
the page shows: the rows read back equal the model's DataCollector rows (Parquet exactly,
CSV as numbers), the pictures are PNG and SVG documents (the world with the page's caption
and its key), and every
name says the game, the parameters, the seed and the round drawn. The browser's side (the
buttons, the downloads) is in ``test_dashboard_browser.py``."""

import io
import xml.etree.ElementTree as ElementTree

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from dilemmas import GAMES
from dilemmas.dashboard import export
from dilemmas.dashboard.panels import WIDE
from dilemmas.dashboard.play import Session, shown
from dilemmas.dashboard.viewer import exported

SVG = "{http://www.w3.org/2000/svg}svg"
TEXT = "{http://www.w3.org/2000/svg}text"


def test_a_name_says_the_game_the_parameters_sorted_and_the_seed():
    assert export.stem("bucket_brigade", {"population": "firefighter:3,free_rider:2",
                                          "num_agents": 5}, 7) \
        == "bucket_brigade_num_agents-5_population-firefighter-3-free_rider-2_seed7"
    assert export.stem("stag_hunt", {}, 1) == "stag_hunt_seed1"
    assert export.stem("x", {"work_costs": (0.5, 1.0)}, 2) == "x_work_costs-0.5-1.0_seed2"
    long = {"ascii_map": "#####\n#A.B#\n" * 20}
    named = export.stem("stag_hunt", long, 3)
    assert named.startswith("stag_hunt_parameters-") and named.endswith("_seed3")
    assert named != export.stem("stag_hunt", {"ascii_map": "#" + long["ascii_map"]}, 3)
    assert len(named) < 60


def files_of(exports) -> dict:
    """file name -> content, asked for as a download asks."""
    return {name: make() for _, name, make in export.files(exports)}


def as_bytes(content) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else content


def check_pictures(game, files: dict, model, round_: int, current=None, caption=""):
    prefix = f"_{game.round}{round_}_"
    pictures = {n: c for n, c in files.items() if n.endswith((".png", ".svg"))}
    assert len(pictures) == 2 * ((model is not None) + len(game.view.plots))
    for name, content in pictures.items():
        assert prefix in name, name
        if name.endswith(".png"):
            image = Image.open(io.BytesIO(content))
            assert image.format == "PNG"
            if name.endswith("_world.png"):   # the world, its caption above, its key
                scene = game.view.scene(model)
                width, height = image.size
                assert width >= round(scene.width * scene.scale) + 100 or \
                    scene.width / scene.height > WIDE
                assert height >= round(scene.height * scene.scale) + 30
        else:
            root = ElementTree.fromstring(as_bytes(content))
            assert root.tag == SVG
    if model is not None:
        world = pictures[next(n for n in pictures if n.endswith("_world.svg"))]
        assert f'aria-label="{game.title}: the world"' in world
        # issue 63: the caption the page shows, the status line and every entry of the key
        written = " ".join(t.text or "" for t in ElementTree.fromstring(as_bytes(world)).iter(
            TEXT))
        for line in (caption, game.view.status(model),
                     *(entry.label for entry in game.view.key(model))):
            assert line in written, line
    for index, plot in enumerate(game.view.plots):
        svg = next(c for n, c in pictures.items() if f"_plot{index + 1}-" in n
                   and n.endswith(".svg"))
        assert f'aria-label="{plot.title}"' in svg
        if current is not None:  # the round marked, as in the page
            assert 'stroke-dasharray="2 2"' in svg


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_live_games_files_hold_its_rows_world_and_plots(name, tmp_path):
    game = GAMES[name]
    session = Session(game, {}, 4)
    for _ in range(3):
        session.model.step()
    model = session.model
    files = files_of(shown(game, session, model))
    stem = f"{name}_seed4"
    rows = model.datacollector.get_model_vars_dataframe()
    read = pd.read_parquet(io.BytesIO(files[f"{stem}_model.parquet"]))
    assert list(read["Step"]) == list(range(model.steps + 1))
    pd.testing.assert_frame_equal(read.drop(columns="Step"), rows.reset_index(drop=True))
    from_csv = pd.read_csv(io.BytesIO(files[f"{stem}_model.csv"]))
    assert list(from_csv.columns) == ["Step", *rows.columns]
    numeric = rows.select_dtypes("number").columns
    np.testing.assert_allclose(from_csv[numeric].to_numpy(float),
                               rows[numeric].to_numpy(float), equal_nan=True)
    agents = model.datacollector.get_agent_vars_dataframe()
    if not agents.empty:
        read = pd.read_parquet(io.BytesIO(files[f"{stem}_agents.parquet"]))
        pd.testing.assert_frame_equal(read.set_index(["Step", "AgentID"]), agents)
        from_csv = pd.read_csv(io.BytesIO(files[f"{stem}_agents.csv"]))
        assert len(from_csv) == len(agents)
    check_pictures(game, files, model, model.steps,
                   caption=f"{game.title}: {game.round} 3 · population "
                           f"{model.population} · seed 4")


def test_a_live_games_name_follows_its_accepted_values_not_a_refused_one():
    game = GAMES["firefighting_graph"]
    session = Session(game, {"n_agents": 3, "n_width": 1000}, 2)
    names = files_of(shown(game, session, session.model))
    assert "firefighting_graph_n_agents-3_seed2_model.csv" in names


def test_a_recorded_runs_files_hold_its_stored_rows_and_the_round_shown(tmp_path):
    from dilemmas.analysis.studies.runner import run_study
    from dilemmas.analysis.studies.study import Study
    from dilemmas.dashboard import runs

    (tmp_path / "bb.toml").write_text(
        'game = "bucket_brigade"\nseed = 4\nreplicates = 1\ncollect = ["model", "agent"]\n'
        '[fixed]\nmax_steps = 12\n[sweep]\nnum_agents = [5]\n')
    folder = run_study(Study.from_file(tmp_path / "bb.toml"), tmp_path / "results",
                       backend="serial", progress=False).folder
    (entry,) = runs.list_runs(folder)
    recording = runs.open_run(folder, entry["run_id"])
    model = runs.model_at(recording, 5)
    data = {c: recording.rows[c].tolist() for c in recording.rows}
    files = files_of(exported(recording, 5, model, data))
    stem = f"bucket_brigade_num_agents-5_run-{recording.run_id}_seed{recording.seed}"
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(files[f"{stem}_model.parquet"])),
                                  recording.rows)
    pd.testing.assert_frame_equal(
        pd.read_parquet(io.BytesIO(files[f"{stem}_agents.parquet"])), recording.agent_rows)
    check_pictures(recording.game, files, model, 5, current=5,
                   caption=f"{recording.name} · Bucket Brigade · night 5 of "
                           f"{recording.rounds} · seed {recording.seed}")
    unbuilt = files_of(exported(recording, 5, None, data))  # no world: none exported
    assert not any("_world." in name for name in unbuilt)
