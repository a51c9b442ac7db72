"""The histories the model worker keeps, so a conversation sends only what is new.

A conversation names its history with a :class:`~harness.actors.protocol.model.HistoryRef`.
A full request (``base`` is ``None``) replaces what is kept under its key; a delta
request (``base`` set) extends it, but only when the worker holds exactly ``base``
messages of the same generation. Anything else (a restarted worker, an evicted
key, a delta that raced a resend) is refused, and the conversation sends in full.
Check and extend happen with no await between them, so two requests can never
interleave on one history.
"""

from __future__ import annotations

from collections import OrderedDict

import attrs

from harness.actors.protocol.model import ChatMessage, ChatRequest, HistoryUnknown

__all__ = ["HistoryStore"]


class HistoryStore:
    """Histories by conversation key, the least recently used dropped first.

    Args:
        capacity: how many conversations are kept (a session and its sub-agents).
    """

    def __init__(self, capacity: int = 8) -> None:
        self.capacity = capacity
        self._kept: OrderedDict[str, tuple[int, list[ChatMessage]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def resolve(self, req: ChatRequest) -> ChatRequest | HistoryUnknown:
        """*req* with its whole history in ``messages``, or the answer to give
        when it names a base this worker does not hold."""
        ref = req.history
        if ref is None:
            return req
        if ref.base is None:
            self._keep(ref.key, ref.generation, list(req.messages))
            return req
        kept = self._kept.get(ref.key)
        if kept is None:
            return HistoryUnknown(
                key=ref.key, reason="this model worker holds no history for the conversation"
            )
        generation, messages = kept
        if generation != ref.generation or len(messages) != ref.base:
            del self._kept[ref.key]
            return HistoryUnknown(
                key=ref.key,
                reason=f"this model worker holds {len(messages)} messages of generation "
                f"{generation}, not {ref.base} of generation {ref.generation}",
            )
        messages.extend(req.messages)
        self._kept.move_to_end(ref.key)
        return attrs.evolve(req, messages=tuple(messages))

    def _keep(self, key: str, generation: int, messages: list[ChatMessage]) -> None:
        self._kept[key] = (generation, messages)
        self._kept.move_to_end(key)
        while len(self._kept) > self.capacity:
            self._kept.popitem(last=False)
