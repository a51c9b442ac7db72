"""``harness acp``: serve an editor over the Agent Client Protocol on stdin/stdout.

It takes the same flags as ``harness`` (provider, model, permissions, MCP
configuration; see ``harness --help``) and the same environment, so a session an
editor opens is the session the terminal would open in that folder; the editor
gives the folder (``cwd``) and may add MCP servers of its own. ``-p`` and the
other headless-only flags have no meaning here.

The model is chosen as the terminal chooses it: the command line's ``--provider`` /
``--model``, else the provider and model ``/connect`` saved for the editor's folder,
else the environment (``HARNESS_PROVIDER``, ``HARNESS_MODEL``, ``OLLAMA_MODEL``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.cli._parser import build_parser

__all__ = ["acp_main"]


def _saved_choice(args: argparse.Namespace, environ: Mapping[str, str], cwd: str) -> dict[str, Any]:
    # the terminal's /connect choice for the folder, when the command line names no model
    if getattr(args, "provider", None) or getattr(args, "model", None):
        return {}
    from harness.cli.tui import saved_model
    from harness.home import harness_home

    saved = saved_model(harness_home(environ).expanduser(), Path(cwd).resolve())
    provider = saved.get("provider")
    if not isinstance(provider, str) or not provider:
        return {}
    choices: dict[str, Any] = {"provider": provider}
    if isinstance(saved.get("model"), str) and saved["model"]:
        choices["models"] = (saved["model"],)
    base_url = getattr(args, "base_url", None) or saved.get("base_url")
    if isinstance(base_url, str) and base_url:
        choices["base_url"] = base_url
    return choices


def acp_main(argv: list[str]) -> int:
    """Run ``harness acp`` with *argv* (after ``acp``); the exit status."""
    parser = build_parser()
    parser.prog = "harness acp"
    args = parser.parse_args(argv)
    if args.prompt is not None or args.output_format != "text" or args.verify:
        parser.error("harness acp takes no task: the editor sends the prompts")
    if args.resume or args.continue_:
        parser.error("harness acp resumes what the editor asks for (session/load)")
    from harness.acp import claim_stdout, serve
    from harness.cli._session_options import session_options

    claim_stdout()
    environ = dict(os.environ)
    try:
        session_options(args, environ)  # a bad setting is a usage error now, not per session
    except ValueError as exc:
        parser.error(str(exc))

    def options_for(cwd: str, mcp_servers: dict[str, Any], resume: str | None) -> Any:
        return session_options(
            args,
            environ,
            workspace=cwd,
            resume=resume,
            mcp_servers=mcp_servers or None,
            **_saved_choice(args, environ, cwd),
        )

    return serve(options_for, environ)
