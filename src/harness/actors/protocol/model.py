"""Messages of the model worker: one request shape in, one event shape out, for every provider."""

from __future__ import annotations

from typing import Any

import attrs

from harness.ipc import Message


@attrs.frozen
class ToolCall:
    """A tool call as it sits in the history."""

    id: str
    name: str
    arguments: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class ChatMessage:
    """One message of the history in provider-neutral form.

    ``role`` is ``system``, ``user``, ``assistant`` or ``tool``. A ``tool`` message
    answers the call ``tool_call_id`` of tool ``name``.
    """

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    thinking: str = ""


@attrs.frozen
class ToolSchema:
    """A tool as the model sees it: the JSON schema of its parameters."""

    name: str
    description: str
    parameters: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class ChatOptions:
    """Generation settings; ``None`` leaves the provider's default."""

    temperature: float | None = None
    max_tokens: int | None = None
    context_window: int | None = None
    thinking: bool = False
    seed: int | None = None


@attrs.frozen
class ChatRequest(Message, tag="model.chat"):
    """Stream one model reply. Answered with a stream of :data:`ModelEvent`.

    ``models`` is tried in order: on "not found", "overloaded" or a rate limit the
    next one answers, and :class:`ModelDone` says which did. ``tool_protocol`` is
    ``native``, ``text`` or ``auto``.
    """

    provider: str
    models: tuple[str, ...]
    messages: tuple[ChatMessage, ...]
    system: str = ""
    tools: tuple[ToolSchema, ...] = ()
    tool_protocol: str = "auto"
    base_url: str | None = None
    api_key: str | None = attrs.field(default=None, repr=False)  # never in logs
    options: ChatOptions = ChatOptions()


@attrs.frozen
class TextDelta(Message, tag="model.text"):
    text: str


@attrs.frozen
class ThinkingDelta(Message, tag="model.thinking"):
    text: str


@attrs.frozen
class ToolCallEvent(Message, tag="model.tool_call"):
    """A complete tool call. ``arguments`` is ``None`` when they did not parse;
    ``parse_error`` then says why. ``repaired`` names what the repair engine fixed."""

    id: str
    name: str
    arguments: dict[str, Any] | None = None
    parse_error: str | None = None
    repaired: str | None = None


@attrs.frozen
class Usage(Message, tag="model.usage"):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@attrs.frozen
class ModelDone(Message, tag="model.done"):
    """The reply is complete: why it stopped, and which model answered."""

    finish_reason: str
    model: str
    tool_protocol: str = "native"


@attrs.frozen
class ModelError(Message, tag="model.error"):
    """The reply failed. ``kind`` is one of ``auth``, ``not_found``, ``rate_limit``,
    ``context_length``, ``network``, ``server``, ``bad_response``, ``cancelled``,
    ``config``; ``message`` is the provider's own words (never a key)."""

    kind: str
    message: str
    status: int | None = None
    model: str | None = None


ModelEvent = TextDelta | ThinkingDelta | ToolCallEvent | Usage | ModelDone | ModelError


@attrs.frozen
class ListModels(Message, tag="model.list"):
    provider: str
    base_url: str | None = None
    api_key: str | None = attrs.field(default=None, repr=False)


@attrs.frozen
class ModelList(Message, tag="model.list_result"):
    models: tuple[str, ...]
