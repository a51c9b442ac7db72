"""An MCP tool's image result, as each provider's wire format carries it (loopback servers
check the request bodies), and which models' profiles take images."""

from __future__ import annotations

import pytest

from harness.actors.model import profile_for
from harness.actors.model._chat import ModelEngine
from harness.messages.model import ChatMessage, ImagePart, ToolCall

from ._server import LoopbackServer, Reply, ndjson, sse
from .conftest import collect, request

PNG = ImagePart("image/png", "iVBORw0KGgo=")
JPEG = ImagePart("image/jpeg", "/9j/4AAQ")
HISTORY = (
    ChatMessage("user", "look"),
    ChatMessage(
        "assistant",
        "",
        tool_calls=(ToolCall("c1", "mcp__s__shot", {}), ToolCall("c2", "mcp__s__photo", {})),
    ),
    ChatMessage(
        "tool", "[image image/png, 8 bytes]", tool_call_id="c1", name="mcp__s__shot", images=(PNG,)
    ),
    ChatMessage("tool", "caption", tool_call_id="c2", name="mcp__s__photo", images=(JPEG,)),
)


async def test_anthropic_puts_the_images_in_the_tool_result(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    body = sse(
        {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    )
    server.queue("/v1/messages", Reply(chunks=[body]))
    await collect(engine, request("anthropic", "claude-x", messages=HISTORY))
    results = server.requests[0].json()["messages"][2]["content"]
    assert results[0] == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": [
            {"type": "text", "text": "[image image/png, 8 bytes]"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": PNG.data},
            },
        ],
    }
    assert results[1]["content"][1]["source"]["media_type"] == "image/jpeg"


async def test_openai_sends_them_in_a_user_message_after_the_tool_results(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    done = {
        "id": "x",
        "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}],
    }
    server.queue("/v1/chat/completions", Reply(chunks=[sse(done, done=True)]))
    await collect(engine, request("openai", "gpt-4o", messages=HISTORY))
    sent = server.requests[0].json()["messages"]
    # the tool messages stay text, each right after the calls; the images follow them
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool", "user"]
    assert sent[2]["content"] == "[image image/png, 8 bytes]"
    assert sent[4]["content"][1:] == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG.data}"}},
        {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{JPEG.data}"}},
    ]


async def test_gemini_follows_each_function_response_with_its_inline_data(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    chunk = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}
        ]
    }
    path = "/v1beta/models/gemini-x:streamGenerateContent"
    server.queue(path, Reply(chunks=[sse(chunk)]))
    await collect(engine, request("gemini", "gemini-x", messages=HISTORY))
    parts = server.requests[0].json()["contents"][2]["parts"]
    assert [next(iter(p)) for p in parts] == [
        "functionResponse",
        "inlineData",
        "functionResponse",
        "inlineData",
    ]
    assert parts[1] == {"inlineData": {"mimeType": "image/png", "data": PNG.data}}


async def test_ollama_gives_the_tool_message_its_images(
    server: LoopbackServer, engine: ModelEngine
) -> None:
    done = {
        "model": "q",
        "message": {"role": "assistant", "content": "ok"},
        "done": True,
        "done_reason": "stop",
    }
    server.queue("/api/chat", Reply(chunks=[ndjson(done)]))
    await collect(engine, request("ollama", "llava", messages=HISTORY))
    sent = server.requests[-1].json()["messages"]
    assert sent[2]["images"] == [PNG.data]
    assert sent[3]["images"] == [JPEG.data]
    assert "images" not in sent[1]


@pytest.mark.parametrize(
    ("provider", "model", "sees"),
    [
        ("anthropic", "claude-sonnet-4-5", True),
        ("gemini", "gemini-2.5-pro", True),
        ("openai", "gpt-4o-mini", True),
        ("openai", "gpt-5", True),
        ("openai", "gpt-3.5-turbo", False),
        ("openai", "qwen2.5-coder", False),
        ("ollama", "llava:7b", True),
        ("ollama", "llama3.2-vision", True),
        ("ollama", "qwen2.5vl:3b", True),
        ("ollama", "qwen2.5-coder:1.5b", False),
        ("local", "", False),
    ],
)
def test_which_profiles_take_images(provider: str, model: str, sees: bool) -> None:
    got = profile_for(provider, model)
    assert got.images is sees
    if provider == "ollama":
        assert got.asks_window  # a vision model is still an Ollama model
