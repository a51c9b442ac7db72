"""The serving side of a channel: a task per request the peer sends.

Each request runs in a task of its own, inside a cancel scope that carries the
request's deadline from the start (sent as a relative timeout: trio's clock has
a random offset per process). So a handler is cancelled at its deadline at its
next checkpoint, whether or not it ever waited, and a ``Cancel`` from the
caller cancels that one scope. A cancelled handler is answered ``Cancelled``.
"""

from __future__ import annotations

import traceback
from collections.abc import Awaitable, Callable

import trio

from harness.ipc._envelope import Envelope, Error, Reply, Request, StreamEnd, StreamItem
from harness.ipc._messages import Message
from harness.ipc._router import Route, Router

__all__ = ["RequestServer"]


class RequestServer:
    """Runs the peer's requests through a :class:`Router`, answering over *send*.

    Args:
        router: who answers which request type.
        send: sends one envelope to the peer (the channel's send).
        send_quiet: the same, for an answer nobody may be left to read: it
            swallows the errors of a closed channel.
    """

    def __init__(
        self,
        router: Router,
        send: Callable[[Envelope], Awaitable[None]],
        send_quiet: Callable[[Envelope], Awaitable[None]],
    ) -> None:
        self._router = router
        self._send = send
        self._send_quiet = send_quiet
        self._scopes: dict[int, trio.CancelScope] = {}

    def __len__(self) -> int:
        return len(self._scopes)

    def start(self, nursery: trio.Nursery, req: Request) -> None:
        """Start serving *req* in a task of *nursery*."""
        route = self._router.lookup(req.body)
        if route is None:
            tag = type(req.body).TAG
            failure = Error(req.id, "UnknownRequest", f"no handler for {tag!r}")
            nursery.start_soon(self._send_quiet, failure)
            return
        scope = trio.CancelScope()
        if req.timeout is not None:
            scope.deadline = trio.current_time() + req.timeout
        self._scopes[req.id] = scope
        nursery.start_soon(self._serve, req, route, scope)

    def cancel(self, ident: int) -> None:
        """Cancel the handler of request *ident*, if it still runs."""
        scope = self._scopes.get(ident)
        if scope is not None:
            scope.cancel()

    def cancel_all(self) -> None:
        """Cancel every handler that runs."""
        for scope in self._scopes.values():
            scope.cancel()

    async def _serve(self, req: Request, route: Route, scope: trio.CancelScope) -> None:
        failure: Error | None = None
        try:
            with scope:
                failure = await self._answer(req, route)
            if scope.cancelled_caught:
                failure = Error(req.id, "Cancelled", "cancelled by the caller or its deadline")
        finally:
            if self._scopes.get(req.id) is scope:  # a peer may reuse an id; keep its scope
                del self._scopes[req.id]
        if failure is not None:
            await self._send_quiet(failure)

    async def _answer(self, req: Request, route: Route) -> Error | None:
        """Run the handler and send its answer; the error to send if it raised."""
        try:
            if route.stream is not None:

                async def emit(item: Message) -> None:
                    await self._send(StreamItem(req.id, item))

                await route.stream(req.body, emit)
                await self._send(StreamEnd(req.id))
            else:
                assert route.reply is not None
                result = await route.reply(req.body)
                if not isinstance(result, Message):
                    raise TypeError(
                        f"handler for {type(req.body).TAG!r} returned "
                        f"{type(result).__name__}, not a Message"
                    )
                await self._send(Reply(req.id, result))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return None  # the peer is gone; nobody is waiting for the answer
        except Exception as exc:
            return Error(
                req.id, type(exc).__name__, str(exc), "".join(traceback.format_exception(exc))
            )
        return None
