# Two commands matter: `make run` (serve) and `make test` (everything CI checks).
# Each creates its own virtual environment on first use; installs are pinned by constraints.txt.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --disable-pip-version-check -q -c constraints.txt
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test check lint typecheck unit contract-check container-test loadtest bench openapi lock clean catalogs tables bytecode

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.run-installed: pyproject.toml constraints.txt | $(VENV)/bin/python
	$(PIP) -e '.[server]'
	touch $@

$(VENV)/.test-installed: pyproject.toml constraints.txt | $(VENV)/bin/python
	$(PIP) -e '.[server,test,bench]'
	touch $@ $(VENV)/.run-installed

run: $(VENV)/.run-installed
	HOST=$(HOST) PORT=$(PORT) $(VENV)/bin/gunicorn -c gunicorn.conf.py quart_bezique.wsgi:app

test: lint typecheck unit contract-check container-test loadtest

# The build digest covers the package's bytecode (docs/verification.md), so the tests run on a tree
# whose bytecode does not change under them: compiled once before, never written while they run
# (the servers they start inherit the setting).
TESTED := check unit contract-check container-test loadtest
$(TESTED): export PYTHONDONTWRITEBYTECODE = 1
$(TESTED): bytecode
bytecode: $(VENV)/.test-installed
	$(PY) -m compileall -q service

lint: $(VENV)/.test-installed
	$(VENV)/bin/ruff check service tests scripts
	$(VENV)/bin/ruff format --check service tests scripts

# The fast loop while working: lint, format, types and the tests that need no container, browser,
# npm tools or load generator (a couple of minutes). `make test` is what CI runs.
check: lint typecheck $(VENV)/.test-installed
	$(VENV)/bin/pytest -q -m "not container and not browser and not slow" tests --ignore=tests/contract

typecheck: $(VENV)/.test-installed
	$(VENV)/bin/mypy --strict service scripts tests gunicorn.conf.py

# Branch coverage of service/, subprocesses (gunicorn) included; fails under [tool.coverage.report]
# fail_under of pyproject.toml.
unit: $(VENV)/.test-installed
	$(VENV)/bin/pytest -q -m "not container" --cov --cov-report=term tests

container-test: $(VENV)/.test-installed
	bash scripts/container_test.sh

loadtest: $(VENV)/.test-installed
	$(PY) -m scripts.loadtest

# Latency at a constant arrival rate (docs/operations.md, "Capacity at a constant arrival rate").
loadtest-open: $(VENV)/.test-installed
	$(PY) -m scripts.loadtest.open_model

# openapi.yaml as integrators' tools see it (examples/README.md): tests/contract/ runs `npm ci` from
# package-lock.json, Redocly and Spectral (redocly.yaml, .spectral.yaml), openapi-typescript and
# `tsc --strict` on the TypeScript example, then the TypeScript, Python and curl examples against a
# live server. Needs Node.js 20.19+ and npm; without them it skips, except under CI.
contract-check: $(VENV)/.test-installed
	$(VENV)/bin/ruff check examples
	$(VENV)/bin/ruff format --check examples
	$(VENV)/bin/mypy --strict examples/python
	QB_CONTRACT_CHECK=1 $(VENV)/bin/pytest -q tests/contract

bench: $(VENV)/.test-installed
	$(PY) -m scripts.bench
	$(PY) -m scripts.signing_cost
	$(PY) -m scripts.ruleset_cost

# The committed contract. Its answer examples are the service's own answers to its request examples
# (service/quart_bezique/api/openapi.py: answers), so a refused example or a changed answer shows up here; the
# file is replaced only when the whole document was generated. tests/api/test_api_openapi.py fails
# while the committed file differs from this output.
openapi: $(VENV)/.test-installed
	$(PY) -m quart_bezique.api > openapi.yaml.tmp || { rm -f openapi.yaml.tmp; exit 1; }
	mv openapi.yaml.tmp openapi.yaml

# The score and odds tables shipped in service/quart_bezique/game/tables/, regenerated from the rules' definition
# (the declaration search) with their SHA-256 manifest. Run after changing a rule, then commit them;
# tests/game/test_tables_shipped.py fails while the shipped files differ from what this builds.
tables: $(VENV)/.run-installed
	$(PY) -m quart_bezique.game.tables build

# Message catalogs (docs/api.md, "Languages"): extract the N_() and NP_() templates of the whole
# package into the .pot, merge them into each language's .po (a new message arrives untranslated and
# tests/api/test_api_i18n.py fails until it is translated), then compile each .po into the .mo the
# service reads with gettext (a test checks each shipped .mo equals its .po). The command line's
# argparse words have a catalog of their own (argparse domain), from this Python's argparse.
LOCALES := service/quart_bezique/api/contract/locale
catalogs: $(VENV)/.test-installed
	$(VENV)/bin/pybabel extract --no-default-keywords -k N_ -k NP_:1,2 --sort-by-file --add-location=file \
		--project=quart-bezique --no-wrap -o $(LOCALES)/messages.pot service/quart_bezique
	$(VENV)/bin/pybabel update --no-wrap --ignore-obsolete --no-fuzzy-matching \
		-i $(LOCALES)/messages.pot -d $(LOCALES)
	$(VENV)/bin/pybabel compile --statistics -d $(LOCALES)
	$(VENV)/bin/pybabel extract --no-location --project=argparse --no-wrap \
		-o $(LOCALES)/argparse.pot "$$($(PY) -c 'import argparse; print(argparse.__file__)')"
	$(VENV)/bin/pybabel update --no-wrap --ignore-obsolete --no-fuzzy-matching -D argparse \
		-i $(LOCALES)/argparse.pot -d $(LOCALES) -l ru
	$(VENV)/bin/pybabel update --no-wrap --ignore-obsolete --no-fuzzy-matching -D argparse \
		-i $(LOCALES)/argparse.pot -d $(LOCALES) -l uk
	$(VENV)/bin/pybabel compile --statistics -D argparse -d $(LOCALES)

# Re-pin every dependency (run after changing pyproject.toml, then commit constraints.txt).
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/pip install --disable-pip-version-check -q -e '.[server,test,bench]'
	.lock-venv/bin/pip freeze --exclude-editable | grep -v '^quart-bezique' > constraints.txt
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
