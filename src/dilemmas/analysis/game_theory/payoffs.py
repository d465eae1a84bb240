"""Who plays with whom, and what each behaviour earns: the data of rankings, Schelling
diagrams and evolutionary dynamics (docs/game-theory.md).

A *mix* is a team of a game's seats by behaviour: ``(2, 0, 2)`` over the behaviours
``("firefighter", "liar", "free_rider")`` is the ``population`` ``"firefighter:2,
free_rider:2"``. ``mix_study`` makes a study that sweeps the ``population`` over given mixes
(with agent data), so the runner plays it: it resumes, runs on Dask and gives the same data
for the same seed on any machine. ``seat_payoffs(folder)`` reads it back: per run and
behaviour, the payoff of that behaviour in that run -- the mean final cumulative ``reward`` of
its seats (every game's agent column ``reward``) -- and ``empirical_game`` gathers those into
an :class:`EmpiricalGame`, the *heuristic payoff table* of the game over the behaviours
(Walsh et al. 2002): for each mix, the payoff of each behaviour present, with one sample per
run.
"""

import itertools
from dataclasses import dataclass
from math import comb

import numpy as np
import pandas as pd

from dilemmas.models.population import entries as population_entries
from dilemmas.analysis.studies import results
from dilemmas.analysis.studies.study import Study, StudyError
from dilemmas import GAMES

#: Behaviours that are not fixed strategies: they need a policy file or learn as they play.
ADAPTIVE = ("policy", "q_learning", "linear_q")


def seats(game: str, fixed: dict | None = None) -> int:
    """The number of seats of ``game`` with the parameters ``fixed`` (its defaults otherwise),
    read from a model built with them; a StudyError if some seats do not play an episode
    (the Stag Hunt spawns ``num_agents_to_spawn`` of its ``num_agents`` seats): a mix's
    payoffs are those of the behaviours that play together."""
    fixed = dict(fixed or {})
    fixed.pop("population", None)
    try:
        model = GAMES[game].model(**fixed, rng=0)
    except (ValueError, TypeError) as error:
        raise StudyError(f"{game}: {error}") from None
    playing = len(model.datacollector.get_agent_vars_dataframe())
    if playing != len(model.seats):
        raise StudyError(f"{game}: only {playing} of its {len(model.seats)} seats play an "
                         "episode with these parameters; the analyses of mixes need every "
                         "seat to play (e.g. set num_agents_to_spawn equal to num_agents, or "
                         f"num_agents={playing})")
    return len(model.seats)


def scripted(game: str) -> tuple[str, ...]:
    """The game's fixed behaviours: every registered one except ``ADAPTIVE``."""
    return tuple(name for name in GAMES[game].behaviours if name not in ADAPTIVE)


def check_behaviours(game: str, behaviours, least: int = 1) -> tuple[str, ...]:
    """``behaviours`` as a tuple of distinct registered behaviours of ``game``, at least
    ``least`` of them, or a StudyError naming the one at fault."""
    behaviours = tuple(behaviours)
    if not behaviours:
        raise StudyError(f"{game}: no behaviours given")
    known = GAMES[game].behaviours
    for name in behaviours:
        if name not in known:
            raise StudyError(f"{game}: {name!r} is not a behaviour; allowed: {sorted(known)}")
        if name in ADAPTIVE:
            raise StudyError(f"{game}: {name!r} is not a fixed behaviour (it needs a policy "
                             "or learns as it plays); allowed: " + ", ".join(scripted(game)))
    if len(set(behaviours)) != len(behaviours):
        raise StudyError(f"{game}: behaviours {list(behaviours)} name one twice")
    if len(behaviours) < least:
        raise StudyError(f"{game}: needs at least {least} behaviours, got {list(behaviours)}")
    return behaviours


def all_mixes(behaviours, players: int) -> np.ndarray:
    """Every mix of ``players`` seats over ``behaviours``: an array of shape
    ``(comb(players + m - 1, m - 1), m)`` of counts, each row adding up to ``players``."""
    m = len(behaviours)
    rows = [np.bincount(chosen, minlength=m)
            for chosen in itertools.combinations_with_replacement(range(m), players)]
    return np.array(rows, dtype=np.int64).reshape(comb(players + m - 1, m - 1), m)


def population(behaviours, counts) -> str:
    """The ``population`` value of a mix, e.g. ``"firefighter:2,free_rider:2"``."""
    return ",".join(f"{name}:{count}" for name, count in zip(behaviours, counts) if count)


def counts_of(behaviours, population_value: str) -> np.ndarray:
    """The mix (counts over ``behaviours``) of a ``population`` value written by
    ``population``."""
    counts = np.zeros(len(behaviours), dtype=np.int64)
    for name, count in population_entries(population_value):
        counts[behaviours.index(name)] += count
    return counts


def mix_study(game: str, name: str, behaviours, mixes, *, fixed=None, replicates=10,
              seed=0, max_runs=None) -> Study:
    """A study of ``game`` that plays each mix (rows of counts over ``behaviours``)
    ``replicates`` times with the parameters ``fixed``, collecting agent data."""
    fixed = dict(fixed or {})
    if "population" in fixed:
        raise StudyError(f"{name}: population is what this study varies; do not fix it")
    populations = [population(behaviours, counts) for counts in mixes]
    extra = {} if max_runs is None else {"max_runs": max_runs}
    return Study(game=game, name=name, seed=seed, replicates=replicates,
                 collect=("model", "agent"), fixed=fixed,
                 sweep={"population": populations}, **extra)


def seat_payoffs(folder) -> pd.DataFrame:
    """Per run and behaviour present in it: ``run_id``, ``population``, ``behaviour``,
    ``seats`` (how many seats played it) and ``payoff`` (the mean final cumulative reward of
    those seats: each seat's last row, for a seat removed before the end too), by run and
    behaviour."""
    agents = results.load(folder, "agent")  # by run, step and seat
    final = agents.groupby(["run_id", "AgentID"], sort=False).last()  # seats removed early too
    grouped = final.groupby(["run_id", "population", "behaviour"], sort=True)["reward"]
    return pd.DataFrame({"seats": grouped.size(), "payoff": grouped.mean()}).reset_index()


def team_outcomes(folder) -> pd.DataFrame:
    """Per run: ``run_id``, ``population`` and ``outcome``, the team's mean final reward per
    seat."""
    payoffs = seat_payoffs(folder)
    payoffs["total"] = payoffs["payoff"] * payoffs["seats"]
    grouped = payoffs.groupby(["run_id", "population"], sort=True)
    table = grouped[["total", "seats"]].sum()
    return (table["total"] / table["seats"]).rename("outcome").reset_index()


@dataclass(frozen=True)
class EmpiricalGame:
    """A symmetric game over ``behaviours`` estimated from episodes of ``players`` seats.

    ``counts`` (mixes x behaviours) lists the mixes played; ``samples[i]`` holds, for mix
    ``i``, one row per run with the payoff of each behaviour in that run (NaN for a behaviour
    the mix does not contain). ``means`` and ``ses`` are the mean over runs and its standard
    error (NaN with fewer than two runs).
    """

    behaviours: tuple
    players: int
    counts: np.ndarray
    samples: tuple

    def __post_init__(self):
        counts = np.asarray(self.counts, dtype=np.int64)
        if counts.ndim != 2 or counts.shape[1] != len(self.behaviours) \
                or (counts.sum(axis=1) != self.players).any() or (counts < 0).any():
            raise ValueError(f"counts must be rows of {len(self.behaviours)} counts >= 0 "
                             f"adding up to players={self.players}")
        if len(self.samples) != len(counts):
            raise ValueError(f"{len(counts)} mixes but {len(self.samples)} sample arrays")
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "samples", tuple(
            np.asarray(s, dtype=np.float64).reshape(-1, len(self.behaviours))
            for s in self.samples))
        object.__setattr__(self, "_index", {tuple(row): i for i, row in enumerate(counts.tolist())})

    @classmethod
    def from_means(cls, behaviours, players, counts, means) -> "EmpiricalGame":
        """A game known exactly: one sample per mix, the given mean payoffs."""
        means = np.asarray(means, dtype=np.float64)
        return cls(tuple(behaviours), players, counts, tuple(row[None, :] for row in means))

    @property
    def means(self) -> np.ndarray:
        return np.array([_nanmean(s) for s in self.samples])

    @property
    def ses(self) -> np.ndarray:
        out = np.full(self.counts.shape, np.nan)
        for i, sample in enumerate(self.samples):
            n = np.sum(~np.isnan(sample), axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                deviation = np.sqrt(np.nansum((sample - _nanmean(sample)) ** 2, axis=0)
                                    / np.maximum(n - 1, 1))
                out[i] = np.where(n >= 2, deviation / np.sqrt(np.maximum(n, 1)), np.nan)
        return out

    def table(self) -> pd.DataFrame:
        """The payoff table, one row per mix: the count of each behaviour, the number of
        runs, and each behaviour's mean payoff and its standard error (empty for a
        behaviour the mix does not seat), the form other game-theory tools read."""
        means, ses = self.means, self.ses
        columns = {f"{name}_count": self.counts[:, i] for i, name in enumerate(self.behaviours)}
        columns["runs"] = [len(sample) for sample in self.samples]
        for i, name in enumerate(self.behaviours):
            columns[f"{name}_payoff"] = means[:, i]
            columns[f"{name}_payoff_se"] = ses[:, i]
        return pd.DataFrame(columns)

    def index(self, counts) -> int:
        """The row of the mix ``counts``; a KeyError names a mix that was not played."""
        key = tuple(int(c) for c in counts)
        if key not in self._index:
            raise KeyError(f"the mix {dict(zip(self.behaviours, key))} was not played")
        return self._index[key]

    def complete(self) -> bool:
        """Whether every mix of ``players`` seats over the behaviours was played."""
        return len(self._index) == comb(self.players + len(self.behaviours) - 1,
                                        len(self.behaviours) - 1)

    def resample(self, rng: np.random.Generator) -> "EmpiricalGame":
        """A bootstrap replicate: the runs of each mix drawn again with replacement."""
        return EmpiricalGame(self.behaviours, self.players, self.counts, tuple(
            s[rng.integers(0, len(s), len(s))] for s in self.samples))


def _nanmean(sample: np.ndarray) -> np.ndarray:
    n = np.sum(~np.isnan(sample), axis=0)
    return np.where(n > 0, np.nansum(sample, axis=0) / np.maximum(n, 1), np.nan)


def empirical_game(folder, behaviours=None) -> EmpiricalGame:
    """The payoff table of a mix study (``mix_study``): ``behaviours`` in the order given
    (default: as they first appear in the study's populations)."""
    study = results.definition(folder)
    populations = study["sweep"].get("population")
    if not populations:
        raise ValueError(f"{folder}: the study does not sweep population, so it holds no "
                         "payoff table")
    if behaviours is None:
        behaviours = tuple(dict.fromkeys(entry.partition(":")[0].strip()
                                         for value in populations for entry in value.split(",")))
    behaviours = tuple(behaviours)
    payoffs = seat_payoffs(folder)
    players = int(counts_of(behaviours, populations[0]).sum())
    wide = payoffs.pivot(index=["population", "run_id"], columns="behaviour", values="payoff")
    wide = wide.reindex(columns=list(behaviours))
    counts, samples = [], []
    for value in populations:
        if value not in wide.index.get_level_values(0):
            continue
        counts.append(counts_of(behaviours, value))
        samples.append(wide.loc[value].to_numpy(dtype=np.float64))
    return EmpiricalGame(behaviours, players, np.array(counts), tuple(samples))
