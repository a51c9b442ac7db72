"""What an MCP server says, made into text a model and a terminal can take.

Every string a server sends back (tool results, resources, prompts, its stderr) goes
through :func:`clean_text`: terminal escape sequences and control characters are dropped
(newlines and tabs stay), and long text keeps its head and tail with the cut counted, as
a command's output does in the shell worker.
"""

from __future__ import annotations

import re
from collections import deque

__all__ = ["OUTPUT_CAP", "StderrTail", "cap_text", "clean_text"]

OUTPUT_CAP = 30_000
"""Characters of one result the model is given (head and tail kept)."""

_SEQUENCE = re.compile(
    r"""
    \x1b\[ [0-?]* [\ -/]* [@-~]
  | \x9b [0-?]* [\ -/]* [@-~]
  | \x1b\] [^\x07\x1b]* (?:\x07|\x1b\\)?
  | \x1b[PX^_] .*? (?:\x1b\\|$)
  | \x1b [\ -/]* [0-~]?
    """,
    re.VERBOSE | re.DOTALL,
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str) -> str:
    """*text* without escape sequences or control characters (``\\n`` and ``\\t`` kept)."""
    text = text.replace("\r\n", "\n")
    return _CONTROL.sub("", _SEQUENCE.sub("", text))


def cap_text(text: str, cap: int = OUTPUT_CAP) -> str:
    """*text* cut to about *cap* characters: the head, a note of what was cut, the tail."""
    if len(text) <= cap:
        return text
    head, tail = text[: cap * 2 // 3], text[-(cap // 3) :]
    cut = len(text) - len(head) - len(tail)
    return f"{head}\n[... {cut} characters cut ...]\n{tail}"


class StderrTail:
    """The last lines a server wrote to stderr (and the bridge's own notes), cleaned."""

    def __init__(self, lines: int = 20, chars: int = 2000) -> None:
        self._lines: deque[str] = deque(maxlen=lines)
        self._chars = chars
        self._partial = ""

    def feed(self, data: bytes) -> None:
        """Add raw bytes from the pipe."""
        text = self._partial + data.decode("utf-8", "replace")
        *done, self._partial = text.split("\n")
        for line in done:
            self.note(line)

    def note(self, line: str) -> None:
        """Add one line."""
        line = clean_text(line).rstrip()
        if line:
            self._lines.append(line[: self._chars])

    def text(self) -> str:
        """The tail, at most the last *chars* characters."""
        out = "\n".join([*self._lines, *([self._partial] if self._partial.strip() else [])])
        return out[-self._chars :]
