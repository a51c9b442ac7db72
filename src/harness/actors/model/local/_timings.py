"""Where a reply's seconds go, written down for measuring (``HARNESS_LOCAL_TIMINGS``).

Each generation appends one JSON line to the file the variable names: which reply of the
worker it belongs to and its place in it (0: the reply, 1: the nudged generation after
it), the seconds spent waiting for the model to load, the prompt's tokens (all of them,
and those not read again), the seconds reading the rest, the tokens written and the
seconds writing them. ``python -m bench local`` reads it to split a task's time.
"""

from __future__ import annotations

import json
from typing import Protocol

__all__ = ["Timings"]


class _Generation(Protocol):
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    read_seconds: float
    write_seconds: float
    finish_reason: str


class Timings:
    """The timings file of one provider ("" for none: nothing is written)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._reply = 0
        self._step = 0

    def reply(self) -> None:
        """A new reply starts: its generations count from 0."""
        self._reply += 1
        self._step = 0

    def generation(self, result: _Generation, waited: float, *, lazy: bool) -> None:
        """Append one generation's line (*waited*: seconds the model took to load first;
        *lazy*: its grammar waited for a call, else it bound the reply)."""
        if not self.path:
            return
        line = {
            "reply": self._reply,
            "step": self._step,
            "bound": not lazy,
            "load_s": round(waited, 3),
            "prompt_tokens": result.prompt_tokens,
            "cached_tokens": result.cached_tokens,
            "read_s": round(result.read_seconds, 3),
            "completion_tokens": result.completion_tokens,
            "write_s": round(result.write_seconds, 3),
            "finish": result.finish_reason,
        }
        self._step += 1
        try:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(line) + "\n")
        except OSError:
            self.path = ""  # measuring must never break a reply
