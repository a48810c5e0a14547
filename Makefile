# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --disable-pip-version-check -q -c constraints.txt
export OMP_NUM_THREADS ?= 1

.PHONY: demo test test-pytest test-slow test-nojit test-thirdparty bench lint clean media strength \
	loadtest docs

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q --upgrade pip

# Stamps re-run an install when the project's requirements change.
$(VENV)/.demo-installed: pyproject.toml constraints.txt | $(PY)
	$(PIP) -e ".[plots,rl,serve]"
	touch $@

$(VENV)/.test-installed: pyproject.toml constraints.txt | $(PY)
	$(PIP) -e ".[test]"
	touch $@

ACTIVATE = @echo "playahead is installed in $(VENV): run '. $(VENV)/bin/activate' to use \
	the playahead command (or call $(VENV)/bin/playahead)."

demo: $(VENV)/.demo-installed
	$(PY) -m playahead demo
	$(ACTIVATE)

# The three parts of `make test` run side by side, two at a time (the pytest run waits
# on subprocesses, servers and signals for much of its time); each part's output is
# printed whole when it ends.
test: $(VENV)/.test-installed
	@echo "make test: pytest, the kernels with the JIT off, then the docs (each part's \
	output appears when it ends)"
	$(MAKE) --no-print-directory -j2 --output-sync=target test-pytest test-nojit docs
	$(ACTIVATE)

test-pytest: $(VENV)/.test-installed
	$(PY) -m pytest -m "not slow and not thirdparty"

# The documentation site, docs/_build/html/index.html. Warnings are errors, and -n makes
# a broken cross-reference (or, see docs/conf.py, a public name without a docstring) one.
docs: $(VENV)/.test-installed
	$(PY) -m sphinx -W --keep-going -n -b html docs docs/_build/html

# The compiled kernels' tests again, with numba's JIT off (kernels run as plain Python):
# every test marked `kernel` (tests/test_suite.py checks that each test using a
# plain-Python reference is).
test-nojit: $(VENV)/.test-installed
	NUMBA_DISABLE_JIT=1 HYPOTHESIS_PROFILE=nojit $(PY) -m pytest -p no:cacheprovider \
		-m kernel tests

test-slow: $(VENV)/.test-installed
	$(PY) -m pytest -m "slow and not thirdparty"

# Tianshou, RLlib and rl-zoo3 on playahead's envs (tests/test_thirdparty.py). RLlib
# 2.60 pins gymnasium==1.2.2, so they get a venv of their own and the main one keeps
# its gymnasium.
TP_VENV ?= .venv-thirdparty
TP_PY := $(TP_VENV)/bin/python

$(TP_VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(TP_VENV)
	$(TP_PY) -m pip install --disable-pip-version-check -q -c constraints.txt \
		-e ".[dev,rl,thirdparty]"
	touch $@

test-thirdparty: $(TP_VENV)/.installed
	$(TP_PY) -m pytest -m thirdparty -p no:randomly tests/test_thirdparty.py

# gymnasium-2048 pins an older gymnasium; it is only a baseline, so it comes in
# without its dependencies and leaves ours alone.
$(VENV)/.bench-installed: pyproject.toml constraints.txt | $(PY)
	$(PIP) -e ".[test,bench]"
	$(PIP) --no-deps gymnasium-2048==0.1.2 pygame==2.6.1
	touch $@

bench: $(VENV)/.bench-installed
	$(PY) -m benchmarks

# The README's animated game and web-page screenshot.
media: $(VENV)/.test-installed
	$(PY) -m playahead media --out docs

# A bounded load test of `playahead serve` on 127.0.0.1 (64 clients, 3000 requests, a
# capped search running meanwhile): requests/s, errors, latency p50/p90/p99.
loadtest: $(VENV)/.test-installed
	$(PY) -m playahead.tools.serve.loadtest --clients 64 --requests 3000

lint: $(VENV)/.test-installed
	$(VENV)/bin/ruff check playahead tests benchmarks examples docs/conf.py docs/conftest.py
	$(VENV)/bin/ruff format --check playahead tests benchmarks examples docs/conf.py docs/conftest.py

clean:
	rm -rf $(VENV) $(TP_VENV) build *.egg-info

# Strength benchmark: named settings over seeded games (resumable), results files in
# benchmarks/results/. `make strength SETTING=threes-features-d2`; `python -m benchmarks strength
# --list` names the settings.
SETTING ?= threes-features-d2
strength: $(VENV)/.test-installed
	$(PY) -m benchmarks strength --setting $(SETTING)
