"""The loop against the scripted model over loopback, with workers as real processes."""

from __future__ import annotations

import json
from pathlib import Path

import psutil
import trio

from harness.conversation import events as ev
from tests.conversation.conftest import drain
from tests.scripted import ScriptedModel, call, reply


def _alive(marker: str) -> list[psutil.Process]:
    return [
        p
        for p in psutil.process_iter(["cmdline", "status"])
        if p.info["status"] != psutil.STATUS_ZOMBIE and marker in " ".join(p.info["cmdline"] or ())
    ]


async def test_multi_step_edit(session_factory, model: ScriptedModel, workspace: Path) -> None:
    (workspace / "a.txt").write_text("hello\n")
    model.add(
        reply("Reading.", call("read_file", path="a.txt")),
        reply("", call("edit_file", path="a.txt", old_text="hello", new_text="bye")),
        reply("Changed hello to bye."),
    )
    async with session_factory() as s:
        events = s.events()
        result = await s.run("change hello to bye in a.txt")
        seen = drain(events)
    assert result.ok, result
    assert result.turns == 3
    assert result.text == "Changed hello to bye."
    assert (workspace / "a.txt").read_text() == "bye\n"
    # what the model was sent: the read result came back as a tool message
    second = model.requests[1]["messages"]
    assert second[-1]["role"] == "tool"
    assert second[-1]["content"].startswith("1:")
    assert "|hello" in second[-1]["content"]
    types = [e.TAG for e in seen]
    assert types[-1] == "result"
    assert types.count("tool_call_finished") == 2
    finished = [e for e in seen if isinstance(e, ev.ToolCallFinished)]
    assert all(e.ok for e in finished)


async def test_denial_ends_the_turn(session_factory, model: ScriptedModel, workspace: Path) -> None:
    asked = []

    async def approver(req):
        asked.append(req)
        return "no"

    model.add(
        reply("", call("write_file", path="x.txt", content="1"), call("read_file", path="x.txt")),
        reply("never asked"),
    )
    async with session_factory(permission_mode="ask", approver=approver) as s:
        events = s.events()
        result = await s.run("write x")
        seen = drain(events)
    assert not result.ok
    assert result.reason == "denied"
    assert not (workspace / "x.txt").exists()
    assert [r.name for r in asked] == ["write_file"]
    assert "+1" in asked[0].diff  # the tools worker's preview of the new file was shown
    denied = [e for e in seen if isinstance(e, ev.ToolCallDenied)]
    assert [e.name for e in denied] == ["write_file"]
    outs = [e for e in seen if isinstance(e, ev.ToolCallFinished)]
    assert [e.ok for e in outs] == [False, False]
    assert "Not executed" in outs[1].output
    assert len(model.requests) == 1  # the model was not asked again
    # the history stays well-formed: every call has a result
    assert [m.role for m in s.history] == ["user", "assistant", "tool", "tool"]


async def test_headless_ask_without_terminal_denies_and_says_so(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    model.add(reply("", call("write_file", path="x.txt", content="1")))
    async with session_factory(permission_mode="ask") as s:
        result = await s.run("write x")
    assert result.reason == "denied"
    assert "no terminal" in s.history[-1].content


async def test_worker_killed_mid_call_becomes_error_result(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("x\n")
    model.add(
        reply("", call("run_cmd", command="sleep 30")),
        reply("", call("run_cmd", command="ls")),
        reply("recovered"),
    )
    async with session_factory(names=("model", "tools", "shell")) as s:
        events = s.events()
        await s.workers.start(["shell"])  # else its first call starts it
        handle = s.workers.supervisor.get("shell")
        old_pid = handle.pid
        async with trio.open_nursery() as nursery:

            async def killer() -> None:
                async for e in events:
                    if isinstance(e, ev.ToolCallStarted):
                        handle.kill()
                        return

            nursery.start_soon(killer)
            with trio.fail_after(20):
                result = await s.run("sleep")
        seen = drain(events)
        assert result.ok, result
        assert result.text == "recovered"
        tool_msgs = [m for m in s.history if m.role == "tool"]
        assert "crashed" in tool_msgs[0].content
        assert "run_cmd('sleep 30')" in tool_msgs[0].content
        assert (
            "a.txt" in model.requests[2]["messages"][-1]["content"]
        )  # list_dir ran on the new one
        assert handle.pid != old_pid

        # cancel with a command in flight: the run ends at once, the command goes too
        model.add(reply("", call("run_cmd", command="sleep 62.53")), reply("after cancel"))
        async with trio.open_nursery() as nursery:

            async def canceller() -> None:
                async for e in events:
                    if isinstance(e, ev.ToolCallStarted):
                        await trio.sleep(0.3)
                        s.cancel()
                        return

            nursery.start_soon(canceller)
            with trio.fail_after(10):
                cancelled = await s.run("sleep again")
        assert cancelled.reason == "cancelled"
        assert s.history[-1].role == "tool"
        assert "Cancelled" in s.history[-1].content
        with trio.fail_after(10):
            while _alive("62.53"):  # noqa: ASYNC110 - polling another process
                await trio.sleep(0.1)
        assert (await s.run("still there?")).text == "after cancel"
    exits = [e for e in seen if isinstance(e, ev.WorkerExited)]
    assert [e.worker for e in exits] == ["shell"]
    assert exits[0].exit_code == -9


async def test_cancel_mid_stream_leaves_session_usable(
    session_factory, model: ScriptedModel
) -> None:
    model.add(reply("a long answer " * 50, chunk=5, stall=30), reply("second ok"))
    async with session_factory() as s:
        events = s.events()
        cancelled_at = 0.0
        async with trio.open_nursery() as nursery:

            async def canceller() -> None:
                nonlocal cancelled_at
                async for e in events:
                    if isinstance(e, ev.TextDelta):
                        cancelled_at = trio.current_time()
                        s.cancel()
                        return

            nursery.start_soon(canceller)
            with trio.fail_after(10):
                result = await s.run("talk")
        took = trio.current_time() - cancelled_at
        assert result.reason == "cancelled"
        assert not result.ok
        assert took < 5  # a hang guard; the bench measures the real figure
        second = await s.run("again")
        assert second.ok
        assert second.text == "second ok"
        roles = [m["role"] for m in model.requests[1]["messages"]]
        assert roles == ["system", "user", "assistant", "user"]


async def test_inbox_joins_next_request(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    # over QUICK_READ_LIMIT, so the read goes to the tools worker and the poster runs
    # while it waits (a small file is read in-process, and the next request could be
    # built before the poster ran)
    (workspace / "a.txt").write_text("x\n" * 40_000)
    model.add(reply("", call("read_file", path="a.txt")), reply("done"))
    async with session_factory() as s:
        events = s.events()
        async with trio.open_nursery() as nursery:

            async def poster() -> None:
                async for e in events:
                    if isinstance(e, ev.ToolCallStarted):
                        s.post("also check b.txt")
                        return

            nursery.start_soon(poster)
            result = await s.run("read a")
    assert result.ok
    last = model.requests[1]["messages"]
    assert last[-1] == {"role": "user", "content": "also check b.txt"}
    assert last[-2]["role"] == "tool"


async def test_verify_failure_goes_back_to_model(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    model.add(
        reply("done"),
        reply("", call("write_file", path="ok.txt", content="y")),
        reply("done now"),
    )
    async with session_factory(verify="test -f ok.txt && echo verified") as s:
        events = s.events()
        result = await s.run("make ok.txt")
        seen = drain(events)
    assert result.ok
    assert result.text == "done now"
    verifies = [e for e in seen if isinstance(e, ev.VerifyFinished)]
    assert [v.ok for v in verifies] == [False, True]
    feedback = model.requests[1]["messages"][-1]["content"]
    assert "verify command" in feedback
    assert "test -f ok.txt" in feedback


async def test_run_endings_in_one_session(
    session_factory, model: ScriptedModel, workspace: Path, home: Path
) -> None:
    """Several ways a run ends, one after another in one session (each leaves it usable)."""
    (workspace / "a.txt").write_text("x")
    async with session_factory() as s:
        # unknown tools and bad arguments become results the model can read
        model.add(
            reply("", call("no_such_tool", x=1), call("read_file", "{not json")),
            reply("", call("read_file", wrong=1)),
            reply("ok"),
        )
        result = await s.run("x")
        assert result.ok
        tools = [m.content for m in s.history if m.role == "tool"]
        assert "Unknown tool" in tools[0]
        assert "did not parse" in tools[1]
        assert "Invalid arguments" in tools[2]
        # the turn limit
        s.conversation.config.max_turns = 2
        model.add(*[reply("", call("read_file", path="a.txt")) for _ in range(2)])
        result = await s.run("loop")
        assert result.reason == "max_turns"
        assert result.turns == 2
        s.conversation.config.max_turns = 50
        # the verify command failing more often than allowed
        s.conversation.config.verify = "false"
        s.conversation.config.verify_attempts = 1
        model.add(reply("done"), reply("done"))
        result = await s.run("x")
        assert not result.ok
        assert result.reason == "verify_failed"
        s.conversation.config.verify = None
        # a model error is an error event and a failed result, not an exception
        events = s.events()
        model.add(reply(status=401, error="bad key"))
        result = await s.run("x")
        seen = drain(events)
        assert not result.ok
        assert result.reason == "error"
        errors = [e for e in seen if isinstance(e, ev.ErrorEvent)]
        assert [e.kind for e in errors] == ["auth"]
        # the memory tools and use_skill run in the conversation itself
        (workspace / "skills" / "greet").mkdir(parents=True)
        (workspace / "skills" / "greet" / "SKILL.md").write_text(
            "---\nname: greet\ndescription: Say hello.\n---\nAlways say hello first.\n"
        )
        model.add(
            reply(
                "",
                call("write_memory", key="style", value="short answers"),
                call("read_memory", key="style"),
                call("use_skill", name="greet"),
            ),
            reply("still here"),
        )
        assert (await s.run("remember my style")).text == "still here"
        outs = [m.content for m in s.history[-4:-1]]
        assert "Saved memory 'style'" in outs[0]
        assert outs[1] == "short answers"
        assert "Always say hello first." in outs[2]
        assert json.loads((home / "memory.json").read_text()) == {"style": "short answers"}
