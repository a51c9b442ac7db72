"""Fixtures for the model tests: a scripted HTTP server on loopback, an engine aimed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.actors.model._chat import ModelEngine, RetryPolicy
from harness.actors.model._http import Timeouts
from harness.messages.model import ChatMessage, ChatRequest, ModelEvent

from ._server import LoopbackServer


@pytest.fixture
async def server(nursery: trio.Nursery) -> LoopbackServer:
    srv = LoopbackServer()
    await nursery.start(srv.run)
    return srv


@pytest.fixture
def env(tmp_path: Path, server: LoopbackServer) -> dict[str, str]:
    return {
        "HARNESS_HOME": str(tmp_path / "home"),
        "OLLAMA_BASE_URL": server.url,
        "OPENAI_BASE_URL": server.url + "/v1",
        "ANTHROPIC_BASE_URL": server.url,
        "GEMINI_BASE_URL": server.url,
        "OPENAI_API_KEY": "sk-test-SECRET-openai",
        "ANTHROPIC_API_KEY": "sk-ant-SECRET",
        "GEMINI_API_KEY": "gm-SECRET-key",
    }


@pytest.fixture
async def engine(env: dict[str, str]) -> AsyncIterator[ModelEngine]:
    eng = ModelEngine(
        env,
        timeouts=Timeouts(connect=2, first_byte=1.0, idle=1.0),
        retry=RetryPolicy(retries=2, base_delay=0.05, max_delay=0.2),
    )
    yield eng
    await eng.aclose()


def request(provider: str, *models: str, **kw: Any) -> ChatRequest:
    kw.setdefault("messages", (ChatMessage("user", "hi"),))
    return ChatRequest(provider=provider, models=models or ("m1",), **kw)


async def collect(engine: ModelEngine, req: ChatRequest) -> list[ModelEvent]:
    events: list[ModelEvent] = []

    async def emit(ev: ModelEvent) -> None:
        events.append(ev)

    with trio.fail_after(20):
        await engine.chat(req, emit)
    return events
