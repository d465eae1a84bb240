"""The Firefighting Graph's behaviours and learners against its exact optima
(docs/rules/firefighting_graph.md; the solver: ``dilemmas.models.firefighting_graph.optimal``).

``baselines`` simulates the behaviours (and the optimal policy as the ``policy`` seats'
policy, ``Optimum.playable``) in the model, episode ``e`` with ``rng = seed + e``, against the
optimum; ``baseline_table`` does so for several instances; ``optimal_figure`` draws optima and
simulated means (save it with ``dilemmas.analysis.figures.paper.save(figure, out_dir,
"optimal")``).
"""

import math

import matplotlib
import numpy as np
import pandas as pd
from scipy import stats

from dilemmas.analysis.figures.paper import CONFIDENCE, PALETTE, STYLE, PaperFigure
from dilemmas.models.firefighting_graph.model import FirefightingGraphModel
from dilemmas.models.firefighting_graph.optimal import (CASES, DETERMINISTIC, GAME,
                                                        exact_value, optimal_value,
                                                        policy_value, tables)

#: The behaviours ``baselines`` plays by default; "optimal" is the optimum's policy,
#: "q_learning" a tabular Q-learner trained first (``train_learner``).
BEHAVIOURS = ("random", "fixed0", "fixed1", "belief_tracker", "q_learning", "optimal")
#: Training of the "q_learning" baseline: episodes and the learner's settings (undiscounted,
#: as the team total is; exploring at a constant rate while it trains, greedy when played).
LEARNER_EPISODES = 10_000
LEARNER_SETTINGS = {"learning_rate": 0.05, "discount": 1.0, "epsilon": 0.2}


# --- Simulated baselines ------------------------------------------------------------------

def team_total(model) -> float:
    """The team's total reward of a played episode ("Rewards"): one firefighter's cumulative
    reward with ``shared_reward`` (all receive the same), else the sum of them."""
    if model.shared_reward:
        return model.seats[0].reward
    return float(sum(agent.reward for agent in model.seats))


def simulate(horizon: int, episodes: int, seed: int, population: str, policy=None,
             **parameters) -> np.ndarray:
    """The team total of ``episodes`` episodes of ``horizon`` steps, episode ``e`` played with
    ``rng = seed + e``."""
    totals = np.empty(episodes)
    parameters = {**parameters, "max_steps": horizon}
    for episode in range(episodes):
        model = FirefightingGraphModel(**parameters, population=population, policy=policy,
                                  rng=seed + episode, collect_data=False)
        model.run_model()
        totals[episode] = team_total(model)
    return totals


def train_learner(horizon: int, episodes: int, seed: int, **parameters):
    """A tabular Q-learner (``dilemmas.models.learners.TabularQ``, ``LEARNER_SETTINGS``) shared by
    every seat, trained over ``episodes`` episodes of ``horizon`` steps with ``rng = seed +
    e``, on the team reward the parameters give; returned greedy (``epsilon = 0``), to play
    as the ``policy``."""
    learner = None
    for episode in range(episodes):
        model = FirefightingGraphModel(**{**parameters, "max_steps": horizon},
                                  population="q_learning", learner=learner, rng=seed + episode,
                                  collect_data=False)
        if learner is None:
            learner = model.learners["q_learning"]
            learner.configure(**LEARNER_SETTINGS)
        model.run_model()
    learner.configure(**{**LEARNER_SETTINGS, "epsilon": 0.0})
    return learner


def baselines(horizon: int, episodes: int = 2000, seed: int = 0, behaviours=BEHAVIOURS,
              learner_episodes: int = LEARNER_EPISODES, **parameters) -> pd.DataFrame:
    """Per behaviour (every seat playing it; "optimal": the optimum's policy; "q_learning":
    ``train_learner`` over ``learner_episodes`` episodes seeded after the evaluation's, then
    played greedily): the mean team total over ``episodes`` simulated episodes (``rng = seed
    + e``), its standard error, the exact value of a deterministic behaviour (NaN for
    ``random`` and ``q_learning``), the exact optimum, the gap (optimum - mean) and the gap
    in standard errors."""
    optimum = optimal_value(GAME, horizon, **parameters)
    tab = tables(GAME, horizon, **parameters)
    rows = []
    for behaviour in behaviours:
        if behaviour == "optimal":
            totals = simulate(horizon, episodes, seed, "policy", optimum.playable, **parameters)
            exact = policy_value(tab, optimum.policy, horizon)
        elif behaviour == "q_learning":
            learner = train_learner(horizon, learner_episodes, seed + episodes, **parameters)
            totals = simulate(horizon, episodes, seed, "policy", learner, **parameters)
            exact = math.nan
        else:
            totals = simulate(horizon, episodes, seed, behaviour, **parameters)
            exact = exact_value(behaviour, horizon, **parameters) \
                if behaviour in DETERMINISTIC else math.nan
        mean = float(totals.mean())
        se = float(totals.std(ddof=1) / math.sqrt(episodes)) if episodes > 1 else math.nan
        gap = optimum.value - mean
        rows.append(dict(firefighters=tab.n_agents, houses=len(tab.states[0]),
                         horizon=horizon, behaviour=behaviour, episodes=episodes, mean=mean,
                         se=se, exact=exact, optimum=optimum.value, gap=gap,
                         gap_se=gap / se if se > 0 else math.nan))
    return pd.DataFrame(rows)


def baseline_table(cases=CASES, episodes: int = 2000, seed: int = 0, behaviours=BEHAVIOURS,
                   learner_episodes: int = LEARNER_EPISODES, **parameters) -> pd.DataFrame:
    """``baselines`` of each (firefighters, horizon) row instance, one under the other; the
    ``oliehoek`` preset unless ``parameters`` name another."""
    parameters = {"preset": "oliehoek", **parameters}
    return pd.concat([baselines(horizon, episodes, seed, behaviours, learner_episodes,
                                **parameters, n_agents=firefighters)
                      for firefighters, horizon in cases], ignore_index=True)


def optimal_figure(table: pd.DataFrame, title: str | None = None) -> PaperFigure:
    """Per instance (firefighters, horizon): the exact optimum as a black bar and, if
    ``table`` is a ``baselines``/``baseline_table`` result, each behaviour's simulated mean
    team total with its 95% Student-t confidence interval."""
    instances = table[["firefighters", "horizon"]].drop_duplicates().sort_values(
        ["firefighters", "horizon"]).itertuples(index=False)
    instances = list(instances)
    behaviours = list(pd.unique(table["behaviour"])) if "behaviour" in table else []
    fig = PaperFigure((1, max(1.0, len(instances) / 2.5)), margin=1.6)
    with matplotlib.rc_context(STYLE):
        ax = fig.subplots()
        width = 0.8 / max(len(behaviours), 1)
        for x, (firefighters, horizon) in enumerate(instances):
            here = table[(table["firefighters"] == firefighters) & (table["horizon"] == horizon)]
            ax.hlines(here["optimum"].iloc[0], x - 0.45, x + 0.45, color="black",
                      linewidth=2, label="exact optimum" if x == 0 else None)
            for j, behaviour in enumerate(behaviours):
                row = here[here["behaviour"] == behaviour]
                if not len(row):
                    continue
                row = row.iloc[0]
                half = stats.t.ppf(0.5 + CONFIDENCE / 2, row["episodes"] - 1) * row["se"]
                ax.errorbar(x + (j - (len(behaviours) - 1) / 2) * width, row["mean"],
                            yerr=half, fmt="o", color=PALETTE[j % len(PALETTE)],
                            label=behaviour if x == 0 else None)
        ax.set_xticks(range(len(instances)),
                      [f"{f} firefighters\nhorizon {h}" for f, h in instances])
        ax.set_xlim(-0.6, len(instances) - 0.4)
        ax.set_ylabel("total team reward of an episode")
        ax.grid(axis="x", visible=False)
        fig.legend(loc="outside right center")
        fig.suptitle(title or "Firefighting Graph: exact optimum and simulated behaviours\n"
                     f"(mean and {CONFIDENCE:.0%} CI)")
    return fig
