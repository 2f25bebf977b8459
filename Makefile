# trajkit: two entry points, each creating the local venv it needs.
#   make demo   run the main job on the bundled fixtures (no network, no API key)
#   make test   run the whole test suite
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
# Two installs into one venv: the demo needs the toolkit and the runtime (`.[runtime]`, plus pytest,
# which the scripted loopback LLM server in tests/support imports); the tests need `.[test]`.
DEMO_STAMP := $(VENV)/.trajkit-demo-installed
STAMP := $(VENV)/.trajkit-installed
PYTEST_ARGS ?=

.PHONY: demo test venv lint bench

DEMO ?= out/demo

# The main job, on the bundled fixtures only: no network, no API key. Each step is one command a
# user would type; outputs go to $(DEMO)/ (recreated on every run).
demo: $(DEMO_STAMP)
	rm -rf $(DEMO) && mkdir -p $(DEMO)
	@echo "== 1/7 validate the conversations written by openhands-sdk 1.58.2"
	$(BIN)/trajkit validate fixtures/sdk
	@echo "== 2/7 convert: one conversation to Chat Completions, all of them to Responses (JSONL)"
	$(BIN)/trajkit convert fixtures/sdk/d_parallel --to chat -o $(DEMO)/d_parallel.chat.json
	$(BIN)/trajkit convert fixtures/sdk --to responses -o $(DEMO)/sdk.responses.jsonl
	@echo "== 3/7 migrate the V0 trajectories (our own samples) into V1 folders, then validate them"
	$(BIN)/trajkit migrate fixtures/v0 -o $(DEMO)/migrated
	$(BIN)/trajkit validate $(DEMO)/migrated
	@echo "== 4/7 runtime: scripted loopback LLM, real bash and files; persist, restore, continue"
	$(BIN)/python examples/scripted_demo.py $(DEMO)/runtime
	$(BIN)/trajkit validate --strict $(DEMO)/runtime
	@echo "== 5/7 export everything to a Parquet dataset"
	$(BIN)/trajkit export fixtures/sdk $(DEMO)/migrated $(DEMO)/runtime -o $(DEMO)/dataset
	@echo "== 6/7 look at the corpus"
	$(BIN)/trajkit ls fixtures/sdk $(DEMO)/runtime
	$(BIN)/trajkit stats fixtures/sdk $(DEMO)/migrated $(DEMO)/runtime --table
	@echo "== 7/7 a self-contained HTML report"
	$(BIN)/trajkit view fixtures/sdk/d_parallel -o $(DEMO)/d_parallel.html
	@echo "== last: a static site of the bundled conversations (index + one report each, no server)"
	$(BIN)/trajkit view fixtures/sdk -o $(DEMO)/site
	@echo "demo outputs are in $(DEMO)/; open $(DEMO)/site/index.html in a browser (or $(DEMO)/d_parallel.html for one conversation)"
	@echo "to browse them live: pip install 'trajkit[serve]', then $(BIN)/trajkit serve fixtures/sdk $(DEMO)/runtime"

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
$(DEMO_STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[runtime]' pytest
	touch $(DEMO_STAMP)

$(STAMP): pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP) $(DEMO_STAMP)
