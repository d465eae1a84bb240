"""Hypothesis over every declared parameter of every game (docs/rules/README.md, rule 7): a
value the declaration allows plays an episode to its end within the step cap; any other
value -- out of range, of another type, huge, not finite -- raises a ``ValueError`` naming
the parameter, never another exception, a hang or a silent fallback. One parameter at a
time, the others at their defaults (``max_steps`` kept short so that each example is quick;
``max_steps`` itself is drawn up to 30 here, its bound checked among the invalid values)."""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dilemmas import GAMES
from dilemmas.models.parameters import (LIMIT, Boolean, Choice, Integer, Probability, Real, Reals, Subset,
                               _resolve)

SHORT = 5
CASES = [(name, parameter.name) for name, game in GAMES.items()
         for parameter in game.parameters
         if isinstance(parameter.kind, (Integer, Real, Probability, Boolean, Choice, Subset,
                                         Reals))]
#: Examples per parameter and direction; ``FUZZ_EXAMPLES=500`` for a long run.
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 15)), deadline=None,
                derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def parameter_of(game, name):
    return GAMES[game].parameters[name]


def length(game, kind):
    return _resolve(kind.length, GAMES[game].parameters.defaults())


def bounds(game, parameter):
    values = GAMES[game].parameters.defaults()
    if parameter.table is not None:   # None-defaults that take a scenario's value
        key, table = parameter.table
        values.update({k: v for k, v in table[values[key]].items() if values.get(k) is None})
    kind = parameter.kind
    return _resolve(kind.low, values), _resolve(kind.high, values)


def valid(game, name):
    parameter, kind = parameter_of(game, name), parameter_of(game, name).kind
    if isinstance(kind, Integer):
        low, high = bounds(game, parameter)
        if name == "max_steps":
            high = 30
        return st.integers(low if low is not None else -10 ** 6,
                           high if high is not None else 10 ** 6)
    if isinstance(kind, Real):
        return st.floats(kind.low if kind.low is not None else -1e6,
                         kind.high if kind.high is not None else 1e6, allow_nan=False)
    if isinstance(kind, Probability):
        return st.floats(0, 1)
    if isinstance(kind, Boolean):
        return st.booleans()
    if isinstance(kind, Choice):
        return st.sampled_from(sorted(kind.options))
    if isinstance(kind, Subset):
        return st.sets(st.sampled_from(kind.letters)).map("".join)
    if isinstance(kind, Reals):
        low = kind.low if kind.low is not None else -10
        high = kind.high if kind.high is not None else 10
        return st.lists(st.floats(max(low, 0.01) if low >= 0 else low, high),
                        min_size=length(game, kind), max_size=length(game, kind))
    raise AssertionError(kind)


def invalid(game, name):
    parameter, kind = parameter_of(game, name), parameter_of(game, name).kind
    wrong_type = st.sampled_from(["3", b"3", [1], {"a": 1}, object()])
    huge = st.sampled_from([10 ** 400, -10 ** 400, float("inf"), float("-inf"),
                            float("nan"), 1.7e308, -1.7e308])
    if isinstance(kind, Integer):
        low, high = bounds(game, parameter)
        outside = [st.just(True), st.floats(0.5, 0.5), huge, st.just(2 ** 63)]
        if low is not None:
            outside.append(st.integers(max_value=low - 1))
        if high is not None:
            outside.append(st.integers(min_value=high + 1))
        return st.one_of(wrong_type, *outside)
    if isinstance(kind, (Real, Probability)):
        low, high = (0, 1) if isinstance(kind, Probability) else (kind.low, kind.high)
        outside = [wrong_type, huge, st.just(True)]
        if low is not None:
            outside.append(st.floats(max_value=low, exclude_max=True, allow_nan=False,
                                     allow_infinity=False, min_value=low - 1e9))
        if high is not None:
            outside.append(st.floats(min_value=high, exclude_min=True, allow_nan=False,
                                     allow_infinity=False, max_value=high + 1e9))
        return st.one_of(*outside)
    if isinstance(kind, Boolean):
        return st.one_of(wrong_type, st.integers(0, 1), st.just("True"))
    if isinstance(kind, Choice):
        return st.one_of(wrong_type, st.text(max_size=8).filter(lambda t: t not in kind.options))
    if isinstance(kind, Subset):
        return st.one_of(st.just(["AB"]), st.just([""]), st.just(["Z"]), st.just(3),
                         st.lists(st.sampled_from(["A", "AB", 1, None]), min_size=1)
                         .filter(lambda v: any(x not in tuple(kind.letters) for x in v)))
    if isinstance(kind, Reals):
        n = length(game, kind)
        below = [] if kind.low is None else [st.just([kind.low - 1.0] + [1.0] * (n - 1))]
        return st.one_of(wrong_type, st.just([1.0] * (n + 1)), st.just([1.0] * (n - 1)),
                         st.just([float("nan")] * n), st.just([10 ** 400] * n),
                         st.just([1.7e308] * n), *below)
    raise AssertionError(kind)


def build(game, name, value):
    parameters = {name: value}
    if name != "max_steps" and "max_steps" in GAMES[game].parameters:
        parameters["max_steps"] = SHORT
    return GAMES[game].model(**parameters, rng=0)


@pytest.mark.parametrize("game, name", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_valid_values_play_to_the_end(game, name):
    @FUZZ
    @given(value=valid(game, name))
    def play(value):
        try:
            model = build(game, name, value)
        except ValueError as error:
            # allowed by its own declaration, refused by a check joining parameters (e.g. a
            # map too small for its agents): still a ValueError naming the parameter
            assert name in str(error), error
            return
        cap = model.max_steps if hasattr(model, "max_steps") else 30
        steps = 0
        while model.running and steps <= cap:
            model.step()
            steps += 1
        assert not model.running and steps <= cap

    play()


@pytest.mark.parametrize("game, name", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_invalid_values_raise_a_value_error_naming_the_parameter(game, name):
    @FUZZ
    @given(value=invalid(game, name))
    def refuse(value):
        with pytest.raises(ValueError) as error:
            build(game, name, value)
        assert name in str(error.value)
        assert len(str(error.value)) < 2000

    refuse()


@settings(max_examples=60, deadline=None, derandomize=True)
@given(game=st.sampled_from(list(GAMES)), text=st.text(max_size=40))
def test_any_population_text_is_played_or_refused_naming_population(game, text):
    try:
        model = GAMES[game].model(population=text, rng=0, collect_data=False)
    except ValueError as error:
        assert "population" in str(error)
    else:
        assert model.seats


def test_every_real_parameter_is_bounded_so_no_reward_can_overflow():
    for game in GAMES.values():
        for parameter in game.parameters.declared:
            if isinstance(parameter.kind, (Real, Reals)):
                low, high = parameter.kind.low, parameter.kind.high
                assert -LIMIT <= low <= high <= LIMIT, (game.name, parameter.name)
    with pytest.raises(ValueError, match=r"L=1\.7e\+308 is invalid: must be a finite number "
                                         r"from -1000000 to 1000000"):
        GAMES["bucket_brigade"].model(L=1.7e308)


def test_the_fuzzed_parameters_cover_every_game():
    assert {game for game, _ in CASES} == set(GAMES)
    assert len(CASES) > 60


JUNK = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=12),
              st.sampled_from([10 ** 400, "random", "A", ".", "#", "policy.npz"])),
    lambda inner: st.one_of(st.lists(inner, max_size=6),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
CUSTOM = [(name, parameter.name) for name, game in GAMES.items()
          for parameter in game.parameters
          if type(parameter.kind).__name__ in ("Custom", "Population")]


@pytest.mark.parametrize("game, name", CUSTOM, ids=[f"{g}-{n}" for g, n in CUSTOM])
def test_any_value_of_a_structured_parameter_plays_or_is_refused_naming_it(game, name):
    """Maps, per-agent settings, lists, policies, learners, populations: whatever is given
    (JSON-like junk, nested, huge, not finite) plays to the end or raises a ValueError naming
    the parameter -- never another exception."""
    @FUZZ
    @given(value=JUNK)
    def attempt(value):
        try:
            model = build(game, name, value)
        except ValueError as error:
            assert name in str(error), error
            return
        while model.running:
            model.step()

    attempt()
