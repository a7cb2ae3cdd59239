# Single entry point for building, testing and rerunning this executable book.
#
#   make book                    build the book from the committed results into _build/html
#   make test                    unit tests + quick execution check of every notebook + book
#   make rerun NB=noise PARAMS="-p noise_vars '[0.0, 0.01]' -p scale quick" OUT=out/rerun
#                                rerun one notebook with papermill; writes OUT/NB.ipynb, and
#                                the notebook's figures go to OUT (its `output_dir` parameter);
#                                an unknown parameter or a bad value: one line, exit 2
#   make clean                   remove build outputs (keeps .venv); `make distclean` also .venv
#
# Everything runs inside the virtual environment $(VENV), created on first use from the
# pinned requirements.txt (and requirements-lock.txt as constraints, when present).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(abspath $(VENV))/bin
STAMP  := $(VENV)/.installed
LOCK   := $(wildcard requirements-lock.txt)

# Tools from the venv come first, so papermill/jupyter kernels resolve to the venv python.
export PATH := $(BIN):$(PATH)
export PYTHONHASHSEED := 0

# Notebooks: Jupytext py:percent sources; the CI check runs each at the quick scale.
NOTEBOOKS    := $(sort $(wildcard notebooks/*.py))
NB_NAMES     := $(notdir $(basename $(NOTEBOOKS)))
CI_DIR       := out/ci
CI_SCALE    ?= quick
# Name of the parameter (in each notebook's `parameters` cell) that receives the folder
# for the figures and files the notebook writes.
OUTPUT_PARAM ?= output_dir
# Execution cache of the book build (execute.cache in _config.yml).
BOOK_CACHE_DB := _build/.jupyter_cache/global.db

# `make rerun` arguments.
NB     ?=
PARAMS ?=
OUT    ?= out/rerun

.PHONY: help venv test unit-tests notebook-check book rerun clean distclean

help:
	@sed -n '1,12p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

# --- environment -------------------------------------------------------------------
venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml $(LOCK)
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -r requirements.txt $(if $(LOCK),-c $(LOCK))
	$(VENV)/bin/python -m pip install -e . --no-deps
	touch $@

# --- tests -------------------------------------------------------------------------
# The three checks are independent (each writes its own files: out/ci/junit-unit.xml,
# out/ci/NAME.ipynb, _build): they run side by side, JOBS at a time (default 2, one per core
# of the machine CI runs on), each one's output printed together when it ends.  The venv is
# built once, before them.  `make test JOBS=1` runs them one after the other.
JOBS ?= 2
test: venv
	$(MAKE) --no-print-directory -j$(JOBS) --output-sync=target unit-tests notebook-check book

# Unit tests of binn_utils, the 15 slowest named at the end (where CI's time goes). pytest
# exits 5 when it collects no test; that is not a failure here (the notebook check below
# always runs tests).
unit-tests: venv
	mkdir -p $(CI_DIR)
	$(BIN)/python -m pytest tests -q --durations=15 --junitxml=$(CI_DIR)/junit-unit.xml || [ $$? -eq 5 ]

# Notebook check: convert each notebooks/NAME.py to ipynb (the `parameters` cell tag
# survives the conversion), execute it with papermill and the quick scale into
# out/ci/NAME.ipynb, then let nbval re-execute that notebook and compare every cell's
# outputs with the stored ones.
#
# Why strict `--nbval` and not `--nbval-lax`: lax mode only compares cells marked
# `# NBVAL_CHECK_OUTPUT`, so a notebook whose printed numbers drift would pass. Strict
# mode compares all text outputs (stdout/stderr streams, text/plain, text/html, errors);
# nbval always skips image/png and image/jpeg (unless --nbdime), so figures are not
# compared pixel by pixel, but their text/plain reprs ("<Figure size ...>") are, hence
# the sanitizers in .ci/nbval_sanitize.cfg (timings, memory addresses, tqdm bars, figure
# reprs). Cells with inherently variable output (wall-clock timings, say) should carry
# the cell tag `nbval-ignore-output`; cells to skip entirely, `nbval-skip`.
#
# papermill runs with the notebooks/ folder as working directory, like the book build;
# nbval's kernel runs in out/ci/. Notebooks must therefore not depend on the working
# directory (locate files from the repository root, not from ".").
notebook-check: venv
	rm -rf $(CI_DIR)/src $(addprefix $(CI_DIR)/,$(addsuffix .ipynb,$(NB_NAMES))) $(CI_DIR)/files
	mkdir -p $(CI_DIR)/src $(CI_DIR)/files
	@# Warm matplotlib's font cache so its one-off stderr notice cannot appear in only
	@# one of the two executions.
	$(BIN)/python -c "import matplotlib.pyplot"
	@for nb in $(NB_NAMES); do \
	  $(BIN)/jupytext --quiet --to ipynb --output $(CI_DIR)/src/$$nb.ipynb notebooks/$$nb.py; \
	  $(BIN)/python -c "import json,sys; nb=json.load(open(sys.argv[1])); \
	    sys.exit(0 if any('parameters' in c.get('metadata',{}).get('tags',[]) for c in nb['cells']) \
	    else 'notebooks/'+sys.argv[2]+'.py has no cell tagged parameters')" $(CI_DIR)/src/$$nb.ipynb $$nb; \
	  echo "papermill: $$nb (scale=$(CI_SCALE))"; \
	  $(BIN)/papermill --no-progress-bar --cwd notebooks \
	    $(CI_DIR)/src/$$nb.ipynb $(CI_DIR)/$$nb.ipynb \
	    -p scale $(CI_SCALE) -p $(OUTPUT_PARAM) $(abspath $(CI_DIR))/files/$$nb; \
	done
	$(BIN)/python -m pytest -q -p no:cacheprovider --nbval --nbval-current-env \
	  --nbval-sanitize-with .ci/nbval_sanitize.cfg \
	  --junitxml=$(CI_DIR)/junit-nbval.xml \
	  $(addprefix $(CI_DIR)/,$(addsuffix .ipynb,$(NB_NAMES)))

# --- the book ----------------------------------------------------------------------
# -n: nitpicky (every cross-reference must resolve); -W: warnings are errors;
# --keep-going: report all warnings before failing. Notebooks execute in `cache` mode
# (cache in _build/.jupyter_cache) and any cell error fails the build
# (execute.raise_on_error in _config.yml).
# The execution cache is keyed on the notebook's code only, and Sphinx re-reads only
# changed sources, so when anything under results/, binn_utils/ or notebooks/ is newer than
# the cache, the previous build is discarded and every notebook re-executes (a page may glue
# a value from another page's notebook, e.g. the errata from the framework chapter).
# The Supporting Material repeats other than the noise-free one: the same notebook,
# executed by papermill with each configuration's parameters (scripts/render_supporting.py).
SUPPORTING_PAGES := $(foreach n,noise_1e-2 dense_0 dense_1e-3 dense_1e-2,\
    book/supporting/$(n).ipynb)
$(SUPPORTING_PAGES): book/supporting/%.ipynb: notebooks/supplementary.py scripts/render_supporting.py \
    $(wildcard binn_utils/*.py binn_utils/*/*.py) results/manifest.json $(wildcard results/runs/*.json) | venv
	$(BIN)/python scripts/render_supporting.py $*

# The book is built from the committed results only: a missing result is an error, not a
# multi-hour training run.
book $(SUPPORTING_PAGES): export BINN_REQUIRE_STORED := 1
book: venv $(SUPPORTING_PAGES)
	@if [ -f $(BOOK_CACHE_DB) ] && [ -n "$$(find results binn_utils notebooks -type f -not -name "*.pyc" -newer $(BOOK_CACHE_DB) -print -quit 2>/dev/null)" ]; then \
	  echo "book: results/, binn_utils/ or notebooks/ changed since notebooks last ran; removing _build"; \
	  rm -rf _build; fi
	$(BIN)/jupyter-book build . -n -W --keep-going
	@# Checks on the built HTML (tests/book): no placeholder figures, no TeX left in glued text, MathJax
	@# served from the build, the headline box on the landing page (test_built_html.py); every printed
	@# verdict the scorecard's (test_built_verdicts.py); numbers per sentence (test_built_prose_numbers.py).
	@# BINN_CHECK_BUILT_HTML=1 turns a missing build into a failure (a plain `pytest tests` skips them).
	mkdir -p $(CI_DIR)
	BINN_CHECK_BUILT_HTML=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/book \
	  --junitxml=$(CI_DIR)/junit-book-html.xml
	@echo "book: open _build/html/index.html"

# --- rerun one notebook with other parameters --------------------------------------
# scripts/rerun.py checks the parameters (names: the notebook's `parameters` cell; values:
# binn_utils.applications.notebook_parameters) before it runs anything; -p values are Python literals
# (lists too), -y takes a YAML mapping.
rerun: $(if $(NB),venv)     # without NB: the usage line at once, before any set-up
	@test -n "$(NB)" || { echo 'usage: make rerun NB=<name> [PARAMS="-p key value ... | -y YAML"] [OUT=out/rerun]'; \
	  echo 'notebooks: $(NB_NAMES)'; exit 2; }
	@$(BIN)/python scripts/rerun.py $(NB) '$(OUT)' $(PARAMS)

# --- housekeeping ------------------------------------------------------------------
clean:
	rm -rf _build out .jupyter_cache .pytest_cache

distclean: clean
	rm -rf $(VENV)
