"""``dilemmas plot`` (``dilemmas.analysis.figures.plot``) on a study of every game and on a
sampled design, and figures a paper can use as they are: the caption beside the figure (a
``.txt`` and a LaTeX ``.tex``, none of its text in the image), one- and two-column widths, and
fonts embedded in the PDF (TrueType, no Type 3)."""

import re
import zlib

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from dilemmas import GAMES  # noqa: E402
from dilemmas.analysis.figures import paper  # noqa: E402
from dilemmas.analysis.figures.indices import indices_figure  # noqa: E402
from dilemmas.analysis.figures.plot import columns, plot  # noqa: E402
from dilemmas.analysis.sensitivity import sensitivity  # noqa: E402
from dilemmas.analysis.studies.runner import run_study  # noqa: E402
from dilemmas.analysis.studies.study import Study  # noqa: E402
from dilemmas.cli.main import main  # noqa: E402


def small(game: str) -> Study:
    """The game's example study: 2 replicates, episodes of at most 15 steps, the first two
    values of each swept parameter."""
    study = Study.from_file(GAMES[game].study)
    return Study(game=game, name=f"small_{game}", replicates=2, seed=7,
                 fixed={**study.fixed, "max_steps": 15},
                 sweep={key: values[:2] for key, values in study.sweep.items()})


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    out = tmp_path_factory.mktemp("results")
    return {game: run_study(small(game), out, backend="serial", progress=False).folder
            for game in GAMES}


@pytest.fixture(scope="module")
def design(tmp_path_factory):
    """A Bucket Brigade Latin hypercube of 60 points over beta, kappa and num_agents."""
    study = Study(game="bucket_brigade", name="lhs", replicates=2, seed=3,
                  fixed={"population": "firefighter", "max_steps": 15},
                  design={"kind": "lhs", "samples": 60, "parameters": {
                      "beta": [0.05, 0.5], "kappa": [0.1, 1.5],
                      "num_agents": {"low": 4, "high": 10}}})
    return run_study(study, tmp_path_factory.mktemp("design"), backend="serial",
                     progress=False).folder


def drawn_lines(figure):
    return [line for ax in figure.axes for line in ax.get_lines() if len(line.get_xdata())]


@pytest.mark.parametrize("game", list(GAMES))
def test_plot_draws_every_statistic_of_a_study_of_every_game(folders, game):
    folder = folders[game]
    parameters, statistics = columns(folder)
    swept = list(small(game).sweep)
    assert statistics and set(swept) <= set(parameters)
    x, hue = swept[-1], swept[0]
    for y in statistics:
        figure = plot(folder, x, y, hue=hue)
        lines = drawn_lines(figure)
        assert len(lines) == len({str(v) for v in small(game).sweep[hue]}) or \
            y in ("lie_rate", "cooperation"), y  # a rate undefined in every run is not drawn
        assert figure.get_suptitle() == f"{y} by {x}"
        assert paper.caption(figure).startswith(f"The mean {y} per episode against {x}")
    figure = plot(folder, x, statistics[0], facet=hue)
    assert len([ax for ax in figure.axes if ax.get_visible()]) == 2


def test_plot_bins_a_parameter_of_a_sampled_design(design):
    figure = plot(design, "beta", "saved", hue="num_agents", facet="kappa")
    text = paper.caption(figure)
    assert "As beta takes a value per design point, the runs are grouped into 10 bins" in text
    assert "As kappa takes a value per design point, the runs are grouped into 3 bins" in text
    assert "num_agents" not in text.split("Lines:")[0].split("one line per num_agents")[1]
    assert "2 seeds at each of its design points" in text
    panels = [ax for ax in figure.axes if ax.get_visible()]
    assert len(panels) == 3
    legend = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend == [str(n) for n in range(4, 11)]  # integers in order, not as text
    alone = plot(design, "kappa", "saved")
    assert len(drawn_lines(alone)) == 1 and not alone.legends
    assert "beta, num_agents vary" not in paper.caption(alone)
    assert "beta and num_agents vary across them, pooled" in paper.caption(alone)


def test_plot_names_an_unknown_column_and_lists_the_available_ones(design):
    with pytest.raises(ValueError, match=r"--x 'bet' is not a parameter .* its parameters: "
                       r"\['replicate', 'design_point', 'population', 'max_steps', 'beta'"):
        plot(design, "bet", "saved")
    with pytest.raises(ValueError, match=r"--y 'save' is not an episode statistic .* its "
                       r"statistics: \['nights', 'saved'"):
        plot(design, "beta", "save")
    with pytest.raises(ValueError, match="must be different parameters"):
        plot(design, "beta", "saved", hue="beta")


def test_the_plot_command_writes_the_figure_or_one_line_of_error(design, tmp_path, capsys):
    assert main(["plot", str(design), "--x", "beta", "--y", "saved", "--hue", "num_agents",
                 "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(tmp_path / f"lhs_plot_saved_by_beta_hue_num_agents.{s}")
                       for s in ("pdf", "png")]
    assert main(["plot", str(design), "--x", "nope", "--y", "saved"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("dilemmas plot: --x 'nope' is not a parameter")


def test_a_study_file_finds_its_results(design, tmp_path, capsys):
    path = tmp_path / "lhs.toml"
    path.write_text('game = "bucket_brigade"\nseed = 3\nreplicates = 2\n[fixed]\n'
                    'population = "firefighter"\nmax_steps = 15\n[design]\nkind = "lhs"\n'
                    'samples = 60\n[design.parameters]\nbeta = [0.05, 0.5]\n'
                    'kappa = [0.1, 1.5]\nnum_agents = {low = 4, high = 10}\n')
    assert main(["plot", str(path), "--results", str(design.parent), "--x", "kappa", "--y",
                 "saved", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "lhs_plot_saved_by_kappa.pdf").exists()


# --- Figures a paper can use ---------------------------------------------------------------

def pdf_streams(data: bytes) -> list[bytes]:
    streams = []
    for match in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.S):
        try:
            streams.append(zlib.decompress(match.group(1)))
        except zlib.error:
            streams.append(match.group(1))
    return streams


ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}


def _unescape(match) -> bytes:
    code = match.group(1)
    if code[:1].isdigit():
        return bytes([int(code, 8)])
    return ESCAPES.get(code, code)


def pdf_text(data: bytes) -> str:
    """The text a PDF of matplotlib's draws: the strings of its text operators (two bytes a
    character with TrueType fonts, big-endian), unescaped and joined."""
    text = []
    for stream in pdf_streams(data):
        for block in re.findall(rb"BT(.*?)ET", stream, re.S):
            for string in re.findall(rb"\(((?:\\.|[^\\)])*)\)", block, re.S):
                raw = re.sub(rb"\\([0-7]{1,3}|.)", _unescape, string, flags=re.S)
                text.append(raw.decode("utf-16-be", errors="replace"))
    return "".join(text)


def words(text: str) -> list[str]:
    """Distinctive words of a caption: long ones, without the letter pairs the font writes as
    one ligature glyph (``fi``, ``fl``, ``ff``), whose code is the glyph's, not a letter's."""
    return sorted({w for w in re.findall(r"[A-Za-z]{7,}", text)
                   if not re.search("f[fil]", w)})


def figures_of(folders, design):
    """(name, draw) of every kind of figure: each game's paper figures, a plot, and the
    sensitivity figure."""
    cases = [(f"{game}_{name}", lambda d=draw, g=game: d(folders[g]))
             for game in GAMES for name, draw in GAMES[game].figures.items()]
    cases.append(("plot", lambda: plot(design, "beta", "saved", hue="num_agents")))
    cases.append(("sensitivity", lambda: indices_figure(sensitivity(design, "saved"))))
    return cases


def test_every_figure_can_be_written_with_its_caption_beside_and_none_inside(
        folders, design, tmp_path):
    for name, draw in figures_of(folders, design):
        inside = draw()
        caption = paper.caption(inside)
        assert caption, name
        with paper.layout(caption="beside"):
            beside = draw()
        assert paper.caption(beside) == caption, name
        assert not [t for t in beside.texts if t.get_gid() == "caption"], name
        assert beside.get_size_inches()[1] < inside.get_size_inches()[1], name
        paths = paper.save(beside, tmp_path, name)
        assert [p.suffix for p in paths] == [".pdf", ".png", ".txt", ".tex"]
        assert (tmp_path / f"{name}.txt").read_text() == caption + "\n"
        tex = (tmp_path / f"{name}.tex").read_text()
        assert tex.startswith("\\begin{figure}[tbp]\n  \\centering\n")
        assert f"\\includegraphics[width=\\columnwidth]{{{name}.pdf}}" in tex
        assert f"\\label{{fig:{name}}}" in tex and tex.endswith("\\end{figure}\n")
        assert "%" not in tex.replace("\\%", "") and "_" not in \
            tex.split("\\caption{")[1].split("}\n")[0].replace("\\_", "")
        # the image holds none of the caption's own words (those not also in its labels,
        # titles, legends); drawn inside, it holds them all
        labels = " ".join(t.get_text() for t in beside.findobj(Text))
        own = [w for w in words(caption) if w not in labels]
        shown = pdf_text((tmp_path / f"{name}.pdf").read_bytes())
        assert own and not [w for w in own if w in shown], name
        paper.save(inside, tmp_path / "inside", name)
        shown_inside = pdf_text((tmp_path / "inside" / f"{name}.pdf").read_bytes())
        assert all(w in shown_inside for w in own), name
        # saved again with the caption inside, in the same folder: no caption file stays
        assert [p.suffix for p in paper.save(inside, tmp_path, name)] == [".pdf", ".png"]
        assert not (tmp_path / f"{name}.txt").exists()
        assert not (tmp_path / f"{name}.tex").exists()


def test_latex_special_characters_are_escaped():
    assert paper.latex_text("50% of a_b & {c} #1 $2 ~ ^ \\ 3\u00d74 1\u20132") == (
        r"50\% of a\_b \& \{c\} \#1 \$2 \textasciitilde{} \textasciicircum{} "
        r"\textbackslash{} 3$\times$4 1--2")
    assert paper.latex_figure("a_b", "x", "two").startswith("\\begin{figure*}")
    assert "width=\\textwidth]{a_b.pdf}" in paper.latex_figure("a_b", "x", "two")


@pytest.mark.parametrize("width,inches", [("one", 3.5), ("two", 7.2)])
def test_figures_at_one_and_two_columns_are_exactly_that_wide(folders, design, tmp_path, width,
                                                               inches):
    for name, draw in figures_of(folders, design)[::3]:
        with paper.layout(caption="beside", width=width):
            figure = draw()
        assert figure.get_size_inches()[0] == pytest.approx(inches), name
        pdf, png = paper.save(figure, tmp_path, name)[:2]
        box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)", pdf.read_bytes())
        assert float(box.group(1)) == pytest.approx(inches * 72, abs=0.5), name
        assert int.from_bytes(png.read_bytes()[16:20], "big") == round(inches * 200), name
        assert f"{'figure*' if width == 'two' else 'figure'}" in \
            (tmp_path / f"{name}.tex").read_text()


def test_pdf_fonts_are_embedded_truetype_never_type_3(folders, design, tmp_path):
    for name, draw in figures_of(folders, design):
        path = paper.save(draw(), tmp_path, name)[0]
        data = path.read_bytes()
        assert b"/FontFile2" in data, name
        assert b"/Type3" not in data and b"/Subtype /Type3" not in data, name


def test_the_figures_command_takes_caption_and_width(folders, tmp_path, capsys):
    assert main(["figures", str(folders["bucket_brigade"]), "--out", str(tmp_path),
                 "--caption", "beside", "--width", "one"]) == 0
    printed = capsys.readouterr().out.split()
    assert {p.rsplit(".", 1)[1] for p in printed} == {"pdf", "png", "txt", "tex"}
    assert all((tmp_path / p.rsplit("/", 1)[1]).exists() for p in printed)
