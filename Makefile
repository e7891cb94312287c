# Kozyr — the two commands a fresh machine needs are `make run` and `make test`.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
PROTOS  := $(wildcard protos/kozyr/v1/*.proto)

.PHONY: venv proto proto-check run test lint bench clean ts-client

$(STAMP): pyproject.toml clients/python/pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q -e clients/python
	touch $(STAMP)

venv: $(STAMP)

## Regenerate the Python stubs (with .pyi type stubs) from protos/.
proto: $(STAMP)
	$(BIN)/python -m kozyr.protogen

## Fail when the committed stubs differ from what protos/ generates.
proto-check: $(STAMP)
	$(BIN)/python -m kozyr.protogen --check

## Start the service on 127.0.0.1:50051 with an embedded Redis under ./data.
run: $(STAMP)
	$(BIN)/kozyr serve

lint: $(STAMP)
	$(BIN)/ruff check service tests clients/python
	$(BIN)/mypy
	$(BIN)/lint-imports

test: $(STAMP) lint proto-check
	$(BIN)/python -m pytest

## Install the pinned TypeScript toolchain and build clients/typescript (node and npm needed).
ts-client:
	cd clients/typescript && npm ci --no-audit --no-fund && npm run build

bench: $(STAMP)
	$(BIN)/python tests/bench/bench.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
