"""Make untrusted text safe for the terminal and for rich markup.

Every string that came from a model, a tool or a file goes through :func:`clean`
before it is printed: terminal control sequences (CSI, OSC, DCS, single-character
escapes, C0/C1 controls) are removed, so nothing the model writes can move the
cursor, clear the screen, retitle the window or set a hyperlink. Where a string
must sit inside rich markup, :func:`markup_safe` also escapes ``[``.
"""

from __future__ import annotations

import re

__all__ = ["clean", "clean_line", "markup_safe"]

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


def markup_safe(text: str) -> str:
    """*text* cleaned and escaped, ready to be put inside rich markup."""
    from rich.markup import escape  # the completer reads the commands before rich loads

    return escape(clean(text))
