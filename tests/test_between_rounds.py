"""Parameters changed between rounds (docs/rules/README.md, rule 10): ``model.change`` sets
the parameters a game declares ``between_rounds`` and the next round plays with them; it
refuses every other parameter and every bad value in one line, leaving the model as it was;
changing a value to itself changes no row; each rules document names the parameters it
lets change."""

import re

import numpy as np
import pandas as pd
import pytest

from dilemmas import GAMES

GAMES_OF_RULES = ["bucket_brigade", "firefighting_graph", "state_punishment", "stag_hunt"]
#: A value each marked parameter may take that differs from its default (for the defaults'
#: scenario or preset).
CHANGED = {"beta": 0.9, "kappa": 3.0, "p_ignite": 0.05, "p_grow_neighbour": 0.1,
           "p_grow_alone": 0.1, "p_reduce_neighbour": 0.9, "p_reduce_alone": 0.2,
           "p_two_agents": 0.5, "p_observe": (0.1, 0.3, 0.9), "spawn_prob": 0.5,
           "vote_cost": 2.0, "punishment_magnitude": -1.0, "attack_cost": 1.5,
           "punish_cost": 0.7, "stag_reward": 10.0, "hare_reward": 30.0}
#: What each game's model derives from them (``derive``).
DERIVED = {"bucket_brigade": "p_extinguish", "firefighting_graph": "table",
           "state_punishment": "rules", "stag_hunt": "rules"}


def marked(game: str) -> list[str]:
    return [p.name for p in GAMES[game].parameters if p.between_rounds]


def same(a, b) -> bool:
    if hasattr(a, "_fields"):
        return all(same(x, y) for x, y in zip(a, b))
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def rows(model) -> pd.DataFrame:
    return model.datacollector.get_model_vars_dataframe()


def test_every_marked_parameter_has_a_changed_value_here():
    assert {name for game in GAMES_OF_RULES for name in marked(game)} == set(CHANGED)


@pytest.mark.parametrize("game", GAMES_OF_RULES)
def test_a_change_sets_the_value_and_the_rules_of_a_model_built_with_it(game):
    for name in marked(game):
        model = GAMES[game].model(rng=3)
        for _ in range(3):
            model.step()
        model.change(**{name: CHANGED[name]})
        assert getattr(model, name) == CHANGED[name] or same(getattr(model, name),
                                                             CHANGED[name])
        assert model.changes == [(3, {name: CHANGED[name]})]
        fresh = GAMES[game].model(**{name: CHANGED[name]}, rng=3)
        assert same(getattr(model, DERIVED[game]), getattr(fresh, DERIVED[game])), name
        while model.running and model.steps < 8:
            model.step()
        assert len(rows(model)) == model.steps + 1


@pytest.mark.parametrize("game", GAMES_OF_RULES)
def test_a_change_to_the_same_values_changes_no_row(game):
    plain, changed = (GAMES[game].model(rng=5) for _ in range(2))
    for k in range(12):
        if k == 4:
            changed.change(**{name: getattr(changed, name) for name in marked(game)})
        plain.step()
        changed.step()
    pd.testing.assert_frame_equal(rows(plain), rows(changed))


def test_the_next_rounds_play_with_the_new_value():
    """Fire that can neither start nor grow after the change: from then on the Firefighting
    Graph's levels never rise; before it, they did."""
    model = GAMES["firefighting_graph"].model(rng=2, max_steps=60)
    for _ in range(10):
        model.step()
    model.change(p_ignite=0.0, p_grow_neighbour=0.0, p_grow_alone=0.0)
    before = model.levels.copy()
    while model.running:
        model.step()
        assert (model.levels <= before).all()
        before = model.levels.copy()
    assert model.changes == [(10, {"p_ignite": 0.0, "p_grow_neighbour": 0.0,
                                   "p_grow_alone": 0.0})]


@pytest.mark.parametrize("game", GAMES_OF_RULES)
def test_a_fixed_parameter_or_a_bad_value_is_refused_and_nothing_changes(game):
    model = GAMES[game].model(rng=1)
    model.step()
    fixed = next(p.name for p in GAMES[game].parameters
                 if not p.between_rounds and p.name != "population")
    derived = getattr(model, DERIVED[game])
    with pytest.raises(ValueError, match=rf"^{fixed} cannot change during an episode: .*"
                                         rf"{marked(game)[0]}"):
        model.change(**{fixed: getattr(model, fixed)})
    name = marked(game)[0]
    was = getattr(model, name)
    with pytest.raises(ValueError, match=name):
        model.change(**{name: "not a number"})
    assert getattr(model, name) == was and getattr(model, DERIVED[game]) is derived
    assert model.changes == []


@pytest.mark.parametrize("game", GAMES_OF_RULES)
def test_the_rules_say_which_parameters_may_change(game):
    text = GAMES[game].rules.read_text()
    said = re.search(r"\n\n([^\n]*(?:\n[^\n]+)*)\s+may\s+change\s+between\s+(?:nights|steps|turns)",
                     text.partition("## Parameters")[2])
    assert said, "no sentence names the parameters that may change between rounds"
    named = set(re.findall(r"`(\w+)`", said.group(1)))
    if "..." in said.group(1):  # a range of the table's rows, first to last
        names = GAMES[game].parameters.names
        first, last = re.findall(r"`(\w+)`", said.group(1))
        named = set(names[names.index(first):names.index(last) + 1])
    assert named == set(marked(game))
    for name in marked(game):
        assert re.search(rf"\| `{name}` \|.*\(may change between rounds\) \|", text), name
