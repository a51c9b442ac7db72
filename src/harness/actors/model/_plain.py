"""Streamed HTTP/1.1 over plain TCP: the model worker's path to servers without TLS.

A server on this machine or network (Ollama, llama.cpp, vLLM, LM Studio) answers
in well under a millisecond, so what the client itself spends is what every tool
round pays. Through httpx, httpcore and h11 a streamed request costs about a
millisecond of CPU; here the request goes out in one write, and the status line,
the headers and the chunked framing are parsed straight from the socket's bytes.
Idle connections are kept for the next request.

What this does not do goes through httpx (see :func:`~harness.actors.model._http.open_stream`):
TLS, proxies (the client ignores the environment's anyway), redirects (a 3xx
answer here is :class:`Redirected`, and the request is sent again with httpx).

Errors are :class:`~harness.actors.model._provider.ProviderError` of kind
``network``, worded as the httpx path words them; a connection kept idle that
turns out dead before any byte of the answer is replaced once, silently.
"""

from __future__ import annotations

import errno
import os
import socket
import zlib

import httpx
import trio

from harness.actors.model._provider import ProviderError
from harness.actors.model._request import HttpRequest, Target

__all__ = ["PlainPool", "PlainResponse", "Redirected"]

_READ = 64 * 1024
_MAX_HEAD = 64 * 1024
_KEEP_IDLE = 4  # idle connections kept per server
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_AGENT = "harness"

# framing of a body
_LENGTH, _CHUNKED, _UNTIL_CLOSE = 0, 1, 2
# where the chunked decoder is
_SIZE, _DATA, _DATA_END, _TRAILER, _DONE = 0, 1, 2, 3, 4


class Redirected(Exception):
    """The server answered with a redirect: send the request again with httpx."""


class _Stale(Exception):
    """A reused connection was dead before any byte of the answer came back."""


def _close(sock: socket.socket) -> None:
    if sock.fileno() != -1:
        trio.lowlevel.notify_closing(sock)
        sock.close()


def _alive(sock: socket.socket) -> bool:
    """An idle connection is usable when it has nothing to say: no EOF, no stray bytes."""
    try:
        sock.recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


async def _send_all(sock: socket.socket, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            sent = sock.send(view)
        except BlockingIOError:
            await trio.lowlevel.wait_writable(sock)
            continue
        view = view[sent:]


async def _connect(host: str, port: int) -> socket.socket:
    infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    last: OSError = OSError(errno.EADDRNOTAVAIL, f"no address for {host}")
    for family, kind, proto, _, addr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            err = sock.connect_ex(addr)
            if err == errno.EINPROGRESS:
                await trio.lowlevel.wait_writable(sock)
                err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if err:
                raise OSError(err, os.strerror(err))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        except OSError as exc:
            _close(sock)
            last = exc
        except BaseException:
            _close(sock)
            raise
    raise last


class PlainResponse:
    """One answer: its status and headers, then the body in :meth:`next_chunk`.

    Attributes:
        status: the HTTP status.
        raw_headers: ``(name, value)`` pairs as sent, names lower-cased.
        idle: seconds a body read may wait for the socket (``None``: no limit).
    """

    def __init__(self, pool: PlainPool, key: tuple[str, int], sock: socket.socket) -> None:
        self._pool = pool
        self._key = key
        self._sock = sock
        self._buf = bytearray()
        self.status = 0
        self.raw_headers: list[tuple[bytes, bytes]] = []
        self.idle: float | None = None
        self._framing = _UNTIL_CLOSE
        self._left = 0  # bytes of the body (_LENGTH) or of the current chunk (_CHUNKED)
        self._state = _SIZE
        self._done = False
        self._reusable = False
        self._inflate: zlib._Decompress | None = None

    @property
    def headers(self) -> httpx.Headers:
        """The headers, for the error path (``Retry-After``)."""
        return httpx.Headers(self.raw_headers)

    # ------------------------------------------------------------------ reading

    async def _fill(self) -> bool:
        """More bytes into the buffer; ``False`` at EOF."""
        sock = self._sock
        while True:
            try:
                data = sock.recv(_READ)
            except BlockingIOError:
                if self.idle is None:
                    await trio.lowlevel.wait_readable(sock)
                    continue
                with trio.move_on_after(self.idle):
                    await trio.lowlevel.wait_readable(sock)
                    continue
                raise ProviderError(
                    "network", f"the stream went silent for {self.idle:g} s; gave up"
                ) from None
            except OSError as exc:
                raise ProviderError("network", f"the connection broke: {exc}") from None
            if not data:
                return False
            self._buf += data
            return True

    async def read_head(self, method: str, reused: bool) -> None:
        """Read the status line and headers (skipping ``1xx`` answers)."""
        while True:
            while (end := self._buf.find(b"\r\n\r\n")) < 0:
                if len(self._buf) > _MAX_HEAD:
                    raise ProviderError("bad_response", "the answer's headers are too long")
                try:
                    more = await self._fill()
                except ProviderError:
                    if reused and not self._buf:
                        raise _Stale from None
                    raise
                if not more:
                    if reused and not self._buf:
                        raise _Stale
                    raise ProviderError("network", "the server closed the connection early")
            head = bytes(self._buf[:end])
            del self._buf[: end + 4]
            lines = head.split(b"\r\n")
            parts = lines[0].split(b" ", 2)
            try:
                version, self.status = parts[0], int(parts[1])
            except (IndexError, ValueError):
                raise ProviderError(
                    "bad_response", f"not an HTTP answer: {lines[0][:80]!r}"
                ) from None
            if 100 <= self.status < 200 and self.status != 101:
                continue
            break
        headers = []
        for line in lines[1:]:
            name, sep, value = line.partition(b":")
            if sep:
                headers.append((name.strip().lower(), value.strip()))
        self.raw_headers = headers
        self._frame(method, version, dict(headers))

    def _frame(self, method: str, version: bytes, headers: dict[bytes, bytes]) -> None:
        connection = headers.get(b"connection", b"").lower()
        keep = b"close" not in connection and (
            version == b"HTTP/1.1" or b"keep-alive" in connection
        )
        if method == "HEAD" or self.status in (204, 304) or self.status < 200:
            self._framing, self._left = _LENGTH, 0
        elif b"chunked" in headers.get(b"transfer-encoding", b"").lower():
            self._framing = _CHUNKED
        elif (length := headers.get(b"content-length")) is not None:
            try:
                self._framing, self._left = _LENGTH, int(length)
            except ValueError:
                raise ProviderError(
                    "bad_response", "a Content-Length that is not a number"
                ) from None
        else:
            self._framing, keep = _UNTIL_CLOSE, False
        self._reusable = keep
        if self._framing == _LENGTH and self._left == 0:
            self._done = True
        encoding = headers.get(b"content-encoding", b"identity").strip().lower()
        if encoding in (b"gzip", b"deflate"):
            self._inflate = zlib.decompressobj(zlib.MAX_WBITS | 32)  # zlib or gzip header
        elif encoding not in (b"identity", b""):
            raise ProviderError("bad_response", f"an answer encoded as {encoding.decode()!r}")

    async def next_chunk(self) -> bytes | None:
        """The next bytes of the body, or ``None`` at its end.

        Raises:
            ProviderError: ``network`` when the connection broke or went silent
                (past :attr:`idle`), ``bad_response`` for broken framing.
        """
        while True:
            data = self._take()
            if data:
                if self._inflate is not None:
                    data = self._inflate.decompress(data)
                    if not data:
                        continue
                return data
            if self._done:
                return None
            if not await self._fill():
                if self._framing == _UNTIL_CLOSE:
                    self._done = True
                    continue
                raise ProviderError(
                    "network", "the connection broke: the server closed it mid-answer"
                )

    async def read_all(self) -> bytes:
        """The whole body (an error answer's)."""
        parts = []
        while (chunk := await self.next_chunk()) is not None:
            parts.append(chunk)
        return b"".join(parts)

    def _take(self) -> bytes:
        buf = self._buf
        if not buf:
            return b""
        if self._framing == _UNTIL_CLOSE:
            data = bytes(buf)
            buf.clear()
            return data
        if self._framing == _LENGTH:
            n = min(self._left, len(buf))
            data = bytes(buf[:n])
            del buf[:n]
            self._left -= n
            self._done = self._left == 0
            return data
        return self._take_chunked()

    def _take_chunked(self) -> bytes:
        buf = self._buf
        out: list[bytes] = []
        pos = 0
        while True:
            state = self._state
            if state == _DATA:
                n = min(self._left, len(buf) - pos)
                if not n:
                    break
                out.append(bytes(buf[pos : pos + n]))
                pos += n
                self._left -= n
                if not self._left:
                    self._state = _DATA_END
            elif state == _DATA_END:
                if len(buf) - pos < 2:
                    break
                if buf[pos : pos + 2] != b"\r\n":
                    raise ProviderError("bad_response", "broken chunked framing")
                pos += 2
                self._state = _SIZE
            elif state in (_SIZE, _TRAILER):
                end = buf.find(b"\r\n", pos)
                if end < 0:
                    if len(buf) - pos > _MAX_HEAD:
                        raise ProviderError("bad_response", "broken chunked framing")
                    break
                line = bytes(buf[pos:end])
                pos = end + 2
                if state == _TRAILER:
                    if not line:
                        self._state = _DONE
                        self._done = True
                        break
                    continue
                try:
                    size = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise ProviderError("bad_response", "broken chunked framing") from None
                if size:
                    self._state, self._left = _DATA, size
                else:
                    self._state = _TRAILER
            else:
                break
        del buf[:pos]
        return b"".join(out)

    # ------------------------------------------------------------------ ending

    def close(self) -> None:
        """Give the connection back when the body was read whole, else close it."""
        sock, self._sock = self._sock, None  # type: ignore[assignment]
        if sock is None:
            return
        if self._done and self._reusable and not self._buf:
            self._pool.put(self._key, sock)
        else:
            _close(sock)


def _serialise(request: HttpRequest, target: Target) -> bytes:
    head = [
        f"{request.method} {target.path} HTTP/1.1",
        f"host: {target.authority}",
        "accept-encoding: identity",  # nothing to inflate in the common case
        f"user-agent: {_AGENT}",
    ]
    names = {"host", "accept-encoding", "user-agent", "content-length"}
    if "accept" not in (n.lower() for n in request.headers):
        head.append("accept: */*")
    head.extend(f"{k}: {v}" for k, v in request.headers.items() if k.lower() not in names)
    body = request.content
    if body or request.method in ("POST", "PUT", "PATCH"):
        head.append(f"content-length: {len(body)}")
    return "\r\n".join(head).encode("latin-1") + b"\r\n\r\n" + body


class PlainPool:
    """Connections to plain-HTTP servers: opened on demand, kept while idle."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int], list[socket.socket]] = {}

    def put(self, key: tuple[str, int], sock: socket.socket) -> None:
        """Keep *sock* (a connection whose last answer was read whole) for reuse."""
        idle = self._idle.setdefault(key, [])
        if len(idle) < _KEEP_IDLE:
            idle.append(sock)
        else:
            _close(sock)

    def _take(self, key: tuple[str, int]) -> socket.socket | None:
        idle = self._idle.get(key)
        while idle:
            sock = idle.pop()
            if _alive(sock):
                return sock
            _close(sock)
        return None

    async def send(
        self, request: HttpRequest, target: Target, connect_timeout: float
    ) -> PlainResponse:
        """Send *request* (to *target*, an ``http://`` one) and read the answer's
        head. The caller reads the body and must :meth:`PlainResponse.close` it.

        Raises:
            Redirected: a 3xx answer (nothing of it was read).
            ProviderError: ``network`` when the server cannot be reached or broke
                off; ``bad_response`` when the answer is not HTTP.
        """
        host = target.host
        key = (host, target.port)
        data = _serialise(request, target)
        for _ in range(2):
            sock = self._take(key)
            reused = sock is not None
            if sock is None:
                with trio.move_on_after(connect_timeout):
                    try:
                        sock = await _connect(*key)
                    except OSError as exc:
                        detail = f"could not reach {host}: {exc or type(exc).__name__}"
                        raise ProviderError("network", detail) from None
                if sock is None:
                    raise ProviderError(
                        "network", f"could not connect to {host} within {connect_timeout:g} s"
                    )
            response = PlainResponse(self, key, sock)
            try:
                try:
                    await _send_all(sock, data)
                except OSError as exc:
                    if reused:
                        raise _Stale from None
                    raise ProviderError("network", f"could not reach {host}: {exc}") from None
                await response.read_head(request.method, reused)
            except _Stale:
                response.close()
                continue
            except BaseException:
                response.close()
                raise
            if response.status in _REDIRECTS:
                response.close()
                raise Redirected
            return response
        raise ProviderError("network", f"could not reach {host}: the connection was reset")

    def aclose(self) -> None:
        """Close every idle connection."""
        for idle in self._idle.values():
            for sock in idle:
                _close(sock)
        self._idle.clear()
