"""Evaluating trained learners: ``dilemmas evaluate TRAIN.toml`` (docs/learning.md).

In the manner of Melting Pot's scenarios: the *focal* seats -- the seats that learned in
training, the population's first entry -- are played by a trained policy, and the other,
*background* seats by a scripted behaviour mix (the training's, or each of its ``[evaluate]
backgrounds``). The same scenarios are played with ``random`` in the focal seats, the
baseline. ``evaluation_study`` makes this a study (``dilemmas.analysis.studies.study``): the game's
parameters fixed; swept, the population (trained or random focal seats, each background) and
the policy (the final learner of each training seed) and, for a deep training, how it is
played (``policy_play``: ``greedy``, its argmax, and ``sampled``, drawn from its action
distribution as it trained, ``Seating.PLAYS``); ``[evaluate] seeds`` replicates, with
agent data. (The policy and its play are swept for the random baseline too, where no seat
reads them: its runs for every value are pooled, so the baseline has ``seeds`` times the
number of training seeds (and of plays) runs.) The policy files are named relative to the
working folder where they lie inside it: evaluating from the same folder repeats the same
seeds and numbers. The
runner plays it, so it resumes, runs on Dask and feeds ``dilemmas figures`` like any study.

``returns(folder, focal)`` reads it back: per scenario and play, the focal and the background
per-capita returns (the mean final reward of those seats in a run, then mean, standard error
and Student-t 95% interval over the evaluation seeds). ``comparison`` sets each trained policy
against ``random`` in the same seats: the difference of the focal means and that difference
in standard errors, ``sqrt(se_policy^2 + se_random^2)``. Beside the returns each row has
the mean over its runs of the social outcome metrics of all the seats (``social_outcomes``:
efficiency, equality, sustainability, peace where they are defined, and Bucket Brigade's
``signal_information``).
"""

from pathlib import Path

import numpy as np
import pandas as pd

from dilemmas.analysis import social
from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.study import Study
from dilemmas.analysis.learning.training import Training, folder_of
from dilemmas.models.policies import POLICY

CONFIDENCE = 0.95


def policies(training, trained) -> list[str]:
    """The final policy file of each training seed; a TrainingError if one is unfinished."""
    folder = folder_of(training, trained)
    return [relative_path(training.finished_policy(folder, index))
            for index in range(training.seeds)]


def relative_path(path: Path) -> str:
    """``path`` relative to the working folder where it lies inside it, else absolute: the
    study's run seeds derive from its parameters, so the same files give the same seeds
    however the folder was named (``results/x``, ``./results/x``, ``/abs/.../results/x``)."""
    path = path.resolve()
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def evaluation_study(training: Training, trained="results/training") -> Study:
    """The evaluation of ``training`` (trained into ``trained``) as a study (module
    docstring)."""
    backgrounds = training.evaluate.get("backgrounds", [training.background])
    populations = [training.focal_population(focal, background)
                   for background in backgrounds for focal in (POLICY, "random")]
    plays = {"policy_play": list(training.PLAYS)} if len(training.PLAYS) > 1 else {}
    return Study(game=training.game, name=f"{training.name}-evaluation", seed=training.seed,
                 replicates=training.evaluate.get("seeds", 30), collect=("model", "agent"),
                 fixed=dict(training.parameters),
                 sweep={"population": populations, "policy": policies(training, trained),
                        **plays})


def returns(folder, focal: int) -> pd.DataFrame:
    """Per policy, play and population of an evaluation study: the number of runs ``n``, and
    the focal and background per-capita returns (mean, ``_se``, ``_low``, ``_high``); the
    first ``focal`` seats are focal. ``play`` is ``greedy`` or ``sampled``, or ``""`` for
    the random baseline."""
    agents = results.load(folder, "agent")
    last = agents[agents["Step"] == agents.groupby("run_id")["Step"].transform("max")]
    last = last.assign(focal=(last["AgentID"] - 1) < focal)
    trained = last["population"].str.startswith("policy")
    play = last["policy_play"] if "policy_play" in last else "greedy"
    last = last.assign(policy=last["policy"].where(trained, "").map(
        lambda path: Path(path).parent.name if path else "(random)"),
        play=pd.Series(play, index=last.index).where(trained, ""))
    per_run = last.groupby(["policy", "play", "population", "run_id", "focal"])["reward"] \
        .mean().unstack("focal").rename(columns={True: "focal_return",
                                                 False: "background_return"})
    if "background_return" not in per_run:
        per_run["background_return"] = np.nan
    per_run = per_run.join(social_outcomes(agents), on="run_id")
    rows = []
    for (policy, play, population), group in per_run.groupby(["policy", "play",
                                                              "population"]):
        row = {"population": population, "policy": policy, "play": play, "n": len(group)}
        for column in [c for c in per_run if c not in ("focal_return", "background_return")]:
            row[column] = group[column].mean()
        for column in ("focal_return", "background_return"):
            found = results.mean_interval(group[column], CONFIDENCE)
            row.update({column: found["mean"], f"{column}_se": found["se"],
                        f"{column}_low": found["low"], f"{column}_high": found["high"]})
        rows.append(row)
    return pd.DataFrame(rows)


def social_outcomes(agents: pd.DataFrame) -> pd.DataFrame:
    """Per run: the social outcome metrics of all its seats (``dilemmas.analysis.social``),
    and Bucket Brigade's signal-action information where the agents signal."""
    found = social.outcomes(agents).dropna(axis=1, how="all")
    if {"signal", "mode"} <= set(agents.columns):
        found = found.join(social.signal_information(agents))
    return found.rename_axis("run_id")


def comparison(table: pd.DataFrame, training: Training) -> pd.DataFrame:
    """Each trained policy against ``random`` in the focal seats of the same background:
    focal means, their difference and the difference in standard errors."""
    rows = []
    backgrounds = training.evaluate.get("backgrounds", [training.background])
    for background in backgrounds:
        trained = table[table["population"] == training.focal_population("policy", background)]
        baseline = table[table["population"] == training.focal_population("random",
                                                                         background)]
        random_mean, random_se = baseline["focal_return"].iloc[0], \
            baseline["focal_return_se"].iloc[0]
        for _, row in trained.iterrows():
            difference = row["focal_return"] - random_mean
            se = np.hypot(row["focal_return_se"], random_se)
            rows.append({"background": background or "(none)", "policy": row["policy"],
                         "play": row["play"], "trained": row["focal_return"],
                         "random": random_mean,
                         "difference": difference, "standard_errors": difference / se})
    return pd.DataFrame(rows)


def evaluation_figure(folder, table: pd.DataFrame):
    """One panel per background: the focal and background returns per seat when the focal
    seats are played by ``random`` or by each training seed's learner, with 95% intervals;
    saved as ``<folder>/evaluation.pdf`` and ``.png``. Returns the PNG's path."""
    import matplotlib

    from dilemmas.analysis.figures.paper import STYLE, PaperFigure, save

    table = table.assign(background=[population.partition(",")[2] or "(none)"
                                     for population in table["population"]])
    backgrounds = list(dict.fromkeys(table["background"]))
    figure = PaperFigure((1, len(backgrounds)), margin=0.8)
    with matplotlib.rc_context(STYLE):
        axes = np.atleast_1d(figure.subplots(1, len(backgrounds), sharey=True, squeeze=False)
                             .ravel())
        for axis, background in zip(axes, backgrounds):
            here = table[table["background"] == background]
            here = pd.concat([here[here["policy"] == "(random)"],
                              here[here["policy"] != "(random)"]])
            x = np.arange(len(here))
            shown = [(column, label, colour) for column, label, colour in (
                ("focal_return", "focal seats", "C0"),
                ("background_return", "background seats", "C1"))
                if not here[column].isna().all()]
            width = 0.8 / len(shown)
            for index, (column, label, colour) in enumerate(shown):
                errors = np.vstack([here[column] - here[f"{column}_low"],
                                    here[f"{column}_high"] - here[column]])
                axis.bar(x + (index - (len(shown) - 1) / 2) * width, here[column], width,
                         yerr=errors, color=colour, label=label, capsize=3)
            axis.set_xticks(x, [f"{policy.strip('()')}\n{play}".strip()
                                for policy, play in zip(here["policy"], here["play"])])
            axis.axhline(0, color="0.5", linewidth=0.8)
            axis.set_title(f"background {background}")
            axis.set_xlabel("focal seats played by")
        axes[0].set_ylabel("return per seat in an episode")
        axes[0].legend(frameon=False)
        figure.suptitle(f"{Path(folder).name}: trained learners (one per training seed) and "
                        f"random in the focal seats\n(mean and 95% interval over "
                        f"{int(table['n'].min())} or more evaluation seeds)")
    return save(figure, folder, "evaluation")[-1]
