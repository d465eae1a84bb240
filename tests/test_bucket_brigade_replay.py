"""Bucket Brigade replays: export, load-back, validation, verification, safe writes."""

import json
import os

import pytest

from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.replay import (ReplayError, load_replay, replay_model, save_replay,
                                          to_replay, verify_replay)
from dilemmas.models.files import write_atomic


@pytest.fixture
def replay_file(tmp_path):
    model = BucketBrigadeModel(population="firefighter,liar,free_rider,random", rng=21)
    model.run_model()
    return save_replay(model, tmp_path / "episode.json"), model


def test_round_trip_keeps_everything_and_replays_to_the_same_episode(replay_file):
    path, model = replay_file
    data = load_replay(path)
    assert data == to_replay(model)
    assert data["seed"] == 21 and data["rules"] == "spec" and data["finished"] is True
    assert data["parameters"]["beta"] == 0.25 and data["parameters"]["N_spark"] == 12
    assert len(data["nights"]) == model.night
    first = data["nights"][0]
    assert set(first) == {"night", "houses", "signals", "locations", "actions", "rewards"}
    assert data["final_rewards"] == list(model.final_rewards)
    assert verify_replay(data)


def test_a_run_without_a_seed_records_one_that_replays_it():
    model = BucketBrigadeModel(population="random", rules="reference")
    model.run_model()
    data = to_replay(model)
    assert isinstance(data["seed"], int) and verify_replay(data)


def test_a_tampered_replay_loads_but_does_not_verify(replay_file, tmp_path):
    path, _ = replay_file
    data = json.loads(path.read_text())
    data["nights"][0]["rewards"][0] += 1
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    assert not verify_replay(load_replay(tampered))


def edit(data, change):
    change(data)
    return data


def set_path(data, keys, value):
    target = data
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value


@pytest.mark.parametrize("keys, value, message", [
    (["format"], "something/else", "format: must be 'dilemmas/bucket_brigade/replay'"),
    (["version"], 99, "version: this version of dilemmas reads version 1"),
    (["rules"], "house", "rules: must be one of"),
    (["version"], True, "version: this version of dilemmas reads version 1 \\(an integer\\), "
                        "got True"),
    (["version"], 1.0, "version: .* got 1.0"),
    (["seed"], "abc", "seed: must be an integer from 0"),
    (["seed"], -5, "seed: must be an integer from 0"),
    (["seed"], None, "seed: must be an integer from 0"),
    (["seed"], 10 ** 400, "seed: must be an integer from 0 to 2\\*\\*63 - 1, got 10000"),
    (["parameters", "num_houses"], 10 ** 9, "parameters: num_houses=1000000000 is invalid"),
    (["parameters", "beta"], 10 ** 400, "parameters: beta=<an integer of about 401 digits>"),
    (["behaviours"], [["random"], "random", "random", "random"], "behaviours: must be 4 names"),
    (["behaviours"], [{"a": 1}, "random", "random", "random"], "behaviours: must be 4 names"),
    (["nights", 0, "night"], 1.0, "nights\\[0\\].night: must be the integer 1"),
    (["nights", 0, "night"], True, "nights\\[0\\].night: must be the integer 1"),
    (["nights", 0, "rewards", 0], 10 ** 400, "nights\\[0\\].rewards\\[0\\]: must be a finite"),
    (["parameters", "beta"], 2.0, "parameters: beta=2.0 is invalid"),
    (["parameters", "colour"], "red", "parameters: missing \\[\\], unknown \\['colour'\\]"),
    (["behaviours"], ["random"], "behaviours: must be 4 names"),
    (["initial_houses"], [0] * 9, "initial_houses: must be a list of 10 integers"),
    (["nights", 0, "night"], 2, "nights\\[0\\].night: must be the integer 1"),
    (["nights", 1, "houses", 3], 7, "nights\\[1\\].houses\\[3\\]: must be an integer from 0 to 2"),
    (["nights", 0, "signals"], ["WORK", "REST", "MAYBE", "REST"], "nights\\[0\\].signals"),
    (["nights", 0, "actions", 0], [3, "NAP"], "nights\\[0\\].actions"),
    (["nights", 0, "locations", 0], 9, "nights\\[0\\].locations: must be the houses of"),
    (["nights", 2, "rewards", 1], "lots", "nights\\[2\\].rewards\\[1\\]: must be a finite number"),
    (["final_rewards"], [1, 2], "final_rewards: must be a list of 4 numbers"),
    (["finished"], "yes", "finished: must be true or false"),
])
def test_malformed_replays_get_an_error_naming_the_file_and_the_field(
        replay_file, tmp_path, keys, value, message):
    path, _ = replay_file
    data = json.loads(path.read_text())
    if keys[-1] == "locations" or keys[-2:] == ["locations", 0]:
        data["nights"][0]["actions"][0][0] = (data["nights"][0]["actions"][0][0] + 1) % 10
        value = data["nights"][0]["locations"][0]
    set_path(data, keys, value)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match=message) as error:
        load_replay(bad)
    assert str(bad) in str(error.value)


@pytest.mark.parametrize("keys, message", [
    (["seed"], "seed: must be an integer from 0 to 2\\*\\*63 - 1, got inf"),
    (["nights", 0, "rewards", 0], "nights\\[0\\].rewards\\[0\\]: must be a finite"),
    (["parameters", "num_houses"], "parameters: num_houses=inf is invalid"),
])
def test_an_integer_too_long_for_python_is_named_with_its_field(replay_file, tmp_path, keys,
                                                                message):
    path, _ = replay_file
    data = json.loads(path.read_text())
    set_path(data, keys, "TOO_LONG")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data).replace('"TOO_LONG"', "9" * 5000))
    with pytest.raises(ReplayError, match=message) as error:
        load_replay(bad)
    assert str(bad) in str(error.value) and len(str(error.value)) < 500


@pytest.mark.parametrize("key", ["seed", "final_rewards", "nights", "parameters"])
def test_a_missing_key_is_named(replay_file, tmp_path, key):
    path, _ = replay_file
    data = json.loads(path.read_text())
    del data[key]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match=f"{key}: missing"):
        load_replay(bad)


def test_a_ruined_house_that_recovers_is_rejected(replay_file, tmp_path):
    path, model = replay_file
    data = json.loads(path.read_text())
    ruined_night = next(i for i, night in enumerate(data["nights"]) if 2 in night["houses"])
    house = data["nights"][ruined_night]["houses"].index(2)
    if ruined_night + 1 == len(data["nights"]):
        pytest.skip("no night after the first ruin in this episode")
    data["nights"][ruined_night + 1]["houses"][house] = 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match=rf"nights\[{ruined_night + 1}\].houses\[{house}\]: "
                                          "a RUINED house never changes"):
        load_replay(bad)


@pytest.mark.parametrize("content, message", [
    ("{ not json", "not a JSON replay"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"format": "dilemmas/bucket_brigade/replay", "version": 1, "rules": "spec", '
     '"seed": 1, "parameters": {}, "nights": [], "final_rewards": [1e999]}', "parameters: missing"),
    ("[1, 2, 3]", "replay: must be a JSON object"),
    ('{"format": "dilemmas/bucket_brigade/replay", "version": 1}', "rules: missing"),
])
def test_files_that_are_not_replays(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(ReplayError, match=message):
        load_replay(bad)
    with pytest.raises(ReplayError, match="cannot read the replay"):
        load_replay(tmp_path / "missing.json")


def test_a_failed_write_leaves_the_existing_file_whole(tmp_path, monkeypatch):
    target = tmp_path / "episode.json"
    target.write_text("the earlier replay")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "new content")
    assert target.read_text() == "the earlier replay"
    assert os.listdir(tmp_path) == ["episode.json"]  # no temporary file left behind


@pytest.mark.parametrize("recorded", [1, None, 2, 3])
def test_a_replay_of_other_rules_is_read_but_not_played_again(replay_file, recorded):
    """A replay recorded under rules versions 1 to 3 (or before versions were recorded:
    version 1) loads, but its seed plays another episode under version 4 (whose model draws
    its sparks every night and its array behaviours' numbers seat group by seat group), so
    replaying it is refused by name."""
    replay_file, _ = replay_file
    data = json.loads(replay_file.read_text())
    assert data["rules_version"] == 4
    if recorded is None:
        del data["rules_version"]
    else:
        data["rules_version"] = recorded
    replay_file.write_text(json.dumps(data))
    loaded = load_replay(replay_file)
    with pytest.raises(ReplayError, match=f"recorded under version {recorded or 1} of the "
                                          "rules.*plays version 4"):
        replay_model(loaded)
