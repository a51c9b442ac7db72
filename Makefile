# Every target that needs the environment depends on `install`, which is idempotent:
# it only reinstalls when pyproject.toml is newer than the stamp.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# What the tests use from Debian: Python's documentation (about 70 MB; real pages nobody
# here wrote, served from a loopback server to the search tests and bench), bubblewrap
# (the --sandbox tests), ripgrep (search_text's fast path) and jq (the hook examples copied
# from Claude Code's documentation read their input with it), and Node with npm (the
# TypeScript ACP client that drives `harness acp` in tests/acp). Installed once.
SYSTEM_DEPS := /usr/share/doc/python3.11/html/library/stdtypes.html /usr/bin/bwrap /usr/bin/rg \
	/usr/bin/jq /usr/bin/npm
# The TypeScript ACP SDK for tests/acp, pinned by its package-lock.json.
NODE_STAMP := tests/acp/node/node_modules/.package-lock.json

.PHONY: install launcher run test bench lint clean

# `harness` in any folder: install puts a launcher (a two-line script that runs this
# checkout's .venv/bin/harness) in LAUNCHER_DIR, never over a file that is not ours,
# and says how to put that folder on PATH when it is not.
LAUNCHER_DIR ?= $(HOME)/.local/bin

# Bytecode is compiled here, not left to the first import: a worker's start-up is its
# restart time, and with PYTHONDONTWRITEBYTECODE set (common in containers) every worker
# start would compile harness's sources again. Up-to-date files are skipped.
install: $(STAMP) $(NODE_STAMP)
	@$(BIN)/python -m compileall -q src >/dev/null
	@sh scripts/install-launcher.sh "$(CURDIR)/$(BIN)/harness" "$(LAUNCHER_DIR)"
	@$(BIN)/harness prime

launcher:
	@sh scripts/install-launcher.sh "$(CURDIR)/$(BIN)/harness" "$(LAUNCHER_DIR)"

$(STAMP): pyproject.toml
	@echo "harness: installing its Python packages into $(VENV) (a few minutes the first time)"
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev,ray]'
	touch $(STAMP)

$(NODE_STAMP): tests/acp/node/package-lock.json /usr/bin/npm
	@echo "harness: installing the Node packages of the editor tests' ACP client (about a minute)"
	cd tests/acp/node && npm ci --no-audit --no-fund --silent

run: install
	$(BIN)/harness

# Two worker processes (the machines we test on have two cores; most tests wait on other
# processes), each test file whole to one of them, and the folders that must not share
# the machine with themselves whole too (tests/conftest.py says which and why).
test: install $(SYSTEM_DEPS)
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 --dist loadfile

bench: install $(SYSTEM_DEPS)
	$(BIN)/python -m bench

# Only the packages whose file is missing: a machine with Node from elsewhere (NodeSource's
# nodejs carries its own npm, and conflicts with Debian's) keeps it.
$(SYSTEM_DEPS) &:
	@echo "harness: installing the tests' tools from Debian (python3.11-doc, bubblewrap, ripgrep, jq, nodejs, npm: those missing; a few minutes)"
	pkgs=""; \
	test -e /usr/share/doc/python3.11/html/library/stdtypes.html || pkgs="$$pkgs python3.11-doc"; \
	test -e /usr/bin/bwrap || pkgs="$$pkgs bubblewrap"; \
	test -e /usr/bin/rg || pkgs="$$pkgs ripgrep"; \
	test -e /usr/bin/jq || pkgs="$$pkgs jq"; \
	test -e /usr/bin/npm || pkgs="$$pkgs nodejs npm"; \
	apt-get update -qq && apt-get install -y -qq $$pkgs >/dev/null

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache

# The embedded model (issue 8): the `local` extra (llama-cpp-python, compiled without the
# llama.cpp parts it never uses: see scripts/llama_cpp_build.cmake) and the default model,
# assembled and verified once into the model cache. Slow the first time (a build, 1.1 GB),
# then a no-op. llama.cpp is built for this CPU with AMX off (some VMs advertise AMX and
# fault on it), kept in the model cache under a hash of its flags, and proven by running
# it in a child process; a crash rebuilds it portable (GGML_NATIVE=OFF) and says so.
# Every install then has the model read the system prompt's shared part once (`harness
# prime`, after the model above: about 30 s the first time, then free), so the first
# question on a new machine reads only its own folder's lines.
LOCAL_STAMP := $(VENV)/.installed-local
LLAMA_CMAKE_ARGS := -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE=$(CURDIR)/scripts/llama_cpp_build.cmake

install: $(LOCAL_STAMP)

$(LOCAL_STAMP): $(STAMP) pyproject.toml scripts/llama_cpp_build.cmake src/harness/actors/model/local/_runtime.py
	$(BIN)/python -m harness.actors.model.local runtime --cmake-args "$(LLAMA_CMAKE_ARGS)"
	@echo "harness: installing llama-cpp-python from the build above (under a minute)"
	$(BIN)/python -m pip install -q -e '.[dev,ray,local]'
	@echo "harness: fetching, assembling and checking the embedded model (1.1 GB: minutes the first time, then seconds)"
	$(BIN)/python -m harness.actors.model.local install --cmake-args "$(LLAMA_CMAKE_ARGS)"
	touch $@
