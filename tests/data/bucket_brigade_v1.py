"""Summary statistics of Bucket Brigade under rules version 1, for tests/test_rules_version.py.

Rules version 2 (docs/rules/bucket_brigade.md, "Random numbers and the batch engine") draws
its random numbers differently, so the same seed no longer gives the same episode; the test
checks that every DataCollector column keeps its distribution. Version 1 exists only in the
history, so its statistics were measured once, by this script run on the last commit of
version 1 (34679b7), and stored beside it in ``bucket_brigade_v1.json``:

    git worktree add /tmp/v1 34679b7
    PYTHONPATH=/tmp/v1 .venv/bin/python tests/data/bucket_brigade_v1.py

For each configuration (``CONFIGURATIONS``), ``EPISODES`` episodes on seeds 0, 1, ...; for
every model reporter, the mean and the standard error over episodes of its value at the end
of the episode (``final``) and of its mean over the episode's rows (``mean``, NaN-aware), and
the same of the number of nights (``length``).
"""

import json
import sys
from pathlib import Path

import numpy as np

CONFIGURATIONS = [
    {"rules": rules, "scenario": scenario, "population": population}
    for rules in ("spec", "reference")
    for scenario in ("default", "hard")
    for population in ("random", "always_work", "firefighter:2,free_rider:2")
]
EPISODES = 3000


def episode_statistics(columns: dict) -> dict:
    """The final value and the mean of each of one episode's model columns (the
    DataCollector's ``model_vars``), and its length."""
    out = {}
    for column, values in columns.items():
        values = np.array(values, dtype=float)
        out.setdefault("length", float(len(values) - 1))
        out[f"{column}.final"] = values[-1]
        out[f"{column}.mean"] = float(np.nanmean(values)) if not np.isnan(values).all() \
            else float("nan")
    return out


def summarise(episodes: list[dict]) -> dict:
    """Mean, standard error and count (episodes where it is defined) of each statistic."""
    summary = {}
    for key in episodes[0]:
        values = np.array([episode[key] for episode in episodes])
        values = values[~np.isnan(values)]
        summary[key] = {"mean": float(values.mean()),
                        "se": float(values.std(ddof=1) / np.sqrt(len(values))),
                        "n": int(len(values))}
    return summary


def measure(model_class, configuration: dict, episodes: int, first_seed: int = 0) -> dict:
    rows = []
    for seed in range(first_seed, first_seed + episodes):
        model = model_class(**configuration, rng=seed)
        model.run_model()
        rows.append(episode_statistics(model.datacollector.model_vars))
    return summarise(rows)


def main():
    from dilemmas.models.bucket_brigade.model import BucketBrigadeModel

    assert not hasattr(BucketBrigadeModel, "houses"), "run this on rules version 1 (34679b7)"
    stored = [{"configuration": configuration,
               "statistics": measure(BucketBrigadeModel, configuration, EPISODES)}
              for configuration in CONFIGURATIONS]
    path = Path(__file__).with_suffix(".json")
    path.write_text(json.dumps({"episodes": EPISODES, "commit": "34679b7",
                                "configurations": stored}, indent=1) + "\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
