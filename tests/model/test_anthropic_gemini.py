"""Anthropic's and Gemini's streams, on loopback."""

from __future__ import annotations

from harness.actors.model._chat import ModelEngine
from harness.messages.model import (
    ChatMessage,
    ChatOptions,
    ModelDone,
    ModelError,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolCallEvent,
    ToolSchema,
    Usage,
)

from ._server import LoopbackServer, Reply, pieces, sse
from .conftest import collect, request

TOOL = ToolSchema(
    "read_file",
    "Read a file.",
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "additionalProperties": False,
    },
)
HISTORY = (
    ChatMessage("user", "read a"),
    ChatMessage("user", "please"),
    ChatMessage("assistant", "Sure.", tool_calls=(ToolCall("tu_1", "read_file", {"path": "a"}),)),
    ChatMessage("tool", "A!", tool_call_id="tu_1", name="read_file"),
    ChatMessage("user", "and?"),
)


def text(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


async def test_anthropic_full_stream(server: LoopbackServer, engine: ModelEngine) -> None:
    body = sse(
        {"type": "message_start", "message": {"usage": {"input_tokens": 30}}},
        {"type": "ping"},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking"}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "hmm"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": "sig"},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "text_delta", "text": "Reading"},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "tu_2", "name": "read_file", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": '{"pa'},
        },
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": 'th": "b"}'},
        },
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
        event_names=True,
    )
    server.queue("/v1/messages", Reply(chunks=pieces(body, 8)))
    events = await collect(
        engine,
        request(
            "anthropic",
            "claude",
            system="Sys.",
            messages=HISTORY,
            tools=(TOOL,),
            options=ChatOptions(thinking=True, max_tokens=4000),
        ),
    )
    assert ThinkingDelta("hmm") in events
    assert text(events) == "Reading"
    assert ToolCallEvent("tu_2", "read_file", {"path": "b"}) in events
    assert Usage(30, 9) in events
    assert events[-1] == ModelDone("tool_calls", "claude", "native")
    req = server.requests[0]
    assert req.headers["x-api-key"] == "sk-ant-SECRET"
    assert req.headers["anthropic-version"]
    sent = req.json()
    assert sent["system"] == "Sys."
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    assert sent["messages"][0]["content"] == [
        {"type": "text", "text": "read a"},
        {"type": "text", "text": "please"},
    ]
    assert sent["messages"][2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "tu_1",
        "content": "A!",
    }
    assert sent["tools"][0]["input_schema"]["properties"] == {"path": {"type": "string"}}
    assert sent["thinking"]["type"] == "enabled"


async def test_anthropic_overloaded_fails_over(server: LoopbackServer, engine: ModelEngine) -> None:
    err = b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}'
    ok = sse(
        {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    )
    server.queue("/v1/messages", Reply(529, [err]), Reply(chunks=[ok]))
    events = await collect(engine, request("anthropic", "big", "small"))
    assert text(events) == "hi"
    assert events[-1] == ModelDone("stop", "small", "native")


async def test_anthropic_error_event_midstream(server: LoopbackServer, engine: ModelEngine) -> None:
    body = sse(
        {"type": "message_start", "message": {}},
        {"type": "error", "error": {"type": "api_error", "message": "Internal"}},
    )
    server.queue("/v1/messages", Reply(chunks=[body]), Reply(chunks=[body]), Reply(chunks=[body]))
    events = await collect(engine, request("anthropic", "c"))
    (ev,) = events
    assert isinstance(ev, ModelError)
    assert (ev.kind, ev.message) == ("server", "Internal")


async def test_gemini_stream(server: LoopbackServer, engine: ModelEngine) -> None:
    def chunk(*parts: dict, finish: str | None = None, usage: bool = False) -> dict:
        cand: dict = {"content": {"role": "model", "parts": list(parts)}}
        if finish:
            cand["finishReason"] = finish
        out: dict = {"candidates": [cand]}
        if usage:
            out["usageMetadata"] = {"promptTokenCount": 7, "candidatesTokenCount": 4}
        return out

    body = sse(
        chunk({"text": "plan", "thought": True}),
        chunk({"text": "Hel"}),
        chunk({"text": "lo"}),
        chunk(
            {"functionCall": {"name": "read_file", "args": {"path": "c"}}},
            finish="STOP",
            usage=True,
        ),
    )
    path = "/v1beta/models/gemini-x:streamGenerateContent"
    server.queue(path, Reply(chunks=pieces(body, 10)))
    events = await collect(
        engine, request("gemini", "gemini-x", system="Sys.", messages=HISTORY, tools=(TOOL,))
    )
    assert ThinkingDelta("plan") in events
    assert text(events) == "Hello"
    (tc,) = [e for e in events if isinstance(e, ToolCallEvent)]
    assert (tc.name, tc.arguments) == ("read_file", {"path": "c"})
    assert Usage(7, 4) in events
    assert events[-1] == ModelDone("tool_calls", "gemini-x", "native")
    req = server.requests[0]
    assert req.path == path + "?alt=sse"
    assert "SECRET" not in req.path
    assert req.headers["x-goog-api-key"] == "gm-SECRET-key"
    sent = req.json()
    assert sent["systemInstruction"] == {"parts": [{"text": "Sys."}]}
    assert [c["role"] for c in sent["contents"]] == ["user", "model", "user"]
    assert sent["contents"][2]["parts"][0] == {
        "functionResponse": {"name": "read_file", "response": {"result": "A!"}}
    }
    decl = sent["tools"][0]["functionDeclarations"][0]
    assert decl["parameters"] == {"type": "object", "properties": {"path": {"type": "string"}}}


async def test_gemini_bad_key_and_truncation(server: LoopbackServer, engine: ModelEngine) -> None:
    path = "/v1beta/models/g:streamGenerateContent"
    err = (
        b'{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",'
        b' "status": "INVALID_ARGUMENT"}}'
    )
    server.queue(path, Reply(400, [err]))
    (ev,) = await collect(engine, request("gemini", "g"))
    assert isinstance(ev, ModelError)
    assert ev.kind == "auth"
    server.queue(
        path, Reply(chunks=[sse({"candidates": [{"content": {"parts": [{"text": "a"}]}}]})])
    )
    events = await collect(engine, request("gemini", "g"))
    assert text(events) == "a"
    assert isinstance(events[-1], ModelError)
    assert events[-1].kind == "network"
