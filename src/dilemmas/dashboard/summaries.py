"""A study's summary in the page (the run viewer's mode): per combination of its swept
parameters, the number of runs and each episode statistic's mean with its 95% interval
(``dilemmas.analysis.studies.results.summary``, what ``dilemmas summary --ci`` prints): one
column a statistic, ``mean [low, high]`` to 3 significant digits, under a header that stays
in view as the table scrolls; a switch shows every column instead (means, lows and highs
apart, 4 significant digits, for copying), and,
on request, the game's figures of the study (``dilemmas.analysis.figures.paper.make_figures``,
what ``dilemmas figures`` draws), shown as images; a figure the study's sweep cannot draw
is named with the reason.
"""

import base64
import html
import tempfile
from pathlib import Path

import pandas as pd
import solara

from dilemmas.dashboard import runs
from dilemmas.dashboard.messages import message, one_line


def summary_html(folder, every_column: bool = False) -> str:
    """The study's summary table (95% intervals) as HTML: a statistic a column, each cell
    ``mean [low, high]`` (module docstring), or ``every_column`` as ``summary`` has them."""
    from dilemmas.analysis.studies.results import number_text, summary

    table = summary(folder, ci=True)
    if not every_column:
        statistics = [c[:-len("_low")] for c in table.columns if c.endswith("_low")]
        cells = {name: [number_text(mean) + ("" if pd.isna(low) and pd.isna(high) else
                                             f" [{number_text(low)}, {number_text(high)}]")
                        for mean, low, high in zip(table[name], table[f"{name}_low"],
                                                   table[f"{name}_high"])]
                 for name in statistics}
        kept = [c for c in table.columns if c not in statistics
                and not c.endswith(("_low", "_high"))]
        table = table[kept].assign(**cells)
    return table.to_html(index=False, classes="agent-table study-summary", border=0,
                         float_format=lambda value: f"{value:.4g}", na_rep="")


def figures_html(folder) -> tuple[str, list[str]]:
    """The game's figures of the study as ``<img>`` (PNG) and the reasons of those left out."""
    from dilemmas.analysis.figures.paper import make_figures

    skipped: list[str] = []
    with tempfile.TemporaryDirectory() as out:
        paths = make_figures([folder], out, skipped=skipped)
        images = [f'<figure><img alt="{html.escape(path.stem)}" style="max-width: 100%" '
                  f'src="data:image/png;base64,{base64.b64encode(path.read_bytes()).decode()}"/>'
                  f"<figcaption>{html.escape(path.stem)}</figcaption></figure>"
                  for path in sorted(Path(p) for p in paths) if path.suffix == ".png"]
    return "".join(images), skipped


@solara.component
def StudySummary(default_folder: str = "results"):
    """Pick a study: its summary table, and its figures when asked for."""
    found = runs.studies_under(default_folder)
    chosen = solara.use_reactive(None)
    drawn = solara.use_reactive(None)
    every_column = solara.use_reactive(False)
    if isinstance(found, str) or not found:
        message(found if isinstance(found, str) else
                f"no study under {default_folder!r}: run one with `dilemmas run`")
        return
    solara.Select("study", values=found, value=chosen.value,
                  on_value=lambda f: (chosen.set(f), drawn.set(None)),
                  classes=["summary-picker"])
    if chosen.value not in found:
        return
    try:
        table = summary_html(chosen.value, every_column.value)
    except Exception as error:  # a damaged folder is said, never raised
        message(f"no summary of {chosen.value}: {one_line(error)}")
        return
    solara.Switch(label="every column (means, lows and highs apart)",
                  value=every_column, classes=["summary-every-column"])
    solara.HTML(tag="div", unsafe_innerHTML=table, classes=["study-summary-box"],
                style="overflow: auto; max-height: 70vh; font-size: 13px")

    def draw():
        try:
            drawn.set(figures_html(chosen.value))
        except Exception as error:
            drawn.set(("", [f"the figures could not be drawn: {one_line(error)}"]))

    solara.Button("Draw its figures", on_click=draw, outlined=True, classes=["draw-figures"])
    if drawn.value is not None:
        images, skipped = drawn.value
        for reason in skipped:
            solara.Text(f"not drawn: {one_line(reason)}", classes=["control-help"])
        solara.HTML(tag="div", unsafe_innerHTML=images, classes=["study-figures"],
                    style="display: flex; flex-wrap: wrap; gap: 12px")
