"""The history goes to the model worker as a delta, and the provider still gets it whole.

Each test checks the bodies the scripted server received against the bodies the same
model worker sends for a plain full-history ``ChatRequest`` of the same messages.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import trio

from harness.conversation import Session
from harness.messages.model import ChatMessage
from tests.scripted import ScriptedModel, call, reply


async def _full_body(s: Session, model: ScriptedModel, messages: list[ChatMessage]) -> Any:
    """The body the model worker sends for *messages* in a request with no delta."""
    conv = s.conversation
    model.add(reply("full", usage=None))
    request = conv.requests.build(messages, system=conv.config.system, tools=conv.schemas())
    assert request.history is None
    with trio.fail_after(10):
        async with s.workers.stream(request) as items:
            async for _ in items:
                pass
    return model.requests[-1]


async def _check_bodies_whole(
    s: Session, model: ScriptedModel, bodies: list[Any], history: list[ChatMessage]
) -> None:
    """Each body equals the full-history body of the history prefix it stands for."""
    for body in bodies:
        n = len(body["messages"]) - 1  # the system prompt comes first
        assert body == await _full_body(s, model, history[:n])


async def test_rounds_after_the_first_send_only_the_new_messages(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    model.add(*[reply("", call("read_file", path="a.txt"), usage=None) for _ in range(4)])
    model.add(reply("read it four times", usage=None))
    async with session_factory() as s:
        result = await s.run("read a.txt four times")
        assert result.ok, result
        sync = s.conversation.history_sync
        assert (sync.full_sends, sync.delta_sends, sync.resends) == (1, 4, 0)
        bodies = list(model.requests)
        assert [len(b["messages"]) for b in bodies] == [2, 4, 6, 8, 10]
        await _check_bodies_whole(s, model, bodies, s.history)
        # a second prompt in the same session goes on with deltas
        model.add(reply("again", usage=None))
        assert (await s.run("once more?")).ok
        assert (sync.full_sends, sync.delta_sends) == (1, 5)
        assert model.requests[-1]["messages"][-1] == {"role": "user", "content": "once more?"}
        # new tools (or a new system prompt) go with a full send; the worker keeps them
        s.register_tool(
            "shout", "say it loud", {"type": "object", "properties": {}}, _shout, kind="read"
        )
        model.add(reply("", call("shout"), usage=None), reply("shouted", usage=None))
        assert (await s.run("shout")).ok
        assert (sync.full_sends, sync.delta_sends, sync.resends) == (2, 6, 0)
        for body in model.requests[-2:]:
            assert "shout" in [t["function"]["name"] for t in body["tools"]]
        await _check_bodies_whole(s, model, model.requests[-2:], s.history)


async def _shout(args: dict[str, Any]) -> str:
    return "HEY"


async def test_model_worker_killed_mid_task_gets_the_history_in_full(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    model.add(
        reply("", call("read_file", path="a.txt"), usage=None),
        reply("", call("kill_model_worker"), usage=None),
        reply("", call("read_file", path="a.txt"), usage=None),
        reply("done", usage=None),
    )
    async with session_factory() as s:
        handle = s.workers.supervisor.get("model")
        old_pid = handle.pid

        async def kill_model_worker(args: dict[str, Any]) -> str:
            os.kill(old_pid, signal.SIGKILL)
            # wait for the replacement, so the next request surely meets a new process
            with trio.fail_after(15):
                while handle.pid in (None, old_pid):  # noqa: ASYNC110 - another process
                    await trio.sleep(0.02)
            return "killed"

        s.register_tool(
            "kill_model_worker",
            "kill -9 the model worker",
            {"type": "object", "properties": {}},
            kill_model_worker,
        )
        with trio.fail_after(30):
            result = await s.run("read a.txt, then kill the model worker")
        assert result.ok, result
        assert handle.pid != old_pid
        sync = s.conversation.history_sync
        # the new worker did not hold the base: one HistoryUnknown, one resend in full
        assert sync.resends == 1
        assert sync.full_sends == 2
        assert len(model.requests) == 4
        await _check_bodies_whole(s, model, list(model.requests), s.history)


async def test_compaction_rewrites_the_history_the_worker_holds(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    model.add(
        reply("", call("read_file", path="a.txt"), usage=None),
        reply("It says alpha.", usage=None),
        reply("The user read a.txt; it says alpha.", usage=None),  # the summary
        reply("Still alpha.", usage=None),
    )
    async with session_factory() as s:
        assert (await s.run("read a.txt")).ok
        assert await s.conversation.compact()
        assert s.history[0].content.startswith("[Summary")
        assert (await s.run("what did it say?")).ok
        sync = s.conversation.history_sync
        assert sync.full_sends == 2  # the first request, and the first after the compaction
        assert sync.resends == 0
        last = model.requests[-1]
        assert "[Summary" in last["messages"][1]["content"]
        assert len(last["messages"]) == 1 + len(s.history) - 1
        # requests[2] was the summary; [3] is the first after the compaction
        await _check_bodies_whole(s, model, [model.requests[3]], s.history)


async def test_trimmed_history_is_sent_whole(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("line of text\n" * 120)
    model.add(
        reply("", call("read_file", path="big.txt"), usage=None),
        reply("It repeats.", usage=None),
        reply("Yes.", usage=None),
    )
    async with session_factory() as s:
        assert (await s.run("read big.txt")).ok
        # a window that forces the old read_file output to be trimmed from now on
        b = s.conversation.budget
        conv = s.conversation
        need = b.estimate(conv.config.system, conv.history, conv.schemas())
        b.window, b.reserve = int(need / b.settings.threshold) + 300, 300
        assert (await s.run("still repeating? " + "please " * 100)).ok
        last = model.requests[-1]
        tool_msgs = [m for m in last["messages"] if m["role"] == "tool"]
        assert tool_msgs[0]["content"].startswith("[output trimmed")
        sync = conv.history_sync
        assert sync.full_sends == 2
        assert sync.resends == 0


async def test_resumed_session_sends_its_history_whole(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    model.add(
        reply("", call("read_file", path="a.txt"), usage=None),
        reply("alpha", usage=None),
    )
    async with session_factory() as s:
        assert (await s.run("read a.txt")).ok
        sid = s.id
        before = list(s.history)
    model.add(reply("", call("read_file", path="a.txt"), usage=None), reply("again", usage=None))
    async with session_factory(resume=sid) as s:
        assert s.history == before
        assert (await s.run("and again")).ok
        sync = s.conversation.history_sync
        assert (sync.full_sends, sync.delta_sends, sync.resends) == (1, 1, 0)
        await _check_bodies_whole(s, model, model.requests[2:4], s.history)
