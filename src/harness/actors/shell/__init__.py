"""The shell worker: a pool of live commands under ptys that can never hang harness.

Tools it answers (schemas in :mod:`harness.actors.tools`): ``run_cmd``, ``send_input``,
``end_process``. The worker is ``python -m harness.actors.shell``; its settings travel
as ``HARNESS_SHELL_*`` variables (:class:`ShellConfig`, :meth:`ShellConfig.to_env`).

This module stays light (other processes import it for :class:`ShellConfig` and
:func:`sandbox_problem`); the pool and the pty code load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.actors.shell._config import DETECTORS, SANDBOX_MODES, ShellConfig
from harness.actors.shell._env import command_env, is_secret_name
from harness.actors.shell._sandbox import sandbox_problem

if TYPE_CHECKING:
    from harness.actors.shell._pool import SessionPool
    from harness.actors.shell._service import ShellService

__all__ = [
    "DETECTORS",
    "SANDBOX_MODES",
    "TOOL_NAMES",
    "SessionPool",
    "ShellConfig",
    "ShellService",
    "command_env",
    "is_secret_name",
    "sandbox_problem",
]

TOOL_NAMES = ("run_cmd", "send_input", "end_process")

_LAZY = {
    "SessionPool": "harness.actors.shell._pool",
    "ShellService": "harness.actors.shell._service",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'harness.actors.shell' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
