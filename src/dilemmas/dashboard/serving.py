"""The dashboard served on 127.0.0.1 and opened in Debian's chromium, for the browser tests
(``tests/test_dashboard_browser.py``) and the dashboard benchmark
(``benchmarks/dashboard.py``).

``serving()`` runs ``solara run dilemmas.dashboard.app`` on a free port with the local asset
cache (no network: Solara's front-end files come from ``$SOLARA_ASSETS_PROXY_CACHE_DIR`` or
else ``.solara-assets`` in the working folder, filled by ``dilemmas.dashboard.assets``) and
yields its address; ``chromium()`` yields a Playwright browser
on Debian's chromium (never a downloaded one). ``watch(page)`` records what a page must never
do: console errors, page errors, failed requests and requests to any host but 127.0.0.1.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

CACHE = Path(os.environ.get("SOLARA_ASSETS_PROXY_CACHE_DIR") or ".solara-assets").resolve()
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(cwd: Path = Path("."), timeout: float = 60.0):
    """``solara run dilemmas.dashboard.app`` on 127.0.0.1 (production mode), yielding its URL;
    stopped on exit. ``cwd``: the folder it runs in (the run viewer looks for ``results`` there)."""
    if not CACHE.is_dir():
        raise FileNotFoundError(f"{CACHE} is missing: run `make assets` "
                                "(python -m dilemmas.dashboard.assets --cache .solara-assets)")
    port = free_port()
    env = {**os.environ, "SOLARA_ASSETS_PROXY_CACHE_DIR": str(CACHE),
           "SOLARA_TELEMETRY_MIXPANEL_ENABLE": "False"}
    process = subprocess.Popen(
        [sys.executable, "-m", "solara", "run", "dilemmas.dashboard.app",
         "--host", "127.0.0.1", "--port", str(port), "--no-open", "--production"],
        cwd=cwd, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError("solara run exited") from None
                if time.monotonic() > deadline:
                    raise TimeoutError(f"solara run did not answer in {timeout:g} s") from None
                time.sleep(0.5)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


@contextlib.contextmanager
def chromium():
    """A Playwright browser on Debian's chromium, headless."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    if executable is None:
        raise FileNotFoundError("Debian's chromium is missing: run `make chromium`")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def watch(page) -> list[str]:
    """A list that fills with every console error, page error, failed request and request
    to a host other than 127.0.0.1 that ``page`` meets. A request the browser itself
    abandons as it leaves the page (``net::ERR_ABORTED``: a reload, Back) is no failure."""
    problems = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: r.failure != "net::ERR_ABORTED"
            and problems.append(f"request failed: {r.url} ({r.failure})"))

    def outside(request):
        host = urllib.parse.urlsplit(request.url).hostname
        if request.url.startswith(("http:", "https:", "ws:", "wss:")) and host != "127.0.0.1":
            problems.append(f"request to another host: {request.url}")

    page.on("request", outside)
    return problems
