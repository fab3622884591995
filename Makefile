# Two entry points, both self-contained on a fresh machine:
#   make run   -> isolated venv, runtime install, the lab in Streamlit on the bundled checkpoints
#   make test  -> same venv plus test tools, the whole test suite (unit, doctests, app, browser)
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# torch is installed first and alone, from the CPU wheel on disk, so no later resolver step
# can swap it for a CUDA build.
TORCH  := torch==2.13.0
WHEELS := /opt/wheels

# axe-core, the accessibility checker the browser test injects into every page, pinned by
# package-lock.json; installed once (again only when the lock changes).
AXE    := node_modules/axe-core/axe.min.js

$(AXE): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

.PHONY: run test test-quick lint bench clean-venv view-cache class

# NeuroGym (requirements-neurogym.txt) goes last and with --no-deps: it declares numpy==2.2.*
# and gymnasium==0.29.*, which would replace our pins; its other dependencies are pinned in
# requirements.txt.
$(VENV)/.runtime: requirements.txt requirements-neurogym.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --find-links $(WHEELS) $(TORCH)
	$(PY) -m pip install --quiet --find-links $(WHEELS) -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-neurogym.txt
	touch $@

$(VENV)/.test: $(VENV)/.runtime requirements-test.txt
	$(PY) -m pip install --quiet --find-links $(WHEELS) -r requirements-test.txt
	touch $@

run: $(VENV)/.runtime
	$(PY) -m streamlit run app.py

# Two workers, one per core, each single-threaded (tests/conftest.py), handed whole files with the
# heaviest first (tests/conftest.py HEAVY_FILES), so module fixtures are built once and both workers
# end together. 2,170 tests, AppTests and a real browser: 612 s, 634 s and 660 s (.ci/run) in three
# runs on the 2-core reference machine (2026-11-29, a clean clone, nothing else running): over the
# 10-minute target by 2-10%. The browser file is about 315 s of it, a fast-mode quick result set about 87 s. Three
# workers were not faster (647 s): the CPU is the limit.
test: $(VENV)/.test $(AXE)
	$(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder

# The quick lane for development: everything not marked slow (training, app servers, the
# browser): 2,135 tests in 3 min 34 s on 2 cores (2026-11-29). `make test` stays the README's (and CI's) command.
test-quick: $(VENV)/.test
	$(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder -m "not slow and not browser"

# House rules by their tools (CI runs this before `make test`): ruff's format and lint rules, and
# the architecture's import contracts (pyproject.toml [tool.importlinter]; docs/ARCHITECTURE.md).
lint: $(VENV)/.test
	$(PY) -m ruff format --check .
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports

bench: $(VENV)/.test
	$(PY) -m bench

# The bundled agents' views for every discrete control value (labcore/view_cache.py): one file per
# checkpoint under results/view_cache/, keyed by its content hash. Resumable: a file that still
# matches its checkpoint is kept. Portable compute mode, so a fresh computation on any AVX2 x86-64 CPU
# equals it bit for bit (docs/reliability.md). With 2 jobs on the reference machine: the views about
# 1-2 minutes, the dual-task agents' Integration and PCI-A side files about 14 minutes.
view-cache: $(VENV)/.runtime
	CTLAB_COMPUTE=portable $(PY) -m labcore.view_cache build --jobs 2

# A class larger than one process serves: lab processes behind Debian's nginx on PORT, with sticky
# sessions (a cookie hashed onto the servers; websockets passed through). One server per core unless
# SERVERS says otherwise (ui.serve.default_servers: 2 on the reference machine). Needs nginx
# (apt-get install nginx). Prints the address students open; Ctrl-C stops everything. README: "Teaching a class".
# Neither `run` nor `class` watches files: .streamlit/config.toml turns Streamlit's watcher off.
SERVERS ?=
PORT    ?= 8501
class: $(VENV)/.runtime
	$(PY) -m ui.serve class$(if $(SERVERS), --servers $(SERVERS)) --port $(PORT)

clean-venv:
	rm -rf $(VENV)
