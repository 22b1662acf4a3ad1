# The two commands a newcomer needs: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEVSTAMP := $(VENV)/.installed-dev
PIP    := $(BIN)/python -m pip --disable-pip-version-check
# run the venv's tools as if it were activated (nbdev_test's kernels, subprocesses)
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: install install-dev demo test docs bench clean

# `make demo` needs only the runtime dependencies; `make test` adds the dev tools (nbdev, JupyterLab, Sphinx, ...)
$(STAMP): settings.ini setup.py constraints.txt
	@echo "== creating $(VENV) and installing robustdiff with its runtime dependencies (a minute or two the first time)"
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip --progress-bar on
	$(PIP) install -e . -c constraints.txt --progress-bar on
	touch $(STAMP)

$(DEVSTAMP): $(STAMP)
	@echo "== installing the development tools (nbdev, JupyterLab, pytest, Sphinx, Playwright, Dask; ~1 GB the first time)"
	$(PIP) install -e ".[dev]" -c constraints.txt --progress-bar on
	touch $(DEVSTAMP)

install: $(STAMP)
install-dev: $(DEVSTAMP)

demo: $(STAMP)
	$(BIN)/robustdiff demo --out robustdiff-report

# notebooks run one after another in one process (--n_workers 0): forked notebook workers would wait
# on joblib's idle loky workers at exit (5 min each); serial runs also reuse one worker pool throughout
test: $(DEVSTAMP)
	$(BIN)/nbdev_test --n_workers 0 --timing
	$(BIN)/python -m pytest -q -rs tests

# speed targets live here, never in timed unit tests (each script writes benchmarks/results/*.json)
bench: $(DEVSTAMP)
	$(BIN)/python benchmarks/timings/bench_responses.py
	$(BIN)/python benchmarks/timings/bench_irt.py
	$(BIN)/python benchmarks/timings/bench_scc.py

clean:
	rm -rf $(VENV) _docs _proc robustdiff-report

docs: $(DEVSTAMP)
	$(BIN)/python tools/make_readme.py
	$(BIN)/python tools/build_docs.py
