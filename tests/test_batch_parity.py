"""The batch engines play the Mesa models' games: statistical parity, reporter by reporter.

The batch engines of the four games
(``dilemmas.models.batch``, ``dilemmas.models.<game>.batch``) play many episodes at once with
the Mesa models' rule functions but not their random numbers (one generator shared by the
batch, behaviours drawing with numpy), so the two agree in distribution, not draw for draw.
For each configuration below this file plays ``M`` Mesa episodes (seeds ``0 .. M-1``,
``collect_data=True``, read from the DataCollector) and one batch of ``B`` episodes (fixed
seed) on each of the engine's two paths (compiled by JAX, and round by round on numpy:
``BatchEngine.run(compiled)``), and compares, for every model reporter and the numeric agent
reporters (per seat), the per-episode summaries that describe their distribution:

* ``final``: the value of the episode's last row;
* ``mean``: the mean over the episode's rows (NaN rows left out);
* for the NaN-able reporters (``cooperation_rate``, ``flame_rate``), also ``final_nan`` (the
  last row is NaN) and ``nan_share`` (share of the episode's rows that are NaN);
* ``length``: rounds played (rows - 1); its whole distribution is also compared with a
  chi-square test of homogeneity (lengths pooled into bins of at least 5 expected Mesa
  episodes).

Each summary's means are compared with a two-sample z test: ``|mean_a - mean_b| <= Z *
sqrt(se_a**2 + se_b**2)``, ``se = sd / sqrt(n)``, where each sample's ``sd`` is at least the
pooled sample's (under the null hypothesis both samples have the pooled spread; without the
floor, a rare event that none of the ``M`` Mesa episodes happened to show would get a
standard error of zero). A summary constant in both samples must be exactly equal. ``Z`` is
Bonferroni-corrected over every comparison of every configuration in this file (``PLANNED``)
for a family-wise false-failure rate of ``FAMILY_ALPHA``; the chi-square tests use the same
per-comparison level. ``test_power_*`` show the comparison fails on a small real difference
(one parameter moved on the batch side only) with the same ``M``, ``B`` and ``Z``.

Structure (column names, dtypes, where NaN is) and the engines' determinism are tested
exactly.
"""

import functools
import math
import time

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import dilemmas.agents.bucket_brigade as bb_agents
from dilemmas.registry import GAMES

BB, FG, SP, SH = "bucket_brigade", "firefighting_graph", "state_punishment", "stag_hunt"

#: Family-wise rate of false failures of all the statistical comparisons in this file.
FAMILY_ALPHA = 1e-3
#: Numeric agent reporters compared, per seat.
AGENT_REPORTERS = {BB: ("reward", "lied"), FG: ("reward", "observation"),
                   SP: ("reward", "collected", "votes_up", "votes_down", "harm_received"),
                   SH: ("health", "reward", "stags", "hares", "removed")}
#: Model reporters that may be NaN.
NAN_REPORTERS = {BB: ("cooperation_rate",), FG: ("flame_rate",), SP: (), SH: ("stag_share",)}
BATCH_SEED = 20240601
BB_M, FG_M, SP_M, SH_M = 1000, 300, 300, 300  # Mesa episodes per configuration
B, FG_B, SH_B = 10000, 5000, 600  # batch episodes per configuration

HEURISTIC_MIX = "firefighter:2,free_rider:2"


def _heuristics_batch() -> bool:
    return hasattr(bb_agents.FirefighterAgent, "batch_decide")


def _bb(name, rules, scenario, population, m=BB_M):
    return (name, BB, dict(rules=rules, scenario=scenario, population=population), m, B)


def _fg(name, layout, preset, population, **more):
    size = dict(n_width=3, n_height=3) if layout == "grid" else {}
    return (name, FG, dict(layout=layout, **size, preset=preset, population=population, **more),
            FG_M, FG_B)


def _sp(name, population, **more):
    return (name, SP, dict(population=population, max_steps=30, **more), SP_M, FG_B)


def _sh(name, population, **more):
    return (name, SH, dict(dict(population=population, max_steps=30), **more), SH_M, SH_B)


SH_MAP = "\n".join(["WWWWWWWWW", "WP..1..PW", "W.W...W.W", "W..2a2..W", "W.W...W.W",
                    "WP..1..aW", "WWWWWWWWW"])


#: (id, game, parameters, M Mesa episodes, B batch episodes).
CONFIGS = [
    # Bucket Brigade: both rule sets, four scenarios, three populations. The first has
    # twice the Mesa episodes: test_power_bucket_brigade_beta moves beta on it.
    _bb("bb-spec-default-random", "spec", "default", "random", m=2 * BB_M),
    _bb("bb-spec-default-always_work", "spec", "default", "always_work"),
    _bb("bb-spec-default-mix", "spec", "default", HEURISTIC_MIX),
    _bb("bb-reference-default-random", "reference", "default", "random"),
    _bb("bb-reference-default-always_work", "reference", "default", "always_work"),
    _bb("bb-reference-default-mix", "reference", "default", HEURISTIC_MIX),
    _bb("bb-spec-hard-random", "spec", "hard", "random"),
    _bb("bb-reference-hard-always_work", "reference", "hard", "always_work"),
    _bb("bb-spec-chain_reaction-mix", "spec", "chain_reaction", HEURISTIC_MIX),
    _bb("bb-reference-easy-random", "reference", "easy", "random"),
    # Firefighting Graph: both layouts (the grid 3 x 3), both presets (oliehoek:
    # shared_reward), two populations. Only oliehoek's row with random firefighters ends by
    # itself (all levels 0) well before max_steps=100; the others are cut at max_steps 25 to
    # 40 to keep the Mesa side affordable (a Mesa step costs about 0.2 ms).
    _fg("fg-row-cognac-random", "row", "cognac", "random", max_steps=25),
    _fg("fg-row-cognac-belief", "row", "cognac", "belief_tracker", max_steps=25),
    _fg("fg-grid-cognac-random", "grid", "cognac", "random", max_steps=25),
    _fg("fg-grid-cognac-belief", "grid", "cognac", "belief_tracker", max_steps=25),
    _fg("fg-row-oliehoek-random", "row", "oliehoek", "random"),
    _fg("fg-row-oliehoek-belief", "row", "oliehoek", "belief_tracker", max_steps=30),
    # p_ignite=0.1: some grid episodes end before max_steps (none do with the preset's 0.8).
    _fg("fg-grid-oliehoek-random", "grid", "oliehoek", "random", p_ignite=0.1, max_steps=40),
    _fg("fg-grid-oliehoek-belief", "grid", "oliehoek", "belief_tracker", max_steps=30),
    # State Punishment: both action and punishment modes, both activations, a taboo subset,
    # two worlds, the full view, scripted and random populations (cut at 30 turns).
    _sp("sp-default-random", "random"),
    _sp("sp-default-mix", "civic_voter:2,greedy_forager:1"),
    _sp("sp-composite-stochastic-mix", "civic_voter:1,greedy_forager:2",
        action_mode="composite", punishment_mode="stochastic", initial_punishment=0.5),
    _sp("sp-worlds-sequential-random", "random", num_agents=4, num_worlds=2,
        activation="sequential", taboo="ABD", spawn_prob=0.1),
    _sp("sp-full-view-greedy", "greedy_forager", full_view=True, width=8, height=7,
        initial_resources=8),
    # Stag Hunt: the three attack modes, an ASCII map with spawn points, removals and
    # returns, healing, exclusive rewards, seats not spawned, random and scripted
    # populations (cut at 30 turns, the scripted ones at 20: on numpy, the engine's
    # breadth-first searches cost about 2 ms per decision of the batch).
    _sh("sh-default-random", "random"),
    _sh("sh-default-hunters", "cooperator:2,hare_hunter:1", max_steps=20),
    _sh("sh-beam-removals-random", "random", attack_mode="beam", punish_cooldown=0,
        agent_health=1, respawn_lag=2, num_agents_to_spawn=3),
    _sh("sh-single-heal-stag", "stag_hunter:1,cooperator:2", attack_mode="single",
        max_steps=20, attack_range=3, heal_delay=3, height=9, width=9, resource_density=0.3,
        num_agents_to_spawn=3, agent_config=[{"exclusive_reward": True}, {}, {}]),
    _sh("sh-map-cooperators", "cooperator:3,hare_hunter:1", ascii_map=SH_MAP, num_agents=4,
        num_agents_to_spawn=3, random_agent_spawning=False, stag_health=3,
        stag_regeneration_cooldown=2, max_steps=20),
]
BY_ID = {config[0]: config for config in CONFIGS}


# --- The per-episode summaries --------------------------------------------------------------

def summary_names(game: str, parameters: dict) -> list[str]:
    """The summaries compared for one configuration, in order (``length`` included; the
    chi-square test of the length distribution is counted separately)."""
    template = GAMES[game].model(**parameters, collect_data=False, rng=0)
    names = []
    for column in GAMES[game].model.model_reporters:
        names += [f"{column}:final", f"{column}:mean"]
        if column in NAN_REPORTERS[game]:
            names += [f"{column}:final_nan", f"{column}:nan_share"]
    names.append("length")
    for reporter in AGENT_REPORTERS[game]:
        for seat in range(len(template.seats)):
            names += [f"{reporter}[{seat}]:final", f"{reporter}[{seat}]:mean"]
    return names


#: Every statistical comparison in this file that should pass: the summaries of every
#: configuration on both paths and one chi-square test of the length distribution per configuration, and
#: those of test_comparisons_pass_on_two_batches (one more Bucket Brigade configuration).
#: Each configuration is compared twice: its batch compiled by JAX and played on numpy.
PATHS = {"compiled": True, "numpy": False}
PLANNED = sum(len(summary_names(game, parameters)) + 1
              for _, game, parameters, _, _ in CONFIGS * len(PATHS) + [CONFIGS[0]])
#: Bonferroni: each two-sided comparison at level FAMILY_ALPHA / PLANNED.
ALPHA = FAMILY_ALPHA / PLANNED
Z = float(stats.norm.ppf(1 - ALPHA / 2))


class Sample:
    """Rows of many episodes laid out like the engine's ``Rows``: ``model`` (reporter ->
    array, episode by episode, Step by Step), ``agent`` (reporter -> ``(rows, seats)``
    float array), ``starts`` (first row of each episode, and the end)."""

    def __init__(self, model: dict, agent: dict, starts: np.ndarray):
        self.model, self.agent, self.starts = model, agent, starts

    @property
    def episodes(self) -> int:
        return len(self.starts) - 1


def _numeric(values) -> np.ndarray:
    """A reporter column as floats, None -> NaN."""
    values = np.asarray(values)
    if values.dtype == object:
        missing = np.equal(values, None)
        values = np.where(missing, np.nan, values)
    return values.astype(float)


def mesa_episode(game: str, parameters: dict, seed: int):
    """One Mesa episode's DataCollector rows: (model reporter -> array, agent reporter ->
    ``(rows, seats)`` array). Reads the DataCollector's own store (``model_vars`` and the
    records its agent DataFrame is built from; ``test_structure`` checks they agree with
    the DataFrames)."""
    model = GAMES[game].model(**parameters, collect_data=True, rng=seed)
    while model.running:
        model.step()
    collector = model.datacollector
    columns = {name: np.asarray(values) for name, values in collector.model_vars.items()}
    names = list(collector.agent_reporters)
    seat_of = {agent.unique_id: seat for seat, agent in enumerate(model.seats)}
    wanted = [(name, 2 + names.index(name)) for name in AGENT_REPORTERS[game]]
    records = list(collector._agent_records.values())
    agent = {name: np.full((len(records), len(seat_of)), np.nan) for name, _ in wanted}
    for row, step in enumerate(records):
        for record in step:
            seat = seat_of[record[1]]
            for name, index in wanted:
                value = record[index]
                agent[name][row, seat] = np.nan if value is None else value
    return columns, agent


@functools.lru_cache(maxsize=None)
def mesa_sample(config_id: str) -> Sample:
    _, game, parameters, episodes, _ = BY_ID[config_id]
    played = [mesa_episode(game, parameters, seed) for seed in range(episodes)]
    lengths = [len(next(iter(columns.values()))) for columns, _ in played]
    starts = np.concatenate(([0], np.cumsum(lengths)))
    model = {name: np.concatenate([columns[name] for columns, _ in played])
             for name in played[0][0]}
    agent = {name: np.concatenate([a[name] for _, a in played]) for name in played[0][1]}
    return Sample(model, agent, starts)


def batch_rows(game: str, parameters: dict, episodes: int, seed: int, agents=True,
               compiled=True):
    return GAMES[game].batch(episodes, np.random.default_rng(seed), agents=agents,
                             **parameters).run(compiled)


def batch_sample(game: str, parameters: dict, episodes: int, seed: int = BATCH_SEED,
                 compiled=True) -> Sample:
    rows = batch_rows(game, parameters, episodes, seed, compiled=compiled)
    starts = rows.bounds(rows.episode)
    return Sample(rows.model, agent_table(game, parameters, rows, starts), starts)


def agent_table(game: str, parameters: dict, rows, starts: np.ndarray) -> dict:
    """The engine's agent rows as reporter -> ``(rows, seats)`` floats, NaN where a seat has
    no row (a Stag Hunt seat not spawned); every seat of every episode has a row in every
    collection of it, or in none."""
    seats = GAMES[game].model(**parameters, collect_data=False, rng=0).seats
    seat_of = {agent.unique_id: seat for seat, agent in enumerate(seats)}
    seat = np.array([seat_of[i] for i in rows.agent["AgentID"]])
    row = starts[rows.agent_episode] + rows.agent_step
    present = np.zeros((len(rows.episode), len(seats)), dtype=bool)
    present[row, seat] = True
    assert (present == present[starts[rows.episode]]).all()
    assert len(row) == present.sum() and np.all(np.diff(row * len(seats) + seat) > 0)
    tables = {}
    for name in AGENT_REPORTERS[game]:
        tables[name] = np.full(present.shape, np.nan)
        tables[name][row, seat] = _numeric(rows.agent[name])
    return tables


def batch_sample_of(config_id: str, compiled=True) -> Sample:
    _, game, parameters, _, episodes = BY_ID[config_id]
    return batch_sample(game, parameters, episodes, compiled=compiled)


def _per_episode_mean(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """NaN-aware mean of each episode's rows (axis 0), NaN for an episode of NaNs only."""
    present = ~np.isnan(values)
    sums = np.add.reduceat(np.where(present, values, 0.0), starts[:-1], axis=0)
    counts = np.add.reduceat(present.astype(np.int64), starts[:-1], axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def summaries(game: str, sample: Sample) -> dict[str, np.ndarray]:
    """Summary name -> one value per episode (NaN: not defined for that episode)."""
    starts, out = sample.starts, {}
    last = starts[1:] - 1
    for column in GAMES[game].model.model_reporters:
        values = np.asarray(sample.model[column]).astype(float)
        out[f"{column}:final"] = values[last]
        out[f"{column}:mean"] = _per_episode_mean(values, starts)
        if column in NAN_REPORTERS[game]:
            missing = np.isnan(values)
            out[f"{column}:final_nan"] = missing[last].astype(float)
            out[f"{column}:nan_share"] = _per_episode_mean(missing.astype(float), starts)
        else:
            assert not np.isnan(values).any(), f"{column} is NaN somewhere"
    out["length"] = np.diff(starts).astype(float) - 1
    for reporter in AGENT_REPORTERS[game]:
        values = sample.agent[reporter]
        finals, means = values[last], _per_episode_mean(values, starts)
        for seat in range(values.shape[1]):
            out[f"{reporter}[{seat}]:final"] = finals[:, seat]
            out[f"{reporter}[{seat}]:mean"] = means[:, seat]
    return out


# --- The comparisons ------------------------------------------------------------------------

def z_compare(name: str, a: np.ndarray, b: np.ndarray, z: float = Z) -> dict:
    """Two-sample z test of the means of ``a`` (Mesa) and ``b`` (batch), NaNs left out."""
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    result = dict(name=name, n_a=len(a), n_b=len(b), mean_a=math.nan, mean_b=math.nan,
                  diff=math.nan, tolerance=math.nan, ratio=0.0, ok=True, kind="z")
    if len(a) < 2 or len(b) < 2:
        # Too few defined values to estimate a spread; the NaN summaries (final_nan,
        # nan_share) compare how often the value is defined.
        result["kind"] = "skipped"
        return result
    mean_a, mean_b = a.mean(), b.mean()
    result.update(mean_a=mean_a, mean_b=mean_b, diff=abs(mean_a - mean_b))
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        result.update(kind="exact", tolerance=0.0, ok=bool(a[0] == b[0]),
                      ratio=0.0 if a[0] == b[0] else math.inf)
        return result
    pooled = np.concatenate((a, b)).std(ddof=1)
    se_a = max(a.std(ddof=1), pooled) / math.sqrt(len(a))
    se_b = max(b.std(ddof=1), pooled) / math.sqrt(len(b))
    tolerance = z * math.hypot(se_a, se_b)
    result.update(tolerance=tolerance, ratio=result["diff"] / tolerance,
                  ok=bool(result["diff"] <= tolerance))
    return result


def length_bins(lengths: np.ndarray, share: float, minimum: float = 5.0) -> np.ndarray:
    """Upper edges of consecutive bins of the pooled ``lengths``, each holding at least
    ``minimum`` expected values of the sample that is ``share`` of the pool."""
    values, counts = np.unique(lengths, return_counts=True)
    edges, held = [], 0.0
    for value, count in zip(values, counts):
        held += count * share
        if held >= minimum:
            edges.append(value)
            held = 0.0
    if not edges:
        return np.array([values[-1]])
    edges[-1] = values[-1]  # a short remainder joins the last bin
    return np.array(edges)


def chi_square_lengths(a: np.ndarray, b: np.ndarray, alpha: float = ALPHA) -> dict:
    """Chi-square test that the episode lengths ``a`` and ``b`` have one distribution."""
    result = dict(name="length distribution", kind="chi2", ok=True, ratio=0.0)
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        result.update(kind="exact", ok=bool(a[0] == b[0]),
                      ratio=0.0 if a[0] == b[0] else math.inf)
        return result
    edges = length_bins(np.concatenate((a, b)), len(a) / (len(a) + len(b)))
    table = np.array([np.bincount(np.searchsorted(edges, x), minlength=len(edges))
                      for x in (a, b)])
    if table.shape[1] < 2:
        return result
    test = stats.chi2_contingency(table, correction=False)
    critical = stats.chi2.ppf(1 - alpha, test.dof)
    result.update(statistic=float(test.statistic), dof=int(test.dof), p=float(test.pvalue),
                  critical=float(critical), ratio=float(test.statistic / critical),
                  ok=bool(test.pvalue >= alpha))
    return result


def compare(game: str, mesa: Sample, batch: Sample, z: float = Z, alpha: float = ALPHA):
    """Every comparison of one configuration: a list of result dicts."""
    a, b = summaries(game, mesa), summaries(game, batch)
    assert list(a) == list(b)
    results = [z_compare(name, a[name], b[name], z) for name in a]
    results.append(chi_square_lengths(a["length"], b["length"], alpha))
    return results


def describe(result: dict) -> str:
    if result["kind"] == "chi2":
        return (f"{result['name']}: chi2={result['statistic']:.2f} (dof {result['dof']}, "
                f"p={result['p']:.3g}, critical {result['critical']:.2f})")
    return (f"{result['name']} [{result['kind']}]: Mesa {result['mean_a']:.6g} "
            f"(n={result['n_a']}) vs batch {result['mean_b']:.6g} (n={result['n_b']}), |diff| "
            f"{result['diff']:.4g} > tolerance {result['tolerance']:.4g} "
            f"(ratio {result['ratio']:.2f})")


# --- Parity ---------------------------------------------------------------------------------

def test_planned_comparisons():
    """Every configuration's summaries are the ones counted for the Bonferroni correction,
    and the correction is for the family-wise rate asked."""
    assert PLANNED > 500
    assert Z == pytest.approx(stats.norm.isf(FAMILY_ALPHA / PLANNED / 2))
    print(f"\n{len(CONFIGS)} configurations, {PLANNED} comparisons, Z = {Z:.3f}")


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("config_id", [config[0] for config in CONFIGS])
def test_parity(config_id, path):
    _, game, parameters, _, _ = BY_ID[config_id]
    if parameters.get("population") == HEURISTIC_MIX and not _heuristics_batch():
        pytest.skip("the heuristic archetypes have no batch_decide yet")
    began = time.perf_counter()
    mesa, batch = mesa_sample(config_id), batch_sample_of(config_id, PATHS[path])
    results = compare(game, mesa, batch)
    assert [r["name"] for r in results[:-1]] == summary_names(game, parameters)
    seconds = time.perf_counter() - began
    worst = max(results, key=lambda r: r["ratio"])
    print(f"\n{config_id} ({path}): M={mesa.episodes} B={batch.episodes} largest "
          f"|diff|/tolerance {worst['ratio']:.3f} ({worst['name']}), {seconds:.1f} s")
    failed = [describe(r) for r in results if not r["ok"]]
    assert not failed, f"{config_id} ({parameters}): Z={Z:.3f}\n" + "\n".join(failed)


def _power(config_id: str, **moved) -> list[dict]:
    """The comparisons of ``config_id``'s Mesa sample against a batch whose parameters are
    moved by ``moved``."""
    _, game, parameters, _, episodes = BY_ID[config_id]
    batch = batch_sample(game, {**parameters, **moved}, episodes, seed=BATCH_SEED + 1)
    return compare(game, mesa_sample(config_id), batch)


def test_power_bucket_brigade_beta():
    """beta 0.25 (Mesa, the default scenario's) against 0.30 (batch) is detected."""
    assert GAMES[BB].model(collect_data=False, rng=0).beta == 0.25
    results = _power("bb-spec-default-random", beta=0.30)
    detected = [r for r in results if not r["ok"]]
    print(f"\nbeta 0.25 vs 0.30: {len(detected)} comparisons fail, largest ratio "
          f"{max(r['ratio'] for r in results):.2f}: " + "; ".join(r["name"] for r in detected))
    assert detected


def test_power_firefighting_graph_p_ignite():
    """p_ignite 0.10 (Mesa) against 0.15 (batch) on the oliehoek grid is detected."""
    assert BY_ID["fg-grid-oliehoek-random"][2]["p_ignite"] == 0.1
    results = _power("fg-grid-oliehoek-random", p_ignite=0.15)
    detected = [r for r in results if not r["ok"]]
    print(f"\np_ignite 0.10 vs 0.15: {len(detected)} comparisons fail, largest ratio "
          f"{max(r['ratio'] for r in results):.2f}: " + "; ".join(r["name"] for r in detected))
    assert detected


def test_power_state_punishment_spawn_prob():
    """spawn_prob 0.05 (Mesa, the default) against 0.07 (batch) is detected."""
    results = _power("sp-default-random", spawn_prob=0.07)
    detected = [r for r in results if not r["ok"]]
    print(f"\nspawn_prob 0.05 vs 0.07: {len(detected)} comparisons fail, largest ratio "
          f"{max(r['ratio'] for r in results):.2f}: " + "; ".join(r["name"] for r in detected))
    assert detected


def test_power_stag_hunt_resource_density():
    """resource_density 0.15 (Mesa, the default) against 0.18 (batch) is detected."""
    results = _power("sh-default-random", resource_density=0.18)
    detected = [r for r in results if not r["ok"]]
    print(f"\nresource_density 0.15 vs 0.18: {len(detected)} comparisons fail, largest ratio "
          f"{max(r['ratio'] for r in results):.2f}: " + "; ".join(r["name"] for r in detected))
    assert detected


def test_comparisons_pass_on_two_batches():
    """The comparison itself does not fail two samples from one distribution that are
    independent draws of the same engine (a check of the statistics, not of the engine)."""
    _, game, parameters, _, _ = BY_ID["bb-spec-default-random"]
    a = batch_sample(game, parameters, BB_M, seed=1)
    b = batch_sample(game, parameters, B, seed=2)
    failed = [describe(r) for r in compare(game, a, b) if not r["ok"]]
    assert not failed, "\n".join(failed)


# --- Structure ------------------------------------------------------------------------------

STRUCTURE = [
    (BB, dict(rules="spec", scenario="default", population="random")),
    (BB, dict(rules="reference", scenario="hard", population="always_work")),
    (FG, dict(layout="row", preset="oliehoek", population="random")),
    (FG, dict(layout="grid", n_width=3, n_height=3, preset="cognac",
              population="belief_tracker", max_steps=12)),
    (SP, dict(population="civic_voter:2,greedy_forager:1", max_steps=12)),
    (SH, dict(population="cooperator:2,random:1", max_steps=12, punish_cooldown=0,
              agent_health=1)),
]


def _kind(dtype) -> str:
    """int, float, bool or other (strings, objects), for numpy and pandas dtypes."""
    return "bool" if pd.api.types.is_bool_dtype(dtype) else \
        "int" if pd.api.types.is_integer_dtype(dtype) else \
        "float" if pd.api.types.is_float_dtype(dtype) else "other"


def _check_nan_structure(game, columns: dict, starts: np.ndarray, where: str):
    """cooperation_rate NaN exactly on a night that began with nothing BURNING (night 0
    included), and equal to work_rate otherwise; flame_rate NaN exactly at Step 0; stag_share
    NaN exactly while nothing was killed; State Punishment has no NaN."""
    step = np.concatenate([np.arange(e - s) for s, e in zip(starts[:-1], starts[1:])])
    if game == SP:
        return
    if game == BB:
        burning = np.asarray(columns["burning"])
        began_burning = np.zeros(len(step), dtype=bool)
        began_burning[1:] = burning[:-1] > 0
        began_burning[step == 0] = False
        rate = np.asarray(columns["cooperation_rate"])
        assert np.array_equal(np.isnan(rate), ~began_burning), where
        assert np.array_equal(rate[began_burning],
                              np.asarray(columns["work_rate"])[began_burning]), where
    elif game == SH:
        killed = np.asarray(columns["stags_defeated"]) + np.asarray(columns["hares_defeated"])
        assert np.array_equal(np.isnan(np.asarray(columns["stag_share"])), killed == 0), where
    else:
        rate = np.asarray(columns["flame_rate"])
        assert np.array_equal(np.isnan(rate), step == 0), where


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("game,parameters", STRUCTURE)
def test_structure(game, parameters, path):
    """Every DataCollector column is an engine column, with a compatible dtype and NaN (or
    None) in the same places; Steps count each episode's collections from 0; the fast
    reading of the DataCollector this file uses agrees with its DataFrames."""
    rows = batch_rows(game, parameters, 300, seed=3, compiled=PATHS[path])
    starts = rows.bounds(rows.episode)
    assert np.array_equal(rows.step, np.concatenate(
        [np.arange(e - s) for s, e in zip(starts[:-1], starts[1:])]))
    assert (np.diff(starts) >= 2).all()
    _check_nan_structure(game, rows.model, starts, "batch")
    seats = len(GAMES[game].model(**parameters, collect_data=False, rng=0).seats)
    for seed in range(4):
        model = GAMES[game].model(**parameters, collect_data=True, rng=seed)
        while model.running:
            model.step()
        frame = model.datacollector.get_model_vars_dataframe()
        agents = model.datacollector.get_agent_vars_dataframe()
        assert list(frame.columns) == list(GAMES[game].model.model_reporters)
        for column in frame.columns:
            assert column in rows.model, f"{column} missing from the engine's rows"
            assert _kind(frame[column].dtype) == _kind(rows.model[column].dtype), \
                (column, frame[column].dtype, rows.model[column].dtype)
            assert _kind(frame[column].dtype) in ("int", "float"), column
        _check_nan_structure(game, {c: frame[c].to_numpy() for c in frame.columns},
                             np.array([0, len(frame)]), f"Mesa seed {seed}")
        # The agent columns: the same names; numbers as numbers, None where Mesa has NaN.
        assert list(agents.index.names) == ["Step", "AgentID"]
        # (a Stag Hunt episode has rows of its spawned seats only)
        assert set(agents.index.get_level_values("AgentID")) <= set(rows.agent["AgentID"])
        steps = agents.index.get_level_values("Step").to_numpy()
        for column in agents.columns:
            assert column in rows.agent, f"agent column {column} missing from the engine's rows"
            mesa_kind, engine = _kind(agents[column].dtype), rows.agent[column]
            if mesa_kind in ("int", "bool"):
                assert _kind(engine.dtype) == mesa_kind, (column, engine.dtype)
            elif mesa_kind == "float":
                mesa_nan = agents[column].isna().to_numpy()
                if _kind(engine.dtype) == "float":
                    engine_missing = np.isnan(engine)
                else:  # object: None before the first round, numbers after
                    engine_missing = np.equal(engine, None)
                    present = engine[~engine_missing]
                    assert all(isinstance(v, (int, np.integer)) for v in present[:1000]), column
                if mesa_nan.any():  # FG house, observation: None at Step 0 only
                    assert np.array_equal(mesa_nan, steps == 0), column
                    assert np.array_equal(engine_missing, rows.agent_step == 0), column
                else:
                    assert not engine_missing.any(), column
        # This file's fast reading of the DataCollector is the DataFrames' content.
        columns, agent = mesa_episode(game, parameters, seed)
        for column in frame.columns:
            assert np.array_equal(columns[column], frame[column].to_numpy(), equal_nan=True)
        seat_of = {agent.unique_id: seat for seat, agent in enumerate(model.seats)}
        where = (np.repeat(np.arange(len(frame)), len(model.agents)),
                 [seat_of[i] for i in agents.index.get_level_values("AgentID")])
        for name in AGENT_REPORTERS[game]:
            expected = np.full((len(frame), seats), np.nan)
            expected[where] = agents[name].to_numpy(dtype=float)
            assert np.array_equal(agent[name], expected, equal_nan=True), name


# --- Determinism ----------------------------------------------------------------------------

def _same(x: np.ndarray, y: np.ndarray) -> bool:
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype == object:
        return all(u == v or (u is None and v is None) for u, v in zip(x, y))
    return np.array_equal(x, y, equal_nan=np.issubdtype(x.dtype, np.floating))


def _all_arrays(rows) -> dict:
    out = {"episode": rows.episode, "step": rows.step, "agent_episode": rows.agent_episode,
           "agent_step": rows.agent_step}
    out.update({f"model:{k}": v for k, v in rows.model.items()})
    out.update({f"agent:{k}": v for k, v in rows.agent.items()})
    return out


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("game,parameters", [
    (BB, dict(rules="spec", population="random")),
    (BB, dict(rules="reference", scenario="hard", population="always_work")),
    (BB, dict(population=HEURISTIC_MIX)),
    (FG, dict(preset="oliehoek", population="random")),
    (FG, dict(layout="grid", n_width=3, n_height=3, population="belief_tracker",
              max_steps=15)),
    (SP, dict(population="civic_voter:1,greedy_forager:2", max_steps=15)),
    (SH, dict(population="cooperator:2,random:1", max_steps=15)),
])
def test_determinism(game, parameters, path):
    """The same seed and parameters give identical rows; another seed gives others."""
    if parameters.get("population") == HEURISTIC_MIX and not _heuristics_batch():
        pytest.skip("the heuristic archetypes have no batch_decide yet")
    compiled = PATHS[path]
    first = _all_arrays(batch_rows(game, parameters, 200, seed=11, compiled=compiled))
    again = _all_arrays(batch_rows(game, parameters, 200, seed=11, compiled=compiled))
    other = _all_arrays(batch_rows(game, parameters, 200, seed=12, compiled=compiled))
    assert list(first) == list(again) == list(other)
    for name in first:
        assert _same(first[name], again[name]), name
    assert not all(_same(first[name], other[name]) for name in first)
    assert not _same(first["model:mean_reward"], other["model:mean_reward"])


def test_state_punishment_engine_holds_p_in_32_bits_and_refuses_more():
    """p is a count of units of 1/D in JAX's 32-bit integers: the engine plays D = 10**9
    (with the votes of civic voters p stays inside [0, 1]) and refuses a D for which p plus a
    step could pass 2**31, naming why; the Mesa model plays those too."""
    parameters = dict(population="civic_voter", max_steps=15, initial_punishment=0.5)
    rows = GAMES[SP].batch(1024, np.random.default_rng(0), vote_step=1e-9,
                           **parameters).run(compiled=True)
    level = rows.model["punishment_level"]
    assert (level >= 0).all() and (level <= 1).all()
    assert rows.model["cumulative_votes_up"].max() + rows.model["cumulative_votes_down"].max() > 0
    with pytest.raises(ValueError, match="more than 32-bit integers count"):
        GAMES[SP].batch(8, np.random.default_rng(0), vote_step=1e-10, **parameters)
    # D = 2 * 10**9 fits 32 bits, but p (up to D) plus a step of 0.9 D does not
    tight = {**parameters, "initial_punishment": 5e-10, "vote_step": 0.9}
    with pytest.raises(ValueError, match="more than 32-bit integers count"):
        GAMES[SP].batch(8, np.random.default_rng(0), **tight)
    for given in (dict(parameters, vote_step=1e-10), tight):
        model = GAMES[SP].model(rng=0, **given)
        model.run_model()
        assert 0 <= model.p_units <= model.denominator
