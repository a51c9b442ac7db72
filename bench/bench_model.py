"""Benchmarks of the model stream: what parsing and events cost beside the bare read.

For each provider format (OpenAI SSE, Anthropic SSE, Gemini SSE, Ollama NDJSON):

- decode per chunk: the decoder plus the streaming filter on one realistic chunk (one
  token), in microseconds and as a share of the 1 ms between chunks at 1,000 chunks/s;
- stream overhead: a loopback server streams 1,000 chunks/s; the CPU the whole pipeline
  (HTTP client, timeouts, decoder, filter, engine, events) spends beyond an httpx client
  that only reads the bytes (same server, same run), as a share of one core over the
  stream's nominal second. Goal: under 5 %;
- first event: from the server sending the first chunk to the first event out, beside
  the bare read seeing its first byte;
- a short request: the client CPU one short reply sent at once costs through the whole
  engine, on a kept connection, beside an httpx client that only reads the bytes: what
  every tool round pays for its HTTP exchange.

Run: ``python -m bench.bench_model`` (or ``make bench``).
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import httpx
import trio

from harness.actors.model._anthropic import AnthropicDecoder
from harness.actors.model._chat import ModelEngine
from harness.actors.model._filter import TextStreamFilter
from harness.actors.model._gemini import GeminiDecoder
from harness.actors.model._ollama import OllamaDecoder
from harness.actors.model._openai import OpenAIDecoder
from harness.messages.model import ChatMessage, ChatRequest, TextDelta

RATE = 1000  # chunks per second
STREAM_CHUNKS = 1000
REPS = 2
TOKEN = "tok "
QUICK_CHUNKS = 3  # a short reply, sent at once
QUICK_REQUESTS = 50
QUICK_ROUNDS = 5


def _sse(obj: Any) -> bytes:
    return f"data: {json.dumps(obj)}\n\n".encode()


def _openai(n: int) -> list[bytes]:
    body = [
        _sse(
            {
                "id": "c",
                "choices": [{"index": 0, "delta": {"content": TOKEN}, "finish_reason": None}],
            }
        )
        for _ in range(n)
    ]
    return [
        *body,
        _sse({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        b"data: [DONE]\n\n",
    ]


def _anthropic(n: int) -> list[bytes]:
    def ev(obj: dict[str, Any]) -> bytes:
        return f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n".encode()

    head = [
        ev({"type": "message_start", "message": {"usage": {"input_tokens": 1}}}),
        ev({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}),
    ]
    body = [
        ev(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": TOKEN},
            }
        )
        for _ in range(n)
    ]
    tail = [
        ev({"type": "content_block_stop", "index": 0}),
        ev({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}}),
        ev({"type": "message_stop"}),
    ]
    return head + body + tail


def _gemini(n: int) -> list[bytes]:
    body = [
        _sse({"candidates": [{"content": {"role": "model", "parts": [{"text": TOKEN}]}}]})
        for _ in range(n)
    ]
    return [
        *body,
        _sse({"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}]}),
    ]


def _ollama(n: int) -> list[bytes]:
    line = {"model": "m", "message": {"role": "assistant", "content": TOKEN}, "done": False}
    body = [json.dumps(line).encode() + b"\n" for _ in range(n)]
    return [*body, b'{"model": "m", "done": true, "done_reason": "stop"}\n']


FORMATS: dict[str, tuple[str, str, Callable[[int], list[bytes]], Callable[[], Any]]] = {
    "openai": ("openai", "/v1/chat/completions", _openai, OpenAIDecoder),
    "anthropic": ("anthropic", "/v1/messages", _anthropic, AnthropicDecoder),
    "gemini": ("gemini", "/v1beta/models/m:streamGenerateContent", _gemini, GeminiDecoder),
    "ollama": ("ollama", "/api/chat", _ollama, OllamaDecoder),
}


def decode_cost(make_chunks: Callable[[int], list[bytes]], decoder: Callable[[], Any]) -> float:
    """Seconds per chunk for decoder + filter, best of five."""
    chunks = make_chunks(5000)
    best = float("inf")
    for _ in range(5):
        dec, filt = decoder(), TextStreamFilter({"read_file": ("path",)})
        start = time.perf_counter()
        for c in chunks:
            for ev in dec.feed(c):
                if isinstance(ev, TextDelta):
                    filt.feed(ev.text)
        dec.close()
        filt.finish()
        best = min(best, (time.perf_counter() - start) / len(chunks))
    return best


class _Server:
    """Streams a prepared body at RATE chunks a second; notes when the first chunk left."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.first_content = 0  # index of the first chunk that carries text
        self.rate = RATE
        self.first_sent = 0.0
        self.port = 0

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started()
        await trio.serve_listeners(self._conn, listeners)

    async def _conn(self, stream: trio.SocketStream) -> None:
        buf = b""
        while True:  # requests in a row on a kept connection, until the client closes it
            while b"\r\n\r\n" not in buf:
                data = await stream.receive_some(65536)
                if not data:
                    await stream.aclose()
                    return
                buf += data
            head, _, rest = buf.partition(b"\r\n\r\n")
            lines = head.lower().split(b"\r\n")[1:]
            headers = dict(ln.split(b":", 1) for ln in lines if b":" in ln)
            length = int(headers.get(b"content-length", b"0"))
            while len(rest) < length:
                rest += await stream.receive_some(65536)
            buf = rest[length:]
            await self._answer(stream, head.split(b" ")[1].decode())

    async def _answer(self, stream: trio.SocketStream, target: str) -> None:
        # The path says what to send: /n<chunks>r<rate>/<the provider's own path>;
        # rate 0 sends everything at once.
        m = re.match(r"/n(\d+)r(\d+)(/.*)", target)
        assert m is not None
        count, self.rate, path = int(m.group(1)), int(m.group(2)), m.group(3)
        name = next(n for n, f in FORMATS.items() if path.startswith(f[1]))
        self.chunks = FORMATS[name][2](count)
        self.first_content = 2 if name == "anthropic" else 0
        framed = [b"%x\r\n%s\r\n" % (len(c), c) for c in self.chunks]
        head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
        if not self.rate:
            await stream.send_all(head + b"".join(framed) + b"0\r\n\r\n")
            return
        await stream.send_all(head)
        period = 1 / self.rate
        for c in framed[: self.first_content]:
            await stream.send_all(c)
        await trio.sleep(0.01)  # the preamble has surely arrived before the first token
        start = trio.current_time()
        for i, c in enumerate(framed[self.first_content :]):
            await trio.sleep_until(start + i * period)
            if i == 0:
                self.first_sent = trio.current_time()
            await stream.send_all(c)
        await stream.send_all(b"0\r\n\r\n")


async def _bare(server: _Server, url: str) -> tuple[float, float, float]:
    """(wall s, cpu s, first byte after send s) for a client that only reads."""
    arrivals: list[float] = []
    async with httpx.AsyncClient() as client:
        wall, cpu = time.perf_counter(), time.process_time()
        async with client.stream("POST", url, content=b"{}") as resp:
            async for _chunk in resp.aiter_raw():
                arrivals.append(trio.current_time())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    first = next((t for t in arrivals if t >= server.first_sent), server.first_sent)
    return wall, cpu, first - server.first_sent


async def _full(server: _Server, engine: ModelEngine, provider: str) -> tuple[float, float, float]:
    """(wall s, cpu s, first event after send s) through the whole engine."""
    first = 0.0

    async def emit(ev: object) -> None:
        nonlocal first
        if not first and isinstance(ev, TextDelta):
            first = trio.current_time()

    req = ChatRequest(provider=provider, models=("m",), messages=(ChatMessage("user", "hi"),))
    wall, cpu = time.perf_counter(), time.process_time()
    await engine.chat(req, emit)
    return time.perf_counter() - wall, time.process_time() - cpu, first - server.first_sent


def _env(home: str, base: str) -> dict[str, str]:
    return {
        "HARNESS_HOME": home,
        "OLLAMA_BASE_URL": base,
        "OPENAI_BASE_URL": base + "/v1",
        "ANTHROPIC_BASE_URL": base,
        "GEMINI_BASE_URL": base,
        "OPENAI_API_KEY": "k",
        "ANTHROPIC_API_KEY": "k",
        "GEMINI_API_KEY": "k",
    }


async def _cpu(port: int) -> dict[str, tuple[float, float]]:
    """Client CPU seconds (bare, full) per format against the server process on *port*."""
    out: dict[str, tuple[float, float]] = {}
    base = f"http://127.0.0.1:{port}/n{STREAM_CHUNKS}r{RATE}"
    dummy = _Server()
    with tempfile.TemporaryDirectory() as home:
        engine = ModelEngine(_env(home, base))
        for name, (provider, path, _make, _dec) in FORMATS.items():
            # The least CPU of a few runs: other processes only ever add to it.
            bare = min([(await _bare(dummy, base + path))[1] for _ in range(REPS)])
            full = min([(await _full(dummy, engine, provider))[1] for _ in range(REPS)])
            out[name] = (bare, full)
        await engine.aclose()
    return out


async def _first_events() -> dict[str, tuple[float, float]]:
    """Median seconds from sending the first token to seeing it (bare, full) per format."""
    out: dict[str, tuple[float, float]] = {}
    server = _Server()
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        base = f"http://127.0.0.1:{server.port}/n3r200"
        with tempfile.TemporaryDirectory() as home:
            engine = ModelEngine(_env(home, base))
            for name, (provider, path, _make, _dec) in FORMATS.items():
                bare = [(await _bare(server, base + path))[2] for _ in range(5)]
                full = [(await _full(server, engine, provider))[2] for _ in range(5)]
                out[name] = (statistics.median(bare), statistics.median(full))
            await engine.aclose()
        nursery.cancel_scope.cancel()
    return out


async def _per_request(port: int) -> tuple[float, float]:
    """Client CPU seconds a request (bare, full) for short replies sent at once, on a
    kept connection: what each tool round pays for the HTTP exchange itself."""
    base = f"http://127.0.0.1:{port}/n{QUICK_CHUNKS}r0"
    url = base + FORMATS["openai"][1]
    dummy = _Server()
    with tempfile.TemporaryDirectory() as home:
        engine = ModelEngine(_env(home, base))
        async with httpx.AsyncClient() as client:

            async def bare() -> None:
                async with client.stream("POST", url, content=b"{}") as resp:
                    async for _chunk in resp.aiter_raw():
                        pass

            async def full() -> None:
                await _full(dummy, engine, "openai")

            best = {bare: float("inf"), full: float("inf")}
            for _ in range(QUICK_ROUNDS):
                for one in (bare, full):  # alternating, so a change of load hits both
                    cpu = time.process_time()
                    for _ in range(QUICK_REQUESTS):
                        await one()
                    cpu = (time.process_time() - cpu) / QUICK_REQUESTS
                    best[one] = min(best[one], cpu)
        await engine.aclose()
    return best[bare], best[full]


def _serve() -> None:
    async def main() -> None:
        server = _Server()
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            print(server.port, flush=True)

    trio.run(main)


def run() -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    for name, (_p, _path, make, dec) in FORMATS.items():
        per = decode_cost(make, dec)
        rows.append(
            (
                f"{name}: decode + filter, one chunk",
                f"{per * 1e6:.1f} µs",
                f"{per * RATE * 100:.2f} % of the 1 ms between chunks at {RATE}/s",
            )
        )
    # The server streams from its own process, so this process's CPU is the client's alone.
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.bench_model", "--serve"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        cpu = trio.run(_cpu, port)
        per_request = trio.run(_per_request, port)
    finally:
        proc.kill()
        proc.wait()
    firsts = trio.run(_first_events)
    seconds = STREAM_CHUNKS / RATE
    for name in FORMATS:
        bare, full = cpu[name]
        rows.append(
            (
                f"{name}: CPU beyond the bare read, {RATE} chunks/s",
                f"{(full - bare) / seconds * 100:+.1f} % of a core",
                f"bare read {bare / seconds * 100:.1f} %, whole pipeline "
                f"{full / seconds * 100:.1f} % (goal: extra < 5 %)",
            )
        )
        first_bare, first_full = firsts[name]
        rows.append(
            (
                f"{name}: first text event after its bytes are sent",
                f"{first_full * 1e6:.0f} µs",
                f"bare read sees them after {first_bare * 1e6:.0f} µs",
            )
        )
    bare, full = per_request
    rows.append(
        (
            f"openai: one short reply ({QUICK_CHUNKS} chunks), client CPU a request",
            f"{full * 1e6:.0f} µs",
            f"bare httpx read {bare * 1e6:.0f} µs (kept connection, same server)",
        )
    )
    return rows


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        _serve()
        sys.exit(0)
    for row in run():
        print(" | ".join(row))
