"""The documentation site builds with warnings as errors, loads nothing from outside, and
every code example of its pages runs.

The site (``make docs``) is Sphinx with MyST: its executable pages and the notebooks are run
by myst-nb while it builds (a failing cell fails the build), so building it is what executes
the notebooks in the suite. The plain Markdown pages' examples are checked here: Python
blocks run, page by page, in a fresh interpreter in a scratch folder; TOML blocks parse;
``dilemmas`` command lines parse with the command's own parser (they are the long studies
whose measured results the pages quote, so they are not played here).
"""

import importlib.util
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from dilemmas.cli.main import _parser as parser
from dilemmas import GAMES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The project's games, each with a page on the site: those whose rules are in docs/rules/
#: (not a game that only the tests register, such as tests/public_goods).
GAME_NAMES = [name for name, game in GAMES.items() if game.rules.parent == DOCS / "rules"]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def plain_pages():
    """The Markdown pages that myst-nb does not execute (no ``file_format: mystnb``)."""
    pages = []
    for path in sorted(DOCS.rglob("*.md")):
        if "_build" in path.parts or "generated" in path.parts:
            continue
        if "file_format: mystnb" not in path.read_text()[:200]:
            pages.append(path)
    return pages


def blocks(path, *languages):
    return [code for language, code in FENCE.findall(path.read_text()) if language in languages]


PYTHON_PAGES = [p for p in plain_pages() if blocks(p, "python")]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q", "-j", "2",
         str(DOCS), str(out)], capture_output=True, text=True, cwd=ROOT)
    assert build.returncode == 0, build.stdout[-5000:] + build.stderr[-20000:]
    return out


def test_site_builds_with_every_page(site):
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    for expected in ["index.html", "tutorials/getting-started.html", "tutorials/notebooks.html",
                     "how-to/run-a-study.html", "how-to/add-a-behaviour.html",
                     "reference/api.html", "reference/cli.html", "rules/README.html",
                     "explanation/statistics.html", "explanation/figures.html"]:
        assert expected in pages
    for name in GAME_NAMES:
        assert f"games/{name}.html" in pages
        assert f"rules/{name}.html" in pages
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        assert f"notebooks/{notebook.stem}.html" in pages
    for package in ("dilemmas.models", "dilemmas.agents", "dilemmas.envs", "dilemmas.analysis",
                    "dilemmas.learning",
                    "dilemmas.models.bucket_brigade.model"):
        assert f"reference/generated/{package}.html" in pages


def test_notebooks_and_pages_are_rendered_with_outputs(site):
    """Executed: every notebook page shows its cells' outputs, and each game page, study
    notebook and the tutorial show a figure."""
    for page in site.glob("notebooks/*.html"):
        assert "cell_output" in page.read_text(), page.name
    figures = [site / "tutorials" / "getting-started.html"]
    for name in GAME_NAMES:
        figures += [site / "games" / f"{name}.html", site / "notebooks" / f"{name}_study.html"]
    for page in figures:
        assert re.search(r'<img[^>]+src="[^"]*\.png"', page.read_text()), page.name


def test_site_loads_nothing_from_outside(site):
    """No script, style sheet, image or frame from another host: the site reads offline."""
    outside = re.compile(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(?:https?:)?//')
    for page in site.rglob("*.html"):
        assert not outside.search(page.read_text()), page.relative_to(site)
    for sheet in site.rglob("*.css"):
        assert not re.search(r"url\((['\"]?)(?:https?:)?//", sheet.read_text()), sheet.name


#: Libraries that are not this project's dependencies, and the tests that run a page's blocks
#: importing them where they are installed (make test's .venv-routes)
ELSEWHERE = {"stable_baselines3": "tests/test_sb3_route.py"}


def runnable_here(code: str) -> bool:
    """Whether ``code`` imports none of ``ELSEWHERE`` that is missing here."""
    return not any(importlib.util.find_spec(name) is None
                   for name in ELSEWHERE if re.search(rf"^\s*(from|import) {name}\b", code,
                                                      re.M))


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_python_examples_run(page, tmp_path):
    """A page's Python blocks, in order, in one fresh interpreter, in a scratch folder (a
    block that imports a library of ``ELSEWHERE`` missing here runs in that test)."""
    program = "\n\n".join(code for code in blocks(page, "python") if runnable_here(code))
    run = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True,
                         text=True, env={"MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT),
                                         "PATH": str(Path(sys.executable).parent)})
    assert run.returncode == 0, run.stderr[-3000:]


@pytest.mark.parametrize("page", [p for p in plain_pages() if blocks(p, "toml")],
                         ids=lambda p: p.relative_to(DOCS).as_posix())
def test_toml_examples_parse(page):
    for code in blocks(page, "toml"):
        tomllib.loads(code)


def command_lines():
    for page in plain_pages():
        for code in blocks(page, "", "bash", "console", "sh"):
            for line in code.splitlines():
                words = shlex.split(line.split(" #")[0].strip().removeprefix("$ "))
                if words and words[0].endswith("dilemmas"):
                    yield pytest.param(words[1:], id=f"{page.name}: {' '.join(words[1:3])}")


@pytest.mark.parametrize("arguments", list(command_lines()))
def test_command_examples_parse(arguments):
    parser().parse_args(arguments)

