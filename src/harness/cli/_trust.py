"""``harness trust``: see, approve or revoke the trust of a workspace's own configuration.

::

    harness trust [-C DIR]            what the project files would do, and whether each is trusted
    harness trust --yes [-C DIR]      trust them as they are now (after reading the list)
    harness trust --revoke [-C DIR]   forget this workspace's approvals
    harness trust --list              every workspace with approvals

Approvals are kept by content hash (:mod:`harness.trust`): a file that changes is
untrusted again until it is approved again.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO, cast

from harness.terminal import SafeWriter
from harness.trust import TrustStore, describe, project_files

__all__ = ["build_trust_parser", "trust_main"]


def build_trust_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness trust",
        description="Project configuration that can run code or widen permissions (the "
        "servers of .mcp.json, the allow rules of .permissions.json, the hooks of "
        ".harness/ and .claude/ settings files) is inert until you trust its exact content. "
        "Without an option: show it, and whether it is trusted.",
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--yes", action="store_true", help="trust the files as they are now")
    what.add_argument("--revoke", action="store_true", help="forget this workspace's approvals")
    what.add_argument("--list", action="store_true", help="every workspace with approvals")
    parser.add_argument("-C", "--workspace", metavar="DIR", help="default: the current folder")
    return parser


def trust_main(
    argv: list[str],
    *,
    stdout: IO[str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> int:
    """Run ``harness trust`` with *argv*; the exit status (0, or 2 for a usage error)."""
    args = build_trust_parser().parse_args(argv)
    out = cast("IO[str]", SafeWriter(stdout or sys.stdout))
    store = TrustStore(home)
    if args.list:
        spaces = store.workspaces()
        for ws, names in sorted(spaces.items()):
            out.write(f"{ws}: {', '.join(sorted(names))}\n")
        if not spaces:
            out.write("no workspace is trusted\n")
        return 0
    workspace = Path(args.workspace or os.getcwd()).resolve()
    if not workspace.is_dir():
        sys.stderr.write(f"harness trust: {workspace} is not a folder\n")
        return 2
    if args.revoke:
        gone = store.revoke(workspace)
        said = f"no longer trusted: {', '.join(gone)}" if gone else "nothing was trusted"
        out.write(f"{workspace}: {said}\n")
        return 0
    files = project_files(workspace)
    if not files:
        out.write(f"{workspace}: no project configuration that needs trust\n")
        return 0
    untrusted = {f.name for f in store.untrusted(workspace, files)}
    if args.yes:
        store.approve(workspace, files)
        for line in describe(files):
            out.write(line + "\n")
        out.write(f"trusted, as they are now: {', '.join(f.name for f in files)}\n")
        return 0
    for f in files:
        state = "not trusted" if f.name in untrusted else "trusted"
        out.write(f"{f.name} ({state}):\n")
        for line in f.lines:
            out.write(f"  {line}\n")
    if untrusted:
        out.write("To trust these as they are now: harness trust --yes\n")
    return 0
