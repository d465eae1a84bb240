"""The package as a user gets it: the wheel and the sdist built from this tree hold the one
import package ``dilemmas`` and its data (the rules, the example study and training files,
the dashboard's page and stylesheet); the wheel, installed into a fresh virtual environment
and used from a folder that holds its own ``models/`` and ``agents/`` packages, imports, lists
the games, runs a packaged example study, draws its figures and serves the dashboard.

The fresh environment gets the wheel with ``pip install``, dependencies and all, from the
package registry (pip's cache, which installing ``.venv`` filled, serves most of them), so a
dependency missing from ``pyproject.toml`` fails here.
"""

import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from dilemmas import GAMES
from dilemmas.dashboard.serving import CACHE, free_port

ROOT = Path(__file__).resolve().parents[1]
DATA = ["dilemmas/rules/README.md", "dilemmas/dashboard/style.css", "dilemmas/dashboard/app.py"]
DATA += [f"dilemmas/rules/{game}.md" for game in GAMES if game != "public_goods"]
DATA += [f"dilemmas/examples/{kind}/{game}.toml" for kind in ("studies", "training", "psro")
         for game in GAMES if game != "public_goods"]
DATA += ["dilemmas/scenarios/baselines.csv", "dilemmas/scenarios/versions.json"]
DATA += [f"dilemmas/scenarios/catalogue/{game}.toml" for game in GAMES if game != "public_goods"]
DATA += [f"dilemmas/scenarios/bots/{bot}.npz" for bot in (
    "bucket_brigade_mappo_team", "state_punishment_ippo_forager", "stag_hunt_ippo_hunter",
    "firefighting_graph_ippo_firefighter")]


#: What a build of the tree leaves out: environments, caches, results and earlier builds
#: (setuptools builds in the source folder, and a stale build/ would leak into the wheel).
NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", ".solara-assets", "_build", "results",
                                    "build", "*.egg-info", ".pytest_cache", ".hypothesis",
                                    "__pycache__", "generated")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel, built offline from a copy of the source tree."""
    source = tmp_path_factory.mktemp("source") / "dilemmas"
    shutil.copytree(ROOT, source, symlinks=True, ignore=NOT_SOURCE)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel",
                    "--outdir", str(out), str(source)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory):
    """A fresh virtual environment holding the wheel and the dependencies it declares, and a
    user's project folder beside it with its own ``models`` and ``agents`` packages."""
    base = tmp_path_factory.mktemp("user")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    (wheel,) = dist.glob("*.whl")
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", str(wheel)], check=True, timeout=1200)
    project = base / "project"
    for package in ("models", "agents"):
        (project / package).mkdir(parents=True)
        (project / package / "__init__.py").write_text(f'GAMES = "the user\'s {package}"\n')
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "SOLARA_ASSETS_PROXY_CACHE_DIR")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["XDG_CACHE_HOME"] = str(base / "cache")
    return venv, project, env


def _run(installed, *command, timeout=600):
    venv, project, env = installed
    done = subprocess.run(list(command), cwd=project, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{command}: {done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_wheel_holds_one_package_and_its_data(dist):
    (wheel,) = dist.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert {name for name in top if not name.endswith(".dist-info")} == {"dilemmas"}
    for path in DATA:
        assert path in names, path
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "dilemmas = dilemmas.cli.main:main" in zipfile.ZipFile(wheel).read(
        entry_points).decode()


def test_the_sdist_holds_the_package_data(dist):
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for path in DATA:
        assert f"src/{path}" in names, path


def test_the_installed_package_imports_beside_a_users_own_models(installed):
    venv, project, _ = installed
    out = _run(installed, "python", "-c",
               "import dilemmas, models, agents, dilemmas.models, dilemmas.agents; "
               "from dilemmas.dashboard import app; "
               "print(dilemmas.__file__); print(models.GAMES); print(sorted(dilemmas.GAMES)); "
               "print(app.STYLE.is_file())")
    where, theirs, games, style = out.splitlines()[-4:]
    assert style == "True"
    assert Path(where).is_relative_to(venv), where
    assert theirs == "the user's models"
    assert games == str(sorted(game for game in GAMES if game != "public_goods"))


def test_the_installed_command_lists_games_and_shows_the_packaged_rules(installed):
    venv, _, _ = installed
    listing = _run(installed, "dilemmas", "games")
    for game in ("bucket_brigade", "state_punishment", "stag_hunt", "firefighting_graph"):
        assert game in listing
    out = _run(installed, "dilemmas", "games", "bucket_brigade")
    rules = Path(out.split("rules: ", 1)[1].splitlines()[0])
    assert rules.is_relative_to(venv) and rules.read_text().startswith("# Bucket Brigade")


def test_the_installed_command_runs_an_example_study_and_draws_its_figures(installed):
    _, project, _ = installed
    out = _run(installed, "dilemmas", "run", "firefighting_graph", "--workers", "2",
               "--no-progress")
    assert "90 runs, 0 done before, 90 played now, 0 failed" in out
    again = _run(installed, "dilemmas", "run", "firefighting_graph", "--no-progress")
    assert "90 runs, 90 done before, 0 played now" in again
    _run(installed, "dilemmas", "figures")
    drawn = sorted(path.name for path in (project / "results" / "figures").glob("*.pdf"))
    assert len(drawn) == len(GAMES["firefighting_graph"].figures), drawn


@pytest.mark.skipif(not CACHE.is_dir(), reason="needs the asset cache (make assets)")
def test_the_installed_dashboard_is_served_offline(installed):
    port = free_port()
    venv, project, env = installed
    server = subprocess.Popen(["dilemmas", "dashboard", "--port", str(port), "--assets",
                               str(CACHE)], cwd=project, env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                page = urllib.request.urlopen(url + "/", timeout=5).read().decode()
                break
            except OSError:
                assert server.poll() is None, "dilemmas dashboard stopped"
                assert time.monotonic() < deadline, "the dashboard did not answer in 120 s"
                time.sleep(0.5)
        assert "solara" in page.lower()
        script = urllib.request.urlopen(url + "/_solara/cdn/requirejs@2.3.6/require.min.js",
                                        timeout=30)
        assert script.status == 200 and len(script.read()) > 1000
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_the_installed_command_scores_a_scenario_beside_a_shipped_bot(installed):
    _, project, _ = installed
    out = _run(installed, "dilemmas", "evaluate", "fixed1", "--scenario",
               "firefighting_graph/trained_partner_v1", "--no-progress", "--workers", "2")
    row = next(line for line in out.splitlines()
               if line.startswith("firefighting_graph/trained_partner_v1"))
    assert " 1200 " in row and " of 8 " in row  # placed among the seven stored baselines
    assert (project / "results/scenarios/fixed1/firefighting_graph.png").exists()
    # installed elsewhere, the default folder and seed replay the stored baseline's runs
    import pandas as pd

    scores = pd.read_csv(project / "results/scenarios/fixed1/scores.csv")
    stored = pd.read_csv(ROOT / "src/dilemmas/scenarios/baselines.csv").set_index(
        ["scenario", "baseline"])
    assert scores["focal_return"].iloc[0] == pytest.approx(
        stored.loc[("firefighting_graph/trained_partner_v1", "fixed1"), "focal_return"],
        rel=1e-9)
