# Every target bootstraps .venv itself: `make demo` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
export PATH := $(BIN):$(PATH)

.PHONY: help demo check test lint bench soak venv clean

help:
	@echo "make demo    a narrated tour of every game (sets up .venv the first time)"
	@echo "make check   the fast loop: lint, then the unit layer (pytest -m 'not system': no child"
	@echo "             processes, servers or browsers), under 90 s"
	@echo "make test    everything: the unit layer, end-to-end, browser and short soak tests"
	@echo "make lint    ruff check, ruff format --check, mypy --strict hub"
	@echo "make bench   every benchmark of bench/"
	@echo "make soak    the long soak runs (several minutes)"
	@echo "make clean   remove .venv and the tools' caches"

venv: $(STAMP)

# Quiet (recipes start with @): one line says what is happening, pip only speaks on errors.
$(STAMP): pyproject.toml setup.py hub/games/kalah/_search.c hub/chess/_engine.c
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "hub needs Python 3.11 or newer")'
	@echo "setting up $(VENV) (hub and its dependencies; once, a minute or two)" >&2
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --root-user-action=ignore -e '.[test,cluster]'
	@touch $(STAMP)

# The demo alone on stdout: make echoes no recipe line.
demo: $(STAMP)
	@$(BIN)/hub demo

test: $(STAMP)
	@if [ ! -x /usr/games/stockfish ] && ! command -v stockfish >/dev/null; then if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y stockfish; else echo "note: Stockfish is not installed (apt-get install stockfish as root): the UQChess tests that need it will skip"; fi; fi
	@if [ ! -x /usr/bin/chromium ]; then if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y chromium; else echo "note: Chromium is not installed (apt-get install chromium as root): the browser tests of the web view will skip"; fi; fi
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y postgresql; else echo "note: PostgreSQL is not installed (apt-get install postgresql as root): the tests of records in PostgreSQL (tests/pg) will skip"; fi; fi
	$(BIN)/python -m pytest -m "not system" -q -p no:cacheprovider -n auto --maxprocesses 4
	$(BIN)/python -m pytest -m system --durations=30

# The unit layer: every test not marked `system` (tests/conftest.py fails one that starts a
# process or opens a socket), after the lint; quiet unless something fails.
check: lint
	$(BIN)/python -m pytest -m "not system" -q -p no:cacheprovider -n auto --maxprocesses 4

lint: $(STAMP)
	$(BIN)/ruff check hub tests bench players
	$(BIN)/ruff format --check hub tests bench players
	$(BIN)/mypy --strict hub

bench: $(STAMP)
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

# The long soak runs of tests/soak (10,000 cycles per server, 1,000 clubs games; several
# minutes); make test runs the same tests with short counts.
soak: $(STAMP)
	HUB_SOAK=long $(BIN)/python -m pytest -p no:cacheprovider -m soak -s tests/soak

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
