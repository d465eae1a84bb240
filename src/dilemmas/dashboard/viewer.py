"""Recorded runs, watched again: pick a run of a study folder by its run id, or a Bucket
Brigade replay file; it is rebuilt from its recorded parameters and seed and checked against
its stored rows (``dilemmas.dashboard.runs``), and a scrubber moves through its rounds, backwards
and forwards. A second run can be opened beside the first; the scrubber moves both.

A run the batch engine played, or one recorded under another version of the rules, cannot be
rebuilt from its seed alone: its stored rows are plotted and the page says why there is no
world to show. Whatever a folder, a file or a run id holds, the page says what is wrong in
one line.
"""

from pathlib import Path

import solara

from dilemmas.dashboard import runs
from dilemmas.dashboard.messages import message, one_line
from dilemmas.dashboard.panels import AgentPanel, Charts, World

SOURCES = ("study folder", "replay file")
LISTED = 200  # run ids offered in the drop-down; any other can be typed


def studies_under(folder: str) -> list[str] | str:
    """``folder`` if it holds a study, else its subfolders that do, sorted; or why the
    folder cannot be read."""
    try:
        path = Path(folder).expanduser()
        if (path / "study.json").is_file():
            return [str(path)]
        if not path.is_dir():
            return []
        return sorted(str(p.parent) for p in path.glob("*/study.json"))
    except Exception as problem:  # a name too long, a folder not readable, "~nobody"
        return f"{folder!r} cannot be read: {one_line(problem)}"


@solara.component
def Picker(label: str, recording: solara.Reactive, default_folder: str = "results"):
    """Where a run comes from: a study folder and a run id, or a replay file."""
    source = solara.use_reactive(SOURCES[0])
    folder = solara.use_reactive(default_folder)
    study = solara.use_reactive(None)
    run_id = solara.use_reactive("")
    path = solara.use_reactive("")
    error = solara.use_reactive("")
    found = solara.use_memo(lambda: studies_under(folder.value), [folder.value])
    offered = found if isinstance(found, list) else []
    chosen = (study.value if study.value in offered
              else offered[0] if len(offered) == 1 else None)
    listed = solara.use_memo(lambda: _listing(chosen), [chosen])

    def open_it():
        try:
            if source.value == SOURCES[0]:
                if not chosen:
                    raise runs.RunError(f"no study chosen (none found under "
                                        f"{folder.value!r})")
                recording.set(runs.open_run(chosen, (run_id.value or "").strip()))
            else:
                recording.set(runs.open_replay((path.value or "").strip()))
            error.set("")
        except Exception as problem:  # said in one line, whatever the path or file
            error.set(one_line(problem))

    with solara.Card(label, classes=["run-picker"], margin=0):
        solara.ToggleButtonsSingle(value=source, values=list(SOURCES), dense=True)
        if source.value == SOURCES[0]:
            solara.InputText("folder of studies (or one study)", value=folder,
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
                solara.Select(f"run id ({min(len(listed), LISTED)} of {len(listed)} listed; "
                              "or type one below)", values=listed[:LISTED],
                              value=run_id.value if run_id.value in listed[:LISTED] else None,
                              on_value=run_id.set, classes=["run-picker-list"])
            solara.InputText("run id", value=run_id, classes=["run-id-field"])
        else:
            solara.InputText("Bucket Brigade replay file (.json)", value=path,
                             classes=["replay-field"])
        solara.Button("Open", on_click=open_it, color="primary", classes=["open-run"])
        if error.value:
            message(error.value)


def _listing(study):
    """The run ids of ``study``, or the reason they cannot be read."""
    if not study:
        return []
    try:
        return [entry["run_id"] for entry in runs.list_runs(study)]
    except Exception as problem:  # a damaged folder is said, not raised
        return one_line(problem)


@solara.component
def RunView(recording, round_: int, name: str):
    """One opened run at ``round_`` (at most its last): the verdict of the check against its
    rows, its world, its plots with the round marked, and one agent's story."""
    previous = solara.use_ref(None)
    verdict = solara.use_memo(lambda: _verdict(recording), [id(recording)])
    data = solara.use_memo(lambda: {c: recording.rows[c].tolist() for c in recording.rows},
                           [id(recording)])
    shown = min(round_, recording.rounds)
    game = recording.game
    with solara.Column(gap="6px", classes=["run-view"],
                       style={"flex": "1 1 0", "min-width": "420px"}):
        solara.Text(f"{name}: {recording.source} · {game.title} · seed {recording.seed} · "
                    f"{game.round} {shown} of {recording.rounds}",
                    classes=["run-caption"], style={"font-size": "15px"})
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
            World(game, model, shown)
        Charts(game, data, model, shown, current=shown)
        if model is not None:
            with solara.Details("One agent: its behaviour, reward and last rounds"):
                AgentPanel(game, model, shown)


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


@solara.component
def Runs(first, second, round_, last: int):
    """The scrubber and the opened runs side by side."""
    if first is None and second is None:
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
    with solara.Row(gap="24px", style={"flex-wrap": "nowrap", "align-items": "flex-start",
                                       "overflow-x": "auto"}):
        for name, recording in (("A", first), ("B", second)):
            if recording is not None:
                RunView(recording, round_.value, name).key(f"{name}-{id(recording)}")
