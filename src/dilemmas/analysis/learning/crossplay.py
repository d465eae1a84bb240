"""Cross-play between training seeds: ``dilemmas evaluate TRAIN.toml --cross-play``
(docs/learning.md, "Cross-play").

Learners trained together can settle on conventions that only their own partners share, so a
policy's self-play return overstates what it earns beside another training's (Lanctot et al.
2017's joint-policy correlation; Hu et al. 2020). For a training of ``S`` seeds whose
population seats ``L >= 2`` learning seats, pair ``(i, j)`` plays seed ``i``'s policy in the
first learning seat (the *row* seat) and seed ``j``'s in the other learning seats (the
*column* seats); with ``share = false`` each seed's own network of that seat. Each pair is
one seated policy file (``pairs/<i>-<j>.npz``, kind ``"seats"``), so the diagonal
``(i, i)`` plays exactly the training's own policy file. ``crossplay_study`` sweeps the
``S x S`` pair files (and, for a deep training, ``policy_play``: greedy and sampled) in a
study with the training's parameters and its first ``[evaluate] backgrounds`` mix in the
background seats, ``[evaluate] seeds`` replicates (or ``replicates``) each: resumable, on
every backend, like any study.

``matrix(folder, seats)`` reads it back: per play and pair, the mean over replicates of the
row seat's return, of the column seats' (per seat) and of all learning seats' (per seat),
and of the social outcome metrics of all seats (efficiency, equality, ..., and Bucket
Brigade's signal-action information; ``evaluation.social_outcomes``).
``summary`` compares the diagonal (self-play) with the cells off it (cross-play), for all
learning seats' return: their means, the difference and the relative loss ``(self -
cross) / |self|`` with 95% percentile-bootstrap intervals over the training seeds (each
resample draws ``S`` seeds with replacement and takes the submatrix of the drawn seeds, so
that cells sharing a seed are resampled together; a draw with only one distinct seed has no
cross-play and is drawn again).
"""

from pathlib import Path

import numpy as np
import pandas as pd

from dilemmas.analysis.learning.evaluation import policies, relative_path, social_outcomes
from dilemmas.analysis.learning.training import TrainingError
from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.study import Study
from dilemmas.models.policies import SeatedPolicy, load_policy, save_policy

RESAMPLES = 2000
CONFIDENCE = 0.95


def seat_policies(policy, seats: int) -> list:
    """The policy of each of ``seats`` learning seats, in seat order."""
    if policy.kind != "seats":
        return [policy] * seats
    return [part for part, count in policy.parts for _ in range(count)]


def pair_policy(row, column, seats: int, game: str) -> SeatedPolicy:
    """Seed ``row``'s policy in the first learning seat, ``column``'s in the others."""
    return SeatedPolicy([(seat_policies(row, seats)[0], 1)]
                        + [(part, 1) for part in seat_policies(column, seats)[1:]], game)


def crossplay_folder(training, out) -> Path:
    return Path(out) / f"{training.name}-cross-play"


def crossplay_study(training, trained="results/training", out="results",
                    replicates: int | None = None) -> Study:
    """The cross-play of ``training`` (trained into ``trained``) as a study whose results go
    to ``<out>/<name>-cross-play`` (module docstring); writes the pair files there first."""
    seats = training.learning_seats
    if seats < 2:
        raise TrainingError(f"training {training.name!r}: cross-play needs at least 2 "
                            f"learning seats, and its population seats {seats}")
    if training.seeds < 2:
        raise TrainingError(f"training {training.name!r}: cross-play needs at least 2 "
                            "training seeds, and it has 1")
    trained_files = [load_policy(path) for path in policies(training, trained)]
    pairs = crossplay_folder(training, out) / "pairs"
    pairs.mkdir(parents=True, exist_ok=True)
    files = []
    for i, row in enumerate(trained_files):
        for j, column in enumerate(trained_files):
            path = pairs / f"{i}-{j}.npz"
            save_policy(path, pair_policy(row, column, seats, training.game))
            files.append(relative_path(path))
    background = training.evaluate.get("backgrounds", [training.background])[0]
    plays = {"policy_play": list(training.PLAYS)} if len(training.PLAYS) > 1 else {}
    return Study(game=training.game, name=f"{training.name}-cross-play", seed=training.seed,
                 replicates=replicates or training.evaluate.get("seeds", 30),
                 collect=("model", "agent"), fixed={**training.parameters,
                                                    "population": training.focal_population(
                                                        "policy", background)},
                 sweep={"policy": files, **plays})


def per_run(folder, seats: int) -> pd.DataFrame:
    """One row per run: ``play``, ``row`` and ``column`` (the pair's seeds), the returns
    ``row_return``, ``column_return`` and ``learners_return`` (per seat), and the social
    outcome metrics of all its seats (``evaluation.social_outcomes``)."""
    agents = results.load(folder, "agent")
    last = agents[agents["Step"] == agents.groupby("run_id")["Step"].transform("max")]
    last = last[(last["AgentID"] - 1) < seats]
    if "policy_play" not in last:
        last = last.assign(policy_play="greedy")
    first = last["AgentID"] == 1
    runs = last.groupby("run_id").agg(policy=("policy", "first"), play=("policy_play", "first"),
                                      learners_return=("reward", "mean"))
    runs["row_return"] = last[first].groupby("run_id")["reward"].mean()
    runs["column_return"] = last[~first].groupby("run_id")["reward"].mean()
    pair = runs["policy"].map(lambda path: Path(path).stem.split("-"))
    runs = runs.join(social_outcomes(agents))
    return runs.assign(row=pair.str[0].astype(int),
                       column=pair.str[1].astype(int)).reset_index()


def matrix(folder, seats: int) -> pd.DataFrame:
    """Per play and pair: the runs ``n`` and the means over them of the returns and the
    social outcome metrics (module docstring)."""
    runs = per_run(folder, seats)
    means = [c for c in runs if c not in ("run_id", "policy", "play", "row", "column")]
    grouped = runs.groupby(["play", "row", "column"])
    return grouped[means].mean().join(grouped.size().rename("n")).reset_index()


def _self_and_cross(cells: np.ndarray) -> tuple[float, float]:
    diagonal = np.eye(len(cells), dtype=bool)
    return cells[diagonal].mean(), cells[~diagonal].mean()


def summary(table: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Per play: self-play and cross-play means of the learning seats' return, their
    difference and the relative loss, with bootstrap intervals (module docstring)."""
    rng = np.random.default_rng(seed)
    rows = []
    for play, cells in table.groupby("play"):
        grid = cells.pivot(index="row", columns="column", values="learners_return")
        values = grid.to_numpy()
        seeds = len(values)
        own, cross = _self_and_cross(values)
        drawn = []
        while len(drawn) < RESAMPLES:
            pick = rng.integers(seeds, size=seeds)
            if len(set(pick)) < 2:
                continue
            sub = values[np.ix_(pick, pick)]
            same = pick[:, None] == pick[None, :]  # a seed drawn twice meets itself
            drawn.append((sub[same].mean(), sub[~same].mean()))
        drawn = np.asarray(drawn)
        gap = drawn[:, 0] - drawn[:, 1]
        loss = gap / np.abs(drawn[:, 0])
        tail = (1 - CONFIDENCE) / 2 * 100
        row = {"play": play, "seeds": seeds}
        for name, value, samples in (("self_play", own, drawn[:, 0]),
                                     ("cross_play", cross, drawn[:, 1]),
                                     ("difference", own - cross, gap),
                                     ("relative_loss", (own - cross) / abs(own), loss)):
            low, high = np.percentile(samples, [tail, 100 - tail])
            row.update({name: value, f"{name}_low": low, f"{name}_high": high})
        rows.append(row)
    return pd.DataFrame(rows)


def crossplay_figure(folder, table: pd.DataFrame):
    """A heatmap per play of the learning seats' mean return, row seed against column
    seed; saved as ``cross_play.pdf`` / ``.png`` in ``folder``. Returns the PNG's path."""
    import matplotlib

    from dilemmas.analysis.figures.paper import STYLE, PaperFigure, save

    plays = sorted(table["play"].unique())
    figure = PaperFigure(panels=(1, len(plays)))
    with matplotlib.rc_context(STYLE):
        axes = np.atleast_1d(figure.subplots(1, len(plays)))
        for axis, play in zip(axes, plays):
            grid = table[table["play"] == play].pivot(index="row", columns="column",
                                                      values="learners_return")
            image = axis.imshow(grid.to_numpy(), cmap="viridis", origin="upper")
            axis.set_title(f"{play} play")
            axis.set_xlabel("seed in the other learning seats")
            axis.set_ylabel("seed in the first learning seat")
            figure.colorbar(image, ax=axis, label="return per learning seat")
        figure.suptitle(f"{Path(folder).name}: each seed beside each other "
                        "(diagonal: self-play)")
    return save(figure, Path(folder), "cross_play")[-1]
