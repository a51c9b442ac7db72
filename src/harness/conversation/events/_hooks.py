"""The events of hooks: each handler's start and what it decided.

Re-exported by :mod:`harness.conversation.events`.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from harness.conversation.events._base import ConversationEvent

__all__ = ["HookFinished", "HookStarted"]


@attrs.frozen(kw_only=True)
class HookStarted(ConversationEvent, tag="hook_started"):
    """A hook's command started for *event* (``PreToolUse`` ...).

    Attributes:
        event: the hook event.
        hook: the command (its first 60 characters).
        source: the settings file it came from.
        call_id: the tool call it is about (tool events), else ``""``.
    """

    event: str
    hook: str
    source: str = ""
    call_id: str = ""


@attrs.frozen(kw_only=True)
class HookFinished(ConversationEvent, tag="hook_finished"):
    """A hook's command ended, and what it decided.

    Attributes:
        event: the hook event.
        hook: the command (its first 60 characters).
        source: the settings file it came from.
        call_id: the tool call it is about (tool events), else ``""``.
        decision: ``allow``, ``deny``, ``ask``, ``block``, ``error`` (it failed and the
            step went on) or ``""`` (no decision).
        reason: the reason it gave (or its failure).
        ms: milliseconds it ran.
        exit_code: how it ended (``None``: killed at its timeout, or never started).
    """

    DURABLE: ClassVar[bool] = True

    event: str
    hook: str
    source: str = ""
    call_id: str = ""
    decision: str = ""
    reason: str = ""
    ms: float = 0.0
    exit_code: int | None = 0
