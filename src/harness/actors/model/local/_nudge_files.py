"""Nudge rule finish-files: a change the prompt asks for in several files, made in some.

"Change it in pricing.py and in settings.toml": a small model edits one file, reads the
"edited" of its tool as the task done, and says so. The rule reads the files the prompt
lists together as the places of the change (joined by "and" or commas), and asks for the
next one no call has changed: its read first when the model has not seen it, else its
edit. A file the prompt names alone ("as b.py does") is no place of the change."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import Nudge
from harness.actors.model.local._nudge_changes import asks_change
from harness.actors.model.local._turn import Turn

__all__ = ["FinishFiles", "listed_files"]

_FILE = r"`?[\w./-]*[A-Za-z_][\w-]*\.[A-Za-z]\w*`?"
# two or more files in a row: "a.py and b.toml", "in a.py, in b.js and in c.json"
_LIST = re.compile(
    rf"{_FILE}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?:(?:in|to)\s+)?(?:the\s+)?{_FILE})+"
)
_ONE = re.compile(_FILE)


def listed_files(prompt: str) -> list[str]:
    """The files *prompt* lists together (two or more joined by "and" or commas), in
    order, without backticks or a leading ``./``."""
    found: list[str] = []
    for run in _LIST.finditer(prompt):
        for name in _ONE.findall(run.group(0)):
            path = name.strip("`").removeprefix("./").rstrip(".")
            if path not in found:
                found.append(path)
    return found


def _same(path: str, named: str) -> bool:
    path = path.removeprefix("./")
    return path == named or path.endswith("/" + named) or named.endswith("/" + path)


class FinishFiles:
    """In a task asking for a change in files the prompt lists together ("in pricing.py
    and in settings.toml"), a reply ending the turn after a call changed one of them while
    another is still unchanged: asks for that one (its read first, when no call showed
    it). Measured (bench local-tasks, the fresh set's tax-rate-both, half A): the rate
    changed in settings.toml, then "The tax rate in settings.toml was changed from 0.2 to
    0.23." and the end, pricing.py untouched."""

    name: ClassVar[str] = "finish-files"

    def check(self, turn: Turn) -> Nudge | None:
        if not asks_change(turn) or not turn.edited:
            return None
        listed = listed_files(turn.prompt)
        changed = [s.path for s in turn.steps if s.wrote and s.path]
        if not any(_same(p, named) for p in changed for named in listed):
            return None
        left = [n for n in listed if not any(_same(p, n) for p in changed)]
        if not left:
            return None
        path = left[0]
        done = ", ".join(n for n in listed if n not in left)
        seen = any(s.shown_lines and s.path and _same(s.path, path) for s in turn.steps)
        tool = "edit_file" if seen else "read_file"
        if tool not in turn.tools:
            return None
        then = "then <old_content> and <new_content>" if seen else "and nothing after it"
        return Nudge(
            f"You changed {done}, but the task asks for the change in {path} too, and "
            f"{path} is not changed yet. "
            + ("Make the change there now" if seen else f"Read {path} first")
            + f": call {tool} on {path}. Write the <tool_call> block "
            f'({{"name": "{tool}", "arguments": {{"path": "{path}"}}}} {then}) and nothing '
            "else.",
            tool,
        )
