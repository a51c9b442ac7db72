"""What the model is told when its call had to be mended to be read.

The model worker's lenient parser repairs a call only when one reading of it is
possible (a quote left unescaped, a tag left open, ``tool_name`` for ``name``). The
model should know: it learns to write the call properly, and it can check that the
one reading was the one it meant.
"""

from __future__ import annotations

__all__ = ["repair_note"]


def repair_note(repaired: str) -> str:
    """The line added to a repaired call's result."""
    return (
        f"\n\n(harness repaired this call's text to read it: {repaired}. Check the result is "
        "what you meant; next time write the call exactly as the format asks.)"
    )
