"""The dashboard: every registered game playable and watchable in the browser, on Mesa's
SolaraViz.

Start it with ``make dashboard`` or ``dilemmas dashboard`` (or ``solara run app.py``; on a
machine without internet, fill the front-end cache first, see ``dashboard_assets.py``). Pick
a game at the top; each game is a Mesa ``SolaraViz`` with its world drawn, plots of its
DataCollector columns, its parameters as sliders and selects (Reset rebuilds the model with
them and the seed), and the step counter in the sidebar. Each game's view is reached from
its registration (``dashboard/<game>.py``); the controls come from its parameter
declarations (``dashboard.controls``).
"""

import solara

from dashboard import game_view
from models import GAMES

#: Each registered game's page, by title.
VIEWS = {game.title: game_view(game) for game in GAMES.values()}


@solara.component
def Page():
    first = next(iter(VIEWS))
    game = solara.use_reactive(first)
    shown = solara.use_reactive(first)
    # A newly picked game mounts on the render after the old one is gone: mounted in the
    # same render, Mesa's SolaraViz loses its default parameters (Reset then ignores them).
    solara.use_effect(lambda: shown.set(game.value), [game.value])
    with solara.Sidebar():
        solara.ToggleButtonsSingle(value=game, values=list(VIEWS), classes=["game-picker"])
    if shown.value == game.value:
        VIEWS[shown.value]().key(shown.value)
