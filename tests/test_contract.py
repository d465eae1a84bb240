"""The contract every registered game keeps (docs/rules/README.md), checked for each game in
``dilemmas.GAMES`` -- the four games and the test-only Public Goods game -- so a new game gets
every check by registering. Per-game test files hold only their own game's rules."""

import ast
import inspect
import math
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import ipyvuetify as v
import mesa
import numpy as np
import pandas as pd
import pytest
import solara

from dilemmas import GAMES
from dilemmas.cli.describe import rules_with_parameters
from dilemmas.models.parameters import (Boolean, Choice, Custom, Integer, Population, Probability, Real,
                               Reals, Subset)
from dilemmas.models.phases import AgentPhase
from support import widgets_under

TESTS = Path(__file__).resolve().parent
NAMES = list(GAMES)


def play(game, **parameters):
    model = game.model(**parameters)
    model.run_model()
    return model


def frames(model):
    collector = model.datacollector
    return collector.get_model_vars_dataframe(), collector.get_agent_vars_dataframe()


def assert_same_frames(a, b):
    for x, y in zip(a, b):
        pd.testing.assert_frame_equal(x, y, check_exact=True)


def first_table(text: str, heading: str) -> list[list[str]]:
    """The cells of the body rows of the first table under ``heading``."""
    lines = text.split(heading + "\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")),
               len(lines))
    return [[cell.strip() for cell in line.strip("|").split("|")]
            for line in lines[start + 2:end]]


def table_names(text: str, heading: str) -> list[str]:
    """The backticked names in the first column of the first table under ``heading``."""
    return [row[0].strip("`") for row in first_table(text, heading)]


def last_allowed(observation) -> int:
    """A policy: the allowed action with the highest index."""
    return int(np.flatnonzero(observation["action_mask"])[-1])


def mixed_population(game) -> str:
    """The last behaviour mix without a policy seat that the game's dashboard offers, or
    ``random`` if it offers none."""
    values = getattr(game.parameters["population"].control, "values", ())
    return next((mix for mix in reversed(values) if "policy" not in mix), "random")


@pytest.fixture(params=NAMES)
def game(request):
    return GAMES[request.param]


# --- Registration, declarations and rules document -----------------------------------------

def test_the_four_games_and_the_test_game_are_registered():
    assert NAMES[:4] == ["bucket_brigade", "state_punishment", "stag_hunt",
                         "firefighting_graph"]
    assert "public_goods" in NAMES
    for name, game in GAMES.items():
        assert game.name == name and game.model.game is game


def test_signature_is_the_declaration(game):
    signature = inspect.signature(game.model)
    keywords = {name: p.default for name, p in signature.parameters.items()
                if p.kind is p.KEYWORD_ONLY}
    assert keywords.pop("rng") is None and keywords.pop("collect_data") is True
    assert list(keywords) == game.parameters.names
    for parameter in game.parameters:
        assert keywords[parameter.name] == parameter.default, parameter.name
        assert parameter.description, parameter.name
    assert all(p.kind is p.KEYWORD_ONLY for p in signature.parameters.values())


def test_the_constructor_sets_every_declared_parameter_and_refuses_others(game):
    model = game.model(collect_data=False, rng=0)
    for parameter in game.parameters:
        # a name Mesa's Model takes for itself is kept as <name>_name
        name = parameter.name + ("_name" if hasattr(mesa.Model, parameter.name) else "")
        assert hasattr(model, name), parameter.name
    with pytest.raises(TypeError, match="'no_such_parameter'"):
        game.model(no_such_parameter=1)


def test_the_rules_parameter_table_is_generated_from_the_declaration(game):
    """docs/rules/README.md, rule 7: the table under "## Parameters" is the declaration's
    (``python -m dilemmas.cli.describe`` writes it after a change of the declaration)."""
    text = game.rules.read_text()
    assert rules_with_parameters(text, game.parameters.markdown()) == text, \
        f"{game.rules}: run python -m dilemmas.cli.describe"


def test_rules_document_lists_the_parameters_and_the_columns(game):
    text = game.rules.read_text()
    assert table_names(text, "## Parameters") == game.parameters.names
    defaults = [ast.literal_eval(row[1].strip("`")) for row in first_table(text, "## Parameters")]
    assert defaults == [p.default for p in game.parameters]
    assert table_names(text, "### Model columns") == list(game.model.model_reporters)
    assert table_names(text, "### Agent columns") == list(game.model.agent_reporters)
    behaviours = [line[len("### `"):-1] for line in text.splitlines()
                  if line.startswith("### `")]
    assert behaviours == list(game.behaviours)
    round_section = text.split("## Round\n", 1)[1].split("\n## ", 1)[0]
    phases = [line.split("`")[1] for line in round_section.splitlines()
              if line[:1].isdigit() and ". `" in line[:6]]
    assert phases == [phase.name for phase in game.model.phases]


def test_random_exists_and_every_behaviour_plays(game):
    assert "random" in game.behaviours
    for name, behaviour in game.behaviours.items():
        assert behaviour.behaviour == name
        policy = {"policy": last_allowed} if name == "policy" else {}
        model = play(game, population=name, max_steps=3, rng=0, **policy)
        assert {agent.behaviour for agent in model.agents} == {name}


# --- Playing ---------------------------------------------------------------------------------

def test_defaults_play_an_episode(game):
    model = game.model()
    assert model.running and isinstance(model.seed, int)
    model.run_model()
    assert not model.running
    assert 1 <= model.steps <= game.parameters["max_steps"].default
    model_rows, agent_rows = frames(model)
    assert len(model_rows) == model.steps + 1   # after construction, then every step
    assert len(agent_rows) > 0
    assert list(model_rows.columns) == list(game.model.model_reporters)
    assert list(agent_rows.columns) == list(game.model.agent_reporters)


def test_phases_run_in_the_declared_order(game):
    model = game.model(rng=3)
    model.step()
    assert model.phases_run == [phase.name for phase in model.phases]
    agent_phases = [phase for phase in model.phases if isinstance(phase, AgentPhase)]
    assert agent_phases, "a round has at least one phase in which the agents decide"


def test_an_ended_model_counts_no_step(game):
    """Rule 4: ``step()`` after the end runs no phase, collects no row and counts no step."""
    model = play(game, max_steps=2, rng=4)
    assert not model.running
    steps, time, rows = model.steps, model.time, len(frames(model)[0])
    for _ in range(3):
        model.step()
    assert (model.steps, model.time, model.phases_run) == (steps, time, [])
    assert len(frames(model)[0]) == rows


@pytest.mark.parametrize("cap", [1, 3])
def test_max_steps_caps_every_game(game, cap):
    model = play(game, max_steps=cap, rng=5)
    assert model.steps <= cap and not model.running
    assert len(frames(model)[0]) == model.steps + 1


def test_same_seed_same_dataframes_and_different_seeds_differ(game):
    population = mixed_population(game)
    first = frames(play(game, population=population, rng=11))
    assert_same_frames(first, frames(play(game, population=population, rng=11)))
    seeded = [frames(play(game, population="random", rng=seed)) for seed in (11, 12)]
    assert not (seeded[0][0].equals(seeded[1][0]) and seeded[0][1].equals(seeded[1][1]))


def variants(game) -> list[dict]:
    """One configuration per other option of each declared choice and per flipped boolean:
    the rule variants a game offers (rule sets, modes, layouts, presets, ...)."""
    found = []
    for parameter in game.parameters:
        if isinstance(parameter.kind, Choice):
            found += [{parameter.name: option} for option in parameter.kind.options
                      if option != parameter.default]
        elif isinstance(parameter.kind, Boolean) and parameter.default is not None:
            found.append({parameter.name: not parameter.default})
    return found


def test_same_seed_same_dataframes_in_every_rule_variant(game):
    for variant in variants(game):
        runs = [frames(play(game, population="random", max_steps=10, rng=21, **variant))
                for _ in range(2)]
        assert_same_frames(*runs)


def test_same_seed_same_dataframes_in_a_fresh_process(game, tmp_path):
    population = mixed_population(game)
    out = tmp_path / "frames.pkl"
    script = textwrap.dedent(f"""
        import pickle, sys
        sys.path.insert(0, {str(TESTS)!r})
        import importlib
        import dilemmas
        importlib.import_module({game.model.__module__!r})
        model = dilemmas.GAMES[{game.name!r}].model(population={population!r}, rng=11)
        model.run_model()
        dc = model.datacollector
        pickle.dump((dc.get_model_vars_dataframe(), dc.get_agent_vars_dataframe()),
                    open({str(out)!r}, "wb"))
    """)
    subprocess.run([sys.executable, "-c", script], check=True, cwd=TESTS.parent)
    with open(out, "rb") as f:
        fresh = pickle.load(f)
    assert_same_frames(frames(play(game, population=population, rng=11)), fresh)


def test_batch_run_gives_the_same_rows_with_one_and_two_processes(game):
    def rows(processes):
        frame = pd.DataFrame(mesa.batch_run(
            game.model, {"population": ["random", mixed_population(game)], "max_steps": 5},
            rng=[1, 2], number_processes=processes, data_collection_period=1,
            display_progress=False))
        # RunId is batch_run's bookkeeping: compare by what defines a run.
        keys = ["population", "rng", "Step", *(["AgentID"] if "AgentID" in frame else [])]
        return frame.sort_values(keys, kind="stable").drop(columns="RunId") \
            .reset_index(drop=True)

    single = rows(1)
    assert len(single) > 0
    pd.testing.assert_frame_equal(single, rows(2))


# --- Bad parameters ------------------------------------------------------------------------

def bad_values(game, parameter):
    """``(wrong type, out of range)`` values of a declared parameter; None where the kind has
    no range (a boolean). A game's own structured check (``Custom``) declares its examples."""
    kind = parameter.kind
    defaults = game.parameters.defaults()

    def bound(value):
        return defaults[value] if isinstance(value, str) else value

    if isinstance(kind, Integer):
        low, high = bound(kind.low), bound(kind.high)
        return "3", (low - 1 if low is not None else high + 1 if high is not None else None)
    if isinstance(kind, Real):
        return "0.5", (kind.low - 1 if kind.low is not None else
                       kind.high + 1 if kind.high is not None else math.inf)
    if isinstance(kind, Probability):
        return "0.5", 1.5
    if isinstance(kind, Boolean):
        return 1, None
    if isinstance(kind, Choice):
        return 1, "no_such_choice"
    if isinstance(kind, Population):
        return 3, "no_such_behaviour"
    if isinstance(kind, Reals):
        length = bound(kind.length)
        return "1, 2", [1.0] * (length + 1)
    if isinstance(kind, Subset):
        return 3, "Z"
    if isinstance(kind, Custom):
        assert kind.invalid, f"{game.name}.{parameter.name}: declare examples it rejects"
        return object(), kind.invalid
    raise AssertionError(f"{game.name}.{parameter.name}: no bad values for {kind!r}")


CASES = [(name, parameter.name) for name in NAMES for parameter in GAMES[name].parameters]


@pytest.mark.parametrize(("name", "parameter"), CASES)
def test_every_declared_parameter_rejects_a_wrong_type_and_an_out_of_range_value(name,
                                                                                 parameter):
    game = GAMES[name]
    wrong_type, out_of_range = bad_values(game, game.parameters[parameter])
    examples = out_of_range if isinstance(game.parameters[parameter].kind, Custom) \
        else [out_of_range]
    for value in [wrong_type, *examples]:
        if value is None:
            continue
        with pytest.raises(ValueError, match=rf"\b{parameter}\b") as error:
            game.model(**{parameter: value}, rng=0)
        assert any(word in str(error.value) for word in ("must", "allowed")), error.value


@pytest.mark.parametrize(("name", "value"), [("rng", -1), ("rng", 1.5), ("rng", True),
                                             ("rng", "7"), ("collect_data", 1),
                                             ("collect_data", "yes")])
def test_the_seed_and_collect_data_are_checked(game, name, value):
    with pytest.raises(ValueError, match=rf"^{name}={value!r} is invalid"):
        game.model(**{name: value})


def test_unknown_behaviours_are_rejected(game):
    with pytest.raises(ValueError, match="population.*unknown behaviour 'no_such'"):
        game.model(population="no_such")
    with pytest.raises(ValueError, match="population"):
        game.model(population="random:1000")


# --- Dashboard -----------------------------------------------------------------------------

def test_the_dashboard_page_renders_and_steps(game):
    """The game's page in the dashboard (``dilemmas.dashboard.play.PlayPage``): its world an SVG,
    its plots, and Step draws the next round."""
    from solara.widgets import HTML

    from dilemmas.dashboard.address import Address
    from dilemmas.dashboard.play import PlayPage

    @solara.component
    def Root():
        with solara.AppLayout():
            PlayPage(game, Address(game.name), go=lambda change: None)

    box, rc = solara.render(Root(), handle_error=False)
    try:
        def shown(name):  # (the world is a widget that can be clicked: its ``svg``)
            return [w.unsafe_innerHTML for w in widgets_under(box) if isinstance(w, HTML)
                    and name in (w.attributes or {}).get("class", "").split()] + [
                w.svg for w in widgets_under(box) if w.has_trait("svg")
                and name in (w.classes or [])]

        before = shown("world")
        assert len(before) == 1 and before[0].startswith("<svg")
        assert shown("plots")[0].count("<svg") == len(game.view.plots)
        rc.find(v.Btn, children=["Step"]).widget.click()
        (caption,) = [w.caption for w in widgets_under(box) if w.has_trait("caption")]
        assert caption.startswith(f"{game.round} 1 ")  # in the world's widget (issue 63)
        assert shown("world") != before
    finally:
        rc.close()
