"""The histories the model worker keeps, so a conversation sends only what is new.

A conversation names its history with a :class:`~harness.messages.model.HistoryRef`.
A full request (``base`` is ``None``) replaces what is kept under its key (its
messages, system prompt and tools); a delta request (``base`` set) extends the
messages and takes the system prompt and tools kept, but only when the worker holds
exactly ``base`` messages of the same generation. Anything else (a restarted worker, an evicted
key, a delta that raced a resend) is refused, and the conversation sends in full.
Check and extend happen with no await between them, so two requests can never
interleave on one history.
"""

from __future__ import annotations

from collections import OrderedDict

import attrs

from harness.messages.model import ChatMessage, ChatRequest, HistoryUnknown, ToolSchema

__all__ = ["HistoryStore"]


@attrs.define
class _Kept:
    generation: int
    messages: list[ChatMessage]
    system: str
    # the very same tuple every round, so what renders it may cache by identity
    tools: tuple[ToolSchema, ...]


class HistoryStore:
    """Histories by conversation key, the least recently used dropped first.

    Args:
        capacity: how many conversations are kept (a session and its sub-agents).
    """

    def __init__(self, capacity: int = 8) -> None:
        self.capacity = capacity
        self._kept: OrderedDict[str, _Kept] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def resolve(self, req: ChatRequest) -> ChatRequest | HistoryUnknown:
        """*req* with its whole history in ``messages``, or the answer to give
        when it names a base this worker does not hold."""
        ref = req.history
        if ref is None:
            return req
        if ref.base is None:
            self._keep(ref.key, _Kept(ref.generation, list(req.messages), req.system, req.tools))
            return req
        kept = self._kept.get(ref.key)
        if kept is None:
            return HistoryUnknown(
                key=ref.key, reason="this model worker holds no history for the conversation"
            )
        messages = kept.messages
        if kept.generation != ref.generation or len(messages) != ref.base:
            del self._kept[ref.key]
            return HistoryUnknown(
                key=ref.key,
                reason=f"this model worker holds {len(messages)} messages of generation "
                f"{kept.generation}, not {ref.base} of generation {ref.generation}",
            )
        messages.extend(req.messages)
        self._kept.move_to_end(ref.key)
        return attrs.evolve(req, messages=tuple(messages), system=kept.system, tools=kept.tools)

    def _keep(self, key: str, kept: _Kept) -> None:
        self._kept[key] = kept
        self._kept.move_to_end(key)
        while len(self._kept) > self.capacity:
            self._kept.popitem(last=False)
