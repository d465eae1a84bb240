"""Bucket Brigade: each rule of docs/rules/bucket_brigade.md, on its own ("World", "Round",
"Rewards", "Termination", "Observations"), under both rule sets where they differ.

Statistical checks. A probability ``p`` estimated from ``N`` independent Bernoulli trials
has standard error ``sqrt(p*(1-p)/N)``; every check allows
``|p_hat - p| <= 4 * sqrt(p*(1-p)/N)`` (a two-sided 4-sigma band: about 6e-5 chance of a
false alarm per check for a correct model). Seeds are fixed, so the outcome of each check is
deterministic; the band only guarantees the fixed seeds are not cherry-picked. ``N = 20000``
makes every band at most ``4 * 0.5 / sqrt(20000) = 0.014`` wide (sharp enough to catch an
off-by-one worker, ``kappa*(k-1)``, a missing neighbour, a per-night cascade...) while each
test runs in well under a second. When ``p`` is exactly 0 or 1 the band is 0: the check is
exact.
"""

import math

import numpy as np
import pytest
from support import assert_rate

import dilemmas.agents.bucket_brigade as bb_agents
from dilemmas.agents.bucket_brigade import BucketBrigadeAgent
from dilemmas.models.bucket_brigade.arrays import FROM_LEFT, FROM_RIGHT
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.rules import (BURNING, REST, RUINED, SAFE, WORK,
                                                  initial_fire_count)

N_TRIALS = 20_000

#: docs/rules/bucket_brigade.md, "Round": the nine phases of a night, in order.
ROUND_PHASES = ["observe", "signal", "act", "extinguish", "spread", "burn_out", "spark",
                "reward_and_log", "terminate"]


def quiet_model(**kwargs):
    """A model whose own dynamics do nothing unless a test sets them: no initial fire,
    no sparks, no spread, resting agents, a long minimum game."""
    params = dict(num_agents=4, num_houses=10, population="always_rest", rho_ignite=0.0,
                  p_spark=0.0, beta=0.0, kappa=0.0, N_min=50, N_spark=50,
                  collect_data=False, rng=0)
    params.update(kwargs)
    return BucketBrigadeModel(**params)


def set_houses(model, states):
    assert len(states) == model.num_houses
    model.houses[:] = states


def ring(n, **states):
    """A list of ``n`` SAFE houses with some set: ring(10, B=[0, 5], R=[3])."""
    houses = [SAFE] * n
    for h in states.get("B", ()):
        houses[h] = BURNING
    for h in states.get("R", ()):
        houses[h] = RUINED
    return houses


class ScriptedAgent(BucketBrigadeAgent):
    """Plays ``model.script[night][seat] = (signal, house, mode)`` and logs what it saw
    while deciding in ``model.probe_log``."""

    behaviour = "scripted"

    def choose_signal(self):
        model = self.model
        model.probe_log.append(dict(
            phase="signal", seat=self.seat, night=model.night,
            observed_signals=model.observation.signals,
            agent_signals=tuple(agent.signal for agent in model.seats)))
        return model.script[model.night][self.seat][0]

    def choose_action(self):
        model = self.model
        model.probe_log.append(dict(
            phase="act", seat=self.seat, night=model.night,
            observed_signals=model.observation.signals,
            agent_signals=tuple(agent.signal for agent in model.seats),
            agent_modes=tuple(agent.mode for agent in model.seats)))
        _, house, mode = model.script[model.night][self.seat]
        return house, mode


@pytest.fixture
def scripted(monkeypatch):
    """Registers ``ScriptedAgent`` as behaviour "scripted" for the duration of a test and
    returns a factory of scripted models."""
    monkeypatch.setitem(bb_agents.BEHAVIOURS, "scripted", ScriptedAgent)

    def make(script, **kwargs):
        model = quiet_model(population="scripted", **kwargs)
        model.script = script
        model.probe_log = []
        return model

    return make


# --- Phase 4: extinguish -------------------------------------------------------------------

def place(model, work_at=(), rest_at=None):
    """Seats 0..len(work_at)-1 work at the given houses; the other seats rest at ``rest_at``
    (default: their own location)."""
    for seat, agent in enumerate(model.seats):
        if seat < len(work_at):
            agent.house, agent.mode = work_at[seat], WORK
        else:
            agent.house = agent.house if rest_at is None else rest_at
            agent.mode = REST


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4])
def test_extinguish_probability_with_k_workers(k):
    kappa = 0.4
    model = quiet_model(kappa=kappa)
    # k workers at the burning house 2; the remaining seats work at the SAFE house 7, which
    # must not matter to house 2.
    for seat, agent in enumerate(model.seats):
        agent.house, agent.mode = (2 if seat < k else 7), WORK
    model.rng = np.random.default_rng(1000 + k)
    start = ring(10, B=[2])
    saved = 0
    for _ in range(N_TRIALS):
        set_houses(model, start)
        model.extinguish()
        after = model.houses.tolist()
        assert after[:2] + after[3:] == start[:2] + start[3:]
        assert model.houses[2] in (SAFE, BURNING)
        saved += model.houses[2] == SAFE
    assert_rate(saved, N_TRIALS, 1 - math.exp(-kappa * k), f"P(extinguish | k={k})")
    if k == 0:
        assert saved == 0


def test_extinguish_several_fires_each_with_its_own_workers():
    """Two fires at once: 1 worker at house 1, 3 workers at house 6, none at house 8; each
    fire is put out with its own probability, independently."""
    kappa = 0.4
    model = quiet_model(kappa=kappa)
    place(model, work_at=[1, 6, 6, 6])
    model.rng = np.random.default_rng(77)
    start = ring(10, B=[1, 6, 8])
    saved1 = saved6 = both = 0
    for _ in range(N_TRIALS):
        set_houses(model, start)
        model.extinguish()
        assert model.houses[8] == BURNING
        s1, s6 = model.houses[1] == SAFE, model.houses[6] == SAFE
        saved1 += s1
        saved6 += s6
        both += s1 and s6
    p1, p3 = 1 - math.exp(-kappa), 1 - math.exp(-3 * kappa)
    assert_rate(saved1, N_TRIALS, p1, "P(extinguish | k=1)")
    assert_rate(saved6, N_TRIALS, p3, "P(extinguish | k=3)")
    assert_rate(both, N_TRIALS, p1 * p3, "P(both extinguished)")


def test_extinguish_certain_with_huge_kappa_and_resting_agents_do_nothing():
    model = quiet_model(kappa=1000.0)
    # Resting agents at a burning house do not fight it.
    for agent in model.seats:
        agent.house, agent.mode = 4, REST
    set_houses(model, ring(10, B=[4]))
    model.extinguish()
    assert model.houses.tolist() == ring(10, B=[4])
    model.seats[0].mode = WORK
    model.extinguish()
    assert model.houses.tolist() == ring(10)


def test_workers_at_safe_or_ruined_houses_change_nothing():
    model = quiet_model(kappa=1000.0)
    place(model, work_at=[0, 0, 3, 3])  # house 0 SAFE, house 3 RUINED
    start = ring(10, B=[7], R=[3])
    for seed in range(200):
        model.rng = np.random.default_rng(seed)
        set_houses(model, start)
        model.extinguish()
        assert model.houses.tolist() == start


def test_workers_at_safe_or_ruined_houses_still_pay_their_cost(scripted):
    """Under "spec" a worker's reward that night is -c_i (its owned houses do not change):
    seat 0 works at SAFE house 1, seat 1 at RUINED house 3, seat 3 at SAFE house 0; seat 2
    rests while its house 6 burns down (not SAFE before, not SAFE after: no change)."""
    costs = [0.3, 0.7, 1.1, 0.0]
    script = {1: [(WORK, 1, WORK), (WORK, 3, WORK), (REST, 2, REST), (REST, 0, WORK)]}
    model = scripted(script, work_costs=costs, r_rest=0.25)
    set_houses(model, ring(10, B=[6], R=[3]))
    model.step()
    assert model.houses.tolist() == ring(10, R=[3, 6])
    night = model.history[-1]
    assert night.rewards == pytest.approx((-0.3, -0.7, 0.25, -0.0))
    assert [agent.reward for agent in model.seats] == pytest.approx([-0.3, -0.7, 0.25, 0.0])
    assert model.workers == 3


# --- Phase 5: spread -----------------------------------------------------------------------

@pytest.mark.parametrize("rules", ["spec", "reference"])
def test_spread_one_burning_neighbour_ignites_with_beta(rules):
    beta = 0.3
    model = quiet_model(beta=beta, rules=rules)
    model.rng = np.random.default_rng(11)
    start = ring(10, B=[0])
    lit1 = lit9 = both = 0
    for _ in range(N_TRIALS):
        set_houses(model, start)
        model.spread()
        lit1 += model.houses[1] == BURNING
        lit9 += model.houses[9] == BURNING
        both += model.houses[1] == BURNING and model.houses[9] == BURNING
    assert_rate(lit1, N_TRIALS, beta, "P(right neighbour lit)")
    assert_rate(lit9, N_TRIALS, beta, "P(left neighbour lit)")
    assert_rate(both, N_TRIALS, beta * beta, "P(both neighbours lit)")


@pytest.mark.parametrize("rules", ["spec", "reference"])
def test_spread_two_burning_neighbours_ignite_with_1_minus_1_minus_beta_squared(rules):
    beta = 0.3
    model = quiet_model(beta=beta, rules=rules)
    model.rng = np.random.default_rng(12)
    start = ring(10, B=[0, 2])
    lit = 0
    for _ in range(N_TRIALS):
        set_houses(model, start)
        model.spread()
        lit += model.houses[1] == BURNING
    assert_rate(lit, N_TRIALS, 1 - (1 - beta) ** 2, "P(lit | two burning neighbours)")


@pytest.mark.parametrize("rules", ["spec", "reference"])
def test_spread_never_touches_ruined_houses_and_beta_zero_spreads_nothing(rules):
    model = quiet_model(beta=1.0, rules=rules)
    set_houses(model, ring(10, B=[0], R=[1, 9]))
    model.spread()
    assert model.houses.tolist() == ring(10, B=[0], R=[1, 9])
    model = quiet_model(beta=0.0, rules=rules)
    set_houses(model, ring(10, B=[0, 4]))
    model.spread()
    assert model.houses.tolist() == ring(10, B=[0, 4])


def test_spread_spec_is_simultaneous():
    """Houses 0 burning, beta=1: only its two neighbours catch fire; a house lit tonight
    does not spread tonight."""
    model = quiet_model(beta=1.0, rules="spec")
    set_houses(model, ring(10, B=[0]))
    model.spread()
    assert model.houses.tolist() == ring(10, B=[0, 1, 9])
    assert np.flatnonzero(model.episode.spreaders[0]).tolist() == [0]

    set_houses(model, ring(10, B=[5]))
    model.spread()
    assert model.houses.tolist() == ring(10, B=[4, 5, 6])


def test_spread_reference_cascades_in_index_order():
    model = quiet_model(beta=1.0, rules="reference")
    # From house 0 the in-place loop lights 9 and 1, then 1 lights 2, ... up to 8: all burn.
    set_houses(model, ring(10, B=[0]))
    model.spread()
    assert model.houses.tolist() == ring(10, B=range(10))

    # From house 5: 4 and 6, then 6->7->8->9, and 9 lights 0 (right neighbour, wrapping);
    # 0 and 4 sit at lower indices than the loop position when lit, so they do not spread:
    # 1, 2, 3 stay SAFE.
    set_houses(model, ring(10, B=[5]))
    model.spread()
    assert model.houses.tolist() == ring(10, B=[0, 4, 5, 6, 7, 8, 9])


def test_spread_reference_cascade_probabilities():
    """House 0 burning, "reference": house k in 1..7 burns only through the rightward
    cascade 0->1->...->k (beta^k); house 8 through that cascade or 0->9->8 (9 lit at the
    start of the loop, spreading at position 9); house 9 from 0 or from a cascade that
    reached 8. Under "spec" only 1 and 9 can burn."""
    beta = 0.5
    expected_ref = {k: beta ** k for k in range(1, 8)}
    expected_ref[8] = beta ** 8 + (1 - beta ** 8) * beta ** 2
    expected_ref[9] = beta + (1 - beta) * beta ** 9
    expected_spec = {k: 0.0 for k in range(2, 9)} | {1: beta, 9: beta}
    for rules, expected in (("reference", expected_ref), ("spec", expected_spec)):
        model = quiet_model(beta=beta, rules=rules)
        model.rng = np.random.default_rng(13)
        counts = [0] * 10
        for _ in range(N_TRIALS):
            set_houses(model, ring(10, B=[0]))
            model.spread()
            for h in range(10):
                counts[h] += model.houses[h] == BURNING
        assert counts[0] == N_TRIALS
        for h, p in expected.items():
            assert_rate(counts[h], N_TRIALS, p, f"{rules}: P(house {h} lit)")


class ScriptedUniforms:
    """Stands in for ``model.rng``: ``random(shape)`` returns a copy of the prepared
    ``uniforms`` (and checks the model asks for their shape)."""

    def __init__(self, uniforms):
        self.uniforms = np.asarray(uniforms, dtype=float)

    def random(self, shape):
        assert tuple(shape) == self.uniforms.shape
        return self.uniforms.copy()


def spread_uniforms(n=10, low=()):
    """Spread's numbers, shape ``(1, n, 2)``: 0.99 (never below beta) except
    ``low = [(house, FROM_LEFT or FROM_RIGHT, value), ...]``."""
    uniforms = np.full((1, n, 2), 0.99)
    for h, side, value in low:
        uniforms[0, h, side] = value
    return uniforms


@pytest.mark.parametrize("rules", ["spec", "reference"])
@pytest.mark.parametrize("low, lit", [
    # House 9's chance from its right neighbour (0, burning) decides it; house 1's chance
    # from its left neighbour (0) decides house 1.
    ([(9, FROM_RIGHT, 0.1)], [9]),
    ([(1, FROM_LEFT, 0.1)], [1]),
    ([(9, FROM_RIGHT, 0.1), (1, FROM_LEFT, 0.1)], [1, 9]),
    # The other chances of 9 and 1 come from houses 8 and 2, which do not burn.
    ([(9, FROM_LEFT, 0.1), (1, FROM_RIGHT, 0.1)], []),
    # Lit only strictly below beta = 0.5.
    ([(9, FROM_RIGHT, 0.5), (1, FROM_LEFT, 0.5)], []),
    ([(9, FROM_RIGHT, 0.4999), (1, FROM_LEFT, 0.4999)], [1, 9]),
])
def test_spread_each_neighbour_chance_has_its_own_number(monkeypatch, rules, low, lit):
    """Scripted numbers (docs/rules/bucket_brigade.md, "Random numbers"): house ``h`` has one
    number for its chance from its left neighbour (``[0, h, FROM_LEFT]``) and one from its
    right neighbour (``[0, h, FROM_RIGHT]``); it catches fire from a burning neighbour when
    that neighbour's number is below beta."""
    model = quiet_model(beta=0.5, rules=rules)
    monkeypatch.setattr(model, "rng", ScriptedUniforms(spread_uniforms(low=low)))
    set_houses(model, ring(10, B=[0]))
    model.spread()
    assert model.houses.tolist() == ring(10, B=[0, *lit])


@pytest.mark.parametrize("rules, lit", [
    # Reference: 6, 7, 8 each take their turn after being lit and spread on; 4 is lit at
    # house 5's turn, after its own turn, so 3 stays SAFE.
    ("reference", [4, 5, 6, 7, 8]),
    # Spec: only house 5 spreads tonight.
    ("spec", [4, 5, 6]),
])
def test_spread_reference_cascades_right_but_one_step_left(monkeypatch, rules, lit):
    """House 5 burning; scripted numbers below beta for the chances 5->6->7->8 (FROM_LEFT of
    6, 7, 8) and 5->4->3->2 (FROM_RIGHT of 4, 3, 2), all others 0.99."""
    model = quiet_model(beta=0.5, rules=rules)
    low = [(h, FROM_LEFT, 0.1) for h in (6, 7, 8)] + [(h, FROM_RIGHT, 0.1) for h in (4, 3, 2)]
    monkeypatch.setattr(model, "rng", ScriptedUniforms(spread_uniforms(low=low)))
    set_houses(model, ring(10, B=[5]))
    model.spread()
    assert model.houses.tolist() == ring(10, B=lit)


# --- Phase 6: burn-out ---------------------------------------------------------------------

def test_burn_out_spec_ruins_only_houses_burning_at_start_of_spread():
    model = quiet_model(beta=1.0, rules="spec")
    set_houses(model, ring(10, B=[0, 5]))
    model.spread()
    assert model.houses.tolist() == ring(10, B=[0, 1, 4, 5, 6, 9])
    model.burn_out()
    assert model.houses.tolist() == ring(10, B=[1, 4, 6, 9], R=[0, 5])


def test_burn_out_reference_ruins_every_burning_house():
    model = quiet_model(beta=1.0, rules="reference")
    set_houses(model, ring(10, B=[5]))
    model.spread()
    model.burn_out()
    assert model.houses.tolist() == ring(10, R=[0, 4, 5, 6, 7, 8, 9])
    # Without spread too: every burning house goes, ruined ones stay.
    model = quiet_model(beta=0.0, rules="reference")
    set_houses(model, ring(10, B=[2, 3], R=[7]))
    model.spread()
    model.burn_out()
    assert model.houses.tolist() == ring(10, R=[2, 3, 7])


@pytest.mark.parametrize("rules, after", [
    # spec: 0 saved by its 4 workers (and no burning neighbour relights it); 5 spreads to
    # 4 and 6 and is ruined; 4 and 6 burn on.
    ("spec", ring(10, B=[4, 6], R=[5])),
    # reference: 0 saved, then 5 cascades 6..9 and 9 relights 0 (right neighbour), all of
    # them ruined; 1..3 untouched.
    ("reference", ring(10, R=[0, 4, 5, 6, 7, 8, 9])),
])
def test_extinguish_spread_burn_out_together(rules, after):
    model = quiet_model(beta=1.0, kappa=1000.0, rules=rules)
    assert model.p_extinguish[4] == 1.0
    place(model, work_at=[0, 0, 0, 0])
    set_houses(model, ring(10, B=[0, 5]))
    model.extinguish()
    assert model.houses.tolist() == ring(10, B=[5])
    model.spread()
    model.burn_out()
    assert model.houses.tolist() == after


def test_burn_out_over_whole_nights():
    """A fire from house 0 with beta=1 and nobody working: under "spec" it advances one house
    each way per night (lit houses burn into the next night); under "reference" the whole
    ring is ruined on night 1."""
    model = quiet_model(beta=1.0, rules="spec", N_min=0, N_spark=0)
    set_houses(model, ring(10, B=[0]))
    expected = [
        ring(10, B=[1, 9], R=[0]),
        ring(10, B=[2, 8], R=[0, 1, 9]),
        ring(10, B=[3, 7], R=[0, 1, 2, 8, 9]),
        ring(10, B=[4, 6], R=[0, 1, 2, 3, 7, 8, 9]),
        ring(10, B=[5], R=[0, 1, 2, 3, 4, 6, 7, 8, 9]),
        ring(10, R=range(10)),
    ]
    for night, houses in enumerate(expected, start=1):
        assert model.running
        model.step()
        assert model.night == night
        assert model.houses.tolist() == houses
        assert model.history[-1].houses == tuple(houses)
    assert not model.running

    model = quiet_model(beta=1.0, rules="reference", N_min=0, N_spark=0)
    set_houses(model, ring(10, B=[0]))
    model.step()
    assert model.houses.tolist() == ring(10, R=range(10))
    assert not model.running


# --- Phase 7: spark ------------------------------------------------------------------------

def test_spark_rate_per_safe_house():
    p_spark = 0.15
    model = quiet_model(p_spark=p_spark, N_spark=5)
    model.night = 3
    model.rng = np.random.default_rng(21)
    start = ring(10, B=[4], R=[0, 7])
    counts = [0] * 10
    for _ in range(N_TRIALS):
        set_houses(model, start)
        model.spark()
        assert model.houses[0] == RUINED and model.houses[7] == RUINED
        assert model.houses[4] == BURNING
        for h in range(10):
            counts[h] += model.houses[h] == BURNING
    safe = [h for h in range(10) if start[h] == SAFE]
    for h in safe:
        assert_rate(counts[h], N_TRIALS, p_spark, f"P(spark at house {h})")
    assert_rate(sum(counts[h] for h in safe), N_TRIALS * len(safe), p_spark, "pooled spark rate")


def test_sparks_only_on_nights_up_to_n_spark_phase_level():
    model = quiet_model(p_spark=1.0, N_spark=4)
    for night, sparks in ((1, True), (4, True), (5, False), (6, False), (40, False)):
        model.night = night
        set_houses(model, ring(10, R=[3]))
        model.spark()
        assert model.houses.tolist() == (ring(10, B=[h for h in range(10) if h != 3], R=[3]) if sparks
                                else ring(10, R=[3])), f"night {night}"


@pytest.mark.parametrize("rules", ["spec", "reference"])
def test_sparks_only_on_nights_up_to_n_spark_over_steps(rules):
    """Each night starts from an all-SAFE ring (set by hand); with p_spark=1 every house
    catches fire on nights 1..N_spark and none afterwards."""
    model = quiet_model(p_spark=1.0, N_spark=3, N_min=20, rules=rules)
    for night in range(1, 8):
        set_houses(model, ring(10))
        model.step()
        assert model.night == night
        assert model.burning == (10 if night <= 3 else 0), f"night {night}"


def test_no_sparks_when_n_spark_is_zero():
    model = quiet_model(p_spark=1.0, N_spark=0, N_min=3)
    while model.running:
        model.step()
    assert model.night == 3
    assert model.houses.tolist() == ring(10)


# --- Start of an episode -------------------------------------------------------------------

@pytest.mark.parametrize("rho, n, fires", [
    (0.05, 10, 1), (0.15, 10, 2), (0.25, 10, 3), (0.35, 10, 4), (0.45, 10, 5),
    (0.0, 10, 0), (0.2, 10, 2), (0.1, 10, 1), (0.3, 10, 3), (1.0, 10, 10),
    (0.25, 6, 2), (0.5, 3, 2), (0.125, 4, 1), (0.04, 12, 0), (0.125, 20, 3),
])
def test_initial_ignition_count_rounds_half_up(rho, n, fires):
    assert initial_fire_count(rho, n) == fires
    for seed in range(30):
        model = BucketBrigadeModel(num_houses=n, rho_ignite=rho, collect_data=False, rng=seed)
        assert model.houses.tolist().count(BURNING) == fires
        assert model.houses.tolist().count(SAFE) == n - fires
        assert model.initial_houses == tuple(model.houses.tolist())


def test_initial_ignition_houses_chosen_uniformly():
    """Over M seeds with 3 fires among 10 houses, each house burns at the start with
    probability 3/10; M = 5000 gives a band of 4*sqrt(0.21/5000) = 0.026."""
    m, n, fires = 5000, 10, 3
    counts = [0] * n
    for seed in range(m):
        model = BucketBrigadeModel(num_houses=n, rho_ignite=0.3, collect_data=False, rng=seed)
        for h, state in enumerate(model.houses):
            counts[h] += state == BURNING
    assert sum(counts) == m * fires
    for h in range(n):
        assert_rate(counts[h], m, fires / n, f"P(house {h} initially burning)")


def test_agents_start_at_their_first_owned_house():
    model = BucketBrigadeModel(num_agents=6, num_houses=10, collect_data=False, rng=0)
    assert [agent.house for agent in model.seats] == [0, 1, 2, 3, 4, 5]
    assert [agent.owned for agent in model.seats] == [(0, 6), (1, 7), (2, 8), (3, 9), (4,), (5,)]


# --- Phase 9: termination ------------------------------------------------------------------

@pytest.mark.parametrize("rules, offset", [("spec", 0), ("reference", 1)])
@pytest.mark.parametrize("n_min", [0, 1, 3, 7])
def test_no_end_before_the_minimum_night(rules, offset, n_min):
    """Nothing ever burns: the game ends exactly after night N_min ("spec") or N_min+1
    ("reference"); a game always plays at least one night."""
    model = quiet_model(N_min=n_min, N_spark=0, rules=rules)
    last = max(1, n_min + offset)
    for night in range(1, last + 1):
        assert model.running
        model.step()
        assert model.night == night
        assert model.game_ends() == (night == last)
    assert not model.running


def test_game_continues_while_fire_burns_after_minimum():
    """N_min=2, the beta=1 fire of test_burn_out_over_whole_nights: still burning after
    night 2, so the game goes on until night 6, when every house is ruined."""
    model = quiet_model(beta=1.0, N_min=2, N_spark=0, rules="spec")
    set_houses(model, ring(10, B=[0]))
    for night in range(1, 7):
        assert model.running
        model.step()
    assert model.night == 6
    assert not model.running
    assert model.houses.tolist() == ring(10, R=range(10))
    assert model.final_rewards is not None


@pytest.mark.parametrize("rules, min_nights", [("spec", 4), ("reference", 5)])
def test_all_ruined_ends_the_game_only_after_minimum(rules, min_nights):
    model = quiet_model(N_min=4, N_spark=0, rules=rules)
    set_houses(model, ring(10, R=range(10)))
    for night in range(1, min_nights):
        model.step()
        assert model.running, f"ended on night {night} before the minimum"
    model.step()
    assert not model.running
    assert model.night == min_nights
    model.night = min_nights + 3
    assert model.game_ends()


def test_game_ends_when_fire_put_out_after_minimum():
    """always_work agents with a certain extinguish: the fire dies on night 1 but the game
    lasts until night N_min and ends right then."""
    model = quiet_model(population="always_work", kappa=1000.0, N_min=3, N_spark=0)
    set_houses(model, ring(10, B=[6]))
    model.step()
    assert model.houses.tolist() == ring(10)
    model.step()
    assert model.running
    model.step()
    assert not model.running and model.night == 3


def test_max_steps_caps_a_burning_game_and_pays_final_rewards():
    """"spec", max_steps=2: the beta=1 fire from house 0 still burns (2 and 8) after night 2,
    yet the game ends there and the end-of-game rewards are paid."""
    model = quiet_model(beta=1.0, N_min=0, N_spark=0, max_steps=2, rules="spec")
    set_houses(model, ring(10, B=[0]))
    model.step()
    assert model.running
    assert model.final_rewards is None
    model.step()
    assert not model.running
    assert model.night == 2
    assert model.houses.tolist() == ring(10, B=[2, 8], R=[0, 1, 9])
    assert model.final_rewards is not None
    nightly = [sum(night.rewards[i] for night in model.history) for i in range(4)]
    totals = [a + b for a, b in zip(nightly, model.final_rewards)]
    assert [agent.reward for agent in model.seats] == pytest.approx(totals)
    # gamma*(A*saved - L*ruined)/houses - lambda_own*(owned ruined); 5 safe, 3 ruined.
    town = (100 * 5 - 100 * 3) / 10
    owned_ruined = [1, 2, 0, 0]  # houses 0, 1, 9 are ruined: owners 0, 1, 1
    assert model.final_rewards == pytest.approx([0.1 * town - 2.0 * r for r in owned_ruined])


def test_max_steps_caps_a_reference_game_without_final_terms():
    model = quiet_model(N_min=10, max_steps=2, rules="reference")
    model.step()
    assert model.running
    model.step()
    assert not model.running
    assert model.night == 2
    assert model.final_rewards is None


def test_max_steps_caps_a_quiet_game_and_pays_final_rewards():
    model = quiet_model(N_min=10, max_steps=3)
    model.run_model()
    assert model.night == 3
    assert model.final_rewards == pytest.approx([10.0] * 4)  # gamma * A * 1, nothing ruined


def test_step_after_the_end_does_nothing():
    model = quiet_model(N_min=1)
    model.step()
    assert not model.running
    snapshot = (model.night, list(model.houses), len(model.history))
    model.step()
    assert model.phases_run == []
    assert (model.night, list(model.houses), len(model.history)) == snapshot


# --- Phase order and signals ---------------------------------------------------------------

@pytest.mark.parametrize("rules", ["spec", "reference"])
def test_both_rule_sets_declare_the_nine_phases_of_a_night(rules):
    """docs/rules/bucket_brigade.md, "Round": both rule sets run the same phases."""
    model = BucketBrigadeModel(population="random", rules=rules, rng=5)
    assert [phase.name for phase in model.phases] == ROUND_PHASES


def _script():
    """Three nights of (signal, house, mode) per seat; every agent's signal changes from
    night to night so that a signal seen too early would be visible."""
    return {
        1: [(WORK, 0, WORK), (WORK, 1, REST), (REST, 2, WORK), (REST, 3, REST)],
        2: [(REST, 0, REST), (REST, 1, REST), (WORK, 2, WORK), (WORK, 3, WORK)],
        3: [(WORK, 0, REST), (WORK, 1, REST), (REST, 2, WORK), (REST, 3, WORK)],
    }


def test_signals_are_chosen_before_actions_and_simultaneously(scripted):
    script = _script()
    model = scripted(script)
    for night in (1, 2, 3):
        model.probe_log.clear()
        model.step()
        tonight = tuple(s for s, _, _ in script[night])
        last = (None,) * 4 if night == 1 else tuple(s for s, _, _ in script[night - 1])
        signal_calls = [e for e in model.probe_log if e["phase"] == "signal"]
        act_calls = [e for e in model.probe_log if e["phase"] == "act"]
        assert [e["seat"] for e in signal_calls] == [0, 1, 2, 3]
        assert [e["seat"] for e in act_calls] == [0, 1, 2, 3]
        # Every signal is chosen before any action.
        assert model.probe_log.index(act_calls[0]) == 4
        for e in signal_calls:
            assert e["night"] == night
            assert e["observed_signals"] is None
            # Nobody's signal of tonight is visible while signalling, not even earlier seats'.
            assert e["agent_signals"] == last
        for e in act_calls:
            assert e["observed_signals"] == tonight
            assert e["agent_signals"] == tonight
        assert model.history[-1].signals == tonight
        assert model.signals_work == tonight.count(WORK)


def test_observation_of_night_one_and_later():
    model = BucketBrigadeModel(population="random", rng=3, N_min=5)
    obs = model.upcoming_observation()
    assert obs.night == 1
    assert obs.last_actions is None and obs.last_signals is None and obs.signals is None
    assert obs.locations == model.initial_locations
    assert obs.houses == tuple(model.houses.tolist())


def test_lie_recorded_exactly_when_mode_differs_from_signal(scripted):
    script = _script()
    model = scripted(script)
    expected_lied = {1: [False, True, True, False], 2: [False] * 4, 3: [True] * 4}
    cumulative = 0
    for night in (1, 2, 3):
        model.step()
        lied = expected_lied[night]
        assert [agent.lied for agent in model.seats] == lied
        assert [agent.signal for agent in model.seats] == [s for s, _, _ in script[night]]
        assert [agent.mode for agent in model.seats] == [m for _, _, m in script[night]]
        assert [agent.house for agent in model.seats] == [h for _, h, _ in script[night]]
        cumulative += sum(lied)
        assert model.lies == sum(lied)
        assert model.lie_rate == sum(lied) / 4
        assert model.cumulative_lies == cumulative
