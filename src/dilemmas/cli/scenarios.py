"""The scenario commands of ``dilemmas``: ``scenarios``, ``evaluate --scenario`` and
``baselines`` (docs/scenarios.md)."""

import hashlib
import textwrap
from pathlib import Path

from dilemmas.cli.arguments import interval_text


def list_scenarios(args):
    import pandas as pd

    from dilemmas.scenarios import select

    chosen = select(args.spec)
    if len(chosen) == 1:
        scenario = chosen[0]
        print(f"{scenario.id}: {scenario.focal} focal of {scenario.seats} seats, background "
              f"{scenario.background or '(none)'}, {scenario.episodes} episodes\n")
        print(textwrap.fill(scenario.description, 92) + "\n")
        print(f"parameters: {scenario.parameters}\nmetrics: focal_return, background_return, "
              f"{', '.join(scenario.metrics)}")
        for bot in scenario.bots.values():
            print(f"bot {bot.name}: {bot.description} ({bot.path.name})")
        return
    table = pd.DataFrame([{"id": s.id, "focal": f"{s.focal} of {s.seats}",
                           "background": s.background or "(none)", "episodes": s.episodes}
                          for s in chosen])
    print(table.to_string(index=False))
    print("\n`dilemmas scenarios ID` describes one; `dilemmas evaluate POLICY --scenario ID|GAME"
          "|all` scores a policy file or a behaviour on them")


def evaluate(args):
    import pandas as pd

    from dilemmas.analysis.studies.study import check_name
    from dilemmas.scenarios import baselines, scoring, select
    from dilemmas.scenarios.figures import scenario_figure

    targets = [str(target) for target in args.training]
    is_file = len(targets) > 1 or targets[0].endswith(".npz") or Path(targets[0]).exists()
    for target in targets if is_file else ():
        if not Path(target).is_file():
            why = "is not a file" if Path(target).exists() else "does not exist"
            raise FileNotFoundError(f"the policy file {target!r} {why}")
    target = targets[0]
    chosen = playable(select(args.scenario), targets, is_file, args.scenario)
    name = args.label or default_name(targets, is_file)
    check_name("--name", name, ValueError)
    out = args.out or Path("results/scenarios")
    suffix = "" if args.seed == 0 else f"-seed{args.seed}"
    stored = baselines.stored()
    rows = []
    for scenario in chosen:
        focal, files = ("policy", targets) if is_file else (target, [])
        row = scoring.evaluate(scenario, focal, files, out, name, args.seed,
                               backend=args.backend, workers=args.workers,
                               scheduler=args.scheduler, progress=not args.no_progress)
        rows.append({**row, **scoring.standing(row, stored)})
    scores = pd.DataFrame(rows)
    folder = out / name
    scores.to_csv(folder / f"scores{suffix}.csv", index=False)
    shown = pd.DataFrame({
        "scenario": scores["scenario"], "n": scores["n"],
        **{f"{seats} (95% CI)": [interval_text(*values) for values in scores[
            [f"{seats}_return", f"{seats}_return_low", f"{seats}_return_high"]].to_numpy()]
           for seats in ("focal", "background")},
        "rank": scores["rank"], "best baseline": scores["best"],
        "normalised": scores["normalised"].map("{:.2f}".format)})
    print(f"{name} on {len(chosen)} scenarios, seed {args.seed} (returns per seat; rank among "
          "the stored baselines and itself; normalised: 0 = random, 1 = the best baseline)\n")
    print(shown.to_string(index=False))
    for game in dict.fromkeys(scenario.game for scenario in chosen):
        metrics = next(s for s in chosen if s.game == game).metrics
        here = scores[scores["scenario"].str.startswith(f"{game}/")]
        print(f"\n{game} metrics (mean per episode)")
        print(here[["scenario", *metrics]].to_string(index=False, float_format="{:.4g}".format))
        print(f"figure: {scenario_figure(scores, stored, name, game, folder, suffix)}")
    print(f"\nscores in {folder / f'scores{suffix}.csv'}")


def default_name(targets: list[str], is_file: bool) -> str:
    """A behaviour's name, or the first policy file's stem (with the number of files, if
    several) and the start of the digest of their contents (trainings name every seed's
    file ``policy.npz``)."""
    if not is_file:
        return targets[0]
    digest = hashlib.sha256()
    for target in targets:
        digest.update(Path(target).read_bytes())
    count = f"-x{len(targets)}" if len(targets) > 1 else ""
    return f"{Path(targets[0]).stem}{count}-{digest.hexdigest()[:8]}"


def playable(chosen, targets: list[str], is_file: bool, spec: str) -> list:
    """Of ``chosen``, the scenarios of the game that ``targets`` (policy files, or one
    behaviour) play; with ``spec`` "all", the others are left out, else they are an
    error."""
    from dilemmas import GAMES
    from dilemmas.models.policies import load_policy

    if is_file:
        games = {target: load_policy(target).game for target in targets}
        if len(set(games.values())) > 1:
            raise ValueError(f"the policy files are for different games: {games}")
        games = set(games.values())
    else:
        games = {game for game in GAMES if targets[0] in GAMES[game].behaviours}
    kept = [scenario for scenario in chosen if scenario.game in games]
    if not kept or spec != "all" and len(kept) < len(chosen):
        what = f"the policy file {targets[0]!r} is for" if is_file else \
            f"the behaviour {targets[0]!r} is a behaviour of"
        raise ValueError(f"{what} {', '.join(sorted(games)) or 'no game'}, not "
                         f"{', '.join(sorted({s.game for s in chosen} - games))}")
    return kept


def compute_baselines(args):
    from dilemmas.scenarios import baselines

    table = baselines.compute(args.out, args.seed, progress=not args.no_progress,
                              backend=args.backend, workers=args.workers,
                              scheduler=args.scheduler)
    print(f"{len(table)} baselines of {table['scenario'].nunique()} scenarios written to "
          f"{baselines.BASELINES}; runs and trainings in {args.out}\n")
    print(baselines.leaderboard(table))
