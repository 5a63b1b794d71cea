# Two commands do all the set-up: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test docs fuzz compat bench bench-styles bench-smoke bench-ecosystem clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m benchmarks.demo

test: $(STAMP)
	$(BIN)/python -m pytest

# The docs site into site/, warnings as errors (mkdocs.yml: strict). Pages
# are generated from the code by tools/mkdocs_hooks.py; nothing is fetched
# from the web at build time (theme.font is off).
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev,docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --quiet

# Differential fuzzing at scale: GRAPHMEND_FUZZ_PROGRAMS programs (default
# 10000) on every core, then a summary; see tests/fuzz/__main__.py.
fuzz: $(STAMP)
	PYTHONPATH=tests $(BIN)/python -m fuzz

# graphmend on every torch version in .compat/torch-* (not part of `make
# test`): the corpus rows (diagnose, mend, diagnose, bit-identical to eager)
# and a fuzz sample per version, one venv after another, as a matrix in
# compat-results.md; see benchmarks/compat_matrix.py.
COMPAT_FUZZ ?= 40
compat: $(STAMP)
	$(BIN)/python -m benchmarks.compat_matrix matrix --fuzz $(COMPAT_FUZZ) --out compat-results.md

# The benchmarks live beside the package (benchmarks/), run from here; the
# wheel is the tool alone.
bench: $(STAMP)
	$(BIN)/python -m benchmarks --out bench-results
	$(BIN)/python -m benchmarks --cold --switches --out bench-results

# graphmend.compile with default options, in a fresh first process per
# corpus row (the LC/DC rows) and calling style: module, bound forward, step
# function, lambda, training step (benchmarks/bench_default.py).
bench-styles: $(STAMP)
	$(BIN)/python -m benchmarks.bench_default --torch-arm --out bench-results/calling-styles.json

# The benchmark harness end to end on one small row, eager backend (about a
# minute; not part of `make test`, which keeps a cheap smoke test).
bench-smoke: $(STAMP)
	$(BIN)/python -m pytest benchmarks/tests

# The second corpus: ten PyTorch-ecosystem libraries, pinned, installed here
# only (never by `make test`).
bench-ecosystem: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -c constraints-ecosystem.txt -e '.[dev,ecosystem]'
	$(BIN)/python -m benchmarks --corpus ecosystem --out bench-results/ecosystem

clean:
	rm -rf $(VENV) bench-results site
