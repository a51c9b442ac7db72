"""JSON-RPC 2.0 over newline-delimited JSON, on trio: the wire of the Agent Client Protocol.

The official SDK (``agent-client-protocol``) gives the schema, the method router
(:func:`acp.agent.router.build_agent_router`, which validates each request's
params against the schema's models) and the error objects; its own connection
runs on asyncio, and harness runs on trio, so the stream itself is here.

A line that is not JSON is answered with a parse error (id ``null``), a message
that is not a JSON-RPC request, notification or response with "invalid request";
neither ends the connection. Each request runs in a task of its own, so a long
``session/prompt`` does not hold back a ``session/cancel``. End of input ends
:meth:`Connection.run`; the calls this side is waiting on then fail with
:class:`ConnectionClosed`.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import orjson
import trio
from acp.exceptions import RequestError
from pydantic import BaseModel, ValidationError

from harness.errors import HarnessError

__all__ = ["MAX_LINE", "AfterReply", "Connection", "ConnectionClosed", "Handler"]

#: the longest line read (an embedded resource can be a whole file)
MAX_LINE = 64 * 1024 * 1024

#: how long requests still being answered may take once the client's input ended
EOF_GRACE = 5.0

Handler = Callable[[str, Any, bool], Awaitable[Any]]


@attrs.frozen
class AfterReply:
    """A handler's result, and what to do once it is sent (see
    :meth:`Connection.after_reply`)."""

    result: Any
    then: Callable[[], Awaitable[None]]


class ConnectionClosed(HarnessError):
    """The client went away before answering a request harness sent it."""


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


class Connection:
    """One client on *receive* / *send*; requests go to *handler(method, params,
    is_notification)*, which returns the result or raises :class:`RequestError`.

    Attributes:
        log: where a failing handler is said (default: a line on stderr, never stdout).
    """

    def __init__(
        self,
        receive: trio.abc.ReceiveStream,
        send: trio.abc.SendStream,
        handler: Handler,
        *,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self._receive = receive
        self._send = send
        self._handler = handler
        self._lock = trio.Lock()
        self._next_id = 0
        self._pending: dict[int, trio.MemorySendChannel[dict[str, Any]]] = {}
        self._closed = False
        self._serving = 0
        self._served = trio.Event()
        self.log = log or (lambda text: print(f"harness acp: {text}", file=sys.stderr))

    @staticmethod
    def after_reply(result: Any, then: Callable[[], Awaitable[None]]) -> AfterReply:
        """Return this from a handler to run *then* once *result* is on the wire (a
        notification the client must see after the reply, such as a new session's
        commands)."""
        return AfterReply(result, then)

    @property
    def closed(self) -> bool:
        """True once the client's input ended or its output broke."""
        return self._closed

    # --- sending --------------------------------------------------------------------

    async def _write(self, message: dict[str, Any]) -> None:
        data = orjson.dumps(message) + b"\n"
        async with self._lock:
            if self._closed:
                raise ConnectionClosed("the client has gone")
            try:
                await self._send.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                self._close_pending()
                raise ConnectionClosed(f"the client has gone: {exc}") from None

    async def notify(self, method: str, params: Any) -> None:
        """Send a notification (no answer)."""
        await self._write({"jsonrpc": "2.0", "method": method, "params": _dump(params)})

    async def request(self, method: str, params: Any) -> Any:
        """Send a request and wait for its result.

        Raises:
            RequestError: the client answered with an error.
            ConnectionClosed: the client went away first.
        """
        request_id = self._next_id
        self._next_id += 1
        send, receive = trio.open_memory_channel[dict[str, Any]](1)
        self._pending[request_id] = send
        try:
            await self._write(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": _dump(params)}
            )
            try:
                answer = await receive.receive()
            except trio.EndOfChannel:
                raise ConnectionClosed("the client went away before answering") from None
        finally:
            self._pending.pop(request_id, None)
        if "error" in answer:
            err = answer["error"] if isinstance(answer["error"], dict) else {}
            raise RequestError(
                int(err.get("code", -32603)), str(err.get("message", "error")), err.get("data")
            )
        return answer.get("result")

    def _close_pending(self) -> None:
        self._closed = True
        for send in list(self._pending.values()):
            send.close()
        self._pending.clear()

    # --- receiving ------------------------------------------------------------------

    async def run(self, on_eof: Callable[[], Awaitable[None]] | None = None) -> None:
        """Read and dispatch messages until the client's input ends; then await
        *on_eof* (which should make the requests in flight end) and cancel the rest."""
        buffer = bytearray()
        try:
            async with trio.open_nursery() as nursery:
                while True:
                    try:
                        chunk = await self._receive.receive_some(1 << 16)
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        chunk = b""
                    if not chunk:
                        break
                    buffer += chunk
                    while (end := buffer.find(b"\n")) >= 0:
                        line = bytes(buffer[:end])
                        del buffer[: end + 1]
                        if line.strip():
                            self._dispatch(line, nursery)
                    if len(buffer) > MAX_LINE:
                        buffer.clear()
                        await self._error(
                            None, RequestError.invalid_request({"details": "line too long"})
                        )
                if buffer.strip():
                    self._dispatch(bytes(buffer), nursery)
                # the input ended: answers can no longer come
                self._close_pending_answers()
                if on_eof is not None:
                    await on_eof()
                with trio.move_on_after(EOF_GRACE):
                    while self._serving:  # answers already begun still go out
                        await self._served.wait()
                nursery.cancel_scope.cancel()
        finally:
            self._close_pending()

    def _close_pending_answers(self) -> None:
        for send in list(self._pending.values()):
            send.close()

    def _dispatch(self, line: bytes, nursery: trio.Nursery) -> None:
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            nursery.start_soon(self._error, None, RequestError.parse_error({"details": str(exc)}))
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            bad = RequestError.invalid_request({"details": "not a JSON-RPC 2.0 object"})
            nursery.start_soon(self._error, _id_of(message), bad)
            return
        method = message.get("method")
        if method is None and "id" in message:
            self._answer(message)
            return
        if not isinstance(method, str):
            bad = RequestError.invalid_request({"details": "method must be a string"})
            nursery.start_soon(self._error, _id_of(message), bad)
            return
        if "id" in message:
            nursery.start_soon(self._serve, message["id"], method, message.get("params"))
        else:
            nursery.start_soon(self._notified, method, message.get("params"))

    def _answer(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        send = self._pending.get(request_id) if isinstance(request_id, int) else None
        if send is None:
            return  # an answer to nothing we asked (or to a request we gave up on)
        try:
            send.send_nowait(message)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            pass  # answered twice: the first answer stands

    async def _serve(self, request_id: Any, method: str, params: Any) -> None:
        self._serving += 1
        try:
            await self._serve_one(request_id, method, params)
        finally:
            self._serving -= 1
            self._served.set()
            self._served = trio.Event()

    async def _serve_one(self, request_id: Any, method: str, params: Any) -> None:
        try:
            result = await self._handler(method, params, False)
        except RequestError as exc:
            await self._error(request_id, exc)
            return
        except ValidationError as exc:
            details = exc.errors(include_url=False, include_context=False, include_input=False)
            await self._error(request_id, RequestError.invalid_params({"errors": details}))
            return
        except Exception as exc:  # an answer, never a dropped connection
            self.log(f"{method} failed: {type(exc).__name__}: {exc}")
            await self._error(request_id, RequestError.internal_error({"details": str(exc)}))
            return
        then = None
        if isinstance(result, AfterReply):
            result, then = result.result, result.then
        try:
            await self._write({"jsonrpc": "2.0", "id": request_id, "result": _dump(result)})
            if then is not None:
                await then()
        except ConnectionClosed:
            pass

    async def _notified(self, method: str, params: Any) -> None:
        try:
            await self._handler(method, params, True)
        except (RequestError, ValidationError) as exc:
            self.log(f"notification {method} ignored: {exc}")
        except Exception as exc:
            self.log(f"notification {method} failed: {type(exc).__name__}: {exc}")

    async def _error(self, request_id: Any, error: RequestError) -> None:
        try:
            await self._write({"jsonrpc": "2.0", "id": request_id, "error": error.to_error_obj()})
        except ConnectionClosed:
            pass


def _id_of(message: Any) -> Any:
    if isinstance(message, dict):
        value = message.get("id")
        if isinstance(value, str | int) and not isinstance(value, bool):
            return value
    return None
