"""The figure of a study's sensitivity indices (``dilemmas.analysis.sensitivity``): one group
of bars per design parameter, in the paper figures' style, with the bootstrap intervals as
error bars and a caption that says what the indices are, over how many points and runs, and
how much of the variance is replicate noise."""

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from dilemmas.analysis.figures import colours
from dilemmas.analysis.figures.paper import STYLE, PaperFigure
from dilemmas.analysis.sensitivity import CONFIDENCE, RESAMPLES

#: Per kind of design: (column, its interval's half-width column or None, legend name).
SERIES = {"sobol": [("S1", "S1_conf", "first-order S1"), ("ST", "ST_conf", "total ST")],
          "morris": [("mu_star", "mu_star_conf", "\u03bc*"), ("sigma", None, "\u03c3")],
          "lhs": [("S1", "S1_conf", "first-order S1 (RBD-FAST)")]}
WHAT = {
    "sobol": "First-order (S1: the share of the variance due to the parameter alone) and "
             "total (ST: with all its interactions) Sobol indices",
    "morris": "Morris screening: \u03bc*, the mean absolute elementary effect (the change of "
              "the statistic for a step of the grid across the parameter's range), and "
              "\u03c3, their standard deviation (interactions or non-linear effects),",
    "lhs": "First-order indices (RBD-FAST on the Latin hypercube: the share of the variance "
           "due to the parameter alone)"}


def indices_figure(table: pd.DataFrame) -> Figure:
    """Bars of ``table`` (``dilemmas.analysis.sensitivity.sensitivity``) per parameter, with
    the 95% bootstrap intervals as error bars (none for Morris's sigma)."""
    attrs = table.attrs
    series = SERIES[attrs["kind"]]
    fig = PaperFigure((1, max(1.0, len(table) / 3)), margin=1.4)
    with matplotlib.rc_context(STYLE):
        ax = fig.subplots()
        positions = np.arange(len(table))
        width = 0.8 / len(series)
        fills = colours.category_styles([name for _, _, name in series])
        for i, (column, conf, name) in enumerate(series):
            offset = (i - (len(series) - 1) / 2) * width
            ax.bar(positions + offset, table[column], width * 0.95,
                   yerr=None if conf is None else table[conf].to_numpy(float),
                   color=fills[name].colour, edgecolor=colours.INK, linewidth=0.5, label=name,
                   ecolor=colours.INK, error_kw={"elinewidth": 1})
        ax.axhline(0, color=colours.INK, linewidth=0.5)
        ax.set_xticks(positions, list(table["parameter"]))
        ax.set_xlabel("parameter")
        ax.set_ylabel("index" if attrs["kind"] != "morris" else attrs["statistic"])
        ax.grid(axis="x", visible=False)
        ax.legend(loc="best")
        fig.suptitle(f"Sensitivity of {attrs['statistic']}")
        noise = attrs.get("noise_share", np.nan)
        noise_text = ("" if noise != noise else
                      f" Replicate noise is {noise:.0%} of the variance of the runs and "
                      f"{attrs['noise_in_means']:.0%} of the variance of the point means, "
                      "which the indices count as unexplained.")
        fig.caption(f"{WHAT[attrs['kind']]} of {attrs['statistic']} in the study "
                    f"{attrs['study']}: {attrs['points']} design points, the statistic "
                    f"averaged over the {attrs['replicates']} replicates of each "
                    f"({attrs['runs']} runs with a value). Error bars: {CONFIDENCE:.0%} bootstrap "
                    f"confidence intervals (SALib, {RESAMPLES} resamples)." + noise_text)
    return fig
