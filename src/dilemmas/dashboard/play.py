"""A game played live: its controls in the sidebar; Reset, Step, Play with a speed, "draw
every", "Run to end", "go to round" and zoom; the world (a click names what it hits and
opens a clicked agent's story), its key and plots beside it, one agent's story, and its
files (``dilemmas.dashboard.export``).

The model is rebuilt whenever the parameters change and the model accepts them (as Mesa's
SolaraViz does), except that past round 0 a parameter the rules let change between rounds
changes the episode from the next round on (``between_rounds``; docs/rules/README.md, rule
10; the caption names each change), and while a run plays every other control is greyed,
saying why. A value the model refuses leaves the last accepted model in place and says
why beside its control (``dilemmas.dashboard.controls``); a page opened from a link plays
the link's usable values, with each refused one at its default and named at the top
(``build_usable``). Reset restarts the episode with the last accepted parameters and the
seed. Rounds are played by a ``Run`` in a thread of the page: Play at the chosen speed,
drawn every k-th round, at most half the time busy (rounds that take longer to play and
draw than their share are followed by as long a pause); "Run to end" and "go to round" k
unpaced (an earlier round: the episode played again from its seed). A round begins only
while its run is the one going, so Pause, Reset or a new run stop it within a round. Each
drawn round is a ``Frame`` (caption, world, plots) made in the same hold of the lock as
the round, and only the board is drawn again (SVG, ``dilemmas.dashboard.scene``).
"""

import itertools
import threading
import time
from dataclasses import dataclass

import solara

from dilemmas.dashboard import address, export
from dilemmas.dashboard.address import Address
from dilemmas.dashboard.export import Exports
from dilemmas.dashboard.controls import Controls, as_text, blame, from_text, problem
from dilemmas.dashboard.field import Field
from dilemmas.dashboard.messages import message, one_line
from dilemmas.dashboard.panels import (ZOOMS, About, AgentPanel, Charts, World, drawing,
                                      inspected_seat, inspected_text, plots_html)
from dilemmas.models import validation as check

SEED = "seed (rng)"
#: The name the "go to round" field's message goes by.
ROUND = "go to round"
#: The draw intervals offered: draw every k-th round while playing.
EVERY = (1, 2, 5, 10, 25, 100)


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


@dataclass(frozen=True)
class Frame:
    """One round of a model as the board shows it: the caption, the world's ``drawing``
    (or the error drawing it raised) and the plots' HTML, made together."""

    caption: str
    drawn: object
    plots: str


def caption_of(game, model) -> str:
    """The round, the mix, the seed and what was changed part-way (``model.changes``)."""
    changed = "; ".join(
        f"after {game.round} {steps}: " + ", ".join(f"{name}={as_text(value)}"
                                                  for name, value in values.items())
        for steps, values in model.changes)
    return (f"{game.round} {model.steps}" + ("" if model.running else " · episode over")
            + f" · population {model.population} · seed {model.seed}"
            + (f" · changed {changed}" if changed else ""))


def between_rounds(game, session, given: dict, seed) -> dict | None:
    """The values of ``given`` the session's model is to take part-way (docs/rules/README.md,
    rule 10): those that differ from its own, if its episode is past its start, the seed is
    its own and every one may change between rounds; else None (the model is built again)."""
    if seed != session.seed or session.model.steps == 0:
        return None
    names = [name for name in game.parameters.names
             if repr(given.get(name)) != repr(session.given.get(name))]
    if not names or not all(game.parameters[name].between_rounds for name in names):
        return None
    return {name: given.get(name, game.parameters[name].default) for name in names}


def frame_of(game, model) -> Frame:
    caption = caption_of(game, model)
    try:
        drawn = drawing(game, model)
    except Exception as error:  # drawing a model must never take the page down
        drawn = error
    return Frame(caption, drawn, plots_html(game, model.datacollector.model_vars, model))


class Session:
    """One page's game in play: the model, the parameters and seed it was built with, what
    of the address's values it could not use (``refused``, one line or None), the round
    the board shows (``frame``), and a lock that steps and draws it one at a time."""

    def __init__(self, game, given: dict, seed):
        self.game = game
        self.model, self.given, self.seed, self.refused = build_usable(game, given, seed)
        self.lock = threading.Lock()
        self.going = None  # the serial number of the Run whose rounds may be played
        self.serial = 0
        self.ticks = itertools.count(1)
        self.draw()

    def next_tick(self) -> int:
        """A number no other call returns: the page's ``tick`` set to it always changes, so
        two threads that both ask for a redraw are never taken for one (``tick.value + 1``
        read by both would be)."""
        return next(self.ticks)

    def draw(self):
        """The board's frame of the model now (called with the lock held, or before any
        other thread knows the session)."""
        self.frame = frame_of(self.game, self.model)


@dataclass(frozen=True)
class Run:
    """Rounds played by the page's thread: Play (drawn every ``every`` rounds, at the speed
    chosen) or a run unpaced to round ``until`` (None: the episode's end; ``every`` None:
    drawn there only). ``serial`` tells one run from the next."""

    serial: int
    until: int | None = None
    every: int | None = 1

    def wants(self, model) -> bool:
        """Whether ``model`` has a round left to play in this run."""
        return model.running and (self.until is None or model.steps < self.until)


@solara.component
def PlayPage(game, shown: Address, go):
    """A game's page (module docstring): its parameters and seed are the page's address
    ``shown``; a control changes them with ``go`` (``dilemmas.dashboard.app.Page``)."""
    given, seed = shown.given, shown.seed
    session = solara.use_memo(lambda: Session(game, given, seed), [])
    fault = solara.use_reactive(None)
    tick = solara.use_reactive(0)
    going = solara.use_reactive(None)  # the Run being played, or None
    rate = solara.use_reactive(10)
    every = solara.use_reactive(1)

    def stop():
        """No round starts after this; one being played finishes first (the lock)."""
        session.going = None
        with session.lock:  # (no state is set while it is held: a render takes it too)
            pass
        going.set(None)

    def rebuild(parameters: dict, seed):
        model, problem_met = build(game, parameters, seed)
        fault.set(problem_met)
        if model is not None:
            stop()
            with session.lock:
                session.model, session.given, session.seed = model, parameters, seed
                session.refused = None
                session.draw()
            tick.set(session.next_tick())

    def follow():
        if repr((given, seed)) == repr((session.given, session.seed)):
            fault.set(None)
            return
        values = between_rounds(game, session, given, seed)
        if values is None:
            rebuild(given, seed)
            return
        try:  # between two rounds: the lock is held through each round
            with session.lock:
                session.model.change(**values)
                session.given = given
                session.draw()
            fault.set(None)
        except ValueError as error:
            fault.set((blame(game, str(error)), one_line(error)))
        tick.set(session.next_tick())

    solara.use_effect(follow, [repr(given), repr(seed)])

    def reset():
        """The episode again with the last accepted parameters; a refused value in the form
        stays said."""
        refused = fault.value if repr((given, seed)) != repr((session.given, session.seed)) else None
        rebuild(session.given, session.seed)
        if refused:
            fault.set(refused)

    def step():
        """Step: a round of the model shown, unless its episode has ended or a run is going
        (a Step clicked before the page drew the end, or Play, plays nothing)."""
        try:
            with session.lock:
                if session.model.running and session.going is None:
                    session.model.step()
                    session.draw()
        except Exception as error:
            fault.set((None, f"the model raised while stepping: {one_line(error)}"))
        tick.set(session.next_tick())

    def start(until: int | None = None, paced: bool = True):
        """Play (``paced``: at the speed chosen, drawing every ``every`` rounds), or play
        unpaced to round ``until`` (None: the episode's end) and draw there."""
        session.serial += 1
        run = Run(session.serial, until, every.value if paced else None)
        with session.lock:
            idle = not run.wants(session.model)
        if idle:  # nothing to play (the round asked is the one shown): no run begins
            tick.set(session.next_tick())
            return
        session.going = run.serial
        going.set(run)

    def play(cancel: threading.Event):
        """The rounds of the run going, each begun only while it is still the one going
        (Pause, Reset or another run stop it within a round), the board's frame made in
        the same hold of the lock as the round it shows: every ``every``-th round, once a
        second if unpaced, and the last round played. Only the session's ``going`` stops
        a run (``cancel`` may come from a quick change of ``going`` that leaves this run
        the one going; leaving the page stops it, ``left``)."""
        run = going.value
        if run is None:
            return
        played, drawn, model = 0, time.perf_counter(), None
        try:
            while True:
                with session.lock:
                    model = session.model
                    if session.going != run.serial or not run.wants(model):
                        break
                    model.step()
                    played += 1
                    show = (not run.wants(model) or
                            (played % run.every == 0 if run.every is not None
                             else time.perf_counter() - drawn > 1))
                    if show:
                        session.draw()
                if show:
                    tick.set(session.next_tick())
                    if run.every is not None:
                        # pause at least as long as the rounds took to play and draw, so the
                        # server's own thread has the time to send them (else a large world
                        # piles up rounds)
                        took = time.perf_counter() - drawn
                        until = time.perf_counter() + max(took, 1 / rate.value - took)
                        # paced even where cancel is set (it may leave this run going);
                        # Pause, Reset or another run end the wait within 10 ms
                        while session.going == run.serial and time.perf_counter() < until:
                            time.sleep(0.01)
                    drawn = time.perf_counter()
        except Exception as error:
            fault.set((None, f"the model raised while stepping: {one_line(error)}"))
        with session.lock:
            if session.model is model:
                session.draw()
        if session.going == run.serial:  # ended by itself (the end, its round, an error)
            session.going = None
            going.set(None)
        tick.set(session.next_tick())

    solara.use_thread(play, dependencies=[going.value], intrusive_cancel=False)

    def left():
        def leave():
            session.going = None  # the page is gone: no round of its run starts
        return leave

    solara.use_effect(left, [])

    def play_or_pause():
        """Play starts, or stops: after Pause no round starts, a round being played
        finishes, and the page then shows the last round with the button that says Play."""
        if going.value is None:
            start()
        else:
            stop()
            tick.set(session.next_tick())

    def go_to(text: str):
        """Round ``text`` of this episode: played on to it, or (an earlier round) the episode
        played again from its seed to it; beyond the episode's end, its end."""
        target = from_text(text)
        if type(target) is not int or target < 0:
            fault.set((ROUND, f"go to round: {text!r} is not a round (an integer >= 0)"))
            return
        if fault.value and fault.value[0] == ROUND:
            fault.set(None)
        stop()
        if target < session.model.steps:
            with session.lock:
                session.model = game.model(**session.given, rng=session.seed)
                session.draw()
        start(until=target, paced=False)

    def change(name: str, value):
        go(lambda a: a.with_(given={**a.given, name: value}))

    with solara.Sidebar():
        Field(SEED, as_text(seed), lambda text: go(lambda a: a.with_(seed=from_text(text))),
              classes=["seed-field"], disabled=going.value is not None)
        if fault.value and fault.value[0] == SEED:
            message(fault.value[1], "control-message")
        solara.Text("any integer >= 0: a run's seed plays that run again",
                    classes=["control-help"])
        Controls(game, given, change, fault.value, playing=going.value is not None)
    if session.refused:
        message(session.refused, "address-message")
    if fault.value and fault.value[0] is None:
        message(fault.value[1])
    Board(game, session, tick, going.value is not None, rate, every, reset, step,
          play_or_pause, lambda: (stop(), start(paced=False)), go_to, fault.value)


def shown(game, session: Session, model) -> export.Shown:
    """The files of ``model`` as the board shows it (``dilemmas.dashboard.export``): its
    rows so far, its world and its plots, read under the session's lock."""
    return export.Shown(
        game, export.stem(game.name, session.given, session.seed), model.steps,
        lambda: export.model_frame(model),
        (lambda: export.agent_frame(model)) if model.datacollector.agent_reporters else None,
        lambda: model, lambda: dict(model.datacollector.model_vars), lock=session.lock,
        caption=f"{game.title}: {caption_of(game, model)}")


@solara.component
def Board(game, session: Session, tick, playing: bool, rate, every, reset, step,
          play_or_pause, run_to_end, go_to, fault):
    """What changes each round (the only part of the page drawn again then): the buttons and
    the round counter, the world, the plots and, when shown, one agent's story. The caption,
    the world and the plots are the session's ``frame``: one round, made together."""
    model, version, frame = session.model, tick.value, session.frame
    show_agent = solara.use_reactive(False)
    show_exports = solara.use_reactive(False)
    zoom = solara.use_reactive(1)
    inspected = solara.use_reactive("")
    seat = solara.use_reactive(None)

    def inspect(clicked: dict):
        """A click on the world: what it names, and a clicked agent's story opened."""
        with session.lock:
            text = inspected_text(clicked, game.view.scene(session.model)
                                  if clicked.get("grid") else None)
        inspected.set(text)
        clicked = inspected_seat(text)
        if clicked is not None:
            seat.set(clicked)
            show_agent.set(True)

    with solara.Column(gap="8px", classes=["play-page"]):
        with solara.Row(gap="8px", style={"align-items": "center", "flex-wrap": "wrap"}):
            solara.Button("Reset", on_click=reset, outlined=True)
            solara.Button("Step", on_click=step, outlined=True,
                          disabled=playing or not model.running)
            solara.Button("Pause" if playing else "Play", on_click=play_or_pause,
                          color="primary", disabled=not model.running and not playing,
                          classes=["play-pause"])
            solara.Button("Run to end", on_click=run_to_end, outlined=True,
                          disabled=not model.running, classes=["run-to-end"])
            with solara.Column(classes=["speed"], style={"min-width": "220px"}):
                solara.SliderInt(f"speed = {rate.value} rounds/s" if every.value == 1 else
                                 f"speed = {rate.value} draws/s "
                                 f"({rate.value * every.value} rounds/s)",
                                 value=rate, min=1, max=30, thumb_label=True)
            solara.Select("draw every", values=list(EVERY), value=every, dense=True,
                          classes=["draw-every"], style={"max-width": "120px"})
            solara.Select("zoom", values=list(ZOOMS), value=zoom, dense=True,
                          classes=["zoom"], style={"max-width": "90px"})
            with solara.Column(style={"max-width": "150px"}):
                Field(ROUND, "", go_to, classes=["go-to-round"])
        if fault and fault[0] == ROUND:
            message(fault[1])
        if isinstance(frame.drawn, Exception):
            solara.Text(frame.caption, classes=["world-caption"])
            message(f"could not draw the world: {one_line(frame.drawn)}")
            Charts(game, None, drawn=frame.plots)
        else:
            World(game, model, version, drawn=frame.drawn, plots=frame.plots,
                  zoom=zoom.value, on_zoom=zoom.set, on_inspect=inspect, caption=frame.caption)
        if inspected.value:
            solara.Text(f"clicked: {inspected.value}", classes=["inspected"],
                        style={"font-size": "14px"})
        About(game)
        solara.Switch(label="One agent: its behaviour, reward and last rounds",
                      value=show_agent, classes=["agent-switch"])
        if show_agent.value:
            AgentPanel(game, model, version, lock=session.lock, seat=seat.value).key(
                f"agent-{seat.value}")
        solara.Switch(label="Export: the data, the world and the plots as files",
                      value=show_exports, classes=["export-switch"])
        if show_exports.value:
            Exports(shown(game, session, model), disabled="Pause to take the files of a round"
                    if playing else None)
