"""Where hooks come from: the ``hooks`` object of the settings files, in Claude Code's format.

::

    {"hooks": {"PreToolUse": [{"matcher": "Bash",
                               "hooks": [{"type": "command", "command": "...",
                                          "timeout": 30, "onFailure": "block"}]}]}}

Sources, in the order their hooks are listed and run: ``$HARNESS_HOME/settings.json`` (the
user's, always counted), then the project's ``.harness/settings.json``,
``.harness/settings.local.json``, ``.claude/settings.json`` and
``.claude/settings.local.json``. A project file runs code, so it counts only when the user
trusted its exact content (:mod:`harness.trust`); an untrusted one is listed as ignored. A
file that cannot be used is a problem naming the file and the fault; the other sources
still load, and so do the good entries of a file with one bad entry.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from harness.errors import ConfigError
from harness.home import harness_home

__all__ = [
    "DEFAULT_TIMEOUT",
    "EVENTS",
    "PROJECT_SOURCES",
    "TOOL_EVENTS",
    "HookConfig",
    "HookConfigError",
    "HookHandler",
    "LoadedHooks",
    "load_hooks",
    "parse_hooks",
]

#: The events a hook can be registered for.
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "Notification",
    "SessionEnd",
)
#: The events whose matcher is a tool name (the others match a sub-kind, or everything).
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
#: Project files that hold hooks, relative to the workspace, in the order they load.
PROJECT_SOURCES = (
    ".harness/settings.json",
    ".harness/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
)
#: Seconds a handler may run unless it says otherwise (Claude Code's default).
DEFAULT_TIMEOUT = 60.0
_MAX_TIMEOUT = 3600.0
_MAX_BYTES = 1024 * 1024


class HookConfigError(ConfigError):
    """A settings file's ``hooks`` cannot be used; the message names the file and the fault."""


@attrs.frozen
class HookHandler:
    """One command to run for an event.

    Attributes:
        event: the event it is registered for.
        matcher: the matcher of its group as written (``""`` matches everything).
        command: the shell command, run with ``/bin/sh -c``.
        timeout: seconds before it is killed with its whole process tree.
        on_failure: ``"ignore"`` (a crash or timeout is reported and the step goes on, as
            in Claude Code) or ``"block"`` (it counts as a blocking decision: fails closed).
        source: the file it came from (``~/.harness/settings.json``, ``.claude/settings.json``).
    """

    event: str
    matcher: str
    command: str
    timeout: float = DEFAULT_TIMEOUT
    on_failure: str = "ignore"
    source: str = ""

    @property
    def label(self) -> str:
        """A short name for lists and events: the command's first 60 characters."""
        text = " ".join(self.command.split())
        return text if len(text) <= 60 else text[:57] + "..."

    def matches(self, names: Iterable[str]) -> bool:
        """Whether the matcher takes any of *names* (a tool's Claude and harness names, or
        an event's sub-kind). ``""`` and ``"*"`` take everything; otherwise the matcher is a
        regular expression that must match a whole name (``Edit|Write``, ``mcp__.*``)."""
        if self.matcher in ("", "*"):
            return True
        pattern = _compiled(self.matcher)
        return any(pattern.fullmatch(name) for name in names if name)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(matcher: str) -> re.Pattern[str]:
    pattern = _PATTERNS.get(matcher)
    if pattern is None:
        pattern = _PATTERNS[matcher] = re.compile(matcher)
    return pattern


@attrs.frozen
class HookConfig:
    """Every active handler, in load order."""

    handlers: tuple[HookHandler, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.handlers)

    def for_event(self, event: str, names: Iterable[str] = ()) -> list[HookHandler]:
        """The handlers of *event* whose matcher takes one of *names*; a handler whose
        command is listed twice (two files copied from one another) runs once."""
        names = tuple(names)
        out: list[HookHandler] = []
        seen: set[str] = set()
        for handler in self.handlers:
            if handler.event != event or handler.command in seen:
                continue
            if (event in TOOL_EVENTS or names) and not handler.matches(names):
                continue
            seen.add(handler.command)
            out.append(handler)
        return out


@attrs.frozen
class LoadedHooks:
    """What :func:`load_hooks` found.

    Attributes:
        config: the active handlers.
        problems: one line per fault, naming the file (the rest still loaded).
        ignored: project files with hooks that were not used because the workspace's
            trust does not cover them as they are now.
    """

    config: HookConfig
    problems: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()


def parse_hooks(data: Any, source: str) -> tuple[list[HookHandler], list[str]]:
    """The handlers of a parsed settings file's ``hooks`` object, and one problem line for
    each entry that cannot be used (the others are kept)."""
    if not isinstance(data, dict):
        return [], [f"{source}: not a JSON object"]
    hooks = data.get("hooks")
    if hooks is None:
        return [], []
    if not isinstance(hooks, dict):
        return [], [f"{source}: 'hooks' must be an object of event names"]
    out: list[HookHandler] = []
    problems: list[str] = []
    for event, groups in hooks.items():
        where = f"{source}: hooks.{event}"
        if event not in EVENTS:
            problems.append(f"{where}: unknown event (known: {', '.join(EVENTS)})")
            continue
        if not isinstance(groups, list):
            problems.append(f"{where}: must be a list of matcher groups")
            continue
        for i, group in enumerate(groups):
            try:
                out.extend(_group(event, group, source))
            except HookConfigError as exc:
                problems.append(f"{where}[{i}]: {exc}")
    return out, problems


def _group(event: str, group: Any, source: str) -> list[HookHandler]:
    if not isinstance(group, dict):
        raise HookConfigError("must be an object with 'hooks' (and 'matcher')")
    matcher = group.get("matcher", "")
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str):
        raise HookConfigError("'matcher' must be a string")
    if matcher not in ("", "*"):
        try:
            _compiled(matcher)
        except re.error as exc:
            raise HookConfigError(
                f"matcher {matcher!r} is not a regular expression: {exc}"
            ) from None
    handlers = group.get("hooks")
    if not isinstance(handlers, list):
        raise HookConfigError("'hooks' must be a list of handlers")
    out = []
    for j, entry in enumerate(handlers):
        try:
            out.append(_handler(event, matcher, entry, source))
        except HookConfigError as exc:
            raise HookConfigError(f"hooks[{j}]: {exc}") from None
    return out


def _handler(event: str, matcher: str, entry: Any, source: str) -> HookHandler:
    if not isinstance(entry, dict):
        raise HookConfigError("must be an object {type, command, timeout}")
    kind = entry.get("type", "command")
    if kind != "command":
        raise HookConfigError(f"type {kind!r} is not supported (only 'command')")
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        raise HookConfigError("'command' must be a non-empty string")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise HookConfigError("'timeout' must be a number of seconds")
    if not 0 < timeout <= _MAX_TIMEOUT:
        raise HookConfigError(f"'timeout' must be above 0 and at most {_MAX_TIMEOUT:g} seconds")
    on_failure = entry.get("onFailure", "ignore")
    if on_failure not in ("ignore", "block"):
        raise HookConfigError("'onFailure' must be 'ignore' or 'block'")
    return HookHandler(event, matcher, command, float(timeout), on_failure, source)


def _read(path: Path, source: str) -> tuple[bytes | None, str | None]:
    """The bytes of *path* (``None`` when it is missing), or a problem line."""
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_BYTES + 1)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:
        return None, f"{source}: cannot be read ({exc.strerror})"
    if len(data) > _MAX_BYTES:
        return None, f"{source}: larger than 1 MiB, not read"
    return data, None


def _parse(data: bytes, source: str) -> tuple[list[HookHandler], list[str]]:
    if not data.strip():
        return [], []
    try:
        parsed = json.loads(data)
    except ValueError as exc:
        return [], [f"{source}: not valid JSON ({exc})"]
    return parse_hooks(parsed, source)


def load_hooks(
    workspace: str | os.PathLike[str] | None,
    *,
    home: str | os.PathLike[str] | None = None,
    trusts: Callable[[str, bytes], bool] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> LoadedHooks:
    """Read every source of hooks.

    Args:
        workspace: the project folder (``None``: only the user's file).
        home: ``HARNESS_HOME`` (default: :func:`harness.home.harness_home`).
        trusts: whether the project file *name* holding *data* may act; ``None`` trusts
            no project file.
        extra: a parsed settings object given by an embedder (source ``api``), loaded last.
    """
    home_dir = Path(home) if home is not None else harness_home()
    handlers: list[HookHandler] = []
    problems: list[str] = []
    ignored: list[str] = []
    user_source = str(home_dir / "settings.json")
    data, problem = _read(home_dir / "settings.json", user_source)
    if problem:
        problems.append(problem)
    if data is not None:
        found, bad = _parse(data, user_source)
        handlers += found
        problems += bad
    if workspace is not None:
        root = Path(workspace)
        for name in PROJECT_SOURCES:
            data, problem = _read(root / name, name)
            if problem:
                problems.append(problem)
            if data is None:
                continue
            found, bad = _parse(data, name)
            if not (found or bad):
                continue  # nothing about hooks in it: nothing to trust
            if trusts is None or not trusts(name, data):
                ignored.append(name)
                continue
            handlers += found
            problems += bad
    if extra is not None:
        found, bad = parse_hooks(extra, "api")
        handlers += found
        problems += bad
    return LoadedHooks(HookConfig(tuple(handlers)), tuple(problems), tuple(ignored))
