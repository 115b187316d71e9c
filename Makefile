# One venv, one distribution, three games. `make run` and `make test` are all the set-up a user needs.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
MAN6 := $(VENV)/share/man/man6
JOBS ?= 3
# Three test workers on two cores: the window, terminal and network tests spend much of their time waiting.

.PHONY: install run test test-fast bench lint sysdeps clean

install: $(STAMP)

$(STAMP): pyproject.toml $(wildcard docs/*.6)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	mkdir -p $(MAN6) && cp docs/*.6 $(MAN6)/
	touch $(STAMP)

run: install
	$(VENV)/bin/motti generate --computer 2

sysdeps:
	@scripts/sysdeps

test: install sysdeps
	$(PY) -m pytest -q -n $(JOBS) --dist worksteal

test-fast: install
	$(PY) -m pytest -q -n $(JOBS) --dist worksteal -m "not e2e and not slow"

bench: install sysdeps
	$(PY) bench/_run.py $(BENCH)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) build *.egg-info
