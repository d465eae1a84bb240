"""Sphinx configuration of the documentation site (``make docs``; ``docs/_build/html``).

Pages are MyST Markdown; the notebooks (``notebooks/``, linked here as ``docs/notebooks``)
and the per-game pages are executed while the site builds (myst-nb), so every figure and
table on the site is computed by the current code. The build runs offline and, in the test
suite, with warnings as errors (``tests/test_docs.py``).
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# code cells run `!dilemmas ...`: the command of the Python that builds the site
os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"

project = "dilemmas"
author = "the dilemmas authors"
copyright = "2026, the dilemmas authors"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
]

exclude_patterns = ["_build", "**/.ipynb_checkpoints", "notebooks/results"]
suppress_warnings = ["mystnb.unknown_mime_type"]

# --- MyST and notebooks -------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "cache"          # executed on the first build, again when code cells change
nb_execution_timeout = 900           # the learning notebooks train for tens of seconds
nb_execution_raise_on_error = True   # a failing cell fails the build
nb_execution_show_tb = True
nb_merge_streams = True

# --- API reference ------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True,
                           "exclude-members": "set"}  # matplotlib's generated Artist.set
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# dilemmas.envs.sb3 subclasses Stable-Baselines3's VecEnv, which is not a dependency
autodoc_mock_imports = ["stable_baselines3"]

# --- HTML ---------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "dilemmas"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_depth": 3,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_show_sourcelink = False
html_css_files = ["wide.css"]
