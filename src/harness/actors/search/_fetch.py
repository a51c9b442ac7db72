"""HTTP fetches with every limit a tool call needs: time, size, redirects, addresses.

Redirects are followed here, not by httpx, so that each hop is looked at: only
``http`` and ``https`` are followed (never ``file:`` or any other scheme), at most
``max_redirects`` of them, a cross-origin hop drops every header the caller gave
(credentials are for the host they were given to), and each connection is made
through :class:`~harness.actors.search._guard.GuardedBackend`, which refuses
link-local and metadata addresses on the address actually dialled.

Bodies are decoded here too, not by httpx, so that the byte cap counts DECODED
bytes while decoding: a small compressed answer that would inflate to gigabytes
stops at the cap. Only ``gzip`` and ``deflate`` are asked for and read, and a body
encoded more than once (``Content-Encoding: gzip, gzip``) is refused unread.
"""

from __future__ import annotations

import ssl
import zlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import attrs
import httpcore
import httpx
import trio

from harness.actors.search._guard import AddressRefused, GuardedBackend, Resolver
from harness.errors import ToolError

__all__ = ["FetchError", "Fetcher", "Hop", "Response"]

_REDIRECTS = (301, 302, 303, 307, 308)
_NETWORK_ERRORS = (
    httpx.HTTPError,
    httpx.InvalidURL,
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    httpcore.ProxyError,
    OSError,
)


class FetchError(ToolError):
    """A fetch that was refused or failed; the message is a sentence for the model."""

    def __init__(self, message: str, *, url: str = "", kind: str = "network") -> None:
        super().__init__(message)
        self.url = url
        self.kind = kind


@attrs.frozen
class Hop:
    """A redirect not followed: the request that would follow it.

    ``keep_body`` is false when the redirect turns the request into a ``GET``
    (303, or 301/302 after a ``POST``); ``keep_headers`` is false when it leaves the
    origin (the caller's headers, credentials among them, stay with their host).
    """

    url: str
    method: str
    keep_body: bool
    keep_headers: bool


@attrs.frozen
class Response:
    """What came back. ``body`` holds at most the byte cap; ``truncated`` says it was cut.

    ``skipped`` is true when the body was not read at all (the caller's ``want``
    refused its media type).
    """

    url: str
    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    content_type: str
    body: bytes
    truncated: bool = False
    skipped: bool = False
    redirects: tuple[str, ...] = ()
    next: Hop | None = None

    def header(self, name: str) -> str:
        """The first value of header *name* (``""`` when absent)."""
        low = name.lower()
        return next((v for k, v in self.headers if k.lower() == low), "")


class _Stream(httpx.AsyncByteStream):
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self._inner:
            yield part

    async def aclose(self) -> None:
        if hasattr(self._inner, "aclose"):
            await self._inner.aclose()


class _GuardedTransport(httpx.AsyncBaseTransport):
    """httpx's transport contract over an httpcore pool that dials through the guard."""

    def __init__(self, backend: GuardedBackend, ssl_context: ssl.SSLContext) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            network_backend=backend,
            max_connections=32,
            keepalive_expiry=20.0,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        req = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,  # type: ignore[arg-type]
            extensions=request.extensions,
        )
        resp = await self._pool.handle_async_request(req)
        return httpx.Response(
            status_code=resp.status,
            headers=resp.headers,
            stream=_Stream(resp.stream),
            extensions=resp.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


class Fetcher:
    """One client for the worker's lifetime (connections are kept between calls).

    Args:
        max_redirects: redirects followed per fetch.
        allow_link_local: let fetches reach link-local and metadata addresses.
        user_agent: the ``User-Agent`` sent unless the caller gives one.
        resolver: host, port -> addresses (default: the system's resolver).
    """

    def __init__(
        self,
        *,
        max_redirects: int = 5,
        allow_link_local: bool = False,
        user_agent: str = "harness",
        resolver: Resolver | None = None,
    ) -> None:
        self.max_redirects = max_redirects
        self._allow_link_local = allow_link_local
        self._user_agent = user_agent
        self._resolver = resolver
        self._ssl = httpx.create_ssl_context()  # made once: loading the CA store is slow
        # one pool per reach: a connection kept from a fetch that could reach this
        # machine must never serve one that could not
        self._clients: dict[bool, httpx.AsyncClient] = {}

    def _client(self, allow_private: bool) -> httpx.AsyncClient:
        client = self._clients.get(allow_private)
        if client is None:
            backend = GuardedBackend(
                allow_link_local=self._allow_link_local,
                allow_private=allow_private,
                resolver=self._resolver,
            )
            client = self._clients[allow_private] = httpx.AsyncClient(
                transport=_GuardedTransport(backend, self._ssl),
                follow_redirects=False,
                trust_env=False,
                timeout=None,
                # only what _Decoder reads, whatever httpx could decode with extra packages
                headers={"User-Agent": self._user_agent, "Accept-Encoding": "gzip, deflate"},
            )
        return client

    async def aclose(self) -> None:
        """Close every kept connection."""
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()

    async def fetch(
        self,
        url: str,
        *,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        timeout: float = 10.0,
        max_bytes: int = 5_000_000,
        want: Callable[[str], bool] | None = None,
        follow: bool = True,
        allow_private: bool = True,
    ) -> Response:
        """Make one request, following redirects, within *timeout* seconds in all.

        *want* sees the response's ``Content-Type``; when it returns false the body
        is not read (``skipped``). With *follow* false a redirect is not followed: it
        comes back as the response's ``next`` hop (checked like any redirect: scheme,
        count), for a caller that decides each hop itself. *allow_private* lets the
        connections reach this machine and private networks. Raises
        :class:`FetchError` for a refused scheme or address, too many redirects, a
        timeout or a network failure.
        """
        client = self._client(allow_private)
        with trio.move_on_after(timeout) as scope:
            return await self._fetch(
                client, url, method, dict(headers or {}), content, max_bytes, want, follow
            )
        assert scope.cancelled_caught
        raise FetchError(f"{url}: no complete answer within {timeout:g} s", url=url, kind="timeout")

    async def _fetch(
        self,
        client: httpx.AsyncClient,
        url: str,
        method: str,
        headers: dict[str, str],
        content: bytes | None,
        max_bytes: int,
        want: Callable[[str], bool] | None,
        follow: bool,
    ) -> Response:
        current = _parse(url, url)
        hops: list[str] = []
        while True:
            try:
                req = client.build_request(method, current, headers=headers, content=content)
                resp = await client.send(req, stream=True)
            except AddressRefused as exc:
                where = f" (reached by redirect from {url})" if hops else ""
                raise FetchError(
                    f"{current}{where}: {exc}", url=str(current), kind="refused"
                ) from None
            except _NETWORK_ERRORS as exc:
                raise FetchError(
                    f"{current}: {_describe(exc)}", url=str(current), kind="network"
                ) from exc
            try:
                location = resp.headers.get("location")
                if resp.status_code in _REDIRECTS and location:
                    target = _parse(location, str(current), base=current)
                    if len(hops) >= self.max_redirects:
                        raise FetchError(
                            f"{url}: more than {self.max_redirects} redirects (stopped at "
                            f"{target})",
                            url=url,
                            kind="redirects",
                        )
                    hops.append(str(target))
                    if target.scheme not in ("http", "https"):
                        raise FetchError(
                            f"{current} redirected to {target}: only http and https "
                            "redirects are followed",
                            url=str(target),
                            kind="refused",
                        )
                    same_origin = _origin(target) == _origin(current)
                    to_get = resp.status_code == 303 or (
                        resp.status_code in (301, 302) and method == "POST"
                    )
                    if to_get:
                        method = "GET" if method != "HEAD" else method
                    if not follow:
                        hop = Hop(str(target), method, not to_get, same_origin)
                        return _response(resp, current, "", b"", False, hops[:-1], next=hop)
                    if not same_origin:
                        headers = {}
                    if to_get:
                        content = None
                    current = target
                    continue
                ctype = resp.headers.get("content-type", "")
                if want is not None and not want(ctype):
                    return _response(resp, current, ctype, b"", False, hops, skipped=True)
                body, truncated = await _read(resp, max_bytes, str(current))
                return _response(resp, current, ctype, body, truncated, hops)
            except _NETWORK_ERRORS as exc:
                raise FetchError(
                    f"{current}: {_describe(exc)}", url=str(current), kind="network"
                ) from exc
            finally:
                # shielded: a fetch cut off by its deadline still closes its connection
                with trio.CancelScope(shield=True), trio.move_on_after(2):
                    await resp.aclose()


def _parse(text: str, label: str, base: httpx.URL | None = None) -> httpx.URL:
    try:
        target = base.join(text) if base is not None else httpx.URL(text)
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchError(f"{label}: not a URL ({exc})", url=text, kind="url") from exc
    if base is None and target.scheme not in ("http", "https"):
        raise FetchError(
            f"{text}: only http:// and https:// URLs are fetched", url=text, kind="refused"
        )
    if target.scheme in ("http", "https") and not target.host:
        raise FetchError(f"{text}: the URL names no host", url=text, kind="url")
    return target


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


class _Decoder:
    """One ``Content-Encoding`` undone piece by piece, never more than asked for at once."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._zlib: Any = None
        self._raw_deflate = False
        if coding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif coding == "deflate":
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS)
        self._pending = b""
        self._started = False

    def feed(self, data: bytes) -> None:
        """Take the next raw bytes (decoded later, as :meth:`take` asks)."""
        self._pending = self._pending + data if self._pending else data

    def take(self, limit: int) -> bytes:
        """At most *limit* decoded bytes of what was fed (``b""``: it needs more input)."""
        if self._zlib is None:
            out, self._pending = self._pending[:limit], self._pending[limit:]
            return out
        if not self._pending or self._zlib.eof:
            return b""
        try:
            out = self._zlib.decompress(self._pending, limit)
        except zlib.error:
            if self.coding != "deflate" or self._started:
                raise
            # "deflate" is sent both with and without zlib's header: the raw form then
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            out = self._zlib.decompress(self._pending, limit)
        self._started = True
        self._pending = self._zlib.unconsumed_tail
        return bytes(out)


def _decoder(resp: httpx.Response, url: str) -> _Decoder:
    codings = [
        c.strip().lower()
        for c in resp.headers.get_list("content-encoding", split_commas=True)
        if c.strip() and c.strip().lower() != "identity"
    ]
    if len(codings) > 1:
        raise FetchError(
            f"{url}: the response is encoded {len(codings)} times over ({', '.join(codings)}); "
            "a body encoded more than once is refused unread",
            url=url,
            kind="encoding",
        )
    coding = codings[0] if codings else "identity"
    if coding not in ("identity", "gzip", "x-gzip", "deflate"):
        raise FetchError(
            f"{url}: the response is encoded as {coding!r}, which is not read "
            "(only gzip and deflate are)",
            url=url,
            kind="encoding",
        )
    return _Decoder(coding)


async def _read(resp: httpx.Response, max_bytes: int, url: str) -> tuple[bytes, bool]:
    """At most *max_bytes* of the DECODED body, and whether there was more.

    The cap is applied while decoding: each step decodes at most the room left plus
    one byte (which tells a body cut at the cap from one that ends there), so memory
    stays near the cap whatever the compressed body would inflate to.
    """
    decoder = _decoder(resp, url)
    parts: list[bytes] = []
    size = 0
    try:
        async for raw in resp.aiter_raw():
            decoder.feed(raw)
            while True:
                out = decoder.take(max_bytes - size + 1)
                if not out:
                    break
                if size + len(out) > max_bytes:
                    parts.append(out[: max_bytes - size])
                    return b"".join(parts), True
                parts.append(out)
                size += len(out)
    except zlib.error as exc:
        raise FetchError(
            f"{url}: the {decoder.coding} body does not decode ({exc})", url=url, kind="encoding"
        ) from None
    return b"".join(parts), False


def _response(
    resp: httpx.Response,
    url: httpx.URL,
    ctype: str,
    body: bytes,
    truncated: bool,
    hops: list[str],
    *,
    skipped: bool = False,
    next: Hop | None = None,
) -> Response:
    return Response(
        url=str(url),
        status=resp.status_code,
        reason=resp.reason_phrase,
        headers=tuple(resp.headers.multi_items()),
        content_type=ctype,
        body=body,
        truncated=truncated,
        skipped=skipped,
        redirects=tuple(hops),
        next=next,
    )


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, httpcore.ConnectError | httpx.ConnectError):
        return f"could not connect ({text})"
    if isinstance(exc, httpcore.TimeoutException | httpx.TimeoutException):
        return f"timed out ({text})"
    return f"{type(exc).__name__}: {text}"
