"""The base every conversation event shares (see :mod:`harness.conversation.events`)."""

from __future__ import annotations

import time
from typing import ClassVar

import attrs

from harness.ipc import Message

__all__ = ["ConversationEvent", "now"]


def now() -> float:
    """The wall-clock timestamp events carry (seconds since the epoch)."""
    return time.time()


@attrs.frozen(kw_only=True)
class ConversationEvent(Message):
    """Base of every conversation event.

    Attributes:
        session_id: the session the event belongs to.
        ts: wall-clock seconds since the epoch when it happened.
    """

    DURABLE: ClassVar[bool] = False

    session_id: str
    ts: float = attrs.field(factory=now)
