"""Trainings watched in the page: a training folder's learning curve and its seeds' final
returns (docs/learning.md), in the run viewer's mode.

A training folder (``dilemmas train``, under ``results/training`` by default) holds its
curve rows: per episode and seed for the tabular and linear learners
(``seed-<i>/curve-*.parquet``, ``dilemmas.analysis.learning.training.episode_returns``),
per update and seed for the deep ones (``curve-*.parquet``, ``dilemmas.learning.deep``).
The page draws the mean over the seeds of the learning seats' and the background seats'
per-capita return (the seats' own rewards, as the curves record them) against episodes or
updates, and a table of each seed's mean over the last tenth of its curve with the mean
over seeds and its 95% Student-t interval (``results.mean_interval``). Its policies play in
"Play a game" (``policy``: the files listed, ``dilemmas.dashboard.controls``).
"""

import html
import json
from pathlib import Path

import pandas as pd
import solara

from dilemmas.analysis.figures.colours import GREY, INK
from dilemmas.analysis.studies.results import mean_interval
from dilemmas.dashboard.charts import Plot, Series, chart
from dilemmas.dashboard.field import Field
from dilemmas.dashboard.messages import message, one_line

RETURNS = (("learner_return", "learning seats"), ("background_return", "background seats"))


def trainings_under(folder) -> list[str]:
    """The training folders (with a ``training.json``) in ``folder``, sorted."""
    return sorted(str(path.parent) for path in Path(folder).expanduser().glob("*/training.json"))


def curve_of(folder) -> tuple[str, pd.DataFrame]:
    """``(x, rows)``: the curve of a training folder, one row per seed (``replicate``) and
    ``x`` ("episode" or "update") with its returns. A folder with no curve rows, or not a
    training's, is a ValueError naming it."""
    folder = Path(folder)
    try:
        game = json.loads((folder / "training.json").read_text())["game"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{folder}: not a training folder ({one_line(error)})") from None
    if any(folder.glob("seed-*/curve-*.parquet")):
        from dilemmas.analysis.learning.training import episode_returns

        return "episode", episode_returns(folder)
    files = sorted(folder.glob("curve-*.parquet"))  # a deep training's (the learning
    if files:                                          # layer is above this one)
        rows = pd.concat([pd.read_parquet(path) for path in files], ignore_index=True)
        return "update", rows.sort_values(["replicate", "update"], ignore_index=True)
    raise ValueError(f"{folder}: a training of {game} with no curve rows yet "
                     "(curve-*.parquet)")


def mean_curve(x: str, rows: pd.DataFrame) -> dict:
    """Column -> the mean over seeds at each ``x`` from 0 (for ``chart``)."""
    columns = [c for c, _ in RETURNS if c in rows]
    means = rows.groupby(x)[columns].mean().reindex(range(int(rows[x].max()) + 1))
    return {c: means[c].tolist() for c in columns}


def final_returns(x: str, rows: pd.DataFrame) -> pd.DataFrame:
    """Per seed: its last ``x`` and its mean returns over the last tenth of its curve."""
    out = []
    for seed, own in rows.groupby("replicate"):
        own = own.sort_values(x)
        tail = own.tail(max(1, len(own) // 10))
        out.append({"seed": int(seed), x: int(own[x].iloc[-1]),
                    **{c: tail[c].mean() for c, _ in RETURNS if c in own}})
    return pd.DataFrame(out)


def summary_html(x: str, finals: pd.DataFrame) -> str:
    """The table of ``final_returns`` with the mean over seeds and its 95% interval."""
    columns = [(c, label) for c, label in RETURNS if c in finals and finals[c].notna().any()]
    head = f"<tr><th>seed</th><th>last {x}</th>" + "".join(
        f"<th>{html.escape(label)}</th>" for _, label in columns) + "</tr>"
    body = "".join(f"<tr><td>{int(row['seed'])}</td><td>{int(row[x])}</td>" + "".join(
        f"<td>{row[c]:.4g}</td>" for c, _ in columns) + "</tr>" for _, row in finals.iterrows())
    cells = []
    for c, _ in columns:
        interval = mean_interval(finals[c])
        cells.append(f"<td>{interval['mean']:.4g} [{interval['low']:.4g}, "
                     f"{interval['high']:.4g}]</td>" if interval["n"] >= 2
                     else f"<td>{interval['mean']:.4g}</td>")
    total = (f"<tr><th colspan=2>mean over {len(finals)} seeds [95% interval]</th>"
             + "".join(cells) + "</tr>")
    return (f'<table class="agent-table training-table"><caption>each seed\'s mean return per '
            f"seat over the last tenth of its {x}s (the seats' own rewards)</caption>"
            f"{head}{body}{total}</table>")


@solara.component
def TrainingView(default_folder: str = "results/training"):
    """Pick a training folder: its learning curve and its seeds' final returns."""
    folder = solara.use_reactive(default_folder)
    chosen = solara.use_reactive(None)
    found = solara.use_memo(lambda: trainings_under(folder.value), [folder.value])
    Field("folder of trainings", folder.value, folder.set, classes=["trainings-field"])
    if not found:
        message(f"no training under {folder.value!r}: train one with `dilemmas train`")
        return
    solara.Select("training", values=found, value=chosen, classes=["training-picker"])
    if chosen.value not in found:
        return
    try:
        x, rows = curve_of(chosen.value)
    except Exception as error:  # a damaged or unfinished folder is said, never raised
        message(error)
        return
    data = mean_curve(x, rows)
    styles = {RETURNS[0][0]: (INK, False), RETURNS[1][0]: (GREY, True)}
    plot = Plot(f"{Path(chosen.value).name}: return per seat, mean over "
                f"{rows['replicate'].nunique()} seeds", "return (reward units)",
                tuple(Series(c, label, styles[c][0], dashed=styles[c][1])
                      for c, label in RETURNS if c in data and rows[c].notna().any()))
    solara.HTML(tag="div", unsafe_innerHTML=chart(plot, data, f"{x}s") +
                summary_html(x, final_returns(x, rows)),
                classes=["training-view"],
                style="display: flex; flex-wrap: wrap; gap: 16px; font-size: 13px")
