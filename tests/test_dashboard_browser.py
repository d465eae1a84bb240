"""The dashboard in a real browser: ``solara run dilemmas.dashboard.app`` on 127.0.0.1 with the local asset
cache (no network), driven by Playwright in Debian's chromium (``dilemmas.dashboard.serving``), in a
1500 x 1000 window.

For each game served (``dilemmas.GAMES``, the games of ``models``):

* the page: its title, the world drawing with its key (and the Firefighting Graph's colour
  bar), one chart per declared plot with its axis label, the description with its link to
  the rules, and the rules document that link opens; a full-page screenshot;
* Step advances the round counter and the world's status line (the status the model itself
  gives); Play advances several rounds and Pause stops it;
* a value the model refuses, typed in "All parameters": a one-line message beside the field,
  naming it, no traceback, the same game; fixing the value removes the message;
* one agent's view: a seat picked, its reward chart and its last rounds with the game's own
  agent columns.

And for Bucket Brigade, the behaviour mixes offered follow the number of agents, and a mix
that no longer fits is said beside the population control.

The run viewer ("Recorded runs"), on a second server run in a temporary folder whose
``results`` holds a Bucket Brigade study (model engine, agents collected) and a Firefighting
Graph study (batch engine): a run opened by study and run id verifies identical and the
scrubber moves its world forwards and backwards; two runs side by side move together; a
batch-engine run is replayed from its block as a world, verifies identical and scrubs; a
Bucket Brigade replay file opens and verifies, a damaged one is refused in one line; an
unknown run id is refused in one line.
Every test ends with no console error, no page error, no failed request and no request to a
host other than 127.0.0.1 (``dilemmas.dashboard.serving.watch``). Screenshots go to each test's
temporary folder and, if ``DASHBOARD_SCREENSHOTS`` names a folder, there too.
"""

import os
import re
import urllib.parse
from pathlib import Path

import pytest
from playwright.sync_api import expect

from dilemmas.analysis.studies.runner import run_study
from dilemmas.analysis.studies.study import Study
from dilemmas.dashboard import export, runs
from dilemmas.dashboard.play import caption_of as play_caption
from dilemmas.dashboard.charts import chart
from dilemmas.dashboard.controls import mixes, problem, shown_values
from dilemmas.dashboard.panels import agent_columns
from dilemmas.dashboard.serving import chromium, serving, watch
from dilemmas.dashboard.viewer import in_order
from dilemmas import GAMES
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.replay import save_replay

#: The page's title before the game's (``app.TITLE``).
TITLE = "dilemmas: social-dilemma games"
VIEWPORT = {"width": 1500, "height": 1000}
WAIT = 30_000  # ms: the longest any expected change may take
#: The items of the drop-down menu open now.
MENU = ".v-menu__content.menuable__content__active .v-list-item"

#: The games ``solara run dilemmas.dashboard.app`` serves: those of ``dilemmas`` (a test-only
#: game registers in the test process only).
SERVED = [game for game in GAMES.values() if game.model.__module__.startswith("dilemmas.")]

#: Per game: a number field under "All parameters", a value the model refuses and one it
#: takes (checked against the declarations in ``test_the_refused_values_are_refused``).
REFUSED = {
    "bucket_brigade": ("num_houses", 2, 12),
    "state_punishment": ("width", 2, 8),
    "stag_hunt": ("height", 2, 11),
    "firefighting_graph": ("max_steps", 0, 50),
}
#: Per game: columns of its agents' rows that the one-agent table must show.
AGENT_COLUMNS = {
    "bucket_brigade": ("signal", "mode", "lied"),
    "state_punishment": ("collected", "votes_up", "votes_down"),
    "stag_hunt": ("kind", "health"),
    "firefighting_graph": ("house", "observation"),
}

#: In the page: how much taller than the window its tallest scrolled part is, in pixels.
OVERFLOW = """() => Math.max(0, ...[...document.querySelectorAll('*')]
    .map(e => e.scrollHeight - e.clientHeight))"""

BB_STUDY = """\
game = "bucket_brigade"
seed = 4
replicates = 2
collect = ["model", "agent"]
engine = "model"

[fixed]
max_steps = 30
"""

FG_BATCH_STUDY = """\
game = "firefighting_graph"
seed = 3
replicates = 1
engine = "auto"

[fixed]
max_steps = 10
population = "random"
"""

#: More runs than a drop-down used to hold (200), in two swept values whose text order is
#: not their numeric order (0.05 and 0.1 are "0.05" < "0.1", but 2 and 10 are not)
SWEEP_STUDY = """\
game = "firefighting_graph"
seed = 8
replicates = 105
engine = "auto"

[fixed]
max_steps = 3

[sweep]
p_ignite = [0.1, 0.05]
"""


# --- Fixtures and helpers -----------------------------------------------------------------

@pytest.fixture(scope="module", autouse=True)
def patience():
    """Playwright's assertions wait up to ``WAIT`` in this module (then its default again)."""
    expect.set_options(timeout=WAIT)
    yield
    expect.set_options(timeout=5_000)


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def url():
    """The dashboard served from the repository."""
    with serving() as address:
        yield address


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport=VIEWPORT)
    page.set_default_timeout(WAIT)
    yield page
    page.close()


@pytest.fixture
def problems(page):
    """What the page must never meet (``watch``); every test ends asserting it is empty."""
    return watch(page)


#: In the page: Solara has stopped fading its content (it does while the server works).
SETTLED = """() => [...document.querySelectorAll('.solara-content-main')]
    .every(e => getComputedStyle(e).opacity === '1')"""


def settled(page):
    """Wait until the page is drawn in full (no fading while the server works)."""
    page.wait_for_function(SETTLED)


def screenshot(page, tmp_path: Path, name: str) -> Path:
    """The whole page as a PNG in ``tmp_path`` (and in ``$DASHBOARD_SCREENSHOTS``): the
    window is made tall enough for the page's scrolled parts for the shot."""
    settled(page)
    extra = page.evaluate(OVERFLOW)
    page.set_viewport_size({**VIEWPORT, "height": min(VIEWPORT["height"] + extra, 8_000)})
    try:
        image = page.screenshot(full_page=True)
    finally:
        page.set_viewport_size(VIEWPORT)
    folders = [tmp_path]
    if os.environ.get("DASHBOARD_SCREENSHOTS"):
        folders.append(Path(os.environ["DASHBOARD_SCREENSHOTS"]))
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.png").write_bytes(image)
    assert image[:8] == b"\x89PNG\r\n\x1a\n"
    return tmp_path / f"{name}.png"


def no_traceback(page):
    expect(page.locator("body")).not_to_contain_text("Traceback")


def one_line(locator) -> str:
    """The text of a message, checked to be one line."""
    text = locator.inner_text().strip()
    assert text and "\n" not in text, f"not one line: {text!r}"
    return text


def choose(page, select, text: str):
    """Pick ``text`` from the drop-down ``select``."""
    select.click()
    page.locator(MENU).filter(has_text=re.compile(f"^\\s*{re.escape(text)}\\s*$")).click()


def offered(page, select) -> list[str]:
    """The items the drop-down ``select`` offers (the menu is closed again)."""
    select.click()
    expect(page.locator(MENU).first).to_be_visible()
    items = [item.strip() for item in page.locator(MENU).all_inner_texts()]
    page.keyboard.press("Escape")
    expect(page.locator(MENU)).to_have_count(0)
    return items


def open_game(page, url: str, game, **parameters):
    """The dashboard with ``game`` at round 0, opened by its address (with ``parameters``
    set, values as their fields take them)."""
    page.goto(url + "?" + urllib.parse.urlencode({"game": game.name, **parameters}))
    expect(page).to_have_title(f"{TITLE}: {game.title}")
    expect(page.locator(f'.world svg[aria-label="{game.title}: the world"]')).to_have_count(1)
    expect(page.locator(".world-caption")).to_have_text(
        re.compile(f"^{game.round} 0 · population "))
    drawer = page.locator(".v-navigation-drawer")
    expect(drawer.get_by_text(re.compile(f"^{own_control(game)}( = .*)?$"))).to_be_visible()
    expect(drawer.get_by_text("All parameters", exact=True)).to_have_count(1)


def address_of(page) -> dict:
    """The page's address as a dict of its query's values."""
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(page.url).query))


def own_control(game) -> str:
    """A parameter with a declared control that no other served game has."""
    others = {p.name for other in SERVED if other is not game for p in other.parameters}
    return next(p.name for p in game.parameters
                if p.control is not None and p.name not in others)


def caption_round(page) -> int:
    return int(page.locator(".world-caption").inner_text().split(" ")[1])


def status_after(game, steps: int, seed: int = 1, **parameters) -> str:
    """The world's status line of ``game`` at ``seed`` after ``steps`` rounds, as the model
    gives it (the page must show the same)."""
    model = game.model(**parameters, rng=seed)
    for _ in range(steps):
        model.step()
    return game.view.status(model)


def set_slider(page, slider, presses: list[str]):
    slider.focus()
    for key in presses:
        slider.press(key)


def beside(field):
    """The element right after the control holding ``field`` (where its message goes)."""
    return field.locator("xpath=ancestor::div[contains(concat(' ', @class, ' '), "
                         "' v-input ')][1]/following-sibling::*[1]")


def by_game(games=SERVED):
    return pytest.mark.parametrize("game", games, ids=[game.name for game in games])


# --- The declarations the tests lean on -------------------------------------------------

@by_game()
def test_the_refused_values_are_refused(game):
    """``REFUSED`` holds, for every served game, a number field the model refuses at one
    value and takes at another (as the page's own check says), and ``AGENT_COLUMNS`` the
    columns its agents' rows have."""
    name, bad, good = REFUSED[game.name]
    assert game.parameters[name].control is None  # a field under "All parameters"
    assert problem(game, {name: bad})[0] == name
    assert problem(game, {name: good}) is None
    model = game.model(rng=1)
    model.step()
    columns = model.datacollector.get_agent_vars_dataframe().columns
    assert set(AGENT_COLUMNS[game.name]) <= {"reward", *columns}


# --- Playing a game -------------------------------------------------------------------------

@by_game()
def test_the_page_shows_the_world_key_plots_description_and_rules(
        url, page, problems, game, tmp_path):
    open_game(page, url, game)
    expect(page).not_to_have_title(re.compile("Solara"))
    # the world, its key (and a colour bar for the Firefighting Graph's fire levels)
    expect(page.locator(".world svg")).to_have_count(1)
    expect(page.locator(".world-key .key-entry").first).to_be_visible()
    bars = page.locator(".world-key .key-bar")
    if game.name == "firefighting_graph":
        expect(bars.first).to_be_visible()
        expect(bars.first.locator(".bar-cell").first).to_be_visible()
    # one chart per declared plot, each with its title and axis label
    plots = page.locator(".plots svg")
    expect(plots).to_have_count(len(game.view.plots))
    for plot in game.view.plots:
        chart = page.locator(f'.plots svg[aria-label="{plot.title}"]')
        expect(chart).to_have_count(1)
        expect(chart.locator("text", has_text=plot.axis).first).to_be_visible()
        expect(page.get_by_text(plot.axis, exact=True).first).to_be_visible()
    # the description and its link to the rules
    description = page.locator(".game-description")
    expect(description).to_contain_text(game.view.description[:60])
    link = description.locator(f'a[href="/rules/{game.name}"]')
    expect(link).to_have_count(1)
    no_traceback(page)
    screenshot(page, tmp_path, game.name)

    heading = next(line[2:].strip() for line in game.rules.read_text().splitlines()
                   if line.startswith("# "))
    page.goto(urllib.parse.urljoin(url, link.get_attribute("href")))
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    expect(page.get_by_role("heading", name="Parameters", exact=True)).to_be_visible()
    expect(page).to_have_title(f"{TITLE}: the rules of {game.title}")
    no_traceback(page)
    assert problems == []


SIZES = ({"width": 1500, "height": 1000}, {"width": 1280, "height": 800})


@pytest.mark.parametrize("size", SIZES, ids=["1500x1000", "1280x800"])
@by_game()
def test_at_both_window_sizes_nothing_is_cut_off(url, page, problems, game, size, tmp_path):
    """The page at the window sizes of a laptop and a desktop: no part wider than the
    window, the sidebar and the world side by side, the world's key beside or under it;
    a screenshot of the window as it is (no scrolling)."""
    page.set_viewport_size(size)
    open_game(page, url, game)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= size["width"]
    drawer = page.locator(".v-navigation-drawer").bounding_box()
    world = page.locator(".world svg").bounding_box()
    key = page.locator(".key-box").bounding_box()
    assert world["x"] >= drawer["x"] + drawer["width"], (drawer, world)
    for box in (world, key):
        assert box["x"] + box["width"] <= size["width"] + 0.5, box
    assert world["y"] < size["height"] and key["y"] < size["height"]
    settled(page)
    image = page.screenshot()
    name = f"{game.name}_{size['width']}x{size['height']}"
    for folder in [tmp_path, *([Path(os.environ["DASHBOARD_SCREENSHOTS"])]
                               if os.environ.get("DASHBOARD_SCREENSHOTS") else [])]:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.png").write_bytes(image)
    assert problems == []


@by_game()
def test_step_play_and_pause(url, page, problems, game):
    open_game(page, url, game)
    caption, status = page.locator(".world-caption"), page.locator(".world-status")
    expect(status).to_have_text(status_after(game, 0))

    page.get_by_role("button", name="Step", exact=True).click()
    expect(caption).to_have_text(re.compile(f"^{game.round} 1 · population random · seed 1$"))
    expect(status).to_have_text(status_after(game, 1))

    # Play at 5 rounds a second: several rounds, then Pause stops it
    set_slider(page, page.locator(".speed [role=slider]"), ["Home"] + ["ArrowRight"] * 4)
    expect(page.locator(".speed")).to_contain_text("speed = 5 rounds/s")
    page.get_by_role("button", name="Play", exact=True).click()
    expect(page.get_by_role("button", name="Step", exact=True)).to_be_disabled()
    page.wait_for_function("() => parseInt(document.querySelector('.world-caption')"
                           ".textContent.split(' ')[1]) >= 4")
    page.get_by_role("button", name="Pause", exact=True).click()
    # the page says Play once the last round is played and shown: none comes after it
    expect(page.get_by_role("button", name="Play", exact=True)).to_be_enabled()
    expect(page.get_by_role("button", name="Step", exact=True)).to_be_enabled()
    paused = caption_round(page)
    assert paused >= 4
    page.get_by_role("button", name="Step", exact=True).click()
    expect(caption).to_have_text(re.compile(f"^{game.round} {paused + 1} · "))
    expect(status).to_have_text(status_after(game, paused + 1))
    assert caption_round(page) == paused + 1
    no_traceback(page)
    assert problems == []


@by_game()
def test_a_played_games_first_plot_is_whole_above_the_fold_at_1280_by_800(
        url, page, problems, game):
    """Issue 45 item 5: the key and the plots stand beside the world, the first plot whole
    within the window at 1280 x 800; a wide world (the Firefighting Graph's row, issue 63)
    across the page, its key and plots under it."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_game(page, url, game)
    first = page.locator(".plots svg").first.bounding_box()
    assert first["y"] + first["height"] <= 800 and first["x"] + first["width"] <= 1280, first
    world = page.locator(".world svg").bounding_box()
    if "wide" in page.locator(".world").get_attribute("class"):
        assert game.name == "firefighting_graph"
        assert first["y"] >= world["y"] + world["height"], (first, world)
    else:
        assert first["x"] >= world["x"] + world["width"], (first, world)
    assert problems == []


@pytest.mark.parametrize("game", [GAMES["stag_hunt"], GAMES["firefighting_graph"]],
                         ids=["stag_hunt", "firefighting_graph"])
def test_a_wide_window_draws_the_world_larger_and_a_row_legibly(url, page, problems, game):
    """Issue 63: at 1920 x 1080 the world grows with the window (a square map to about 830
    pixels, its key and plots still beside it and the first plot above the fold), and the
    Firefighting Graph's row is drawn across the page, its houses' numbers at least 14
    pixels high at 1280 x 800 too."""
    for width, height in ((1920, 1080), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        open_game(page, url, game)
        world = page.locator(".world svg").bounding_box()
        first = page.locator(".plots svg").first.bounding_box()
        assert first["y"] + first["height"] <= height, first
        if game.name == "stag_hunt":
            assert world["height"] <= height - 200 and \
                world["width"] >= (800 if width == 1920 else 460), world
            assert first["x"] >= world["x"] + world["width"], (first, world)
        else:
            assert world["width"] >= width - 500, world
            number = page.locator(".world svg text").first.bounding_box()
            assert number["height"] >= 14, number
    assert problems == []


@by_game()
def test_play_and_pause_clicked_twice_quickly_stop_within_a_round(url, page, problems, game):
    """Issue 45 item 3: Play, Pause, Play, Pause clicked as fast as the browser can (each
    before the page has redrawn) leave it paused on Play, the caption and the world of one
    round, and no round playing: Step then plays exactly one."""
    open_game(page, url, game)
    caption, status = page.locator(".world-caption"), page.locator(".world-status")
    button = page.locator(".play-pause")
    for _ in range(2):
        button.click()
        button.click()
    # the page's messages are handled in the order sent: once the switch clicked after them
    # has shown the agent panel, the server has handled all four clicks
    page.get_by_text("One agent: its behaviour, reward and last rounds").click()
    expect(page.locator(".agent-picker")).to_be_visible()
    expect(button).to_have_text("Play")
    expect(page.get_by_role("button", name="Step", exact=True)).to_be_enabled()
    paused = caption_round(page)
    expect(status).to_have_text(status_after(game, paused))
    page.get_by_role("button", name="Step", exact=True).click()
    expect(caption).to_have_text(re.compile(f"^{game.round} {paused + 1} · "))
    expect(status).to_have_text(status_after(game, paused + 1))
    assert problems == []


#: Every caption the page shows from now on, in order (``window.captions``).
WATCH_CAPTIONS = """() => {
  window.captions = [];
  const note = () => {
    const shown = document.querySelector('.world-caption');
    const text = shown ? shown.textContent : null;
    if (text && window.captions[window.captions.length - 1] !== text) window.captions.push(text);
  };
  new MutationObserver(note).observe(document.body,
                                     {childList: true, characterData: true, subtree: true});
}"""


#: Every (caption, status line) pair the page shows from now on, in order (``window.pairs``).
WATCH_PAIRS = """() => {
  window.pairs = [];
  const text = (name) => {
    const shown = document.querySelector(name);
    return shown ? shown.textContent : null;
  };
  const note = () => {
    const pair = [text('.world-caption'), text('.world-status')];
    const last = window.pairs[window.pairs.length - 1];
    if (pair[0] && pair[1] && !(last && last[0] === pair[0] && last[1] === pair[1]))
      window.pairs.push(pair);
  };
  new MutationObserver(note).observe(document.body,
                                     {childList: true, characterData: true, subtree: true});
}"""


@pytest.mark.parametrize("game", [GAMES["state_punishment"], GAMES["stag_hunt"]],
                         ids=["state_punishment", "stag_hunt"])
def test_while_playing_the_caption_and_the_world_always_show_one_round(
        url, page, problems, game):
    """Issue 63: the caption, the status line and the world are one widget, changed in one
    update: every pair of caption and status line seen while a whole episode plays at 30
    rounds a second is of one round (before, 2 of 361 and 5 of 302 frames were not)."""
    open_game(page, url, game, max_steps=60)
    set_slider(page, page.locator(".speed [role=slider]"), ["End"])
    expect(page.get_by_text("speed = 30 rounds/s")).to_be_visible()
    page.evaluate(WATCH_PAIRS)
    page.locator(".play-pause").click()
    expect(page.locator(".world-caption")).to_contain_text("episode over", timeout=WAIT)
    model = game.model(max_steps=60, rng=1)
    statuses = [game.view.status(model)]
    while model.running:
        model.step()
        statuses.append(game.view.status(model))
    pairs = page.evaluate("() => window.pairs")
    assert len(pairs) >= 40, pairs
    for caption, status in pairs:
        assert status == statuses[int(caption.split(" ")[1])], (caption, status)
    assert problems == []


def test_while_playing_a_parameter_the_rules_let_change_changes_the_episode(
        url, page, problems):
    """Issue 63 (docs/rules/README.md, rule 10): while a Firefighting Graph plays, its
    ``p_ignite`` slider changes the episode from the next step on (the run goes on, the
    caption names the change) and the controls the rules fix are greyed, saying why."""
    game = GAMES["firefighting_graph"]
    open_game(page, url, game, max_steps=1000)
    set_slider(page, page.locator(".speed [role=slider]"), ["Home"] + ["ArrowRight"] * 4)
    page.locator(".play-pause").click()
    expect(page.locator(".play-pause")).to_have_text("Pause")
    drawer = page.locator(".v-navigation-drawer")
    field = drawer.get_by_role("textbox", name="layout", exact=True)
    expect(field).to_be_disabled()
    expect(drawer.get_by_text(re.compile(r"^Fixed while the run plays.*houses on a line or "
                                         r"on a grid"))).to_have_count(1)
    slider = page.locator(".v-input", has_text=re.compile(r"p_ignite = ")).locator(
        "[role=slider]")
    expect(slider).to_be_enabled()
    set_slider(page, slider, ["ArrowRight"])
    expect(page.locator(".world-caption")).to_contain_text(
        re.compile(r" · changed after step \d+: p_ignite=0\.35$"))
    changed_at = caption_round(page)
    page.wait_for_function(  # still playing, with the change
        "k => parseInt(document.querySelector('.world-caption').textContent.split(' ')[1]) "
        ">= k", arg=changed_at + 2, timeout=WAIT)
    page.locator(".play-pause").click()
    expect(page.locator(".play-pause")).to_have_text("Play")
    expect(field).to_be_enabled()
    assert problems == []


def test_go_to_a_round_run_to_end_and_draw_every_fifth_round(url, page, problems):
    """Issue 45 item 2: round k forward and back, the episode's end at once, and Play
    drawing every fifth round only; the caption and the world always of one round."""
    game = GAMES["firefighting_graph"]
    open_game(page, url, game, max_steps=23)
    caption, status = page.locator(".world-caption"), page.locator(".world-status")
    field = page.locator(".go-to-round input")
    for k in (6, 2, 17):
        field.fill(str(k))
        field.press("Enter")
        expect(caption).to_have_text(re.compile(f"^{game.round} {k} · "))
        expect(status).to_have_text(status_after(game, k, max_steps=23))
    page.locator(".run-to-end").click()
    expect(caption).to_have_text(re.compile(f"^{game.round} 23 · episode over"))
    expect(status).to_have_text(status_after(game, 23, max_steps=23))
    expect(page.locator(".run-to-end")).to_be_disabled()
    page.get_by_role("button", name="Reset", exact=True).click()
    expect(caption).to_have_text(re.compile(f"^{game.round} 0 · "))
    choose(page, page.locator(".draw-every"), "5")
    expect(page.locator(".speed")).to_contain_text("speed = 10 draws/s (50 rounds/s)")
    page.evaluate(WATCH_CAPTIONS)
    page.locator(".play-pause").click()
    expect(caption).to_have_text(re.compile(f"^{game.round} 23 · episode over"))
    expect(page.locator(".play-pause")).to_have_text("Play")
    shown = [int(text.split(" ")[1]) for text in page.evaluate("window.captions")]
    assert shown and all(k % 5 == 0 or k == 23 for k in shown), shown
    expect(status).to_have_text(status_after(game, 23, max_steps=23))
    assert problems == []


@by_game()
def test_a_refused_value_is_said_beside_its_field_and_fixing_it_clears_it(
        url, page, problems, game):
    name, bad, good = REFUSED[game.name]
    open_game(page, url, game)
    page.get_by_text("All parameters", exact=True).click()
    field = page.get_by_label(name, exact=True)
    field.fill(str(bad))
    field.press("Enter")

    messages = page.locator(".control-message, .inline-message")
    expect(messages.first).to_be_visible()
    expect(beside(field)).to_have_class(re.compile(r"\bcontrol-message\b"))
    text = one_line(beside(field))
    assert text.startswith(f"{name}={bad} is invalid"), text
    for index in range(messages.count()):
        assert name in one_line(messages.nth(index))
    # the same game, still drawn, and no traceback
    expect(page).to_have_title(f"{TITLE}: {game.title}")
    expect(page.locator(".game-picker")).to_contain_text(game.title)
    expect(page.locator(f'.world svg[aria-label="{game.title}: the world"]')).to_have_count(1)
    expect(page.locator(".world-caption")).to_have_text(re.compile(f"^{game.round} 0 · "))
    no_traceback(page)

    field.fill(str(good))
    field.press("Enter")
    expect(messages).to_have_count(0)
    expect(page.locator(".world-status")).to_have_text(status_after(game, 0, **{name: good}))
    assert problems == []


def test_the_mixes_offered_follow_the_number_of_agents(url, page, problems):
    game = GAMES["bucket_brigade"]
    open_game(page, url, game)
    declared = page.locator(".mixes-population")
    four = mixes(game, shown_values(game, {}))
    five = mixes(game, shown_values(game, {"num_agents": 5}))
    gone = [mix for mix in four if mix not in five]
    assert "firefighter:2,free_rider:2" in gone
    assert offered(page, declared) == four

    slider = page.locator(".v-input", has_text=re.compile(r"num_agents = \d"))
    slider = slider.locator("[role=slider]")
    set_slider(page, slider, ["ArrowRight"])
    expect(page.get_by_text("num_agents = 5", exact=True)).to_be_visible()
    expect(page.locator(".world-caption")).to_have_text(re.compile("^night 0 · population "))
    assert offered(page, declared) == five

    # a mix chosen for 4 agents, then a fifth agent: said beside the population's field
    set_slider(page, slider, ["ArrowLeft"])
    expect(page.get_by_text("num_agents = 4", exact=True)).to_be_visible()
    choose(page, declared, "firefighter:2,free_rider:2")
    expect(page.locator(".world-caption")).to_contain_text(
        "population firefighter:2,free_rider:2")
    field = page.get_by_label("population", exact=True)
    expect(field).to_have_value("firefighter:2,free_rider:2")
    set_slider(page, slider, ["ArrowRight"])
    expect(beside(field)).to_have_class(re.compile(r"\bcontrol-message\b"))
    expect(beside(field)).to_contain_text("population='firefighter:2,free_rider:2' is invalid")
    one_line(beside(field))
    expect(page).to_have_title(f"{TITLE}: {game.title}")
    no_traceback(page)

    # a mix of one's own, typed: it plays; a behaviour the game lacks: said beside it
    field.fill("firefighter:3,free_rider:2")
    field.press("Enter")
    expect(page.locator(".world-caption")).to_contain_text(
        "population firefighter:3,free_rider:2")
    expect(page.locator(".control-message, .inline-message")).to_have_count(0)
    field.fill("firefighter:3,nobody:2")
    field.press("Enter")
    expect(beside(field)).to_contain_text("nobody")
    assert one_line(beside(field)).startswith("population=")
    expect(page.locator(".world-caption")).to_contain_text(
        "population firefighter:3,free_rider:2")
    choose(page, declared, "random")
    expect(page.locator(".control-message, .inline-message")).to_have_count(0)
    expect(page.locator(".world-caption")).to_contain_text("population random")
    assert problems == []


def test_a_typed_seed_plays_that_seed_and_a_bad_one_is_said(url, page, problems):
    game = GAMES["bucket_brigade"]
    open_game(page, url, game)
    seed = page.get_by_label("seed (rng)", exact=True)
    seed.fill("8071234567")
    seed.press("Enter")
    expect(page.locator(".world-caption")).to_have_text(
        re.compile(r"^night 0 · population random · seed 8071234567$"))
    expect(page.locator(".world-status")).to_have_text(
        game.view.status(game.model(rng=8071234567)))
    seed.fill("-3")
    seed.press("Enter")
    expect(beside(seed)).to_have_class(re.compile(r"\bcontrol-message\b"))
    assert one_line(beside(seed)).startswith("rng=-3 is invalid")
    expect(page.locator(".world-caption")).to_contain_text("seed 8071234567")
    assert problems == []


@by_game()
def test_the_address_keeps_the_game_its_parameters_and_seed(url, page, problems, game):
    name, _, good = REFUSED[game.name]
    open_game(page, url, game)
    page.get_by_label("seed (rng)", exact=True).fill("42")
    page.get_by_label("seed (rng)", exact=True).press("Enter")
    expect(page.locator(".world-caption")).to_contain_text("seed 42")
    page.get_by_text("All parameters", exact=True).click()
    page.get_by_label(name, exact=True).fill(str(good))
    page.get_by_label(name, exact=True).press("Enter")
    expect(page.locator(".world-status")).to_have_text(
        status_after(game, 0, seed=42, **{name: good}))
    expect(page).to_have_url(re.compile(rf"[?&]{name}={good}(&|$)"))
    assert address_of(page) == {"game": game.name, "seed": "42", name: str(good)}

    page.reload()  # the same game, parameters and seed
    expect(page.locator(".world-caption")).to_have_text(
        re.compile(f"^{game.round} 0 · population random · seed 42$"))
    expect(page.locator(".world-status")).to_have_text(
        status_after(game, 0, seed=42, **{name: good}))
    page.get_by_text("All parameters", exact=True).click()
    expect(page.get_by_label(name, exact=True)).to_have_value(str(good))

    page.go_back()  # the address before the last change: the parameter at its default
    expect(page.locator(".world-status")).to_have_text(status_after(game, 0, seed=42))
    expect(page.locator(".world-caption")).to_contain_text("seed 42")
    assert problems == []


def test_an_address_the_page_cannot_use_is_said(url, page, problems):
    page.goto(url + "?game=no_such_game&colour=blue")
    expect(page.locator(".address-message")).to_contain_text("game='no_such_game'")
    expect(page).to_have_title(f"{TITLE}: {SERVED[0].title}")
    page.goto(url + "?game=firefighting_graph&colour=blue")
    expect(page.locator(".address-message")).to_contain_text("no parameter 'colour'")
    one_line(page.locator(".address-message"))
    expect(page.locator(".world-caption")).to_have_text(re.compile("^step 0 · "))
    assert problems == []


def test_a_link_with_one_bad_value_plays_the_others_and_names_it_at_the_top(
        url, page, problems):
    """Issue 45 item 3: the world plays the link's usable values (``n_width`` refused, at
    its default) and the line naming the refused one is at the top, above the fold at
    1280 x 800."""
    page.set_viewport_size({"width": 1280, "height": 800})
    game = GAMES["firefighting_graph"]
    page.goto(url + "?game=firefighting_graph&n_width=1000&n_agents=3&seed=4")
    top = page.locator(".address-message")
    expect(top).to_contain_text("n_width=1000 is invalid")
    one_line(top)
    assert top.bounding_box()["y"] + top.bounding_box()["height"] < 800
    expect(page.locator(".world-status")).to_have_text(status_after(game, 0, seed=4,
                                                                    n_agents=3))
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.locator(".world-status")).to_have_text(status_after(game, 1, seed=4,
                                                                    n_agents=3))
    assert problems == []


def test_the_game_picker_opens_each_game_and_the_address_follows(url, page, problems):
    open_game(page, url, SERVED[0])
    for game in [*SERVED[1:], SERVED[0]]:
        choose(page, page.locator(".game-picker"), game.title)
        expect(page).to_have_title(f"{TITLE}: {game.title}")
        expect(page.locator(f'.world svg[aria-label="{game.title}: the world"]')
               ).to_have_count(1)
        expect(page.locator(".v-navigation-drawer").get_by_text(
            re.compile(f"^{own_control(game)}( = .*)?$"))).to_be_visible()
        expect(page).to_have_url(re.compile(rf"\?game={game.name}$"))
    assert problems == []


@by_game()
def test_each_parameter_says_what_it_means_and_an_unused_one_is_greyed(
        url, page, problems, game):
    open_game(page, url, game)
    page.get_by_text("All parameters", exact=True).click()
    helps = page.locator(".control-help")
    for parameter in game.parameters:
        expect(helps.filter(has_text=parameter.description.replace("`", "")[:50]).first
               ).to_be_attached()
    unused = [p for p in game.parameters
              if not p.is_used(shown_values(game, {}))]
    if game.name == "firefighting_graph":  # a row: the grid's sizes are not used
        assert {p.name for p in unused} == {"n_width", "n_height"}
    for parameter in unused:
        expect(page.get_by_label(parameter.name, exact=True)).to_be_disabled()
        expect(helps.filter(has_text=f"Not used now").filter(
            has_text=parameter.description.replace("`", "")[:50])).to_have_count(1)
    assert problems == []


@by_game()
def test_one_agents_reward_and_last_rounds(url, page, problems, game):
    open_game(page, url, game)
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.locator(".world-caption")).to_have_text(re.compile(f"^{game.round} 1 · "))
    page.get_by_text("One agent: its behaviour, reward and last rounds").click()
    model = game.model(rng=1)
    seats = [f"{agent.seat}: {agent.behaviour}" for agent in model.seats]
    picker = page.locator(".agent-picker")
    expect(picker).to_be_visible()
    assert offered(page, picker) == seats
    seat = len(seats) - 1
    choose(page, picker, seats[seat])
    expect(picker).to_contain_text(seats[seat])

    expect(page.locator(f'.agent-panel svg[aria-label^="Agent {seat} ("]')).to_be_visible()
    table = page.locator(".agent-table")
    expect(table.locator("caption")).to_have_text(
        f"agent {seat}, its last rounds (newest first; a column marked (so far) adds up "
        "over the rounds)")
    header = [cell.strip() for cell in table.locator("th").all_inner_texts()]
    assert header[0] == "round" and "reward (so far)" in header  # every game's is a total
    names = [name.removesuffix(" (so far)") for name in header]
    for column in AGENT_COLUMNS[game.name]:
        assert column in names, (column, header)
        meaning = table.locator("th").nth(names.index(column)).get_attribute("title")
        assert meaning == agent_columns(game)[column] and meaning, column
    rows = table.locator("tr")
    expect(rows).to_have_count(3)  # the header, round 1, round 0
    assert rows.nth(1).locator("td").first.inner_text() == "1"
    assert problems == []


def download(page, name: str) -> tuple[str, bytes]:
    """Click the download button ``name``: the file's suggested name and its bytes."""
    with page.expect_download() as caught:
        page.get_by_role("button", name=name, exact=True).click()
    done = caught.value
    return done.suggested_filename, Path(done.path()).read_bytes()


@by_game()
def test_a_played_games_data_world_and_plots_are_taken_as_files(url, page, problems, game):
    """Issue 45 item 1: the files of a game played live, named by game, parameters, seed
    and round, hold its rows and its drawings; while it plays they wait for Pause."""
    import io
    import xml.etree.ElementTree as ElementTree

    import pandas as pd
    from PIL import Image

    open_game(page, url, game, seed=3)
    for k in (1, 2):
        page.get_by_role("button", name="Step", exact=True).click()
        expect(page.locator(".world-caption")).to_have_text(re.compile(f"^{game.round} {k} · "))
    page.get_by_text("Export: the data, the world and the plots as files").click()
    model = game.model(rng=3)
    for _ in range(2):
        model.step()
    name, content = download(page, "model data Parquet")
    assert name == f"{game.name}_seed3_model.parquet"
    read = pd.read_parquet(io.BytesIO(content))
    pd.testing.assert_frame_equal(
        read.drop(columns="Step"),
        model.datacollector.get_model_vars_dataframe().reset_index(drop=True))
    name, content = download(page, "agent data CSV")
    assert name == f"{game.name}_seed3_agents.csv"
    assert len(pd.read_csv(io.BytesIO(content))) == len(
        model.datacollector.get_agent_vars_dataframe())
    name, content = download(page, "world PNG")
    assert name == f"{game.name}_seed3_{game.round}2_world.png"
    picture = export.world_picture(game, model, f"{game.title}: {play_caption(game, model)}")
    assert Image.open(io.BytesIO(content)).size == (round(picture.width * picture.scale),
                                                    round(picture.height * picture.scale))
    plot = game.view.plots[0]
    name, content = download(page, f"{plot.title} SVG")
    assert name.startswith(f"{game.name}_seed3_{game.round}2_plot1-")
    assert ElementTree.fromstring(content).get("aria-label") == plot.title
    page.get_by_role("button", name="Play", exact=True).click()  # playing: nothing to take
    expect(page.get_by_text("Pause to take the files of a round")).to_be_visible()
    expect(page.get_by_role("button", name="world PNG", exact=True)).to_be_disabled()
    page.get_by_role("button", name="Pause", exact=True).click()
    expect(page.get_by_role("button", name="world PNG", exact=True)).to_be_enabled()
    assert problems == []


# --- The run viewer ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A folder with ``results/bb`` (Bucket Brigade, model engine, agents collected, two
    runs), ``results/fg`` (Firefighting Graph, batch engine), a Bucket Brigade replay file
    and a damaged one; the dashboard served from that folder."""
    root = tmp_path_factory.mktemp("recorded")
    folders = {}
    for name, text in (("bb", BB_STUDY), ("fg", FG_BATCH_STUDY), ("sweep", SWEEP_STUDY)):
        (root / f"{name}.toml").write_text(text)
        folders[name] = run_study(Study.from_file(root / f"{name}.toml"), root / "results",
                                  backend="serial", progress=False).folder
    model = BucketBrigadeModel(population="firefighter:2,liar,random", rng=5)
    model.run_model()
    replay = save_replay(model, root / "episode.json")
    damaged = root / "damaged.json"
    damaged.write_text(replay.read_text()[:200])
    opened = {name: [runs.open_run(folder, entry["run_id"])
                     for entry in runs.list_runs(folder)]
              for name, folder in folders.items() if name != "sweep"}
    assert [r.engine for r in opened["bb"]] == ["model", "model"]
    assert [r.engine for r in opened["fg"]] == ["batch"]
    with serving(cwd=root) as address:
        yield {"url": address, "root": root, "runs": opened, "replay": replay,
               "sweep": folders["sweep"],
               "nights": model.night, "damaged": damaged}


def open_viewer(page, recorded):
    page.goto(recorded["url"])
    expect(page.locator(".world-status")).to_be_visible()
    page.locator(".mode-picker").get_by_role("button", name="Recorded runs").click()
    expect(page.locator(".run-picker")).to_have_count(2)
    expect(page).to_have_title(re.compile(f"^{re.escape(TITLE)}: "))
    expect(page).not_to_have_title(re.compile("Solara"))
    return page.locator(".run-picker").nth(0), page.locator(".run-picker").nth(1)


def open_study_run(page, picker, recording, typed: bool = False):
    """Open ``recording`` (a study's run) in ``picker``: its study, then the run picked
    from the list by its name, or (``typed``) its id typed and Enter."""
    study = f"results/{Path(recording.source).name}"
    choose(page, picker.locator(".study-picker"), study)
    if typed:
        field = picker.locator(".run-id-field input")
        field.fill(recording.run_id)
        field.press("Enter")
    else:
        choose(page, picker.locator(".run-picker-list"),
               f"{recording.name} ({recording.run_id})")


def world_status(recording, round_: int) -> str:
    return recording.game.view.status(runs.model_at(recording, round_))


def test_a_study_run_verifies_identical_and_scrubs_both_ways(page, problems, recorded, tmp_path):
    run = recorded["runs"]["bb"][0]
    a, _ = open_viewer(page, recorded)
    open_study_run(page, a, run)
    view = page.locator(".run-view")
    expect(view).to_have_count(1)
    verdict = view.locator(".run-verdict")
    expect(verdict).to_have_text(f"identical to its {run.rounds + 1} stored rows and "
                                 f"{len(run.agent_rows)} stored agent rows")
    caption_of, status_of = view.locator(".run-caption"), view.locator(".world-status")
    expect(caption_of).to_have_text(
        f"A: replicate {run.replicate} · seed {run.seed} · Bucket Brigade · night 0 of "
        f"{run.rounds}")
    expect(view.locator(".run-source")).to_have_text(re.compile(
        f"^from .*results/bb, run {run.run_id}$"))
    expect(status_of).to_have_text(world_status(run, 0))
    expect(view.locator(".plots svg")).to_have_count(len(run.game.view.plots))

    for _ in range(3):
        page.locator(".scrub-forward").click()
    expect(caption_of).to_contain_text(f"night 3 of {run.rounds}")
    expect(status_of).to_have_text(world_status(run, 3))
    expect(page.locator(".scrub")).to_contain_text(f"round = 3 of {run.rounds}")
    page.locator(".scrub-back").click()
    expect(caption_of).to_contain_text(f"night 2 of {run.rounds}")
    expect(status_of).to_have_text(world_status(run, 2))
    # the slider: to the end and back to the start
    slider = page.locator(".scrub [role=slider]")
    set_slider(page, slider, ["End"])
    expect(caption_of).to_contain_text(f"night {run.rounds} of {run.rounds}")
    expect(status_of).to_have_text(world_status(run, run.rounds))
    set_slider(page, slider, ["Home"])
    expect(caption_of).to_contain_text(f"night 0 of {run.rounds}")
    expect(status_of).to_have_text(world_status(run, 0))
    page.locator(".scrub-back").click()  # not before round 0
    expect(page.locator(".scrub")).to_contain_text(f"round = 0 of {run.rounds}")
    field = page.locator(".scrubber .go-to-round input")  # a round typed: that round
    for typed, k in ((str(run.rounds - 1), run.rounds - 1), ("100000", run.rounds)):
        field.fill(typed)
        field.press("Enter")
        expect(caption_of).to_contain_text(f"night {k} of {run.rounds}")
        expect(status_of).to_have_text(world_status(run, k))
    field.fill("-3")
    field.press("Enter")
    expect(page.locator(".scrubber .inline-message")).to_contain_text("'-3' is not a round")
    no_traceback(page)
    screenshot(page, tmp_path, "viewer_study_run")
    assert problems == []


def test_two_runs_side_by_side_move_together(page, problems, recorded, tmp_path):
    first, second = recorded["runs"]["bb"]
    a, b = open_viewer(page, recorded)
    open_study_run(page, a, first)
    expect(page.locator(".run-view")).to_have_count(1)
    open_study_run(page, b, second, typed=True)  # the id typed, Enter: that run opens
    views = page.locator(".run-view")
    expect(views).to_have_count(2)
    for view, run in zip((views.nth(0), views.nth(1)), (first, second)):
        expect(view.locator(".run-verdict")).to_contain_text("identical to its")
        expect(view.locator(".world svg")).to_have_count(1)
    expect(views.nth(0).locator(".run-caption")).to_contain_text("A: ")
    expect(views.nth(1).locator(".run-caption")).to_contain_text("B: ")
    expect(views.nth(1).locator(".run-caption")).to_contain_text(f"seed {second.seed}")
    # each plot on one y axis in both runs: the same ticks at the same heights
    for plot in first.game.view.plots:
        ticks = [view.locator(f'.plots svg[aria-label="{plot.title}"] text[text-anchor=end]')
                 for view in (views.nth(0), views.nth(1))]
        shown = [t.all_text_contents() for t in ticks]  # (SVG text has no innerText)
        assert shown[0] and shown[0] == shown[1], plot.title

    for k in (1, 2):
        page.locator(".scrub-forward").click()
        for view, run in zip((views.nth(0), views.nth(1)), (first, second)):
            expect(view.locator(".run-caption")).to_contain_text(f"night {k} of {run.rounds}")
            expect(view.locator(".world-status")).to_have_text(world_status(run, k))
    page.locator(".scrub-back").click()
    for view, run in zip((views.nth(0), views.nth(1)), (first, second)):
        expect(view.locator(".world-status")).to_have_text(world_status(run, 1))
    # the scrubber goes to the longer run's end; the shorter stays at its own last round
    last = max(first.rounds, second.rounds)
    set_slider(page, page.locator(".scrub [role=slider]"), ["End"])
    expect(page.locator(".scrub")).to_contain_text(f"round = {last} of {last}")
    for view, run in zip((views.nth(0), views.nth(1)), (first, second)):
        expect(view.locator(".run-caption")).to_contain_text(
            f"night {run.rounds} of {run.rounds}")
        expect(view.locator(".world-status")).to_have_text(world_status(run, run.rounds))
    no_traceback(page)
    screenshot(page, tmp_path, "viewer_side_by_side")
    assert problems == []


def test_run_b_is_drawn_beside_run_a(page, problems, recorded):
    first, second = recorded["runs"]["bb"]
    a, b = open_viewer(page, recorded)
    open_study_run(page, a, first)
    expect(page.locator(".run-view")).to_have_count(1)
    open_study_run(page, b, second)
    views = page.locator(".run-view")
    expect(views.locator(".world svg")).to_have_count(2)
    assert problems == []
    left, right = views.nth(0).bounding_box(), views.nth(1).bounding_box()
    assert right["x"] >= left["x"] + left["width"] and right["y"] == left["y"], (left, right)


def test_two_runs_fit_side_by_side_at_1280_by_800(page, problems, recorded, tmp_path):
    first, second = recorded["runs"]["bb"]
    page.set_viewport_size({"width": 1280, "height": 800})
    a, b = open_viewer(page, recorded)
    open_study_run(page, a, first)
    open_study_run(page, b, second)
    views = page.locator(".run-view")
    expect(views.locator(".world svg")).to_have_count(2)
    expect(views.locator(".plots svg")).to_have_count(2 * len(first.game.view.plots))
    for index in (0, 1):  # each whole within the window's width, its world and key above
        view = views.nth(index)  # the fold and its first plot starting above it
        box = view.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 1280, box
        for part in (".world svg", ".key-box", ".plots svg"):
            shape = view.locator(part).first.bounding_box()
            assert shape["x"] + shape["width"] <= 1280 + 0.5, (part, shape)
            assert shape["y"] < 800, (part, shape)
    screenshot(page, tmp_path, "viewer_side_by_side_1280x800")
    assert problems == []


def test_a_batch_engine_run_is_replayed_as_a_world_and_scrubs(
        page, problems, recorded, tmp_path):
    (run,) = recorded["runs"]["fg"]
    a, _ = open_viewer(page, recorded)
    open_study_run(page, a, run)
    view = page.locator(".run-view")
    expect(view).to_have_count(1)
    verdict = view.locator(".run-verdict")
    expect(verdict).to_have_text(f"identical to its {run.rounds + 1} stored rows")
    expect(view.locator(".plots svg")).to_have_count(len(run.game.view.plots))
    expect(view.locator(".world svg")).to_have_count(1)
    caption_of, status_of = view.locator(".run-caption"), view.locator(".world-status")
    expect(caption_of).to_contain_text(f"step 0 of {run.rounds}")
    expect(status_of).to_have_text(world_status(run, 0))
    for _ in range(2):
        page.locator(".scrub-forward").click()
    expect(caption_of).to_contain_text(f"step 2 of {run.rounds}")
    expect(status_of).to_have_text(world_status(run, 2))
    page.locator(".scrub-back").click()
    expect(caption_of).to_contain_text(f"step 1 of {run.rounds}")
    expect(status_of).to_have_text(world_status(run, 1))
    set_slider(page, page.locator(".scrub [role=slider]"), ["End"])
    expect(caption_of).to_contain_text(f"step {run.rounds} of {run.rounds}")
    expect(status_of).to_have_text(world_status(run, run.rounds))
    expect(view.locator(".plots svg")).to_have_count(len(run.game.view.plots))
    no_traceback(page)
    screenshot(page, tmp_path, "viewer_batch_run")
    assert problems == []


def test_a_replay_file_verifies_and_a_damaged_one_is_refused_in_one_line(
        page, problems, recorded):
    a, _ = open_viewer(page, recorded)
    a.get_by_role("button", name="replay file").click()
    field = a.locator(".replay-field input")
    field.fill(str(recorded["replay"]))
    field.press("Enter")
    view = page.locator(".run-view")
    expect(view.locator(".run-verdict")).to_have_text(
        f"identical to its {recorded['nights']} recorded nights")
    expect(view.locator(".run-caption")).to_contain_text(
        f"night 0 of {recorded['nights']}")
    recording = runs.open_replay(recorded["replay"])
    page.locator(".scrub-forward").click()
    expect(view.locator(".world-status")).to_have_text(world_status(recording, 1))

    for path, says in ((recorded["damaged"], "not a JSON replay"),
                       (recorded["root"] / "nowhere.json", "nowhere.json")):
        field.fill(str(path))
        field.press("Enter")
        message = a.locator(".inline-message")
        expect(message).to_contain_text(says)
        assert str(path) in one_line(message)
        no_traceback(page)
    assert problems == []


def test_an_unknown_run_id_is_refused_in_one_line(page, problems, recorded):
    a, _ = open_viewer(page, recorded)
    choose(page, a.locator(".study-picker"), "results/bb")
    expect(a.locator(".run-picker-list")).to_be_visible()  # the study's runs are listed: the
    field = a.locator(".run-id-field input")                # field is the one that stays
    field.fill("0123456789abcdef")
    field.press("Enter")
    expect(field).to_have_value("0123456789abcdef")
    message = a.locator(".inline-message")
    expect(message).to_contain_text("no stored run has the id '0123456789abcdef'")
    one_line(message)
    expect(page.locator(".run-view")).to_have_count(0)
    no_traceback(page)
    assert problems == []


def every_item(page, select, total: int) -> list[str]:
    """The ``total`` items of the drop-down ``select``: its menu shows the first items and
    more as it is scrolled (Vuetify's), so it is scrolled to its last until all have come."""
    select.click()
    items = page.locator(MENU)
    expect(items.first).to_be_visible()
    while (count := items.count()) < total:
        items.last.scroll_into_view_if_needed()
        expect(items.nth(count)).to_be_attached()
    texts = [item.strip() for item in items.all_inner_texts()]
    page.keyboard.press("Escape")
    return texts


def test_every_run_of_a_study_is_listed_in_order_and_filtered(page, problems, recorded):
    """Issue 45 item 4: all 210 runs offered, by swept value (numbers as numbers), replicate
    and seed; a filter of parameter values keeps those runs; one naming no parameter is
    said."""
    listed = runs.list_runs(recorded["sweep"])
    assert len(listed) == 210
    a, _ = open_viewer(page, recorded)
    choose(page, a.locator(".study-picker"), "results/sweep")
    select = a.locator(".run-picker-list")
    expect(select).to_contain_text("run (210 of 210 listed")
    names = every_item(page, select, len(listed))
    expected = [f"{e['name']} ({e['run_id']})" for e in in_order(listed)]
    assert names == expected
    assert names[0].startswith("p_ignite=0.05 · replicate 0 · seed ")
    assert names[105].startswith("p_ignite=0.1 · replicate 0 · seed ")
    assert names[10].startswith("p_ignite=0.05 · replicate 10 · ")  # not 100 after 10
    wanted = next(e for e in listed if e["p_ignite"] == 0.1 and e["replicate"] == 7)
    field = a.locator(".run-filter input")
    field.fill("p_ignite=0.1 replicate=7")
    field.press("Enter")
    expect(select).to_contain_text("run (1 of 210 listed")
    assert offered(page, select) == [f"{wanted['name']} ({wanted['run_id']})"]
    choose(page, select, f"{wanted['name']} ({wanted['run_id']})")
    expect(page.locator(".run-caption")).to_contain_text(
        f"A: {wanted['name']} · Firefighting Graph · step 0 of 3")
    field.fill("colour=blue")
    field.press("Enter")
    expect(a.locator(".inline-message")).to_contain_text("no parameter 'colour'")
    expect(select).to_contain_text("run (210 of 210 listed")
    assert problems == []


def test_runs_of_two_games_side_by_side_have_their_own_round_axes(page, problems, recorded):
    """Issue 45 item 4: shared axes only between runs of one game: Bucket Brigade's nights
    and the Firefighting Graph's steps each on an axis of their own length."""
    (bb, _), (fg,) = recorded["runs"]["bb"], recorded["runs"]["fg"]
    a, b = open_viewer(page, recorded)
    open_study_run(page, a, bb)
    open_study_run(page, b, fg)
    views = page.locator(".run-view")
    expect(views.locator(".world svg")).to_have_count(2)
    for view, run in zip((views.nth(0), views.nth(1)), (bb, fg)):
        data = {c: run.rows[c].tolist() for c in run.rows}
        for plot in run.game.view.plots:
            alone = chart(plot, data, f"{run.game.round} (rounds played)", current=0)
            ticks = re.findall(r'text-anchor="middle">([^<]*)<', alone)
            shown = view.locator(f'.plots svg[aria-label="{plot.title}"] '
                                 "text[text-anchor=middle]")
            assert shown.all_text_contents() == ticks, (run.game.name, plot.title)
    assert problems == []


def test_a_recorded_runs_rows_and_round_are_taken_as_files(page, problems, recorded):
    """Issue 45 item 1, the run viewer: the stored rows and the world at the round shown."""
    import io

    import pandas as pd
    from PIL import Image

    run = recorded["runs"]["bb"][0]
    a, _ = open_viewer(page, recorded)
    open_study_run(page, a, run)
    view = page.locator(".run-view")
    expect(view.locator(".run-verdict")).to_contain_text("identical to its")
    for _ in range(3):
        page.locator(".scrub-forward").click()
    expect(view.locator(".run-caption")).to_contain_text(f"night 3 of {run.rounds}")
    view.get_by_text("Export: the data, the world and the plots as files").click()
    stem = f"bucket_brigade_run-{run.run_id}_seed{run.seed}"
    name, content = download(page, "agent data Parquet")
    assert name == f"{stem}_agents.parquet"
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(content)), run.agent_rows)
    name, content = download(page, "world PNG")
    assert name == f"{stem}_night3_world.png"
    # the world with the page's caption above it and its key beside it (issue 63)
    picture = export.world_picture(run.game, runs.model_at(run, 3),
                                   f"{run.name} · Bucket Brigade · night 3 of {run.rounds} · "
                                   f"seed {run.seed}")
    assert Image.open(io.BytesIO(content)).size == (round(picture.width * picture.scale),
                                                    round(picture.height * picture.scale))
    assert problems == []


def test_a_trainings_learning_curve_and_final_returns_are_shown(page, problems, recorded):
    """Issue 45 item 6: a training folder's curve and its seeds' final returns in the page."""
    from dilemmas.analysis.learning.training import Training, train

    root = recorded["root"]
    (root / "tiny.toml").write_text(
        'game = "firefighting_graph"\npopulation = "q_learning:3"\nepisodes = 20\nseeds = 2\n'
        'checkpoint_every = 10\n[parameters]\nlayout = "row"\nn_agents = 3\nmax_steps = 8\n')
    train(Training.from_file(root / "tiny.toml"), root / "results" / "training",
          backend="serial", progress=False)
    open_viewer(page, recorded)
    page.get_by_text("A training: its learning curve and its seeds' final returns").click()
    choose(page, page.locator(".training-picker"), "results/training/tiny")
    view = page.locator(".training-view")
    expect(view.locator('svg[aria-label="tiny: return per seat, mean over 2 seeds"]')
           ).to_have_count(1)
    expect(view.locator("table caption")).to_contain_text("over the last tenth of its episodes")
    expect(view.locator("tr")).to_have_count(4)  # the header, two seeds, the mean
    assert problems == []


def test_a_large_world_zoomed_is_panned_by_scrolling(url, page, problems):
    """Issue 45 item 5: a 100 x 100 Firefighting Graph at zoom 8 is drawn eight times its
    size in a box that scrolls both ways; scrolled, it shows another part."""
    game = GAMES["firefighting_graph"]
    open_game(page, url, game, layout="grid", n_width=100, n_height=100)
    shown = page.locator(".world svg")
    before = shown.bounding_box()
    choose(page, page.locator(".zoom"), "8")
    expect(page.locator(".world.zoomed svg")).to_have_count(1)
    zoomed = page.locator(".world.zoomed")
    inner = page.locator(".world.zoomed svg").bounding_box()
    assert inner["width"] >= 7 * before["width"], (inner, before)
    sizes = zoomed.evaluate("b => [b.scrollWidth, b.clientWidth, b.scrollHeight, b.clientHeight]")
    assert sizes[0] > sizes[1] and sizes[2] > sizes[3], sizes
    zoomed.evaluate("b => { b.scrollLeft = 500; b.scrollTop = 300; }")
    assert zoomed.evaluate("b => [b.scrollLeft, b.scrollTop]") == [500, 300]
    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.locator(".world-caption")).to_have_text(re.compile(f"^{game.round} 1 · "))
    expect(page.locator(".world.zoomed svg")).to_have_count(1)
    assert problems == []


@by_game()
def test_a_click_on_an_agent_opens_its_story_and_a_cell_is_named(url, page, problems, game):
    """Issue 45 item 5: an agent clicked in the world opens its seat's story; a cell or
    house clicked is named with where it is."""
    open_game(page, url, game)
    discs = page.locator(".world svg circle:has(title)")
    last = discs.count() - 1
    tip = discs.nth(last).locator("title").text_content()
    seat = int(re.match(r"^\w+ (\d+) \(", tip).group(1))
    discs.nth(last).click()
    expect(page.locator(".inspected")).to_have_text(f"clicked: {tip}")
    behaviour = game.model(rng=1).seats[seat].behaviour
    expect(page.locator(".agent-picker")).to_contain_text(f"{seat}: {behaviour}")
    expect(page.locator(f'.agent-panel svg[aria-label^="Agent {seat} ("]')).to_be_visible()
    cells = page.locator(".world svg rect:has(title)")
    if cells.count():
        cell = cells.first
        tip = cell.locator("title").text_content()
        cell.click(position={"x": 2, "y": 2})
        expect(page.locator(".inspected")).to_contain_text(f"clicked: {tip}")
    assert problems == []


def test_a_packaged_bot_picked_from_the_list_is_watched_playing(url, page, problems):
    """Issue 45 item 6: Bucket Brigade's packaged bot, picked from the policy's list on its
    substrate (the defaults), plays every seat: Step and Play move it as the model does."""
    from dilemmas.models.policies import BOTS

    game = GAMES["bucket_brigade"]
    (bot,) = sorted(BOTS.glob("bucket_brigade_*.npz"))
    open_game(page, url, game, population="policy")
    expect(page.locator(".control-message").first).to_contain_text("policy")
    choose(page, page.locator(".files-policy"), bot.name)   # the bot by name: a link keeps it
    expect(page).to_have_url(re.compile(re.escape(f"policy={bot.name}")))
    caption, status = page.locator(".world-caption"), page.locator(".world-status")
    expect(caption).to_have_text(re.compile(f"^{game.round} 0 · population policy · seed 1$"))
    expect(page.locator(".control-message")).to_have_count(0)
    page.get_by_role("button", name="Step", exact=True).click()
    expect(status).to_have_text(status_after(game, 1, population="policy", policy=str(bot)))
    page.locator(".run-to-end").click()
    expect(caption).to_contain_text("episode over")
    model = game.model(population="policy", policy=str(bot), rng=1)
    model.run_model()
    expect(status).to_have_text(game.view.status(model))
    assert problems == []


def test_a_studys_summary_and_figures_are_shown(page, problems, recorded):
    """Issue 45 item 6: a study's summary table and, asked for, its figures (or why one
    is not drawn) in the run viewer's mode."""
    from dilemmas.analysis.studies.results import summary

    open_viewer(page, recorded)
    page.get_by_text("A study: its summary").click()
    choose(page, page.locator(".summary-picker"), "results/sweep")
    table = page.locator(".study-summary-box table")
    expect(table).to_be_visible()
    expected = summary(recorded["sweep"], ci=True)
    expect(table.locator("tbody tr")).to_have_count(len(expected))
    compact = [c for c in expected.columns if not c.endswith(("_low", "_high"))]
    assert table.locator("th").all_text_contents() == compact     # issue 63 item 2
    assert table.locator("th").first.evaluate("th => getComputedStyle(th).position") \
        == "sticky"
    first_row = table.locator("tbody tr").first.locator("td").all_text_contents()
    statistics = first_row[compact.index("n") + 1:]          # each 'mean [low, high]'
    assert statistics and all(re.fullmatch(r"\S+( \[\S+, \S+\])?", cell.strip())
                              for cell in statistics)
    assert any("[" in cell for cell in statistics)
    page.get_by_text("every column (means, lows and highs apart)").click()
    expect(table.locator("th")).to_have_count(len(expected.columns))
    assert table.locator("th").all_text_contents() == list(expected.columns)
    page.locator(".draw-figures").click()
    expect(page.locator(".study-figures img").first).to_be_visible()
    assert problems == []


def test_a_click_on_a_large_grid_names_the_cell_under_it(url, page, problems):
    """Issue 45 item 5: a 30 x 30 Firefighting Graph (one image): the cell clicked is named
    with its row and column, those of the point clicked, and (issue 63) its exact fire
    level."""
    game = GAMES["firefighting_graph"]
    open_game(page, url, game, layout="grid", n_width=30, n_height=30)
    image = page.locator(".world svg image")
    box = image.bounding_box()
    image.click(position={"x": box["width"] * 3.5 / 30, "y": box["height"] * 2.5 / 30})
    level = game.model(layout="grid", n_width=30, n_height=30, rng=1).levels[2, 3]
    expect(page.locator(".inspected")).to_have_text(
        f"clicked: house 65, fire level {level}: cell at row 2, column 3")  # 31 columns
    assert problems == []


def test_ctrl_and_the_wheel_zoom_and_a_drag_pans(url, page, problems):
    """Issue 45 item 5: Ctrl and the wheel over the world zoom in (the picker follows) and
    out again; on a zoomed world a drag pans it, and is not taken for a click."""
    game = GAMES["firefighting_graph"]
    open_game(page, url, game, layout="grid", n_width=40, n_height=40)
    world = page.locator(".world")
    before = page.locator(".world svg").bounding_box()
    box = world.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -100)
    page.keyboard.up("Control")
    expect(page.locator(".zoom")).to_contain_text("2")
    expect(page.locator(".world.zoomed svg")).to_have_count(1)
    assert page.locator(".world.zoomed svg").bounding_box()["width"] >= 1.9 * before["width"]
    zoomed = page.locator(".world.zoomed")
    # the point under the pointer stays under it: the middle, so scrolled about halfway
    expect_scrolled = zoomed.evaluate("b => [b.scrollLeft, b.scrollWidth - b.clientWidth]")
    assert expect_scrolled[0] > 0.25 * expect_scrolled[1], expect_scrolled
    left = zoomed.evaluate("b => b.scrollLeft")
    box = zoomed.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 60, y, steps=6)
    page.mouse.up()
    assert zoomed.evaluate("b => b.scrollLeft") == pytest.approx(left + 60, abs=2)
    expect(page.locator(".inspected")).to_have_count(0)  # the drag named nothing
    page.mouse.move(x, y)
    page.keyboard.down("Control")
    page.mouse.wheel(0, 100)
    page.keyboard.up("Control")
    expect(page.locator(".world.zoomed")).to_have_count(0)
    assert problems == []


def test_a_recorded_runs_world_zooms_and_names_what_is_clicked(page, problems, recorded):
    """Issue 45 item 5 in the viewer: a run's world zooms from its picker (twice its
    size, in a box that scrolls) and a click on a house names it."""
    first, _ = recorded["runs"]["bb"]
    a, _ = open_viewer(page, recorded)
    open_study_run(page, a, first)
    view = page.locator(".run-view")
    expect(view.locator(".world svg")).to_have_count(1)
    before = view.locator(".world svg").bounding_box()
    choose(page, view.locator(".zoom"), "2")
    expect(view.locator(".world.zoomed svg")).to_have_count(1)
    assert view.locator(".world.zoomed svg").bounding_box()["width"] >= 1.9 * before["width"]
    house = view.locator(".world svg rect:has(title)").first
    tip = house.locator("title").text_content()
    house.click()
    expect(view.locator(".inspected")).to_have_text(f"clicked: {tip}")
    assert problems == []
