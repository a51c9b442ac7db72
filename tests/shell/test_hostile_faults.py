"""Issue 15, faults (14, 15, 16): the model worker killed mid-request, a tool call larger
than a frame, and the heartbeat bound the manual states.

The real conversation, the real model worker, the scripted model over loopback.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs
import trio

from harness.conversation import SessionOptions, open_session
from harness.conversation import events as ev
from harness.conversation.workers import WorkerSettings
from harness.ipc import DEFAULT_MAX_FRAME
from harness.supervisor import ChildSpec
from tests.conversation.conftest import MODULES, PYTHONPATH
from tests.scripted import ScriptedModel, call, reply

WORKERS_DOC = Path(__file__).resolve().parents[2] / "docs" / "workers.md"


def _options(tmp_path: Path, model: ScriptedModel, **kw: Any) -> SessionOptions:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return SessionOptions(
        workspace=str(ws),
        home=str(tmp_path / "home"),
        provider="openai",
        models=("scripted",),
        base_url=model.base_url,
        permission_mode="auto",
        workers={k: MODULES[k] for k in ("model", "tools")},
        worker_env={k: {"PYTHONPATH": PYTHONPATH} for k in ("model", "tools")},
        **kw,
    )


async def _kill_model_worker(session: Any, model: ScriptedModel, after_text: bool) -> int:
    """Kill the model worker once the scripted model got the request (and, with
    *after_text*, once some text was shown)."""
    shown = session.events()
    await trio.to_thread.run_sync(model.wait_for_requests, 1, 30.0)
    if after_text:
        async for event in shown:
            if isinstance(event, ev.TextDelta):
                break
    shown.close()
    handle = session.workers.supervisor.get("model")
    pid = int(handle.pid)
    handle.kill()
    return pid


# --- 14. killing the model worker -------------------------------------------------------


async def test_a_request_that_streamed_nothing_is_retried(tmp_path: Path) -> None:
    with ScriptedModel() as model:
        model.add(reply("never seen", delay=5), reply("the answer"))
        killed: list[int] = []
        async with open_session(_options(tmp_path, model)) as session, trio.open_nursery() as n:

            async def kill() -> None:
                killed.append(await _kill_model_worker(session, model, after_text=False))

            n.start_soon(kill)
            with trio.fail_after(60):
                result = await session.run("hello")
    assert killed
    assert result.ok, result
    assert result.text == "the answer"
    assert len(model.requests) == 2
    assert model.requests[1]["messages"] == model.requests[0]["messages"]


async def test_a_request_that_streamed_text_fails_its_turn_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    with ScriptedModel() as model:
        model.add(reply("partial answer that stops", chunk=4, stall=10), reply("second try"))
        async with open_session(_options(tmp_path, model)) as session:
            events = session.events()
            async with trio.open_nursery() as nursery:

                async def kill() -> None:
                    await _kill_model_worker(session, model, after_text=True)

                nursery.start_soon(kill)
                with trio.fail_after(60):
                    first = await session.run("hello")
            errors = []
            while True:
                try:
                    e = events.receive_nowait()
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
                if isinstance(e, ev.ErrorEvent):
                    errors.append(e)
            with trio.fail_after(60):
                second = await session.run("again")
    assert not first.ok
    assert errors
    assert "died while answering" in errors[-1].message
    assert "ask again" in errors[-1].message
    assert second.ok, second
    assert second.text == "second try"


# --- 15. a tool call larger than a frame -------------------------------------------------


async def test_an_oversize_tool_call_becomes_a_tool_error(tmp_path: Path) -> None:
    size = DEFAULT_MAX_FRAME + 4 * 1024 * 1024
    with ScriptedModel() as model:
        model.add(
            reply("", call("write_file", path="big.txt", content="x" * size), chunk=1 << 20),
            reply("", call("write_file", path="small.txt", content="ok\n")),
            reply("done"),
        )
        async with open_session(_options(tmp_path, model)) as session:
            with trio.fail_after(120):
                result = await session.run("write a big file")
            tools = [m.content for m in session.history if m.role == "tool"]
    assert result.ok, result
    assert result.text == "done"
    assert "arguments too large: 20 MB; the limit is 16 MB" in tools[0]
    assert not (tmp_path / "ws" / "big.txt").exists()
    assert (tmp_path / "ws" / "small.txt").read_text() == "ok\n"


# --- 16. the heartbeat bound the manual states ---------------------------------------------


def test_the_readme_states_the_real_heartbeat_bound() -> None:
    interval = WorkerSettings(workspace=".").heartbeat_interval
    misses = attrs.fields(ChildSpec).heartbeat_misses.default
    assert interval is not None
    text = " ".join(WORKERS_DOC.read_text().split())
    found = re.search(
        r"a ping every (\d+) s, and a worker that has left the last (\d+) unanswered is "
        r"killed, between (\d+) and (\d+) s after it stopped answering",
        text,
    )
    assert found, "docs/workers.md no longer states the heartbeat bound"
    every, last, low, high = (int(g) for g in found.groups())
    assert (every, last) == (interval, misses)
    # A worker that hangs just after answering ping k is killed when ping k+misses+1
    # would go out; one that hangs just before answering ping k+1, misses intervals later.
    assert (low, high) == (misses * interval, (misses + 1) * interval)
