# The two commands: `make demo` runs the main job, `make test` runs the checks and tests.
# Both build .venv from this project's own files first (nothing pre-installed needed).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# torch==2.13.0 is the CPU build; an unpinned torch would pull a multi-GB CUDA build.
TORCH  := torch==2.13.0
export RAY_AUTH_MODE ?= disabled

.PHONY: demo test lint venv clean browser

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install $(TORCH)
	$(PY) -m pip install -e '.[dev,rl,peers,pgx,web,clients]'
	touch $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# the browser tests (tests/web) drive Debian's chromium: playwright cannot download its own browsers here
browser:
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

test: lint browser
	$(PY) -m pytest -n 2 -q

demo: $(STAMP)
	$(VENV)/bin/tabuleiro demo

clean:
	rm -rf $(VENV) build *.egg-info
