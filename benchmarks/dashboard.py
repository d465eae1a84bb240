"""The dashboard in a real browser: how long a Step takes to show, and how many rounds per
second Play shows.

``solara run dilemmas.dashboard.app`` on 127.0.0.1, driven by Debian's headless chromium (Playwright), with
a 1500 x 1000 window. For each game at its default parameters:

* **Step**: the time from the click on Step until the page shows the new round (the round
  counter above the world and the world's own status line both say it, and the browser has
  painted), measured in the page with ``performance.now()``; ``--steps`` clicks (default
  30), one after another; median and 90th percentile.
* **Play**: Play at the chosen speed (the default, 10 rounds per second, and the most, 30)
  for ``--seconds`` (default 5): the rounds shown per second, counted in the page as the
  round counter changes.

Then the same Play measurement for the Firefighting Graph on a 50 x 50 grid of houses
(``layout = grid``, ``n_width = n_height = 49``: 2,401 firefighters), set through the page's
own controls. Run: ``.venv/bin/python benchmarks/dashboard.py [--steps N] [--seconds S]``
(``make bench`` runs it too; needs ``make assets chromium``).
"""

import argparse
import statistics
import sys

from dilemmas import GAMES
from dilemmas.dashboard.serving import chromium, serving, watch

#: In the page: click Step, wait until the counter and the world's status line show the
#: next round, then for the next painted frame; the time it took, in ms. After 60 s without
#: the round it fails, naming what the page shows.
STEP = """async (round) => {
  const shows = () => {
    const caption = document.querySelector('.world-caption');
    const status = document.querySelector('.world-status');
    return caption && status && caption.textContent.split(' ')[1] === String(round)
      && status.textContent.split(':')[0].endsWith(' ' + round);
  };
  const button = [...document.querySelectorAll('button')]
    .find(b => b.textContent.trim() === 'Step');
  const start = performance.now();
  button.click();
  await new Promise((resolve, reject) => {
    const check = () => {
      if (shows()) resolve();
      else if (performance.now() - start > 60000) {
        const text = (selector) => (document.querySelector(selector) || {}).textContent;
        reject(new Error(`round ${round} not shown 60 s after Step: caption `
          + `${text('.world-caption')}, status ${text('.world-status')}, Step `
          + (button.disabled ? 'disabled' : 'enabled')));
      } else requestAnimationFrame(check);
    };
    check();
  });
  await new Promise(requestAnimationFrame);
  return performance.now() - start;
}"""

#: In the page: count the distinct rounds the counter shows during ``ms`` milliseconds.
COUNT = """async (ms) => {
  const caption = document.querySelector('.world-caption');
  const seen = new Set();
  const start = performance.now();
  let first = null, last = null;
  await new Promise((resolve) => {
    const tick = () => {
      const round = caption.textContent.split(' ')[1];
      if (!seen.has(round)) {
        seen.add(round);
        const now = performance.now();
        if (first === null) first = now;
        last = now;
      }
      if (performance.now() - start < ms) requestAnimationFrame(tick); else resolve();
    };
    tick();
  });
  return {rounds: seen.size - 1, seconds: (last - first) / 1000};
}"""


#: In the page: press Pause if play is still on (the episode may have ended meanwhile).
PAUSE = """() => [...document.querySelectorAll('button')]
  .filter(b => b.textContent.trim() === 'Pause' && !b.disabled).forEach(b => b.click())"""


def open_game(page, url, game):
    """The game's page at round 0, opened by its address: its own world drawn (the title
    changes before the world does when a game is picked in the page)."""
    page.goto(f"{url}?game={game.name}")
    page.wait_for_function(
        """t => document.querySelector(`.world svg[aria-label="${t}: the world"]`)
           && document.querySelector('.world-caption').textContent.split(' ')[1] === '0'
           && document.querySelector('.world-status')""", arg=game.title)


def caption_round(page) -> int:
    return int(page.locator(".world-caption").inner_text().split(" ")[1])


def step_times(page, steps: int) -> list[float]:
    times = []
    for _ in range(steps):
        if page.locator("button", has_text="Step").is_disabled():
            page.get_by_role("button", name="Reset", exact=True).click()
            page.wait_for_function("() => document.querySelector('.world-caption')"
                                   ".textContent.split(' ')[1] === '0'")
        times.append(page.evaluate(STEP, caption_round(page) + 1))
    return times


def set_speed(page, rate: int):
    """Move the speed slider to ``rate`` with the keyboard (Home, then Right arrows), each
    key pressed once the page shows the last one's speed (a key pressed before the server
    answered the last can be undone by its answer)."""
    slider = page.locator(".speed [role=slider]")
    slider.focus()
    for speed, key in zip(range(1, rate + 1), ["Home"] + ["ArrowRight"] * (rate - 1)):
        slider.press(key)
        page.wait_for_function(f"() => document.querySelector('.speed').textContent"
                               f".includes('speed = {speed} ')")


def play_rate(page, rate: int, seconds: float) -> float:
    page.get_by_role("button", name="Reset", exact=True).click()
    page.wait_for_function("() => document.querySelector('.world-caption')"
                           ".textContent.split(' ')[1] === '0'")
    set_speed(page, rate)
    page.get_by_role("button", name="Play", exact=True).click()
    counted = page.evaluate(COUNT, seconds * 1000)
    page.evaluate(PAUSE)
    return counted["rounds"] / counted["seconds"] if counted["seconds"] else 0.0


def set_number(page, name: str, value: int):
    field = page.get_by_label(name, exact=True)
    field.fill(str(value))
    field.press("Enter")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30, help="Step clicks per game (>= 2)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of Play")
    args = parser.parse_args(argv)
    if args.steps < 2:
        parser.error("--steps must be at least 2 (a median and a 90th percentile)")
    rows, problems = [], []
    with serving() as url, chromium() as browser:
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        problems = watch(page)
        for game in GAMES.values():
            if not game.model.__module__.startswith("dilemmas."):
                continue
            print(f"{game.title} ...", file=sys.stderr, flush=True)
            open_game(page, url, game)
            times = step_times(page, args.steps)
            rates = [play_rate(page, rate, args.seconds) for rate in (10, 30)]
            rows.append((game.title, statistics.median(times),
                         statistics.quantiles(times, n=10)[-1], *rates))
        open_game(page, url, GAMES["firefighting_graph"])
        page.locator(".control-layout").click()
        page.locator(".v-menu__content .v-list-item", has_text="grid").first.click()
        page.get_by_text("All parameters").click()
        set_number(page, "n_width", 49)
        set_number(page, "n_height", 49)
        page.wait_for_function("() => document.querySelector('.world-status')"
                               ".textContent.includes('of 2500 houses')")
        times = step_times(page, max(5, args.steps // 3))
        big = [play_rate(page, rate, args.seconds) for rate in (10, 30)]
        rows.append(("Firefighting Graph, 50 x 50 houses", statistics.median(times),
                     statistics.quantiles(times, n=10)[-1], *big))
    print(f"{'':38}{'Step shows (ms)':>20}{'Play, rounds/s shown':>26}")
    print(f"{'':38}{'median':>10}{'p90':>10}{'at speed 10':>14}{'at speed 30':>12}")
    for title, median, p90, at10, at30 in rows:
        print(f"{title:38}{median:>10.0f}{p90:>10.0f}{at10:>14.1f}{at30:>12.1f}")
    print(f"(chromium headless, 1500 x 1000; {args.steps} Steps per game, "
          f"{args.seconds:g} s of Play per speed)")
    if problems:
        print("problems met in the page:", *problems, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
