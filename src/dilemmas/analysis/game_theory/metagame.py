"""Meta-games of a population of policies (docs/game-theory.md, "Populations and
meta-games"): scripted behaviours, policy files and trained bots of one game as the
strategies of an empirical game whose payoffs the engine estimates.

A population file is TOML::

    name = "stag_hunt_population"   # optional: the file's stem
    game = "stag_hunt"
    play = "greedy"                 # how policy files play: "greedy" (default) or "sampled"

    [parameters]                    # the game's parameters, the same in every episode
    num_agents = 2
    heal_delay = 2

    [strategies]                    # name = a behaviour, or a table naming a policy
    stag_hunter = "stag_hunter"                       # a scripted behaviour of the game
    hare_hunter = "hare_hunter"
    bot = {bot = "ippo_hunter"}                       # a trained bot (dilemmas scenarios)
    seed_3 = {policy = "results/x/seed-3/policy.npz", seat = 0}   # a policy file
    selfish = {training = "results/x", seat = 0}   # every seed of a deep training
    some = {training = "results/y", seeds = [0, 3]}  # or the seeds listed

A policy file is read from the working folder; one of several seats' networks (a training
with ``share = false``) names the ``seat`` whose network plays. A deep training's folder
stands for one strategy per training seed, ``<name>.<seed>`` (``selfish.0``, ...), its
``seed-<i>/policy.npz``: with ``--seatings roles`` the meta-game is the cross-play of every
seed against every other and against the other strategies. Strategy names are letters,
digits and ``_.-``.

``metagame_study`` plays the population as a study of cases (``[design] kind = "cases"``,
``dilemmas.analysis.studies.designs``), resumable, on the batch engine where it can play
every seat: with ``seatings = "symmetric"`` every mix of the game's seats over the
strategies (counts, the heuristic payoff table of ``dilemmas evolve``), with ``"roles"``
every profile, one strategy per seat (each seat a population of its own). A case seats its
strategies in the order of the population file, or of the profile: the scripted ones by
name in ``population``, the policies in the ``policy`` seats, played by a seated policy file
written for the case (``policies/<case>.npz`` in the study's folder). ``payoff_table`` reads
the runs back as an ``EmpiricalGame`` (symmetric) or a ``ProfileGame`` (roles), a seat's
payoff its final cumulative ``reward``, one sample per run.
"""

import itertools
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dilemmas import GAMES
from dilemmas.analysis.game_theory.alpharank import ProfileGame
from dilemmas.analysis.game_theory.payoffs import EmpiricalGame, all_mixes, check_behaviours, \
    seats
from dilemmas.analysis.learning.evaluation import relative_path
from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.study import Study, StudyError, check_name, read_toml
from dilemmas.models.policies import BOTS, PolicyError, SeatedPolicy, load_policy, save_policy

POPULATION_KEYS = ("name", "game", "play", "parameters", "strategies")
SEATINGS = ("symmetric", "roles")
PLAYS = ("greedy", "sampled")


@dataclass(frozen=True)
class Strategy:
    """One strategy of a population: ``behaviour`` (a scripted behaviour's name) or
    ``policy`` (a policy file) with the ``seat`` of a several-seat file (None: the file's
    one policy)."""
    name: str
    behaviour: str | None = None
    policy: str | None = None
    seat: int | None = None

    def loaded(self):
        """The policy this strategy plays (a policy strategy only)."""
        policy = load_policy(self.policy)
        if policy.kind != "seats":
            return policy
        parts = [part for part, count in policy.parts for _ in range(count)]
        return parts[self.seat]


@dataclass(frozen=True)
class Population:
    """A population file, read and checked (module docstring)."""
    name: str
    game: str
    strategies: tuple
    parameters: dict
    play: str = "greedy"

    @classmethod
    def from_file(cls, path, least: int = 2) -> "Population":
        """Read and check a population file of ``least`` strategies or more (PSRO may start
        from one): a StudyError names the file and the key."""
        data = read_toml(path, "population", POPULATION_KEYS, ("game", "strategies"),
                         StudyError)
        where = f"population file {str(path)!r}"
        try:
            return cls.from_table(data, least)
        except (StudyError, PolicyError) as error:
            raise StudyError(f"{where}: {error}") from None

    @classmethod
    def from_table(cls, data: dict, least: int = 2) -> "Population":
        name, game = data.get("name", "population"), data.get("game")
        check_name("population", name, StudyError)
        if game not in GAMES:
            raise StudyError(f"game={game!r} is not a game; allowed: {sorted(GAMES)}")
        play = data.get("play", "greedy")
        if play not in PLAYS:
            raise StudyError(f"play={play!r} must be one of {list(PLAYS)}")
        parameters = data.get("parameters", {})
        if not isinstance(parameters, dict):
            raise StudyError("[parameters] must be a table of the game's parameters")
        for key in ("population", "policy", "policy_play"):
            if key in parameters:
                raise StudyError(f"[parameters] {key}: set by the population, not here "
                                 f"(the strategies say who sits; play says how they play)")
        table = data.get("strategies")
        strategies = tuple(chosen for key, value in table.items()
                           for chosen in expanded(game, key, value)) \
            if isinstance(table, dict) else ()
        if len(strategies) < least:
            raise StudyError(f"[strategies] must be a table of {least} or more strategies, "
                             "name = behaviour or name = {policy = ...}, {bot = ...} or "
                             "{training = ...} (one per seed)")
        names = [chosen.name for chosen in strategies]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise StudyError(f"[strategies]: the name {twice[0]!r} is given twice (a "
                             "training's seeds are named <name>.<seed>)")
        return cls(name, game, strategies, dict(parameters), play)

    @property
    def names(self) -> tuple:
        return tuple(s.name for s in self.strategies)

    @property
    def players(self) -> int:
        """The game's seats with these parameters (all of them play, or a StudyError)."""
        return seats(self.game, self.parameters)


def expanded(game: str, name: str, value) -> list[Strategy]:
    """The strategies of ``[strategies] name = value``: one, or one per seed of a deep
    training's folder (``{training = "folder"}``, module docstring)."""
    if not (isinstance(value, dict) and "training" in value):
        return [strategy(game, name, value)]
    key = f"[strategies] {name}"
    check_name(key, name, StudyError)
    unknown = sorted(set(value) - {"training", "seat", "seeds"})
    if unknown:
        raise StudyError(f"{key}: unknown key {unknown[0]!r} beside training; allowed: "
                         "seat, seeds")
    folder = value["training"]
    files = sorted(Path(folder).glob("seed-*/policy.npz"),
                   key=lambda path: int(path.parent.name.removeprefix("seed-"))) \
        if isinstance(folder, str) else []
    if not files:
        raise StudyError(f"{key}: training={folder!r} holds no trained seeds "
                         "(seed-<i>/policy.npz): train it first")
    if "seeds" in value:
        found = {int(path.parent.name.removeprefix("seed-")): path for path in files}
        wanted = value["seeds"]
        if not isinstance(wanted, list) or not wanted \
                or not all(type(i) is int and i in found for i in wanted) \
                or len(set(wanted)) < len(wanted):
            raise StudyError(f"{key}: seeds={wanted!r} must be a list of distinct trained "
                             f"seeds of {folder!r}: {sorted(found)}")
        files = [found[i] for i in wanted]
    seat = {"seat": value["seat"]} if "seat" in value else {}
    return [strategy(game, f"{name}.{path.parent.name.removeprefix('seed-')}",
                     {"policy": str(path), **seat}) for path in files]


def strategy(game: str, name: str, value) -> Strategy:
    """The strategy ``[strategies] name = value`` of ``game`` (module docstring)."""
    key = f"[strategies] {name}"
    check_name(key, name, StudyError)
    if isinstance(value, str):
        try:
            check_behaviours(game, [value])
        except StudyError as error:
            raise StudyError(f"{key}: {str(error).removeprefix(game + ': ')}") from None
        return Strategy(name, behaviour=value)
    if not isinstance(value, dict) or len({"policy", "bot"} & set(value)) != 1:
        raise StudyError(f"{key} = {value!r} must be a behaviour's name, {{policy = \"file\"}}, "
                         "{bot = \"name\"} or {training = \"folder\"}")
    unknown = sorted(set(value) - {"policy", "bot", "seat"})
    if unknown:
        raise StudyError(f"{key}: unknown key {unknown[0]!r}; allowed: policy or bot, and seat")
    if "bot" in value:
        path = BOTS / f"{game}_{value['bot']}.npz"
        if not path.is_file():
            shipped = sorted(p.stem.removeprefix(f"{game}_") for p in BOTS.glob(f"{game}_*.npz"))
            raise StudyError(f"{key}: bot={value['bot']!r} is not a bot of {game}; shipped: "
                             f"{shipped}")
        policy = str(path)
    else:
        policy = value["policy"]
        if not isinstance(policy, str) or not Path(policy).is_file():
            raise StudyError(f"{key}: policy={policy!r} is not a file")
    loaded = load_policy(policy)
    if loaded.game != game:
        raise StudyError(f"{key}: {policy!r} is a policy of {loaded.game!r}, not of {game!r}")
    seat = value.get("seat")
    if loaded.kind == "seats":
        count = sum(n for _, n in loaded.parts)
        if type(seat) is not int or not 0 <= seat < count:
            raise StudyError(f"{key}: {policy!r} holds the policies of {count} seats: say "
                             f"whose plays, seat = 0 to {count - 1} (got {seat!r})")
    elif seat is not None:
        raise StudyError(f"{key}: seat={seat!r} is for a file of several seats' policies; "
                         f"{policy!r} holds one")
    return Strategy(name, policy=policy, seat=seat)


def seatings(population: Population, kind: str = "symmetric") -> list[tuple]:
    """The cases of the meta-game: for each, the strategy (index) of each seat in seat
    order. ``symmetric``: every mix (``all_mixes``), its strategies in the file's order;
    ``roles``: every profile, the first seat's strategy varying slowest."""
    if kind not in SEATINGS:
        raise StudyError(f"seatings={kind!r} must be one of {list(SEATINGS)}")
    n, m = population.players, len(population.strategies)
    if kind == "roles":
        return list(itertools.product(range(m), repeat=n))
    return [tuple(k for k in range(m) for _ in range(int(mix[k])))
            for mix in all_mixes(population.names, n)]


def case(population: Population, seating: tuple, folder: Path) -> dict:
    """The ``population`` and ``policy`` parameters that seat ``seating``; the seated policy
    file of its policy seats written into ``folder/policies`` (None where it has none)."""
    entries, parts = [], []
    for index in seating:
        chosen = population.strategies[index]
        name = chosen.behaviour or "policy"
        if entries and entries[-1][0] == name:
            entries[-1][1] += 1
        else:
            entries.append([name, 1])
        if chosen.policy is not None:
            if parts and parts[-1][0] is chosen:
                parts[-1][1] += 1
            else:
                parts.append([chosen, 1])
    value = ",".join(f"{name}:{count}" for name, count in entries)
    if not parts:
        return {"population": value, "policy": None}
    path = Path(folder) / "policies" / ("-".join(map(str, seating)) + ".npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    save_policy(path, SeatedPolicy([(s.loaded(), count) for s, count in parts],
                                   population.game))
    return {"population": value, "policy": relative_path(path)}


def study_name(population: Population, kind: str) -> str:
    return f"{population.name}-{kind}"


def metagame_study(population: Population, kind: str = "symmetric", out="results",
                   replicates: int = 10, seed: int = 0) -> Study:
    """The study of the meta-game (module docstring), its results in
    ``<out>/<population>-<kind>``; writes the cases' seated policy files there first."""
    folder = Path(out) / study_name(population, kind)
    chosen = seatings(population, kind)
    new = folder if not folder.exists() else None
    while new is not None and not new.parent.exists():  # the first folder this creates
        new = new.parent
    try:
        cases = [case(population, seating, folder) for seating in chosen]
        fixed = {**population.parameters, "policy_play": population.play}
        return Study(game=population.game, name=study_name(population, kind), seed=seed,
                     replicates=replicates, collect=("model", "agent"), fixed=fixed,
                     design={"kind": "cases", "cases": cases})
    except (StudyError, PolicyError):
        if new is not None:  # a study that cannot be made leaves nothing behind
            shutil.rmtree(new, ignore_errors=True)
        raise


def seat_rewards(folder) -> pd.DataFrame:
    """Per run: ``design_point`` (the case) and each seat's final cumulative reward, one
    column per seat numbered from 0 in seat order, one row per run."""
    agents = results.load(folder, "agent")
    last = agents.groupby(["run_id", "AgentID"], sort=True).last().reset_index()
    wide = last.pivot(index="run_id", columns="AgentID", values="reward")
    wide.columns = range(wide.shape[1])
    points = last.groupby("run_id")["design_point"].first()
    return wide.assign(design_point=points).reset_index()


def payoff_table(population: Population, folder, kind: str = "symmetric"):
    """The meta-game's payoffs from its study folder: an ``EmpiricalGame`` over the
    strategies (symmetric: each strategy's payoff the mean over its seats in a run) or a
    ``ProfileGame`` (roles: each seat's payoff in each profile)."""
    cases = seatings(population, kind)
    recorded = results.definition(folder).get("design", {}).get("points")
    if recorded != len(cases):
        raise StudyError(f"{folder}: not the {kind} meta-game of this population "
                         f"({recorded} cases recorded, {len(cases)} expected)")
    rewards = seat_rewards(folder)
    n, m = population.players, len(population.strategies)
    seat_columns = list(range(n))
    if kind == "roles":
        samples = [rewards.loc[rewards["design_point"] == i, seat_columns].to_numpy(float)
                   for i in range(len(cases))]
        played = [i for i, s in enumerate(samples) if len(s)]
        return ProfileGame(tuple(population.names for _ in range(n)),
                           np.array([cases[i] for i in played]), tuple(samples[i] for i in played))
    counts, samples = [], []
    for i, seating in enumerate(cases):
        runs = rewards.loc[rewards["design_point"] == i, seat_columns].to_numpy(float)
        if not len(runs):
            continue
        sample = np.full((len(runs), m), np.nan)
        for k in set(seating):
            sample[:, k] = runs[:, [s for s, chosen in enumerate(seating) if chosen == k]] \
                .mean(axis=1)
        counts.append(np.bincount(seating, minlength=m))
        samples.append(sample)
    return EmpiricalGame(population.names, n, np.array(counts), tuple(samples))


def profile_table(game: ProfileGame) -> pd.DataFrame:
    """A ``ProfileGame`` as a table, one row per profile played: each seat's strategy, the
    number of runs, and each seat's mean payoff and its standard error."""
    rows = []
    for profile, sample in zip(game.profiles, game.samples):
        row = {f"seat{k}": game.strategies[k][p] for k, p in enumerate(profile)}
        row["runs"] = len(sample)
        for k in range(game.players):
            row[f"seat{k}_payoff"] = sample[:, k].mean()
            row[f"seat{k}_payoff_se"] = (sample[:, k].std(ddof=1) / np.sqrt(len(sample))
                                         if len(sample) > 1 else np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def describe(population: Population) -> str:
    """One line per strategy: its name and what plays it."""
    return "\n".join(
        f"  {s.name}: " + (f"behaviour {s.behaviour}" if s.behaviour else
                           f"policy {s.policy}" + ("" if s.seat is None else f", seat {s.seat}"))
        for s in population.strategies)



def roles_figure(game: ProfileGame, title: str = ""):
    """The cross-play matrix of a two-seat ``roles`` meta-game: each seat's mean payoff,
    the first seat's strategy in rows and the second's in columns (diagonal: a strategy
    against itself)."""
    import matplotlib

    from dilemmas.analysis.figures.paper import STYLE, PaperFigure

    if game.players != 2:
        raise ValueError(f"the cross-play matrix is for two seats; this game has {game.players}")
    means = game.means
    m = max(game.sizes)
    figure = PaperFigure(panels=(1, 2), margin=1.2 + 0.05 * m)
    with matplotlib.rc_context(STYLE):
        for seat, axis in enumerate(np.atleast_1d(figure.subplots(1, 2))):
            image = axis.imshow(means[..., seat], cmap="viridis", origin="upper")
            axis.set_xticks(range(game.sizes[1]), game.strategies[1], rotation=90)
            axis.set_yticks(range(game.sizes[0]), game.strategies[0])
            axis.set_xlabel("second seat's strategy")
            axis.set_ylabel("first seat's strategy")
            axis.set_title(f"({'ab'[seat]}) seat {seat}'s payoff")
            axis.grid(False)
            figure.colorbar(image, ax=axis, label="final reward, mean over runs")
        figure.suptitle(title or "each strategy against each other")
    return figure
