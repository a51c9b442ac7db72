"""The events of going back: a rewind to before a prompt, and the mark a fork leaves.

Re-exported by :mod:`harness.conversation.events`. Both are durable: the log is never
rewritten, so reading it applies them (:mod:`harness.conversation._history`).
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from harness.conversation.events._base import ConversationEvent

__all__ = ["Rewound", "SessionForked"]


@attrs.frozen(kw_only=True)
class Rewound(ConversationEvent, tag="rewound"):
    """The session went back to before its prompt *prompt* (1-based, counted in the
    conversation as it stood).

    Attributes:
        prompt: the prompt's number.
        conversation: whether the conversation went back (the events from that prompt
            on no longer count when the history is rebuilt).
        files: whether the files the AI changed since were restored.
        paths: the paths the rewind changed.
    """

    DURABLE: ClassVar[bool] = True

    prompt: int
    conversation: bool = True
    files: bool = True
    paths: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class SessionForked(ConversationEvent, tag="session_forked"):
    """This session began as a copy of session *parent* (the events before this one are
    the parent's, from before its prompt *prompt*, or all of them with ``prompt=0``).
    Its time is the fork's: the parent's file changes before it count for a rewind."""

    DURABLE: ClassVar[bool] = True

    parent: str
    prompt: int = 0
