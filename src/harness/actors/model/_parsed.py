"""What reading a text-protocol reply gives: its prose and its calls.

Every way of finding calls in a reply builds these the same way: the repairs made to a call
noted in one line, the prose left around the calls tidied. The readers live apart from the
entry point that picks among them (:func:`._toolparse.parse_reply`), so the types they share
live here, below all of them.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

__all__ = ["ParsedCall", "ParsedReply", "join_repairs", "tidy"]


@attrs.frozen
class ParsedCall:
    """One call read from text. ``arguments`` is ``None`` when they could not be read,
    and ``parse_error`` says why; ``repaired`` names what the repair engine fixed."""

    name: str
    arguments: dict[str, Any] | None
    parse_error: str | None = None
    repaired: str | None = None


@attrs.frozen
class ParsedReply:
    """A reply split into the text a person reads and the calls it makes."""

    text: str
    calls: tuple[ParsedCall, ...] = ()


def join_repairs(repairs: list[str]) -> str | None:
    """*repairs* as a call's ``repaired`` note (``None`` when nothing was repaired)."""
    return "; ".join(repairs) if repairs else None


def tidy(text: str) -> str:
    """The prose left around the calls taken out: no run of blank lines, no blank ends."""
    return re.sub(r"\n{3,}", "\n\n", text).strip()
