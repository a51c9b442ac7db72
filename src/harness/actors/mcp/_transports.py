"""How a bridge reaches its server: the SDK's transports, the first stdio connection over
the pipes of a process started before the SDK was imported, and a watch on the read
stream that sees the server's end even when no call is in flight.

Imports the SDK: only bridge processes load it (through ``_bridge``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import mcp_types as types
import trio
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

__all__ = ["Watched", "WatchedRead", "early_transport", "http_transport", "sse_transport"]


class WatchedRead:
    """The SDK's read stream, telling the bridge when it ends (the server went away)."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> WatchedRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> WatchedRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class Watched:
    """A transport whose read stream is watched (see :class:`WatchedRead`)."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._inner.__aenter__()
        return WatchedRead(read, self._on_end), write

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


@asynccontextmanager
async def http_transport(
    url: str, headers: dict[str, str], *, auth: httpx2.Auth | None = None
) -> AsyncIterator[Any]:
    """Streamable HTTP, with *auth* (a sign-in, see ``_oauth``) on every request."""
    timeout = httpx2.Timeout(30.0, read=300.0)
    async with (
        httpx2.AsyncClient(headers=headers or None, timeout=timeout, auth=auth) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def sse_transport(
    url: str, headers: dict[str, str], *, timeout: float = 30.0, auth: httpx2.Auth | None = None
) -> Any:
    """The legacy SSE transport, with *auth* on every request."""
    return sse_client(url, headers=headers, timeout=timeout, auth=auth)


async def _stop_early(
    proc: subprocess.Popen[bytes], stdin: trio.lowlevel.FdStream, *, grace: float = 2.0
) -> None:
    """The MCP shutdown order, as the SDK's ``stdio_client`` does it: close stdin, wait
    *grace* seconds (the SDK's 2), SIGTERM the group, wait, SIGKILL it."""
    with contextlib.suppress(trio.ClosedResourceError, OSError):
        await stdin.aclose()
    # a pidfd turns readable when the process exits: the wait wakes on the exit itself
    with contextlib.suppress(OSError), _pidfd(proc.pid) as exited:
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                with contextlib.suppress(OSError):
                    os.killpg(proc.pid, sig)
            with trio.move_on_after(grace):
                await trio.lowlevel.wait_readable(exited)
            if proc.poll() is not None:
                return


@contextlib.contextmanager
def _pidfd(pid: int) -> Iterator[int]:
    fd = os.pidfd_open(pid)
    try:
        yield fd
    finally:
        trio.lowlevel.notify_closing(fd)
        os.close(fd)


@asynccontextmanager
async def early_transport(proc: subprocess.Popen[bytes]) -> AsyncIterator[Any]:
    """The SDK's stdio streams over a server process started before the SDK was imported
    (see ``_prespawn``): newline-delimited JSON-RPC on its stdin and stdout."""
    assert proc.stdin is not None
    assert proc.stdout is not None
    stdin = trio.lowlevel.FdStream(os.dup(proc.stdin.fileno()))
    stdout = trio.lowlevel.FdStream(os.dup(proc.stdout.fileno()))
    proc.stdin.close()
    proc.stdout.close()
    read_w, read_r = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_w, write_r = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        buffer = b""
        async with read_w:
            while True:
                try:
                    chunk = await stdout.receive_some(65536)
                except (trio.ClosedResourceError, OSError):
                    return
                if not chunk:
                    return
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    item: SessionMessage | Exception
                    try:
                        item = SessionMessage(
                            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                        )
                    except ValueError as exc:
                        item = exc
                    try:
                        await read_w.send(item)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        return

    async def writer() -> None:
        try:
            async with write_r:
                async for message in write_r:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await stdin.send_all((data + "\n").encode())
        except (trio.ClosedResourceError, trio.BrokenResourceError, OSError):
            await read_w.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(reader)
        nursery.start_soon(writer)
        try:
            yield read_r, write_w
        finally:
            with trio.CancelScope(shield=True):
                await _stop_early(proc, stdin)
                await stdout.aclose()
            nursery.cancel_scope.cancel()
