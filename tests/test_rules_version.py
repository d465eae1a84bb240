"""Bucket Brigade's rules versions 2 to 4 keep the distribution of every DataCollector column.

Version 2 draws one number per chance from ``model.rng`` (docs/rules/bucket_brigade.md,
"Random numbers and the batch engine"), so a seed no longer replays a version-1 episode.
The version-1 statistics were measured once on the last commit of version 1
(``tests/data/bucket_brigade_v1.py`` says how) and stored in ``tests/data/bucket_brigade_v1.json``:
for every model reporter, the mean and standard error over 3,000 episodes of its value at the
end of the episode and of its mean over the episode, and of the episode's length. Here the
model of the current version plays other episodes of the same configurations, and each statistic's two
means must agree within ``Z`` combined standard errors, ``Z`` set by Bonferroni over every
comparison for a family-wise false-failure rate of 1e-3. A statistic constant under version
1 (zero spread) must be the same constant.
"""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from dilemmas.models.bucket_brigade.model import BucketBrigadeModel
from dilemmas.models.bucket_brigade.rules import RULES_VERSION
from dilemmas.registry import GAMES

DATA = Path(__file__).parent / "data"
STORED = json.loads((DATA / "bucket_brigade_v1.json").read_text())
EPISODES = 1500

# the script that measured the stored statistics measures the new ones the same way
_spec = importlib.util.spec_from_file_location("bucket_brigade_v1", DATA / "bucket_brigade_v1.py")
v1 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(v1)

COMPARISONS = sum(len(entry["statistics"]) for entry in STORED["configurations"])
Z = norm.ppf(1 - 1e-3 / (2 * COMPARISONS))


def test_the_game_records_rules_version_4():
    assert RULES_VERSION == 4 and GAMES["bucket_brigade"].rules_version == 4


def disagreements(before: dict, after: dict) -> list[str]:
    """The statistics whose means differ by more than ``Z`` combined standard errors (or,
    constant under version 1, are not that constant)."""
    out = []
    for key, old in before.items():
        new = after[key]
        if old["se"] == 0:
            if new["se"] != 0 or new["mean"] != pytest.approx(old["mean"]):
                out.append(f"{key}: constant {old['mean']} under version 1, now "
                           f"{new['mean']:.4f} +- {new['se']:.4f}")
            continue
        tolerance = Z * np.hypot(old["se"], new["se"])
        if abs(new["mean"] - old["mean"]) > tolerance:
            out.append(f"{key}: version 1 {old['mean']:.4f} +- {old['se']:.4f}, version 2 "
                       f"{new['mean']:.4f} +- {new['se']:.4f}, tolerance {tolerance:.4f}")
    return out


@pytest.mark.parametrize("entry", STORED["configurations"],
                         ids=lambda entry: ",".join(map(str, entry["configuration"].values())))
def test_every_column_keeps_its_distribution(entry):
    now = v1.measure(BucketBrigadeModel, entry["configuration"], EPISODES, first_seed=10**6)
    assert set(now) == set(entry["statistics"])
    assert disagreements(entry["statistics"], now) == []


def test_the_comparison_sees_a_small_change_of_the_rules():
    """Fire that spreads a little more often (beta 0.30 instead of the default's 0.25) is
    told apart from version 1 by the same comparison."""
    entry = STORED["configurations"][0]
    assert entry["configuration"] == {"rules": "spec", "scenario": "default",
                                      "population": "random"}
    changed = v1.measure(BucketBrigadeModel, {**entry["configuration"], "beta": 0.30},
                         EPISODES, first_seed=10**6)
    assert disagreements(entry["statistics"], changed)
