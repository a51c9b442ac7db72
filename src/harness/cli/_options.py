"""From the parsed command line (and the environment) to :class:`SessionOptions`."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from typing import Any

from harness.conversation._session import SessionOptions

__all__ = ["session_options"]


def session_options(args: argparse.Namespace, environ: Mapping[str, str]) -> SessionOptions:
    """The session the command line asks for.

    ``HARNESS_WORKERS`` (a JSON object of worker name -> module) replaces worker
    modules, for running against other worker builds.

    Raises:
        ValueError: a bad value (the message says which).
    """
    kw: dict[str, Any] = {"environ": dict(environ)}
    if args.workspace:
        kw["workspace"] = args.workspace
    if args.provider:
        kw["provider"] = args.provider
    if args.model:
        kw["models"] = tuple(m.strip() for arg in args.model for m in arg.split(",") if m.strip())
    names = ("base_url", "tool_protocol", "permission_mode", "max_turns", "verify", "resume")
    for name in (*names, "temperature", "seed"):
        value = getattr(args, name, None)
        if value is not None:
            kw[name] = value
    kw["continue_latest"] = bool(args.continue_)
    kw["allow"] = tuple(args.allow or ())
    kw["deny"] = tuple(args.deny or ())
    if args.sandbox:
        kw["sandbox"] = args.sandbox
    workers = environ.get("HARNESS_WORKERS")
    if workers:
        try:
            table = json.loads(workers)
            kw["workers"] = {str(k): str(v) for k, v in table.items()}
        except (ValueError, AttributeError):
            raise ValueError("HARNESS_WORKERS must be a JSON object of name: module") from None
    return SessionOptions(**kw)
