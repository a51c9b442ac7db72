"""The model worker as a real process under the supervisor, against a loopback server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio

from harness.ipc import WorkerDied
from harness.messages.model import (
    ListModels,
    ModelDone,
    ModelList,
    TextDelta,
)
from harness.supervisor import ChildSpec, Supervisor, open_supervisor

from ._server import LoopbackServer, Reply, ndjson
from .conftest import request


def chunk(text: str) -> dict:
    return {"message": {"role": "assistant", "content": text}, "done": False}


@pytest.fixture
async def sup() -> AsyncIterator[Supervisor]:
    async with open_supervisor() as s:
        yield s


def spec(server: LoopbackServer, tmp_path: Path) -> ChildSpec:
    env = {
        "HARNESS_HOME": str(tmp_path),
        "OLLAMA_BASE_URL": server.url,
        "HARNESS_MODEL_IDLE_TIMEOUT": "5",
    }
    return ChildSpec(
        name="model",
        module="harness.actors.model",
        env=env,
        backoff_initial=0.05,
        heartbeat_interval=0.5,
        shutdown_grace=1.0,
        request_grace=0.5,
    )


async def test_stream_and_list_through_the_worker(
    server: LoopbackServer, sup: Supervisor, tmp_path: Path
) -> None:
    server.queue(
        "/api/chat",
        Reply(chunks=[ndjson(chunk("Hel"), chunk("lo"), {"done": True, "done_reason": "stop"})]),
    )
    server.queue("/api/tags", Reply(chunks=[json.dumps({"models": [{"name": "q"}]}).encode()]))
    h = await sup.start(spec(server, tmp_path))
    events = []
    with trio.fail_after(20):
        async with h.stream(request("ollama", "q")) as items:
            async for ev in items:
                events.append(ev)
        assert await h.request(ListModels("ollama")) == ModelList(("q",))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello"
    assert events[-1] == ModelDone("stop", "q", "native")


async def test_killing_the_worker_mid_stream_is_an_error_not_a_hang(
    server: LoopbackServer, sup: Supervisor, tmp_path: Path
) -> None:
    server.queue("/api/chat", Reply(chunks=[ndjson(chunk(str(i))) for i in range(500)], delay=0.05))
    server.queue("/api/chat", Reply(chunks=[ndjson(chunk("again"), {"done": True})]))
    h = await sup.start(spec(server, tmp_path))

    async def read_and_kill() -> None:
        seen = 0
        async with h.stream(request("ollama", "q")) as items:
            async for _ev in items:
                seen += 1
                if seen == 3:
                    h.kill()

    with trio.fail_after(20), pytest.raises(WorkerDied) as info:
        await read_and_kill()
    assert info.value.worker == "model"
    # The restarted worker answers the next call.
    with trio.fail_after(20):
        async with h.stream(request("ollama", "q")) as items:
            last = [ev async for ev in items][-1]
    assert last == ModelDone("stop", "q", "native")


async def test_leaving_the_stream_closes_the_provider_connection(
    server: LoopbackServer, sup: Supervisor, tmp_path: Path
) -> None:
    server.queue("/api/chat", Reply(chunks=[ndjson(chunk(str(i))) for i in range(500)], delay=0.05))
    h = await sup.start(spec(server, tmp_path))
    with trio.fail_after(20):
        async with h.stream(request("ollama", "q")) as items:
            async for _ev in items:
                break
        await server.hung_up.wait()
