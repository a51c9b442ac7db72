"""From the parsed command line (and the environment) to :class:`SessionOptions`.

Headless mode and the terminal both open their sessions from here; the terminal
adds what it settled itself (the provider and model, a session to resume).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from harness.conversation import SessionOptions

__all__ = ["session_options"]

# flags whose value goes to the session as it is, when given
_FLAGS = (
    "api_key",
    "base_url",
    "tool_protocol",
    "permission_mode",
    "max_turns",
    "verify",
    "resume",
    "temperature",
    "seed",
    "sandbox",
    "deepthink",
)


def session_options(
    args: argparse.Namespace, environ: Mapping[str, str], **choices: Any
) -> SessionOptions:
    """The session the command line asks for; *choices* (fields of
    :class:`SessionOptions`) override it.

    ``HARNESS_WORKERS`` (a JSON object of worker name -> module) replaces worker
    modules, for running against other worker builds.

    Raises:
        ValueError: a bad value (the message says which).
    """
    kw: dict[str, Any] = {"environ": dict(environ)}
    if getattr(args, "workspace", None):
        kw["workspace"] = args.workspace
    if getattr(args, "provider", None):
        kw["provider"] = args.provider
    model = getattr(args, "model", None)
    if model:
        given = [model] if isinstance(model, str) else model
        kw["models"] = tuple(m.strip() for arg in given for m in arg.split(",") if m.strip())
    for name in _FLAGS:
        value = getattr(args, name, None)
        if value is not None:
            kw[name] = value
    kw["continue_latest"] = bool(getattr(args, "continue_", False))
    kw["allow"] = tuple(getattr(args, "allow", None) or ())
    kw["deny"] = tuple(getattr(args, "deny", None) or ())
    kw["mcp_config_files"] = tuple(getattr(args, "mcp_config", None) or ())
    workers = environ.get("HARNESS_WORKERS")
    if workers:
        try:
            table = json.loads(workers)
            kw["workers"] = {str(k): str(v) for k, v in table.items()}
        except (ValueError, AttributeError):
            raise ValueError("HARNESS_WORKERS must be a JSON object of name: module") from None
    kw.update(choices)
    return SessionOptions(**kw)
