# One-command set-up: `make lab` opens the notebook kit, `make test` runs every test.
# Both create a local virtual environment in .venv (only Python >= 3.10 is needed).
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed-stamp

.PHONY: lab test lint bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[notebooks,test]'
	touch $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/

test: $(STAMP)
	$(PY) -m ruff check relu_frames_nb tests benchmarks
	$(PY) -m pytest relu_frames_nb tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

lint: $(STAMP)
	$(PY) -m ruff check relu_frames_nb tests benchmarks

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
