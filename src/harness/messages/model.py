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
class ImagePart:
    """An image in a message: its MIME type and its bytes in base64."""

    mime_type: str
    data: str


@attrs.frozen
class ChatMessage:
    """One message of the history in provider-neutral form.

    ``role`` is ``system``, ``user``, ``assistant`` or ``tool``. A ``tool`` message
    answers the call ``tool_call_id`` of tool ``name``; its ``images`` (only for a model
    that sees images; ``content`` keeps a note of each) go in the provider's own form.
    """

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    thinking: str = ""
    images: tuple[ImagePart, ...] = ()


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
class HistoryRef:
    """The history the model worker keeps for one conversation, so a request can
    carry only the messages that are new.

    Attributes:
        key: the conversation's own id (unique per process that sends it).
        generation: changes whenever the conversation sends its history in full
            (after a compaction, a trim, a resume or a resend), so a delta never
            lands on a history of another generation.
        base: ``None``: the request's ``messages`` are the whole history, which the
            worker keeps with the request's ``system`` and ``tools``. A number: the
            worker already holds that many messages of this generation, ``messages``
            are the ones that follow them, and the request's ``system`` and ``tools``
            are ignored: those of the generation's full request apply (a conversation
            that changes them sends in full).
    """

    key: str
    generation: int
    base: int | None = None


@attrs.frozen
class ChatRequest(Message, tag="model.chat"):
    """Stream one model reply. Answered with a stream of :data:`ModelEvent`.

    ``models`` is tried in order: on "not found", "overloaded" or a rate limit the
    next one answers, and :class:`ModelDone` says which did. ``tool_protocol`` is
    ``native``, ``text`` or ``auto``.

    Without ``history``, ``messages`` is the whole history and the worker keeps
    nothing. With a :class:`HistoryRef` whose ``base`` is set, ``messages`` is only
    the tail after what the worker holds; a worker that does not hold that base (it
    restarted, or forgot it) answers :class:`HistoryUnknown` alone, and the caller
    sends the history in full. A worker that kept a full history says so first with
    :class:`HistoryHeld`; a caller sends deltas only to a worker that said so.
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
    history: HistoryRef | None = None


@attrs.frozen
class HistoryHeld(Message, tag="model.history_held"):
    """The worker keeps the history of a full :class:`ChatRequest` (``count``
    messages, under ``key`` and ``generation``): the next request may be a delta."""

    key: str
    generation: int
    count: int


@attrs.frozen
class HistoryUnknown(Message, tag="model.history_unknown"):
    """The worker does not hold the base a delta :class:`ChatRequest` names; nothing
    was sent to the provider. The caller resends the history in full."""

    key: str
    reason: str = ""


@attrs.frozen
class TextDelta(Message, tag="model.text"):
    text: str


@attrs.frozen
class ThinkingDelta(Message, tag="model.thinking"):
    text: str


@attrs.frozen
class CallWriting(Message, tag="model.call_writing"):
    """The model has started writing a call to the tool *name*: the call itself follows as
    a :class:`ToolCallEvent` once it is whole. A call is never part of the text, so
    without this nothing would show one is coming. Said by the text protocol's filter
    (for known tools) and by streams that name a call before its arguments (OpenAI's,
    Anthropic's)."""

    name: str


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
    """Token counts of one model request (``None``: not reported). ``cached_tokens``: of
    the prompt's, how many the server did not read again (its prompt cache)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None


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


ModelEvent = (
    TextDelta
    | ThinkingDelta
    | CallWriting
    | ToolCallEvent
    | Usage
    | ModelDone
    | ModelError
    | HistoryHeld
    | HistoryUnknown
)


@attrs.frozen
class ListModels(Message, tag="model.list"):
    provider: str
    base_url: str | None = None
    api_key: str | None = attrs.field(default=None, repr=False)


@attrs.frozen
class ModelList(Message, tag="model.list_result"):
    models: tuple[str, ...]


@attrs.frozen
class Embed(Message, tag="model.embed"):
    """Embed *texts* with an embedding model the provider already has (Ollama's
    ``/api/embed``, an OpenAI-compatible ``/embeddings``). Answered with
    :class:`Embeddings`; a provider without an embeddings endpoint fails with a
    ``config`` error."""

    provider: str
    model: str
    texts: tuple[str, ...]
    base_url: str | None = None
    api_key: str | None = attrs.field(default=None, repr=False)


@attrs.frozen
class Embeddings(Message, tag="model.embeddings"):
    """One vector per text of the :class:`Embed`, in order."""

    vectors: tuple[tuple[float, ...], ...]


@attrs.frozen
class DescribeModel(Message, tag="model.describe"):
    """What the server says about one model (Ollama's ``/api/show``). Answered with
    :class:`ModelFacts`; a provider that says nothing answers with empty facts."""

    provider: str
    model: str
    base_url: str | None = None
    api_key: str | None = attrs.field(default=None, repr=False)


@attrs.frozen
class ModelFacts(Message, tag="model.facts"):
    """What the server said about a model (``None``: it did not say).

    Attributes:
        num_ctx: the window its Modelfile sets (``PARAMETER num_ctx``).
        context_length: the most tokens the model itself supports
            (``<architecture>.context_length``).
    """

    num_ctx: int | None = None
    context_length: int | None = None
