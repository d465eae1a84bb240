"""The dashboard without a browser: each registered game's page renders with
``solara.render`` (its world an SVG, its key, its plots), Step advances it, Reset rebuilds
it, every declared parameter has a control whose value reaches the model, and a value the
model refuses is said in one line while the game stays in place. Then the parts alone:
``dilemmas.dashboard.controls``, ``dilemmas.dashboard.charts`` and ``dilemmas.dashboard.scene``.

(``test_dashboard_browser.py`` drives the page in a real browser; ``test_dashboard_runs.py``
checks the run viewer's data layer.)"""

import base64
import functools
import io
import math
import re
import time
from pathlib import Path

import ipyvue
import ipyvuetify as v
import numpy as np
import pytest
import solara
import solara.routing as routing
from solara.widgets import HTML
from support import GO_TO, DashboardAt, widgets_under

from dilemmas import GAMES
from dilemmas.analysis.figures.colours import behaviour_colour
from dilemmas.dashboard import address, app, key_html
from dilemmas.dashboard.charts import Plot, Series, chart
from dilemmas.dashboard.controls import (as_text, blame, from_text, mixes, shown_value,
                                         shown_values)
from dilemmas.dashboard.play import SEED
from dilemmas.dashboard.scene import (MANY_CELLS, Cells, Circle, Marks, Polygon, Rect, Scene, Text,
                                      draw_on, to_svg)
from dilemmas.dashboard.stag_hunt import facing_wedge
from dilemmas.models.stag_hunt.rules import DIRECTIONS

#: Every registered game the page offers, the test-only Public Goods game included.
TITLES = [game.title for game in GAMES.values()]
#: The drop-down of the declared behaviour mixes (beside the population's text field).
MIXES = "population: a declared mix"
#: The parameter that sets each game's number of agents (its mixes must add up to it).
HEADCOUNT = {"bucket_brigade": "num_agents", "state_punishment": "num_agents",
             "stag_hunt": "num_agents", "firefighting_graph": "n_agents",
             "public_goods": "num_agents"}


def game(title):
    """The registered game shown under ``title``."""
    return next(game for game in GAMES.values() if game.title == title)


def behaviours_in(mix: str) -> set[str]:
    return {part.split(":")[0] for part in mix.split(",")}


# --- reading and working the rendered page --------------------------------------------------

def html_of(box, name: str) -> str:
    """The inner HTML of the page's one ``solara.HTML`` of class ``name`` (or the world
    that can be clicked, ``panels._Clickable``: its ``svg``)."""
    found = [w.unsafe_innerHTML for w in widgets_under(box)
             if isinstance(w, HTML) and name in (w.attributes or {}).get("class", "").split()]
    found += [w.svg for w in widgets_under(box)
              if w.has_trait("svg") and name in (w.classes or [])]
    assert len(found) == 1, (name, len(found))
    return found[0]


def clickable_world(box):
    (found,) = [w for w in widgets_under(box) if w.has_trait("svg")]
    return found


def world(box) -> str:
    return html_of(box, "world")


def captions(rc) -> list[str]:
    """The captions the page shows: above the world, in the world's own widget (so that the
    two change in one update), or alone where the world could not be drawn."""
    return ([w.caption for w in widgets_under(rc.container) if w.has_trait("caption")]
            + [w.children[0] for w in rc.find(v.Html, class_="world-caption").widgets])


def caption(rc) -> str:
    (shown,) = captions(rc)
    return shown


def messages(box) -> list[str]:
    """Every message the page says: lines in red, and the messages under text fields."""
    red = {"control-message", "inline-message"}
    said = [w.children[0] for w in widgets_under(box)
            if isinstance(w, ipyvue.Html) and w.children and isinstance(w.children[0], str)
            and red & set((w.class_ or "").split())]
    return said


def controls_of(box) -> list:
    return [w for w in widgets_under(box)
            if isinstance(w, (v.Slider, v.Select, v.TextField, v.Checkbox))
            or isinstance(w, v.VuetifyTemplate) and w.has_trait("label")]


def control(box, name: str):
    """The control of parameter ``name``: a slider labelled "name = value", or the field,
    drop-down or check box labelled "name"."""
    found = [w for w in controls_of(box)
             if w.label == name or (isinstance(w, v.Slider) and w.label.startswith(f"{name} = "))]
    assert len(found) == 1, (name, [w.label for w in found])
    return found[0]


def set_control(box, name: str, value):
    """Set a control as the browser does: a text field sends its text with Enter
    (``dilemmas.dashboard.field``)."""
    widget = control(box, name)
    if isinstance(widget, v.VuetifyTemplate):
        widget.vue_commit(str(value))
    else:
        widget.v_model = value


def click(rc, label: str):
    rc.find(v.Btn, children=[label]).widget.click()


@pytest.fixture
def page():
    box, rc = solara.render(DashboardAt(), handle_error=False)
    yield box, rc
    rc.close()


def pick(rc, title):
    """Choose the game in the picker, as a choice in the browser sets the select's value."""
    rc.find(v.Select, label="game").widget.v_model = title


def opening(title, seed=1, population="random") -> str:
    return f"{game(title).round} 0 · population {population} · seed {seed}"


def world_of(model) -> str:
    """The world's SVG as the page draws it for ``model``."""
    return to_svg(model.game.view.scene(model), label=f"{model.game.title}: the world")


# --- the page -------------------------------------------------------------------------------

def test_the_page_offers_every_registered_game(page):
    box, rc = page
    picker = rc.find(v.Select, label="game").widget
    assert picker.items == TITLES and picker.v_model == TITLES[0]
    assert "game-picker" in picker.class_.split()


@pytest.mark.parametrize("title", TITLES)
def test_each_game_shows_its_world_key_and_plots_and_step_advances_it(page, title):
    box, rc = page
    pick(rc, title)
    shown = game(title)
    assert caption(rc) == opening(title)
    model = shown.model(rng=1)
    start = world(box)
    assert start.startswith("<svg") and start.endswith("</svg>") and start == world_of(model)
    key = html_of(box, "key-box")
    for behaviour in {agent.behaviour for agent in model.seats}:
        assert f"{behaviour} (behaviour)" in key
    plots = html_of(box, "plots")
    assert plots.count("<svg") == len(shown.view.plots) > 0
    for plot in shown.view.plots:
        assert f'aria-label="{plot.title}"' in plots.replace("&#x27;", "'")
    assert f'href="/rules/{shown.name}"' in html_of(box, "game-description")

    click(rc, "Step")
    model.step()
    assert caption(rc) == opening(title).replace(" 0 ·", " 1 ·", 1)
    assert world(box) != start and world(box) == world_of(model)
    assert html_of(box, "plots") != plots


@pytest.mark.parametrize("title", TITLES)
def test_reset_with_the_same_parameters_and_seed_gives_back_the_first_round(page, title):
    box, rc = page
    pick(rc, title)
    start, plots = world(box), html_of(box, "plots")
    click(rc, "Step")
    click(rc, "Step")
    assert world(box) != start
    click(rc, "Reset")
    assert caption(rc) == opening(title)
    assert world(box) == start and html_of(box, "plots") == plots


@pytest.mark.parametrize("title", TITLES)
def test_a_mix_and_a_seed_chosen_rebuild_the_model_with_them(page, title):
    box, rc = page
    pick(rc, title)
    shown = game(title)
    offered = control(box, MIXES).items
    mix = next(m for m in reversed(offered) if "policy" not in m and ":" in m)
    set_control(box, MIXES, mix)
    assert caption(rc) == opening(title, population=mix)
    assert control(box, "population").value == mix
    set_control(box, SEED, 7)
    assert caption(rc) == opening(title, seed=7, population=mix)
    assert control(box, SEED).value == "7"
    model = shown.model(population=mix, rng=7)
    assert world(box) == world_of(model)
    key = html_of(box, "key-box")
    assert key == key_html(shown.view.key(model))
    for behaviour in behaviours_in(mix):  # every behaviour seated, in its figures' colour
        assert f"{behaviour} (behaviour)" in key
        assert behaviour_colour(shown.name, behaviour) in key
    click(rc, "Step")
    model.step()
    assert world(box) == world_of(model)


def test_a_slider_and_a_drop_down_reach_the_model(page):
    box, rc = page  # Bucket Brigade: a scenario changes the parameters that follow it
    set_control(box, "scenario", "hard")
    assert control(box, "beta").label == "beta = 0.4"
    set_control(box, "num_agents", 6)
    assert control(box, "num_agents").label == "num_agents = 6"
    model = game("Bucket Brigade").model(scenario="hard", num_agents=6, rng=1)
    assert world(box) == world_of(model)
    assert "population" not in " ".join(messages(box))  # "random" fits any number


def test_a_drop_down_whose_default_is_none_offers_none(page):
    box, rc = page  # Stag Hunt's attack_mode: None means "as the attack flags say"
    pick(rc, "Stag Hunt Physical")
    assert control(box, "attack_mode").v_model == "None"

    def after_six_turns(**parameters):
        for _ in range(6):
            click(rc, "Step")
        model = game("Stag Hunt Physical").model(rng=1, **parameters)
        for _ in range(6):
            model.step()
        assert world(box) == world_of(model)
        return world(box)

    set_control(box, "area_attack", False)
    flags = after_six_turns(area_attack=False)
    set_control(box, "attack_mode", "beam")
    after_six_turns(area_attack=False, attack_mode="beam")
    set_control(box, "attack_mode", "None")
    assert control(box, "attack_mode").v_model == "None"
    assert after_six_turns(area_attack=False) == flags


def test_switching_games_starts_the_new_one_from_its_defaults(page):
    box, rc = page
    set_control(box, SEED, 7)
    set_control(box, "population", "always_work")
    for title in [*TITLES[1:], TITLES[0]]:
        pick(rc, title)
        assert caption(rc) == opening(title), title
        assert control(box, SEED).value == "1"


def test_recorded_runs_and_back_shows_the_game_chosen(page):
    box, rc = page
    pick(rc, "Stag Hunt Physical")
    modes = rc.find(v.BtnToggle, class_="mode-picker").widget
    modes.v_model = list(app.MODES).index("Recorded runs")
    assert not rc.find(v.Select, label="game").widgets  # no game picker for a recorded run
    assert not captions(rc)
    modes = rc.find(v.BtnToggle, class_="mode-picker").widget  # the one the page shows now
    modes.v_model = list(app.MODES).index("Play a game")
    assert caption(rc) == opening("Stag Hunt Physical")
    click(rc, "Step")
    assert caption(rc) == opening("Stag Hunt Physical").replace(" 0 ·", " 1 ·")


@pytest.mark.parametrize("title", TITLES)
def test_every_declared_parameter_has_a_control(page, title):
    box, rc = page
    pick(rc, title)
    labels = [w.label for w in controls_of(box)]
    for name in game(title).parameters.names:
        assert name in labels or any(label.startswith(f"{name} = ") for label in labels), name


@pytest.mark.parametrize("title", TITLES)
def test_a_refused_value_is_said_in_one_line_and_the_game_stays(page, title):
    box, rc = page
    pick(rc, title)
    start = world(box)
    set_control(box, "max_steps", 0)  # an integer field under "All parameters"
    said = messages(box)
    assert said and all("max_steps" in m and "\n" not in m for m in said), said
    assert caption(rc) == opening(title) and world(box) == start
    click(rc, "Step")  # the last model still plays
    assert caption(rc) == opening(title).replace(" 0 ·", " 1 ·", 1)
    click(rc, "Reset")  # Reset restarts it with the last accepted values; the refusal stays
    assert caption(rc) == opening(title) and world(box) == start and messages(box) == said

    set_control(box, "max_steps", 30)  # a value it accepts: a new model, no message
    assert caption(rc) == opening(title) and messages(box) == []
    assert world(box) == start


@pytest.mark.parametrize("title", TITLES)
def test_a_mix_for_another_number_of_agents_is_refused(page, title):
    box, rc = page
    pick(rc, title)
    shown = game(title)
    headcount = HEADCOUNT[shown.name]
    mix = next(m for m in control(box, MIXES).items if ":" in m and "policy" not in m)
    seats = sum(int(part.split(":")[1]) for part in mix.split(","))
    set_control(box, "population", mix)
    start = world(box)
    set_control(box, headcount, seats + 1)
    said = messages(box)
    assert said and all("population" in m and "\n" not in m for m in said), said
    assert caption(rc) == opening(title, population=mix) and world(box) == start
    # the mix typed stays; the drop-down offers only the mixes for the new number
    assert control(box, "population").value == mix
    offered = control(box, MIXES).items
    assert mix not in offered and control(box, MIXES).v_model is None
    assert all(":" not in m or sum(int(p.split(":")[1]) for p in m.split(",")) == seats + 1
               for m in offered)


def test_a_value_that_is_no_integer_is_said_by_its_field(page):
    box, rc = page
    set_control(box, "max_steps", "many")
    said = messages(box)
    assert len(said) == 1 and said[0].startswith("max_steps='many' is invalid"), said
    assert control(box, "max_steps").value == "many"  # kept, to be fixed
    assert caption(rc) == opening("Bucket Brigade")
    click(rc, "Step")
    assert caption(rc) == opening("Bucket Brigade").replace(" 0 ·", " 1 ·")


def test_a_map_the_model_refuses_names_its_parameter(page):
    box, rc = page
    pick(rc, "Stag Hunt Physical")
    set_control(box, "ascii_map", "maps/no_such_map.txt")
    said = messages(box)
    assert said and all("ascii_map" in m for m in said), said
    assert caption(rc) == opening("Stag Hunt Physical")


@pytest.mark.parametrize("path", ["/etc/passwd", "maps/no_such_map.txt"])
def test_a_map_file_named_in_a_link_is_refused_unread(path, monkeypatch):
    """Issue 45 item 7: the page reads no file that a link names as ``ascii_map``."""
    import pathlib

    def read_text(self, *args, **kwargs):
        raise AssertionError(f"the page read {self}")

    monkeypatch.setattr(pathlib.Path, "read_text", read_text)
    box, rc = solara.render(DashboardAt(f"/?game=stag_hunt&ascii_map={path}"),
                            handle_error=False)
    try:
        said = messages(box)
        assert any(m.startswith(f"ascii_map={path!r} is refused") for m in said), said
        assert caption(rc) == opening("Stag Hunt Physical")
    finally:
        rc.close()


def address_messages(box) -> list[str]:
    return [w.children[0] for w in widgets_under(box)
            if isinstance(w, ipyvue.Html) and "address-message" in (w.class_ or "").split()]


@pytest.mark.parametrize("search, refused, played", [
    ("game=firefighting_graph&n_width=1000&n_agents=3&seed=4", ["n_width=1000"],
     {"n_agents": 3, "rng": 4}),
    ("game=firefighting_graph&n_width=1000&n_agents=3&seed=x", ["rng='x'", "n_width=1000"],
     {"n_agents": 3, "rng": 1}),
    ("game=firefighting_graph&n_agents=3&max_steps=7", [],
     {"n_agents": 3, "max_steps": 7, "rng": 1}),
])
def test_a_link_plays_its_usable_values_and_names_the_refused_at_the_top(
        search, refused, played):
    """Issue 45 item 3: one value a page cannot use leaves the others played (the world is
    theirs, the refused one at its default) and is named in the line at the top."""
    box, rc = solara.render(DashboardAt(f"/?{search}"), handle_error=False)
    try:
        top = address_messages(box)
        if refused:
            assert len(top) == 1 and all(part in top[0] for part in refused), top
            assert "left at its default" in top[0]
            assert any(refused[0] in m for m in messages(box))  # and the first beside its field
        else:
            assert top == []
        model = game("Firefighting Graph").model(**played)
        assert world(box) == world_of(model)
        assert f"seed {played['rng']}" in caption(rc)
        click(rc, "Step")
        model.step()
        assert world(box) == world_of(model)
    finally:
        rc.close()


def test_play_runs_to_the_end_of_the_episode_and_stops(page):
    box, rc = page
    pick(rc, "Public Goods")
    set_control(box, "max_steps", 6)
    rc.find(v.Slider, label="speed = 10 rounds/s").widget.v_model = 30
    click(rc, "Play")
    deadline = time.monotonic() + 10
    while "episode over" not in caption(rc) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert caption(rc) == "round 6 · episode over · population random · seed 1"

    def buttons():
        return {w.children[0]: w.disabled for w in rc.find(v.Btn).widgets if w.children}

    def ended():  # the play loop has seen the end: Pause is Play again, both disabled
        shown = buttons()
        return shown.get("Step", False) and shown.get("Play", False)

    while not ended() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert buttons()["Step"] and buttons()["Play"]  # nothing left to play
    click(rc, "Reset")
    while caption(rc) != opening("Public Goods") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert caption(rc) == opening("Public Goods")


def test_a_step_clicked_after_the_end_plays_nothing(page):
    """Issue 45: a Step click that arrives after the episode's last round (the button not yet
    drawn disabled) leaves the caption and the world at that round."""
    box, rc = page
    pick(rc, "Bucket Brigade")
    set_control(box, "max_steps", 2)
    click(rc, "Step")
    click(rc, "Step")
    ended, drawn = caption(rc), world(box)
    assert ended == opening("Bucket Brigade").replace(" 0 ·", " 2 · episode over ·")
    step = rc.find(v.Btn, children=["Step"]).widget
    assert step.disabled
    for _ in range(3):
        step.fire_event("click", {})  # as a click queued before the button was disabled
    assert caption(rc) == ended and world(box) == drawn


def test_pause_stops_play(page):
    box, rc = page
    rc.find(v.Slider, label="speed = 10 rounds/s").widget.v_model = 1
    click(rc, "Play")
    deadline = time.monotonic() + 10
    while caption(rc).startswith("night 0") and time.monotonic() < deadline:
        time.sleep(0.02)
    click(rc, "Pause")
    paused = caption(rc)
    assert not paused.startswith("night 0")
    time.sleep(1.3)  # more than a round at one round a second
    assert caption(rc) == paused
    click(rc, "Step")
    assert caption(rc) != paused


def until(condition, seconds: float = 60):
    """Wait for ``condition()`` to hold (a state, polled), at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the page never reached the state"
        time.sleep(0.01)


def after(title, rounds: int, **parameters):
    model = game(title).model(**parameters, rng=1)
    for _ in range(rounds):
        model.step()
    return model


def round_of(rc) -> int:
    return int(caption(rc).split(" ")[1])


def buttons(rc) -> dict:
    return {w.children[0]: w.disabled for w in rc.find(v.Btn).widgets if w.children}


def test_drawn_every_fifth_round_the_caption_and_world_show_one_round(page):
    """Issue 45 item 2: with "draw every" 5 the page shows only every fifth round (and the
    last), each with the world of that round, never a caption ahead of its world."""
    box, rc = page
    pick(rc, "Firefighting Graph")
    set_control(box, "max_steps", 23)
    rc.find(v.Select, label="draw every").widget.v_model = 5
    rc.find(v.Slider, label="speed = 10 draws/s (50 rounds/s)").widget.v_model = 30
    click(rc, "Play")
    seen = {}
    def ended():
        seen[caption(rc)] = world(box)
        return "episode over" in caption(rc) and buttons(rc).get("Play") is not None
    until(ended)
    for shown, drawn in seen.items():
        k = int(shown.split(" ")[1])
        assert k % 5 == 0 or k == 23, shown
        assert drawn == world_of(after("Firefighting Graph", k, max_steps=23)), shown


def test_a_zoomed_world_is_drawn_larger_in_a_box_that_scrolls(page):
    """Issue 45 item 5: zoom k draws the world k times its size (the page's box around it
    scrolls: pan), the same drawing otherwise, and Step keeps the zoom."""
    from dilemmas.dashboard.panels import zoomed

    box, rc = page
    pick(rc, "Firefighting Graph")
    plain = world(box)
    rc.find(v.Select, label="zoom").widget.v_model = 4
    assert "zoomed" in clickable_world(box).classes
    assert world(box) == zoomed(plain, 4)
    width = re.search(r'width="([0-9.]+)"', plain).group(1)
    assert f'width="{float(width) * 4:.0f}"' in zoomed(plain, 4).split(">", 1)[0]
    assert zoomed(plain, 4).split(">", 1)[1] == plain.split(">", 1)[1]
    click(rc, "Step")
    assert world(box) == zoomed(world_of(after("Firefighting Graph", 1)), 4)


@pytest.mark.parametrize("title, clicked, said, seat", [
    ("Bucket Brigade", {"tip": "agent 2 (random) at house 2", "x": 8.6, "y": 5.2},
     "agent 2 (random) at house 2", 2),
    ("Firefighting Graph", {"tip": "firefighter 1 (random)", "x": 1.5, "y": 0.5},
     "firefighter 1 (random)", 1),
    ("State Punishment", {"tip": "resource B", "x": 4, "y": 3},
     "resource B: cell at row 3, column 4", None),
    ("Bucket Brigade", {"tip": "house 7: safe", "x": 1.6, "y": 6.7}, "house 7: safe", None),
])
def test_a_click_on_the_world_names_what_was_clicked_and_opens_an_agent(
        page, title, clicked, said, seat):
    """Issue 45 item 5: a click on an agent or a cell says what it is; an agent's click
    opens its story (behaviour, reward, last rounds' decisions) at its seat."""
    box, rc = page
    pick(rc, title)
    clickable_world(box).vue_inspect(clicked)
    assert rc.find(v.Html, class_="inspected").widget.children[0] == f"clicked: {said}"
    panels = rc.find(v.Select, label="agent (seat: behaviour)")
    if seat is None:
        assert not panels.widgets
    else:
        agent = game(title).model(rng=1).seats[seat]
        assert panels.widget.v_model == f"{seat}: {agent.behaviour}"


def test_a_click_on_a_grid_drawn_as_one_image_names_its_cell(page):
    """Issue 45 item 5: a grid of more than ``MANY_CELLS`` cells is one image; a click on it
    names the cell under the point from the model's own drawing, with its exact value (issue
    63: not the range of values its colour stands for)."""
    box, rc = page
    pick(rc, "Firefighting Graph")
    go = GO_TO[0]
    go("/?game=firefighting_graph&layout=grid&n_width=30&n_height=30&seed=2")
    until(lambda: "<image" in world(box))
    model = game("Firefighting Graph").model(layout="grid", n_width=30, n_height=30, rng=2)
    assert len(set(model.levels.ravel().tolist())) > 20   # more levels than colours
    for row, col in ((2, 3), (29, 0), (17, 25)):
        clickable_world(box).vue_inspect({"tip": "", "x": col + 0.4, "y": row + 0.7,
                                          "grid": True})
        assert rc.find(v.Html, class_="inspected").widget.children[0] == (
            f"clicked: house {row * 31 + col}, fire level {model.levels[row, col]}: cell at "
            f"row {row}, column {col}")


def test_run_to_end_plays_the_episode_and_shows_its_end(page):
    box, rc = page
    pick(rc, "Bucket Brigade")
    final = after("Bucket Brigade", 0)
    final.run_model()
    click(rc, "Run to end")
    until(lambda: "episode over" in caption(rc) and buttons(rc).get("Play") is not None)
    assert caption(rc) == opening("Bucket Brigade").replace(
        " 0 ·", f" {final.steps} · episode over ·")
    assert world(box) == world_of(final)
    assert buttons(rc)["Run to end"] and buttons(rc)["Step"]  # nothing left to play


def test_go_to_a_round_forward_and_back(page):
    """Issue 45 item 2: round k of the episode, played on to or played again from the seed."""
    box, rc = page
    pick(rc, "Stag Hunt Physical")
    worlds = functools.cache(lambda k: world_of(after("Stag Hunt Physical", k)))
    for k in (7, 3, 3, 12, 0):
        set_control(box, "go to round", k)
        # the caption and the world: two widgets the render sets one after the other
        until(lambda: round_of(rc) == k and buttons(rc).get("Play") is not None
              and world(box) == worlds(k))
    set_control(box, "go to round", "seven")
    until(lambda: any("go to round: 'seven' is not a round" in m for m in messages(box)))
    assert round_of(rc) == 0 and world(box) == worlds(0)
    click(rc, "Step")
    until(lambda: round_of(rc) == 1 and world(box) == worlds(1))


def test_play_and_pause_pressed_quickly_twice_stop_within_a_round(page):
    """Issue 45 item 3: Play, Pause, Play, Pause clicked at once leave the page paused, the
    button on Play, the caption and the world of one round, and no round playing: Step
    then plays exactly one."""
    box, rc = page
    pick(rc, "Firefighting Graph")
    rc.find(v.Slider, label="speed = 10 rounds/s").widget.v_model = 30
    for _ in range(2):
        play = rc.find(v.Btn, class_="play-pause").widget
        play.click()
        play.click()
    until(lambda: buttons(rc).get("Play") is False)
    worlds = functools.cache(lambda k: world_of(after("Firefighting Graph", k)))
    # the caption and the world are two widgets, set one after the other by the page's
    # render: the test waits for both to show a round before it compares them
    until(lambda: world(box) == worlds(round_of(rc)))
    k = round_of(rc)
    click(rc, "Step")  # (drawn once the page's other threads let it: waited for)
    until(lambda: round_of(rc) > k and (round_of(rc) != k + 1 or world(box) == worlds(k + 1)))
    assert round_of(rc) == k + 1
    assert world(box) == worlds(k + 1)


def policy_file(folder, shown, mix, kind):
    """A saved policy for ``shown`` of the right shape, in ``folder``: linear, a deep
    learner's recurrent actor (untrained), or a tabular learner's file after one episode of
    learning."""
    from dilemmas.models.policies import LinearPolicy, NetworkPolicy, save_policy

    folder.mkdir(parents=True, exist_ok=True)
    if kind == "network":
        import jax

        from dilemmas.learning.networks import network, network_arrays
        from dilemmas.learning.ppo_settings import Settings

        model = shown.model(rng=0)
        actor = network(jax.random.PRNGKey(0), shown.interface.observation_length(model),
                        shown.interface.actions(model), Settings(network="gru", hidden=8), 1.0)
        return save_policy(folder / "policy.npz",
                           NetworkPolicy(network_arrays(actor), shown.name))
    if kind == "tabular":
        model = shown.model(population=mix.replace("policy", "q_learning"), rng=0)
        model.run_model()
        return model.learners["q_learning"].save(folder / "learner.npz")
    model = shown.model(rng=0)
    shape = (shown.interface.actions(model), shown.interface.observation_length(model))
    weights = np.random.default_rng(5).normal(size=shape)
    return save_policy(folder / "policy.npz", LinearPolicy(weights, np.zeros(shape[0]),
                                                          shown.name))


@pytest.fixture
def trainings(tmp_path, monkeypatch):
    """A working folder with ``results/training``: ``seed(game, index)`` makes a training
    folder of ``game`` (its ``training.json``) and returns its seed's folder."""
    import json

    monkeypatch.chdir(tmp_path)

    def seed(name, index=0, training="t"):
        folder = tmp_path / "results" / "training" / f"{training}-{name}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "training.json").write_text(json.dumps({"game": name}))
        return folder / f"seed-{index}"

    return seed


@pytest.mark.parametrize("title, kind", [
    (title, kind) for title in TITLES if game(title).interface is not None
    for kind in ("linear", "tabular", "network")
    if kind == "linear" or "q_learning" in game(title).behaviours])
def test_a_trained_policy_picked_from_the_list_plays_in_the_dashboard(page, title, kind,
                                                                       trainings):
    """Issue 45 item 6: a training seed's file under results/training is offered for
    ``policy`` (after the packaged bots of the game) and plays once picked."""
    from dilemmas.models.policies import BOTS

    shown = game(title)
    box, rc = page
    pick(rc, title)
    mix = next(m for m in control(box, MIXES).items if m.startswith("policy"))
    path = str(policy_file(trainings(shown.name), shown, mix, kind).relative_to(Path.cwd()))
    set_control(box, "population", mix)  # refused until the policy is given
    assert any("policy" in m for m in messages(box))
    assert caption(rc) == opening(title)
    files = control(box, "policy: a file listed").items
    bots = sorted(b.name for b in BOTS.glob(f"{shown.name}_*.npz"))   # by name, not path
    assert files == bots + [path]
    set_control(box, "policy: a file listed", path)
    assert messages(box) == []
    assert caption(rc) == opening(title, population=mix)
    assert "policy (behaviour)" in html_of(box, "key-box")
    click(rc, "Step")
    assert caption(rc) == opening(title, population=mix).replace(" 0 ·", " 1 ·", 1)


@pytest.mark.parametrize("name", ["bucket_brigade", "state_punishment", "stag_hunt",
                                  "firefighting_graph"])
def test_the_packaged_bots_of_each_game_play_on_their_substrate(name):
    """Each packaged bot (``dilemmas.scenarios``) is listed for ``policy`` and plays every
    seat on the parameters it was trained on (its catalogue's substrate)."""
    from urllib.parse import urlencode

    from dilemmas.scenarios.catalogue import catalogues

    catalogue = catalogues()[name]
    shown = GAMES[name]
    for bot in catalogue.bots.values():
        link = urlencode({"game": name, "population": "policy", **{
            key: as_text(value) for key, value in catalogue.substrate.items()}})
        box, rc = solara.render(DashboardAt(f"/?{link}"), handle_error=False)
        try:
            assert bot.path.name in control(box, "policy: a file listed").items
            set_control(box, "policy: a file listed", bot.path.name)
            assert messages(box) == [], bot.name
            model = shown.model(**catalogue.substrate, population="policy",
                                policy=str(bot.path), rng=1)
            assert world(box) == world_of(model)
            click(rc, "Step")
            model.step()
            assert world(box) == world_of(model)
        finally:
            rc.close()


def test_a_bot_is_watched_greedy_or_sampled(page):
    """Issue 45 item 6: ``policy_play`` beside the policy: the bot's seats play sampled from
    the model's rng when it says so, as the model does."""
    from dilemmas.scenarios.catalogue import catalogues

    catalogue = catalogues()["stag_hunt"]
    (bot,) = catalogue.bots.values()
    box, rc = page
    pick(rc, "Stag Hunt Physical")
    for name, value in catalogue.substrate.items():
        set_control(box, name, value)
    set_control(box, "population", "policy")
    set_control(box, "policy: a file listed", bot.path.name)
    assert control(box, "policy_play").items == ["greedy", "sampled"]
    set_control(box, "policy_play", "sampled")
    assert messages(box) == []
    model = game("Stag Hunt Physical").model(**catalogue.substrate, population="policy",
                                             policy=str(bot.path), policy_play="sampled",
                                             rng=1)
    for _ in range(5):
        click(rc, "Step")
        model.step()
        assert world(box) == world_of(model)


@pytest.mark.parametrize("name", ["policy", "learner"])
def test_a_policy_file_not_listed_is_refused_unread(name, trainings, monkeypatch):
    """Issue 45 item 7: a link's ``policy`` or ``learner`` reads only a file the page lists:
    another (even a real policy file, or a server's file) is refused before it is read."""
    import pathlib

    shown = GAMES["firefighting_graph"]
    outside = policy_file(pathlib.Path("elsewhere"), shown, "policy", "linear")
    for path in ("/etc/passwd", str(outside)):
        opened = []
        real_open = pathlib.Path.open
        monkeypatch.setattr(pathlib.Path, "open",
                            lambda self, *a, **k: opened.append(self) or real_open(self, *a, **k))
        monkeypatch.setattr(np, "load", lambda *a, **k: opened.append(a) or 1 / 0)
        box, rc = solara.render(DashboardAt(
            f"/?game=firefighting_graph&population=policy&{name}={path}"), handle_error=False)
        try:
            said = messages(box)
            assert any(m.startswith(f"{name}={path!r} is refused: the page reads only the "
                                    "files it lists") for m in said), said
            assert opened == []
        finally:
            rc.close()
            monkeypatch.undo()
            monkeypatch.chdir(Path.cwd())


# --- dilemmas.dashboard.controls -----------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [
    ("", None), ("   ", None), (None, None), ("(1, 2)", (1, 2)), ("[1, 2.5]", [1, 2.5]),
    ("3", 3), ("maps/x.txt", "maps/x.txt"), ("ABC", "ABC"), ("'quoted'", "quoted")])
def test_from_text_reads_a_literal_or_keeps_the_text(text, value):
    assert from_text(text) == value and type(from_text(text)) is type(value)


def test_shown_value_follows_the_table_until_set():
    bucket = GAMES["bucket_brigade"]
    key, table = bucket.parameters["beta"].table
    assert key == "scenario"
    assert shown_value(bucket, {}, "beta") == table["default"]["beta"]
    assert shown_value(bucket, {"scenario": "hard"}, "beta") == table["hard"]["beta"]
    assert table["hard"]["beta"] != table["default"]["beta"]
    assert shown_value(bucket, {"scenario": "hard"}, "beta") == \
        bucket.model(scenario="hard", rng=0).beta
    assert shown_value(bucket, {"scenario": "hard", "beta": 0.9}, "beta") == 0.9
    assert shown_value(bucket, {}, "num_agents") == 4  # no table: the default
    graph = GAMES["firefighting_graph"]
    for preset in graph.parameters["preset"].kind.options:
        model = graph.model(preset=preset, rng=0)
        values = shown_values(graph, {"preset": preset})
        assert values["p_ignite"] == model.p_ignite and \
            values["max_fire_level"] == model.max_fire_level, preset


def test_mixes_are_those_that_add_up_to_the_number_of_agents():
    bucket = GAMES["bucket_brigade"]
    four = mixes(bucket, shown_values(bucket, {}))
    five = mixes(bucket, shown_values(bucket, {"num_agents": 5}))
    declared = list(bucket.parameters["population"].control.values)
    assert four == declared  # all declared for the default four agents
    assert "policy:2,free_rider:2" in four and "policy:2,free_rider:2" not in five
    assert [m for m in declared if ":" not in m] == five  # a bare behaviour fills any number
    graph = GAMES["firefighting_graph"]
    assert all(":" not in m for m in mixes(graph, shown_values(graph, {"n_agents": 8})))


@pytest.mark.parametrize("name, parameters, blamed", [
    ("bucket_brigade", {"num_houses": 0}, "num_houses"),
    ("bucket_brigade", {"work_costs": (1, 2)}, "work_costs"),
    ("stag_hunt", {"ascii_map": "maps/no_such_map.txt"}, "ascii_map"),
    ("state_punishment", {"width": 3, "height": 3}, "width"),
    ("bucket_brigade", {"population": "random:1000"}, "population"),
    ("stag_hunt", {"height": 3, "width": 3}, None),  # "the map (...) has ... too few"
])
def test_blame_finds_the_parameter_a_model_error_names(name, parameters, blamed):
    shown = GAMES[name]
    with pytest.raises(ValueError) as error:
        shown.model(**parameters, rng=0)
    assert blame(shown, str(error.value)) == blamed


def test_blame_names_no_parameter_for_a_message_about_none():
    shown = GAMES["bucket_brigade"]
    assert blame(shown, "the model raised while stepping") is None
    assert blame(shown, "betas are invalid") is None


# --- dilemmas.dashboard.charts -------------------------------------------------------------------------

RATE = Plot("Rate", "rate (fraction of agents)", (Series("r", "rate", "#0072B2"),), high=1.0)


def y_ticks(svg: str) -> list[float]:
    return [float(t) for t in re.findall(r'text-anchor="end">([^<]+)</text>', svg)]


def test_a_missing_value_leaves_a_gap():
    svg = chart(RATE, {"r": [0.1, 0.2, math.nan, 0.3, 0.4]}, "turn")
    assert svg.count("<polyline") == 2
    whole = chart(RATE, {"r": [0.1, 0.2, 0.25, 0.3, 0.4]}, "turn")
    assert whole.count("<polyline") == 1
    assert chart(RATE, {"r": [math.nan] * 4}, "turn").count("<polyline") == 0


def test_a_chart_labels_its_axes_and_series():
    plot = Plot("Prey", "prey (count)", (Series("a", "stags", "#8C510A"),
                                         Series("b", "hares", "#DFC27D", dashed=True)))
    svg = chart(plot, {"a": [0, 1, 2], "b": [3, 2, 5]}, "turn (rounds played)")
    for text in ("Prey", "prey (count)", "turn (rounds played)", "stags", "hares"):
        assert f">{text}</text>" in svg, text
    assert 'stroke="#8C510A"' in svg and 'stroke="#DFC27D"' in svg
    ticks = y_ticks(svg)
    assert len(ticks) >= 3 and min(ticks) == 0 and max(ticks) <= 5


def test_current_marks_a_round():
    from dilemmas.dashboard.charts import LEFT, RIGHT, WIDTH

    data = {"r": [0.5] * 21}  # rounds 0..20
    plain, marked = chart(RATE, data, "turn"), chart(RATE, data, "turn", current=5)
    x = LEFT + (WIDTH - LEFT - RIGHT) * 5 / 20
    assert f'x1="{x:.1f}" x2="{x:.1f}"' in marked and f'x1="{x:.1f}"' not in plain
    assert marked.count("<line") == plain.count("<line") + 1


def test_a_rate_plots_axis_runs_from_0_to_1():
    svg = chart(RATE, {"r": [0.01, 0.02, 0.03]}, "turn")
    assert min(y_ticks(svg)) == 0 and max(y_ticks(svg)) == 1


def test_plots_high_from_the_model_sets_the_axis():
    plot = Plot("Houses", "houses (count)", (Series("s", "safe", "#009E73"),),
                high=lambda model: model.num_houses)
    svg = chart(plot, {"s": [1, 2]}, "night", high=12)
    assert max(y_ticks(svg)) <= 12 and max(y_ticks(svg)) >= 10


@pytest.mark.parametrize("name", list(GAMES))
def test_each_games_plots_draw_its_collected_columns_and_rates_are_0_to_1(name):
    shown = GAMES[name]
    model = shown.model(rng=3)
    for _ in range(5):
        model.step()
    data = model.datacollector.model_vars
    for plot in shown.view.plots:
        assert set(plot.columns) <= set(data), (plot.title, set(plot.columns) - set(data))
        if any(word in plot.axis for word in ("rate", "fraction", "probability")):
            assert (plot.low, plot.high) == (0.0, 1.0), plot.title
            values = [x for c in plot.columns for x in data[c] if not math.isnan(x)]
            assert all(0 <= x <= 1 for x in values), plot.title


# --- dilemmas.dashboard.scene --------------------------------------------------------------------------

COLOURS = ("#ffffff", "#6b6b6b", "#8C510A", "#DFC27D")


def grid(rows, cols):
    return np.arange(rows * cols).reshape(rows, cols) % len(COLOURS)


def test_a_grid_of_many_cells_is_one_image_of_a_pixel_per_cell():
    from matplotlib.colors import to_rgb
    from PIL import Image

    codes = grid(20, 21)  # 420 cells: rows and columns apart, so a transposition shows
    assert codes.size > MANY_CELLS
    svg = to_svg(Scene(21, 20, scale=10).add(Cells(codes, COLOURS)), label="many")
    assert svg.count("<image") == 1 and "<rect" not in svg
    assert 'width="21" height="20"' in svg
    data = re.search(r'href="data:image/png;base64,([^"]+)"', svg).group(1)
    pixels = np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))
    expected = (np.array([to_rgb(c) for c in COLOURS]) * 255).round()[codes]
    assert pixels.shape == (20, 21, 3) and np.array_equal(pixels, expected)


def test_a_grid_of_few_cells_is_a_rect_per_cell_with_its_tip():
    codes = grid(20, 20)  # exactly MANY_CELLS
    svg = to_svg(Scene(20, 20, scale=10).add(Cells(codes, COLOURS, tips=tuple("abcd"))))
    assert "<image" not in svg and svg.count("<rect") == 400
    assert f'<rect x="3.0" y="1.0" width="1" height="1" fill="{COLOURS[codes[1, 3]]}">' \
           f"<title>{'abcd'[codes[1, 3]]}</title></rect>" in svg


def test_to_svg_sizes_the_drawing_and_escapes_text():
    scene = Scene(4, 2, scale=25).add(Text(1, 1, "a<b & c"), Rect(0, 0, 1, 1, "red",
                                                                    tip='"quoted"'))
    svg = to_svg(scene, label="x & y")
    assert 'width="100" height="50" viewBox="0 0 4.000 2.000"' in svg
    assert "a&lt;b &amp; c" in svg and 'aria-label="x &amp; y"' in svg
    assert "&quot;quoted&quot;" in svg
    with pytest.raises(TypeError):
        to_svg(Scene(1, 1, 1).add("not a shape"))


def every_shape() -> Scene:
    return Scene(30, 20, scale=12).add(
        Cells(grid(20, 21), COLOURS), Marks(((1.5, 2.5), (3.5, 4.5)), 0.4, "#000000"),
        Marks((), 0.4, "#000000"), Rect(2, 2, 3, 1, "#0072B2", stroke="#000000", opacity=0.5),
        Circle(10, 10, 2, "#E69F00"), Polygon(((0, 0), (1, 0), (0, 1)), "#000000"),
        Text(15, 15, "label", anchor="start", bold=True))


def test_draw_on_draws_every_shape_on_a_matplotlib_axes():
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    draw_on(ax, every_shape())
    assert len(ax.images) == 1 and len(ax.patches) == 3 and len(ax.texts) == 1
    assert len(ax.collections) == 1  # the marks; no empty scatter for no marks
    assert ax.get_xlim() == (0, 30) and ax.get_ylim() == (20, 0)


@pytest.mark.parametrize("name", list(GAMES))
def test_each_games_world_draws_as_svg_and_on_matplotlib(name):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    model = GAMES[name].model(rng=2)
    model.step()
    scene = GAMES[name].view.scene(model)
    assert to_svg(scene).startswith("<svg")
    figure = Figure()
    draw_on(figure.add_subplot(), scene)
    FigureCanvasAgg(figure).draw()


@pytest.mark.parametrize("agent_config, said", [
    (None, "A: hunts stags and hares; B: harms hares only"),
    ([{"kind": "A"}, {"kind": "B", "can_hunt": False}, {"kind": "B", "can_hunt": True}],
     "A: hunts stags and hares; B: some hunt stags, some harm hares only"),
])
def test_the_stag_hunt_key_says_what_each_kind_can_do(agent_config, said):
    """Issue 45 item 5: "kind (A, B)" explained: each kind and what its hunters can hunt
    (``can_hunt``, docs/rules/stag_hunt.md)."""
    shown = GAMES["stag_hunt"]
    model = shown.model(num_agents=3, agent_config=agent_config, rng=1)
    key = key_html(shown.view.key(model))
    assert f"inside: its seat and kind ({said})" in key


def test_every_agent_disc_is_ringed_in_white_to_stand_apart_from_its_cell():
    for name in ("bucket_brigade", "state_punishment", "stag_hunt", "firefighting_graph"):
        shown = GAMES[name]
        model = shown.model(rng=1)
        discs = [s for s in shown.view.scene(model).shapes if isinstance(s, Circle)]
        assert discs and all(d.halo > 0 for d in discs), shown.name
        svg = world_of(model)
        assert svg.count('fill="none" stroke="#FFFFFF"') >= len(discs)


@pytest.mark.parametrize("orientation", range(4))
def test_a_hunters_wedge_points_the_way_it_faces(orientation):
    row, col = 5, 7
    wedge = facing_wedge(row, col, orientation)
    dr, dc = DIRECTIONS[orientation]
    cx, cy = col + 0.5, row + 0.5
    tip = max(wedge.points, key=lambda xy: (xy[0] - cx) * dc + (xy[1] - cy) * dr)
    assert tip == pytest.approx((cx + 0.5 * dc, cy + 0.5 * dr), abs=1e-9)
    others = [p for p in wedge.points if p != tip]  # the base, across the facing
    assert len(others) == 2
    for x, y in others:
        assert (x - cx) * dc + (y - cy) * dr == pytest.approx(0.28)


# --- the page's address ---------------------------------------------------------------------

@pytest.mark.parametrize("given", [
    {"num_agents": 5, "population": "firefighter:3,free_rider:2", "beta": 0.35},
    {"scenario": "default", "max_steps": 12, "c": 1.5},
])
def test_an_address_gives_back_the_game_seed_and_parameters_it_was_made_of(given):
    shown = address.Address("bucket_brigade", "play", 8071234567, given)
    assert address.read(shown.url()[2:], GAMES) == shown
    runs = shown.with_(mode="runs")
    assert address.read(runs.url()[2:], GAMES) == runs  # the game is kept for the way back


def test_an_address_keeps_a_literal_a_text_and_none_apart():
    shown = address.Address("state_punishment", given={
        "spawn_weights": (1, 2, 1, 1, 1), "taboo": "AB", "vision_radius": 3})
    assert address.read(shown.url()[2:], GAMES).given == shown.given
    assert address.read("", GAMES) == address.Address(next(iter(GAMES)))


@pytest.mark.parametrize("search, said", [
    ("game=chess", "game='chess' is not a game here"),
    ("game=firefighting_graph&colour=blue", "Firefighting Graph has no parameter 'colour'"),
    ("mode=edit", "mode='edit' is not one of play, runs"),
    ("seed=1&seed=2", "'seed' is given twice"),
])
def test_an_address_the_page_cannot_use_is_said_and_the_rest_is_used(search, said):
    shown = address.read(search, GAMES)
    assert said in shown.problem and "\n" not in shown.problem
    assert shown.game in GAMES and shown.mode in address.MODES


def test_a_control_changed_goes_to_a_new_address_and_back_goes_to_the_last():
    addresses = []
    box, rc = solara.render(DashboardAt("/?game=firefighting_graph&seed=3", addresses),
                            handle_error=False)
    set_control(box, "layout", "grid")
    assert addresses[-1] == "/?game=firefighting_graph&seed=3&layout=grid"
    assert caption(rc) == "step 0 · population random · seed 3"
    for name in ("n_width", "n_height"):  # used now, and n_agents no longer
        assert not control(box, name).disabled
    assert control(box, "n_agents").disabled
    assert any(t.startswith("Not used now (used only with layout='row')")
               for t in help_lines(box))
    set_control(box, "n_width", 3)
    assert addresses[-1] == "/?game=firefighting_graph&seed=3&layout=grid&n_width=3"
    world_3 = world(box)
    assert world_3 == world_of(GAMES["firefighting_graph"].model(layout="grid", n_width=3,
                                                                   rng=3))
    GO_TO[0]("/?game=firefighting_graph&seed=3&layout=grid")
    assert world(box) == world_of(GAMES["firefighting_graph"].model(layout="grid", rng=3))
    rc.close()


def help_lines(box) -> list[str]:
    return [w.children[0] for w in widgets_under(box) if isinstance(w, ipyvue.Html)
            and "control-help" in (w.class_ or "").split()]


def test_every_control_says_what_its_parameter_means_and_allows(page):
    box, rc = page
    lines = help_lines(box)
    for parameter in GAMES["bucket_brigade"].parameters:
        text = f"{parameter.meaning}. Allowed: {parameter.allowed()}".replace("`", "")
        assert text in lines, parameter.name


@pytest.mark.parametrize("seed, said", [("", "rng=None is invalid"),
                                        ("1.0", "rng=1.0 is invalid"),
                                        ("-2", "rng=-2 is invalid")])
def test_a_seed_the_page_cannot_play_is_said_and_kept_in_the_address(seed, said):
    addresses = []
    box, rc = solara.render(DashboardAt(f"/?game=bucket_brigade&seed={seed}", addresses),
                            handle_error=False)
    assert any(m.startswith(said) for m in messages(box)), messages(box)
    assert caption(rc) == opening("Bucket Brigade")  # the defaults, at seed 1
    set_control(box, "num_agents", 5)
    assert addresses[-1] == f"/?game=bucket_brigade&seed={seed}&num_agents=5"
    assert any(m.startswith(said) for m in messages(box))
    rc.close()


def test_a_parameter_used_only_when_two_things_hold_is_greyed_until_both_do():
    box, rc = solara.render(DashboardAt("/?game=stag_hunt"), handle_error=False)
    # single_tile_attack needs attack_mode=None and area_attack=False; area_attack needs the first
    assert control(box, "single_tile_attack").disabled
    assert not control(box, "area_attack").disabled
    set_control(box, "area_attack", False)
    assert not control(box, "single_tile_attack").disabled
    set_control(box, "attack_mode", "beam")
    assert control(box, "single_tile_attack").disabled and control(box, "area_attack").disabled
    assert any(t.startswith("Not used now (used only with attack_mode=None and "
                            "area_attack=False)") for t in help_lines(box))
    rc.close()


def test_a_link_naming_a_packaged_bot_plays_it_from_any_working_folder(tmp_path, monkeypatch):
    """Issue 63 item 2: a policy choice of a packaged bot is kept by its file name, so a
    link made on one checkout plays the same bot on another (``policies.policy_file``); a
    file of that name in the working folder is the user's and comes first."""
    from dilemmas.models.policies import BOTS, policy_file

    (bot,) = sorted(BOTS.glob("bucket_brigade_*.npz"))
    monkeypatch.chdir(tmp_path)
    assert policy_file(bot.name) == bot
    box, rc = solara.render(DashboardAt(f"/?game=bucket_brigade&population=policy&policy="
                                        f"{bot.name}"), handle_error=False)
    try:
        assert messages(box) == []
        model = GAMES["bucket_brigade"].model(population="policy", policy=str(bot), rng=1)
        assert world(box) == world_of(model)
    finally:
        rc.close()
    (tmp_path / bot.name).write_bytes(b"the user's own")
    assert policy_file(bot.name) == Path(bot.name)


def test_past_round_0_a_parameter_that_may_change_between_rounds_changes_the_episode(page):
    """Issue 63 (docs/rules/README.md, rule 10): past round 0, Bucket Brigade's ``beta`` set
    in the form changes the episode from the next night on (the caption says so, the rounds
    before it stay), and its world is that of a model changed by hand at that night; a
    parameter the rules fix starts the episode again."""
    box, rc = page
    pick(rc, "Bucket Brigade")
    for _ in range(3):
        click(rc, "Step")
    set_control(box, "beta", 0.9)
    until(lambda: "changed" in caption(rc))
    assert caption(rc) == ("night 3 · population random · seed 1 · changed after night 3: "
                           "beta=0.9")
    click(rc, "Step")
    by_hand = after("Bucket Brigade", 3)
    by_hand.change(beta=0.9)
    by_hand.step()
    assert world(box) == world_of(by_hand)
    assert caption(rc).startswith("night 4 · ")
    set_control(box, "num_houses", 12)      # fixed by the rules: a new episode
    until(lambda: caption(rc) == opening("Bucket Brigade"))


def test_while_a_run_plays_the_controls_the_rules_fix_are_greyed_and_say_why():
    from dilemmas.dashboard.controls import FIXED, Controls

    game_ = game("Firefighting Graph")
    box, rc = solara.render(Controls(game_, {}, lambda *a: None, None, playing=True),
                            handle_error=False)
    lines = help_lines(box)
    for parameter in game_.parameters:
        text = f"{parameter.meaning}. Allowed: {parameter.allowed()}".replace("`", "")
        said = next(line for line in lines if line.endswith(text))
        assert said.startswith(FIXED) != parameter.between_rounds, parameter.name
    assert control(box, "p_ignite").disabled is False
    assert control(box, "max_steps").disabled is True
    rc.close()
