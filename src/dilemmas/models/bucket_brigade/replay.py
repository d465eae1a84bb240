"""Bucket Brigade replays: a played episode to JSON and back (docs/rules/bucket_brigade.md,
"Replays").

A replay holds the rule set, the seed, the scenario name and every effective parameter, the
behaviour of each seat, the houses and locations at the start, and per night the houses
after it, the signals, the locations, the ``[house, mode]`` actions and each agent's reward
for the night; then the end-of-game rewards (``null`` under ``"reference"`` or before the
end). ``load_replay`` checks all of it and raises ``ReplayError`` (a ``ValueError``) naming
the file and the field that is wrong. ``verify_replay`` plays the episode again from the
recorded parameters and seed and says whether it comes out the same.
"""

import json
import math
from numbers import Real
from pathlib import Path

import numpy as np
import pandas as pd

from dilemmas.models.bucket_brigade import arrays
from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.rules import (BURNING, MODEL_VERSIONS, REST, RUINED,
                                                  RULE_SETS, RULES_VERSION, WORK)
from dilemmas.models.files import write_atomic

FORMAT = "dilemmas/bucket_brigade/replay"
VERSION = 1
#: The model's parameters a replay records (the rule set is recorded on its own).
PARAMETERS = tuple(name for name in BucketBrigadeModel.parameters.names if name != "rules")


class ReplayError(ValueError):
    """A replay file that cannot be read as a Bucket Brigade replay."""


def to_replay(model: BucketBrigadeModel) -> dict:
    """The replay of the nights ``model`` has played, as JSON-ready data."""
    parameters = {name: getattr(model, name) for name in PARAMETERS
                  if name not in ("scenario", "work_costs")}
    parameters["scenario"] = model.scenario_name
    parameters["work_costs"] = list(model.work_costs)
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": model.rules,
        "rules_version": RULES_VERSION,
        "seed": model.seed,
        "parameters": parameters,
        "behaviours": [agent.behaviour for agent in model.seats],
        "initial_houses": list(model.initial_houses),
        "initial_locations": list(model.initial_locations),
        "nights": [
            {
                "night": night.night,
                "houses": list(night.houses),
                "signals": list(night.signals),
                "locations": list(night.locations),
                "actions": [list(action) for action in night.actions],
                "rewards": list(night.rewards),
            }
            for night in model.history
        ],
        "final_rewards": None if model.final_rewards is None else list(model.final_rewards),
        "finished": not model.running,
    }


def save_replay(model: BucketBrigadeModel, path) -> Path:
    """Write the replay of ``model`` to ``path`` (atomically: an existing file survives a
    failed write)."""
    return write_atomic(path, json.dumps(to_replay(model), indent=1))


def load_replay(path) -> dict:
    """Read and validate a replay file; returns its data."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"), parse_int=_integer)
    except OSError as error:
        raise ReplayError(f"{path}: cannot read the replay: {error}") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReplayError(f"{path}: not a JSON replay: {error}") from error
    except RecursionError:
        raise ReplayError(f"{path}: not a replay: its JSON is nested too deeply") from None
    validate_replay(data, source=str(path))
    return data


def _integer(digits: str) -> int | float:
    """A JSON integer; one too long for Python to read (over 4,000 digits) as an infinity of
    its sign, which the field's check then names as out of range."""
    if len(digits) > 4000:
        return -math.inf if digits.startswith("-") else math.inf
    return int(digits)


def replay_model(data: dict) -> BucketBrigadeModel:
    """A new model with the replay's rule set, parameters and seed, played for as many
    nights as the replay holds. A replay recorded under a version of the rules whose model
    episodes differ (``rules_version`` not in ``MODEL_VERSIONS``; none recorded: version 1)
    is refused: its seed plays another episode now (docs/rules/bucket_brigade.md, "Random
    numbers and the batch engine")."""
    recorded = data.get("rules_version", 1)
    if recorded not in MODEL_VERSIONS:
        raise ReplayError(f"rules_version: the replay was recorded under version {recorded!r} "
                          f"of the rules, and this version of dilemmas plays version "
                          f"{RULES_VERSION}, whose random numbers differ: its seed cannot be "
                          "played again; its recorded nights can still be read")
    model = BucketBrigadeModel(rules=data["rules"], rng=data["seed"], collect_data=False,
                               **data["parameters"])
    for _ in data["nights"]:
        model.step()
    return model


def verify_replay(data: dict) -> bool:
    """True if playing the replay's parameters and seed again gives the same episode."""
    return to_replay(replay_model(data)) == data


def validate_replay(data, source="replay") -> None:
    """Raise ``ReplayError`` naming the first thing in ``data`` that is not a valid replay."""

    def fail(field, why):
        raise ReplayError(f"{source}: {field}: {why}")

    def require(obj, field, kind, what):
        if not isinstance(obj, dict) or field not in obj:
            fail(field, "missing")
        value = obj[field]
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            fail(field, f"must be {what}, got {value!r}")
        return value

    def int_list(field, values, length, low, high):
        if not isinstance(values, list) or len(values) != length:
            fail(field, f"must be a list of {length} integers, got {shown(values)}")
        for i, value in enumerate(values):
            if type(value) is not int or not low <= value <= high:
                fail(f"{field}[{i}]", f"must be an integer from {low} to {high}, got "
                                      f"{shown(value)}")

    def number_list(field, values, length):
        if not isinstance(values, list) or len(values) != length:
            fail(field, f"must be a list of {length} numbers, got {shown(values)}")
        for i, value in enumerate(values):
            try:
                finite = not isinstance(value, bool) and isinstance(value, Real) \
                    and math.isfinite(value)
            except OverflowError:
                finite = False
            if not finite:
                fail(f"{field}[{i}]", f"must be a finite number, got {shown(value)}")

    def shown(value):
        text = repr(value)
        return text if len(text) <= 80 else f"{text[:60]}... ({len(text):,} characters)"

    if not isinstance(data, dict):
        fail("replay", f"must be a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        fail("format", f"must be {FORMAT!r}, got {data.get('format')!r}")
    if type(data.get("version")) is not int or data["version"] != VERSION:
        fail("version", f"this version of dilemmas reads version {VERSION} (an integer), got "
                        f"{shown(data.get('version'))}")
    rules = require(data, "rules", str, "a rule set name")
    if rules not in RULE_SETS:
        fail("rules", f"must be one of {list(RULE_SETS)}, got {rules!r}")
    if "seed" not in data:
        fail("seed", "missing")
    if type(data["seed"]) is not int or not 0 <= data["seed"] < 2 ** 63:
        fail("seed", f"must be an integer from 0 to 2**63 - 1, got {shown(data['seed'])}")
    parameters = require(data, "parameters", dict, "an object of model parameters")
    missing = [name for name in PARAMETERS if name not in parameters]
    unknown = [name for name in parameters if name not in PARAMETERS]
    if missing or unknown:
        fail("parameters", f"missing {missing}, unknown {unknown}")
    try:
        model = BucketBrigadeModel(rules=rules, rng=data["seed"], collect_data=False, **parameters)
    except ValueError as error:
        fail("parameters", str(error))
    agents, houses = model.num_agents, model.num_houses

    behaviours = require(data, "behaviours", list, "a list of behaviour names")
    known = BucketBrigadeModel.game.behaviours
    if len(behaviours) != agents or any(not isinstance(name, str) or name not in known
                                        for name in behaviours):
        fail("behaviours", f"must be {agents} names from {sorted(known)}, got "
                           f"{shown(behaviours)}")
    int_list("initial_houses", require(data, "initial_houses", list, "a list"), houses, 0, 2)
    int_list("initial_locations", require(data, "initial_locations", list, "a list"),
             agents, 0, houses - 1)

    nights = require(data, "nights", list, "a list of nights")
    previous = data["initial_houses"]
    for i, night in enumerate(nights):
        where = f"nights[{i}]"
        if not isinstance(night, dict):
            fail(where, f"must be an object, got {night!r}")
        if type(night.get("night")) is not int or night["night"] != i + 1:
            fail(f"{where}.night", f"must be the integer {i + 1} (nights count from 1), got "
                                   f"{shown(night.get('night'))}")
        int_list(f"{where}.houses", night.get("houses"), houses, 0, 2)
        signals = night.get("signals")
        if not isinstance(signals, list) or len(signals) != agents \
                or any(signal not in (WORK, REST) for signal in signals):
            fail(f"{where}.signals", f"must be {agents} of {WORK!r}/{REST!r}, got "
                                     f"{shown(signals)}")
        int_list(f"{where}.locations", night.get("locations"), agents, 0, houses - 1)
        actions = night.get("actions")
        if not isinstance(actions, list) or len(actions) != agents or not all(
                isinstance(a, list) and len(a) == 2 and type(a[0]) is int
                and 0 <= a[0] < houses and a[1] in (WORK, REST) for a in actions):
            fail(f"{where}.actions", f"must be {agents} [house, mode] pairs, got "
                                     f"{shown(actions)}")
        if [house for house, _ in actions] != night["locations"]:
            fail(f"{where}.locations", "must be the houses of that night's actions")
        number_list(f"{where}.rewards", night.get("rewards"), agents)
        for h, (before, after) in enumerate(zip(previous, night["houses"])):
            if before == RUINED and after != RUINED:
                fail(f"{where}.houses[{h}]", "a RUINED house never changes, but this one did")
        previous = night["houses"]

    if "final_rewards" not in data:
        fail("final_rewards", "missing")
    final = data["final_rewards"]
    if final is not None:
        number_list("final_rewards", final, agents)
    if not isinstance(data.get("finished"), bool):
        fail("finished", f"must be true or false, got {shown(data.get('finished'))}")


def replay_rows(data: dict) -> pd.DataFrame:
    """A replay's nights as the model's DataCollector rows: ``Step`` and every model column
    (``night``, ``burning``, ``safe``, ``ruined``, ``workers``, ``work_rate``,
    ``signals_work``, ``lies``, ``lie_rate``, ``cooperation_rate``, ``cumulative_lies``,
    ``team_reward``, ``mean_reward``), computed as the model computes them, from the recorded
    houses, signals, actions and rewards."""
    p, agents = data["parameters"], len(data["behaviours"])
    nights = data["nights"]
    houses = np.array([data["initial_houses"]])
    signals = working = lied = np.zeros((1, agents), dtype=bool)
    tally = arrays.start_tally(1, agents)
    burning_at_start = np.zeros(1, dtype=bool)
    rows = []
    for step in range(len(nights) + 1):
        if step:
            night = nights[step - 1]
            burning_at_start = (houses == BURNING).any(axis=1)
            houses = np.array([night["houses"]])
            signals = np.array([[signal == WORK for signal in night["signals"]]])
            working = np.array([[mode == WORK for _, mode in night["actions"]]])
            lied = working != signals
            final = data["final_rewards"] if step == len(nights) else None
            tally = arrays.add_up(tally, np.array([night["rewards"]], dtype=float),
                                  np.array([final or [0.0] * agents], dtype=float),
                                  working, lied)
        row = arrays.reporters(step, houses, signals, working, lied, burning_at_start, tally,
                               p["A"], p["L"], p["c"])
        rows.append({"Step": step, **{name: value[0].item() for name, value in row.items()}})
    return pd.DataFrame(rows)


def first_difference(data: dict) -> str | None:
    """None if playing the replay's seed again gives its recorded nights (``verify_replay``),
    else the first night and field (or top-level field) where it gives something else."""
    if verify_replay(data):
        return None
    again = to_replay(replay_model(data))
    for i, (night, replayed) in enumerate(zip(data["nights"], again["nights"])):
        for field in night:
            if night[field] != replayed.get(field):
                return (f"night {i + 1}: {field} recorded {night[field]!r}, replayed "
                        f"{replayed.get(field)!r}")
    field = next(key for key in {**again, **data} if data.get(key) != again.get(key))
    return f"{field} recorded {data.get(field)!r}, replayed {again.get(field)!r}"
