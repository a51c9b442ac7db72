"""The window of an Ollama model from the server (``/api/show``), asked once per model
and address when the user set none, through the real model worker to a loopback
server speaking Ollama's wire format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.conversation import ContextSettings, open_session
from harness.conversation.context._bounds import TIME_SCALE_ENV
from tests.model._server import LoopbackServer, Reply, ndjson

from .conftest import options_for

ANSWER = ndjson(
    {"model": "m", "message": {"role": "assistant", "content": "ok"}, "done": False},
    {
        "model": "m",
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 10,
        "eval_count": 1,
    },
)


def show(length: int | None, num_ctx: int | None = None) -> Reply:
    doc: dict[str, Any] = {"template": "{{ .Prompt }}", "capabilities": ["completion"]}
    if length is not None:
        doc["model_info"] = {"general.architecture": "llama", "llama.context_length": length}
    if num_ctx is not None:
        doc["parameters"] = f'stop "<|eot|>"\nnum_ctx                        {num_ctx}'
    return Reply(chunks=[json.dumps(doc).encode()])


async def ollama(nursery: trio.Nursery) -> LoopbackServer:
    server = LoopbackServer()
    await nursery.start(server.run)
    server.always("/api/chat", Reply(chunks=[ANSWER]))
    return server


def sent_windows(server: LoopbackServer) -> list[int]:
    return [r.json()["options"]["num_ctx"] for r in server.requests if r.path == "/api/chat"]


def shows(server: LoopbackServer) -> list[str]:
    return [r.json()["model"] for r in server.requests if r.path == "/api/show"]


async def test_the_window_is_the_models_length_under_the_default_then_follows_model(
    workspace: Path, home: Path, model: Any, nursery: trio.Nursery
) -> None:
    server = await ollama(nursery)
    # small: its own 4096; big: capped at the default 8192; tuned: its Modelfile's 16384
    server.queue("/api/show", show(4096), show(131072), show(131072, num_ctx=16384))
    opts = options_for(
        workspace, home, model, provider="ollama", base_url=server.url, models=("small",)
    )
    async with open_session(opts) as s:
        assert (await s.run("hi")).ok
        assert s.context()[1] == 4096
        assert (await s.run("again")).ok
        s.set_model("ollama", ("big",), server.url)
        assert (await s.run("hi")).ok
        assert s.context()[1] == 8192
        s.set_model("ollama", ("tuned",), server.url)
        assert (await s.run("hi")).ok
        assert s.context()[1] == 16384
        s.set_model("ollama", ("small",), server.url)  # known: not asked again
        assert (await s.run("hi")).ok
    assert sent_windows(server) == [4096, 4096, 8192, 16384, 4096]
    assert shows(server) == ["small", "big", "tuned"]


async def test_a_failing_or_silent_server_keeps_the_default_and_an_explicit_window_wins(
    workspace: Path, home: Path, model: Any, nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TIME_SCALE_ENV, "0.2")  # the silent server is waited for 0.6 s, not 3
    server = await ollama(nursery)
    server.queue("/api/show", Reply(500, [b'{"error": "boom"}']), Reply(silent=True))
    # native tools: the chat itself does not probe /api/show, only the window asks
    opts = options_for(
        workspace,
        home,
        model,
        provider="ollama",
        base_url=server.url,
        models=("broken",),
        tool_protocol="native",
    )
    async with open_session(opts) as s:
        assert (await s.run("hi")).ok
        s.set_model("ollama", ("silent",), server.url)
        with trio.fail_after(8):  # the round waits a moment, never the whole answer
            assert (await s.run("hi")).ok
    assert sent_windows(server) == [8192, 8192]

    server.requests.clear()
    opts = options_for(
        workspace,
        home,
        model,
        provider="ollama",
        base_url=server.url,
        models=("small",),
        context=ContextSettings(windows={"small": 12000}),
        tool_protocol="native",
    )
    async with open_session(opts) as s:
        assert (await s.run("hi")).ok
        assert s.context()[1] == 12000
    assert sent_windows(server) == [12000]
    assert shows(server) == []
