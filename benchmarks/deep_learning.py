"""The deep learners' results (docs/learning.md, "Deep learners"): trains the example deep
training files with ``dilemmas train`` (every training seed) and prints what they learned
beside the tabular learners and ``random``.

``firefighting_graph``: ``examples/training/firefighting_graph_ippo.toml`` with 20 training
seeds on three instances of the ``oliehoek`` row (``INSTANCES``): 2 firefighters over 3
steps (the file), 3 over 2 and 4 over 2 (``n_agents`` and ``max_steps`` changed; the file was
tuned on neither); each seed's greedy joint policy is read as a policy tree (flame
history -> action, ``optimal.network_policy``) and valued exactly (``optimal.exact_value``),
and checked by 100,000 simulated episodes on the batch engine (``ppo.greedy_episodes``); its
sampled play simulated in 2,000 Mesa episodes (``policy_play = "sampled"``);
the exact optimum, ``random``, ``fixed0`` and the tabular ``q_learning``
(``optimum.baselines``) beside.

The other games play each training seed's policy file greedily in the Mesa model (100
episodes, 60 in State Punishment; training seed ``i`` in worlds of its own, ``rng`` from
``world(i)``, so the intervals over seeds hold the worlds' variance too) and report the
game's episode statistics, mean and Student-t 95% interval over the training seeds (over
episodes for a scripted team):

``stag_hunt``: ``stag_hunt_ippo.toml`` (own reward) and the same with ``reward =
"prosocial"``, ``prosociality = 1``: coordinated stag kills per episode and the training
seeds whose policy kills more stags than hares; the tabular example and ``random`` beside.
``bucket_brigade``: ``bucket_brigade_mappo.toml`` in the ``default`` and ``hard`` scenarios:
team reward, work and lie rates, beside four tabular learners and every scripted behaviour
as a whole team. ``state_punishment``: ``state_punishment_ippo.toml``: votes, punishment level
and social harm beside three tabular learners and teams of civic voters, greedy foragers
and random players.

``stag_hunt_fair``: a fair test of Peysakhovich and Lerer 2018 (``stag_hunt_fair``): 20
training seeds per arm, selfish, prosocial and mixed pairs, each seat its own network.
``sampled``: every training in ``--out`` as it played while training, its actions sampled
from the policy (the last tenth of its updates, from its curves).

Run: ``.venv/bin/python benchmarks/deep_learning.py GAME|stag_hunt_fair|sampled [--out results/deep]``; a
training already in ``--out`` resumes (or is reused when finished).
"""

import argparse
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from dilemmas import GAMES as GAMES_
from dilemmas.learning import deep
from dilemmas.learning.deep import DeepTraining
from dilemmas.learning.ppo import greedy_episodes
from dilemmas.models.policies import load_policy

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "src" / "dilemmas" / "examples" / "training"


def training(file: str, name: str | None = None, changes=None, **parameters) -> DeepTraining:
    """The example ``file`` with the top-level ``changes`` and the game's ``parameters``."""
    data = {**tomllib.loads((EXAMPLES / file).read_text()), **(changes or {})}
    data["parameters"] = {**data.get("parameters", {}), **parameters}
    return DeepTraining(**{"name": name or Path(file).stem, **data})


def interval(values) -> str:
    """Mean and Student-t 95% interval of the values that are not NaN."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    mean = values.mean()
    if len(values) < 2 or values.std() == 0:
        return f"{mean:.4f} [{mean:.4f}, {mean:.4f}]"
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return f"{mean:.4f} [{mean - half:.4f}, {mean + half:.4f}]"


#: The Firefighting Graph instances (firefighters, steps): the example's, and two it was not
#: tuned on; the training seeds of each.
INSTANCES = ((2, 3), (3, 2), (4, 2))
SEEDS = 20
SAMPLED_EPISODES = 2000


def world(index: int) -> int:
    """The first Mesa ``rng`` seed training seed ``index`` is played in: 10,000 + 1,000 x
    ``index`` (its episode ``e`` in world ``world(index) + e``); a scripted team plays in
    ``world(0)`` on."""
    return 10_000 + 1_000 * index


def firefighting_graph(out: Path) -> None:
    import jax

    from dilemmas.analysis import optimum
    from dilemmas.models.firefighting_graph import optimal

    rows = []
    for firefighters, horizon in INSTANCES:
        plan = training("firefighting_graph_ippo.toml",
                        f"firefighting_graph_ippo_{firefighters}x{horizon}",
                        {"population": f"policy:{firefighters}", "seeds": SEEDS},
                        n_agents=firefighters, max_steps=horizon)
        start = time.perf_counter()
        deep.train(plan, out, progress=False)
        seconds = time.perf_counter() - start
        parameters = {k: v for k, v in plan.parameters.items() if k != "max_steps"}
        best = optimal.optimal_value("firefighting_graph", horizon, **parameters).value
        env = plan.env()
        trainer = plan.trainer()
        runners = deep.load_checkpoint(out / plan.name, trainer.start(plan.keys()))
        exact, simulated, sampled = [], [], []
        for index in range(plan.seeds):
            policy = load_policy(deep.policy_path(out / plan.name, index))
            exact.append(optimal.exact_value(optimal.network_policy(policy, horizon,
                                                                    **parameters),
                                             horizon, **parameters))
            actor = jax.tree_util.tree_map(lambda leaf: leaf[index], runners.actor)
            returns, _, _ = greedy_episodes(env, actor, 100_000, jax.random.PRNGKey(index),
                                            horizon)
            team = np.asarray(returns)[:, 0]
            simulated.append((team.mean(), team.std(ddof=1) / np.sqrt(len(team))))
            rewards = []
            for e in range(SAMPLED_EPISODES):  # the team reward, every seat's (shared)
                model = GAMES_["firefighting_graph"].model(
                    **plan.parameters, population=plan.population,
                    policy=str(deep.policy_path(out / plan.name, index)),
                    policy_play="sampled", rng=10_000 + e)
                model.run_model()
                rewards.append(min(model.agents, key=lambda agent: agent.unique_id).reward)
            sampled.append(np.mean(rewards))
        for index, (value, (mean, se)) in enumerate(zip(exact, simulated)):
            print(f"{firefighters}x{horizon} seed {index}: exact {value:.6f} (gap "
                  f"{(best - value) / abs(best):.3%} of the optimum), simulated {mean:.4f} "
                  f"± {se:.4f} over 100,000 episodes; sampled play {sampled[index]:.4f} "
                  f"over {SAMPLED_EPISODES:,} Mesa episodes")
        within = np.mean([(best - value) <= 0.01 * abs(best) for value in exact])
        baselines = optimum.baselines(horizon, 10_000, 0, ("random", "fixed0", "q_learning"), 20_000,
                                      **{**parameters, "n_agents": firefighters})
        row = {"instance": f"{firefighters}x{horizon}", "optimum": round(best, 4),
               f"greedy, exact (mean [95% CI], {SEEDS} seeds)": interval(exact),
               "seeds within 1%": f"{within:.0%}",
               "sampled, simulated": interval(sampled), "training s": round(seconds)}
        for _, baseline in baselines.iterrows():
            row[baseline["behaviour"]] = f"{baseline['mean']:.3f} ± {baseline['se']:.3f}"
        rows.append(row)
    print(pd.DataFrame(rows).to_string(index=False))


# --- Playing trained policies and scripted teams in the Mesa models --------------------------
def episodes(game: str, parameters: dict, population: str, count: int, policy=None,
             seed: int = 10_000, play: str = "greedy") -> pd.DataFrame:
    """The game's episode statistics (``GAMES[game].statistics``) of ``count`` Mesa episodes
    (``rng = seed + e``), a policy file played ``play``, one row each."""
    frames = []
    for e in range(count):
        model = GAMES_[game].model(**parameters, population=population, policy=policy,
                                   policy_play=play, rng=seed + e)
        model.run_model()
        rows = model.datacollector.get_model_vars_dataframe().reset_index(drop=True)
        frames.append(rows.assign(run_id=e))
    return GAMES_[game].statistics(pd.concat(frames, ignore_index=True), "run_id")


def deep_seeds(plan: DeepTraining, out: Path, count: int, population: str | None = None,
               play: str = "greedy"):
    """Train ``plan`` (or reuse it, printing the training's time) and play each seed's
    policy file ``play`` in ``count`` episodes: one row per seed, the mean of each episode
    statistic."""
    start = time.perf_counter()
    deep.train(plan, out, progress=False)
    print(f"{plan.name}: {plan.seeds} seeds x {plan.updates} updates trained (or found) in "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    population = population or plan.population
    return pd.DataFrame([episodes(plan.game, plan.parameters, population, count,
                                  str(deep.policy_path(out / plan.name, index)),
                                  seed=world(index), play=play).mean()
                         for index in range(plan.seeds)])


def tabular_seeds(file: str, name: str, out: Path, count: int, changes=None, **parameters):
    """Train the tabular example ``file`` (with ``changes``) as ``name`` and play each seed's
    learner greedily as a policy, as ``deep_seeds``."""
    from dilemmas.analysis.learning import training as tabular

    data = {**tomllib.loads((EXAMPLES / file).read_text()), **(changes or {})}
    data["parameters"] = {**data.get("parameters", {}), **parameters}
    plan = tabular.Training(**{"name": name, **data})
    tabular.train(plan, out, backend="serial", progress=False)
    population = plan.focal_population("policy", plan.background)
    return pd.DataFrame([episodes(plan.game, plan.parameters, population, count,
                                  str(tabular.checkpoint(out / plan.name, index)),
                                  seed=world(index)).mean()
                         for index in range(plan.seeds)])


def summary(label: str, per_seed: pd.DataFrame, columns) -> dict:
    return {"who": label, "seeds": len(per_seed),
            **{column: interval(per_seed[column]) for column in columns}}


def scripted(label: str, table: pd.DataFrame, columns) -> dict:
    """A scripted team's episodes: mean and 95% interval over episodes."""
    return {"who": label, "seeds": "-", **{column: interval(table[column]) for column in columns}}


def stag_hunt(out: Path) -> None:
    """Selfish against prosocial IPPO (Peysakhovich and Lerer 2018), 2 hunters,
    ``heal_delay=1``: coordinated stag kills per episode and the share of training seeds whose
    policy ends at the stag (more stags than hares killed), the tabular learners and
    ``random`` beside."""
    columns = ["coordinated", "stags", "hares", "stag_share", "mean_reward"]
    selfish = training("stag_hunt_ippo.toml")
    prosocial = training("stag_hunt_ippo.toml", "stag_hunt_ippo_prosocial",
                         {"ppo": {**selfish.ppo, "reward": "prosocial", "prosociality": 1.0}})
    rows = []
    for label, plan in (("ippo, own reward", selfish),
                        ("ippo, prosocial reward (weight 1)", prosocial)):
        per_seed = deep_seeds(plan, out, 100)
        at_stag = int((per_seed["stags"] > per_seed["hares"]).sum())
        rows.append({**summary(label, per_seed, columns),
                     "seeds at the stag": f"{at_stag} of {len(per_seed)}"})
        print(label, "per seed:\n", per_seed[columns].round(3).to_string())
    per_seed = tabular_seeds("stag_hunt.toml", "stag_hunt_tabular", out, 100)
    rows.append({**summary("q_learning (tabular)", per_seed, columns),
                 "seeds at the stag": f"{int((per_seed['stags'] > per_seed['hares']).sum())} "
                                      f"of {len(per_seed)}"})
    rows.append(scripted("random", episodes("stag_hunt", selfish.parameters, "random", 300),
                         columns))
    print(pd.DataFrame(rows).to_string(index=False))


def bucket_brigade(out: Path) -> None:
    """MAPPO trained on the team reward (``reward = "team"``, the rules' ``R_team``, which is
    what is reported), 20 training seeds, the default and the hard scenario: team reward,
    work and lie rates, played greedily and sampled (50 episodes per seed each), against the
    tabular learners and every scripted behaviour as a whole team (the best named)."""
    columns = ["team_reward", "work_rate", "lie_rate", "nights"]
    for scenario in ("default", "hard"):
        plan = training("bucket_brigade_mappo.toml", f"bucket_brigade_mappo_{scenario}",
                        {"seeds": SEEDS}, scenario=scenario)
        rows = [summary(f"mappo, trained on the team reward, {play}",
                        deep_seeds(plan, out, 50, play=play), columns)
                for play in DeepTraining.PLAYS]
        rows.append(summary("q_learning:4 (tabular, own reward)",
                            tabular_seeds("bucket_brigade.toml", f"bucket_brigade_tabular_{scenario}",
                                          out, 100,
                                          {"population": "q_learning:4", "evaluate": {}},
                                          scenario=scenario),
                            columns))
        teams = [scripted(behaviour, episodes("bucket_brigade", plan.parameters, behaviour,
                                              100), columns)
                 for behaviour in GAMES_["bucket_brigade"].behaviours
                 if behaviour not in ("policy", "q_learning", "linear_q")]
        rows += sorted(teams, key=lambda row: -float(row["team_reward"].split()[0]))
        print(f"scenario {scenario}")
        print(pd.DataFrame(rows).to_string(index=False))


def state_punishment(out: Path) -> None:
    """IPPO, three foragers each trained on its own reward (``reward = "own"``, what is
    reported), 20 training seeds: votes, punishment level, social harm and reward, played
    greedily and sampled (30 episodes per seed each), against the tabular learners and
    whole teams of civic voters, of greedy foragers and of random players."""
    columns = ["votes_up", "votes_down", "mean_p", "final_p", "harm", "collected",
               "mean_reward"]
    plan = training("state_punishment_ippo.toml", changes={"seeds": SEEDS})
    rows = [summary(f"ippo, own reward, {play}", deep_seeds(plan, out, 30, play=play),
                    columns) for play in DeepTraining.PLAYS]
    rows.append(summary("q_learning:3 (tabular)",
                        tabular_seeds("state_punishment.toml", "state_punishment_tabular", out,
                                      60, {"population": "q_learning:3", "evaluate": {}}),
                        columns))
    for team in ("civic_voter", "greedy_forager", "random"):
        rows.append(scripted(team, episodes("state_punishment", plan.parameters, team, 60),
                             columns))
    print(pd.DataFrame(rows).to_string(index=False))


#: The three arms of the fair test: (label, [ppo] reward settings); seat 0 first.
ARMS = (("selfish pair", {"reward": "own"}),
        ("prosocial pair (w = 1)", {"reward": "prosocial", "prosociality": 1.0}),
        ("prosocial seat 0 (w = 1) beside selfish seat 1",
         {"reward": "prosocial", "prosociality": [1.0, 0.0]}))


def seat_episodes(plan: DeepTraining, policy: str, play: str, count: int,
                  seed: int = 10_000) -> pd.DataFrame:
    """``count`` Mesa episodes of ``policy`` played ``play`` (greedy or sampled): the game's
    episode statistics and each seat's own return (``return_<seat>``), one row each."""
    rows = []
    for e in range(count):
        model = GAMES_[plan.game].model(**plan.parameters, population=plan.population,
                                        policy=policy, policy_play=play, rng=seed + e)
        model.run_model()
        turns = model.datacollector.get_model_vars_dataframe().assign(run_id=0)
        row = GAMES_[plan.game].statistics(turns, "run_id").iloc[0].to_dict()
        row.update({f"return_{agent.seat}": agent.reward
                    for agent in sorted(model.agents, key=lambda agent: agent.seat)})
        rows.append(row)
    return pd.DataFrame(rows)


def stag_hunt_fair(out: Path, seeds: int = 20, updates: int = 200, count: int = 50) -> None:
    """A fair test of Peysakhovich and Lerer 2018 (docs/explanation/measured-results.md):
    two hunters with ``heal_delay = 2`` (a stag still needs both hunters, now within two
    turns), each seat its own network (``share = false``), ``seeds`` training seeds per arm
    (``ARMS``): selfish, prosocial, and one prosocial beside one selfish. Per arm, over the
    seeds (mean and Student-t 95% interval): stag kills (all, and coordinated in one turn),
    hares, each seat's own return, and the seeds ending at the stag (more stags than hares;
    Clopper-Pearson 95% interval of the fraction), greedy and sampled, ``count`` Mesa
    episodes per seed and play (each seed's means in ``play-<play>.csv`` beside its
    training; the table so far printed after each arm); and the curves' last 50 updates
    against the 50 before (flattened?)."""
    columns = ["stags", "coordinated", "hares", "return_0", "return_1"]
    rows = []
    for label, reward in ARMS:
        name = "stag_hunt_fair_" + ("selfish" if reward["reward"] == "own" else
                                    "prosocial" if reward["prosociality"] == 1.0 else "mixed")
        plan = training("stag_hunt_ippo.toml", name,
                        {"seeds": seeds, "updates": updates, "checkpoint_every": 50,
                         "network": {"kind": "mlp", "share": False},
                         "ppo": {"envs": 32, "steps": 128, "learning_rate": 0.0005, **reward}},
                        heal_delay=2)
        start = time.perf_counter()
        deep.train(plan, out, progress=False)
        print(f"{label}: trained {seeds} seeds x {updates} updates in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
        curve = deep.curves(out / plan.name)
        for first, last in ((updates - 99, updates - 50), (updates - 49, updates)):
            block = curve[curve["update"].between(first, last)].groupby("replicate").mean()
            print(f"  while training, updates {first}-{last}: stags "
                  f"{interval(block['end_stags_defeated'])}, hares "
                  f"{interval(block['end_hares_defeated'])}, objective return "
                  f"{interval(block['objective_return'])}")
        for play in DeepTraining.PLAYS:
            per_seed = pd.DataFrame([seat_episodes(
                plan, str(deep.policy_path(out / plan.name, index)), play, count,
                world(index)).mean()
                for index in range(seeds)])
            at_stag = int((per_seed["stags"] > per_seed["hares"]).sum())
            low, high = stats.binomtest(at_stag, seeds).proportion_ci(method="exact")
            per_seed.to_csv(out / plan.name / f"play-{play}.csv", index_label="replicate")
            rows.append({**summary(f"{label}, {play}", per_seed, columns),
                         "seeds at the stag": f"{at_stag} of {seeds} [{low:.2f}, {high:.2f}]"})
        with pd.option_context("display.width", 250, "display.max_colwidth", 40):
            print(pd.DataFrame(rows).to_string(index=False), flush=True)


#: The curves' columns ``sampled`` reports, per game.
SAMPLED = {"stag_hunt": ["end_coordinated_stag_kills", "end_stags_defeated",
                         "end_hares_defeated"],
           "bucket_brigade": ["end_team_reward", "end_cumulative_lies"],
           "state_punishment": ["end_cumulative_votes_up", "end_cumulative_votes_down",
                                "end_punishment_level", "end_social_harm_generated",
                                "end_collected"],
           "firefighting_graph": []}


def sampled(out: Path) -> None:
    """Every deep training in ``out`` as it played while training (actions sampled from the
    policy): per seed, the mean over the last tenth of its updates of the returns and the
    model's columns at the episodes' ends, then mean and 95% interval over the seeds."""
    import json

    for folder in sorted(path.parent for path in out.glob("*/checkpoint.npz")):
        game = json.loads((folder / "training.json").read_text())["game"]
        curve = deep.curves(folder)
        last = curve[curve["update"] > 0.9 * curve["update"].max()]
        per_seed = last.groupby("replicate")[["learner_return", *SAMPLED[game]]].mean()
        print(pd.DataFrame([summary(folder.name, per_seed, per_seed.columns)]).to_string(
            index=False))


GAMES = {"firefighting_graph": firefighting_graph, "stag_hunt": stag_hunt,
         "stag_hunt_fair": stag_hunt_fair,
         "bucket_brigade": bucket_brigade, "state_punishment": state_punishment,
         "sampled": sampled}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--out", type=Path, default=Path("results/deep"))
    args = parser.parse_args(argv)
    print(f"JAX device: {__import__('jax').devices()[0]}")
    GAMES[args.game](args.out)


if __name__ == "__main__":
    main()
