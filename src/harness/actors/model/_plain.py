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
import functools
import os
import socket

import trio

from harness.actors.model._plainbody import PlainResponse, Stale, close_socket
from harness.actors.model._provider import ProviderError
from harness.actors.model._request import HttpRequest, Target

__all__ = ["PlainPool", "PlainResponse", "Redirected"]

_KEEP_IDLE = 4  # idle connections kept per server
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_AGENT = "harness"


class Redirected(Exception):
    """The server answered with a redirect: send the request again with httpx."""


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
            close_socket(sock)
            last = exc
        except BaseException:
            close_socket(sock)
            raise
    raise last


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
            close_socket(sock)

    def _take(self, key: tuple[str, int]) -> socket.socket | None:
        idle = self._idle.get(key)
        while idle:
            sock = idle.pop()
            if _alive(sock):
                return sock
            close_socket(sock)
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
            response = PlainResponse(sock, functools.partial(self.put, key))
            try:
                try:
                    await _send_all(sock, data)
                except OSError as exc:
                    if reused:
                        raise Stale from None
                    raise ProviderError("network", f"could not reach {host}: {exc}") from None
                await response.read_head(request.method, reused)
            except Stale:
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
                close_socket(sock)
        self._idle.clear()
