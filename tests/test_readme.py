"""The README is short and true: at most about 250 lines, its Python example runs, every
`dilemmas` command in it parses with the command's own parser, every `make` target it names
exists, and every file it links to is there. The training example of the guide it links to
(docs/how-to/use-a-game.md) runs and prints what the page says it prints."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from dilemmas.cli.main import _parser as parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(*languages):
    return [code for language, code in FENCE.findall(README) if language in languages]


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 250


def test_the_readmes_python_example_runs(tmp_path):
    program = "\n\n".join(blocks("python"))
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg",
                               "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "agent_0" in done.stdout


def commands():
    for code in blocks("sh", "", "console", "bash"):
        for line in code.splitlines():
            words = shlex.split(line.split(" #")[0].strip())
            if words:
                yield words


@pytest.mark.parametrize("words", [w for w in commands() if w[0].endswith("dilemmas")],
                         ids=lambda w: " ".join(w[1:3]))
def test_every_dilemmas_command_parses(words):
    parser().parse_args(words[1:])


def test_every_make_target_exists_and_links_resolve():
    makefile = (ROOT / "Makefile").read_text()
    targets = {match for match in re.findall(r"^([a-z]+):", makefile, re.M)}
    named = [words[1] for words in commands() if words[0] == "make"]
    assert named and set(named) <= targets
    for target in re.findall(r"\]\(((?!https?:)[^)#]+)\)", README):
        assert (ROOT / target).exists(), target


def test_the_guides_training_example_runs_and_prints_its_numbers(tmp_path):
    guide = (ROOT / "docs" / "how-to" / "use-a-game.md").read_text()
    section = guide.split("## Learning agents: every game as a PettingZoo environment", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    printed = section.split("which printed, on", 1)[1].split("```text\n", 1)[1].split("```")[0]
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == printed
    rewards = dict(re.findall(r"(\w+) +mean reward +(-?[\d.]+)", done.stdout))
    assert float(rewards["policy"]) > float(rewards["random"])
    assert (tmp_path / "firefighter.npz").exists()
