"""One answer read straight from a plain-HTTP socket: the head, then the body.

The status line and headers are parsed from the socket's bytes; the body comes
out framed by ``Content-Length``, chunked, or until the server closes, inflated
when the server gzipped it anyway. A connection is given back for reuse only when
its answer was read whole and the server keeps it open. See
:mod:`harness.actors.model._plain` for the client around it.
"""

from __future__ import annotations

import socket
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import trio

from harness.actors.model._provider import ProviderError

if TYPE_CHECKING:
    import httpx

__all__ = ["PlainResponse", "Stale", "close_socket"]

_READ = 64 * 1024
_MAX_HEAD = 64 * 1024

# framing of a body
_LENGTH, _CHUNKED, _UNTIL_CLOSE = 0, 1, 2
# where the chunked decoder is
_SIZE, _DATA, _DATA_END, _TRAILER, _DONE = 0, 1, 2, 3, 4


class Stale(Exception):
    """A reused connection was dead before any byte of the answer came back."""


def close_socket(sock: socket.socket) -> None:
    """Close *sock*, telling trio first (a task may be waiting on it)."""
    if sock.fileno() != -1:
        trio.lowlevel.notify_closing(sock)
        sock.close()


class PlainResponse:
    """One answer: its status and headers, then the body in :meth:`next_chunk`.

    Attributes:
        status: the HTTP status.
        raw_headers: ``(name, value)`` pairs as sent, names lower-cased.
        idle: seconds a body read may wait for the socket (``None``: no limit).
    """

    def __init__(self, sock: socket.socket, give_back: Callable[[socket.socket], None]) -> None:
        self._give_back = give_back
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
        import httpx  # only on that path

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
                        raise Stale from None
                    raise
                if not more:
                    if reused and not self._buf:
                        raise Stale
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
                if self._inflate is not None:
                    tail, self._inflate = self._inflate.flush(), None
                    if tail:
                        return tail
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
            self._give_back(sock)
        else:
            close_socket(sock)
