"""``dilemmas.batch_run``: ``mesa.batch_run``'s call and rows, with the registered games'
parameter combinations played on their batch engines.

``batch_run(model_cls, parameters, number_processes=1, iterations=None,
data_collection_period=-1, max_steps=1000, display_progress=True, rng=None)`` takes the
arguments of Mesa 3.5's ``mesa.batch_run`` and returns its rows: a list of dicts, one per
collected step of each run (one per agent where there are agent reporters), each
``RunId, iteration, Step``, the run's keywords (the parameters and ``rng``, or ``seed`` for a
model that takes that), the model reporters and then ``AgentID`` and the agent reporters
(an agent's value replacing a model column of the same name). Runs are numbered as Mesa
numbers them (``RunId = iteration * combinations + combination``: the seeds of ``rng`` in the
outer loop, the parameter combinations in the inner one) and the rows come in that order,
with one process or several.

Where ``model_cls`` is a registered game's model (``dilemmas.GAMES[name].model``) and its
batch engine can play a parameter combination (no behaviour that cannot decide on arrays,
``dilemmas.models.batch.unable``, and no ``refusal``), that combination's runs are played on
the engine, in blocks of its iterations, each seeded with the seeds of its runs
(``numpy.random.default_rng([seed, ...])``, as ``dilemmas.analysis.studies.blocks`` does; a
seed of None draws a fresh one). Their rows have the keys, order and types of the model's rows
and agree with them in distribution, not draw for draw; the same ``rng`` gives the same rows.
Mesa's ``max_steps`` cuts an episode after that many steps (the loop ``while model.running and
model.steps < max_steps``), and ``data_collection_period`` picks the collected steps as Mesa
picks them from a run's DataCollector: -1 the last, 1 every one, ``k`` every ``k``-th from
the first (the last only where it falls on one). A combination the engine cannot play is
played on the model, and one line (a ``UserWarning``) says which and why, once per call.

Everything else -- a model class of one's own, ``engine="model"`` -- plays the models
themselves, as ``mesa.batch_run`` does (its per-run function written again here, so this
keeps working without ``mesa.batchrunner``): the rows are ``mesa.batch_run``'s exactly.
``number_processes`` other than 1 plays the runs (and engine blocks) in a pool of spawned
processes, as Mesa's does, and gives the same rows as one process.

Differences from ``mesa.batch_run``, all on inputs it accepts silently or fails on late:
``iterations`` must be an integer >= 1, ``rng`` must hold at least one seed, a parameter must
be one the model takes (unless it takes ``**kwargs``), no parameter's list of values may be
empty, ``parameters`` may not set the seed keyword itself (batch_run sets it from ``rng``),
and ``data_collection_period`` may not be 0: each is a ``ValueError`` or ``TypeError`` up
front, before anything plays. Mesa's process pool changes the process-wide start method to
"spawn"; this one uses a spawn context and leaves it alone.
"""

import bisect
import inspect
import itertools
import math
import numbers
import warnings
from collections.abc import Iterable, Mapping

__all__ = ["batch_run"]

#: Episodes per engine block: the batch runner's (``dilemmas.analysis.studies.blocks``),
#: without agent rows and with them (or with seats that decide in Python).
BLOCK, AGENT_BLOCK = 10_000, 1_000
ENGINES = ("auto", "model", "batch")


def batch_run(model_cls, parameters, number_processes=1, iterations=None,
              data_collection_period=-1, max_steps=1000, display_progress=True, rng=None,
              *, engine="auto"):
    """Play ``model_cls`` for every combination of ``parameters`` (a dict; a list, tuple or
    other iterable value is swept, a string is not) and every seed of ``rng`` (a seed or an
    iterable of seeds; ``iterations=n``, deprecated as in Mesa, is ``rng=[None] * n``), and
    return ``mesa.batch_run``'s rows: one dict per reported step of each run (per agent where
    the model has agent reporters) with ``RunId``, ``iteration``, ``Step``, the run's
    parameters and seed, the model reporters, ``AgentID`` and the agent reporters, in
    ``RunId`` order. ``max_steps`` cuts a run after that many steps;
    ``data_collection_period`` reports the last collected step (-1), every one (1) or every
    ``k``-th; ``number_processes`` other than 1 plays in a pool of spawned processes (None:
    every CPU), with the same rows.

    ``engine``: ``"auto"`` plays a registered game's combinations on its batch engine where it
    can (rows that agree with the model's in distribution, reproducible from ``rng``; a
    combination it cannot play plays on the model, and one warning says why), ``"model"``
    always plays the models (rows identical to ``mesa.batch_run``'s), ``"batch"`` insists on
    the engine (a combination it cannot play is a ``ValueError``). docs/how-to/use-a-game.md,
    "Many runs", shows it in use."""
    if not callable(model_cls):
        raise TypeError(f"model_cls={model_cls!r} is not a model class")
    if not isinstance(parameters, Mapping):
        raise TypeError(f"parameters must be a dict of parameter name -> value or list of "
                        f"values to sweep, not {type(parameters).__name__}")
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is invalid: must be one of {ENGINES}")
    if number_processes is not None and (not isinstance(number_processes, numbers.Integral)
                                         or isinstance(number_processes, bool)
                                         or number_processes < 1):
        raise ValueError(f"number_processes={number_processes!r} is invalid: must be an "
                         "integer >= 1, or None for every CPU")
    if not isinstance(data_collection_period, numbers.Integral) \
            or isinstance(data_collection_period, bool) or data_collection_period == 0:
        raise ValueError(f"data_collection_period={data_collection_period!r} is invalid: must "
                         "be -1 (the last step), or k (every k-th collected step), k != 0")
    if not isinstance(max_steps, numbers.Real) or isinstance(max_steps, bool):
        raise TypeError(f"max_steps={max_steps!r} is invalid: must be a number")
    if iterations is not None and rng is not None:
        raise ValueError(
            "you cannot use both iterations and rng at the same time. Please only use rng.")
    if iterations is not None:
        if not isinstance(iterations, numbers.Integral) or isinstance(iterations, bool) \
                or iterations < 1:
            raise ValueError(f"iterations={iterations!r} is invalid: must be an integer >= 1")
        warnings.warn(
            "The `iterations` keyword argument is deprecated. "
            "Use `rng` instead (e.g. `iterations=5` is equivalent to `rng=[None] * 5`). "
            "See https://mesa.readthedocs.io/latest/migration_guide.html#batch-run",
            DeprecationWarning, stacklevel=2)
        rng = [None] * int(iterations)
    seeds = list(rng) if isinstance(rng, Iterable) else [rng]
    if not seeds:
        raise ValueError("rng holds no seed: nothing to play (give a seed or a list of seeds)")

    try:
        signature = inspect.signature(model_cls).parameters
    except (TypeError, ValueError):
        signature = {}
    seed_name = "seed" if "seed" in signature else "rng"
    if seed_name in parameters:
        raise ValueError(f"parameters set {seed_name!r}, which batch_run sets for each run from "
                         f"its rng argument: pass the seeds as rng=[...]")
    takes_any = not signature or any(p.kind is inspect.Parameter.VAR_KEYWORD
                                     for p in signature.values())
    unknown = [name for name in parameters if not takes_any and name not in signature]
    if unknown:
        raise TypeError(f"{getattr(model_cls, '__name__', model_cls)} takes no parameter "
                        f"{', '.join(map(repr, unknown))}; its parameters: "
                        f"{', '.join(signature)}")

    combinations = _make_model_kwargs(parameters)
    runs = []  # (run id, iteration, the run's keywords), in Mesa's order
    for i, seed in enumerate(seeds):
        for kwargs in combinations:
            runs.append((len(runs), i, {**kwargs, seed_name: seed}))

    tasks, notes = _plan(model_cls, combinations, runs, seeds, engine, max_steps,
                         data_collection_period)
    done = {}
    for note in _played(tasks, number_processes, display_progress, len(runs), done):
        notes.append(note)
    if notes:
        warnings.warn(_one_line(model_cls, notes, len(combinations)), UserWarning,
                      stacklevel=2)
    return [row for run_id in range(len(runs)) for row in done[run_id]]


def _make_model_kwargs(parameters: Mapping) -> list[dict]:
    """Every combination of ``parameters``' values, as Mesa's ``_make_model_kwargs`` makes
    them (a string is one value; another iterable is swept; anything else is one value),
    except that an empty iterable of any kind is an error."""
    parameter_list = []
    for param, values in parameters.items():
        if isinstance(values, str):
            all_values = [(param, values)]
        else:
            try:
                all_values = [(param, value) for value in values]
            except TypeError:
                all_values = [(param, values)]
            else:
                if not all_values:
                    raise ValueError(f"Parameter '{param}' contains an empty iterable, which is "
                                     "not allowed.")
        parameter_list.append(all_values)
    return [dict(kwargs) for kwargs in itertools.product(*parameter_list)]


# --- Which runs play where ------------------------------------------------------------------

def _game_of(model_cls):
    """The registration whose model is ``model_cls`` itself (not a subclass), or None."""
    from dilemmas.registry import GAMES, Game

    game = getattr(model_cls, "game", None)
    if isinstance(game, Game) and GAMES.get(game.name) is game and game.model is model_cls:
        return game
    return None


def _plan(model_cls, combinations, runs, seeds, engine, max_steps, period):
    """``(tasks, notes)``: the tasks that play ``runs`` (each an engine block of one
    combination's runs, or one run on the model) and why combinations of a registered game
    play on the model."""
    game = _game_of(model_cls) if engine != "model" else None
    if engine == "batch" and game is None:
        raise ValueError(f"engine='batch': {getattr(model_cls, '__name__', model_cls)} is not "
                         "a registered game's model, so no batch engine plays it")
    if game is not None:
        from dilemmas.models import validation

        for seed in seeds:
            validation.seed("rng", seed)  # the model's own check, before anything plays
    by_combination = [runs[c::len(combinations)] for c in range(len(combinations))]
    tasks, notes = [], []
    for c, combination in enumerate(combinations):
        layout = None
        if game is not None:
            layout, why = _engine_layout(game, combination)
            if why is not None:
                if engine == "batch":
                    raise ValueError(f"{why}: the {game.title} batch engine cannot play it")
                notes.append(why)
        if layout is None:
            tasks += [("model", model_cls, run, max_steps, period) for run in by_combination[c]]
            continue
        size = AGENT_BLOCK if layout["agents"] or layout["python"] else BLOCK
        mine = by_combination[c]
        for first in range(0, len(mine), size):
            tasks.append(("engine", model_cls, game.name, layout, mine[first:first + size],
                          max_steps, period))
    return tasks, notes


def _engine_layout(game, combination):
    """``(layout, None)`` where ``game``'s batch engine can play ``combination``: what its
    rows need (the model's columns in order, each one's Python type, the type of ``Step``,
    the engine's parameters); ``(None, why)`` where it cannot."""
    if game.references.get("batch") is None:
        return None, f"{game.name} has no batch engine"
    from dilemmas.models.batch import in_python, why_off_engine

    parameters = dict(combination)
    if not parameters.pop("collect_data", True):
        raise ValueError("collect_data=False: batch_run reads every run's rows from its "
                         "model's DataCollector")
    probe = game.model(**parameters, collect_data=True, rng=0)
    off = why_off_engine(probe)
    if off:
        return None, off
    collector = probe.datacollector
    if getattr(collector, "agenttype_reporters", None):
        return None, "its DataCollector has agent-type reporters"
    if probe.running:
        probe.step()  # the types of the columns that are None before the first round
    model_columns = list(collector.model_reporters)
    agent_columns = list(collector.agent_reporters)
    model_types = {name: _kind(reversed(values)) for name, values in collector.model_vars.items()}
    records = [record for step in reversed(collector._agent_records.values()) for record in step]
    agent_types = {name: _kind(record[2 + i] for record in records)
                   for i, name in enumerate(agent_columns)}
    return {"parameters": parameters, "agents": bool(agent_columns),
            "python": bool(in_python(probe)),
            "model": model_columns, "agent": agent_columns,
            "types": {"model": model_types, "agent": agent_types},
            "step": type(probe.time)}, None


def _kind(values):
    """The type of the first value that is not None, or None."""
    return next((type(value) for value in values if value is not None), None)


def _one_line(model_cls, notes, combinations):
    reasons = list(dict.fromkeys(notes))
    shown = "; ".join(reasons[:3]) + ("; ..." if len(reasons) > 3 else "")
    return (f"dilemmas.batch_run: {len(notes)} of {combinations} parameter combination(s) of "
            f"{model_cls.__name__} played on the Mesa model, not the batch engine: {shown}")


# --- Playing --------------------------------------------------------------------------------

def _played(tasks, number_processes, display_progress, total, done):
    """Play ``tasks`` (in a pool of spawned processes unless ``number_processes`` is 1),
    filling ``done`` (run id -> its rows); yields each note of an engine block that fell back
    to the model."""
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        tqdm = None
    bar = tqdm(total=total, disable=not display_progress) if tqdm else None
    try:
        if number_processes == 1 or len(tasks) == 1:
            results = map(_play, tasks)
            for result in results:
                yield from _keep(result, done, bar)
        else:
            import multiprocessing

            from dilemmas.models.session import with_session_behaviours

            play = with_session_behaviours(_play)
            with multiprocessing.get_context("spawn").Pool(number_processes) as pool:
                for result in pool.imap(play, tasks):
                    yield from _keep(result, done, bar)
    finally:
        if bar is not None:
            bar.close()


def _keep(result, done, bar):
    rows_by_run, note = result
    done.update(rows_by_run)
    if bar is not None:
        bar.update(len(rows_by_run))
    if note:
        yield note


def _play(task):
    """One task (``_plan``) -> ``({run id: rows}, note or None)``."""
    if task[0] == "model":
        _, model_cls, run, max_steps, period = task
        return {run[0]: _model_run_func(model_cls, run, max_steps, period)}, None
    _, model_cls, game_name, layout, runs, max_steps, period = task
    return _engine_block(model_cls, game_name, layout, runs, max_steps, period)


def _engine_block(model_cls, game_name, layout, runs, max_steps, period):
    """One block of a combination's runs on the game's batch engine -> their rows."""
    import secrets

    import numpy as np

    from dilemmas.registry import GAMES

    seed_name = "seed" if "seed" in runs[0][2] else "rng"
    seeds = [secrets.randbits(63) if run[2][seed_name] is None else int(run[2][seed_name])
             for run in runs]
    game = GAMES.get(game_name) or model_cls.game  # a worker may not have registered it
    # runs of one seed are one episode, as on the model (Mesa plays a seed twice alike)
    distinct = list(dict.fromkeys(seeds))
    place = {seed: e for e, seed in enumerate(distinct)}
    engine = game.batch(len(distinct), np.random.default_rng(distinct), agents=layout["agents"],
                        seeds=distinct, **layout["parameters"])
    rows = engine.run(compiled=False, rounds=_cut(max_steps))
    missing = [name for name in layout["model"] if name not in rows.model]
    if layout["agents"]:
        missing += [name for name in ["AgentID", *layout["agent"]] if name not in rows.agent]
    if missing:  # the engine does not record every column: the model plays these runs
        return ({run[0]: _model_run_func(model_cls, run, max_steps, period) for run in runs},
                f"its batch engine does not record {missing}")
    return _rows_of(rows, runs, [place[seed] for seed in seeds], layout, max_steps,
                    period), None


def _cut(max_steps):
    """The most steps Mesa's loop ``while model.running and model.steps < max_steps`` plays
    (None: no limit)."""
    if not max_steps > 0:
        return 0
    return None if math.isinf(max_steps) else math.ceil(max_steps)


def _python(values, kind) -> list:
    """An engine column (an array) as the model's Python values: each value made one of
    ``kind`` (the type the model's column holds; None: unknown), and NaN None where ``kind``
    is not a float (the engine's floats stand for the model's ints or None)."""
    values = values.tolist()
    if kind is not None and all(type(v) is kind for v in values):
        return values
    nan_is_none = kind is None or not issubclass(kind, float)
    return [None if v is None or (nan_is_none and isinstance(v, float) and v != v)
            else v if kind is None or type(v) is kind else kind(v) for v in values]


def _steps_of(played: int, max_steps, period) -> list[int]:
    """The steps Mesa reports of a run whose episode lasts ``played`` rounds: it plays
    ``while model.running and model.steps < max_steps``, its DataCollector has collected
    after construction and after every step, and ``data_collection_period`` picks from
    those collections."""
    cut = _cut(max_steps)
    recorded = list(range((played if cut is None else min(played, cut)) + 1))
    if period == -1:
        return recorded[-1:]
    return recorded if period == 1 else recorded[::period]


def _rows_of(rows, runs, episodes, layout, max_steps, period) -> dict:
    """An engine block's ``Rows`` -> run id -> Mesa's rows of that run (run ``i`` is the
    block's episode ``episodes[i]``)."""
    import numpy as np

    types = layout["types"]
    model = {name: _python(rows.model[name], types["model"][name]) for name in layout["model"]}
    starts = rows.bounds(rows.episode)
    agent, agent_starts, width = {}, None, 0
    if layout["agents"]:
        agent = {"AgentID": rows.agent["AgentID"].tolist()}
        agent.update({name: _python(rows.agent[name], types["agent"][name])
                      for name in layout["agent"]})
        width = int(rows.step.max()) + 2 if len(rows.step) else 1
        agent_key = rows.agent_episode.astype(np.int64) * width + rows.agent_step
        agent_starts = agent_key
    step_type = layout["step"]
    out = {}
    for e, (run_id, iteration, kwargs) in zip(episodes, runs):
        first, played = int(starts[e]), int(starts[e + 1] - starts[e]) - 1
        data = []
        steps = _steps_of(played, max_steps, period)
        if agent_starts is not None:
            keys = np.array([e * width + s for s in steps], dtype=np.int64)
            lows = np.searchsorted(agent_starts, keys, "left").tolist()
            highs = np.searchsorted(agent_starts, keys, "right").tolist()
        for n, s in enumerate(steps):
            model_data = {name: values[first + s] for name, values in model.items()}
            head = {"RunId": run_id, "iteration": iteration, "Step": step_type(s), **kwargs}
            if agent_starts is not None and highs[n] > lows[n]:
                data.extend({**head, **model_data,
                             **{name: values[k] for name, values in agent.items()}}
                            for k in range(lows[n], highs[n]))
            else:
                data.append({**head, **model_data})
        out[run_id] = data
    return out


# --- A run on the model: mesa.batchrunner's per-run functions (Mesa 3.5.1) ----------------

def _model_run_func(model_cls, run, max_steps, data_collection_period) -> list[dict]:
    """One run on the model, and its rows, exactly as ``mesa.batchrunner._model_run_func``
    makes them (written again, so as not to depend on ``mesa.batchrunner``)."""
    run_id, iteration, kwargs = run

    model = model_cls(**kwargs)
    while model.running and model.steps < max_steps:
        model.step()

    data = []
    try:
        recorded_steps = model.datacollector._collection_steps
    except AttributeError:  # a legacy DataCollector
        steps = list(range(0, model.steps, data_collection_period))
        if not steps or steps[-1] != model.steps - 1:
            steps.append(model.steps - 1)
    else:
        match data_collection_period:
            case -1:
                steps = [recorded_steps[-1]] if recorded_steps else []
            case 1:
                steps = recorded_steps
            case _:
                steps = recorded_steps[::data_collection_period]
    for step in steps:
        model_data, all_agents_data = _collect_data(model, step)
        if all_agents_data:
            data.extend({"RunId": run_id, "iteration": iteration, "Step": step, **kwargs,
                         **model_data, **agent_data} for agent_data in all_agents_data)
        else:
            data.append({"RunId": run_id, "iteration": iteration, "Step": step, **kwargs,
                         **model_data})
    return data


def _collect_data(model, step):
    """The model data and each agent's data at ``step``, as
    ``mesa.batchrunner._collect_data`` reads them from the model's DataCollector."""
    if not hasattr(model, "datacollector"):
        raise AttributeError("The model does not have a datacollector attribute. Please add a "
                             "DataCollector to your model.")
    dc = model.datacollector
    if hasattr(dc, "_collection_steps"):
        idx = bisect.bisect_right(dc._collection_steps, step) - 1
        if 0 <= idx < len(dc._collection_steps):
            # the collection at ``step``, or the latest before it
            model_data = {param: values[idx] for param, values in dc.model_vars.items()}
        else:
            try:
                model_data = {param: values[0] for param, values in dc.model_vars.items()}
            except IndexError:
                model_data = {}
    else:
        available_steps = sorted(dc._agent_records.keys())
        if step not in available_steps:
            step = max((s for s in available_steps if s <= step), default=0)
        try:
            collection_index = available_steps.index(step)
        except ValueError:
            collection_index = 0
        model_data = {param: values[collection_index]
                      for param, values in dc.model_vars.items()}

    all_agents_data = []
    for data in dc._agent_records.get(step, []):
        agent_dict = {"AgentID": data[1]}
        agent_dict.update(zip(dc.agent_reporters, data[2:]))
        all_agents_data.append(agent_dict)
    for agent_type, agents_data in getattr(dc, "_agenttype_records", {}).get(step, {}).items():
        for data in agents_data:
            agent_dict = {"AgentID": data[1]}
            agent_dict.update(zip(dc.agenttype_reporters[agent_type], data[2:]))
            all_agents_data.append(agent_dict)
    return model_data, all_agents_data
