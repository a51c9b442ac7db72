"""Make untrusted text safe for the terminal and for rich markup.

Every string that came from a model, a tool or a file goes through :func:`clean`
before it is printed: terminal control sequences (CSI, OSC, DCS, single-character
escapes, C0/C1 controls) are removed, so nothing the model writes can move the
cursor, clear the screen, retitle the window or set a hyperlink. Where a string
must sit inside rich markup, :func:`markup_safe` also escapes ``[``.
"""

from __future__ import annotations

from harness.terminal import clean, clean_line

__all__ = ["clean", "clean_line", "markup_safe"]


def markup_safe(text: str) -> str:
    """*text* cleaned and escaped, ready to be put inside rich markup."""
    from rich.markup import escape  # the completer reads the commands before rich loads

    return escape(clean(text))
