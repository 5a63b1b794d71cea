# Two commands do all the set-up: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test fuzz bench bench-ecosystem clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m graphmend.demo

test: $(STAMP)
	$(BIN)/python -m pytest

# Differential fuzzing at scale: GRAPHMEND_FUZZ_PROGRAMS programs (default
# 10000) on every core, then a summary; see tests/fuzz/__main__.py.
fuzz: $(STAMP)
	PYTHONPATH=tests $(BIN)/python -m fuzz

# graphmend on every torch version in .compat/torch-* (not part of `make
# test`): the corpus rows (diagnose, mend, diagnose, bit-identical to eager)
# and a fuzz sample per version, one venv after another, as a matrix in
# compat-results.md; see tools/compat_matrix.py.
COMPAT_FUZZ ?= 40
compat: $(STAMP)
	$(BIN)/python tools/compat_matrix.py matrix --fuzz $(COMPAT_FUZZ) --out compat-results.md

bench: $(STAMP)
	$(BIN)/graphmend bench --out bench-results
	$(BIN)/graphmend bench --cold --switches --out bench-results

# The second corpus: ten PyTorch-ecosystem libraries, pinned, installed here
# only (never by `make test`).
bench-ecosystem: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -c constraints-ecosystem.txt -e '.[dev,ecosystem]'
	$(BIN)/graphmend bench --corpus ecosystem --out bench-results/ecosystem

clean:
	rm -rf $(VENV) bench-results
