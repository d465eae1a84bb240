"""``population`` parsing (docs/rules/README.md, rule 3), shared by every game."""

import pytest

from dilemmas.models.population import parse_population

BEHAVIOURS = {"a": "A", "b": "B", "random": "R"}


@pytest.mark.parametrize("text, seats", [
    ("random", ["R"] * 4),
    ("a:2,b:2", ["A", "A", "B", "B"]),
    (" a : 1 , b:3 ", ["A", "B", "B", "B"]),
    ("a,b,a,random", ["A", "B", "A", "R"]),
    ("b:1,a:2,b:1", ["B", "A", "A", "B"]),
])
def test_seats_are_filled_in_the_order_written(text, seats):
    assert parse_population(text, 4, BEHAVIOURS) == seats


@pytest.mark.parametrize("text, message", [
    ("", "must be a string"),
    (None, "must be a string"),
    ("c", "unknown behaviour 'c'; allowed: \\['a', 'b', 'random'\\]"),
    ("a:2,b:1", "counts add up to 3, but the game has 4 agents"),
    ("a:5", "counts add up to 5"),
    ("a,b", "counts add up to 2"),
    ("a:x,b:2", "count 'x' of 'a' is not a whole number"),
    ("a:+2,b:2", "count '\\+2' of 'a' is not a whole number"),
    ("a:0_2,b:2", "count '0_2' of 'a' is not a whole number"),
    ("a:0,b:4", "count of 'a' must be at least 1"),
    ("a:2,,b:2", "unknown behaviour ''"),
])
def test_bad_population_names_the_parameter_and_the_problem(text, message):
    with pytest.raises(ValueError, match="population=") as error:
        parse_population(text, 4, BEHAVIOURS)
    assert error.match(message)
