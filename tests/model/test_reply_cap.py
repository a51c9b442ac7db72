"""A model that will not stop writing: the reply is cut at its cap, said so, and bounded,
against an OpenAI-compatible server on loopback (in the engine, and through a session)."""

from __future__ import annotations

import json
from pathlib import Path

import trio

from harness.actors.model._chat import (
    DEFAULT_MAX_REPLY_CHARS,
    ModelEngine,
    max_reply_chars_from_env,
)
from harness.actors.model._httpbase import MAX_REPLY_BYTES
from harness.actors.model._openai import OpenAIProvider
from harness.conversation import SessionOptions, open_session
from harness.messages.model import ModelDone, ModelError, TextDelta, ThinkingDelta
from tests.scripted import ScriptedModel, reply

from ._server import LoopbackServer, Reply, sse
from .conftest import collect, request

PATH = "/v1/chat/completions"


def _delta(**d: str) -> dict:
    return {"id": "x", "choices": [{"index": 0, "delta": d, "finish_reason": None}]}


async def test_a_reply_past_the_cap_is_cut_with_a_note_and_its_stream_closed(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    piece = "all work and no play " * 500  # 10,500 characters a frame
    frames = [sse(_delta(reasoning_content="thinking first. "))]
    frames += [sse(_delta(content=piece)) for _ in range(500)]  # 5 MB, then no end
    server.queue(
        PATH, Reply(chunks=frames, then="hang", headers={"content-type": "text/event-stream"})
    )
    engine = ModelEngine(env, max_reply_chars=100_000)
    try:
        events = await collect(engine, request("openai", "gpt-x"))
    finally:
        await engine.aclose()
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    body, note = text[: 100_000 - len(thinking)], text[100_000 - len(thinking) :]
    assert thinking == "thinking first. "
    assert body == (piece * 10)[: len(body)]
    assert note.startswith("\n\n[harness: the answer was cut here, at 100,000 characters")
    assert events[-1] == ModelDone("length", "gpt-x", "native")
    with trio.fail_after(5):
        await server.hung_up.wait()  # the stream was closed, not read on


def test_the_cap_is_a_setting() -> None:
    assert max_reply_chars_from_env({}) == DEFAULT_MAX_REPLY_CHARS == 400_000
    assert max_reply_chars_from_env({"HARNESS_MODEL_MAX_REPLY_CHARS": "5000"}) == 5000
    assert max_reply_chars_from_env({"HARNESS_MODEL_MAX_REPLY_CHARS": "lots"}) == 400_000
    assert max_reply_chars_from_env({"HARNESS_MODEL_MAX_REPLY_CHARS": "0"}) == 400_000


async def test_a_20_mb_answer_reaches_the_user_and_the_log_cut(tmp_path: Path) -> None:
    huge = "0123456789abcdef" * (20 * 1024 * 1024 // 16)
    with ScriptedModel([reply(huge, chunk=64 * 1024)]) as model:
        workspace = tmp_path / "ws"
        workspace.mkdir()
        options = SessionOptions(
            workspace=str(workspace),
            home=str(tmp_path / "home"),
            provider="openai",
            models=("scripted",),
            base_url=model.base_url,
            permission_mode="auto",
            workers={"model": "harness.actors.model"},
            worker_env={"model": {"HARNESS_MODEL_MAX_REPLY_CHARS": "300000"}},
        )
        async with open_session(options) as session:
            with trio.fail_after(60):
                result = await session.run("write forever")
            log = session.log.path  # type: ignore[union-attr]
    assert not result.ok
    assert result.reason == "incomplete"
    assert result.text.startswith(huge[:300_000])
    assert "[harness: the answer was cut here, at 300,000 characters" in result.text
    assert len(result.text) < 300_500
    size = log.stat().st_size
    assert size < 2_000_000, size  # not 20 MB (and not 20 MB of deltas either)
    kept = [json.loads(line) for line in log.read_text().splitlines()]
    said = [e for e in kept if e.get("type") == "assistant_message"]
    assert said
    assert "the answer was cut here" in said[-1]["text"]


async def test_a_tool_call_that_never_ends_is_bounded_by_the_bytes_read(
    server: LoopbackServer, env: dict[str, str]
) -> None:
    # no text for the text cap to see: only arguments, which the decoder holds back
    start = {"index": 0, "id": "c1", "function": {"name": "write_file", "arguments": ""}}
    more = {"index": 0, "function": {"arguments": "x" * 65_536}}
    frames = [sse(_delta(tool_calls=[start]))]  # type: ignore[arg-type]
    frames += [sse(_delta(tool_calls=[more]))] * 200  # type: ignore[arg-type]
    server.queue(
        PATH, Reply(chunks=frames, then="hang", headers={"content-type": "text/event-stream"})
    )
    provider = OpenAIProvider(max_reply_bytes=5_000_000)
    engine = ModelEngine(env, max_reply_chars=1_000, providers={"openai": provider})
    try:
        events = await collect(engine, request("openai", "gpt-x"))
    finally:
        await engine.aclose()
    [error] = [e for e in events if isinstance(e, ModelError)]
    assert error.kind == "bad_response"
    assert "the reply passed 5,000,000 bytes and was not read on" in error.message
    with trio.fail_after(5):
        await server.hung_up.wait()


def test_an_engine_reads_at_least_128_mib_of_one_reply() -> None:
    engine = ModelEngine({}, max_reply_chars=1_000)
    assert engine.provider("openai").max_reply_bytes == MAX_REPLY_BYTES == 128 * 1024 * 1024  # type: ignore[attr-defined]
    big = ModelEngine({}, max_reply_chars=1_000_000)
    assert big.provider("anthropic").max_reply_bytes == 256_000_000  # type: ignore[attr-defined]
