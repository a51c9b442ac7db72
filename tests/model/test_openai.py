"""OpenAI-compatible chat completions against a scripted server on loopback."""

from __future__ import annotations

import trio

from harness.actors.model._chat import ModelEngine
from harness.messages.model import (
    ChatMessage,
    ModelDone,
    ModelError,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolSchema,
    Usage,
)

from ._server import LoopbackServer, Reply, pieces, sse
from .conftest import collect, request

PATH = "/v1/chat/completions"


def delta(content: str | None = None, finish: str | None = None, **extra: object) -> dict:
    d: dict = {} if content is None else {"content": content}
    d.update(extra)
    return {"id": "x", "choices": [{"index": 0, "delta": d, "finish_reason": finish}]}


def text_of(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


async def test_text_in_small_chunks_with_keepalives_and_usage_only_last_chunk(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    body = sse(
        b": keep-alive\n\n",
        delta("Héllo, "),
        b": OPENROUTER PROCESSING\r\n\r\n",
        delta("wörld"),
        delta(finish="stop"),
        {
            "id": "x",
            "choices": [],
            "usage": {
                "prompt_tokens": 5,
                "completion_tokens": 2,
                "prompt_tokens_details": {"cached_tokens": 3},
            },
        },
        done=True,
    )
    server.queue(PATH, Reply(chunks=pieces(body, 5), headers={"content-type": "text/event-stream"}))
    events = await collect(engine, request("openai", "gpt-x"))
    assert text_of(events) == "Héllo, wörld"
    assert Usage(5, 2, 3) in events
    assert events[-1] == ModelDone("stop", "gpt-x", "native")
    (req,) = server.requests
    assert req.headers["authorization"] == "Bearer sk-test-SECRET-openai"
    assert req.json()["stream"] is True


async def test_split_tool_call_arguments_without_ids_and_without_usage(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    first = {
        "index": 0,
        "id": "call_9",
        "type": "function",
        "function": {"name": "read_file", "arguments": ""},
    }
    body = sse(
        delta(tool_calls=[first]),
        delta(tool_calls=[{"index": 0, "function": {"arguments": '{"pa'}}]),
        delta(tool_calls=[{"index": 0, "function": {"arguments": 'th": "a.py"}'}}]),
        delta(
            tool_calls=[
                {"index": 1, "id": "call_10", "function": {"name": "read_file", "arguments": "{}"}}
            ]
        ),
        delta(finish="tool_calls"),
    )  # no [DONE]: some local servers end the body after the finish chunk
    server.queue(PATH, Reply(chunks=pieces(body, 9)))
    tool = ToolSchema("read_file", "Read.", {"type": "object", "properties": {"path": {}}})
    events = await collect(engine, request("openai", tools=(tool,)))
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert calls == [
        ToolCallEvent("call_9", "read_file", {"path": "a.py"}),
        ToolCallEvent("call_10", "read_file", {}),
    ]
    assert events[-1] == ModelDone("tool_calls", "m1", "native")
    sent = server.requests[0].json()
    assert sent["tools"][0]["function"]["name"] == "read_file"


async def test_history_is_sent_in_the_chat_completions_shape(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue(PATH, Reply(chunks=[sse(delta("ok", finish="stop"), done=True)]))
    history = (
        ChatMessage("user", "read a"),
        ChatMessage(
            "assistant",
            "",
            tool_calls=(ToolCall("c1", "read_file", {"path": "a"}),),
            thinking="hidden",
        ),
        ChatMessage("tool", "A!", tool_call_id="c1", name="read_file"),
    )
    await collect(engine, request("openai", system="Be brief.", messages=history))
    msgs = server.requests[0].json()["messages"]
    assert msgs[0] == {"role": "system", "content": "Be brief."}
    assert msgs[2]["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": '{"path":"a"}',
    }
    assert msgs[3] == {"role": "tool", "tool_call_id": "c1", "content": "A!"}
    assert "hidden" not in server.requests[0].body.decode()


async def test_auth_error_carries_the_providers_words_without_the_key(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    err = b'{"error": {"message": "Incorrect API key provided: sk-test-SECRET-openai"}}'
    server.queue(PATH, Reply(401, [err]))
    events = await collect(engine, request("openai"))
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert (ev.kind, ev.status) == ("auth", 401)
    assert "Incorrect API key" in ev.message
    assert "SECRET" not in ev.message


async def test_429_is_retried_after_retry_after(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue(
        PATH,
        Reply(429, [b'{"error": {"message": "slow down"}}'], headers={"retry-after": "0.3"}),
        Reply(chunks=[sse(delta("ok", finish="stop"), done=True)]),
    )
    start = trio.current_time()
    events = await collect(engine, request("openai"))
    assert trio.current_time() - start >= 0.3
    assert text_of(events) == "ok"
    assert len(server.requests) == 2


async def test_5xx_retried_with_backoff_then_given_up(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    for _ in range(3):
        server.queue(PATH, Reply(502, [b"bad gateway"]))
    events = await collect(engine, request("openai"))
    assert [type(e) for e in events] == [ModelError]
    assert events[0].kind == "server"
    assert events[0].message == "bad gateway"
    assert len(server.requests) == 3  # the first try and two retries


async def test_fail_over_to_the_next_model_on_not_found(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue(
        PATH,
        Reply(404, [b'{"error": {"message": "no such model"}}']),
        Reply(chunks=[sse(delta("hi", finish="stop"), done=True)]),
    )
    events = await collect(engine, request("openai", "gone", "backup"))
    assert events[-1] == ModelDone("stop", "backup", "native")
    assert [r.json()["model"] for r in server.requests] == ["gone", "backup"]


async def test_rate_limit_on_the_last_model_after_failover_reports_both(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.always(
        PATH, Reply(429, [b'{"error": {"message": "quota"}}'], headers={"retry-after": "120"})
    )
    events = await collect(engine, request("openai", "a", "b"))
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert ev.kind == "rate_limit"
    assert ev.model == "b"
    # what happened and what to do, not the server's body alone
    assert ev.message.startswith("the provider is limiting requests (HTTP 429, rate limit): quota")
    assert ev.message.count("wait 120 s") == 1


async def test_a_server_that_never_sends_a_byte_is_an_error_in_seconds(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue(PATH, Reply(silent=True))
    events = await collect(engine, request("openai"))
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert ev.kind == "network"
    assert "no answer" in ev.message


async def test_a_stream_that_goes_silent_midway_is_an_error_and_not_retried(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue(PATH, Reply(chunks=[sse(delta("par"), delta("tial"))], then="hang"))
    events = await collect(engine, request("openai"))
    assert text_of(events) == "partial"
    assert isinstance(events[-1], ModelError)
    assert events[-1].kind == "network"
    assert "silent" in events[-1].message
    assert len(server.requests) == 1


async def test_a_dropped_connection_midway_is_an_error(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue(PATH, Reply(chunks=[sse(delta("abc"))], then="drop"))
    events = await collect(engine, request("openai"))
    assert isinstance(events[-1], ModelError)
    assert events[-1].kind == "network"


async def test_an_error_event_inside_the_stream(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    body = sse(delta("a"), {"error": {"message": "Provider returned error", "code": 502}})
    server.queue(PATH, Reply(chunks=[body]))
    events = await collect(engine, request("openai"))
    assert isinstance(events[-1], ModelError)
    assert events[-1].kind == "server"
    assert events[-1].message == "Provider returned error"


async def test_cancelling_closes_the_connection_at_once(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue(PATH, Reply(chunks=[sse(delta(str(i))) for i in range(1000)], delay=0.05))
    got = trio.Event()

    async def emit(ev: object) -> None:
        got.set()

    with trio.move_on_after(5) as outer:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(engine.chat, request("openai"), emit)
            await got.wait()
            cancelled_at = trio.current_time()
            nursery.cancel_scope.cancel()
        with trio.fail_after(2):
            await server.hung_up.wait()
    assert not outer.cancelled_caught
    assert server.hangups[0] - cancelled_at < 1.0


async def test_text_protocol_over_openai(server: LoopbackServer, engine: ModelEngine) -> None:
    reply = 'Reading.\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>'
    body = sse(*[delta(p.decode()) for p in pieces(reply, 4)], delta(finish="stop"), done=True)
    server.queue(PATH, Reply(chunks=pieces(body, 13)))
    tool = ToolSchema(
        "read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    events = await collect(
        engine, request("openai", tools=(tool,), tool_protocol="text", system="Be good.")
    )
    assert text_of(events) == "Reading.\n"
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "a"})]
    assert events[-1] == ModelDone("tool_calls", "m1", "text")
    # asked first whether it is a llama.cpp server (test_llamacpp.py): 404, it is not
    assert [r.path for r in server.requests] == ["/props", PATH]
    sent = server.requests[1].json()
    assert "tools" not in sent
    assert sent["messages"][0]["content"].startswith("Be good.\n\n# Tools")
    assert sent["stop"] == ["</tool_call>", "<tool_response>"]


async def test_a_call_cut_off_by_its_stop_sequence_is_still_a_call(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    # a server that honours the stop sends the call without its closing tag
    reply = 'Reading.\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}'
    body = sse(*[delta(p.decode()) for p in pieces(reply, 4)], delta(finish="stop"), done=True)
    server.queue(PATH, Reply(chunks=pieces(body, 13)))
    tool = ToolSchema(
        "read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    events = await collect(engine, request("openai", tools=(tool,), tool_protocol="text"))
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    # the stop took out a tag the model wrote: nothing was repaired
    assert [(c.name, c.arguments, c.parse_error, c.repaired) for c in calls] == [
        ("read_file", {"path": "a"}, None, None)
    ]
    assert events[-1] == ModelDone("tool_calls", "m1", "text")


async def test_native_tools_send_no_stop_sequences(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    body = sse(delta("hi"), delta(finish="stop"), done=True)
    server.queue(PATH, Reply(chunks=[body]))
    await collect(engine, request("openai"))
    assert "stop" not in server.requests[0].json()


async def test_list_models(server: LoopbackServer, engine: ModelEngine) -> None:
    from harness.messages.model import ListModels, ModelList

    server.queue("/v1/models", Reply(chunks=[b'{"data": [{"id": "b"}, {"id": "a"}]}']))
    assert await engine.list_models(ListModels("openai")) == ModelList(("a", "b"))


async def test_the_idle_limit_is_not_the_first_byte_limit(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    from harness.actors.model._http import Timeouts

    engine = ModelEngine(env, timeouts=Timeouts(connect=2, first_byte=30, idle=0.3))
    server.queue(PATH, Reply(chunks=[sse(delta("a"))], then="hang"))
    start = trio.current_time()
    events = await collect(engine, request("openai"))
    await engine.aclose()
    assert isinstance(events[-1], ModelError)
    assert "silent for 0.3 s" in events[-1].message
    assert trio.current_time() - start < 15  # far below the 30 s first-byte limit


def test_rendering_reuses_messages_yet_follows_every_change() -> None:
    from harness.actors.model._openai import OpenAIProvider, openai_messages
    from harness.messages.model import ChatMessage, ToolCall

    provider = OpenAIProvider()
    history: list[ChatMessage] = [ChatMessage(role="user", content="go")]
    for i in range(40):
        history.append(
            ChatMessage(role="assistant", tool_calls=(ToolCall(f"c{i}", "read_file", {"n": i}),))
        )
        history.append(ChatMessage(role="tool", content=f"out {i}", tool_call_id=f"c{i}"))
        if i % 9 == 8:
            history[1:3] = [ChatMessage(role="user", content=f"summary {i}")]
        rendered = provider._messages_json("sys", tuple(history))
        assert rendered == openai_messages("sys", tuple(history))
    assert provider._rendered is not None
    assert len(provider._rendered) <= 2 * len(history) + 256
