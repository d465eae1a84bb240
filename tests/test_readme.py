"""The README's training example runs as written and prints what the README says it prints
(three lines, the trained policy ahead of ``random``)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_training_example_runs_and_prints_the_readmes_numbers(tmp_path):
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Learning agents: every game as a PettingZoo environment", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    printed = section.split("which printed, on", 1)[1].split("```\n", 1)[1].split("```")[0]
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed
    rewards = dict(re.findall(r"(\w+) +mean reward +(-?[\d.]+)", done.stdout))
    assert float(rewards["policy"]) > float(rewards["random"])
    assert (tmp_path / "firefighter.npz").exists()
