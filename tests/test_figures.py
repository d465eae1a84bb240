"""Paper figures: each game's figures drawn from a small study, saved as PDF and PNG."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from analysis import figures  # noqa: E402
from analysis.runner import run_study  # noqa: E402
from analysis.studies import Study  # noqa: E402

MAGIC = {"pdf": b"%PDF", "png": b"\x89PNG\r\n\x1a\n"}

#: A small study of each game: two values of each swept parameter, short episodes.
STUDIES = {
    "bucket_brigade": dict(sweep={"population": ["firefighter", "free_rider"],
                                  "beta": [0.1, 0.4], "kappa": [0.3, 0.9]}),
    "state_punishment": dict(fixed={"max_steps": 15},
                             sweep={"population": ["civic_voter", "greedy_forager"],
                                    "initial_punishment": [0.0, 0.8]}),
    "stag_hunt": dict(fixed={"agent_config": [{}, {}, {}], "max_steps": 15},
                      sweep={"population": ["stag_hunter", "cooperator"],
                             "heal_delay": [0, 2]}),
    "firefighting_graph": dict(fixed={"max_steps": 15},
                               sweep={"population": ["random", "belief_tracker"],
                                      "p_ignite": [0.1, 0.5]}),
}
#: The parameter each figure needs swept, and a study sweeping something else instead.
NEEDS = {
    ("bucket_brigade", "saved_vs_beta"): ("beta", {"kappa": [0.3, 0.9]}),
    ("bucket_brigade", "lie_rate_by_mix"): ("population", {"beta": [0.1, 0.4]}),
    ("state_punishment", "harm_vs_initial_punishment"):
        ("initial_punishment", {"population": ["civic_voter", "greedy_forager"]}),
    ("stag_hunt", "coordinated_kills_vs_heal_delay"):
        ("heal_delay", {"population": ["stag_hunter", "cooperator"]}),
    ("stag_hunt", "catch_by_behaviour"): ("population", {"heal_delay": [0, 2]}),
    ("firefighting_graph", "fire_vs_ignition"):
        ("p_ignite", {"population": ["random", "belief_tracker"]}),
}
CASES = [(game, name) for game in figures.FIGURES for name in figures.FIGURES[game]]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Each game's small study, run serially: {game: its results folder}."""
    out = tmp_path_factory.mktemp("results")
    return {game: run_study(Study(game=game, name=f"small_{game}", replicates=3, seed=7,
                                  **spec), out, backend="serial", progress=False).folder
            for game, spec in STUDIES.items()}


def check_files(paths, stem):
    assert [p.name for p in paths] == [f"{stem}.pdf", f"{stem}.png"]
    for path in paths:
        data = path.read_bytes()
        assert data.startswith(MAGIC[path.suffix[1:]]), path
        assert len(data) > 1000, path


def texts(figure):
    """Title, axis labels and legend entries of a figure."""
    axes = [ax for ax in figure.axes if ax.get_visible()]
    legends = [*figure.legends, *(ax.get_legend() for ax in axes if ax.get_legend())]
    return dict(
        title=figure.get_suptitle() or " ".join(ax.get_title() for ax in axes),
        xlabel=figure.get_supxlabel() or axes[0].get_xlabel(),
        ylabel=figure.get_supylabel() or axes[0].get_ylabel(),
        legend=[t.get_text() for legend in legends for t in legend.get_texts()])


def test_every_game_has_two_figures():
    assert set(figures.FIGURES) == set(STUDIES)
    assert all(len(named) >= 2 for named in figures.FIGURES.values())


@pytest.mark.parametrize("game, name", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_figure_is_labelled_and_saved_as_pdf_and_png(folders, tmp_path, game, name):
    figure = figures.FIGURES[game][name](folders[game])
    assert isinstance(figure, Figure)
    labels = texts(figure)
    assert labels["title"] and labels["xlabel"] and labels["ylabel"], labels
    assert labels["legend"], labels
    assert "(" in labels["ylabel"], "the y axis names its unit or '(fraction)'"
    check_files(figures.save(figure, tmp_path / "new" / "dir", name), name)
    assert figure._repr_png_().startswith(MAGIC["png"])  # shown in a notebook
    assert plt.get_fignums() == []  # nothing left open in pyplot


def test_lines_follow_the_sweep_with_a_band_per_line(folders):
    figure = figures.saved_vs_beta(folders["bucket_brigade"])
    panels = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["population = firefighter",
                                                 "population = free_rider"]
    for ax in panels:
        assert [line.get_label() for line in ax.get_lines()] == ["0.3", "0.9"]
        assert len(ax.collections) == 2  # one confidence band per line
        assert list(ax.get_lines()[0].get_xdata()) == [0.1, 0.4]


def test_same_data_gives_the_same_files(folders, tmp_path):
    first = figures.save(figures.lie_rate_by_mix(folders["bucket_brigade"]), tmp_path / "a", "f")
    again = figures.save(figures.lie_rate_by_mix(folders["bucket_brigade"]), tmp_path / "b", "f")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in again]


def test_make_figures_saves_every_figure_of_every_study(folders, tmp_path):
    paths = figures.make_figures(list(folders.values()), tmp_path / "figures")
    expected = {f"small_{game}_{name}.{fmt}" for game, name in CASES for fmt in ("pdf", "png")}
    assert {p.name for p in paths} == expected
    assert {p.name for p in (tmp_path / "figures").iterdir()} == expected
    for path in paths:
        assert path.read_bytes().startswith(MAGIC[path.suffix[1:]])


@pytest.mark.parametrize("game, name", list(NEEDS), ids=[f"{g}-{n}" for g, n in NEEDS])
def test_a_figure_needs_its_parameter_swept(tmp_path, game, name):
    parameter, sweep = NEEDS[game, name]
    fixed = {key: value for key, value in STUDIES[game].get("fixed", {}).items()
             if key not in sweep}
    study = Study(game=game, name="partial", replicates=2, fixed=fixed, sweep=sweep)
    folder = run_study(study, tmp_path, backend="serial", progress=False).folder
    with pytest.raises(ValueError, match=rf"'{name}'.*'{parameter}'"):
        figures.FIGURES[game][name](folder)
    with pytest.raises(ValueError, match=rf"'{name}'.*'{parameter}'"):
        figures.make_figures([folder], tmp_path / "figures")
    # the game's other figures draw it, a parameter not swept giving one line or panel
    for other, draw in figures.FIGURES[game].items():
        if (game, other) not in NEEDS or NEEDS[game, other][0] in sweep:
            check_files(figures.save(draw(folder), tmp_path, other), other)
