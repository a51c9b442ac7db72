"""Each provider's decoder gives the same events however the body is cut."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.actors.model import Finish, ProviderError
from harness.actors.model._anthropic import AnthropicDecoder
from harness.actors.model._gemini import GeminiDecoder
from harness.actors.model._ollama import OllamaDecoder
from harness.actors.model._openai import OpenAIDecoder
from harness.messages.model import CallWriting, TextDelta, ToolCallEvent

from ._server import ndjson, sse

TEXT = "Grüße, 世界! "  # multi-byte characters, cut anywhere

BODIES: dict[str, tuple[Callable[[], Any], bytes]] = {
    "openai": (
        OpenAIDecoder,
        sse(
            {"choices": [{"index": 0, "delta": {"content": TEXT}}]},
            b": ping\r\n\r\n",
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "c1",
                                    "function": {"name": "f", "arguments": '{"a": '},
                                }
                            ]
                        },
                    }
                ]
            },
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '"é"}'}}]},
                    }
                ]
            },
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
            {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2}},
            done=True,
        ),
    ),
    "anthropic": (
        AnthropicDecoder,
        sse(
            {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": TEXT},
            },
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "tool_use", "id": "c1", "name": "f"},
            },
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"a": "é"}'},
            },
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
            {"type": "message_stop"},
            event_names=True,
        ),
    ),
    "gemini": (
        GeminiDecoder,
        sse(
            {"candidates": [{"content": {"parts": [{"text": TEXT}]}}]},
            {
                "candidates": [
                    {
                        "content": {
                            "parts": [
                                {"functionCall": {"id": "c1", "name": "f", "args": {"a": "é"}}}
                            ]
                        },
                        "finishReason": "STOP",
                    }
                ]
            },
        ),
    ),
    "ollama": (
        OllamaDecoder,
        ndjson(
            {"message": {"content": TEXT}, "done": False},
            {
                "message": {
                    "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": {"a": "é"}}}]
                },
                "done": False,
            },
            {"done": True, "done_reason": "stop"},
        ),
    ),
}


def decode(make: Callable[[], Any], body: bytes, points: list[int]) -> list[Any]:
    dec = make()
    events: list[Any] = []
    pos = 0
    for p in [*sorted(set(points)), len(body)]:
        events += dec.feed(body[pos:p])
        pos = p
    assert dec.failed is None
    return events + dec.close()


@pytest.mark.parametrize("name", sorted(BODIES))
def test_whole_body(name: str) -> None:
    make, body = BODIES[name]
    events = decode(make, body, [])
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == TEXT
    (call,) = [e for e in events if isinstance(e, ToolCallEvent)]
    assert (call.id, call.name, call.arguments) == ("c1", "f", {"a": "é"})
    assert isinstance(events[-1], Finish)
    # a stream that names a call's tool before its arguments are whole says so, once,
    # before the call (Gemini and Ollama send calls whole)
    writing = [i for i, e in enumerate(events) if isinstance(e, CallWriting)]
    if name in ("openai", "anthropic"):
        assert [events[i] for i in writing] == [CallWriting("f")]
        assert writing[0] < events.index(call)
    else:
        assert writing == []


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(BODIES)), st.data())
def test_any_cut_same_events(name: str, data: st.DataObject) -> None:
    make, body = BODIES[name]
    points = data.draw(st.lists(st.integers(0, len(body)), max_size=20))
    got = decode(make, body, points)
    whole = decode(make, body, [])
    # Text may arrive in other pieces; everything else is identical.
    assert "".join(e.text for e in got if isinstance(e, TextDelta)) == TEXT
    assert [e for e in got if not isinstance(e, TextDelta)] == [
        e for e in whole if not isinstance(e, TextDelta)
    ]


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_body_cut_short_is_an_error(name: str) -> None:
    make, body = BODIES[name]
    dec = make()
    dec.feed(body[: len(body) // 2])
    with pytest.raises(ProviderError) as info:
        dec.close()
    assert info.value.kind == "network"


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(BODIES)), st.binary(max_size=300))
def test_garbage_is_an_error_never_a_crash(name: str, garbage: bytes) -> None:
    dec = BODIES[name][0]()
    try:
        dec.feed(garbage)
        dec.close()
    except ProviderError:
        pass
