"""Bucket Brigade: every behaviour's ``batch_decide`` makes the decisions its documented
rules make, with numpy arrays as with JAX arrays.

Each built-in behaviour exists only as ``batch_decide`` (the Mesa agents' ``choose_signal``
and ``choose_action`` are it, on the model's one episode). It is checked here against a
reference written in this file from the rules (the module docstring of
``dilemmas/agents/bucket_brigade.py``), one seat and one observation at a time in plain
Python (``reference_signal``, ``reference_action``: the scalar methods the behaviours had
before they were written once). Each test builds random observations (fixed seeds), hands
them to ``batch_decide`` through a fake batch (``types.SimpleNamespace``) whose ``draw``
returns prepared arrays of uniform numbers, and to the reference with a script that returns,
in the order the reference draws them, the numbers the batch used for that episode and seat
(``randrange(m)`` gives ``int(u * m)`` of its scripted ``u``). The script also checks that
the reference draws exactly the numbers the mapping documented in ``batch_decide`` says it
does. Deterministic behaviours are compared without a script.
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest

import dilemmas.agents.bucket_brigade as bb_agents
from dilemmas.agents.bucket_brigade import BEHAVIOURS, HEURISTIC_PARAMETERS, HeuristicAgent
from dilemmas.models.batch import Group
from dilemmas.models.bucket_brigade.batch import BucketBrigadeBatch
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.rules import BURNING, REST, RUINED, SAFE, WORK, Observation

BATCHED = sorted(name for name, cls in BEHAVIOURS.items() if hasattr(cls, "batch_decide"))
HEURISTICS = ("firefighter", "liar", "free_rider", "hero", "coordinator")

#: (num_houses, num_agents, kappa) of the observations; small rings give many ties.
CONFIGS = ((3, 4, 0.5), (3, 7, 0.3), (4, 10, 0.6), (5, 4, 0.9), (5, 9, 0.0), (6, 5, 0.4),
           (10, 4, 0.5), (10, 8, 0.25), (17, 10, 0.3), (31, 6, 0.95))
EPISODES = 32  # per config: 320 observations per behaviour


def test_every_batched_behaviour_is_covered():
    assert set(BATCHED) == {"random", "always_work", "always_rest", *HEURISTICS}


# --- the reference: each behaviour's rules, one seat and one observation at a time ----------
def ring_distance(a, b, n):
    d = abs(a - b) % n
    return min(d, n - d)


def nearest_fire(houses, location):
    """The BURNING house nearest to ``location`` along the ring, ties to the lower index."""
    fires = [h for h, state in enumerate(houses) if state == BURNING]
    return min(fires, key=lambda h: (ring_distance(location, h, len(houses)), h)) \
        if fires else None


class Reference:
    """One seat's decisions by the rules: ``signal(obs)`` and ``action(obs)`` from an
    ``Observation``, drawing from ``random`` (``random()``, ``randrange``)."""

    def __init__(self, cls, model, seat, random):
        self.behaviour, self.params, self.random = cls.behaviour, getattr(cls, "params", {}), random
        self.seat, self.n, self.kappa = seat, model.num_houses, model.kappa
        self.owned = tuple(range(seat, model.num_houses, model.num_agents))
        self.intent = REST

    def signal(self, obs):
        if self.behaviour == "random":
            return WORK if self.random.random() < 0.5 else REST
        if self.behaviour == "always_work":
            return WORK if BURNING in obs.houses else REST
        if self.behaviour == "always_rest":
            return REST
        p, draw = self.params, self.random.random
        if BURNING not in obs.houses:
            self.intent = REST
        else:
            w = p["work_tendency"]
            if any(obs.houses[h] == BURNING for h in self.owned):
                w += (1 - w) * p["own_house_priority"]
            if obs.last_actions and obs.last_actions[self.seat][1] == WORK:
                w *= 1 - p["fatigue"]
            self.intent = WORK if draw() < w else REST
        if draw() < p["honesty"]:
            return self.intent
        return REST if self.intent == WORK else WORK

    def action(self, obs):
        here = obs.locations[self.seat]
        if self.behaviour == "random":
            house = int(self.random.random() * self.n)
            return house, WORK if self.random.random() < 0.5 else REST
        if self.behaviour == "always_work":
            target = nearest_fire(obs.houses, here)
            return (here, REST) if target is None else (target, WORK)
        if self.behaviour == "always_rest":
            return here, REST
        p, draw = self.params, self.random.random
        fires = [h for h, state in enumerate(obs.houses) if state == BURNING]
        if not fires:
            return here, REST
        helpers = dict.fromkeys(fires, 0)
        for seat, signal in enumerate(obs.signals):
            if seat != self.seat and signal == WORK:
                helpers[nearest_fire(obs.houses, obs.locations[seat])] += 1
        if draw() < p["exploration"]:
            target = fires[self.random.randrange(len(fires))]
        else:
            target = max(fires, key=lambda h: (self.score(h, here, helpers[h]), -h))
        cover = 1 - math.exp(-self.kappa * helpers[target])
        mode = self.intent
        if mode == WORK and draw() < p["rest_bias"] * cover:
            mode = REST
        elif mode == REST and draw() < p["altruism"] * (1 - cover):
            mode = WORK
        return (target, WORK) if mode == WORK else (here, REST)

    def score(self, house, here, helpers):
        p, n = self.params, self.n
        own = house in self.owned
        next_to_own = not own and any(ring_distance(house, h, n) == 1 for h in self.owned)
        return (p["own_house_priority"] * own + p["neighbor_help"] * next_to_own
                + p["altruism"] * (not own)
                + p["coordination"] * math.exp(-self.kappa * helpers)
                - p["risk_aversion"] * ring_distance(here, house, n) / (n // 2))


class ScriptedRandom:
    """``model.random`` for one Mesa decision: ``random()`` returns ``randoms`` in order,
    ``randrange(m)`` returns ``int(u * m)`` for the next of ``ranges``."""

    def __init__(self, randoms=(), ranges=()):
        self.randoms, self.ranges = list(randoms), list(ranges)
        self.drawn = self.ranged = 0

    def random(self):
        assert self.drawn < len(self.randoms), "the Mesa code drew more numbers than mapped"
        self.drawn += 1
        return float(self.randoms[self.drawn - 1])

    def randrange(self, m):
        assert self.ranged < len(self.ranges), "the Mesa code drew more ranges than mapped"
        self.ranged += 1
        return int(float(self.ranges[self.ranged - 1]) * m)


class ScriptedGenerator:
    """``batch.rng``: ``random(shape)`` returns the next prepared array, of that shape."""

    def __init__(self, *arrays):
        self.arrays = list(arrays)

    def random(self, shape):
        assert self.arrays, "batch_decide drew more arrays than prepared"
        out = self.arrays.pop(0)
        assert out.shape == tuple(np.atleast_1d(shape)), (out.shape, shape)
        return out


def uniforms(rng, shape, thresholds=()):
    """Uniform numbers in [0, 1), about one in eight replaced by one of ``thresholds`` (the
    parameters the numbers are compared with), so the boundaries of ``<`` are exercised."""
    u = rng.random(shape)
    values = [t for t in thresholds if 0 <= t < 1]
    if values:
        swap = rng.random(shape) < 0.125
        u[swap] = rng.choice(values, size=int(swap.sum()))
    return u


def observations(rng, n, k, episodes):
    """Random observations of ``episodes`` episodes: houses, locations, last night's work
    (all False on a first night), tonight's signals. About one episode in five has no fire,
    and a few have every house burning."""
    houses = np.zeros((episodes, n), dtype=np.int8)
    for e in range(episodes):
        p = rng.dirichlet(np.ones(3))
        houses[e] = rng.choice([SAFE, BURNING, RUINED], size=n, p=p)
    calm = rng.random(episodes) < 0.2
    houses[calm] = np.where(houses[calm] == BURNING, SAFE, houses[calm])
    blaze = ~calm & (rng.random(episodes) < 0.05)
    houses[blaze] = BURNING
    first = rng.random(episodes) < 0.25
    last_work = (rng.random((episodes, k)) < rng.random((episodes, 1))) & ~first[:, None]
    locations = rng.integers(0, n, size=(episodes, k))
    signals = rng.random((episodes, k)) < rng.random((episodes, 1))
    return SimpleNamespace(houses=houses, locations=locations, last_work=last_work,
                           signals=signals, first=first)


def mesa_observation(obs, e, tonight):
    """The Mesa ``Observation`` of episode ``e`` (with tonight's signals if ``tonight``)."""
    word = {True: WORK, False: REST}
    locations = tuple(int(x) for x in obs.locations[e])
    last_actions = None if obs.first[e] else tuple(
        (loc, word[bool(w)]) for loc, w in zip(locations, obs.last_work[e]))
    return Observation(
        night=1 if obs.first[e] else 5, houses=tuple(int(x) for x in obs.houses[e]),
        locations=locations, last_actions=last_actions,
        last_signals=None if obs.first[e] else tuple(REST for _ in locations),
        signals=tuple(word[bool(s)] for s in obs.signals[e]) if tonight else None)


def fake_batch(model, obs, *arrays, xp=np):
    rng = ScriptedGenerator(*arrays)
    return SimpleNamespace(houses=xp.asarray(obs.houses), locations=xp.asarray(obs.locations),
                           last_work=xp.asarray(obs.last_work), signals=xp.asarray(obs.signals),
                           model=model, size=len(obs.houses), t=1, xp=xp, rng=rng,
                           draw=lambda shape: xp.asarray(rng.random(shape)))


# --- the scripts: which prepared number the Mesa code draws when (the documented mapping) --
def heuristic_signal_script(agent, u, fire):
    return ScriptedRandom([u[0], u[1]] if fire else [u[1]])


def heuristic_act_script(agent, u, fire):
    return ScriptedRandom([u[0], u[2]] if fire else [], [u[1]])


def heuristic_check(agent, script, u, fire, phase):
    assert script.drawn == len(script.randoms)
    if phase == "act":
        assert script.ranged == (1 if fire and u[0] < agent.params["exploration"] else 0)


def random_signal_script(agent, u, fire):
    return ScriptedRandom([u])


def random_act_script(agent, u, fire):
    return ScriptedRandom([u[0], u[1]])


def random_check(agent, script, u, fire, phase):
    assert script.drawn == len(script.randoms) and script.ranged == 0


def thresholds(cls):
    if issubclass(cls, HeuristicAgent):
        return tuple(cls.params.values()) + (0.5,)
    return (0.5,)


def shapes(cls, e, k):
    """The arrays ``batch_decide`` draws in the signal and the act phase."""
    if issubclass(cls, HeuristicAgent):
        return (e, k, 2), (e, k, 3)
    if cls.behaviour == "random":
        return (e, k), (e, k, 2)
    return None, None  # deterministic


def scripts(cls):
    if issubclass(cls, HeuristicAgent):
        return heuristic_signal_script, heuristic_act_script, heuristic_check
    return random_signal_script, random_act_script, random_check


def compare(model, groups, obs, rng, flip_intent=False):
    """Play one night's two decisions for the episodes of ``obs``: every group's
    ``batch_decide`` on the fake batch, every seat's ``Reference`` episode by episode; assert
    they agree. ``flip_intent``: between the phases, negate every heuristic group's intent
    in ``group.memory`` and every reference's ``intent`` alike."""
    E = len(obs.houses)
    fire = (obs.houses == BURNING).any(axis=1)
    drawn = {}
    for group in groups:
        signal_shape, act_shape = shapes(group.behaviour, E, len(group.seats))
        marks = thresholds(group.behaviour)
        drawn[id(group)] = (None if signal_shape is None else uniforms(rng, signal_shape, marks),
                            None if act_shape is None else uniforms(rng, act_shape, marks))

    signals = np.empty(obs.signals.shape, dtype=bool)
    acts, working = np.empty(obs.locations.shape, dtype=np.int64), np.empty(obs.signals.shape, bool)
    for group in groups:
        u_signal, u_act = drawn[id(group)]
        batch = fake_batch(model, obs, *[u for u in (u_signal, u_act) if u is not None])
        chosen = group.behaviour.batch_decide(batch, group, "signal")
        assert chosen.shape == (E, len(group.seats)) and chosen.dtype == bool
        signals[:, group.seats] = chosen
        if issubclass(group.behaviour, HeuristicAgent):
            assert group.memory["intent"].shape == (E, len(group.seats))
            if flip_intent:
                group.memory["intent"] = ~group.memory["intent"]
        houses, works = group.behaviour.batch_decide(batch, group, "act")
        assert houses.shape == works.shape == (E, len(group.seats))
        assert np.issubdtype(houses.dtype, np.integer) and works.dtype == bool
        assert not batch.rng.arrays, "batch_decide drew fewer arrays than prepared"
        acts[:, group.seats], working[:, group.seats] = houses, works

    for e in range(E):
        for group in groups:
            u_signal, u_act = drawn[id(group)]
            signal_script, act_script, check = scripts(group.behaviour)
            for j, seat in enumerate(group.seats):
                deterministic = u_signal is None
                script = None if deterministic else signal_script(None, u_signal[e, j], fire[e])
                agent = Reference(group.behaviour, model, int(seat), script)
                where = f"{group.behaviour.behaviour} seat {seat}, episode {e}"

                signal = agent.signal(mesa_observation(obs, e, tonight=False))
                if not deterministic:
                    check(agent, script, u_signal[e, j], fire[e], "signal")
                assert signal == (WORK if signals[e, seat] else REST), where
                if issubclass(group.behaviour, HeuristicAgent):
                    intent = group.memory["intent"][e, j] != flip_intent
                    assert agent.intent == (WORK if intent else REST), where
                    if flip_intent:
                        agent.intent = REST if agent.intent == WORK else WORK

                if not deterministic:
                    agent.random = script = act_script(None, u_act[e, j], fire[e])
                action = agent.action(mesa_observation(obs, e, tonight=True))
                if not deterministic:
                    check(agent, script, u_act[e, j], fire[e], "act")
                assert action == (int(acts[e, seat]), WORK if working[e, seat] else REST), where
    return acts, working


def model_for(population, n, k, kappa):
    return BucketBrigadeModel(population=population, num_houses=n, num_agents=k, kappa=kappa,
                              collect_data=False, rng=0)


def groups_of(model):
    """The groups of seats the batch engine makes (``dilemmas.models.batch.BatchEngine``)."""
    kinds = [type(agent) for agent in model.seats]
    return [Group(cls, np.array([i for i, kind in enumerate(kinds) if kind is cls]), {})
            for cls in dict.fromkeys(kinds)]


@pytest.mark.parametrize("name", BATCHED)
def test_jax_decisions_equal_numpy_decisions(name):
    """The same ``batch_decide`` traced by JAX (as the batch engine runs it) decides as with
    numpy on the same observations and numbers (JAX computes in float32: the prepared
    numbers are float32 values, so both compare the same numbers)."""
    import jax.numpy as jnp

    rng = np.random.default_rng([7, BATCHED.index(name)])
    for n, k, kappa in CONFIGS:
        model = model_for(name, n, k, kappa)
        obs = observations(rng, n, k, EPISODES)
        signal_shape, act_shape = shapes(model.seats[0].__class__, EPISODES, k)
        drawn = [rng.random(shape).astype(np.float32).astype(float)
                 for shape in (signal_shape, act_shape) if shape is not None]
        (group,) = groups_of(model)
        decided = {}
        for xp in (np, jnp):
            batch = fake_batch(model, obs, *drawn, xp=xp)
            group.memory = {}
            decided[xp] = [np.asarray(a) for phase in ("signal", "act")
                           for a in np.atleast_1d(group.behaviour.batch_decide(batch, group,
                                                                               phase))]
        for a, b in zip(decided[np], decided[jnp]):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("name", BATCHED)
def test_batch_decisions_equal_the_reference_decisions(name):
    rng = np.random.default_rng([2024, BATCHED.index(name)])
    for n, k, kappa in CONFIGS:
        model = model_for(name, n, k, kappa)
        compare(model, groups_of(model), observations(rng, n, k, EPISODES), rng)


def test_mixed_population_groups():
    """Seats of several behaviours (each group a subset of the seats, so owned houses and
    helpers depend on the seat numbers)."""
    rng = np.random.default_rng(7)
    populations = {
        4: "firefighter:2,free_rider:2",
        6: "liar:2,hero,coordinator,random,always_work",
        9: "coordinator:2,free_rider:3,always_rest,hero:2,firefighter",
        10: "hero:3,liar:3,firefighter:2,coordinator,free_rider",
    }
    for n in (3, 5, 8, 12):
        for k, population in populations.items():
            model = model_for(population, n, k, 0.5)
            compare(model, groups_of(model), observations(rng, n, k, EPISODES), rng)


@pytest.mark.parametrize("name", HEURISTICS)
def test_intent_carries_through_group_memory(name):
    """The act phase reads the intent the signal phase left in ``group.memory``: negating
    it there (and in the reference) still gives the reference's decisions, which differ
    from those of the intent as chosen."""
    n, k, kappa = 6, 5, 0.4
    model = model_for(name, n, k, kappa)
    obs = observations(np.random.default_rng(11), n, k, 200)
    kept = compare(model, groups_of(model), obs, np.random.default_rng(12))
    flipped = compare(model, groups_of(model), obs, np.random.default_rng(12),
                      flip_intent=True)
    assert not np.array_equal(kept[1], flipped[1])


@pytest.mark.parametrize("seed", range(4))
def test_random_heuristic_parameters(monkeypatch, seed):
    """Heuristics with random parameters (and some coinciding terms, so scores tie)."""
    rng = np.random.default_rng([99, seed])
    params = dict(zip(HEURISTIC_PARAMETERS, rng.choice([0.0, 0.25, 0.5, 1.0, rng.random()],
                                                       size=len(HEURISTIC_PARAMETERS))))
    params = {name: float(value) for name, value in params.items()}
    cls = type("ProbeHeuristicAgent", (HeuristicAgent,),
               {"behaviour": "probe_heuristic", "params": params})
    monkeypatch.setitem(bb_agents.BEHAVIOURS, "probe_heuristic", cls)
    for n, k, kappa in CONFIGS[::2]:
        model = model_for("probe_heuristic", n, k, kappa)
        compare(model, groups_of(model), observations(rng, n, k, EPISODES), rng)


def test_batch_engine_runs_end_to_end():
    engine = BucketBrigadeBatch(200, np.random.default_rng(0),
                                population="firefighter:2,free_rider:2")
    rows = engine.run()
    bounds = rows.bounds(rows.episode)
    assert bounds[0] == 0 and bounds[-1] == len(rows.episode)
    model = engine.model
    for e in range(rows.episodes):
        start, end = bounds[e], bounds[e + 1]
        steps = rows.step[start:end]
        assert end - start >= 2
        assert np.array_equal(steps, np.arange(end - start))
        assert np.array_equal(rows.model["night"][start:end], steps)
        last = end - 1
        assert rows.model["burning"][last] == 0 or steps[-1] == model.max_steps
        assert steps[-1] >= min(model.N_min, model.max_steps)
    assert not math.isnan(float(np.nanmean(rows.model["cooperation_rate"])))
