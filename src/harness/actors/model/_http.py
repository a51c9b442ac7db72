"""One streamed HTTP exchange with a provider, through httpx, bounded in time at every step.

Timeouts: ``connect`` (TCP + TLS), ``first_byte`` (from sending the request to the first
body bytes: a server that never answers), ``idle`` (between body chunks: a connection that
went silent or sits in CLOSE_WAIT). Each becomes a ``network`` :class:`ProviderError` in
seconds, never a hang. Leaving the ``open_stream`` block for any reason (including the
caller being cancelled) closes the connection at once; a body read to its end leaves the
connection in the client's pool for the next request.

A redirect is not followed: it becomes a ``config`` error naming the new address, so a
key never travels to an address the user did not give.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import attrs
import orjson
import trio

from harness.actors.model._provider import ProviderError
from harness.actors.model._request import HttpRequest

if TYPE_CHECKING:
    import httpx

    from harness.actors.model._tls import TransportOnFirstUse

__all__ = [
    "Body",
    "HttpClient",
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
    "input is too long",
    "token limit",
)


@attrs.frozen
class Timeouts:
    """Seconds allowed for each step of an exchange (see the module docstring)."""

    connect: float = 10.0
    first_byte: float = 120.0
    idle: float = 60.0


class HttpClient:
    """The worker's one httpx client, made on first use (a worker that runs only
    the embedded model never imports httpx); its connections are kept for the
    next request.

    Plain ``http://`` goes through a transport whose TLS context trusts no
    certificate: it never speaks TLS, so it needs no CA bundle, and could not
    speak it unverified. ``https://`` goes through a transport made on the first
    request to such an address (see :mod:`harness.actors.model._tls`). Redirects
    are not followed, so a request never changes transport on the way.

    Args:
        timeouts: its connect timeout; reads are bounded by :func:`open_stream`
            (the first byte) and :class:`Body` (the idle limit).
    """

    def __init__(self, timeouts: Timeouts) -> None:
        self._timeouts = timeouts
        self._client: httpx.AsyncClient | None = None
        self._tls: TransportOnFirstUse | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        """The httpx client, made now if need be."""
        if self._client is None:
            import functools
            import ssl

            import httpx

            from harness.actors.model._tls import TransportOnFirstUse

            self._tls = TransportOnFirstUse(
                functools.partial(httpx.AsyncHTTPTransport, trust_env=False)
            )
            self._client = httpx.AsyncClient(
                transport=httpx.AsyncHTTPTransport(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)),
                mounts={"https://": self._tls},
                timeout=httpx.Timeout(
                    connect=self._timeouts.connect, read=None, write=60.0, pool=60.0
                ),
                # A streamed reply is small and wanted token by token: nothing to
                # inflate in the common case (one that comes gzipped anyway is inflated).
                headers={"accept-encoding": "identity", "user-agent": "harness"},
                # Not longer (this is httpx's default): servers drop idle connections
                # after about as long (uvicorn: 5 s), and a request sent on one just
                # as the server drops it fails.
                limits=httpx.Limits(keepalive_expiry=5.0),
                follow_redirects=False,
                trust_env=False,
            )
        return self._client

    @property
    def tls_ready(self) -> bool:
        """Whether the ``https://`` transport (and its CA bundle) was made."""
        return self._tls is not None and self._tls.made is not None

    async def aclose(self) -> None:
        """Close the client and every connection it keeps."""
        client, self._client, self._tls = self._client, None, None
        if client is not None:
            await client.aclose()


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """*text* with every secret in it replaced, so no key reaches a log or an event."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text


def _retry_after(headers: httpx.Headers) -> float | None:
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
    status: int, headers: httpx.Headers, body: bytes, secrets: Iterable[str | None]
) -> ProviderError:
    """The :class:`ProviderError` for a non-2xx answer."""
    message = redact(message_of(body), secrets) or f"HTTP {status}"
    kind, overloaded = classify(status, message)
    return ProviderError(
        kind, message, status=status, retry_after=_retry_after(headers), overloaded=overloaded
    )


def _network_error(exc: Exception, what: str, secrets: Iterable[str | None]) -> ProviderError:
    detail = redact(str(exc), secrets) or type(exc).__name__
    return ProviderError("network", f"{what}: {detail}")


class Body:
    """The body of a streamed answer, read chunk by chunk under the timeouts."""

    def __init__(
        self, read: Callable[[], Awaitable[bytes | None]], deadline: float, timeouts: Timeouts
    ) -> None:
        self._read = read
        self._deadline: float | None = deadline
        self._timeouts = timeouts
        self.bytes_read = 0

    async def next_chunk(self) -> bytes | None:
        """The next bytes, or ``None`` at the end of the body.

        Raises:
            ProviderError: ``network`` when the server went silent or the connection broke.
        """
        if self._deadline is None:
            # Past the first bytes, the idle limit bounds every socket read where it
            # is made (httpcore's read timeout), so no scope of ours is paid per chunk.
            chunk = await self._read()
        else:
            with trio.move_on_at(self._deadline):
                chunk = await self._read()
                self._deadline = None
            if self._deadline is not None:
                raise ProviderError(
                    "network", f"no answer for {self._timeouts.first_byte:g} s; gave up"
                )
        if chunk is not None:
            self.bytes_read += len(chunk)
        return chunk


def _reader(
    response: httpx.Response, timeouts: Timeouts, secrets: tuple[str | None, ...]
) -> Callable[[], Awaitable[bytes | None]]:
    import httpx

    chunks = response.aiter_bytes()

    async def read() -> bytes | None:
        try:
            return await chunks.__anext__()
        except StopAsyncIteration:
            return None
        except httpx.ReadTimeout:
            raise ProviderError(
                "network", f"the stream went silent for {timeouts.idle:g} s; gave up"
            ) from None
        except httpx.DecodingError as exc:
            raise ProviderError("bad_response", f"the answer does not decode: {exc}") from None
        except httpx.HTTPError as exc:
            raise _network_error(exc, "the connection broke", secrets) from None

    return read


def _redirect_error(response: httpx.Response, secrets: Iterable[str | None]) -> ProviderError:
    where = response.headers.get("location")
    moved = f", moved to {redact(where, secrets)}" if where else ""
    return ProviderError(
        "config",
        f"{response.url.host} answered {response.status_code}{moved}: redirects are not "
        "followed, so set the base URL to the new address if it is right",
        status=response.status_code,
    )


@asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient,
    request: HttpRequest,
    timeouts: Timeouts,
    secrets: Iterable[str | None] = (),
) -> AsyncIterator[Body]:
    """Send *request* through *client* and yield its streamed :class:`Body`.

    Raises:
        ProviderError: a non-2xx answer (with the provider's message and ``Retry-After``),
            a redirect (``config``), or a connect / first-byte failure.
    """
    import httpx

    secrets = tuple(secrets)
    deadline = trio.current_time() + timeouts.first_byte
    built = client.build_request(
        request.method,
        request.url,
        params=request.params,
        content=request.content or None,
        headers=request.headers,
    )
    host = built.url.host
    response: httpx.Response | None = None
    try:
        with trio.move_on_at(deadline):
            try:
                response = await client.send(built, stream=True)
            except httpx.ConnectTimeout:
                raise ProviderError(
                    "network", f"could not connect to {host} within {timeouts.connect:g} s"
                ) from None
            except httpx.HTTPError as exc:
                raise _network_error(exc, f"could not reach {host}", secrets) from None
        if response is None:
            raise ProviderError("network", f"no answer from {host} for {timeouts.first_byte:g} s")
        # From now on each socket read may wait at most the idle limit. httpcore reads this
        # dict (shared with the request it was given) as it starts reading the body.
        limits = built.extensions.get("timeout")
        if isinstance(limits, dict):
            limits["read"] = timeouts.idle
        if 300 <= response.status_code < 400:
            raise _redirect_error(response, secrets)
        if response.status_code >= 400:
            body = b""
            with trio.move_on_at(max(deadline, trio.current_time() + 5)):
                try:
                    body = await response.aread()
                except httpx.HTTPError:
                    pass
            raise error_from_response(response.status_code, response.headers, body, secrets)
        yield Body(_reader(response, timeouts, secrets), deadline, timeouts)
    finally:
        if response is not None:
            # An answer read whole gives its connection back to the pool; any other
            # is closed, so a cancelled reply stops the server's work at once.
            with trio.CancelScope(shield=True), trio.move_on_after(2):
                await response.aclose()


async def get_json(
    client: httpx.AsyncClient,
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
