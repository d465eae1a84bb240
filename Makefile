# The two commands of the README: `make run` (the main job) and `make test` (the whole suite).
# Both build the project's own virtual environment in .venv first, with the Python that
# pyenv selects from .python-version (3.12). `make dashboard` serves the Solara dashboard
# (dilemmas.dashboard.app) on 127.0.0.1 without internet: Solara's front-end files come from a
# local cache that dilemmas.dashboard.assets fills from the npm registry. `make test` installs Debian's
# chromium and fills that cache too, for the browser tests.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-stamp
# Solara's front-end files (npm packages), served by `solara run` when
# SOLARA_ASSETS_PROXY_CACHE_DIR points here; see src/dilemmas/dashboard/assets.py
ASSETS := .solara-assets
ASSETS_STAMP := $(ASSETS)/.filled-stamp
# The third-party learners' own environment, for the tests of their routes: .venv's packages
# and this project seen through a .pth file, with JaxMARL and Stable-Baselines3 and the
# versions of JAX, Gymnasium and PyTorch they pick installed over them
ROUTES := .venv-routes
ROUTE_TESTS := tests/test_sb3_route.py tests/test_functional_ippo.py
ROUTES_STAMP := $(ROUTES)/.installed-stamp
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: run test bench clean dashboard assets chromium docs notebooks

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else "dilemmas needs Python 3.12+, but $(PYTHON) is " + sys.version.split()[0] + "; install 3.12 with pyenv or run make PYTHON=python3.12")'
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[dev,docs]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/python -m dilemmas.analysis.studies.main_job

# the test files spread over every core (pytest-xdist), each file whole on one worker so that
# its module fixtures (the documentation site, trained learners) are built once
# its slowest 15 tests, and its own wall time (the two pytest runs, after the installs)
# printed last, passed or not
test: $(STAMP) $(ASSETS_STAMP) $(ROUTES_STAMP) chromium
	@start=$$(date +%s); \
	$(VENV)/bin/python -m pytest -n auto --dist loadfile --durations=15 && \
	$(ROUTES)/bin/python -m pytest -n auto --dist loadfile $(ROUTE_TESTS); \
	status=$$?; took=$$(( $$(date +%s) - start )); \
	echo "make test: the suite took $$((took / 60)) min $$((took % 60)) s of wall time" \
		"on $$(nproc) cores ($$([ $$status = 0 ] && echo passed || echo failed))"; \
	exit $$status

$(ROUTES_STAMP): $(STAMP) tests/routes-requirements.txt
	$(PYTHON) -m venv $(ROUTES)
	$(VENV)/bin/python -c 'import sysconfig; print("import site; site.addsitedir(%r)" % sysconfig.get_paths()["purelib"])' \
		> $$($(ROUTES)/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/dilemmas-venv.pth
	$(ROUTES)/bin/python -m pip install --quiet -r tests/routes-requirements.txt
	touch $(ROUTES_STAMP)

# Solara's JavaScript and CSS, so its pages render without the CDN; again after a reinstall
# (e.g. a new Solara) or a change of the script
$(ASSETS_STAMP): $(STAMP) src/dilemmas/dashboard/assets.py
	$(VENV)/bin/python -m dilemmas.dashboard.assets --cache $(ASSETS)
	touch $(ASSETS_STAMP)

assets: $(ASSETS_STAMP)

# Debian's chromium for the browser tests (Playwright drives it; never `playwright install`)
chromium:
	@if command -v chromium >/dev/null 2>&1; then \
		echo "chromium: $$(command -v chromium)"; \
	else \
		$(SUDO) apt-get update && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; \
	fi

dashboard: $(ASSETS_STAMP)
	SOLARA_ASSETS_PROXY_CACHE_DIR=$(abspath $(ASSETS)) SOLARA_TELEMETRY_MIXPANEL_ENABLE=False \
		$(VENV)/bin/solara run dilemmas.dashboard.app --host 127.0.0.1 --production

# The documentation site in docs/_build/html (open index.html); its notebooks and executable
# pages are run while it builds, and kept in a cache until their code changes
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -b html -W --keep-going -j 2 docs docs/_build/html
	@echo "open docs/_build/html/index.html"

# JupyterLab on the notebooks, on 127.0.0.1, with no news feed or update check (offline)
notebooks: $(STAMP)
	$(VENV)/bin/jupyter lab --ip 127.0.0.1 --notebook-dir notebooks $(if $(filter 0,$(shell id -u)),--allow-root,) \
		--LabApp.news_url=None \
		--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate

bench: $(STAMP) $(ASSETS_STAMP) chromium
	$(VENV)/bin/python benchmarks/games.py
	$(VENV)/bin/python benchmarks/env.py
	$(VENV)/bin/python benchmarks/runner.py
	$(VENV)/bin/python benchmarks/engine.py
	$(VENV)/bin/python benchmarks/training.py
	$(VENV)/bin/python benchmarks/dashboard.py

clean:
	rm -rf $(VENV) $(ROUTES) .pytest_cache .hypothesis results $(ASSETS) docs/_build docs/reference/generated
