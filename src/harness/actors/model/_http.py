"""One streamed HTTP exchange with a provider, bounded in time at every step.

Timeouts: ``connect`` (TCP + TLS), ``first_byte`` (from sending the request to the first
body bytes: a server that never answers), ``idle`` (between body chunks: a connection that
went silent or sits in CLOSE_WAIT). Each becomes a ``network`` :class:`ProviderError` in
seconds, never a hang. Leaving the ``open_stream`` block for any reason (including the
caller being cancelled) closes the connection at once; a body read to its end leaves the
connection with the client for the next request (see :mod:`harness.actors.model._client`).

A redirect is not followed: it becomes a ``config`` error naming the new address, so a
key never travels to an address the user did not give.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import attrs
import orjson
import trio

from harness.actors.model._client import HttpClient, Response
from harness.actors.model._provider import ProviderError
from harness.actors.model._request import HttpRequest

__all__ = [
    "Body",
    "Timeouts",
    "error_from_response",
    "get_json",
    "open_stream",
    "redact",
]

_CONTEXT_WORDS = (
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "exceeds the context",
    "context size",
    "input is too long",
    "token limit",
)


@attrs.frozen
class Timeouts:
    """Seconds allowed for each step of an exchange (see the module docstring)."""

    connect: float = 10.0
    first_byte: float = 120.0
    idle: float = 60.0


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """*text* with every secret in it replaced, so no key reaches a log or an event."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text


def _retry_after(headers: Mapping[str, str]) -> float | None:
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
        return max(0.0, seconds) if math.isfinite(seconds) else None
    except ValueError:
        pass
    when = email.utils.parsedate_to_datetime(value) if value else None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def message_of(body: bytes) -> str:
    """The provider's own words in an error body (JSON or text)."""
    try:
        data: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body.decode("utf-8", "replace").strip()[:500]
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("msg") or err.get("detail")
            if isinstance(msg, str):
                return msg
        elif isinstance(err, str):
            return err
        if isinstance(data.get("message"), str):
            return str(data["message"])
    return body.decode("utf-8", "replace").strip()[:500]


def classify(status: int | None, message: str) -> tuple[str, bool]:
    """(error kind, overloaded) for an HTTP status and the provider's message."""
    low = message.lower()
    overloaded = status in (503, 529) or "overloaded" in low
    if any(w in low for w in _CONTEXT_WORDS) and status in (None, 400, 413, 422):
        return "context_length", overloaded
    if status in (401, 403) or ("api key" in low and status == 400):
        return "auth", overloaded
    if status == 404 or (status is None and "not found" in low):
        return "not_found", overloaded
    if status == 429 or "rate limit" in low or "resource_exhausted" in low:
        return "rate_limit", overloaded
    if overloaded:
        return "server", True
    if status is not None and status >= 500:
        return "server", overloaded
    return "bad_response", overloaded


def error_from_response(
    status: int, headers: Mapping[str, str], body: bytes, secrets: Iterable[str | None]
) -> ProviderError:
    """The :class:`ProviderError` for a non-2xx answer."""
    message = redact(message_of(body), secrets) or f"HTTP {status}"
    kind, overloaded = classify(status, message)
    if kind == "rate_limit":
        # the body alone ("quota", "slow down") does not say what happened, nor what to do
        wait = _retry_after(headers)
        when = f"it asks to wait {wait:g} s" if wait is not None else "wait a little"
        message = (
            f"the provider is limiting requests (HTTP {status}, rate limit): {message}; "
            f"{when} and try again, or check the plan's quota"
        )
    return ProviderError(
        kind, message, status=status, retry_after=_retry_after(headers), overloaded=overloaded
    )


class Body:
    """The body of a streamed answer, read chunk by chunk under the timeouts."""

    def __init__(self, response: Response, deadline: float, timeouts: Timeouts) -> None:
        self._response = response
        self._deadline: float | None = deadline
        self._timeouts = timeouts
        self.bytes_read = 0

    async def next_chunk(self) -> bytes | None:
        """The next bytes, or ``None`` at the end of the body.

        Raises:
            ProviderError: ``network`` when the server went silent or the connection broke.
        """
        if self._deadline is None:
            # Past the first bytes, the idle limit bounds every read where it is
            # made (the response's own), so no scope of ours is paid per chunk.
            chunk = await self._response.next_chunk()
        else:
            with trio.move_on_at(self._deadline):
                chunk = await self._response.next_chunk()
                self._deadline = None
            if self._deadline is not None:
                raise ProviderError(
                    "network", f"no answer for {self._timeouts.first_byte:g} s; gave up"
                )
        if chunk is not None:
            self.bytes_read += len(chunk)
        return chunk


def _redirect_error(response: Response, host: str, secrets: Iterable[str | None]) -> ProviderError:
    where = response.headers.get("location")
    moved = f", moved to {redact(where, secrets)}" if where else ""
    return ProviderError(
        "config",
        f"{host} answered {response.status}{moved}: redirects are not "
        "followed, so set the base URL to the new address if it is right",
        status=response.status,
    )


@asynccontextmanager
async def open_stream(
    client: HttpClient,
    request: HttpRequest,
    timeouts: Timeouts,
    secrets: Iterable[str | None] = (),
) -> AsyncIterator[Body]:
    """Send *request* through *client* and yield its streamed :class:`Body`.

    Raises:
        ProviderError: a non-2xx answer (with the provider's message and ``Retry-After``),
            a redirect (``config``), or a connect / first-byte failure.
    """
    secrets = tuple(secrets)
    deadline = trio.current_time() + timeouts.first_byte
    host = urlsplit(request.url).hostname or request.url
    response: Response | None = None
    try:
        with trio.move_on_at(deadline):
            try:
                response = await client.send(request)
            except ProviderError as exc:
                exc.message = redact(exc.message, secrets)
                raise
        if response is None:
            raise ProviderError("network", f"no answer from {host} for {timeouts.first_byte:g} s")
        response.idle = timeouts.idle
        if 300 <= response.status < 400:
            raise _redirect_error(response, host, secrets)
        if response.status >= 400:
            body = b""
            with trio.move_on_at(max(deadline, trio.current_time() + 5)):
                try:
                    body = await response.read_all()
                except ProviderError:
                    pass
            raise error_from_response(response.status, response.headers, body, secrets)
        yield Body(response, deadline, timeouts)
    finally:
        if response is not None:
            # An answer read whole gives its connection back to the client; any other
            # is closed, so a cancelled reply stops the server's work at once.
            with trio.CancelScope(shield=True), trio.move_on_after(2):
                await response.aclose()


async def get_json(
    client: HttpClient,
    request: HttpRequest,
    timeouts: Timeouts,
    secrets: Iterable[str | None] = (),
) -> Any:
    """Send a small request and decode its JSON answer, under the same rules."""
    chunks: list[bytes] = []
    async with open_stream(client, request, timeouts, secrets) as body:
        while (chunk := await body.next_chunk()) is not None:
            chunks.append(chunk)
    try:
        return orjson.loads(b"".join(chunks))
    except orjson.JSONDecodeError:
        path = urlsplit(request.url).path
        raise ProviderError("bad_response", f"{path}: the answer is not JSON") from None
