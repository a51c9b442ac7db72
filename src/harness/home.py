"""Where harness keeps its state: ``HARNESS_HOME``, the one owner of that word.

Providers (0600), permissions, memory, skills, preferences, undo journals, MCP sign-in
tokens and the sessions of every workspace live under it; nothing personal is written into a
workspace. Every process asks here, with the environment it was given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["harness_home", "mcp_auth_dir"]


def harness_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$HARNESS_HOME`` from *environ* (default: ``os.environ``), else ``~/.harness``.

    A leading ``~`` is expanded, so a value written in a shell profile as
    ``~/state`` means the same thing in every process.
    """
    env = os.environ if environ is None else environ
    value = env.get("HARNESS_HOME")
    return Path(value).expanduser() if value else Path.home() / ".harness"


def mcp_auth_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where MCP servers' sign-in tokens are kept (a 0700 folder of 0600 files, one per
    server URL): ``mcp-auth`` under :func:`harness_home`."""
    return harness_home(environ) / "mcp-auth"
