"""A game played live: its controls in the sidebar; Reset, Step and Play with a speed; the
world, its key, its plots and one agent's story.

The model is rebuilt whenever the parameters change and the model accepts them (as Mesa's
SolaraViz does). A value the model refuses leaves the last accepted model in place and says
why beside its control (``dilemmas.dashboard.controls``); a page opened from a link
plays the link's usable values, with each refused one at its default and named at the top
(``build_usable``). Reset restarts the episode with the last
accepted parameters and the seed. Play steps the model in a thread of the page at the chosen
rounds per second, at most half the time busy (a round that takes longer to play and draw
than its share is followed by as long a pause), and stops at the episode's end. Each round
draws again only the board: buttons, round counter, world, plots and, when shown, one
agent's story (SVG, ``dilemmas.dashboard.scene``).
"""

import threading
import time

import solara

from dilemmas.dashboard import address, export
from dilemmas.dashboard.address import Address
from dilemmas.dashboard.export import Exports
from dilemmas.dashboard.controls import Controls, as_text, blame, from_text, problem
from dilemmas.dashboard.field import Field
from dilemmas.dashboard.messages import message, one_line
from dilemmas.dashboard.panels import About, AgentPanel, Charts, World
from dilemmas.models import validation as check

SEED = "seed (rng)"


def build(game, given: dict, seed):
    """``(model, None)``, or ``(None, (name, message))`` if it is refused: ``name`` is the
    parameter at fault, ``SEED``, or None. The page always names its seed (no fresh one
    from the operating system: an address plays the same episode each time)."""
    try:
        if seed is None:
            raise ValueError("rng=None is invalid: the page plays a given seed, an integer "
                             ">= 0")
        check.seed("rng", seed)
    except ValueError as error:
        return None, (SEED, one_line(error))
    fault = problem(game, given)
    if fault:
        return None, fault
    try:
        return game.model(**given, rng=seed), None
    except Exception as error:  # the model's own checks (a map too small for its agents)
        return None, (blame(game, str(error)), one_line(error))


def build_usable(game, given: dict, seed):
    """``(model, given, seed, refused)``: the model of an address's values with each value
    it refuses left at its default, one at a time, and ``refused`` the one line that names
    them (None if none was). A refusal that names no parameter leaves every value at its
    default."""
    refused = []
    while True:
        model, fault = build(game, given, seed)
        if model is not None:
            break
        name, said = fault
        refused.append(said)
        if name == SEED:
            seed = address.SEED
        elif name in given:
            given = {key: value for key, value in given.items() if key != name}
        elif given or seed != address.SEED:
            given, seed = {}, address.SEED
        else:
            raise RuntimeError(f"{game.title} refuses its own defaults: {said}")
    if not refused:
        return model, given, seed, None
    return model, given, seed, ("the link's values are played except what is refused "
                                "(left at its default): " + "; ".join(refused))


class Session:
    """One page's game in play: the model, the parameters and seed it was built with, what
    of the address's values it could not use (``refused``, one line or None), and a lock
    that steps and draws it one at a time."""

    def __init__(self, game, given: dict, seed):
        self.model, self.given, self.seed, self.refused = build_usable(game, given, seed)
        self.lock = threading.Lock()
        self.paused = False


@solara.component
def PlayPage(game, shown: Address, go):
    """A game's page (module docstring): its parameters and seed are the page's address
    ``shown``; a control changes them with ``go`` (``dilemmas.dashboard.app.Page``)."""
    given, seed = shown.given, shown.seed
    session = solara.use_memo(lambda: Session(game, given, seed), [])
    fault = solara.use_reactive(None)
    tick = solara.use_reactive(0)
    playing = solara.use_reactive(False)
    rate = solara.use_reactive(10)

    def rebuild(parameters: dict, seed):
        model, problem_met = build(game, parameters, seed)
        fault.set(problem_met)
        if model is not None:
            playing.set(False)
            with session.lock:
                session.model, session.given, session.seed = model, parameters, seed
                session.refused = None
            tick.set(tick.value + 1)

    def follow():
        if repr((given, seed)) != repr((session.given, session.seed)):
            rebuild(given, seed)
        else:
            fault.set(None)

    solara.use_effect(follow, [repr(given), repr(seed)])

    def reset():
        """The episode again with the last accepted parameters; a refused value in the form
        stays said."""
        refused = fault.value if repr((given, seed)) != repr((session.given, session.seed)) else None
        rebuild(session.given, session.seed)
        if refused:
            fault.set(refused)

    def step(model=None):
        """Play a round of ``model`` (default: the one shown), if it is still the one shown,
        its episode has not ended and, for Play's thread (which names its model), Play is
        still on: a Play thread that Reset or Pause has overtaken steps nothing, and neither
        does a Step clicked before the page drew the end."""
        try:
            with session.lock:
                shown = session.model
                if shown.running and (model is None or (shown is model and not session.paused)):
                    shown.step()
        except Exception as error:
            playing.set(False)
            fault.set((None, f"the model raised while stepping: {one_line(error)}"))
        tick.set(tick.value + 1)

    def play(cancel: threading.Event):
        while playing.value and not cancel.is_set():
            start, model = time.perf_counter(), session.model
            if not model.running:
                playing.set(False)
                break
            step(model)
            # pause at least as long as the round took to play and draw, so the server's own
            # thread has the time to send it (else a large world piles up unsent rounds)
            took = time.perf_counter() - start
            cancel.wait(max(took, 1 / rate.value - took))

    solara.use_thread(play, dependencies=[playing.value], intrusive_cancel=False)

    def play_or_pause():
        """Play starts, or stops: after Pause no round starts, a round being played
        finishes, and the page then shows the last round with the button that says Play."""
        if not playing.value:
            session.paused = False
            playing.set(True)
            return
        session.paused = True
        with session.lock:  # (no state is set while it is held: a render takes it too)
            pass
        playing.set(False)
        tick.set(tick.value + 1)

    def change(name: str, value):
        go(lambda a: a.with_(given={**a.given, name: value}))

    with solara.Sidebar():
        Field(SEED, as_text(seed), lambda text: go(lambda a: a.with_(seed=from_text(text))),
              classes=["seed-field"])
        if fault.value and fault.value[0] == SEED:
            message(fault.value[1], "control-message")
        solara.Text("any integer >= 0: a run's seed plays that run again",
                    classes=["control-help"])
        Controls(game, given, change, fault.value)
    if session.refused:
        message(session.refused, "address-message")
    if fault.value and fault.value[0] is None:
        message(fault.value[1])
    Board(game, session, tick, playing, rate, reset, step, play_or_pause)


def shown(game, session: Session, model) -> export.Shown:
    """The files of ``model`` as the board shows it (``dilemmas.dashboard.export``): its
    rows so far, its world and its plots, read under the session's lock."""
    return export.Shown(
        game, export.stem(game.name, session.given, session.seed), model.steps,
        lambda: export.model_frame(model),
        (lambda: export.agent_frame(model)) if model.datacollector.agent_reporters else None,
        lambda: model, lambda: dict(model.datacollector.model_vars), lock=session.lock)


@solara.component
def Board(game, session: Session, tick, playing, rate, reset, step, play_or_pause):
    """What changes each round (the only part of the page drawn again then): the buttons and
    the round counter, the world, the plots and, when shown, one agent's story."""
    model, version = session.model, tick.value
    show_agent = solara.use_reactive(False)
    show_exports = solara.use_reactive(False)
    with solara.Column(gap="8px", classes=["play-page"]):
        with solara.Row(gap="8px", style={"align-items": "center", "flex-wrap": "wrap"}):
            solara.Button("Reset", on_click=reset, outlined=True)
            solara.Button("Step", on_click=lambda: step(), outlined=True,
                          disabled=playing.value or not model.running)
            solara.Button("Pause" if playing.value else "Play",
                          on_click=play_or_pause,
                          color="primary",
                          disabled=not model.running and not playing.value)
            with solara.Column(classes=["speed"], style={"min-width": "220px"}):
                solara.SliderInt(f"speed = {rate.value} rounds/s", value=rate, min=1, max=30,
                                 thumb_label=True)
            solara.Text(f"{game.round} {model.steps}"
                        + ("" if model.running else " · episode over")
                        + f" · population {model.population} · seed {model.seed}",
                        classes=["world-caption"], style={"font-size": "15px"})
        About(game)
        World(game, model, version, lock=session.lock)
        Charts(game, model.datacollector.model_vars, model, version, lock=session.lock)
        solara.Switch(label="One agent: its behaviour, reward and last rounds",
                      value=show_agent, classes=["agent-switch"])
        if show_agent.value:
            AgentPanel(game, model, version, lock=session.lock)
        solara.Switch(label="Export: the data, the world and the plots as files",
                      value=show_exports, classes=["export-switch"])
        if show_exports.value:
            Exports(shown(game, session, model), disabled="Pause to take the files of a round"
                    if playing.value else None)
