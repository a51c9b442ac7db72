"""Text safe for a terminal: the one filter every byte harness prints passes.

Strings from a model, a tool, a file or a provider's error body may hold terminal
control sequences: ``ESC]0;…BEL`` retitles the window, ``ESC[2J`` clears it, OSC 8
plants a hyperlink, DCS talks to the terminal itself, and ``ESC[6n`` makes the
terminal *type* its answer into harness's stdin. :func:`clean` removes them all
(CSI, OSC, DCS, SOS, PM, APC, single-character escapes, C0 and C1 controls but tab
and newline). The interactive view uses it for everything it shows; headless text
output and every line on stderr go through :class:`SafeWriter`. JSON output needs
no filter: JSON escapes control characters, and the text stays exact.

A leaf: it imports nothing of harness.
"""

from __future__ import annotations

import re
from typing import IO

__all__ = ["SafeWriter", "clean", "clean_line"]

# Order matters: string-type sequences (OSC/DCS/SOS/PM/APC, terminated by BEL or ST)
# first, so their payload goes with them; then CSI; then two-byte escapes; then
# any control character left (C0 except tab/newline, DEL, C1).
_CONTROL = re.compile(
    r"""
      \x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)   # OSC, DCS, SOS, PM, APC
    | [\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c|$)   # their 8-bit forms
    | \x1b\[[0-?]*[ -/]*[@-~]?                            # CSI
    | \x9b[0-?]*[ -/]*[@-~]?                              # 8-bit CSI
    | \x1b[ -/]*[0-~]?                                    # other escapes (charset, RIS ...)
    | [\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]               # C0 (not \t \n \r), DEL, C1
    """,
    re.VERBOSE,
)
_CR = re.compile(r"\r\n?")


def clean(text: str) -> str:
    """*text* with every terminal control sequence removed.

    A carriage return becomes a newline (``\\r\\n`` one newline), so progress bars
    that redraw one line cannot overwrite what was printed before; tabs and
    newlines stay.
    """
    if not text:
        return text
    return _CONTROL.sub("", _CR.sub("\n", text))


def clean_line(text: str) -> str:
    """:func:`clean`, then newlines and tabs folded to spaces (for one-line labels)."""
    return " ".join(clean(text).split())


class SafeWriter:
    """A text stream that passes everything written to it through :func:`clean`.

    Text written in pieces is cleaned piece by piece: a sequence cut in two loses
    its escape character with the first piece, so what is left of it is plain text.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        """Write *text* cleaned; returns the length of *text* (as if all was written)."""
        self.stream.write(clean(text))
        return len(text)

    def flush(self) -> None:
        """Flush the stream underneath."""
        self.stream.flush()

    def isatty(self) -> bool:
        """Whether the stream underneath is a terminal."""
        return self.stream.isatty()
