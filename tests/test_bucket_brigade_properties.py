"""Bucket Brigade: properties of whole episodes over random parameters, populations and seeds.

The rules are docs/rules/bucket_brigade.md ("World", "Round", "Termination"). Every test
plays full episodes drawn by hypothesis and checks an invariant on every night.
"""

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from support import population_string

from dilemmas.agents.bucket_brigade import BEHAVIOURS
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.rules import BURNING, RUINED, RULE_SETS, SAFE, WORK

NAMES = sorted(set(BEHAVIOURS) - {"policy"})  # policy seats need a policy: test_env.py
PROBABILITY = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def configs(draw, collect_data=False):
    num_agents = draw(st.integers(4, 10))
    num_houses = draw(st.one_of(st.integers(num_agents, 20), st.integers(3, 20)))
    seats = draw(st.lists(st.sampled_from(NAMES), min_size=num_agents, max_size=num_agents))
    return dict(
        num_agents=num_agents,
        num_houses=num_houses,
        population=population_string(seats, draw(st.integers(0, 1))),
        rules=draw(st.sampled_from(RULE_SETS)),
        beta=draw(PROBABILITY),
        kappa=draw(st.floats(0.0, 5.0, allow_nan=False)),
        rho_ignite=draw(PROBABILITY),
        p_spark=draw(PROBABILITY),
        N_min=draw(st.integers(0, 8)),
        N_spark=draw(st.integers(0, 8)),
        max_steps=200,
        collect_data=collect_data,
        rng=draw(st.integers(0, 2**32 - 1)),
    ), seats


def play(params):
    """Plays an episode to its end; returns the model and, per night, a snapshot of the model
    attributes taken right after that night's step()."""
    model = BucketBrigadeModel(**params)
    nights = []
    while model.running:
        model.step()
        nights.append(dict(
            night=model.night,
            houses=tuple(model.houses),
            counts=(model.burning, model.safe, model.ruined),
            lies=model.lies,
            lie_rate=model.lie_rate,
            cumulative_lies=model.cumulative_lies,
            lied=tuple(agent.lied for agent in model.seats),
            signals=tuple(agent.signal for agent in model.seats),
            modes=tuple(agent.mode for agent in model.seats),
        ))
        assert model.night <= params["max_steps"]
    return model, nights


@settings(max_examples=200, deadline=None)
@given(configs())
def test_population_string_fills_the_seats_in_order(config):
    params, seats = config
    model = BucketBrigadeModel(**params)
    assert [agent.behaviour for agent in model.seats] == seats
    assert len(model.houses) == params["num_houses"]


@settings(max_examples=200, deadline=None)
@given(configs())
def test_house_counts_always_sum_to_num_houses(config):
    params, _ = config
    model = BucketBrigadeModel(**params)
    n = params["num_houses"]
    assert model.burning + model.safe + model.ruined == n
    model, nights = play(params)
    for snap in nights:
        houses = snap["houses"]
        assert len(houses) == n
        assert set(houses) <= {SAFE, BURNING, RUINED}
        burning, safe, ruined = snap["counts"]
        assert burning + safe + ruined == n
        assert (burning, safe, ruined) == (houses.count(BURNING), houses.count(SAFE),
                                           houses.count(RUINED))
    assert [night.houses for night in model.history] == [snap["houses"] for snap in nights]


@settings(max_examples=200, deadline=None)
@given(configs())
def test_a_ruined_house_never_changes(config):
    params, _ = config
    model, nights = play(params)
    states = [model.initial_houses] + [snap["houses"] for snap in nights]
    ruined = set()
    for t, houses in enumerate(states):
        for h in ruined:
            assert houses[h] == RUINED, f"house {h} left RUINED on night {t}"
        ruined |= {h for h, state in enumerate(houses) if state == RUINED}


@settings(max_examples=300, deadline=None)
@given(configs())
def test_game_ends_within_the_guaranteed_number_of_nights(config):
    """Why the game ends in time (max_steps = 200 is never the reason here):

    After the last spark night N_spark no house ignites except by spread, and spread needs a
    house burning after the extinguish phase, which burn-out then ruins. So every night
    t > N_spark either ends with no fire at all (and then, with no sparks, none ever again)
    or ruins at least one house while at least one house still burns. The latter can happen
    at most num_houses - 1 times (a ruined house stays ruined and one house must still burn),
    so night N_spark + num_houses ends with no fire. Under "spec" the game ends at the first
    night t >= N_min with no fire: within max(N_min, N_spark + num_houses). Under
    "reference" burn-out ruins every burning house, so every night t > N_spark already ends
    with no fire, and the game (which plays at least N_min + 1 nights) ends within
    max(N_min + 1, N_spark + 1) <= max(N_min + 1, N_spark + num_houses).

    Also checked: the game ends exactly at the first night t >= N_min ("reference":
    N_min + 1) that leaves no house BURNING, and at no other night."""
    params, _ = config
    model, nights = play(params)
    n, n_min, n_spark = params["num_houses"], params["N_min"], params["N_spark"]
    last = model.night
    assert not model.running
    assert [snap["night"] for snap in nights] == list(range(1, last + 1))
    if params["rules"] == "spec":
        min_nights = n_min
        assert last <= max(n_min, n_spark + n)
    else:
        min_nights = n_min + 1
        assert last <= max(n_min + 1, n_spark + n)
        assert last <= max(n_min + 1, n_spark + 1)
    assert last >= max(1, min_nights)
    for snap in nights:
        ends = snap["night"] >= min_nights and BURNING not in snap["houses"]
        assert ends == (snap["night"] == last), f"night {snap['night']}"
    if params["rules"] == "spec":
        assert model.final_rewards is not None
    else:
        assert model.final_rewards is None


@settings(max_examples=200, deadline=None)
@given(configs(), st.integers(1, 6))
def test_max_steps_caps_every_game(config, max_steps):
    params, _ = config
    params = params | dict(max_steps=max_steps, N_min=params["N_min"] + max_steps)
    model, nights = play(params)
    assert model.night == len(nights) == max_steps
    assert (model.final_rewards is not None) == (params["rules"] == "spec")


@settings(max_examples=200, deadline=None)
@given(configs(collect_data=True))
def test_lies_counted_equal_mode_differing_from_signal(config):
    params, _ = config
    model, nights = play(params)
    assert len(model.history) == len(nights)
    cumulative = 0
    for night, snap in zip(model.history, nights):
        modes = tuple(mode for _, mode in night.actions)
        liars = tuple(mode != signal for mode, signal in zip(modes, night.signals))
        assert len(night.signals) == len(night.actions) == params["num_agents"]
        assert snap["signals"] == night.signals
        assert snap["modes"] == modes
        assert snap["lied"] == liars
        assert snap["lies"] == sum(liars)
        assert math.isclose(snap["lie_rate"], sum(liars) / params["num_agents"])
        cumulative += sum(liars)
        assert snap["cumulative_lies"] == cumulative
    assert model.cumulative_lies == cumulative
    frame = model.datacollector.get_model_vars_dataframe()
    # Row 0 is collected when the model is built; one row per night after it.
    assert list(frame["lies"])[1:] == [snap["lies"] for snap in nights]
    assert list(frame["cumulative_lies"])[1:] == [snap["cumulative_lies"] for snap in nights]
    assert list(frame["signals_work"])[1:] == [night.signals.count(WORK)
                                               for night in model.history]


@settings(max_examples=100, deadline=None)
@given(configs())
def test_same_seed_same_episode(config):
    params, _ = config
    first, _ = play(params)
    second, _ = play(params)
    assert first.initial_houses == second.initial_houses
    assert first.history == second.history
