"""The worker's HTTP exchange (``_http`` over ``_client``, h11 on trio streams):
body framing, kept connections, encodings, redirects, TLS, and what a cancel or a
dead connection leaves."""

from __future__ import annotations

import gzip

import trio

from harness.actors.model._chat import ModelEngine
from harness.actors.model._http import Timeouts
from harness.messages.model import ModelDone, ModelError, ModelEvent, TextDelta

from ._server import LoopbackServer, Reply, ndjson, pieces, sse
from .conftest import collect, request

PATH = "/v1/chat/completions"


def _answer(text: str) -> bytes:
    chunk = {"id": "x", "choices": [{"index": 0, "delta": {"content": text}}]}
    end = {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return sse(chunk, end, done=True)


def _text(events: list[ModelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def _engine(env: dict[str, str]) -> ModelEngine:
    return ModelEngine(env, timeouts=Timeouts(connect=2, first_byte=2, idle=2))


async def test_requests_in_a_row_share_one_connection(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    for word in ("one", "two", "three"):
        server.queue(PATH, Reply(chunks=pieces(_answer(word), 11)))
    engine = _engine(env)
    got = [_text(await collect(engine, request("openai"))) for _ in range(3)]
    # the TLS context (loading the CA bundle takes tens of ms) was never needed
    assert not engine.http.tls_ready
    await engine.aclose()
    assert got == ["one", "two", "three"]
    assert server.connections == 1
    assert [r.json()["model"] for r in server.requests] == ["m1"] * 3


async def test_every_provider_of_a_worker_shares_its_connections(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    server.queue(PATH, Reply(chunks=[_answer("from openai")]))
    done = {"model": "m1", "message": {"role": "assistant", "content": "from ollama"}}
    server.queue("/api/chat", Reply(chunks=[ndjson(done, {"model": "m1", "done": True})]))
    engine = _engine(env)
    got = [_text(await collect(engine, request(p))) for p in ("openai", "ollama")]
    await engine.aclose()
    assert got == ["from openai", "from ollama"]
    assert server.connections == 1


async def test_bodies_framed_by_length_and_by_close(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    server.queue(
        PATH,
        Reply(chunks=pieces(_answer("by length"), 5), framing="length"),
        Reply(chunks=pieces(_answer("until close"), 5), framing="close"),
        Reply(chunks=pieces(_answer("chunked again"), 5)),
    )
    engine = _engine(env)
    got = [_text(await collect(engine, request("openai"))) for _ in range(3)]
    await engine.aclose()
    assert got == ["by length", "until close", "chunked again"]
    # a body that ends with the connection cannot leave it for the next request
    assert server.connections == 2


async def test_a_kept_connection_the_server_closed_is_replaced_quietly(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    server.queue(
        PATH,
        Reply(chunks=[_answer("first")], then="close"),
        Reply(chunks=[_answer("second")]),
    )
    engine = _engine(env)
    first = await collect(engine, request("openai"))
    await trio.sleep(0.05)  # the server's FIN arrives at the idle connection
    second = await collect(engine, request("openai"))
    await engine.aclose()
    assert (_text(first), _text(second)) == ("first", "second")
    assert isinstance(second[-1], ModelDone)
    assert server.connections == 2


async def test_a_kept_connection_that_dies_as_it_is_used_is_replaced_once(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    # the server drops the kept connection just as the next request arrives on it
    server.queue(
        PATH,
        Reply(chunks=[_answer("first")]),
        Reply(hang_up=True),
        Reply(chunks=[_answer("second")]),
    )
    engine = _engine(env)
    first = await collect(engine, request("openai"))
    second = await collect(engine, request("openai"))
    await engine.aclose()
    assert (_text(first), _text(second)) == ("first", "second")
    assert server.connections == 2
    assert len(server.requests) == 3  # sent again, once, on a new connection


async def test_a_new_connection_closed_without_an_answer_is_a_network_error(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    server.queue(PATH, Reply(hang_up=True))
    engine = _engine(env)
    events = await collect(engine, request("openai"))
    await engine.aclose()
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert (ev.kind, ev.message) == ("network", "the server closed the connection early")
    assert len(server.requests) == 1  # a new connection is not tried again


async def test_a_connection_that_dies_short_of_its_length_is_a_network_error(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    chunk = {"id": "x", "choices": [{"index": 0, "delta": {"content": "half"}}]}
    # promises far more than it sends, then closes
    server.queue(
        PATH, Reply(chunks=[sse(chunk)], headers={"content-length": "9999"}, framing="close")
    )
    engine = _engine(env)
    events = await collect(engine, request("openai"))
    await engine.aclose()
    assert _text(events) == "half"  # what came before the break still reaches the caller
    assert isinstance(events[-1], ModelError)
    assert events[-1].kind == "network"
    assert events[-1].message.startswith("the connection broke")
    assert len(server.requests) == 1  # tokens had streamed: never retried


async def test_an_error_answer_framed_by_length_keeps_its_message(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    body = b'{"error": {"message": "model m1 not loaded"}}'
    server.queue(PATH, Reply(400, [body], framing="length"))
    engine = _engine(env)
    events = await collect(engine, request("openai"))
    await engine.aclose()
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert (ev.status, ev.message) == (400, "model m1 not loaded")


async def test_a_redirect_is_an_error_naming_the_new_address_not_followed(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    server.always(PATH, Reply(307, [b""], headers={"location": "/moved/chat/completions"}))
    server.queue("/moved", Reply(chunks=[_answer("moved")]))
    engine = _engine(env)
    events = await collect(engine, request("openai"))
    await engine.aclose()
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert (ev.kind, ev.status) == ("config", 307)
    assert "/moved/chat/completions" in ev.message
    assert "base URL" in ev.message
    # the key never went anywhere else, and the request was not retried
    assert [r.path for r in server.requests] == [PATH]


async def test_asks_for_no_encoding_yet_inflates_gzip_if_sent(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    server.queue(
        PATH,
        Reply(
            chunks=pieces(gzip.compress(_answer("packed")), 6), headers={"content-encoding": "gzip"}
        ),
    )
    engine = _engine(env)
    events = await collect(engine, request("openai"))
    await engine.aclose()
    assert _text(events) == "packed"
    assert server.requests[0].headers["accept-encoding"] == "identity"


async def test_an_encoding_it_cannot_read_is_a_bad_response_and_closes_the_connection(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    server.queue(
        PATH,
        Reply(chunks=[b"\x0b\x02\x80"], headers={"content-encoding": "br"}),
        Reply(chunks=[_answer("plain again")]),
    )
    engine = _engine(env)
    first = await collect(engine, request("openai"))
    with trio.fail_after(2):
        await server.hung_up.wait()
    second = await collect(engine, request("openai"))
    await engine.aclose()
    assert isinstance(first[-1], ModelError)
    assert (first[-1].kind, first[-1].message) == ("bad_response", "an answer encoded as 'br'")
    assert _text(second) == "plain again"
    assert server.connections == 2


async def test_a_cancelled_reply_leaves_no_connection_behind_for_the_next(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    server.queue(
        PATH,
        Reply(chunks=[sse({"choices": [{"delta": {"content": "."}}]})] * 1000, delay=0.05),
        Reply(chunks=[_answer("fresh")]),
    )
    engine = _engine(env)
    got = trio.Event()

    async def emit(ev: object) -> None:
        got.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(engine.chat, request("openai"), emit)
        await got.wait()
        nursery.cancel_scope.cancel()
    with trio.fail_after(2):
        await server.hung_up.wait()  # closed at once, not left to finish
    events = await collect(engine, request("openai"))
    await engine.aclose()
    assert _text(events) == "fresh"
    assert server.connections == 2


async def test_nothing_listening_is_a_network_error(env: dict[str, str]) -> None:
    with trio.socket.socket() as probe:
        await probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound, never listening: connections are refused
        engine = ModelEngine(
            {**env, "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"},
            timeouts=Timeouts(connect=2, first_byte=2, idle=2),
        )
        events = await collect(engine, request("openai"))
        await engine.aclose()
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert ev.kind == "network"
    assert ev.message.startswith("could not reach 127.0.0.1")


async def test_an_https_address_is_spoken_to_with_tls(
    nursery: trio.Nursery, env: dict[str, str]
) -> None:
    first_bytes: list[bytes] = []

    async def answer_nothing(stream: trio.SocketStream) -> None:
        first_bytes.append(await stream.receive_some(5))
        await stream.aclose()  # no TLS here: the handshake fails

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    nursery.start_soon(trio.serve_listeners, answer_nothing, listeners)
    engine = ModelEngine(
        {**env, "OPENAI_BASE_URL": f"https://127.0.0.1:{port}/v1"},
        timeouts=Timeouts(connect=2, first_byte=2, idle=2),
    )
    events = await collect(engine, request("openai"))
    assert engine.http.tls_ready
    await engine.aclose()
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert ev.kind == "network"
    assert first_bytes[0][:1] == b"\x16"  # a TLS handshake record, not an HTTP request
