"""The dashboard: every registered game played live, and any recorded run watched again, in
the browser.

Start it with ``make dashboard`` or ``dilemmas dashboard``: they fill Solara's front-end
cache from the npm registry once (``dilemmas/dashboard/assets.py``) and serve the page from it, so
neither the page nor the server makes a request beyond the machine. (``solara run app.py``
works too, but fetches the front-end files from a CDN unless
``SOLARA_ASSETS_PROXY_CACHE_DIR`` points at the cache.) Pick a game and what to do at the top of the
sidebar:

* **Play** (``dilemmas.dashboard.play``): the game's controls, made from its parameter declarations,
  in the sidebar; Reset, Step and Play at a chosen speed; its world with a key to every
  colour and symbol, its plots, one agent's story, and a link to its rules (``/rules/<game>``).
* **Recorded runs** (``dilemmas.dashboard.viewer``): any run of a study folder (listed by
  its swept parameters and seed, or typed by its run id), or a Bucket Brigade replay file,
  rebuilt from its parameters and seed, checked against its stored rows and scrubbed round
  by round; two runs side by side.

What is shown -- mode, game, seed and parameters -- is the page's address
(``dilemmas.dashboard.address``), so a reload, Back or a link shows it again.
"""

from collections.abc import Callable
from pathlib import Path

import solara
from solara.server import settings

from dilemmas.dashboard import address
from dilemmas.dashboard.address import Address
from dilemmas.dashboard.messages import message
from dilemmas.dashboard.play import PlayPage
from dilemmas.dashboard.viewer import ViewerPage
from dilemmas import GAMES

TITLE = "dilemmas: social-dilemma games"
MODES = ("Play a game", "Recorded runs")
STYLE = Path(__file__).parent / "style.css"
# the title while the page loads, and no "runs on Solara" banner, however the app is started
settings.theme.title = TITLE
settings.theme.show_banner = False
settings.telemetry.mixpanel_enable = False  # no request leaves the machine


@solara.component
def Layout(children=[]):  # noqa: B006 (Solara's layout signature)
    """Solara's app layout without its tabs of routes (the rules pages are linked from
    each game's description)."""
    return solara.AppLayout(children=[solara.Style(STYLE.read_text()), *children],
                            navigation=False, title=TITLE)


@solara.component
def Page():
    """The mode and game picked at the top of the sidebar, the page of either below; what
    is shown is the page's address (``dilemmas.dashboard.address``)."""
    router = solara.use_router()
    shown = address.read(router.search, GAMES)
    latest = solara.use_ref(shown)
    latest.current = shown

    def go(change: Callable[[Address], Address]):
        """Go to the address ``change`` makes of the latest one (two changes made before
        the page draws again both count)."""
        latest.current = change(latest.current)
        router.push(latest.current.url())

    playing = shown.mode == "play"
    solara.Title(f"{TITLE}: " + (GAMES[shown.game].title if playing else "recorded runs"))
    with solara.Sidebar():
        solara.ToggleButtonsSingle(
            value=MODES[address.MODES.index(shown.mode)], values=list(MODES),
            on_value=lambda label: go(lambda a: a.with_(
                mode=address.MODES[MODES.index(label)])),
            classes=["mode-picker"])
        if playing:
            solara.Select("game", values=[game.title for game in GAMES.values()],
                          value=GAMES[shown.game].title,
                          on_value=lambda title: go(lambda a: Address(next(
                              n for n, g in GAMES.items() if g.title == title))),
                          classes=["game-picker"])
    if shown.problem:
        message(shown.problem, "address-message")
    if playing:
        PlayPage(GAMES[shown.game], shown, go).key(shown.game)
    else:
        ViewerPage()


def rules_page(game):
    """The page of a game's rules document (``docs/rules/<game>.md``)."""

    @solara.component
    def Rules():
        solara.Title(f"{TITLE}: the rules of {game.title}")
        with solara.Sidebar():
            solara.Markdown("**The rules of each game**\n\n" + "\n".join(
                f"- [{other.title}](/rules/{name})" for name, other in GAMES.items()
                if other.rules.is_file()))
        try:
            solara.Markdown(game.rules.read_text(encoding="utf-8"))
        except OSError as error:
            solara.Text(f"the rules of {game.title} cannot be read: {error}")

    return Rules


routes = [
    solara.Route(path="/", component=Page, label="dashboard", layout=Layout),
    solara.Route(path="rules", children=[
        solara.Route(path=name, component=rules_page(game), label=game.title)
        for name, game in GAMES.items()]),
]
