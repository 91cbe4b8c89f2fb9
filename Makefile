# The two commands a new user runs are `make install` and `make test` (see README.md).
PYTHON ?= python3
PYTEST  = $(PYTHON) -m pytest

.PHONY: install test test-all bench verify verify-quick docs

install:  ## install dptheory with its test dependencies (editable)
	$(PYTHON) -m pip install -q -e ".[test]"

test:     ## fast test suite (what CI runs): every check except those marked slow
	$(PYTEST) -q -m "not slow"

test-all: ## every test, slow ones included
	$(PYTEST) -q

bench:    ## pytest-benchmark timings of the hot paths, then a summary of each path's ratio to its limit (same run)
	@mkdir -p .benchmarks
	$(PYTEST) -q -s tests/test_benchmarks.py --benchmark-enable --benchmark-only --benchmark-columns=min,median,mean,rounds --benchmark-sort=name --benchmark-json=.benchmarks/latest.json
	$(PYTHON) tests/bench_summary.py .benchmarks/latest.json


verify-quick: install ## quick verification at small sizes, into figures/quick/ (git-ignored; the committed figures/ stay as they are; about 30 s on 2 cores, docs/performance.md)
	$(PYTHON) -m verify --quick

verify:   install ## full verification: every figure and claim under figures/ (the committed results)
	$(PYTHON) -m verify

docs:     ## the documentation site (API reference, derivations, errata, the latest report) in docs/_build/html/index.html
	$(PYTHON) -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "open docs/_build/html/index.html in a browser"
