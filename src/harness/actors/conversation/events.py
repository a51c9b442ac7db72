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
      text_delta* thinking_delta* usage?
      assistant_message                (the whole reply, with its tool calls)
      tool_call_requested              (per call, in order)
        tool_call_approved | tool_call_denied
        tool_call_started
        tool_call_finished             (ok, output as the model sees it)
    turn_finished                      (why the round ended)
    ... worker_exited / worker_restarted / worker_gave_up at any time ...
    result                             (last: ok, final text, turns, usage)
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import attrs

from harness.actors.protocol.model import ToolCall
from harness.ipc import Message, ProtocolError, decode_message, encode_message

__all__ = [
    "AssistantMessage",
    "Cancelled",
    "Compacted",
    "ConversationEvent",
    "ErrorEvent",
    "Result",
    "SessionStarted",
    "SubagentFinished",
    "SubagentStarted",
    "TextDelta",
    "ThinkingDelta",
    "TitleChanged",
    "ToolCallApproved",
    "ToolCallDenied",
    "ToolCallFinished",
    "ToolCallRequested",
    "ToolCallStarted",
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


# --- the session ----------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class SessionStarted(ConversationEvent, tag="session_started"):
    """A session was opened (new, or ``resumed`` from its log)."""

    DURABLE: ClassVar[bool] = True

    workspace: str
    provider: str = ""
    model: str = ""
    resumed: bool = False
    title: str = ""


@attrs.frozen(kw_only=True)
class TitleChanged(ConversationEvent, tag="title_changed"):
    """The session got a title (from the model, or ``by_user``)."""

    DURABLE: ClassVar[bool] = True

    title: str
    by_user: bool = False


@attrs.frozen(kw_only=True)
class UserMessage(ConversationEvent, tag="user_message"):
    """A user message joined the history.

    ``source`` is ``prompt`` (the run's task), ``inbox`` (added while a run was
    going) or ``verify`` (the verify command's failure sent back to the model).
    """

    DURABLE: ClassVar[bool] = True

    text: str
    source: str = "prompt"


# --- one model round ------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class TurnStarted(ConversationEvent, tag="turn_started"):
    """A model request is about to be sent. ``turn`` counts from 1 within the run."""

    DURABLE: ClassVar[bool] = True

    turn: int
    model: str = ""


@attrs.frozen(kw_only=True)
class TextDelta(ConversationEvent, tag="text_delta"):
    """A piece of the model's visible answer."""

    text: str


@attrs.frozen(kw_only=True)
class ThinkingDelta(ConversationEvent, tag="thinking_delta"):
    """A piece of the model's thinking (never in the history unless asked)."""

    text: str


@attrs.frozen(kw_only=True)
class UsageReported(ConversationEvent, tag="usage"):
    """Token counts the provider reported for one model request (``None``: not reported)."""

    DURABLE: ClassVar[bool] = True

    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@attrs.frozen(kw_only=True)
class AssistantMessage(ConversationEvent, tag="assistant_message"):
    """The model's whole reply to one request: its text and the tool calls it made."""

    DURABLE: ClassVar[bool] = True

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    thinking: str = ""
    model: str = ""


@attrs.frozen(kw_only=True)
class TurnFinished(ConversationEvent, tag="turn_finished"):
    """A model round ended.

    ``reason``: ``tool_calls`` (results go back to the model), ``done`` (an answer
    with no tool call), ``terminated`` (a terminating tool succeeded), ``denied``
    (a mutating call was denied), ``cancelled``, ``error``, ``max_turns``.
    """

    DURABLE: ClassVar[bool] = True

    turn: int
    reason: str


# --- tool calls -----------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class ToolCallRequested(ConversationEvent, tag="tool_call_requested"):
    """The model asked for a tool call. ``main_argument`` is what permission rules
    match and what a timeline shows (a path, a command)."""

    DURABLE: ClassVar[bool] = True

    call_id: str
    name: str
    arguments: dict[str, Any] = attrs.field(factory=dict)
    main_argument: str = ""


@attrs.frozen(kw_only=True)
class ToolCallApproved(ConversationEvent, tag="tool_call_approved"):
    """The call may run. ``how``: ``read_only``, ``rule``, ``mode`` (auto) or ``user``."""

    DURABLE: ClassVar[bool] = True

    call_id: str
    name: str
    how: str = "user"


@attrs.frozen(kw_only=True)
class ToolCallDenied(ConversationEvent, tag="tool_call_denied"):
    """The call will not run, and why (a deny rule, the user, plan mode, no terminal)."""

    DURABLE: ClassVar[bool] = True

    call_id: str
    name: str
    reason: str = ""


@attrs.frozen(kw_only=True)
class ToolCallStarted(ConversationEvent, tag="tool_call_started"):
    """The call was handed to its executor (``tools``, ``shell``, ``conversation`` ...)."""

    DURABLE: ClassVar[bool] = True

    call_id: str
    name: str
    executor: str = ""


@attrs.frozen(kw_only=True)
class ToolCallFinished(ConversationEvent, tag="tool_call_finished"):
    """The call's result. ``output`` is exactly what the model sees (secrets
    masked); ``data`` holds structured extras for frontends (a diff, a session id).
    ``ok`` is false for a tool error, a crashed worker, a denial or a skipped call."""

    DURABLE: ClassVar[bool] = True

    call_id: str
    name: str
    ok: bool
    output: str
    data: dict[str, Any] = attrs.field(factory=dict)
    duration: float = 0.0


# --- verify ---------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class VerifyStarted(ConversationEvent, tag="verify_started"):
    """The verify command runs because the model said it was done."""

    DURABLE: ClassVar[bool] = True

    command: str
    attempt: int = 1


@attrs.frozen(kw_only=True)
class VerifyFinished(ConversationEvent, tag="verify_finished"):
    """The verify command's outcome (output as sent back to the model on failure)."""

    DURABLE: ClassVar[bool] = True

    command: str
    ok: bool
    exit_code: int | None = None
    output: str = ""


# --- the workers ----------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class WorkerExited(ConversationEvent, tag="worker_exited"):
    """A worker process ended. ``description`` is one readable sentence
    (``"shell worker (pid 12) killed by signal 9 (SIGKILL)"``)."""

    DURABLE: ClassVar[bool] = True

    worker: str
    pid: int | None = None
    exit_code: int | None = None
    reason: str = ""
    description: str = ""


@attrs.frozen(kw_only=True)
class WorkerRestarted(ConversationEvent, tag="worker_restarted"):
    """The supervisor started a fresh process for a worker."""

    DURABLE: ClassVar[bool] = True

    worker: str
    pid: int | None = None
    restarts: int = 0


@attrs.frozen(kw_only=True)
class WorkerGaveUp(ConversationEvent, tag="worker_gave_up"):
    """A worker restarted too often and will not be started again."""

    DURABLE: ClassVar[bool] = True

    worker: str
    reason: str = ""


# --- sub-agents -----------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class SubagentStarted(ConversationEvent, tag="subagent_started"):
    """A sub-agent runner started on a task."""

    DURABLE: ClassVar[bool] = True

    name: str
    task: str = ""


@attrs.frozen(kw_only=True)
class SubagentFinished(ConversationEvent, tag="subagent_finished"):
    """A sub-agent ended; ``result`` is what its parent's tool call returns."""

    DURABLE: ClassVar[bool] = True

    name: str
    ok: bool
    result: str = ""


# --- context, errors, the end ---------------------------------------------------------


@attrs.frozen(kw_only=True)
class Compacted(ConversationEvent, tag="compacted"):
    """Older history was folded into ``summary``: the first ``replaced`` messages of
    the history (after the system prompt) are replaced by one summary note."""

    DURABLE: ClassVar[bool] = True

    summary: str
    replaced: int
    tokens_before: int = 0
    tokens_after: int = 0


@attrs.frozen(kw_only=True)
class Cancelled(ConversationEvent, tag="cancelled"):
    """The run was cancelled (Ctrl+C, Esc, the API); what was in flight was stopped."""

    DURABLE: ClassVar[bool] = True

    reason: str = "cancelled"


@attrs.frozen(kw_only=True)
class ErrorEvent(ConversationEvent, tag="error"):
    """Something went wrong that the user should see in one sentence.

    ``kind`` is the model's error kind (``auth``, ``network``, ``context_length`` ...)
    or ``budget``, ``config``, ``internal``; ``fatal`` says the run ended on it.
    """

    DURABLE: ClassVar[bool] = True

    kind: str
    message: str
    fatal: bool = False


@attrs.frozen(kw_only=True)
class Result(ConversationEvent, tag="result"):
    """The last event of a run.

    Attributes:
        ok: the run completed (the model finished, or a terminating tool succeeded).
        text: the model's final answer.
        reason: ``done``, ``terminated``, ``denied``, ``max_turns``, ``cancelled``,
            ``error``, ``verify_failed``.
        turns: how many model requests the run made.
        usage: summed token counts (``prompt_tokens``, ``completion_tokens``).
        duration: seconds the run took.
    """

    DURABLE: ClassVar[bool] = True

    ok: bool
    text: str = ""
    reason: str = "done"
    turns: int = 0
    usage: dict[str, int] = attrs.field(factory=dict)
    duration: float = 0.0


_EVENT_CLASSES: tuple[type[ConversationEvent], ...] = (
    SessionStarted,
    TitleChanged,
    UserMessage,
    TurnStarted,
    TextDelta,
    ThinkingDelta,
    UsageReported,
    AssistantMessage,
    TurnFinished,
    ToolCallRequested,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallStarted,
    ToolCallFinished,
    VerifyStarted,
    VerifyFinished,
    WorkerExited,
    WorkerRestarted,
    WorkerGaveUp,
    SubagentStarted,
    SubagentFinished,
    Compacted,
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
