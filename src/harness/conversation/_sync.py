"""Sending the history to the model worker as a delta.

The model worker keeps each conversation's history (see ``HistoryRef``), so a
request carries only the messages added since the last one: encoding and decoding
the whole history every round made a task's cost grow with the square of its
length. :class:`HistorySync` remembers what the worker was last sent and decides,
per request, between a delta and a full send:

- a delta when the worker said it holds what was sent last (``HistoryHeld``), the
  messages to send begin with exactly that (the same objects, or equal ones), and
  the system prompt and tools are those of the last full send (a delta carries
  neither: the worker keeps them with the history);
- a full send, under a new generation, after anything else: the first request, a
  compaction or a trim that rewrote earlier messages, a worker that answered
  ``HistoryUnknown`` (it restarted or forgot), or a stream that failed.

The worker checks the base it is asked to extend, so a wrong guess here costs one
resend, never a wrong history.
"""

from __future__ import annotations

import operator
import secrets
from collections.abc import Sequence

import attrs

from harness.messages.model import ChatMessage, ChatRequest, HistoryRef, ToolSchema

__all__ = ["HistorySync"]


class HistorySync:
    """What the model worker holds of one conversation's history.

    Attributes:
        key: the id the worker keeps this history under.
        full_sends, delta_sends, resends: counters (a resend is a full send after
            the worker answered ``HistoryUnknown``).
    """

    def __init__(self) -> None:
        self.key = secrets.token_hex(8)
        self._generation = 0
        self._sent: list[ChatMessage] = []
        self._system = ""
        self._tools: tuple[ToolSchema, ...] = ()
        self._held = False
        self.full_sends = 0
        self.delta_sends = 0
        self.resends = 0

    def prepare(self, request: ChatRequest) -> ChatRequest:
        """*request* (carrying the whole history) as the worker should get it: a
        delta when the worker holds a prefix of it, else in full under a new
        generation (deltas follow once :meth:`held` confirms it)."""
        messages = request.messages
        base = len(self._sent)
        if (
            self._held
            and base
            and len(messages) >= base
            and request.system == self._system
            and (request.tools is self._tools or request.tools == self._tools)
            and _same_prefix(messages, self._sent)
        ):
            self._sent.extend(messages[base:])
            self.delta_sends += 1
            return attrs.evolve(
                request,
                messages=tuple(messages[base:]),
                system="",
                tools=(),
                history=HistoryRef(self.key, self._generation, base),
            )
        self._generation += 1
        self._sent = list(messages)
        self._system, self._tools = request.system, request.tools
        self._held = False
        self.full_sends += 1
        return attrs.evolve(request, history=HistoryRef(self.key, self._generation))

    def held(self, generation: int, count: int) -> None:
        """The worker kept a full send (``HistoryHeld``); a worker that never says
        so (an older or a third-party one) gets every request in full."""
        if generation == self._generation and count == len(self._sent):
            self._held = True

    def forget(self, *, unknown: bool = False) -> None:
        """The worker may not hold what :meth:`prepare` assumed: send in full next.

        Args:
            unknown: the worker said so (``HistoryUnknown``); counted as a resend.
        """
        self._held = False
        self._sent = []
        if unknown:
            self.resends += 1


def _same_prefix(messages: Sequence[ChatMessage], sent: list[ChatMessage]) -> bool:
    # Mostly the very same objects (checked at C speed); a trimmed or rebuilt
    # message is a new one, and equality (all fields) decides then.
    if all(map(operator.is_, sent, messages)):
        return True
    return all(a is b or a == b for a, b in zip(messages, sent, strict=False))
