"""Ollama's NDJSON chat stream, its model list and its capability probe, on loopback."""

from __future__ import annotations

from harness.actors.model._chat import ModelEngine
from harness.messages.model import (
    ChatMessage,
    ChatOptions,
    ListModels,
    ModelDone,
    ModelError,
    ModelList,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolCallEvent,
    ToolSchema,
    Usage,
)

from ._server import LoopbackServer, Reply, ndjson, pieces
from .conftest import collect, request

TOOL = ToolSchema(
    "read_file",
    "Read a file.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def msg(content: str = "", thinking: str = "", **extra: object) -> dict:
    m: dict = {"role": "assistant", "content": content}
    if thinking:
        m["thinking"] = thinking
    m.update(extra)
    return {"model": "q", "message": m, "done": False}


DONE = {
    "model": "q",
    "message": {"role": "assistant", "content": ""},
    "done": True,
    "done_reason": "stop",
    "prompt_eval_count": 12,
    "eval_count": 3,
}


async def test_thinking_text_and_usage_in_small_chunks(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    body = ndjson(msg(thinking="Let me "), msg(thinking="see."), msg("Hi "), msg("there"), DONE)
    server.queue("/api/chat", Reply(chunks=pieces(body, 6)))
    opts = ChatOptions(context_window=8192, max_tokens=256, temperature=0.2)
    events = await collect(engine, request("ollama", "q", options=opts))
    assert [e for e in events if isinstance(e, ThinkingDelta)] == [
        ThinkingDelta("Let me "),
        ThinkingDelta("see."),
    ]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hi there"
    assert events[-2:] == [Usage(12, 3), ModelDone("stop", "q", "native")]
    sent = server.requests[0].json()
    assert sent["options"] == {"num_ctx": 8192, "num_predict": 256, "temperature": 0.2}
    assert "think" not in sent


async def test_native_tool_calls_and_the_history_shape(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    call = {"function": {"name": "read_file", "arguments": {"path": "a.py"}}}
    server.queue("/api/chat", Reply(chunks=[ndjson(msg(tool_calls=[call]), DONE)]))
    history = (
        ChatMessage("user", "go"),
        ChatMessage("assistant", "", tool_calls=(ToolCall("c1", "read_file", {"path": "x"}),)),
        ChatMessage("tool", "X", tool_call_id="c1", name="read_file"),
    )
    events = await collect(
        engine, request("ollama", "q", messages=history, tools=(TOOL,), tool_protocol="native")
    )
    (tc,) = [e for e in events if isinstance(e, ToolCallEvent)]
    assert (tc.name, tc.arguments) == ("read_file", {"path": "a.py"})
    assert tc.id
    assert events[-1] == ModelDone("tool_calls", "q", "native")
    sent = server.requests[0].json()
    assert sent["messages"][1]["tool_calls"] == [
        {"function": {"name": "read_file", "arguments": {"path": "x"}}}
    ]
    assert sent["messages"][2] == {"role": "tool", "content": "X", "tool_name": "read_file"}


async def test_auto_protocol_asks_api_show_once_per_model(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.always("/api/show", Reply(chunks=[b'{"capabilities": ["completion"]}']))
    bare = '{"name": "read_file", "arguments": {"path": "a.py"}}'
    for _ in range(2):
        server.queue(
            "/api/chat",
            Reply(chunks=pieces(ndjson(*[msg(p.decode()) for p in pieces(bare, 3)], DONE), 11)),
        )
    for _ in range(2):
        events = await collect(engine, request("ollama", "qwen-small", tools=(TOOL,)))
        (tc,) = [e for e in events if isinstance(e, ToolCallEvent)]
        assert (tc.name, tc.arguments) == ("read_file", {"path": "a.py"})
        assert tc.repaired is not None
        assert not [e for e in events if isinstance(e, TextDelta)]
        assert events[-1] == ModelDone("tool_calls", "qwen-small", "text")
    paths = [r.path for r in server.requests]
    assert paths.count("/api/show") == 1
    chat = server.requests[1].json()
    assert "tools" not in chat
    assert "# Tools" in chat["messages"][0]["content"]


async def test_auto_protocol_uses_native_when_the_template_takes_tools(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue("/api/show", Reply(chunks=[b'{"template": "{{ if .Tools }}tools{{ end }}"}']))
    server.queue("/api/chat", Reply(chunks=[ndjson(msg("ok"), DONE)]))
    events = await collect(engine, request("ollama", "q", tools=(TOOL,)))
    assert events[-1] == ModelDone("stop", "q", "native")
    assert server.requests[1].json()["tools"][0]["function"]["name"] == "read_file"


async def test_model_not_found_fails_over(server: LoopbackServer, engine: ModelEngine) -> None:
    server.queue(
        "/api/chat",
        Reply(404, [b'{"error": "model \\"nope\\" not found, try pulling it first"}']),
        Reply(chunks=[ndjson(msg("ok"), DONE)]),
    )
    events = await collect(engine, request("ollama", "nope", "q"))
    assert events[-1] == ModelDone("stop", "q", "native")


async def test_model_not_found_on_the_only_model(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue("/api/chat", Reply(404, [b'{"error": "model \\"nope\\" not found"}']))
    (ev,) = await collect(engine, request("ollama", "nope"))
    assert isinstance(ev, ModelError)
    assert (ev.kind, ev.model) == ("not_found", "nope")
    assert "not found" in ev.message


async def test_error_line_and_length_stop(server: LoopbackServer, engine: ModelEngine) -> None:
    server.queue("/api/chat", Reply(chunks=[ndjson(msg("a"), {"error": "out of memory"})]))
    events = await collect(engine, request("ollama", "q"))
    assert isinstance(events[-1], ModelError)
    assert events[-1].message == "out of memory"
    cut = dict(DONE, done_reason="length")
    server.queue("/api/chat", Reply(chunks=[ndjson(msg('<tool_call>{"name": "read_file"'), cut)]))
    events = await collect(engine, request("ollama", "q", tools=(TOOL,), tool_protocol="text"))
    (tc,) = [e for e in events if isinstance(e, ToolCallEvent)]
    assert tc.arguments is None
    assert tc.parse_error is not None
    assert "cut off" in tc.parse_error
    assert events[-1] == ModelDone("length", "q", "text")


async def test_a_body_that_ends_without_done_is_an_error(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    server.queue("/api/chat", Reply(chunks=[ndjson(msg("a"))]))
    events = await collect(engine, request("ollama", "q"))
    assert isinstance(events[-1], ModelError)
    assert events[-1].kind == "network"


async def test_list_models(server: LoopbackServer, engine: ModelEngine) -> None:
    server.queue("/api/tags", Reply(chunks=[b'{"models": [{"name": "qwen:1b"}, {"name": "a"}]}']))
    assert await engine.list_models(ListModels("ollama")) == ModelList(("a", "qwen:1b"))
