"""A deterministic model served as a real OpenAI-compatible HTTP server on 127.0.0.1.

It plays a script of replies in order, one per ``POST /v1/chat/completions``,
streamed as Server-Sent Events in small chunks (or as one JSON body when the
request says ``"stream": false``), and records every request body it got so a test
can check exactly what was sent. ``GET /v1/models`` lists :attr:`ScriptedModel.models`.

A script entry is a :class:`Reply`, or a callable that takes the request body
(a dict) and returns one, for replies that depend on what was asked. When the
script runs out, the server answers 400 with a message saying so, which fails the
test that under-scripted it instead of hanging it. (Not a 5xx: harness retries those
with backoff, and a request past the script, most often the session's title asked after
the last reply, would then wait out seconds of backoff before it failed.)

Given an ``embedder`` (text -> vector), it also answers ``POST /v1/embeddings`` in
OpenAI's format (``{"data": [{"index", "embedding"}]}``), recording each request in
:attr:`ScriptedModel.embed_requests`; ``embed_stall`` seconds of silence first make it
a server that does not answer in time.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs

__all__ = ["Reply", "ScriptEntry", "ScriptedCall", "ScriptedModel", "call", "load_script", "reply"]


@attrs.frozen
class ScriptedCall:
    """One tool call of a scripted reply; ``arguments`` may be a raw (broken) string."""

    name: str
    arguments: dict[str, Any] | str
    id: str = ""


@attrs.frozen
class Reply:
    """One scripted model reply.

    Attributes:
        text: the visible answer, streamed in ``chunk`` character pieces.
        tool_calls: calls the model makes, streamed after the text with their
            arguments split across chunks (as real servers do).
        thinking: streamed first as ``reasoning_content`` deltas.
        usage: ``(prompt_tokens, completion_tokens)`` sent in a last usage chunk;
            ``None`` sends none. Default: an estimate from the request size.
        chunk: characters per streamed piece.
        delay: seconds to sleep before each piece (a slow model).
        stall: seconds to sleep after the first content piece (a model that stops mid-stream;
            a test cancels during it).
        status: an HTTP status other than 200 answers with ``error`` as the body.
        error: the error message for a non-200 status.
        finish_reason: overrides ``stop`` / ``tool_calls``.
    """

    text: str = ""
    tool_calls: tuple[ScriptedCall, ...] = ()
    thinking: str = ""
    usage: tuple[int, int] | str | None = "auto"
    chunk: int = 16
    delay: float = 0.0
    stall: float = 0.0
    status: int = 200
    error: str = ""
    finish_reason: str | None = None


ScriptEntry = Reply | Callable[[dict[str, Any]], Reply]


def call(
    name: str, arguments: dict[str, Any] | str | None = None, /, **kwargs: Any
) -> ScriptedCall:
    """A scripted tool call: ``call("read_file", path="a.txt")``."""
    return ScriptedCall(name=name, arguments=arguments if arguments is not None else kwargs)


def reply(text: str = "", *calls: ScriptedCall, **kwargs: Any) -> Reply:
    """A scripted reply: ``reply("done")`` or ``reply("", call("read_file", path="a"))``."""
    return Reply(text=text, tool_calls=tuple(calls), **kwargs)


class ScriptedModel:
    """Serve *script* on ``127.0.0.1`` (a free port) until :meth:`close`.

    Use as a context manager. ``base_url`` ends in ``/v1`` (the form
    ``OPENAI_BASE_URL`` takes); ``requests`` holds every chat request body in order.
    """

    def __init__(
        self,
        script: Iterable[ScriptEntry] = (),
        *,
        models: Iterable[str] = ("scripted",),
        embedder: Callable[[str], list[float]] | None = None,
        embed_stall: float = 0.0,
    ) -> None:
        self._script: list[ScriptEntry] = list(script)
        self.embedder = embedder
        self.embed_stall = embed_stall
        self.embed_requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._calls = 0
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.models = tuple(models)
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def add(self, *entries: ScriptEntry) -> None:
        """Append replies to the script (a test may script as it goes)."""
        with self._lock:
            self._script.extend(entries)

    @property
    def remaining(self) -> int:
        """Replies not played yet."""
        with self._lock:
            return len(self._script) - self._calls

    def wait_for_requests(self, n: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Block until at least *n* chat requests arrived (or raise TimeoutError)."""
        end = time.monotonic() + timeout
        with self._cond:
            while len(self.requests) < n:
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{len(self.requests)} of {n} requests arrived")
                self._cond.wait(left)
            return list(self.requests)

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[Reply | None, int]:
        with self._cond:
            self.requests.append(body)
            self.headers.append(headers)
            self._cond.notify_all()
            if self._calls >= len(self._script):
                return None, self._calls
            entry = self._script[self._calls]
            self._calls += 1
            n = self._calls
        return (entry(body) if callable(entry) else entry), n

    def close(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: ScriptedModel


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # many small SSE writes: without this, Nagle and delayed ACKs add ~40 ms a reply
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def _send_json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            owner = self.server.owner
            self._send_json(
                200,
                {"object": "list", "data": [{"id": m, "object": "model"} for m in owner.models]},
            )
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.rstrip("/").endswith("/embeddings"):
            self._embeddings(raw)
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send_json(400, {"error": {"message": "body is not JSON"}})
            return
        entry, n = self.server.owner._next(body, {k.lower(): v for k, v in self.headers.items()})
        if entry is None:
            self._send_json(
                400, {"error": {"message": "scripted model: the script has no more replies"}}
            )
            return
        if entry.status != 200:
            self._send_json(entry.status, {"error": {"message": entry.error or "scripted error"}})
            return
        if body.get("stream"):
            self._stream(entry, body, n)
        else:
            self._send_json(200, _whole(entry, body, n))

    def _embeddings(self, raw: bytes) -> None:
        owner = self.server.owner
        if owner.embedder is None:
            self._send_json(404, {"error": {"message": "this model has no embeddings"}})
            return
        body = json.loads(raw)
        with owner._lock:
            owner.embed_requests.append(body)
        if owner.embed_stall:
            time.sleep(owner.embed_stall)
        rows = [
            {"object": "embedding", "index": i, "embedding": owner.embedder(text)}
            for i, text in enumerate(body["input"])
        ]
        try:
            self._send_json(200, {"object": "list", "data": rows, "model": body["model"]})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up waiting

    def _stream(self, entry: Reply, body: dict[str, Any], n: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for i, chunk in enumerate(_chunks(entry, body, n)):
                if entry.delay:
                    time.sleep(entry.delay)
                payload = f"data: {json.dumps(chunk)}\n\n".encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
                self.wfile.flush()
                if i == 1 and entry.stall:  # after the first real piece
                    time.sleep(entry.stall)
            done = b"data: [DONE]\n\n"
            self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(done), done))
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away (a cancel)


def _usage(entry: Reply, body: dict[str, Any]) -> dict[str, int] | None:
    if entry.usage is None:
        return None
    if entry.usage == "auto":
        prompt = (
            len(json.dumps(body.get("messages", []))) + len(json.dumps(body.get("tools", [])))
        ) // 4
        completion = max(1, (len(entry.text) + len(entry.thinking)) // 4)
        for c in entry.tool_calls:
            completion += len(_args_text(c)) // 4 + 1
    else:
        prompt, completion = entry.usage  # type: ignore[misc]
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _args_text(c: ScriptedCall) -> str:
    return c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments)


def _call_id(c: ScriptedCall, n: int, i: int) -> str:
    # unique across the whole script, as real providers' ids are
    return c.id or f"call_{n}_{i}"


def _finish(entry: Reply) -> str:
    return entry.finish_reason or ("tool_calls" if entry.tool_calls else "stop")


def _frame(
    body: dict[str, Any], delta: dict[str, Any], finish: str | None = None
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _pieces(text: str, size: int) -> Iterator[str]:
    size = max(1, size)
    for i in range(0, len(text), size):
        yield text[i : i + size]


def _chunks(entry: Reply, body: dict[str, Any], n: int) -> Iterator[dict[str, Any]]:
    yield _frame(body, {"role": "assistant", "content": ""})
    for piece in _pieces(entry.thinking, entry.chunk):
        yield _frame(body, {"reasoning_content": piece})
    for piece in _pieces(entry.text, entry.chunk):
        yield _frame(body, {"content": piece})
    for i, c in enumerate(entry.tool_calls):
        yield _frame(
            body,
            {
                "tool_calls": [
                    {
                        "index": i,
                        "id": _call_id(c, n, i),
                        "type": "function",
                        "function": {"name": c.name, "arguments": ""},
                    }
                ]
            },
        )
        for piece in _pieces(_args_text(c), entry.chunk):
            yield _frame(body, {"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
    yield _frame(body, {}, _finish(entry))
    usage = _usage(entry, body)
    if usage is not None:
        last = _frame(body, {})
        last["choices"] = []
        last["usage"] = usage
        yield last


def _whole(entry: Reply, body: dict[str, Any], n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": entry.text or None}
    if entry.tool_calls:
        message["tool_calls"] = [
            {
                "id": _call_id(c, n, i),
                "type": "function",
                "function": {"name": c.name, "arguments": _args_text(c)},
            }
            for i, c in enumerate(entry.tool_calls)
        ]
    out: dict[str, Any] = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(entry)}],
    }
    usage = _usage(entry, body)
    if usage is not None:
        out["usage"] = usage
    return out


def load_script(data: Any) -> list[Reply]:
    """Replies from JSON data: ``[{"text": ..., "tool_calls": [{"name", "arguments"}]}, ...]``."""
    out: list[Reply] = []
    for item in data:
        calls = tuple(
            ScriptedCall(name=c["name"], arguments=c.get("arguments", {}), id=c.get("id", ""))
            for c in item.get("tool_calls", ())
        )
        fields = {k: v for k, v in item.items() if k != "tool_calls"}
        if isinstance(fields.get("usage"), list):
            fields["usage"] = tuple(fields["usage"])
        out.append(Reply(tool_calls=calls, **fields))
    return out
