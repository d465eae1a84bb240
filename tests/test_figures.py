"""Paper figures: each game's figures drawn from a small study, saved as PDF and PNG."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from analysis import figures  # noqa: E402
from analysis.bucket_brigade import lie_rate_by_mix, saved_vs_beta  # noqa: E402
from analysis.runner import run_study  # noqa: E402
from analysis.studies import Study  # noqa: E402
from models import GAMES  # noqa: E402

MAGIC = {"pdf": b"%PDF", "png": b"\x89PNG\r\n\x1a\n"}
CASES = [(game, name) for game in GAMES for name in GAMES[game].figures]


def small(study: Study, name: str, drop=None) -> Study:
    """``study`` made small: 2 replicates, episodes of at most 15 steps, the first two
    values of each swept parameter; ``drop``: a swept parameter fixed at its first value."""
    sweep = {key: values[:2] for key, values in study.sweep.items() if key != drop}
    fixed = {**study.fixed, "max_steps": 15,
             **({drop: study.sweep[drop][0]} if drop else {})}
    return Study(game=study.game, name=name, replicates=2, seed=7, fixed=fixed, sweep=sweep)


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Each registered game's example study, made small and run serially: {game: folder}."""
    out = tmp_path_factory.mktemp("results")
    return {game: run_study(small(Study.from_file(GAMES[game].study), f"small_{game}"), out,
                            backend="serial", progress=False).folder
            for game in GAMES}


@pytest.fixture(scope="module")
def bucket_brigade_folder(tmp_path_factory):
    study = Study(game="bucket_brigade", name="lines", replicates=3, seed=7,
                  sweep={"population": ["firefighter", "free_rider"], "beta": [0.1, 0.4],
                         "kappa": [0.3, 0.9]})
    return run_study(study, tmp_path_factory.mktemp("lines"), backend="serial",
                     progress=False).folder


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


def test_every_game_has_figures():
    assert all(len(GAMES[game].figures) >= 2 for game in list(GAMES)[:4])
    assert all(GAMES[game].figures for game in GAMES)


@pytest.mark.parametrize("game, name", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_figure_is_labelled_and_saved_as_pdf_and_png(folders, tmp_path, game, name):
    figure = GAMES[game].figures[name](folders[game])
    assert isinstance(figure, Figure)
    labels = texts(figure)
    assert labels["title"] and labels["xlabel"] and labels["ylabel"], labels
    assert labels["legend"], labels
    assert "(" in labels["ylabel"], "the y axis names its unit or '(fraction)'"
    check_files(figures.save(figure, tmp_path / "new" / "dir", name), name)
    assert figure._repr_png_().startswith(MAGIC["png"])  # shown in a notebook
    assert plt.get_fignums() == []  # nothing left open in pyplot


def test_lines_follow_the_sweep_with_a_band_per_line(bucket_brigade_folder):
    figure = saved_vs_beta(bucket_brigade_folder)
    panels = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["population = firefighter",
                                                 "population = free_rider"]
    for ax in panels:
        assert [line.get_label() for line in ax.get_lines()] == ["0.3", "0.9"]
        assert len(ax.collections) == 2  # one confidence band per line
        assert list(ax.get_lines()[0].get_xdata()) == [0.1, 0.4]


def test_same_data_gives_the_same_files(folders, tmp_path):
    first = figures.save(lie_rate_by_mix(folders["bucket_brigade"]), tmp_path / "a", "f")
    again = figures.save(lie_rate_by_mix(folders["bucket_brigade"]), tmp_path / "b", "f")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in again]


def test_make_figures_saves_every_figure_of_every_study(folders, tmp_path):
    paths = figures.make_figures(list(folders.values()), tmp_path / "figures")
    expected = {f"small_{game}_{name}.{fmt}" for game, name in CASES for fmt in ("pdf", "png")}
    assert {p.name for p in paths} == expected
    assert {p.name for p in (tmp_path / "figures").iterdir()} == expected
    for path in paths:
        assert path.read_bytes().startswith(MAGIC[path.suffix[1:]])


DROPS = [(game, parameter) for game in GAMES
         for parameter in Study.from_file(GAMES[game].study).sweep]


@pytest.mark.parametrize("game, parameter", DROPS, ids=[f"{g}-{p}" for g, p in DROPS])
def test_a_figure_draws_without_a_swept_parameter_or_names_it(tmp_path, game, parameter):
    # Each figure of a study that does not sweep ``parameter`` either draws (one line or
    # panel for it) or raises a ValueError naming the figure and the parameter it needs.
    study = small(Study.from_file(GAMES[game].study), "partial", drop=parameter)
    folder = run_study(study, tmp_path, backend="serial", progress=False).folder
    for name, draw in GAMES[game].figures.items():
        try:
            figure = draw(folder)
        except ValueError as error:
            assert f"'{name}'" in str(error) and f"'{parameter}'" in str(error), error
            with pytest.raises(ValueError, match=rf"'{name}'.*'{parameter}'"):
                figures.make_figures([folder], tmp_path / "figures")
        else:
            check_files(figures.save(figure, tmp_path, name), name)
