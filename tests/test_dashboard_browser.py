"""The dashboard in a real browser: ``solara run app.py`` on 127.0.0.1 with the local asset
cache (no network), driven by Playwright in Debian's chromium.

For each game: the page loads with no console error and no failed request, the world drawing
and the plots appear, Step advances the step counter, and a new behaviour mix with Reset
rebuilds the model with it. A screenshot per game is saved in the test's temporary folder.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from dashboard import controls
from models import GAMES


def game(title):
    """The registered game shown under ``title``."""
    return next(game for game in GAMES.values() if game.title == title)


def mixes_of(title):
    """The behaviour mixes the page offers for ``title``."""
    return controls(game(title), game(title).view)["population"]["values"]

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".solara-assets"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    assert shutil.which("chromium"), "Debian's chromium is missing: run `make test`"
    assert CACHE.is_dir(), "the asset cache is missing: run `python dashboard_assets.py`"
    port = free_port()
    env = {**os.environ, "SOLARA_ASSETS_PROXY_CACHE_DIR": str(CACHE),
           "SOLARA_TELEMETRY_MIXPANEL_ENABLE": "False"}
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "solara"), "run", "app.py", "--host", "127.0.0.1",
         "--port", str(port), "--no-open", "--production"],
        cwd=ROOT, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                assert process.poll() is None, "solara run exited"
                assert time.monotonic() < deadline, "solara run did not answer in 60 s"
                time.sleep(0.5)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"),
                                             args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


#: The games ``solara run app.py`` serves: those of ``models`` (the test-only game registers
#: in the test process only).
SERVED = [game.title for game in GAMES.values() if game.model.__module__.startswith("models.")]


@pytest.mark.parametrize("title", SERVED)
def test_each_game_plays_in_the_browser(server, browser, title, tmp_path):
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    problems = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.goto(server)
    page.get_by_role("button", name=title, exact=True).click()
    expect(page.locator(".v-toolbar__title")).to_have_text(title, timeout=30_000)
    expect(page.get_by_text("Time: 0.0")).to_be_visible(timeout=30_000)
    caption = page.locator(".world-caption")
    expect(caption).to_contain_text("step 0", timeout=30_000)
    images = page.locator(".vue-grid-item img")
    expect(images).to_have_count(1 + len(game(title).view.plots), timeout=30_000)

    page.get_by_role("button", name="Step", exact=True).click()
    expect(page.get_by_text("Time: 1.0")).to_be_visible(timeout=30_000)
    expect(caption).to_contain_text("step 1")
    shot = tmp_path / f"{title.replace(' ', '_').lower()}.png"
    page.screenshot(path=shot, full_page=True)
    assert shot.stat().st_size > 0

    mixes = mixes_of(title)
    page.locator(".v-select", has_text="population").click()
    page.locator(".v-menu__content .v-list-item", has_text=mixes[-1]).last.click()
    page.get_by_role("button", name="Reset", exact=True).click()
    expect(page.get_by_text("Time: 0.0")).to_be_visible(timeout=30_000)
    expect(caption).to_contain_text(f"population {mixes[-1]} · seed 1 · step 0")

    page.close()
    assert problems == []
