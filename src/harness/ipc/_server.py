"""The serving side of a channel: a request the peer sent, answered in a cancel scope.

The task that read a request serves it (the channel's lanes, see
:mod:`._channel`), inside a cancel scope that carries the request's deadline from
the moment it is read (sent as a relative timeout: trio's clock has a random
offset per process). So a handler is cancelled at its deadline at its next
checkpoint, whether or not it ever waited, and a ``Cancel`` from the caller
cancels that one scope. A cancelled handler is answered ``Cancelled``."""

from __future__ import annotations

import traceback
from typing import Protocol

import trio

from harness.ipc._envelope import Envelope, Error, Reply, Request, StreamEnd, StreamItem
from harness.ipc._messages import Message
from harness.ipc._router import Route, Router

__all__ = ["RequestServer", "Send"]


class Send(Protocol):
    """Sends one envelope to the peer (the channel's send)."""

    async def __call__(self, env: Envelope, *, then_yield: bool = True) -> None: ...


class RequestServer:
    """Runs the peer's requests through a :class:`Router`, answering over *send*.

    Args:
        router: who answers which request type.
        send: sends one envelope to the peer (the channel's send).
        send_quiet: the same, for an answer nobody may be left to read: it
            swallows the errors of a closed channel.
    """

    def __init__(self, router: Router, send: Send, send_quiet: Send) -> None:
        self._router = router
        self._send = send
        self._send_quiet = send_quiet
        self._scopes: dict[int, trio.CancelScope] = {}

    def __len__(self) -> int:
        return len(self._scopes)

    async def serve(self, req: Request, *, cancelled: bool = False) -> None:
        """Answer *req* in this task, in a cancel scope that carries its deadline;
        *cancelled*: its caller cancelled it already, so it is answered ``Cancelled``
        and its handler never runs."""
        if cancelled:
            await self._send_quiet(_cancelled(req), then_yield=False)
            return
        route = self._router.lookup(req.body)
        if route is None:
            tag = type(req.body).TAG
            failure = Error(req.id, "UnknownRequest", f"no handler for {tag!r}")
            await self._send_quiet(failure, then_yield=False)
            return
        scope = trio.CancelScope()
        if req.timeout is not None:
            scope.deadline = trio.current_time() + req.timeout
        self._scopes[req.id] = scope
        await self._serve(req, route, scope)

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
                failure = _cancelled(req)
        finally:
            if self._scopes.get(req.id) is scope:  # a peer may reuse an id; keep its scope
                del self._scopes[req.id]
        if failure is not None:
            await self._send_quiet(failure, then_yield=False)

    async def _answer(self, req: Request, route: Route) -> Error | None:
        """Run the handler and send its answer; the error to send if it raised.

        The answer is the last frame of this request, and the lane that serves it
        waits for its turn to read right after (or ends): that wait is the send's
        yield.
        """
        try:
            if route.stream is not None:

                async def emit(item: Message) -> None:
                    await self._send(StreamItem(req.id, item))

                await route.stream(req.body, emit)
                await self._send(StreamEnd(req.id), then_yield=False)
            else:
                assert route.reply is not None
                result = await route.reply(req.body)
                if not isinstance(result, Message):
                    raise TypeError(
                        f"handler for {type(req.body).TAG!r} returned "
                        f"{type(result).__name__}, not a Message"
                    )
                await self._send(Reply(req.id, result), then_yield=False)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return None  # the peer is gone; nobody is waiting for the answer
        except Exception as exc:
            return Error(
                req.id, type(exc).__name__, str(exc), "".join(traceback.format_exception(exc))
            )
        return None


def _cancelled(req: Request) -> Error:
    return Error(req.id, "Cancelled", "cancelled by the caller or its deadline")
