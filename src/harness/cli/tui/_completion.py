"""Completion for the prompt: slash commands, their arguments, and ``@file`` paths."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from harness.cli.tui._commands import CommandSet

__all__ = ["HarnessCompleter", "file_candidates"]

_SKIP_DIRS = {
    ".git",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".tox",
}
_MAX_FILES = 200


def file_candidates(workspace: Path, partial: str) -> list[str]:
    """Workspace paths completing *partial* (relative, ``/`` after folders).

    Completes one path segment at a time, like a shell; hidden entries show only
    when the segment starts with a dot. Never leaves the workspace.
    """
    head, _, stem = partial.rpartition("/")
    base = (workspace / head).resolve() if head else workspace.resolve()
    root = workspace.resolve()
    if not base.is_relative_to(root) or not base.is_dir():
        return []
    out: list[str] = []
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        name = entry.name
        if not name.startswith(stem) or (name.startswith(".") and not stem.startswith(".")):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        if is_dir and name in _SKIP_DIRS:
            continue
        out.append((f"{head}/" if head else "") + name + ("/" if is_dir else ""))
        if len(out) >= _MAX_FILES:
            break
    return out


class HarnessCompleter(Completer):
    """Completes ``/command``, its first argument, and ``@path`` anywhere in the line.

    Args:
        workspace: the folder ``@`` paths are relative to.
        commands: the slash commands (their names, help and what each argument
            completes to).
        sources: dynamic argument lists by name (``"@models"`` -> a function
            returning model names); a source that raises completes nothing.
    """

    def __init__(
        self,
        workspace: Path,
        commands: CommandSet,
        sources: Mapping[str, Callable[[], Iterable[str]]] | None = None,
    ) -> None:
        self.workspace = workspace
        self.commands = commands
        self.sources = dict(sources or {})
        self.sources.setdefault("@commands", lambda: [c.name for c in commands])

    def _words(self, spec: str) -> list[str]:
        if not spec.startswith("@"):
            return [spec]
        fn = self.sources.get(spec)
        if fn is None:
            return []
        try:
            return [str(w) for w in fn()]
        except Exception:  # a completion source must never break typing
            return []

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        word = text.split(" ")[-1] if text else ""
        if word.startswith("@"):
            partial = word[1:]
            for cand in file_candidates(self.workspace, partial):
                yield Completion("@" + cand, start_position=-len(word), display=cand)
            return
        if not text.startswith("/") or "\n" in text:
            return
        if " " not in text:
            for name in self.commands.names():
                if name.startswith(text[1:].lower()):
                    cmd = self.commands.lookup(name)
                    # the menu shows what the arguments are (a file command's
                    # argument-hint) beside the name; choosing it inserts the name alone
                    yield Completion(
                        "/" + name,
                        start_position=-len(text),
                        display=f"/{name} {cmd.usage}".rstrip() if cmd else "/" + name,
                        display_meta=cmd.help if cmd else "",
                    )
            return
        name, rest = text[1:].split(" ", 1)
        cmd = self.commands.lookup(name)
        if cmd is None:
            return
        parts = rest.split(" ")
        if len(parts) > len(cmd.complete):
            return
        words = [w for spec in cmd.complete[len(parts) - 1] for w in self._words(spec)]
        current = parts[-1]
        seen: set[str] = set()
        for w in words:
            if w.lower().startswith(current.lower()) and w not in seen:
                seen.add(w)
                shown = f'"{w}"' if " " in w else w
                yield Completion(shown, start_position=-len(current))
