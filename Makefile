# One venv, one distribution, three games. `make run` and `make test` are all the set-up a user needs.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test bench lint sysdeps clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

run: install
	$(VENV)/bin/motti generate

sysdeps:
	@scripts/sysdeps

test: install sysdeps
	$(PY) -m pytest -q

bench: install sysdeps
	@for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

lint: install
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info
