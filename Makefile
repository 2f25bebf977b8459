# trajkit: two entry points, each creating the local venv it needs.
#   make demo   run the main job on the bundled fixtures (no network, no API key)
#   make test   run the whole test suite
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.trajkit-installed
PYTEST_ARGS ?=

.PHONY: demo test venv lint bench

demo: $(STAMP)
	$(BIN)/trajkit validate fixtures/sdk

test: $(STAMP)
	$(BIN)/pytest $(PYTEST_ARGS)

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check trajkit tests benchmarks
	$(BIN)/ruff format --check trajkit tests benchmarks

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_load.py

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when pyproject.toml changes; the venv itself is an order-only prerequisite.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)
