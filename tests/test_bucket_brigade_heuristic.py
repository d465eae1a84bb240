"""Bucket Brigade: the heuristic behaviour (``HeuristicAgent``), one documented rule at a time.

The rules are those of the module docstring of ``dilemmas/agents/bucket_brigade.py``. Each test runs
a test-local subclass of ``HeuristicAgent`` (registered in ``BEHAVIOURS`` with
``monkeypatch``) whose ten parameters are all neutral (0, honesty 1) except the ones under
test, hand-builds the public observation (the model's state: ``houses``, ``locations``,
``signalled``, ``last_work``; and ``model.observation`` alike) and lets the agent decide:
by ``choose_signal`` / ``choose_action`` for a single decision, and, for many, by its one
``batch_decide`` on that many copies of the model's episode at once (``decided``).

Statistical checks. A probability ``p`` estimated from ``N`` independent Bernoulli trials
(fresh numbers for each, from a generator with a fixed seed) has binomial standard error
``sqrt(p*(1-p)/N)``; every check allows ``|p_hat - p| <= 4 * sqrt(p*(1-p)/N)`` (a two-sided
4-sigma band, about 6e-5 chance of a false alarm per check for a correct agent). With
``N = 20000`` the band is at most ``4 * 0.5 / sqrt(20000) ~= 0.014`` wide. Seeds are fixed,
so every outcome is deterministic. When ``p`` is exactly 0 or 1 the band is 0 and the check
is exact; deterministic choices (targets under exploration 0) are checked exactly.
"""

import math
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

import dilemmas.agents.bucket_brigade as bb_agents
from dilemmas.agents.bucket_brigade import HEURISTIC_PARAMETERS, HeuristicAgent
from dilemmas.models.batch import Group
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.rules import BURNING, REST, RUINED, SAFE, WORK

N = 20_000
SIGMAS = 4
SEED = 20240611
REPEATS = 200  # trials of a choice that must come out the same every time

#: Every parameter neutral: no term of the score, no flip, no exploration, honest.
NEUTRAL = {**dict.fromkeys(HEURISTIC_PARAMETERS, 0.0), "honesty": 1.0}


def probe(monkeypatch, *, seat=0, num_houses=10, num_agents=4, kappa=None, rng=SEED,
          **params):
    """The agent in ``seat`` of a model whose every seat runs a heuristic with the NEUTRAL
    parameters overridden by ``params``; the first night is observed."""
    unknown = set(params) - set(HEURISTIC_PARAMETERS)
    assert not unknown, unknown
    cls = type("ProbeHeuristicAgent", (HeuristicAgent,),
               {"behaviour": "probe_heuristic", "params": {**NEUTRAL, **params}})
    monkeypatch.setitem(bb_agents.BEHAVIOURS, "probe_heuristic", cls)
    model = BucketBrigadeModel(population="probe_heuristic", num_houses=num_houses,
                               num_agents=num_agents, kappa=kappa, rng=rng,
                               collect_data=False)
    model.observe()
    agent = model.seats[seat]
    assert type(agent) is cls
    return agent


def tonight(agent, *, fires, ruined=(), at=None, own_signal=REST, others=None,
            last_actions=None, intent=None):
    """Hand-build the observation: BURNING ``fires`` (RUINED ``ruined``, else SAFE), the
    agent standing at ``at``, its own signal ``own_signal``, and ``others`` = {seat:
    (location, signal)} (unlisted seats REST at house ``seat mod num_houses``)."""
    model = agent.model
    n, m = model.num_houses, model.num_agents
    houses = tuple(BURNING if h in fires else RUINED if h in ruined else SAFE
                   for h in range(n))
    at = agent.house if at is None else at
    others = others or {}
    locations, signals = [], []
    for seat in range(m):
        if seat == agent.seat:
            location, signal = at, own_signal
        else:
            location, signal = others.get(seat, (seat % n, REST))
        locations.append(location)
        signals.append(signal)
    model.observation = model.observation._replace(
        houses=houses, locations=tuple(locations), last_actions=last_actions,
        signals=tuple(signals))
    model.houses = houses
    model.locations = np.array([locations])
    model.signalled = np.array([[signal == WORK for signal in signals]])
    if last_actions is not None:
        model.last_work = np.array([[mode == WORK for _, mode in last_actions]])
    if intent is not None:
        agent.intent = intent


def assert_share(hits, p, trials=N):
    p_hat = hits / trials
    band = SIGMAS * math.sqrt(p * (1 - p) / trials)
    assert abs(p_hat - p) <= band + 1e-12, f"p_hat={p_hat:.4f}, p={p:.4f}, band={band:.4f}"


def decided(agent, phase, trials):
    """``trials`` independent decisions of ``agent``'s seat in ``phase`` on its model's state
    as it stands: its behaviour's ``batch_decide`` (the one form of a built-in behaviour) on
    ``trials`` copies of the model's one episode at once, each drawing its own numbers, with
    the agent's intent as it stands (kept as after one signal)."""
    model = agent.model
    rng = np.random.default_rng([SEED, agent.seat])
    batch = SimpleNamespace(
        houses=np.repeat(model.state, trials, axis=0),
        locations=np.repeat(model.locations, trials, axis=0),
        last_work=np.repeat(model.last_work, trials, axis=0),
        signals=np.repeat(model.signalled, trials, axis=0), t=model.night + 1, model=model,
        xp=np, size=trials, draw=rng.random)
    group = Group(type(agent), np.array([agent.seat]),
                  {"intent": np.full((trials, 1), agent.intent == WORK)})
    chosen = type(agent).batch_decide(batch, group, phase)
    return chosen, group.memory["intent"][:, 0]


def signal_share(agent, signal=WORK, trials=N):
    """Number of ``trials`` signals that are ``signal``; with honesty 1 each signal must
    equal the intent it chose."""
    chosen, intent = decided(agent, "signal", trials)
    if agent.params["honesty"] == 1:
        assert (chosen[:, 0] == intent).all()
    return int((chosen[:, 0] == (signal == WORK)).sum())


def actions(agent, trials=REPEATS):
    """The actions of ``trials`` decisions, with the intent held fixed (as after one
    signal)."""
    (houses, working), _ = decided(agent, "act", trials)
    return Counter(zip(houses[:, 0].tolist(), [WORK if w else REST for w in working[:, 0]]))


def only_action(agent):
    """The one action chosen in every one of REPEATS trials."""
    result = actions(agent)
    assert len(result) == 1, result
    return next(iter(result))


def last_night(m, worked):
    """``last_actions`` with the seats in ``worked`` WORKing (at house 0), others RESTing."""
    return tuple((0, WORK if seat in worked else REST) for seat in range(m))


# --- Signal 1: intent ----------------------------------------------------------------

@pytest.mark.parametrize("w", [0.25, 0.8])
@pytest.mark.parametrize("inactive", [{}, {"own_house_priority": 0.9, "fatigue": 0.9}],
                         ids=["others-zero", "others-set-but-not-triggered"])
def test_intent_is_work_with_probability_work_tendency(monkeypatch, w, inactive):
    # Seat 0 owns 0, 4, 8; the fire at 1 is not its own, and it RESTed last night while
    # everyone else WORKed, so neither the own-house push nor fatigue applies.
    agent = probe(monkeypatch, work_tendency=w, **inactive)
    tonight(agent, fires=(1,), last_actions=last_night(4, worked={1, 2, 3}))
    assert_share(signal_share(agent), w)


@pytest.mark.parametrize("fires, pushed", [
    ((4,), True), ((8,), True), ((0,), True),
    ((0, 4, 8), True),          # pushed once, however many own houses burn
    ((1, 4), True),
    ((1,), False), ((1, 5, 9), False),  # seat 1's houses only
])
def test_intent_own_house_push(monkeypatch, fires, pushed):
    w, ohp = 0.3, 0.5
    agent = probe(monkeypatch, work_tendency=w, own_house_priority=ohp)
    tonight(agent, fires=fires)
    p = w + (1 - w) * ohp if pushed else w   # 0.65 or 0.3
    assert_share(signal_share(agent), p)


@pytest.mark.parametrize("worked, own_fire, p", [
    ({2}, False, 0.6 * (1 - 0.5)),           # it worked: w * (1 - fatigue)
    ({2, 0}, False, 0.6 * (1 - 0.5)),
    ({0, 1, 3}, False, 0.6),                 # others worked, it rested: no fatigue
    (None, False, 0.6),                      # first night: no last actions
    ({2}, True, (0.6 + 0.4 * 0.5) * 0.5),    # push, then fatigue: 0.4 (the reverse: 0.65)
])
def test_intent_fatigue_after_working_last_night(monkeypatch, worked, own_fire, p):
    # Seat 2 (owns 2 and 6), so last_actions must be read at the agent's own seat.
    agent = probe(monkeypatch, seat=2, work_tendency=0.6, fatigue=0.5,
                  own_house_priority=0.5 if own_fire else 0.0)
    last = None if worked is None else last_night(4, worked)
    tonight(agent, fires=(6,) if own_fire else (1,), last_actions=last)
    assert_share(signal_share(agent), p)


@pytest.mark.parametrize("honesty, signal", [(1.0, REST), (0.0, WORK)])
@pytest.mark.parametrize("ruined", [(), (0, 4, 8)])
def test_no_fire_intent_is_rest(monkeypatch, honesty, signal, ruined):
    # Even with work_tendency 1 and own houses RUINED (not BURNING): intent REST; the
    # action is to rest where it stands.
    agent = probe(monkeypatch, honesty=honesty, work_tendency=1.0, own_house_priority=1.0)
    for _ in range(REPEATS // 20):
        tonight(agent, fires=(), ruined=ruined, at=3, intent=WORK)
        assert agent.choose_signal() == signal
        assert agent.intent == REST
    tonight(agent, fires=(), ruined=ruined, at=3, intent=WORK)
    assert only_action(agent) == (3, REST)


# --- Signal 2: honesty ---------------------------------------------------------------

@pytest.mark.parametrize("honesty", [0.0, 0.3, 0.85, 1.0])
@pytest.mark.parametrize("fires, w", [((1,), 0.5), ((1,), 1.0), ((), 0.5)],
                         ids=["mixed-intent", "intent-work", "intent-rest"])
def test_signal_equals_intent_with_probability_honesty(monkeypatch, honesty, fires, w):
    agent = probe(monkeypatch, honesty=honesty, work_tendency=w)
    tonight(agent, fires=fires)
    signals, intents = decided(agent, "signal", N)
    assert_share(int((signals[:, 0] == intents).sum()), honesty)


# --- Action 2: helpers ---------------------------------------------------------------

def test_helpers_exclude_the_agent_itself(monkeypatch):
    # Alone in signalling WORK, from fire 2. Counting itself would make cover > 0 (and,
    # under coordination, send it to fire 7).
    agent = probe(monkeypatch, coordination=1.0, rest_bias=1.0)
    tonight(agent, fires=(2, 7), at=2, own_signal=WORK, intent=WORK)
    assert only_action(agent) == (2, WORK)
    # One fire: the free-rider flip (rest_bias 1) has cover exactly 0, so it never rests.
    tonight(agent, fires=(2,), at=2, own_signal=WORK, intent=WORK)
    assert only_action(agent) == (2, WORK)


def test_helpers_count_only_work_signallers(monkeypatch):
    # Two REST signallers stand at fire 2, one WORK signaller at fire 7: helpers 0 and 1.
    agent = probe(monkeypatch, coordination=1.0, rest_bias=1.0)
    tonight(agent, fires=(2, 7), at=5, intent=WORK,
            others={1: (2, REST), 2: (2, REST), 3: (7, WORK)})
    assert only_action(agent) == (2, WORK)
    # REST signallers give no cover at a lone fire.
    tonight(agent, fires=(2,), at=5, intent=WORK,
            others={1: (2, REST), 2: (2, REST), 3: (2, REST)})
    assert only_action(agent) == (2, WORK)


def test_helpers_count_every_work_signaller(monkeypatch):
    # Two WORK signallers at fire 2, one at fire 7: 2 > 1 helpers, so coordination picks 7
    # (counting presence only would tie and pick 2).
    agent = probe(monkeypatch, coordination=1.0)
    tonight(agent, fires=(2, 7), at=5, intent=WORK,
            others={1: (2, WORK), 2: (2, WORK), 3: (7, WORK)})
    assert only_action(agent) == (7, WORK)


@pytest.mark.parametrize("location, nearest", [
    (1, 1),   # at the fire
    (2, 1),
    (4, 5),
    (3, 1),   # equidistant (2 and 2): the lower index
    (9, 1),   # along the ring: 9 -> 1 is 2, 9 -> 5 is 4 (not 8 and 4)
    (7, 5),
])
def test_each_helper_expected_at_the_fire_nearest_to_its_location(monkeypatch, location,
                                                                  nearest):
    # Fires 1 and 5; seat 3 signals WORK from fire 1 (an anchor helper there). Seat 1
    # signals WORK from ``location`` (of the observation; its agent object stands
    # elsewhere). If it is expected at fire 1 the helpers are (2, 0) and coordination picks
    # fire 5; if at fire 5 they are (1, 1) and the tie goes to fire 1.
    agent = probe(monkeypatch, coordination=1.0)
    agent.model.seats[1].house = 5 if nearest == 1 else 1
    tonight(agent, fires=(1, 5), at=0, intent=WORK,
            others={1: (location, WORK), 3: (1, WORK)})
    assert only_action(agent) == ((5 if nearest == 1 else 1), WORK)


def test_helpers_use_tonights_signals_not_last_nights(monkeypatch):
    # Tonight one helper at fire 7: go to 2. Last night's signals would put two at fire 2.
    agent = probe(monkeypatch, coordination=1.0)
    tonight(agent, fires=(2, 7), at=5, intent=WORK, others={1: (7, WORK)})
    model = agent.model
    model.observation = model.observation._replace(last_signals=(REST, REST, WORK, WORK))
    assert only_action(agent) == (2, WORK)


# --- Action 3: target by score -------------------------------------------------------
# Seat 0 of 10 houses owns 0, 4, 8. Exploration 0, intent WORK, rest_bias 0: it works at
# the target, so the action's house is the target.

def target(agent, fires, at, others=None):
    tonight(agent, fires=fires, at=at, intent=WORK, others=others)
    house, mode = only_action(agent)
    assert mode == WORK
    return house


@pytest.mark.parametrize("ohp, expected", [(0.5, 4), (0.0, 2)])
def test_target_own_house_priority(monkeypatch, ohp, expected):
    # Fire 2 (seat 2's, not next to an own house) and fire 4 (own).
    agent = probe(monkeypatch, own_house_priority=ohp)
    assert target(agent, fires=(2, 4), at=3) == expected


@pytest.mark.parametrize("nh, num_houses, fires, at, expected", [
    (0.5, 10, (2, 5), 3, 5),   # 5 is next to own 4
    (0.0, 10, (2, 5), 3, 2),
    (0.5, 11, (2, 10), 6, 10),  # 11 houses: 10 is next to own 0 across the ring's seam
    (0.0, 11, (2, 10), 6, 2),
])
def test_target_neighbor_help(monkeypatch, nh, num_houses, fires, at, expected):
    agent = probe(monkeypatch, num_houses=num_houses, neighbor_help=nh)
    assert {0, 4}.issubset(agent.owned) and not {1, 2, 3, 9}.intersection(agent.owned)
    assert target(agent, fires=fires, at=at) == expected


def test_target_neighbor_help_does_not_count_an_own_house(monkeypatch):
    # 5 houses, 4 agents: seat 0 owns 0 and 4, which are ring neighbours. Fire 0 is own (and
    # next to own 4): it gets no neighbour bonus, so fire 1 (next to 0, not own) wins.
    agent = probe(monkeypatch, num_houses=5, neighbor_help=1.0)
    assert agent.owned == (0, 4)
    assert target(agent, fires=(0, 1), at=2) == 1


@pytest.mark.parametrize("altruism, ohp, expected", [
    (0.5, 0.0, 6), (0.0, 0.0, 4),
    (0.5, 0.3, 6), (0.5, 0.7, 4),   # altruism against own_house_priority
])
def test_target_altruism_for_others_houses(monkeypatch, altruism, ohp, expected):
    # Fire 4 (own) and fire 6 (seat 2's, not next to an own house).
    agent = probe(monkeypatch, altruism=altruism, own_house_priority=ohp)
    assert target(agent, fires=(4, 6), at=5) == expected


@pytest.mark.parametrize("coordination, expected", [(1.0, 7), (0.0, 2)])
def test_target_coordination_prefers_fewer_expected_helpers(monkeypatch, coordination,
                                                            expected):
    agent = probe(monkeypatch, coordination=coordination)
    assert target(agent, fires=(2, 7), at=5, others={1: (2, WORK)}) == expected


@pytest.mark.parametrize("kappa, expected", [(0.5, 7), (0.05, 2)])
def test_target_coordination_term_is_exp_minus_kappa_helpers(monkeypatch, kappa, expected):
    # Fire 2 at distance 1 with one helper against fire 7 at distance 4 with none
    # (risk_aversion 0.5, n//2 = 5): coordination gains 1 - exp(-kappa), risk costs
    # 0.5*3/5 = 0.3. kappa 0.5: 0.393 > 0.3, go to 7; kappa 0.05: 0.049 < 0.3, stay at 2.
    agent = probe(monkeypatch, kappa=kappa, coordination=1.0, risk_aversion=0.5)
    assert target(agent, fires=(2, 7), at=3, others={1: (2, WORK)}) == expected


@pytest.mark.parametrize("ra, fires, at, expected", [
    (0.5, (2, 7), 7, 7), (0.0, (2, 7), 7, 2),
    (0.5, (3, 8), 0, 8),   # along the ring: 0 -> 8 is 2, 0 -> 3 is 3
])
def test_target_risk_aversion_prefers_nearer_fires(monkeypatch, ra, fires, at, expected):
    agent = probe(monkeypatch, risk_aversion=ra)
    assert target(agent, fires=fires, at=at) == expected


@pytest.mark.parametrize("altruism, expected", [(0.47, 4), (0.53, 9)])
def test_target_risk_is_normalised_by_half_the_ring_rounded_down(monkeypatch, altruism,
                                                                 expected):
    # 11 houses: n//2 = 5. Own fire 4 where it stands (score 0) against others' fire 9 at
    # distance 5: altruism - 0.5*5/5. With n/2 = 5.5 instead, altruism 0.47 would pick 9.
    agent = probe(monkeypatch, num_houses=11, risk_aversion=0.5, altruism=altruism)
    assert 4 in agent.owned and 9 not in agent.owned
    assert target(agent, fires=(4, 9), at=4) == expected


@pytest.mark.parametrize("params, fires, at", [
    ({}, (3, 6, 9), 9),                                   # all scores 0
    ({"altruism": 0.5, "risk_aversion": 0.5}, (3, 7), 5),  # equal scores, equal distance
    ({"risk_aversion": 0.5}, (1, 9), 0),                  # equidistant across the seam
    ({"coordination": 1.0}, (6, 3), 9),                   # equal helpers (0); 3 < 6
])
def test_target_ties_go_to_the_lowest_index(monkeypatch, params, fires, at):
    agent = probe(monkeypatch, **params)
    assert target(agent, fires=fires, at=at) == min(fires)


@pytest.mark.parametrize("exploration", [0.3, 1.0])
def test_target_exploration_picks_a_uniform_fire(monkeypatch, exploration):
    # Fires 1, 4, 7; by score own fire 4 (own_house_priority 1). With probability
    # ``exploration`` a fire uniformly: P(4) = 1 - e + e/3, P(1) = P(7) = e/3.
    agent = probe(monkeypatch, exploration=exploration, own_house_priority=1.0)
    tonight(agent, fires=(1, 4, 7), at=4, intent=WORK)
    chosen = actions(agent, trials=N)
    assert set(chosen) <= {(1, WORK), (4, WORK), (7, WORK)}
    e = exploration
    for house, p in ((1, e / 3), (4, 1 - e + e / 3), (7, e / 3)):
        assert_share(chosen[(house, WORK)], p)


# --- Action 4: mode ------------------------------------------------------------------

@pytest.mark.parametrize("helpers", [0, 1, 3])
@pytest.mark.parametrize("kappa", [0.5, 0.2])
def test_rest_intent_steps_in_with_altruism_times_one_minus_cover(monkeypatch, helpers,
                                                                  kappa):
    # One fire (2); ``helpers`` others signal WORK from it; intent REST.
    altruism = 0.6
    agent = probe(monkeypatch, kappa=kappa, altruism=altruism, rest_bias=1.0)
    others = {seat: (2, WORK) for seat in range(1, 1 + helpers)}
    tonight(agent, fires=(2,), at=5, intent=REST, others=others)
    chosen = actions(agent, trials=N)
    assert set(chosen) <= {(2, WORK), (5, REST)}
    assert_share(chosen[(2, WORK)], altruism * math.exp(-kappa * helpers))


@pytest.mark.parametrize("helpers, rest_bias, altruism", [
    (0, 0.8, 0.0),   # cover 0: never
    (2, 0.8, 0.0),
    (3, 0.5, 0.0),
    (1, 1.0, 1.0),   # a flip to REST is not flipped back by altruism
])
def test_work_intent_free_rides_with_rest_bias_times_cover(monkeypatch, helpers, rest_bias,
                                                          altruism):
    kappa = 0.3
    agent = probe(monkeypatch, kappa=kappa, rest_bias=rest_bias, altruism=altruism)
    others = {seat: (2, WORK) for seat in range(1, 1 + helpers)}
    tonight(agent, fires=(2,), at=5, intent=WORK, others=others)
    chosen = actions(agent, trials=N)
    assert set(chosen) <= {(2, WORK), (5, REST)}
    assert_share(chosen[(5, REST)], rest_bias * (1 - math.exp(-kappa * helpers)))


def test_cover_counts_the_helpers_at_the_target_only(monkeypatch):
    # Target own fire 4 (own_house_priority 1); three WORK signallers at fire 6. Cover at
    # the target is 0: with rest_bias 1 it never rests (total helpers would give 0.78).
    agent = probe(monkeypatch, own_house_priority=1.0, rest_bias=1.0)
    others = {seat: (6, WORK) for seat in (1, 2, 3)}
    tonight(agent, fires=(4, 6), at=5, intent=WORK, others=others)
    assert only_action(agent) == (4, WORK)
    # ... and an intent to REST steps in there with altruism * 1 (total helpers: 0.11).
    agent = probe(monkeypatch, own_house_priority=1.0, altruism=0.5)
    tonight(agent, fires=(4, 6), at=5, intent=REST, others=others)
    chosen = actions(agent, trials=N)
    assert set(chosen) <= {(4, WORK), (5, REST)}
    assert_share(chosen[(4, WORK)], 0.5)


@pytest.mark.parametrize("intent, expected", [(WORK, (7, WORK)), (REST, (3, REST))])
def test_works_at_the_target_and_rests_where_it_stands(monkeypatch, intent, expected):
    # Target fire 7 (coordination, one helper at fire 2); it stands at 3. No flips.
    agent = probe(monkeypatch, coordination=1.0)
    tonight(agent, fires=(2, 7), at=3, intent=intent, others={1: (2, WORK)})
    assert only_action(agent) == expected


def test_no_fire_rests_where_it_stands_whatever_the_intent(monkeypatch):
    agent = probe(monkeypatch, altruism=1.0, exploration=1.0)
    for intent in (WORK, REST):
        tonight(agent, fires=(), ruined=(1, 2), at=6, intent=intent,
                others={1: (2, WORK)})
        assert only_action(agent) == (6, REST)
