"""``harness mcp``: sign in to an MCP server that needs it, or out again.

::

    harness mcp login NAME [-C DIR] [--mcp-config FILE] [--no-browser] [--timeout S]
    harness mcp logout NAME [-C DIR] [--mcp-config FILE]

``NAME`` is found as a session finds its servers: ``$HARNESS_HOME/mcp.json``, the
workspace's ``.mcp.json`` (only once trusted, or with ``--trust-project``) and the
``--mcp-config`` files. ``login`` prints the authorization link (and opens it in a browser
when a display exists), waits for the browser to come back to a 127.0.0.1 port, and stores
the tokens, 0600, under ``$HARNESS_HOME`` by the server's URL. ``/mcp login NAME`` in the
terminal runs this command with the session's entry on stdin (``--entry-stdin``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import IO, cast

from harness.actors.mcp import (
    McpServerConfig,
    SignInFailed,
    TokenStore,
    load_mcp_config,
    login_server,
    logout_server,
    sign_in_problem,
)
from harness.terminal import SafeWriter
from harness.trust import TrustStore, WorkspaceTrust

__all__ = ["build_mcp_parser", "mcp_main"]


def build_mcp_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness mcp",
        description="Sign in to an MCP server that needs it (OAuth, in your browser), or out.",
    )
    sub = parser.add_subparsers(dest="action", required=True, metavar="login|logout")
    for action, what in (
        ("login", "sign in to server NAME and store its tokens"),
        ("logout", "forget the tokens stored for server NAME"),
    ):
        p = sub.add_parser(action, help=what, description=what)
        p.add_argument("name", metavar="NAME", help="the server's name in the configuration")
        p.add_argument("-C", "--workspace", metavar="DIR", help="default: the current folder")
        p.add_argument(
            "--mcp-config",
            metavar="FILE",
            action="append",
            default=[],
            help="an MCP configuration file beside .mcp.json and $HARNESS_HOME/mcp.json",
        )
        p.add_argument(
            "--trust-project",
            action="store_true",
            help="read this workspace's .mcp.json even if it is not trusted",
        )
        p.add_argument("--entry-stdin", action="store_true", help=argparse.SUPPRESS)
        if action == "login":
            p.add_argument(
                "--no-browser", action="store_true", help="print the link only; open no browser"
            )
            p.add_argument(
                "--timeout",
                type=float,
                default=300.0,
                metavar="S",
                help="seconds to wait for the sign-in (default 300)",
            )
    return parser


def _find(args: argparse.Namespace, err: IO[str]) -> McpServerConfig | None:
    if args.entry_stdin:
        # the entry a running session uses (it may hold secrets: never on the command line)
        try:
            return McpServerConfig.from_json_data(json.loads(sys.stdin.read()))
        except (ValueError, TypeError) as exc:
            err.write(f"harness mcp: the entry on stdin cannot be used: {exc}\n")
            return None
    workspace = Path(args.workspace or os.getcwd()).resolve()
    trust = WorkspaceTrust(workspace, TrustStore(), trust_all=args.trust_project)
    config = load_mcp_config(
        workspace, extra_files=args.mcp_config, trust_project=trust.for_file(".mcp.json")
    )
    for problem in config.problems:
        err.write(f"harness mcp: {problem}\n")
    found = config.servers.get(args.name)
    if found is None:
        names = ", ".join(sorted(config.servers)) or "none"
        hint = ""
        if any(f.name == ".mcp.json" for f in trust.untrusted()):
            hint = " (this workspace's .mcp.json is not trusted: see harness trust)"
        err.write(f"harness mcp: no MCP server is named {args.name!r}; configured: {names}{hint}\n")
    return found


def mcp_main(
    argv: list[str], *, stdout: IO[str] | None = None, stderr: IO[str] | None = None
) -> int:
    """Run ``harness mcp`` with *argv*; the exit status (0, 1 failed, 2 usage)."""
    args = build_mcp_parser().parse_args(argv)
    out = cast("IO[str]", SafeWriter(stdout or sys.stdout))
    err = cast("IO[str]", SafeWriter(stderr or sys.stderr))
    config = _find(args, err)
    if config is None:
        return 2
    store = TokenStore()
    if args.action == "logout":
        if logout_server(config, store):
            out.write(f"signed out of {config.name} ({config.url})\n")
        else:
            out.write(f"{config.name} ({config.url or config.where}) was not signed in\n")
        return 0
    problem = sign_in_problem(config)
    if problem:
        err.write(f"harness mcp: {problem}\n")
        return 2
    import trio

    def show(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    show(f"Signing in to {config.name} at {config.url}")
    try:
        done = trio.run(
            lambda: login_server(
                config,
                store,
                show=show,
                open_browser=not args.no_browser,
                timeout=args.timeout,
            )
        )
    except SignInFailed as exc:
        err.write(f"harness mcp: {exc}\n")
        return 1
    except KeyboardInterrupt:
        err.write("harness mcp: sign-in stopped; nothing changed\n")
        return 130
    show(done)
    return 0
