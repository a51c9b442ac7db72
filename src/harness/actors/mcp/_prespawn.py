"""Starting a stdio server's process, before the SDK is imported the first time.

The SDK takes about a second to import; a stdio server (node, a Python interpreter) takes
about as long to start. The bridge starts its server's process first thing, with exactly
what the SDK's ``stdio_client`` would give it, and hands it to the first connection
(``_bridge``); every later (re)start spawns it here too, so the bridge holds the process
(and can kill a stuck one at once).

This module imports nothing of the SDK.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import IO

from harness.actors.mcp._config import McpServerConfig

__all__ = ["SDK_INHERITED_ENV", "server_env", "spawn_early"]

SDK_INHERITED_ENV = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
"""What the SDK's ``stdio_client`` passes on from the bridge's environment (POSIX), kept in
step with ``mcp.client.stdio.DEFAULT_INHERITED_ENV_VARS`` (a test compares them)."""


def server_env(config: McpServerConfig, extra: dict[str, str]) -> dict[str, str]:
    """A stdio server's environment: the SDK's defaults, *extra*, then the entry's ``env``."""
    env = {k: v for k in SDK_INHERITED_ENV if (v := os.environ.get(k)) and not v.startswith("()")}
    return {**env, **extra, **config.env}


def server_cwd(config: McpServerConfig, workspace: str) -> str:
    """A stdio server's folder: its ``cwd`` resolved against the workspace."""
    return str(Path(workspace, config.cwd) if config.cwd else Path(workspace))


def spawn_early(
    config: McpServerConfig, *, workspace: str, extra_env: dict[str, str], stderr: IO[str]
) -> subprocess.Popen[bytes] | None:
    """Start *config*'s stdio server now (``None`` for other transports).

    Raises:
        OSError, ValueError: the process cannot start (no such command, a bad folder):
            the server is down at once, with this reason.
    """
    if config.transport != "stdio":
        return None
    return subprocess.Popen(
        [config.command, *config.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=server_env(config, extra_env),
        cwd=server_cwd(config, workspace),
        start_new_session=True,
    )
