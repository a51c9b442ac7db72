"""The model worker's chat core, :class:`ModelEngine`: a ChatRequest in, a stream of events out.

It picks the provider and the tool protocol, renders the history for text-protocol
models, runs the stream through the filter and the lenient parser, retries 429 / 5xx
before the first event (honouring ``Retry-After``), and fails over to the next model on
"not found", "overloaded" or a rate limit. Everything it emits is a
:data:`~harness.messages.model.ModelEvent`; every failure ends as one
:class:`~harness.messages.model.ModelError`, with no key in it.

A reply is capped like a tool's output: past :data:`DEFAULT_MAX_REPLY_CHARS` characters
of text and thinking (``HARNESS_MODEL_MAX_REPLY_CHARS``) the provider's stream is closed,
the reply ends with a note that says it was cut, and it finishes as ``length``. A model
that streams without end costs that many characters, not the machine's memory; what the
text cap cannot see (a tool call's arguments growing without end) is bounded by the
bytes an HTTP provider reads of one reply (at least 128 MiB), past which the reply fails.
"""

from __future__ import annotations

import importlib
import itertools
import os
from collections.abc import Awaitable, Callable, Mapping
from contextlib import aclosing

import attrs
import trio

from harness.actors.model._client import HttpClient
from harness.actors.model._credentials import ENV_KEYS, resolve_credentials
from harness.actors.model._filter import TextStreamFilter
from harness.actors.model._histories import HistoryStore
from harness.actors.model._http import Timeouts, redact
from harness.actors.model._provider import (
    Describer,
    Embedder,
    Finish,
    Provider,
    ProviderCall,
    ProviderError,
)
from harness.actors.model._textproto import render_text_history, text_protocol_prompt
from harness.messages import PROVIDERS
from harness.messages.local import LocalModelProgress
from harness.messages.model import (
    CallWriting,
    ChatRequest,
    DescribeModel,
    Embed,
    Embeddings,
    HistoryHeld,
    HistoryUnknown,
    ListModels,
    ModelDone,
    ModelError,
    ModelEvent,
    ModelFacts,
    ModelList,
    TextDelta,
    ThinkingDelta,
    ToolCallEvent,
    ToolSchema,
    Usage,
)

__all__ = [
    "DEFAULT_MAX_REPLY_CHARS",
    "Emit",
    "ModelEngine",
    "RetryPolicy",
    "max_reply_chars_from_env",
    "timeouts_from_env",
]

Emit = Callable[[ModelEvent | LocalModelProgress], Awaitable[None]]
_ids = itertools.count(1)

#: Characters of one reply's text and thinking past which its stream is cut (about
#: 100,000 tokens: far beyond any answer worth reading, far below a runaway stream).
DEFAULT_MAX_REPLY_CHARS = 400_000


@attrs.frozen
class RetryPolicy:
    """Retries of 429 / 5xx before the first event.

    Attributes:
        retries: how many times a model is retried (0: never).
        base_delay: the first backoff in seconds; it doubles each time.
        max_delay: the longest backoff without a ``Retry-After``.
        max_retry_after: a ``Retry-After`` longer than this fails at once instead.
    """

    retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0


def _require_key(provider: str, key: str | None, base: str) -> None:
    """A hosted API at its own address without a key: say so now, not after a timeout."""
    if key or base or provider not in ENV_KEYS or provider == "ollama":
        return
    names = " or ".join(ENV_KEYS[provider])
    raise ProviderError(
        "auth", f"no {provider} API key: set {names}, or save one with /connect {provider}"
    )


def timeouts_from_env(env: Mapping[str, str]) -> Timeouts:
    """Timeouts, overridable by ``HARNESS_MODEL_{CONNECT,FIRST_BYTE,IDLE}_TIMEOUT``."""
    base = Timeouts()

    def read(name: str, default: float) -> float:
        try:
            value = float(env.get(f"HARNESS_MODEL_{name}_TIMEOUT", default))
        except ValueError:
            return default
        return value if value > 0 else default

    return Timeouts(
        read("CONNECT", base.connect), read("FIRST_BYTE", base.first_byte), read("IDLE", base.idle)
    )


def max_reply_chars_from_env(env: Mapping[str, str]) -> int:
    """The reply cap: ``HARNESS_MODEL_MAX_REPLY_CHARS``, else :data:`DEFAULT_MAX_REPLY_CHARS`
    (a value that is not a positive whole number is ignored)."""
    try:
        value = int(env.get("HARNESS_MODEL_MAX_REPLY_CHARS", DEFAULT_MAX_REPLY_CHARS))
    except ValueError:
        return DEFAULT_MAX_REPLY_CHARS
    return value if value > 0 else DEFAULT_MAX_REPLY_CHARS


def _cut_note(limit: int) -> str:
    return (
        f"\n\n[harness: the answer was cut here, at {limit:,} characters; the model was "
        "still writing. Ask for it in smaller parts (HARNESS_MODEL_MAX_REPLY_CHARS sets "
        "the limit).]"
    )


class _Failover(Exception):
    def __init__(self, error: ProviderError) -> None:
        super().__init__(error.message)
        self.error = error


class _Started:
    """Set once anything reached the caller: from then on nothing is retried."""

    value = False


class ModelEngine:
    """Streams chat replies from any provider.

    Args:
        env: the environment (keys, addresses, timeouts); default ``os.environ``.
        timeouts: overrides the timeouts read from *env*.
        retry: the retry policy.
        providers: providers by name, replacing the built-in ones (a test seam).
        max_reply_chars: the reply cap; default from *env*
            (:func:`max_reply_chars_from_env`).
    """

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        timeouts: Timeouts | None = None,
        retry: RetryPolicy | None = None,
        providers: Mapping[str, Provider] | None = None,
        max_reply_chars: int | None = None,
    ) -> None:
        self.env = os.environ if env is None else env
        self.timeouts = timeouts or timeouts_from_env(self.env)
        self.max_reply_chars = max_reply_chars or max_reply_chars_from_env(self.env)
        self.retry = retry or RetryPolicy()
        self._providers: dict[str, Provider] = dict(providers or {})
        self.histories = HistoryStore()
        #: the worker's one HTTP client, shared by the HTTP providers
        self.http = HttpClient(self.timeouts.connect)
        self._env_secrets: list[str | None] | None = None

    def provider(self, name: str) -> Provider:
        """The provider called *name*, made on first use.

        Raises:
            ProviderError: ``config`` for an unknown name or an embedded model that
                cannot be loaded.
        """
        if name in self._providers:
            return self._providers[name]
        made: Provider
        if name == "local":
            try:
                module = importlib.import_module("harness.actors.model.local")
                candidate: object = module.make_provider()
            except Exception as exc:  # any failure to load is a config problem to report
                raise ProviderError(
                    "config", f"the embedded local model is not available: {exc}"
                ) from None
            if not isinstance(candidate, Provider):
                raise ProviderError("config", "the embedded local model is not a Provider")
            made = candidate
        elif name in PROVIDERS:
            made = self._http_provider(name)
        else:
            known = ", ".join(PROVIDERS)
            raise ProviderError("config", f"unknown provider {name!r} (known: {known})")
        self._providers[name] = made
        return made

    def _http_provider(self, name: str) -> Provider:
        from harness.actors.model._anthropic import AnthropicProvider
        from harness.actors.model._gemini import GeminiProvider
        from harness.actors.model._httpbase import MAX_REPLY_BYTES
        from harness.actors.model._ollama import OllamaProvider
        from harness.actors.model._openai import OpenAIProvider

        cls = {
            "ollama": OllamaProvider,
            "openai": OpenAIProvider,
            "anthropic": AnthropicProvider,
            "gemini": GeminiProvider,
        }[name]
        # the wire may carry several times the text it says (framing, tiny deltas)
        wire = max(MAX_REPLY_BYTES, 256 * self.max_reply_chars)
        made: Provider = cls(self.timeouts, http=self.http, max_reply_bytes=wire)
        return made

    async def aclose(self) -> None:
        """Close every provider, and the HTTP client's connections."""
        for p in self._providers.values():
            with trio.move_on_after(2):
                await p.aclose()
        with trio.move_on_after(2):
            await self.http.aclose()

    def _secrets(self, req_key: str | None) -> list[str | None]:
        if self._env_secrets is None:
            # the worker's environment is fixed at its start: read it once, not per request
            self._env_secrets = [
                v for k, v in self.env.items() if k.endswith(("_API_KEY", "_TOKEN"))
            ]
        return [req_key, *self._env_secrets]

    async def list_models(self, req: ListModels) -> ModelList:
        """The models of ``req.provider``.

        Raises:
            ProviderError: with the provider's message (no key in it).
        """
        try:
            provider = self.provider(req.provider)
            key, base = resolve_credentials(
                req.provider, api_key=req.api_key, base_url=req.base_url, env=self.env
            )
            _require_key(req.provider, key, base)
            return ModelList(await provider.list_models(base, key))
        except ProviderError as exc:
            exc.message = redact(exc.message, self._secrets(req.api_key))
            raise ProviderError(exc.kind, exc.message, status=exc.status) from None

    async def embed(self, req: Embed) -> Embeddings:
        """The vectors of ``req.texts`` from ``req.model``.

        Raises:
            ProviderError: ``config`` when the provider has no embeddings endpoint;
                else the provider's message (no key in it).
        """
        try:
            provider = self.provider(req.provider)
            if not isinstance(provider, Embedder):
                raise ProviderError("config", f"{req.provider} has no embeddings endpoint")
            key, base = resolve_credentials(
                req.provider, api_key=req.api_key, base_url=req.base_url, env=self.env
            )
            _require_key(req.provider, key, base)
            vectors = await provider.embed(req.model, req.texts, base, key)
        except ProviderError as exc:
            raise ProviderError(
                exc.kind, redact(exc.message, self._secrets(req.api_key)), status=exc.status
            ) from None
        return Embeddings(tuple(tuple(v) for v in vectors))

    async def describe(self, req: DescribeModel) -> ModelFacts:
        """What the server says about ``req.model`` (empty facts when it says nothing).

        Raises:
            ProviderError: the server was asked and failed.
        """
        try:
            provider = self.provider(req.provider)
            if not isinstance(provider, Describer):
                return ModelFacts()
            key, base = resolve_credentials(
                req.provider, api_key=req.api_key, base_url=req.base_url, env=self.env
            )
            num_ctx, length = await provider.describe(req.model, base, key)
        except ProviderError as exc:
            raise ProviderError(
                exc.kind, redact(exc.message, self._secrets(req.api_key)), status=exc.status
            ) from None
        return ModelFacts(num_ctx=num_ctx, context_length=length)

    async def chat(self, req: ChatRequest, emit: Emit) -> None:
        """Stream the reply to *req* through *emit*; failures end as one ModelError.

        A delta request whose base this worker does not hold is answered with one
        ``HistoryUnknown`` and nothing is sent to the provider; a full request that
        names a history is kept, and ``HistoryHeld`` says so before the reply.
        """
        resolved = self.histories.resolve(req)
        if isinstance(resolved, HistoryUnknown):
            await emit(resolved)
            return
        if req.history is not None and req.history.base is None:
            await emit(HistoryHeld(req.history.key, req.history.generation, len(req.messages)))
        req = resolved
        secrets = self._secrets(req.api_key)

        async def fail(err: ProviderError, model: str | None) -> None:
            await emit(
                ModelError(
                    kind=err.kind,
                    message=redact(err.message, secrets),
                    status=err.status,
                    model=model,
                )
            )

        if not req.models:
            await fail(ProviderError("config", "no model was given"), None)
            return
        try:
            provider = self.provider(req.provider)
            key, base = resolve_credentials(
                req.provider, api_key=req.api_key, base_url=req.base_url, env=self.env
            )
            _require_key(req.provider, key, base)
        except ProviderError as err:
            await fail(err, None)
            return
        failures: list[str] = []
        for i, model in enumerate(req.models):
            last = i == len(req.models) - 1
            try:
                await self._one_model(provider, req, model, base, key, emit, last=last)
                return
            except _Failover as f:
                failures.append(f"{model}: {f.error.message}")
                if last:
                    msg = "; ".join(failures) if len(failures) > 1 else f.error.message
                    await fail(ProviderError(f.error.kind, msg, status=f.error.status), model)
                    return
            except ProviderError as err:
                await fail(err, model)
                return

    async def _protocol(
        self, provider: Provider, req: ChatRequest, model: str, base: str, key: str | None
    ) -> str:
        if req.tool_protocol not in ("native", "text", "auto"):
            raise ProviderError(
                "config", f"unknown tool protocol {req.tool_protocol!r} (native, text, auto)"
            )
        if not req.tools or req.tool_protocol != "auto":
            return "native" if not req.tools else req.tool_protocol
        return "native" if await provider.supports_tools(model, base, key) else "text"

    async def _one_model(
        self,
        provider: Provider,
        req: ChatRequest,
        model: str,
        base: str,
        key: str | None,
        emit: Emit,
        *,
        last: bool,
    ) -> None:
        started = _Started()
        for attempt in itertools.count():
            try:
                protocol = await self._protocol(provider, req, model, base, key)
                await self._stream(provider, req, model, protocol, base, key, emit, started)
                return
            except ProviderError as err:
                if started.value:
                    raise
                if not last and (err.kind in ("not_found", "rate_limit") or err.overloaded):
                    raise _Failover(err) from None
                if err.kind not in ("rate_limit", "server") or attempt >= self.retry.retries:
                    raise
                delay = min(self.retry.max_delay, self.retry.base_delay * 2**attempt)
                if err.retry_after is not None:
                    if err.retry_after > self.retry.max_retry_after:
                        said = err.kind == "rate_limit"  # its message names the wait
                        raise ProviderError(
                            err.kind,
                            err.message
                            if said
                            else f"{err.message} (asked to wait {err.retry_after:g} s)",
                            status=err.status,
                        ) from None
                    delay = err.retry_after
                await trio.sleep(delay)

    async def _stream(
        self,
        provider: Provider,
        req: ChatRequest,
        model: str,
        protocol: str,
        base: str,
        key: str | None,
        emit: Emit,
        started: _Started,
    ) -> None:
        text = protocol == "text"
        known = {t.name: tuple(t.parameters.get("properties", {})) for t in req.tools}
        if text:
            system = "\n\n".join(s for s in (req.system, text_protocol_prompt(req.tools)) if s)
            messages = render_text_history(req.messages, req.tools)
            tools: tuple[ToolSchema, ...] = ()
        else:
            system = req.system
            messages = tuple(
                attrs.evolve(m, thinking="") if m.thinking else m for m in req.messages
            )
            tools = req.tools
        call = ProviderCall(
            model=model,
            messages=messages,
            system=system,
            tools=tools,
            options=req.options,
            base_url=base,
            api_key=key,
            text_protocol=text,
            text_tools=req.tools if text else (),
        )

        async def out(event: ModelEvent) -> None:
            started.value = True
            await emit(event)

        filt = TextStreamFilter(known, parse_calls=text)
        finish: str | None = None
        calls = 0
        room = self.max_reply_chars
        cut = False
        async with aclosing(provider.stream(call)) as events:  # type: ignore[type-var]
            async for ev in events:
                if isinstance(ev, TextDelta | ThinkingDelta):
                    # counted before the filter, which may hold text back (a call being
                    # written), so that nothing grows past the cap unseen
                    if len(ev.text) > room:
                        ev = attrs.evolve(ev, text=ev.text[:room])
                        cut = True
                    room -= len(ev.text)
                if isinstance(ev, Finish):
                    finish = ev.reason
                elif isinstance(ev, TextDelta):
                    for d in filt.feed(ev.text):
                        await out(d)
                elif isinstance(ev, ToolCallEvent):
                    calls += 1
                    await out(ev)
                elif isinstance(ev, ThinkingDelta | CallWriting | Usage):
                    await out(ev)
                elif isinstance(ev, LocalModelProgress):
                    await emit(ev)  # not the reply's start: a retry may still resend it
                if cut:
                    break  # leaving closes the provider's stream, and its connection
        if cut:
            finish = "length"
        if finish is None:
            raise ProviderError("bad_response", f"{provider.name} ended without a finish")
        tail, parsed = filt.finish(complete=finish not in ("length", "looped"))
        for d in tail:
            await out(d)
        if cut:
            await out(TextDelta(_cut_note(self.max_reply_chars)))
        for c in parsed.calls:
            calls += 1
            await out(
                ToolCallEvent(
                    id=f"call_t{next(_ids)}",
                    name=c.name,
                    arguments=c.arguments,
                    parse_error=c.parse_error,
                    repaired=c.repaired,
                )
            )
        if calls and finish == "stop":
            finish = "tool_calls"
        await emit(ModelDone(finish_reason=finish, model=model, tool_protocol=protocol))
