# The two commands a newcomer needs: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# run the venv's tools as if it were activated (nbdev_test's kernels, subprocesses)
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: install demo test docs bench clean

$(STAMP): settings.ini setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/robustdiff demo --out robustdiff-report

# notebooks run one after another in one process (--n_workers 0): forked notebook workers would wait
# on joblib's idle loky workers at exit (5 min each); serial runs also reuse one worker pool throughout
test: $(STAMP)
	$(BIN)/nbdev_test --n_workers 0 --timing
	$(BIN)/python -m pytest -q tests

# speed targets live here, never in timed unit tests (each script writes benchmarks/results/*.json)
bench: $(STAMP)
	ROBUSTDIFF_DATA=$${ROBUSTDIFF_DATA:-../shared/datasets} $(BIN)/python benchmarks/bench_responses.py
	ROBUSTDIFF_DATA=$${ROBUSTDIFF_DATA:-../shared/datasets} $(BIN)/python benchmarks/bench_irt.py
	ROBUSTDIFF_DATA=$${ROBUSTDIFF_DATA:-../shared/datasets} $(BIN)/python benchmarks/bench_scc.py

clean:
	rm -rf $(VENV) _docs _proc robustdiff-report

docs: $(STAMP)
	$(BIN)/python tools/make_readme.py
	$(BIN)/python tools/build_docs.py
