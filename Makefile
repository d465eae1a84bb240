# The two commands of the README: `make run` (the main job) and `make test` (the whole suite).
# Both build the project's own virtual environment in .venv first, with the Python that
# pyenv selects from .python-version (3.12).
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-stamp

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else "dilemmas needs Python 3.12+, but $(PYTHON) is " + sys.version.split()[0] + "; install 3.12 with pyenv or run make PYTHON=python3.12")'
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/python -m analysis.main_job

test: $(STAMP)
	$(VENV)/bin/python -m pytest

bench: $(STAMP)
	$(VENV)/bin/python benchmarks/bucket_brigade.py
	$(VENV)/bin/python benchmarks/state_punishment.py
	$(VENV)/bin/python benchmarks/stag_hunt.py
	$(VENV)/bin/python benchmarks/firefighting_graph.py
	$(VENV)/bin/python benchmarks/runner.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis results
