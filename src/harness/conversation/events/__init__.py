"""The typed events of a conversation: everything that happens, as it happens.

Every event is a frozen attrs class on :class:`harness.ipc.Message`, so the same
cattrs machinery (un)structures it: :func:`encode_event` gives a JSON-ready dict
whose ``type`` is the event's tag (``"turn_started"``, ``"text_delta"`` ...), and
:func:`decode_event` turns such a dict back into the class.

Each event carries ``session_id`` and ``ts`` (seconds since the epoch, wall clock)
and its own fields; all fields are keyword-only. Events whose class sets
``DURABLE = True`` are appended to the session's ``events.jsonl``; resume rebuilds
the history from ``user_message``, ``assistant_message``, ``tool_call_finished``
and ``compacted`` alone. The streaming deltas are not durable: the
``assistant_message`` that closes a model reply holds the whole text.

The order of one run::

    session_started
    user_message                       (the prompt; later ones come from the inbox/verify)
    turn_started                       (one per model request)
      history_recalled?                (with retrieval on: the older turns it carries)
      text_delta* thinking_delta* tool_call_writing* usage?
      assistant_message                (the whole reply, with its tool calls)
      tool_call_requested              (per call, in order)
        tool_call_approved | tool_call_denied
        tool_call_started
        tool_call_progress*            (an MCP server's progress notifications)
        tool_call_finished             (ok, output as the model sees it)
    turn_finished                      (why the round ended)
    ... worker_exited / worker_restarted / worker_gave_up at any time ...
    ... subagent_started, subagent_progress*, subagent_finished around a spawn_agent call ...
    ... hook_started, hook_finished around each hook a step fires (harness.hooks) ...
    ... rewound (between runs: /rewind, --rewind-to); session_forked (a fork's copied log) ...

With deepthink on, the run is five stages, each ``stage_started`` ... ``stage_finished``
around the turns above (a user message per stage).
    result                             (last: ok, final text, turns, usage)
"""

from __future__ import annotations

from typing import Any

from harness.conversation.events._base import ConversationEvent, now
from harness.conversation.events._hooks import HookFinished, HookStarted
from harness.conversation.events._rewind import Rewound, SessionForked
from harness.conversation.events._run import (
    Cancelled,
    Compacted,
    ErrorEvent,
    HistoryRecalled,
    Notice,
    Result,
    StageFinished,
    StageStarted,
    SubagentFinished,
    SubagentProgress,
    SubagentStarted,
    ToolCallProgress,
    VerifyFinished,
    VerifyStarted,
    WorkerExited,
    WorkerGaveUp,
    WorkerRestarted,
)
from harness.conversation.events._turn import (
    AssistantMessage,
    ModelProgress,
    SessionStarted,
    TextDelta,
    ThinkingDelta,
    TitleChanged,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallRequested,
    ToolCallStarted,
    ToolCallWriting,
    TurnFinished,
    TurnStarted,
    UsageReported,
    UserMessage,
)
from harness.ipc import Message, ProtocolError, decode_message, encode_message

__all__ = [
    "AssistantMessage",
    "Cancelled",
    "Compacted",
    "ConversationEvent",
    "ErrorEvent",
    "HistoryRecalled",
    "HookFinished",
    "HookStarted",
    "ModelProgress",
    "Notice",
    "Result",
    "Rewound",
    "SessionForked",
    "SessionStarted",
    "StageFinished",
    "StageStarted",
    "SubagentFinished",
    "SubagentProgress",
    "SubagentStarted",
    "TextDelta",
    "ThinkingDelta",
    "TitleChanged",
    "ToolCallApproved",
    "ToolCallDenied",
    "ToolCallFinished",
    "ToolCallProgress",
    "ToolCallRequested",
    "ToolCallStarted",
    "ToolCallWriting",
    "TurnFinished",
    "TurnStarted",
    "UsageReported",
    "UserMessage",
    "VerifyFinished",
    "VerifyStarted",
    "WorkerExited",
    "WorkerGaveUp",
    "WorkerRestarted",
    "decode_event",
    "encode_event",
    "event_types",
    "now",
]


_EVENT_CLASSES: tuple[type[ConversationEvent], ...] = (
    SessionStarted,
    TitleChanged,
    UserMessage,
    TurnStarted,
    TextDelta,
    ThinkingDelta,
    ToolCallWriting,
    ModelProgress,
    UsageReported,
    AssistantMessage,
    TurnFinished,
    ToolCallRequested,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallStarted,
    ToolCallProgress,
    ToolCallFinished,
    VerifyStarted,
    VerifyFinished,
    WorkerExited,
    WorkerRestarted,
    WorkerGaveUp,
    SubagentStarted,
    SubagentProgress,
    SubagentFinished,
    StageStarted,
    StageFinished,
    Compacted,
    HistoryRecalled,
    HookStarted,
    HookFinished,
    Notice,
    Rewound,
    SessionForked,
    Cancelled,
    ErrorEvent,
    Result,
)


def event_types() -> dict[str, type[ConversationEvent]]:
    """Every conversation event class by its ``type`` tag."""
    return {cls.TAG: cls for cls in _EVENT_CLASSES}


def encode_event(event: ConversationEvent) -> dict[str, Any]:
    """A JSON-ready dict of *event*, with its ``type`` tag."""
    return encode_message(event)


def decode_event(data: Any) -> ConversationEvent:
    """The event a dict (from :func:`encode_event` or a log line) describes.

    Raises:
        ProtocolError: not an event, an unknown ``type``, or fields that do not fit.
    """
    event: Message = decode_message(data)
    if not isinstance(event, ConversationEvent):
        raise ProtocolError(f"message type {type(event).TAG!r} is not a conversation event")
    return event
