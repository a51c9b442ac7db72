"""The last model rounds and tool calls of a session, measured from its events.

Kept in memory with a fixed bound (the newest :data:`KEEP` of each), never written:
what ``/diagnostics`` and :meth:`Session.diagnostics` show when a session feels slow.
A round is timed from its ``turn_started`` to its ``assistant_message``; its time to
first token is the first text or thinking delta; its size is the estimate of the
request when the round started, and its tokens what the provider reported; with
history retrieval on, ``history_recalled`` says which older turns it carried.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

import attrs

from harness.conversation import events as ev

__all__ = ["KEEP", "Diagnostics", "RoundStats", "ToolStats"]

#: how many rounds and how many tool calls are kept
KEEP = 20


@attrs.define
class RoundStats:
    """One model round: the model, the request's estimated size in tokens, the tokens
    reported (``None``: not reported), seconds to the first token and in all, and with
    history retrieval on, the older turns it carried (``"1, 6 (picked 1)"``, or
    ``"recent: 5, 6"`` when the embedding failed)."""

    turn: int
    model: str
    request_tokens: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    first_token: float | None = None
    duration: float | None = None
    recalled: str = ""


@attrs.define
class ToolStats:
    """One tool call: its name, whether it succeeded, seconds, and its output's size."""

    name: str
    ok: bool
    duration: float
    output_chars: int


class Diagnostics:
    """A listener for a session's events that keeps the newest rounds and tool calls.

    Args:
        request_size: the estimated tokens of the next request (asked as a round starts).
        clock: seconds, monotonic (injected for tests).
    """

    def __init__(
        self, request_size: Callable[[], int], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._size = request_size
        self._clock = clock
        self.rounds: deque[RoundStats] = deque(maxlen=KEEP)
        self.tools: deque[ToolStats] = deque(maxlen=KEEP)
        self._open: RoundStats | None = None
        self._started = 0.0

    def __call__(self, event: ev.ConversationEvent) -> None:
        """Take one event into account."""
        now = self._clock()
        current = self._open
        match event:
            case ev.TurnStarted():
                self._open = RoundStats(event.turn, event.model, self._size())
                self._started = now
                self.rounds.append(self._open)
            case ev.TextDelta() | ev.ThinkingDelta() if current and current.first_token is None:
                current.first_token = now - self._started
            case ev.UsageReported() if current is not None:
                current.prompt_tokens = event.prompt_tokens
                current.completion_tokens = event.completion_tokens
            case ev.AssistantMessage() if current is not None:
                current.duration = now - self._started
                current.model = event.model or current.model
                self._open = None
            case ev.HistoryRecalled() if current is not None:
                turns = ", ".join(map(str, event.turns)) or "none"
                if event.fallback:
                    current.recalled = f"recent: {turns}"
                else:
                    picked = ", ".join(map(str, event.picked))
                    current.recalled = turns + (f" (picked {picked})" if picked else "")
            case ev.ToolCallFinished():
                out = len(event.output)
                self.tools.append(ToolStats(event.name, event.ok, event.duration, out))
            case _:
                pass
