"""``harness`` / ``python -m harness``: parse the command line, then import what that needs.

Nothing heavy is imported at module level, so ``harness --version`` stays fast.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from harness.settings import load_settings

    # the settings file first: a key kept there is taken into memory like any other
    for problem in load_settings():
        print(f"harness: {problem}", file=sys.stderr)
    batch = args[:1] == ["batch"]
    if not batch:
        from harness.keys import take_keys

        take_keys()  # before any worker or command starts: none of them gets a key
    # a batch driver runs no workers or commands of its own: its tasks are child harness
    # processes, which take the keys out of their own environment as they start
    if not _INFO_ONLY.intersection(args) and not batch:
        # Every run needs workers, and their fork server takes 0.3 s to import
        # what they share: it starts first thing, before the command line's own
        # imports, so the two overlap. A usage error wastes a server that leaves
        # with us.
        from harness._forkstart import start_early

        start_early()
    ray = any(arg == "--ray" or arg.startswith("--ray=") for arg in args)
    if batch and not _INFO_ONLY.intersection(args) and not ray:
        # A local batch forks its tasks from a task server, which imports for as
        # long as the driver does: the same overlap.
        import os

        from harness.batch import start_task_server

        start_task_server(os.environ)
    from harness.cli import main as cli_main

    return cli_main(args)


# Arguments that only print something and exit: no workers.
_INFO_ONLY = frozenset({"-h", "--help", "--version"})


if __name__ == "__main__":
    sys.exit(main())
