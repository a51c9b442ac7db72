"""Hooks: commands the user configures around every step of a session, in Claude Code's format.

A ``hooks`` object in ``$HARNESS_HOME/settings.json``, ``.harness/settings*.json`` or a
project's ``.claude/settings*.json`` names, for each event (:data:`EVENTS`), matcher groups
of command handlers. Each handler runs as a child process in a session of its own, reads a
JSON payload on stdin, and decides by its exit status and stdout (:mod:`harness.hooks._verdict`);
a hung one is killed with its whole tree at its timeout. Project files count only once the
workspace is trusted (:mod:`harness.trust`).

::

    loaded = load_hooks(workspace, trusts=trust.trusts)
    hooks = Hooks(loaded.config, cwd=workspace, session_id=sid)
    verdict = await hooks.fire("PreToolUse", tool="run_cmd", arguments={"command": "ls"})
    if verdict.blocked: ...

Reading the configuration loads with the package; running hooks (and ``harness hooks``)
loads on first use of those names, so a session with no hooks pays for reading alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness._lazy import lazy_names as _lazy_names
from harness.hooks._claude import claude_tool, harness_arguments, tool_names
from harness.hooks._config import (
    DEFAULT_TIMEOUT,
    EVENTS,
    PROJECT_SOURCES,
    TOOL_EVENTS,
    HookConfig,
    HookConfigError,
    HookHandler,
    LoadedHooks,
    load_hooks,
    parse_hooks,
)

if TYPE_CHECKING:
    from harness.hooks._command import build_hooks_parser, describe_hooks, hooks_main, load_for
    from harness.hooks._hooks import NO_HOOKS, HookListener, Hooks
    from harness.hooks._run import HandlerRun, run_command
    from harness.hooks._verdict import NOTHING, HookOutcome, Verdict, combine, interpret

__all__ = [
    "DEFAULT_TIMEOUT",
    "EVENTS",
    "NOTHING",
    "NO_HOOKS",
    "PROJECT_SOURCES",
    "TOOL_EVENTS",
    "HandlerRun",
    "HookConfig",
    "HookConfigError",
    "HookHandler",
    "HookListener",
    "HookOutcome",
    "Hooks",
    "LoadedHooks",
    "Verdict",
    "build_hooks_parser",
    "claude_tool",
    "combine",
    "describe_hooks",
    "harness_arguments",
    "hooks_main",
    "interpret",
    "load_for",
    "load_hooks",
    "parse_hooks",
    "run_command",
    "tool_names",
]

_LAZY = {
    **dict.fromkeys(
        ("build_hooks_parser", "describe_hooks", "hooks_main", "load_for"), "harness.hooks._command"
    ),
    **dict.fromkeys(("NO_HOOKS", "HookListener", "Hooks"), "harness.hooks._hooks"),
    **dict.fromkeys(("HandlerRun", "run_command"), "harness.hooks._run"),
    **dict.fromkeys(
        ("NOTHING", "HookOutcome", "Verdict", "combine", "interpret"), "harness.hooks._verdict"
    ),
}


__getattr__ = _lazy_names(__name__, _LAZY)
