"""Parameters declared as data (dilemmas/models/parameters.py): each kind's checks, bounds that name
an earlier parameter, None meaning a table's value, and the text ``dilemmas games`` shows."""

import math

import numpy as np
import pytest

from dilemmas.models.parameters import (Boolean, Choice, Custom, Integer, Parameter, Parameters,
                               Population, Probability, Real, Reals, Select, Slider, Subset)

BEHAVIOURS = {"random": object, "greedy": object}


def declared(*parameters):
    return Parameters(tuple(parameters))


def check(parameters, **given):
    return parameters.check(given, behaviours=BEHAVIOURS)


@pytest.mark.parametrize(("kind", "good", "bad"), [
    (Integer(low=1, high=5), [1, 5, np.int64(3)], [0, 6, 2.0, True, "3", None]),
    (Real(low=0), [0, 0.5, 10**6, np.float64(2.5)],
     [-0.1, 10**6 + 1, 1.7e308, math.nan, math.inf, True, "1"]),
    (Real(high=0), [-10.0, 0], [0.1]),
    (Probability(), [0, 1, 0.25], [-0.01, 1.01, math.nan, False, "0.5"]),
    (Boolean(), [True, False], [0, 1, "True", None]),
    (Choice(("a", "b")), ["a", "b"], ["c", 1, None]),
    (Reals(length=2, low=0), [(1, 2), [0.0, 3.5], np.array([1.0, 2.0])],
     [(1,), (1, 2, 3), (-1, 2), "12", (1, math.nan), (1, 1.7e308)]),
    (Subset("ABC"), ["AB", ["C"], ""], ["ABD", 5, [1]]),
])
def test_each_kind_accepts_what_it_allows_and_rejects_the_rest_naming_the_parameter(
        kind, good, bad):
    parameters = declared(Parameter("x", good[0], kind, "a parameter"))
    for value in good:
        check(parameters, x=value)
    for value in bad:
        with pytest.raises(ValueError, match=r"^x(\[\d\])?=.* is invalid: "):
            check(parameters, x=value)


def test_checked_values_are_plain_python_types():
    parameters = declared(Parameter("n", 1, Integer(low=0), "n"),
                          Parameter("r", 1.0, Real(), "r"),
                          Parameter("v", (1, 2), Reals(length=2), "v"))
    values = check(parameters, n=np.int64(3), r=2, v=np.array([1, 2]))
    assert type(values["n"]) is int and type(values["r"]) is float
    assert values["v"] == (1.0, 2.0) and all(type(x) is float for x in values["v"])


def test_a_bound_and_a_length_may_name_an_earlier_parameter():
    parameters = declared(Parameter("agents", 3, Integer(low=1), "agents"),
                          Parameter("spawned", 2, Integer(low=1, high="agents"), "spawned"),
                          Parameter("costs", None, Reals(length="agents"), "costs",
                                    optional=True))
    assert check(parameters, agents=5, spawned=5)["spawned"] == 5
    with pytest.raises(ValueError, match="spawned=4 is invalid: must be an integer from 1 to 3"):
        check(parameters, spawned=4)
    with pytest.raises(ValueError, match="costs=.* must be a list or tuple of 3 numbers"):
        check(parameters, costs=[1, 2])
    assert check(parameters)["costs"] is None


def test_population_counts_must_add_up_to_the_named_parameter():
    parameters = declared(Parameter("agents", 3, Integer(low=1), "agents"),
                          Parameter("population", "random", Population(count="agents"),
                                    "mix"))
    assert check(parameters, population="greedy:2,random")["population"] == "greedy:2,random"
    with pytest.raises(ValueError, match="population=.*counts add up to 2, but the game has 3"):
        check(parameters, population="greedy:2")
    with pytest.raises(ValueError, match="unknown behaviour 'lazy'"):
        check(parameters, population="lazy")
    by_function = declared(Parameter("w", 2, Integer(low=1), "w"),
                           Parameter("population", "random",
                                     Population(count=lambda v: v["w"] ** 2), "mix"))
    assert check(by_function, population="random:4")
    assert by_function["population"].allowed().endswith("counts add up to the number of agents")


def test_none_takes_the_named_tables_value_and_an_explicit_value_overrides_it():
    table = {"mild": {"p": 0.1}, "wild": {"p": 0.9}}
    parameters = declared(Parameter("preset", "mild", Choice(tuple(table)), "preset"),
                          Parameter("p", None, Probability(), "p", table=("preset", table)))
    assert check(parameters)["p"] == 0.1
    assert check(parameters, preset="wild")["p"] == 0.9
    assert check(parameters, preset="wild", p=0.5)["p"] == 0.5
    with pytest.raises(ValueError, match="p=2 is invalid"):
        check(parameters, p=2)
    assert parameters.start_value("p") == 0.1
    assert parameters["p"].allowed() == "`None` (the named `preset`'s value) or probability in [0, 1]"
    assert parameters.describe()[1][1] == "None (preset 'mild': 0.1)"


def test_a_custom_kind_runs_the_games_own_check():
    def even(name, value, values):
        if value % 2:
            raise ValueError(f"{name}={value!r} is invalid: must be even")
        return value

    parameters = declared(Parameter("k", 2, Custom(even, "an even integer"), "k"))
    assert check(parameters, k=4)["k"] == 4
    with pytest.raises(ValueError, match="k=3 is invalid: must be even"):
        check(parameters, k=3)
    assert parameters.describe() == [("k", "2", "an even integer", "k")]


def test_the_declaration_describes_itself():
    parameters = declared(
        Parameter("n", 4, Integer(low=4, high=10), "agents", control=Slider(4, 10)),
        Parameter("mode", "a", Choice(("a", "b")), "mode", control=Select()),
        Parameter("w", 0.5, Real(), "weight"))
    assert parameters.names == ["n", "mode", "w"] and len(parameters) == 3
    assert "mode" in parameters and "x" not in parameters
    assert parameters.defaults() == {"n": 4, "mode": "a", "w": 0.5}
    assert parameters.describe() == [
        ("n", "4", "integer from 4 to 10", "agents"),
        ("mode", "'a'", "one of `a`, `b`", "mode"),
        ("w", "0.5", "finite number from -1,000,000 to 1,000,000", "weight")]


def test_the_rules_table_is_the_declaration_and_requires_follow_what_is_allowed():
    parameters = declared(
        Parameter("n", 1000, Integer(low=1, high="m"), "agents", requires="`n` is even"),
        Parameter("on", True, Boolean(), "switch"))
    assert parameters["n"].allowed() == "integer from 1 to `m`; also `n` is even"
    assert parameters.markdown() == (
        "| parameter | default | allowed | meaning |\n|---|---|---|---|\n"
        "| `n` | `1000` | integer from 1 to `m`; also `n` is even | agents |\n"
        "| `on` | `True` | `True` or `False` | switch |\n")
