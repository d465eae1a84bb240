"""Paper figures: each game's figures drawn from a small study, saved as PDF and PNG; legends
that match what is drawn, a band on every mean line, a caption under the axes, colours from
the one palette (``dilemmas.analysis.figures.colours``), the same colour for a behaviour in every figure."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from dilemmas import GAMES  # noqa: E402
from dilemmas.analysis.bucket_brigade import lie_rate_by_mix, saved_vs_beta  # noqa: E402
from dilemmas.analysis.figures import colours
from dilemmas.analysis.figures import paper as figures  # noqa: E402
from dilemmas.analysis.studies.runner import run_study  # noqa: E402
from dilemmas.analysis.studies.study import Study  # noqa: E402

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
    assert labels["legend"] or len(drawn(figure)) == 1, labels  # one series: no legend
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
        # numbers: dark to light along viridis, each with its own marker
        assert [to_hex(line.get_color()) for line in ax.get_lines()] == colours.sequential(2)
        assert len({line.get_marker() for line in ax.get_lines()}) == 2
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


# --- what is drawn, its legend, bands, caption and colours -----------------------------------

def panels(figure):
    return [ax for ax in figure.axes if ax.get_visible()]


def hexed(colour) -> str:
    return to_hex(colour, keep_alpha=False).upper()


def line_style(line) -> tuple:
    return ("line", hexed(line.get_color()), line.get_linestyle(), line.get_marker(),
            hexed(line.get_markerfacecolor()))


def patch_style(patch) -> tuple:
    return ("patch", hexed(patch.get_facecolor()))


def mean_lines(ax):
    """The lines of series drawn on ``ax`` (error bar caps and the like have a label that
    starts with "_")."""
    return [line for line in ax.get_lines() if not line.get_label().startswith("_")]


def drawn(figure) -> dict:
    """{label: the set of styles it is drawn in} of every series drawn: lines (colour,
    line style, marker, marker face) and bars (face colour)."""
    series = {}
    for ax in panels(figure):
        for line in mean_lines(ax):
            series.setdefault(line.get_label(), set()).add(line_style(line))
        for container in ax.containers:
            if isinstance(container, BarContainer):
                series.setdefault(container.get_label(), set()).update(
                    patch_style(patch) for patch in container.patches)
    return series


def legend_entries(figure) -> dict:
    """{label: style} of every legend entry of the figure."""
    legends = [*figure.legends, *(ax.get_legend() for ax in panels(figure) if ax.get_legend())]
    entries = {}
    for legend in legends:
        for handle, text in zip(legend.legend_handles, legend.get_texts()):
            style = line_style(handle) if isinstance(handle, Line2D) else patch_style(handle)
            assert text.get_text() not in entries, f"{text.get_text()!r} twice in the legend"
            entries[text.get_text()] = style
    return entries


@pytest.fixture(scope="module")
def drawings(folders):
    """Every registered figure of every game, drawn once: {(game, name): figure}."""
    return {(game, name): GAMES[game].figures[name](folders[game]) for game, name in CASES}


@pytest.mark.parametrize("game, name", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_the_legend_matches_what_is_drawn(drawings, game, name):
    figure = drawings[game, name]
    series = drawn(figure)
    assert series, "nothing drawn"
    for label, styles in series.items():  # one look per series, in every panel
        assert len(styles) == 1, (label, styles)
    looks = [next(iter(styles)) for styles in series.values()]
    entries = legend_entries(figure)
    if not entries:  # allowed only for one series of bars, named by the tick labels
        assert len(series) == 1 and looks[0][0] == "patch", series
        ax = panels(figure)[0]
        (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
        assert len(ax.get_xticklabels()) == len(bars.patches)
        return
    assert len(set(looks)) == len(looks), f"two series look alike: {series}"
    assert set(entries) == set(series), (entries, series)
    for label, style in entries.items():
        assert series[label] == {style}, (label, style, series[label])


@pytest.mark.parametrize("game, name", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_every_mean_line_has_a_band_of_its_colour(drawings, game, name):
    for ax in panels(drawings[game, name]):
        lines = mean_lines(ax)
        bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
        assert len(bands) == len(lines), (len(bands), len(lines))
        band_colours = sorted(hexed(band.get_facecolor()[0]) for band in bands)
        assert band_colours == sorted(hexed(line.get_color()) for line in lines)
        for line in lines:  # dashed or solid alike
            assert line.get_linestyle() in ("-", "--", "-.", ":")


@pytest.mark.parametrize("game, name", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_a_caption_under_the_axes_says_how_to_read_the_figure(drawings, game, name):
    figure = drawings[game, name]
    text = figures.caption(figure)
    assert "confidence interval" in text and ("runs" in text), text
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)  # runs the layout
    caption = next(t for t in figure.texts if t.get_gid() == "caption")
    box = caption.get_window_extent(renderer)
    assert box.x0 >= 0 and box.x1 <= figure.bbox.x1 + 1, "wrapped to the figure's width"
    assert box.y0 >= 0
    above = [ax.get_tightbbox(renderer).y0 for ax in panels(figure)]
    if figure.get_supxlabel():
        above.append(figure._supxlabel.get_window_extent(renderer).y0)
    assert box.y1 <= min(above) + 1, "the caption sits under the axes and their labels"
    assert caption.get_fontsize() >= 7  # readable at the saved size
    title = figure.get_suptitle()
    assert title and "\n" not in title and len(title) <= 70, title  # short titles


@pytest.mark.parametrize("game, name", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_colours_come_from_the_shared_palette(drawings, game, name):
    shared = colours.shared()
    for label, styles in drawn(drawings[game, name]).items():
        for style in styles:
            assert style[1] in shared, (label, style)


def test_a_behaviour_has_the_same_colour_in_every_figure(drawings):
    shared_labels = 0
    for game in GAMES:
        seen = {}
        for name in GAMES[game].figures:
            for label, styles in drawn(drawings[game, name]).items():
                if label in GAMES[game].behaviours:  # a population of one behaviour
                    (style,) = styles
                    expected = colours.behaviour_style(game, label)
                    assert style[1:4] == (expected.colour, expected.linestyle,
                                          expected.marker), (game, name, label)
                    if label in seen:
                        shared_labels += 1
                        assert seen[label] == style, (game, name, label)
                    seen[label] = style
    assert shared_labels  # some behaviour is drawn in two figures of a game


def test_the_time_figures_bin_the_rounds_into_windows(drawings, folders):
    figure = drawings["state_punishment", "punishment_over_time"]
    last = int(figures.results.load(folders["state_punishment"])["turn"].max())
    k = figures.window_size(last)
    assert k > 1 and f"k = {k} turns" in figures.caption(figure)
    for ax in panels(figure):
        for line in mean_lines(ax):
            x = list(line.get_xdata())
            assert x[0] == 0 and len(x) <= figures.WINDOWS + 1
            assert x[1] == (1 + k) / 2  # the middle of turns 1..k


def test_windowed_takes_each_runs_mean_over_a_window():
    table = pd.DataFrame({"run_id": [1] * 6 + [2] * 6, "mix": "a",
                          "turn": list(range(6)) * 2,
                          "p": [9, 1, 3, 5, 7, 9] + [9, 3, 3, 3, 3, 3]})
    out = figures.windowed(table, "turn", ["p"], ["mix"], 2)
    assert list(out["turn"]) == [0, 1.5, 3.5, 5] * 2  # the start, 1-2, 3-4, then 5 alone
    assert list(out["p"]) == [9, 2, 6, 9, 9, 3, 3, 3]
    assert figures.window_size(100) == 10 and figures.window_size(15) == 2
    assert figures.window_size(5) == 1


def test_a_bar_chart_of_one_series_has_one_colour_and_no_legend(drawings):
    figure = drawings["bucket_brigade", "lie_rate_by_mix"]
    assert drawn(figure) == {"lie rate": {("patch", colours.NEUTRAL)}}
    assert not figure.legends and not panels(figure)[0].get_legend()


def test_stag_kills_draw_all_and_coordinated_kills_in_two_panels(drawings):
    figure = drawings["stag_hunt", "coordinated_kills_vs_heal_delay"]
    assert [ax.get_title() for ax in panels(figure)] == [
        "all stag kills", "coordinated kills (2+ hunters hit it that turn)"]


def test_the_firefighting_caption_says_why_belief_tracker_leaves_the_most_fire(tmp_path):
    study = Study(game="firefighting_graph", name="order", replicates=2, seed=3,
                  fixed={"max_steps": 5},
                  sweep={"population": ["random", "belief_tracker"], "p_ignite": [0.3]})
    folder = run_study(study, tmp_path, backend="serial", progress=False).folder
    text = figures.caption(GAMES["firefighting_graph"].figures["fire_over_time"](folder))
    assert "belief_tracker ends with the most fire" in text
    assert "share" in text and "p_two_agents" in text  # the pairs meet and put it out
    assert "fixed0" not in text  # only the behaviours shown


# --- the palette --------------------------------------------------------------------------

def test_behaviours_take_fixed_colours_by_registration_order():
    for game in GAMES:
        names = list(GAMES[game].behaviours)
        styles = [colours.behaviour_style(game, name) for name in names]
        palette = colours.behaviour_colours(game)  # CANDIDATES in order, those apart from
        assert list(palette) == sorted(palette, key=colours.CANDIDATES.index)  # the world
        assert [s.colour for s in styles[:len(palette)]] == list(palette[:len(names)])
        assert len(set(styles)) == len(styles)  # every behaviour of a game looks different
        assert colours.FIRE not in {s.colour for s in styles}  # vermillion is fire's


def test_a_mix_is_dashed_in_the_colour_of_its_largest_part():
    civic = colours.behaviour_style("state_punishment", "civic_voter")
    greedy = colours.behaviour_style("state_punishment", "greedy_forager")
    assert colours.population_style("state_punishment", "civic_voter:3") == civic
    mix = colours.population_style("state_punishment", "greedy_forager:1,civic_voter:2")
    assert (mix.colour, mix.marker, mix.linestyle, mix.filled) == (civic.colour, civic.marker,
                                                                  "--", False)
    tie = colours.population_style("state_punishment", "greedy_forager:1,civic_voter:1,random")
    assert tie.colour == greedy.colour  # the first written on a tie
    styles = colours.population_styles("state_punishment",
                                       ["civic_voter:2,greedy_forager:1",
                                        "civic_voter:1,greedy_forager", "nobody"])
    assert len(set(styles.values())) == 3


def test_the_dashboard_takes_its_colours_from_the_palette():
    from dilemmas import dashboard
    from dilemmas.dashboard import bucket_brigade, stag_hunt, state_punishment
    from dilemmas.dashboard.scene import Circle, Rect
    from dilemmas.models.bucket_brigade.rules import BURNING, RUINED, SAFE

    assert bucket_brigade.HOUSE_COLOURS == {SAFE: colours.HOUSE_STATES["safe"],
                                            BURNING: colours.FIRE,
                                            RUINED: colours.HOUSE_STATES["ruined"]}
    assert colours.FIRE == colours.OKABE_ITO["vermillion"]  # fire is warm
    assert stag_hunt.CELL_COLOURS[2:] == (colours.STAG_HUNT_RESOURCES["stag"],
                                          colours.STAG_HUNT_RESOURCES["hare"])
    assert set(stag_hunt.BEAMS.values()) <= set(colours.EXTENDED)
    hunters = {colours.behaviour_colour("stag_hunt", b) for b in GAMES["stag_hunt"].behaviours}
    assert not set(stag_hunt.BEAMS.values()) & hunters  # a beam is never a hunter's colour
    assert state_punishment.CELL_COLOURS == (
        colours.STATE_PUNISHMENT_GRID["empty"], colours.STATE_PUNISHMENT_GRID["wall"],
        *colours.STATE_PUNISHMENT_RESOURCES.values())
    # agents: by behaviour, in the figures' colour of that behaviour, in the world and key
    for name in ("bucket_brigade", "state_punishment", "stag_hunt", "firefighting_graph"):
        game = GAMES[name]
        model = game.model(rng=0)
        seated = {agent.behaviour for agent in model.seats}
        key = {swatch.label: swatch.colour for swatch in game.view.key(model)
               if isinstance(swatch, dashboard.Swatch)}
        fills = {shape.fill for shape in game.view.scene(model).shapes
                 if isinstance(shape, (Circle, Rect))}
        for behaviour in seated:
            assert dashboard.agent_colour(model, behaviour) == \
                colours.behaviour_colour(name, behaviour)
            assert key[f"{behaviour} (behaviour)"] == colours.behaviour_colour(name, behaviour)
            assert colours.behaviour_colour(name, behaviour) in fills, (name, behaviour)


def test_the_palette_is_okabe_ito():
    assert set(colours.PALETTE) == {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                    "#56B4E9", "#F0E442", "#000000"}
    assert figures.PALETTE == colours.PALETTE
    assert len(set(colours.sequential(5))) == 5


def test_wrap_keeps_each_line_within_the_width():
    text = "word " * 200
    lines = figures.wrap(text, 200, 8)
    assert len(lines) > 5 and " ".join(lines).split() == text.split()
    font = figures.FontProperties(size=8)
    assert all(figures.text_to_path.get_text_width_height_descent(line, font, ismath=False)[0]
               <= 200 for line in lines)


def test_fire_over_time_counts_an_ended_episode_as_0_for_its_remaining_steps():
    # An episode ends early only with every house at 0, where nothing ignites again.
    import pandas as pd

    from dilemmas.analysis.firefighting_graph import played_out
    rows = pd.DataFrame({"run_id": ["a"] * 4 + ["b"] * 2, "population": "random",
                         "step": [0, 1, 2, 3, 0, 1], "mean_fire": [3.0, 2.0, 1.0, 1.5, 2.0, 0.0]})
    out = played_out(rows).sort_values(["run_id", "step"], ignore_index=True)
    b = out[out["run_id"] == "b"]
    assert b["step"].tolist() == [0, 1, 2, 3] and b["mean_fire"].tolist() == [2.0, 0, 0, 0]
    assert (b["population"] == "random").all()
    assert out[out["run_id"] == "a"]["mean_fire"].tolist() == [3.0, 2.0, 1.0, 1.5]
