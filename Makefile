# The two commands a new user runs are `make install` and `make test` (see README.md).
PYTHON ?= python3
PYTEST  = $(PYTHON) -m pytest

.PHONY: install test test-all bench

install:  ## install dptheory with its test dependencies (editable)
	$(PYTHON) -m pip install -q -e ".[test]"

test:     ## fast test suite (what CI runs): every check except those marked slow
	$(PYTEST) -q -m "not slow"

test-all: ## every test, slow ones included
	$(PYTEST) -q

bench:    ## pytest-benchmark timings of the hot paths
	$(PYTEST) -q tests/test_benchmarks.py --benchmark-enable --benchmark-only --benchmark-columns=min,median,mean,rounds --benchmark-sort=name

