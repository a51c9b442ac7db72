"""The provider seam: what every model backend implements.

A provider speaks one backend (Ollama, an OpenAI-compatible server, Anthropic, Gemini,
the embedded llama.cpp model) and turns one :class:`ProviderCall` into an async stream of
:data:`ProviderEvent`. Everything above that seam is shared and lives in the worker:
choosing the tool protocol, rendering the history for text-protocol models, the streaming
filter and the lenient tool-call parser, retries before the first token, and failing over
to the next model.

A provider that only produces raw text tokens (the embedded model) yields
:class:`TextDelta` items holding the raw text, ``<think>`` and ``<tool_call>`` tags
included, and a final :class:`Finish`; when the call runs under the text protocol the
worker feeds those tokens through the same filter and parser as every other provider.

The contract, in full:

- :meth:`Provider.stream` is an async generator. It yields text, thinking, native tool
  calls and usage in the order the backend sends them, and ends with exactly one
  :class:`Finish`. It never yields :class:`~harness.messages.model.ModelDone` or
  :class:`~harness.messages.model.ModelError`: those are the worker's.
- Failures are raised as :class:`ProviderError`, whose ``kind`` is one of the
  :class:`~harness.messages.model.ModelError` kinds. The worker retries
  ``rate_limit`` / ``server`` / ``network`` failures raised before the first event, and
  never one raised after it. A message never contains an API key.
- Closing the generator (``aclose``, or the caller being cancelled) must stop the
  backend at once: close the HTTP connection, or stop generating tokens.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

import attrs

from harness.errors import ERROR_KINDS, ProviderError
from harness.messages.local import LocalModelProgress
from harness.messages.model import (
    CallWriting,
    ChatMessage,
    ChatOptions,
    TextDelta,
    ThinkingDelta,
    ToolCallEvent,
    ToolSchema,
    Usage,
)

__all__ = [
    "ERROR_KINDS",
    "Describer",
    "Embedder",
    "Finish",
    "Provider",
    "ProviderCall",
    "ProviderError",
    "ProviderEvent",
    "ProviderFactory",
]


@attrs.frozen
class ProviderCall:
    """One attempt at one model, already shaped for the chosen tool protocol.

    Attributes:
        model: the model to ask.
        messages: the history. Under the text protocol it has been rendered already:
            only ``user`` and ``assistant`` roles, tool calls and results written as text.
        system: the system prompt (under the text protocol it holds the tool section).
        tools: the tools to offer natively; empty under the text protocol.
        options: generation settings.
        base_url: the backend's address (empty for the embedded model).
        api_key: the key to send, or ``None``.
        text_protocol: ``True`` when the call runs under the text protocol.
        text_tools: under the text protocol, the tools its prompt describes (``tools``
            is empty then): a backend that owns its sampler constrains calls to them.
    """

    model: str
    messages: tuple[ChatMessage, ...]
    system: str = ""
    tools: tuple[ToolSchema, ...] = ()
    options: ChatOptions = attrs.field(factory=ChatOptions)
    base_url: str = ""
    api_key: str | None = attrs.field(default=None, repr=False)  # never in logs
    text_protocol: bool = False
    text_tools: tuple[ToolSchema, ...] = ()


@attrs.frozen
class Finish:
    """The last item of a provider stream: why the model stopped.

    ``reason`` is ``stop``, ``length`` (the token limit cut it), ``looped`` (harness
    stopped a loop inside a tool call: the call is cut), ``tool_calls``, or the backend's
    own word for anything else.
    """

    reason: str


ProviderEvent = (
    TextDelta | ThinkingDelta | CallWriting | ToolCallEvent | Usage | Finish | LocalModelProgress
)
"""What :meth:`Provider.stream` yields (:class:`CallWriting` where a native stream names a
call's tool before its arguments are whole; :class:`LocalModelProgress` while the embedded
model loads or reads a long prompt)."""


@runtime_checkable
class Provider(Protocol):
    """One model backend. See the module docstring for the whole contract."""

    name: str

    def stream(self, call: ProviderCall) -> AsyncIterator[ProviderEvent]:
        """Stream one reply to *call*; the last item is a :class:`Finish`.

        Raises:
            ProviderError: the backend failed (auth, not found, rate limit, ...).
        """
        ...

    async def list_models(self, base_url: str, api_key: str | None) -> tuple[str, ...]:
        """The models this backend offers."""
        ...

    async def supports_tools(self, model: str, base_url: str, api_key: str | None) -> bool:
        """Whether *model* takes tools natively (decides ``--tool-protocol auto``)."""
        ...

    async def aclose(self) -> None:
        """Release what the provider holds (connections, a loaded model)."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """A provider with an embeddings endpoint (Ollama, OpenAI-compatible servers)."""

    async def embed(
        self, model: str, texts: tuple[str, ...], base_url: str, api_key: str | None
    ) -> list[list[float]]:
        """One vector per text, in order.

        Raises:
            ProviderError: the server failed, or answered in an unknown shape.
        """
        ...


@runtime_checkable
class Describer(Protocol):
    """A provider whose server says what a model's window is (Ollama's ``/api/show``)."""

    async def describe(
        self, model: str, base_url: str, api_key: str | None
    ) -> tuple[int | None, int | None]:
        """``(num_ctx, context_length)``: the window the model's Modelfile sets and
        the most the model supports, each ``None`` when the server does not say."""
        ...


class ProviderFactory(Protocol):
    """How the worker gets a provider: ``harness.actors.model.local`` exports one of
    these as ``make_provider``; the worker calls it once and keeps the provider."""

    def __call__(self) -> Provider: ...
