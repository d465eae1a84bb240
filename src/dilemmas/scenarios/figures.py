"""A figure per game of a policy's scores on its scenarios against the stored baselines
(docs/scenarios.md)."""

import matplotlib
import numpy as np
import pandas as pd

from dilemmas import GAMES
from dilemmas.analysis.figures.paper import STYLE, PaperFigure, save

COLUMNS = 3


def scenario_figure(scores: pd.DataFrame, baselines: pd.DataFrame, name: str, game: str,
                    folder, suffix: str = ""):
    """One panel per scenario of ``game`` in ``scores`` (rows of ``scoring.summarise``): the
    focal per-capita return of ``name`` (dark) and of each baseline (light), best first,
    with 95% intervals; saved as ``<folder>/<game><suffix>.pdf`` and ``.png``. Returns the
    PNG."""
    here = scores[scores["scenario"].str.startswith(f"{game}/")]
    rows = -(-len(here) // COLUMNS)
    figure = PaperFigure((rows, min(len(here), COLUMNS)), margin=0.9)
    with matplotlib.rc_context(STYLE):
        axes = figure.subplots(rows, min(len(here), COLUMNS), squeeze=False).ravel()
        for axis, (_, score) in zip(axes, here.iterrows()):
            shown = baselines[baselines["scenario"] == score["scenario"]]
            shown = pd.concat([shown.assign(evaluated=False),
                               pd.DataFrame([{**score, "baseline": name, "evaluated": True}])])
            shown = shown.sort_values("focal_return", kind="stable")
            y = np.arange(len(shown))
            errors = np.vstack([shown["focal_return"] - shown["focal_return_low"],
                                shown["focal_return_high"] - shown["focal_return"]])
            colours = np.where(shown["evaluated"], "0.15", "0.75")
            axis.barh(y, shown["focal_return"], xerr=np.nan_to_num(errors), color=colours,
                      capsize=2)
            axis.set_yticks(y, [f"{baseline} (evaluated)" if evaluated else baseline
                                for baseline, evaluated in zip(shown["baseline"],
                                                               shown["evaluated"])])
            axis.axvline(0, color="0.5", linewidth=0.8)
            axis.set_title(score["scenario"].partition("/")[2])
            axis.set_xlabel("focal return per seat")
        for axis in axes[len(here):]:
            axis.set_visible(False)
        figure.suptitle(f"{GAMES[game].title}: {name} (dark) against the stored baselines\n"
                        "(light); mean and 95% interval over episodes")
    return save(figure, folder, f"{game}{suffix}")[-1]
