"""Noticing a reply that has started to repeat itself, so generation stops there.

A small model can write the same lines over and over to the output limit, minutes of
generation under load. A prose line of some length written for the fourth time is such a
loop. In a fenced block, where code repeats lines for good reasons, it is the eighth time.
Inside a tool call nothing is counted: a file body is the user's. A run of empty lines is a
loop anywhere. What was measured is in ``docs/models.md``.
"""

from __future__ import annotations

from collections import Counter

__all__ = ["LoopWatch"]

MIN_CHARS = 16
"""Shorter lines ("```", "}", "**Step**:") repeat in good replies."""

TIMES = 4
"""The same line this many times is a loop."""

TIMES_IN_CODE = 8
"""The same line this many times in a fenced block is a loop."""

BLANK_RUN = 12
"""Empty lines in a row that are a loop, in prose or code."""

_CALL_TAGS = ("<tool_call>", "<content>", "<old_content>", "<new_content>")


class LoopWatch:
    """Fed the reply piece by piece; says when a prose line comes for the :data:`TIMES`-th
    time."""

    def __init__(self) -> None:
        self._seen: Counter[str] = Counter()
        self._line = ""
        self._in_fence = False
        self._in_call = False
        self._blank = 0

    def looping(self, piece: str) -> bool:
        """Whether the lines *piece* completes make the reply a loop."""
        *done, self._line = (self._line + piece).split("\n")
        for line in done:
            text = line.strip()
            self._blank = 0 if text else self._blank + 1
            if self._blank >= BLANK_RUN:
                return True
            if text.startswith("```"):
                self._in_fence = not self._in_fence
                continue
            self._in_call = self._in_call or any(tag in text for tag in _CALL_TAGS)
            if self._in_call or len(text) < MIN_CHARS:
                continue
            self._seen[text] += 1
            if self._seen[text] >= (TIMES_IN_CODE if self._in_fence else TIMES):
                return True
        return False
