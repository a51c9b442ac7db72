"""What the four HTTP providers share: one client, the timed stream, a decoder per format.

A provider builds the request and names a decoder; the decoder turns the body's bytes into
provider events and is plain synchronous code, so it is fuzzed and benchmarked alone. The
decoders of server-sent-event bodies (all but Ollama's NDJSON) share :class:`SseDecoder`.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator
from typing import Any, Protocol

import orjson

from harness.actors.model._client import HttpClient
from harness.actors.model._http import Timeouts, classify, get_json, open_stream
from harness.actors.model._provider import ProviderCall, ProviderError, ProviderEvent
from harness.actors.model._request import HttpRequest
from harness.actors.model._wire import SseEvent, SseParser
from harness.messages.model import ToolCallEvent

__all__ = [
    "MAX_REPLY_BYTES",
    "Decoder",
    "DecoderBase",
    "HttpProvider",
    "SseDecoder",
    "call_id",
    "embedding_vectors",
    "event_object",
    "require_finish",
    "tool_call_event",
]

_ids = itertools.count(1)

#: Bytes of one reply's body read at most (see :class:`HttpProvider`).
MAX_REPLY_BYTES = 128 * 1024 * 1024


def call_id() -> str:
    """A fresh id for a tool call the backend sent without one."""
    return f"call_{next(_ids)}"


def tool_call_event(cid: str | None, name: str, raw_args: Any) -> ToolCallEvent:
    """A tool call from native arguments: an object, or a JSON string to parse."""
    cid = cid or call_id()
    if isinstance(raw_args, dict):
        return ToolCallEvent(id=cid, name=name, arguments=raw_args)
    if raw_args is None or (isinstance(raw_args, str) and not raw_args.strip()):
        return ToolCallEvent(id=cid, name=name, arguments={})
    if isinstance(raw_args, str):
        try:
            value = orjson.loads(raw_args)
        except orjson.JSONDecodeError as exc:
            return ToolCallEvent(id=cid, name=name, parse_error=f"arguments are not JSON: {exc}")
        if isinstance(value, dict):
            return ToolCallEvent(id=cid, name=name, arguments=value)
    return ToolCallEvent(id=cid, name=name, parse_error="arguments are not a JSON object")


class Decoder(Protocol):
    """Bytes of one streamed answer in, provider events out.

    An error found in the middle of a chunk is kept in ``failed`` and the events decoded
    before it are still returned, so nothing the model said is lost.
    """

    failed: ProviderError | None

    def feed(self, data: bytes) -> list[ProviderEvent]:
        """Decode the next bytes; return the events they complete (see ``failed``)."""
        ...

    def close(self) -> list[ProviderEvent]:
        """The body ended: the last events, ending with :class:`Finish`.

        Raises:
            ProviderError: the stream stopped before the reply was complete.
        """
        ...


class DecoderBase:
    """What every decoder shares: keeping the first error found mid-chunk."""

    failed: ProviderError | None = None

    def feed(self, data: bytes) -> list[ProviderEvent]:
        """Decode the next bytes; return the events they complete (see ``failed``)."""
        out: list[ProviderEvent] = []
        try:
            self.decode(data, out)
        except ProviderError as err:
            self.failed = err
        return out

    def decode(self, data: bytes, out: list[ProviderEvent]) -> None:
        """Append the events *data* completes to *out* (subclasses)."""
        raise NotImplementedError


class SseDecoder(DecoderBase):
    """A decoder of a server-sent-events body: subclasses read each event (:meth:`event`)
    and say how the reply ends (:meth:`end`)."""

    def __init__(self) -> None:
        self._sse = SseParser()

    def decode(self, data: bytes, out: list[ProviderEvent]) -> None:
        """Hand each event *data* completes to :meth:`event`."""
        for ev in self._sse.feed(data):
            self.event(ev, out)

    def close(self) -> list[ProviderEvent]:
        """The body ended: its last event (one that lacked the final blank line), then
        the reply's last events (:meth:`end`).

        Raises:
            ProviderError: the stream stopped before the reply was complete.
        """
        out: list[ProviderEvent] = []
        for ev in self._sse.close():
            self.event(ev, out)
        self.end(out)
        return out

    def event(self, ev: SseEvent, out: list[ProviderEvent]) -> None:
        """Append the provider events *ev* makes to *out* (subclasses)."""
        raise NotImplementedError

    def end(self, out: list[ProviderEvent]) -> None:
        """Every event is read: append the reply's last events to *out*, ending with
        :class:`Finish` (subclasses).

        Raises:
            ProviderError: the stream stopped before the reply was complete.
        """
        raise NotImplementedError


class HttpProvider:
    """Base of the HTTP providers: subclasses build requests and decoders.

    Args:
        timeouts: the limits of every exchange.
        http: the client to send through (the worker's one client, shared by
            every provider); by default a client of its own, which
            :meth:`aclose` closes.
        max_reply_bytes: bytes of one reply's body past which it is not read on (it
            fails, saying so): a bound on what a decoder holds back, such as a tool
            call's arguments, which no text cap sees (default :data:`MAX_REPLY_BYTES`).
    """

    name = "http"

    def __init__(
        self,
        timeouts: Timeouts | None = None,
        *,
        http: HttpClient | None = None,
        max_reply_bytes: int | None = None,
    ) -> None:
        self.timeouts = timeouts or Timeouts()
        self._owns_http = http is None
        self.http = http or HttpClient(self.timeouts.connect)
        self.max_reply_bytes = max_reply_bytes or MAX_REPLY_BYTES

    def build_request(self, call: ProviderCall) -> HttpRequest:
        """The streaming request for *call*."""
        raise NotImplementedError

    def decoder(self, call: ProviderCall) -> Decoder:
        """A fresh decoder for one answer."""
        raise NotImplementedError

    def models_request(self, base_url: str, api_key: str | None) -> HttpRequest:
        """The request listing the models."""
        raise NotImplementedError

    def models_from(self, data: Any) -> tuple[str, ...]:
        """The model names in the listing's JSON."""
        raise NotImplementedError

    async def stream(self, call: ProviderCall) -> AsyncGenerator[ProviderEvent, None]:
        """Stream one reply (see :class:`~harness.actors.model.Provider`)."""
        request = self.build_request(call)
        decoder = self.decoder(call)
        read = 0
        async with open_stream(self.http, request, self.timeouts, (call.api_key,)) as body:
            while (chunk := await body.next_chunk()) is not None:
                read += len(chunk)
                if read > self.max_reply_bytes:
                    raise ProviderError(
                        "bad_response",
                        f"the reply passed {self.max_reply_bytes:,} bytes and was not read "
                        "on (a model that does not stop writing)",
                    )
                for event in decoder.feed(chunk):
                    yield event
                if decoder.failed is not None:
                    raise decoder.failed
            tail = decoder.close()
        for event in tail:
            yield event

    async def list_models(self, base_url: str, api_key: str | None) -> tuple[str, ...]:
        """The models the backend offers."""
        data = await get_json(
            self.http, self.models_request(base_url, api_key), self.timeouts, (api_key,)
        )
        try:
            return self.models_from(data)
        except (KeyError, TypeError, AttributeError):
            raise ProviderError("bad_response", "the model list has an unknown shape") from None

    async def supports_tools(self, model: str, base_url: str, api_key: str | None) -> bool:
        """Hosted APIs take tools natively."""
        return True

    async def aclose(self) -> None:
        """Close the client, when it is the provider's own."""
        if self._owns_http:
            await self.http.aclose()


def event_object(data: str) -> dict[str, Any]:
    """A stream event's JSON object, OpenAI-shaped: an ``error`` in it (``{"message",
    "code"}``, as OpenAI-compatible servers and llama.cpp's send mid-stream) is raised.

    Raises:
        ProviderError: the error the event carries, or ``bad_response`` for an event
            that is not a JSON object.
    """
    try:
        chunk = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise ProviderError("bad_response", f"a stream event is not JSON: {data[:80]!r}") from None
    if not isinstance(chunk, dict):
        raise ProviderError("bad_response", "a stream event is not an object")
    if "error" in chunk:
        err = chunk["error"]
        message = err.get("message", str(err)) if isinstance(err, dict) else str(err)
        code = err.get("code") if isinstance(err, dict) else None
        kind, overloaded = classify(code if isinstance(code, int) else None, str(message))
        raise ProviderError(kind, str(message), overloaded=overloaded)
    return chunk


def require_finish(finished: bool, what: str) -> None:
    """Raise the error for a stream that ended without saying it was done."""
    if not finished:
        raise ProviderError("network", f"the stream ended before the reply was complete ({what})")


def embedding_vectors(rows: Any, count: int) -> list[list[float]]:
    """*rows* (a server's list of embeddings) checked: *count* non-empty lists of
    numbers, all of one length.

    Raises:
        ProviderError: ``bad_response`` for any other shape.
    """
    if not isinstance(rows, list) or len(rows) != count:
        raise ProviderError("bad_response", f"expected {count} embeddings in the answer")
    out: list[list[float]] = []
    for row in rows:
        if not isinstance(row, list) or not row:
            raise ProviderError("bad_response", "an embedding is not a list of numbers")
        try:
            out.append([float(x) for x in row])
        except (TypeError, ValueError):
            raise ProviderError("bad_response", "an embedding is not a list of numbers") from None
    if len({len(v) for v in out}) > 1:
        raise ProviderError("bad_response", "the embeddings differ in length")
    return out
