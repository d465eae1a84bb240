"""Recorded runs, watched again: pick a run of a study folder by its run id, or a Bucket
Brigade replay file; it is rebuilt from its recorded parameters and seed and checked against
its stored rows (``dilemmas.dashboard.runs``), and a scrubber moves through its rounds, backwards
and forwards. A second run can be opened beside the first; the scrubber moves both.

A run the batch engine played is rebuilt by playing its block of runs again (the engine's
``replay``): its world is the game's model loaded with its state after each round, checked
against its stored rows like any other. A run recorded under another version of the rules
cannot be rebuilt: its stored rows are plotted and the page says why there is no world to
show. Whatever a folder, a file or a run id holds, the page says what is wrong in one line.
"""

import re
from pathlib import Path

import solara

from dilemmas.dashboard import export, runs
from dilemmas.dashboard.charts import shared, span
from dilemmas.dashboard.controls import as_text, from_text
from dilemmas.dashboard.export import Exports
from dilemmas.dashboard.field import Field
from dilemmas.dashboard.messages import message, one_line
from dilemmas.dashboard.panels import ZOOMS, AgentPanel, Charts, World, inspected_text
from dilemmas.dashboard.summaries import StudySummary
from dilemmas.dashboard.trainings import TrainingView

SOURCES = ("study folder", "replay file")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def in_order(entries: list[dict]) -> list[dict]:
    """A study's runs (``runs.list_runs``) in the order of their names: by the swept
    parameters' values (numbers as numbers: 2 before 10, 0.05 before 0.1), then replicate,
    then seed."""
    def key(entry):
        parts, at = [], 0
        for number in NUMBER.finditer(entry["name"]):
            parts += [(0, entry["name"][at:number.start()]), (1, float(number.group()))]
            at = number.end()
        return [*parts, (0, entry["name"][at:])]

    return sorted(entries, key=key)


def matching(entries: list[dict], text: str) -> list[dict]:
    """The runs a filter keeps: every word of ``text`` holds, a ``name=value`` word when the
    run's parameter, ``replicate`` or ``seed`` has that value (as its field writes it), any
    other word when the run's name contains it. A name no run has is refused (ValueError)."""
    kept = entries
    for word in text.split():
        if "=" in word:
            name, value = word.split("=", 1)
            if entries and name not in entries[0]:
                known = [k for k in entries[0] if k not in ("run_id", "engine", "name")]
                raise ValueError(f"filter {word!r}: the runs have no parameter {name!r} "
                                 f"(they have {', '.join(known)})")
            kept = [e for e in kept if as_text(e[name]) == value or e[name] == from_text(value)]
        else:
            kept = [e for e in kept if word.lower() in e["name"].lower()]
    return kept


@solara.component
def Picker(label: str, recording: solara.Reactive, default_folder: str = "results"):
    """Where a run comes from: a study folder and a run (picked from its list, which names
    each by its swept parameters, replicate and seed, holds every run in that order and
    can be filtered by them: ``matching``; or typed by its id), or a replay
    file. A run opens when it is picked, or when its id or file is typed and Enter pressed
    (the text travels with that event: ``dilemmas.dashboard.field``)."""
    source = solara.use_reactive(SOURCES[0])
    folder = solara.use_reactive(default_folder)
    study = solara.use_reactive(None)
    error = solara.use_reactive("")
    found = solara.use_memo(lambda: runs.studies_under(folder.value), [folder.value])
    offered = found if isinstance(found, list) else []
    chosen = (study.value if study.value in offered
              else offered[0] if len(offered) == 1 else None)
    listed = solara.use_memo(lambda: _listing(chosen), [chosen])
    wanted = solara.use_reactive("")
    opened = recording.value.run_id if recording.value is not None else None

    def open_it(where: str):
        try:
            if source.value == SOURCES[0]:
                if not chosen:
                    raise runs.RunError(f"no study chosen (none found under "
                                        f"{folder.value!r})")
                recording.set(runs.open_run(chosen, where.strip()))
            else:
                recording.set(runs.open_replay(where.strip()))
            error.set("")
        except Exception as problem:  # said in one line, whatever the path or file
            error.set(one_line(problem))

    with solara.Card(label, classes=["run-picker"], margin=0):
        solara.ToggleButtonsSingle(value=source, values=list(SOURCES), dense=True)
        if source.value == SOURCES[0]:
            Field("folder of studies (or one study)", folder.value, folder.set,
                  classes=["folder-field"])
            if offered:
                solara.Select("study", values=offered, value=chosen, on_value=study.set,
                              classes=["study-picker"])
            elif isinstance(found, str):
                message(found)
            else:
                message(f"no study under {folder.value!r}: run one with `dilemmas run` "
                        "or `make run`")
            if isinstance(listed, str):
                message(listed)
            elif listed:
                Field("filter runs (e.g. beta=0.4 seed=3; Enter)", wanted.value, wanted.set,
                      classes=["run-filter"])
                try:
                    kept = matching(listed, wanted.value)
                except ValueError as problem:
                    message(problem)
                    kept = listed
                names = {entry["run_id"]: f"{entry['name']} ({entry['run_id']})"
                         for entry in kept}
                solara.Select(f"run ({len(kept)} of {len(listed)} listed; or type its id "
                              "below)", values=list(names.values()),
                              value=names.get(opened),
                              on_value=lambda name: open_it(
                                  next(i for i, n in names.items() if n == name)),
                              classes=["run-picker-list"])
            if chosen:  # shown once the server knows the study, so an id is opened in it
                Field("run id (Enter opens it)", "", open_it,
                      classes=["run-id-field"]).key(f"run-id-{chosen}")
        else:
            Field("Bucket Brigade replay file (.json; Enter opens it)", "", open_it,
                  classes=["replay-field"])
        if error.value:
            message(error.value)


def _listing(study):
    """The runs of ``study`` (``runs.list_runs``), or the reason they cannot be read."""
    if not study:
        return []
    try:
        return in_order(runs.list_runs(study))
    except Exception as problem:  # a damaged folder is said, not raised
        return one_line(problem)


@solara.component
def RunView(recording, round_: int, name: str, axes: dict | None = None,
            last_round: int | None = None):
    """One opened run at ``round_`` (at most its last): what it is, the verdict of the check
    against its rows, its world, its plots with the round marked (on the axes ``axes`` and
    ``last_round`` it shares with a run of the same game beside it; a run of another game
    has its own), and one agent's story. Its world zooms (the picker, or Ctrl and the
    wheel) and a click on it names what it hits."""
    previous = solara.use_ref(None)
    zoom = solara.use_reactive(1)
    inspected = solara.use_reactive("")
    verdict = solara.use_memo(lambda: _verdict(recording), [id(recording)])
    data = solara.use_memo(lambda: {c: recording.rows[c].tolist() for c in recording.rows},
                           [id(recording)])
    shown = min(round_, recording.rounds)
    game = recording.game
    with solara.Column(gap="6px", classes=["run-view"],
                       style={"flex": "1 1 0", "min-width": "0"}):
        solara.Text(f"{name}: {caption_of(recording, shown)}",
                    classes=["run-caption"], style={"font-size": "15px"})
        solara.Text(f"from {recording.source}" + (f", run {recording.run_id}"
                                                 if recording.replicate is not None else ""),
                    classes=["run-source"], style={"font-size": "12px", "color": "#555"})
        (solara.Success if verdict.identical else solara.Warning)(
            one_line(verdict.message), dense=True, classes=["run-verdict"])
        model = None
        if recording.refusal is None:  # the verdict says why a run is not rebuilt
            try:
                model = runs.model_at(recording, shown, previous.current)
                previous.current = model
            except Exception as problem:
                message(problem)
        if model is not None:
            solara.Select("zoom", values=list(ZOOMS), value=zoom, dense=True,
                          classes=["zoom"], style={"max-width": "90px"})
            World(game, model, shown, zoom=zoom.value, on_zoom=zoom.set,
                  on_inspect=lambda clicked: inspected.set(inspected_text(
                      clicked, game.view.scene(model) if clicked.get("grid") else None)))
            if inspected.value:
                solara.Text(f"clicked: {inspected.value}", classes=["inspected"],
                            style={"font-size": "14px"})
        Charts(game, data, model, shown, current=shown, axes=axes, last_round=last_round)
        if model is not None:
            with solara.Details("One agent: its behaviour, reward and last rounds"):
                AgentPanel(game, model, shown)
        with solara.Details("Export: the data, the world and the plots as files"):
            Exports(exported(recording, shown, model, data))


def exported(recording, shown: int, model, data) -> export.Shown:
    """The files of a run at round ``shown`` (``dilemmas.dashboard.export``): its stored
    rows, its world then (if it is rebuilt) and its plots with the round marked; named by
    its swept values and run id (a replay: its file's name) and its seed."""
    named = ({**recording.swept, "run": recording.run_id} if recording.replicate is not None
             else {"replay": Path(recording.source).stem})
    return export.Shown(
        recording.game, export.stem(recording.game.name, named, recording.seed), shown,
        lambda: recording.rows,
        (lambda: recording.agent_rows) if recording.agent_rows is not None else None,
        (lambda: model) if model is not None else None, lambda: data, current=shown,
        caption=f"{caption_of(recording, shown)} · seed {recording.seed}")


def caption_of(recording, shown: int) -> str:
    """A recorded run's caption at round ``shown``, as the page and its exported world say
    it."""
    game = recording.game
    return f"{recording.name} · {game.title} · {game.round} {shown} of {recording.rounds}"


def _verdict(recording):
    try:
        return runs.verify(recording)
    except Exception as problem:  # the check must not take the page down
        return runs.Verdict(False, f"could not be checked: {one_line(problem)}")


@solara.component
def ViewerPage():
    """Two run pickers in the sidebar, a scrubber, and the opened runs side by side."""
    first = solara.use_reactive(None)
    second = solara.use_reactive(None)
    round_ = solara.use_reactive(0)
    opened = [r for r in (first.value, second.value) if r is not None]
    last = max((r.rounds for r in opened), default=0)
    if round_.value > last:
        round_.set(last)
    with solara.Sidebar():
        Picker("Run A", first)
        Picker("Run B (optional, shown beside A)", second)
    Runs(first.value, second.value, round_, last)
    with solara.Details("A study: its summary (every combination's means and 95% "
                        "intervals) and its figures"):
        StudySummary()
    with solara.Details("A training: its learning curve and its seeds' final returns"):
        TrainingView()


@solara.component
def Runs(first, second, round_, last: int):
    """The scrubber and the opened runs side by side."""
    opened = [r for r in (first, second) if r is not None]
    axes = solara.use_memo(lambda: shared_axes(opened), [id(first), id(second)])
    wrong = solara.use_reactive("")

    def go_to(text: str):
        """Round ``text`` (beyond the last: the last)."""
        target = from_text(text)
        if type(target) is not int or target < 0:
            wrong.set(f"go to round: {text!r} is not a round (an integer >= 0)")
            return
        wrong.set("")
        round_.set(min(target, last))

    if not opened:
        solara.Markdown("Open a run of a study folder (by its run id) or a Bucket Brigade "
                        "replay file in the sidebar; open a second to compare them side by "
                        "side.")
        return
    with solara.Row(gap="8px", style={"align-items": "center"}, classes=["scrubber"]):
        solara.Button("◀ back", on_click=lambda: round_.set(max(0, round_.value - 1)),
                      outlined=True, classes=["scrub-back"])
        with solara.Column(classes=["scrub"], style={"min-width": "360px"}):
            solara.SliderInt(f"round = {round_.value} of {last}", value=round_, min=0,
                             max=last, thumb_label=True)
        solara.Button("forward ▶", on_click=lambda: round_.set(min(last, round_.value + 1)),
                      outlined=True, classes=["scrub-forward"])
        with solara.Column(style={"max-width": "150px"}):
            Field("go to round", "", go_to, classes=["go-to-round"])
        if wrong.value:
            message(wrong.value)
    with solara.Row(gap="24px", classes=["run-views"],
                    style={"flex-wrap": "nowrap", "align-items": "flex-start"}):
        for name, recording in (("A", first), ("B", second)):
            if recording is not None:
                RunView(recording, round_.value, name, axes,
                        last if axes is not None else None).key(
                    f"{name}-{id(recording)}")


def shared_axes(recordings) -> dict | None:
    """For runs of one game side by side: each plot's y axis over all of their rows (so
    the same height means the same value in both); None for one run or two games."""
    if len(recordings) < 2 or len({r.game.name for r in recordings}) > 1:
        return None
    axes = {}
    for plot in recordings[0].game.view.plots:
        spans = []
        for recording in recordings:
            data = {c: recording.rows[c].tolist() for c in plot.columns if c in recording.rows}
            spans.append(span(plot, data, _high(plot, recording)))
        axes[plot.title] = shared(spans)
    return axes


def _high(plot, recording):
    """``plot.high`` of a run's model (built, not played), or None if it cannot be."""
    if not callable(plot.high):
        return None
    try:
        return plot.high(recording.game.model(**recording.parameters, rng=recording.seed,
                                              collect_data=False))
    except Exception:  # a run that is not rebuilt: the axis follows its rows
        return None
