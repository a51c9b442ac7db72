"""The model worker's HTTP/1.1 client: h11 frames and parses, trio carries the bytes.

A model server on this machine answers in well under a millisecond, so what the
client spends is what every tool round pays. Through httpx a short streamed
request cost about 0.6 ms of CPU here, through h11 alone about 0.15 ms
(``python -m bench model``), and on a loaded two-core machine that difference
grew to several milliseconds a tool round. So this module keeps only what h11
leaves to its caller: connections (opened on demand, TLS for ``https://``, kept
while idle and checked before reuse) and a request's bytes in one write.

Errors are :class:`~harness.actors.model._provider.ProviderError` of kind
``network`` (``bad_response`` when the answer is not HTTP); a kept connection
that turns out dead before any byte of the answer is replaced once, silently.
"""

from __future__ import annotations

import functools
import select
import ssl
import time
import zlib
from collections.abc import Mapping
from urllib.parse import urlencode, urlsplit

import attrs
import h11
import trio

from harness.actors.model._provider import ProviderError
from harness.actors.model._request import HttpRequest

__all__ = ["HttpClient", "Response"]

_READ = 64 * 1024
_KEEP_IDLE = 4  # idle connections kept per server
# Servers drop idle connections after about this long (uvicorn: 5 s), and a
# request sent on one just as the server drops it fails: not longer.
_KEEP_FOR = 5.0
_OWN_HEADERS = frozenset({"host", "accept-encoding", "user-agent", "content-length"})


@attrs.frozen
class _Target:
    scheme: str
    host: str
    port: int
    authority: str  # the Host header
    path: str  # path and query


@functools.lru_cache(maxsize=64)
def _split(url: str) -> _Target:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ProviderError("config", f"not an http(s) address: {url!r}")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    port = parts.port or (443 if scheme == "https" else 80)
    authority = parts.netloc.rpartition("@")[2]
    return _Target(scheme, parts.hostname or "", port, authority, path)


def _serialise(conn: _Connection, request: HttpRequest, target: _Target) -> bytes:
    """The whole request, head and body, for one write."""
    path = target.path
    if request.params:
        path += ("&" if "?" in path else "?") + urlencode(request.params)
    headers = [
        ("host", target.authority),
        # a streamed reply is wanted token by token: nothing to inflate in the
        # common case (one that comes gzipped anyway is inflated)
        ("accept-encoding", "identity"),
        ("user-agent", "harness"),
        *((k, v) for k, v in request.headers.items() if k.lower() not in _OWN_HEADERS),
    ]
    if not any(k.lower() == "accept" for k, _ in headers):
        headers.append(("accept", "*/*"))
    body = request.content
    if body or request.method in ("POST", "PUT", "PATCH"):
        headers.append(("content-length", str(len(body))))
    events: list[h11.Event] = [h11.Request(method=request.method, target=path, headers=headers)]
    if body:
        events.append(h11.Data(data=body))
    events.append(h11.EndOfMessage())
    return b"".join(conn.h11.send(event) or b"" for event in events)


class _Stale(Exception):
    """A kept connection was dead before any byte of the answer came back."""


class _Connection:
    """One TCP (or TLS) connection and h11's state for it."""

    def __init__(self, stream: trio.abc.Stream, sock: trio.socket.SocketType) -> None:
        self.stream = stream
        self.sock = sock  # the TCP socket, under any TLS
        self.h11 = h11.Connection(h11.CLIENT)
        self.idle_since = 0.0

    def usable(self) -> bool:
        """An idle connection can take a request when it is fresh and has nothing to
        say: anything readable is the server's EOF or bytes nobody asked for."""
        if time.monotonic() - self.idle_since > _KEEP_FOR:
            return False
        readable, _, _ = select.select([self.sock], [], [], 0)
        return not readable

    async def receive(self, idle: float | None) -> bytes:
        """The next bytes from the server (``b""`` at EOF), waiting at most *idle* s."""
        # bytes() of bytes is the same object; TLS hands over a bytearray
        try:
            if idle is None:
                return bytes(await self.stream.receive_some(_READ))
            with trio.move_on_after(idle):
                return bytes(await self.stream.receive_some(_READ))
        except (trio.BrokenResourceError, OSError) as exc:
            raise ProviderError("network", f"the connection broke: {exc}") from None
        raise ProviderError("network", f"the stream went silent for {idle:g} s; gave up")

    async def next_event(self, idle: float | None) -> object:
        """h11's next event (never ``NEED_DATA``), reading from the server as it needs."""
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise ProviderError("network", f"the connection broke: {exc}") from None
            if event is not h11.NEED_DATA:
                return event
            self.h11.receive_data(await self.receive(idle))

    async def aclose(self) -> None:
        await trio.aclose_forcefully(self.stream)


class Response:
    """One answer: its status and headers, then the body in :meth:`next_chunk`.

    Attributes:
        status: the HTTP status.
        headers: the headers, names lower-cased (the last of repeated ones).
        idle: seconds a body read may wait for the server (``None``: no limit).
    """

    def __init__(
        self, client: HttpClient, target: _Target, conn: _Connection, head: h11.Response
    ) -> None:
        self._client = client
        self._target = target
        self._conn: _Connection | None = conn
        self.status = head.status_code
        self.headers: Mapping[str, str] = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in head.headers
        }
        self.idle: float | None = None
        self._done = False
        self._inflate: zlib._Decompress | None = None
        encoding = self.headers.get("content-encoding", "identity").strip().lower()
        if encoding in ("gzip", "deflate"):
            self._inflate = zlib.decompressobj(zlib.MAX_WBITS | 32)  # zlib or gzip header
        elif encoding not in ("identity", ""):
            raise ProviderError("bad_response", f"an answer encoded as {encoding!r}")

    async def next_chunk(self) -> bytes | None:
        """The next bytes of the body, or ``None`` at its end.

        Raises:
            ProviderError: ``network`` when the connection broke or went silent
                (past :attr:`idle`).
        """
        while not self._done:
            assert self._conn is not None, "read after close"
            event = await self._conn.next_event(self.idle)
            if isinstance(event, h11.Data):
                data = bytes(event.data)
                if self._inflate is not None:
                    data = self._inflate.decompress(data)
                if data:
                    return data
            elif isinstance(event, h11.EndOfMessage):
                self._done = True
        if self._inflate is not None:
            tail, self._inflate = self._inflate.flush(), None
            if tail:
                return tail
        return None

    async def read_all(self) -> bytes:
        """The whole body (an error answer's)."""
        parts = []
        while (chunk := await self.next_chunk()) is not None:
            parts.append(chunk)
        return b"".join(parts)

    async def aclose(self) -> None:
        """Give the connection back when the body was read whole and the server
        keeps it open; else close it, at once (a cancelled reply stops there)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if self._done and conn.h11.our_state is h11.DONE and conn.h11.their_state is h11.DONE:
            conn.h11.start_next_cycle()
            await self._client.keep(self._target, conn)
        else:
            await conn.aclose()


class HttpClient:
    """The worker's one HTTP client: connections per server, kept while idle.

    Args:
        connect_timeout: seconds to open a connection (TCP and TLS).
    """

    def __init__(self, connect_timeout: float) -> None:
        self._connect_timeout = connect_timeout
        self._idle: dict[tuple[str, str, int], list[_Connection]] = {}
        self._tls: ssl.SSLContext | None = None

    @property
    def tls_ready(self) -> bool:
        """Whether the TLS context (and its CA bundle) was made: only an
        ``https://`` request needs it, and loading it takes tens of ms."""
        return self._tls is not None

    def _tls_context(self) -> ssl.SSLContext:
        if self._tls is None:
            import certifi  # the bundle httpx and requests verify with

            self._tls = ssl.create_default_context(cafile=certifi.where())
        return self._tls

    async def keep(self, target: _Target, conn: _Connection) -> None:
        """Keep *conn* (its last answer read whole) for the next request."""
        idle = self._idle.setdefault((target.scheme, target.host, target.port), [])
        if len(idle) < _KEEP_IDLE:
            conn.idle_since = time.monotonic()
            idle.append(conn)
        else:
            await conn.aclose()

    async def _take(self, target: _Target) -> _Connection | None:
        idle = self._idle.get((target.scheme, target.host, target.port))
        while idle:
            conn = idle.pop()
            if conn.usable():
                return conn
            await conn.aclose()
        return None

    async def _connect(self, target: _Target) -> _Connection:
        host = target.host
        with trio.move_on_after(self._connect_timeout):
            try:
                tcp = await trio.open_tcp_stream(host, target.port)
                stream: trio.abc.Stream = tcp
                if target.scheme == "https":
                    tls = trio.SSLStream(
                        tcp, self._tls_context(), server_hostname=host, https_compatible=True
                    )
                    try:
                        await tls.do_handshake()
                    except BaseException:
                        await trio.aclose_forcefully(tcp)
                        raise
                    stream = tls
            except (OSError, trio.BrokenResourceError) as exc:
                cause = exc.__cause__ if isinstance(exc, trio.BrokenResourceError) else exc
                raise ProviderError("network", f"could not reach {host}: {cause or exc}") from None
            return _Connection(stream, tcp.socket)
        raise ProviderError(
            "network", f"could not connect to {host} within {self._connect_timeout:g} s"
        )

    async def send(self, request: HttpRequest) -> Response:
        """Send *request* in one write and read the answer's head; the caller reads
        the body and must :meth:`Response.aclose` it.

        Raises:
            ProviderError: ``network`` when the server cannot be reached or broke
                off; ``bad_response`` when the answer is not HTTP; ``config`` for
                an address that is not ``http(s)://``.
        """
        target = _split(request.url)
        for _ in range(2):
            conn = await self._take(target)
            reused = conn is not None
            if conn is None:
                conn = await self._connect(target)
            try:
                head = await self._exchange(conn, request, target, reused)
                return Response(self, target, conn, head)
            except _Stale:
                await conn.aclose()
            except BaseException:
                await conn.aclose()
                raise
        raise ProviderError("network", f"could not reach {target.host}: the connection was reset")

    async def _exchange(
        self, conn: _Connection, request: HttpRequest, target: _Target, reused: bool
    ) -> h11.Response:
        """Send *request* on *conn* and read the answer's head."""
        try:
            await conn.stream.send_all(_serialise(conn, request, target))
        except (trio.BrokenResourceError, OSError) as exc:
            if reused:
                raise _Stale from None
            raise ProviderError("network", f"could not reach {target.host}: {exc}") from None
        heard = False
        while True:
            try:
                event = conn.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise ProviderError("bad_response", f"not an HTTP answer: {exc}") from None
            if isinstance(event, h11.Response):
                return event
            if event is h11.NEED_DATA:
                try:
                    data = await conn.receive(None)
                except ProviderError:
                    if reused and not heard:
                        raise _Stale from None
                    raise
                if not data:
                    if reused and not heard:
                        raise _Stale
                    raise ProviderError("network", "the server closed the connection early")
                heard = True
                conn.h11.receive_data(data)
            # else an informational (1xx) answer: the real one follows

    async def aclose(self) -> None:
        """Close every idle connection."""
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                await conn.aclose()
