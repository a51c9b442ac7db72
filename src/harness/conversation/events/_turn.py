"""The events of a session and of its turns: messages, model rounds, tool calls.

Re-exported by :mod:`harness.conversation.events`, where the order of a run
is drawn.
"""

from __future__ import annotations

from typing import Any, ClassVar

import attrs

from harness.conversation.events._base import ConversationEvent
from harness.messages.model import ToolCall

__all__ = [
    "AssistantMessage",
    "SessionStarted",
    "TextDelta",
    "ThinkingDelta",
    "TitleChanged",
    "ToolCallApproved",
    "ToolCallDenied",
    "ToolCallFinished",
    "ToolCallRequested",
    "ToolCallStarted",
    "ToolCallWriting",
    "TurnFinished",
    "TurnStarted",
    "UsageReported",
    "UserMessage",
]


# --- the session ----------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class SessionStarted(ConversationEvent, tag="session_started"):
    """A session was opened (new, or ``resumed`` from its log).

    ``chosen`` says which model was picked and why, when nobody named a provider (the
    same choice the terminal makes: a running Ollama, else the embedded model)."""

    DURABLE: ClassVar[bool] = True

    workspace: str
    provider: str = ""
    model: str = ""
    resumed: bool = False
    title: str = ""
    chosen: str = ""


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
class ToolCallWriting(ConversationEvent, tag="tool_call_writing"):
    """The model has started writing a call to the tool *name*; ``tool_call_requested``
    follows once the reply is whole (not every provider says so early)."""

    name: str


@attrs.frozen(kw_only=True)
class ModelProgress(ConversationEvent, tag="model_progress"):
    """The embedded model is loading, or reading a long prompt, before it answers, or is
    asked again (``nudged``): ``stage`` (``loading``, ``verifying``, ``reading``,
    ``nudged``, ...), ``done`` of ``total``
    (bytes, or prompt tokens while ``reading``), and ``message``, one line for a status
    bar ("reading 1,480 tokens 35%")."""

    stage: str
    done: int = 0
    total: int = 0
    message: str = ""


@attrs.frozen(kw_only=True)
class ThinkingDelta(ConversationEvent, tag="thinking_delta"):
    """A piece of the model's thinking (never in the history unless asked)."""

    text: str


@attrs.frozen(kw_only=True)
class UsageReported(ConversationEvent, tag="usage"):
    """Token counts the provider reported for one model request (``None``: not reported).
    ``cached_tokens``: of the prompt's, how many the server did not read again."""

    DURABLE: ClassVar[bool] = True

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None


@attrs.frozen(kw_only=True)
class AssistantMessage(ConversationEvent, tag="assistant_message"):
    """The model's whole reply to one request: its text and the tool calls it made.

    ``incomplete``: the reply was cut off at the output token limit; its calls (whole
    or not) were dropped unrun.
    """

    DURABLE: ClassVar[bool] = True

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    thinking: str = ""
    model: str = ""
    incomplete: bool = False


@attrs.frozen(kw_only=True)
class TurnFinished(ConversationEvent, tag="turn_finished"):
    """A model round ended.

    ``reason``: ``tool_calls`` (results go back to the model), ``done`` (an answer
    with no tool call), ``terminated`` (a terminating tool succeeded), ``denied``
    (a mutating call was denied), ``incomplete`` (the reply was cut off at the output
    token limit), ``cancelled``, ``error``, ``max_turns``.
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
