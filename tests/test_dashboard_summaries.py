"""Issue 45 item 6: a study's summary table and figures in the page
(``dilemmas.dashboard.summaries``): the table is ``results.summary(ci=True)``'s, the figures
``make_figures``' PNGs, and a figure the sweep cannot draw is named with its reason."""

import xml.etree.ElementTree as ElementTree

import ipyvuetify as v
import pandas as pd
import pytest
import solara
from solara.widgets import HTML
from support import widgets_under

from dilemmas.analysis.studies.results import summary
from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study
from dilemmas.dashboard import summaries

STUDY = """\
game = "bucket_brigade"
seed = 4
replicates = 3

[fixed]
max_steps = 20

[sweep]
population = ["firefighter", "free_rider"]
"""


@pytest.fixture(scope="module")
def studied(tmp_path_factory):
    root = tmp_path_factory.mktemp("summaries")
    (root / "mixes.toml").write_text(STUDY)
    folder = run_study(Study.from_file(root / "mixes.toml"), root / "results",
                       backend="serial", progress=False).folder
    return root, folder


def _shown(html: str) -> pd.DataFrame:
    table = ElementTree.fromstring(html)
    head = [cell.text.strip() for cell in table.iter("th")]
    rows = [[(cell.text or "").strip() for cell in row.iter("td")]
            for row in table.find("tbody").iter("tr")]
    return pd.DataFrame(rows, columns=head)


def test_the_summary_shows_a_column_a_statistic_as_mean_and_interval(studied):
    """Issue 63 item 2: readable at a glance: the swept parameters, n, then one column per
    statistic whose cells are 'mean [low, high]' to 3 significant digits (as ``dilemmas
    summary --ci`` prints them), not three columns of four digits each."""
    from dilemmas.analysis.studies.results import number_text

    _, folder = studied
    shown, expected = _shown(summaries.summary_html(folder)), summary(folder, ci=True)
    statistics = [c[:-4] for c in expected.columns if c.endswith("_low")]
    assert list(shown.columns) == ["population", "n", *statistics]
    assert len(shown.columns) < len(expected.columns) / 2
    for name in statistics:
        assert list(shown[name]) == [
            f"{number_text(m)} [{number_text(lo)}, {number_text(hi)}]"
            if not (pd.isna(lo) and pd.isna(hi)) else number_text(m)
            for m, lo, hi in zip(expected[name], expected[f"{name}_low"],
                                 expected[f"{name}_high"])], name


def test_the_summary_header_stays_in_view_and_cells_keep_to_one_line():
    from pathlib import Path

    css = (Path(summaries.__file__).parent / "style.css").read_text()
    assert ".study-summary th { position: sticky; top: 0;" in css
    assert ".study-summary td { white-space: nowrap; }" in css


def test_the_summary_table_is_the_studys_summary_with_intervals(studied):
    _, folder = studied
    table = ElementTree.fromstring(summaries.summary_html(folder, every_column=True))
    head = [cell.text.strip() for cell in table.iter("th")]
    rows = [[(cell.text or "").strip() for cell in row.iter("td")]
            for row in table.find("tbody").iter("tr")]
    shown = pd.DataFrame(rows, columns=head)
    expected = summary(folder, ci=True)
    assert head == list(expected.columns)
    assert list(shown["population"]) == ["firefighter", "free_rider"]
    for column in ("n", "saved", "saved_low", "saved_high"):
        assert [float(x) for x in shown[column]] == pytest.approx(
            [float(f"{value:.4g}") for value in expected[column]]), column


def test_the_figures_are_drawn_and_those_the_sweep_cannot_draw_are_named(studied):
    _, folder = studied
    images, skipped = summaries.figures_html(folder)
    assert 'alt="mixes_lie_rate_by_mix"' in images and "data:image/png;base64," in images
    assert any("saved_vs_beta" in reason and "'beta'" in reason for reason in skipped)


def test_the_page_shows_a_picked_studys_summary_and_its_figures(studied, monkeypatch):
    root, _ = studied
    monkeypatch.chdir(root)
    box, rc = solara.render(summaries.StudySummary(), handle_error=False)
    try:
        picker = rc.find(v.Select, label="study").widget
        assert picker.items == ["results/mixes"]
        picker.v_model = "results/mixes"

        def html(name):
            return [w.unsafe_innerHTML for w in widgets_under(box) if isinstance(w, HTML)
                    and name in (w.attributes or {}).get("class", "")]

        assert len(html("study-summary-box")) == 1 and "firefighter" in html(
            "study-summary-box")[0]
        assert "saved_low" not in html("study-summary-box")[0]   # one column a statistic
        rc.find(v.Switch, label="every column (means, lows and highs apart)").widget \
            .v_model = True
        assert "saved_low" in html("study-summary-box")[0]
        assert html("study-figures") == []  # drawn only when asked for
        rc.find(v.Btn, children=["Draw its figures"]).widget.click()
        assert 'alt="mixes_lie_rate_by_mix"' in html("study-figures")[0]
    finally:
        rc.close()
