"""A scripted HTTP/1.1 server on 127.0.0.1 that speaks whatever body a test gives it.

Each reply is a script: status, headers, body pieces sent one by one with a delay, then
the end, a hang (the socket stays open, silent), or a drop (closed mid-body). A reply may
also never send a byte, or close the connection without one. Every request is recorded,
and the moment the client hangs up is noted, so tests see that cancelling closes the
connection.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any

import attrs
import trio


@attrs.define
class Reply:
    status: int = 200
    chunks: list[bytes] = attrs.Factory(list)
    headers: dict[str, str] = attrs.Factory(dict)
    delay: float = 0.0
    then: str = "end"  # end | hang | drop | close (the whole body, then close)
    silent: bool = False  # never send a byte
    hang_up: bool = False  # close the connection without a byte
    framing: str = "chunked"  # chunked | length (Content-Length) | close (until EOF)


@attrs.define
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def pieces(data: str | bytes, size: int = 7) -> list[bytes]:
    """*data* cut into pieces of *size* bytes (cutting through UTF-8 sequences too)."""
    raw = data.encode() if isinstance(data, str) else data
    return [raw[i : i + size] for i in range(0, len(raw), size)]


def sse(*events: Any, done: bool = False, event_names: bool = False) -> bytes:
    out = []
    for ev in events:
        if isinstance(ev, bytes):
            out.append(ev)
            continue
        name = f"event: {ev.get('type')}\n" if event_names else ""
        out.append(f"{name}data: {json.dumps(ev)}\n\n".encode())
    if done:
        out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def ndjson(*objs: Any) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


class LoopbackServer:
    def __init__(self) -> None:
        self.port = 0
        self.requests: list[Recorded] = []
        self.hangups: list[float] = []
        self.hung_up = trio.Event()
        self.connections = 0
        self._replies: dict[str, deque[Reply]] = defaultdict(deque)
        self._default: dict[str, Reply] = {}
        self._answers: dict[str, Callable[[Recorded], Reply]] = {}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def queue(self, path: str, *replies: Reply) -> None:
        """Replies for requests whose path starts with *path*, in order."""
        self._replies[path].extend(replies)

    def always(self, path: str, reply: Reply) -> None:
        self._default[path] = reply

    def answer(self, path: str, fn: Callable[[Recorded], Reply]) -> None:
        """Answer requests whose path starts with *path* with ``fn(request)`` (after
        any queued reply)."""
        self._answers[path] = fn

    def _pick(self, req: Recorded) -> Reply:
        path = req.path
        for prefix in sorted(self._replies, key=len, reverse=True):
            if path.startswith(prefix) and self._replies[prefix]:
                return self._replies[prefix].popleft()
        for prefix in sorted(self._answers, key=len, reverse=True):
            if path.startswith(prefix):
                return self._answers[prefix](req)
        for prefix in sorted(self._default, key=len, reverse=True):
            if path.startswith(prefix):
                return self._default[prefix]
        return Reply(404, [b'{"error": {"message": "no script for this path"}}'])

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started()
        await trio.serve_listeners(self._conn, listeners)

    async def _read_request(self, stream: trio.SocketStream, buf: bytearray) -> Recorded | None:
        while b"\r\n\r\n" not in buf:
            data = await stream.receive_some(65536)
            if not data:
                return None
            buf += data
        head, _, rest = bytes(buf).partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        length = int(headers.get("content-length", "0"))
        body = bytearray(rest)
        while len(body) < length:
            data = await stream.receive_some(65536)
            if not data:
                return None
            body += data
        buf[:] = body[length:]
        return Recorded(method, target, headers, bytes(body[:length]))

    async def _conn(self, stream: trio.SocketStream) -> None:
        self.connections += 1
        buf = bytearray()
        try:
            while True:
                req = await self._read_request(stream, buf)
                if req is None:
                    return
                self.requests.append(req)
                reply = self._pick(req)
                keep = False
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._watch_hangup, stream, nursery.cancel_scope, buf)
                    try:
                        keep = await self._send(stream, reply)
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        # the client hung up mid-answer; inside the nursery this would
                        # reach serve_listeners as a group and end every connection
                        self._note_hangup()
                        keep = False
                    nursery.cancel_scope.cancel()
                if not keep:
                    return
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._note_hangup()
        finally:
            await stream.aclose()

    def _note_hangup(self) -> None:
        self.hangups.append(trio.current_time())
        self.hung_up.set()

    async def _watch_hangup(
        self, stream: trio.SocketStream, scope: trio.CancelScope, buf: bytearray
    ) -> None:
        while True:
            try:
                data = await stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                data = b""
            if not data:
                self._note_hangup()
                scope.cancel()
                return
            buf += data  # the start of the next request: keep it

    async def _send(self, stream: trio.SocketStream, reply: Reply) -> bool:
        if reply.silent:
            await trio.sleep_forever()
        if reply.hang_up:
            return False
        headers = {"content-type": "application/json", **reply.headers}
        if reply.framing == "chunked":
            headers["transfer-encoding"] = "chunked"
        elif reply.framing == "length":
            headers["content-length"] = str(sum(len(c) for c in reply.chunks))
        head = f"HTTP/1.1 {reply.status} X\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in headers.items()
        )
        await stream.send_all(head.encode() + b"\r\n")
        for chunk in reply.chunks:
            if reply.delay:
                await trio.sleep(reply.delay)
            if chunk and reply.framing == "chunked":
                await stream.send_all(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            elif chunk:
                await stream.send_all(chunk)
        if reply.then == "hang":
            await trio.sleep_forever()
        if reply.then == "drop" or reply.framing == "close":
            return False
        if reply.framing == "chunked":
            await stream.send_all(b"0\r\n\r\n")
        return reply.then != "close"
