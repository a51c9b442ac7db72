"""Hooks in the loop, through the Python API: the scripted model on loopback, the real
workers, hooks in ``$HARNESS_HOME/settings.json``. What a PreToolUse hook's allow, ask and
updatedInput may do and may not, a refused prompt, a hung hook, and a sub-agent's calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psutil
import trio

from harness.conversation import events as ev
from harness.conversation import open_session
from tests.conversation.conftest import drain, options_for
from tests.scripted import ScriptedModel, call, reply
from tests.subagents.conftest import Router


def hook(home: Path, event: str, command: str, matcher: str = "", **more: Any) -> None:
    """Register one command hook for *event* in the user's settings."""
    path = home / "settings.json"
    data = json.loads(path.read_text()) if path.exists() else {"hooks": {}}
    handler = {"type": "command", "command": command, **more}
    data["hooks"].setdefault(event, []).append({"matcher": matcher, "hooks": [handler]})
    path.write_text(json.dumps(data))


def says(decision: str, reason: str = "", **extra: Any) -> str:
    out = {"permissionDecision": decision, "permissionDecisionReason": reason, **extra}
    return f"cat >/dev/null; echo '{json.dumps({'hookSpecificOutput': out})}'"


def session(workspace: Path, home: Path, model: ScriptedModel, **kw: Any) -> Any:
    return open_session(options_for(workspace, home, model, **kw))


def results(s: Any) -> list[str]:
    return [m.content for m in s.history if m.role == "tool"]


async def test_allow_skips_the_question_but_not_a_deny_rule(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    hook(home, "PreToolUse", says("allow", "fine by the hook"), matcher="Write")
    model.add(
        reply("", call("write_file", path="a.txt", content="a\n")),
        reply("", call("write_file", path="secret.txt", content="s\n")),
        reply("", call("write_file", path=".mcp.json", content="{}")),
        reply("done"),
    )
    # ask mode with no one to ask: only the hook's allow lets a write through
    async with session(
        workspace, home, model, permission_mode="ask", deny=("write_file(secret.txt)",)
    ) as s:
        with trio.fail_after(30):
            result = await s.run("write")
    assert result.reason == "denied"  # the last call asked, and no one was there to answer
    assert (workspace / "a.txt").read_text() == "a\n"
    assert not (workspace / "secret.txt").exists()
    assert not (workspace / ".mcp.json").exists()  # a file that always asks still asks
    _, second, third = results(s)
    assert "denied by rule write_file(secret.txt)" in second
    assert "no terminal to ask for approval" in third


# rewrites a.txt to b.txt, and c.txt to .mcp.json, keeping the content
REWRITE = (
    'jq -c \'{hookSpecificOutput: {permissionDecision: "allow", updatedInput: '
    '{file_path: (.tool_input.file_path | sub("a.txt$"; "b.txt") | sub("c.txt$"; ".mcp.json")),'
    " content: .tool_input.content}}}'"
)


async def test_updated_input_replaces_the_arguments_and_is_checked_again(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    hook(home, "PreToolUse", REWRITE, matcher="Write")
    model.add(
        reply("", call("write_file", path="a.txt", content="x\n")),
        reply("", call("write_file", path="c.txt", content="{}")),
        reply("done"),
    )
    async with session(workspace, home, model) as s:
        with trio.fail_after(30):
            result = await s.run("go")
    assert result.reason == "denied"
    assert not (workspace / "a.txt").exists()
    assert (workspace / "b.txt").read_text() == "x\n"
    assert not (workspace / "c.txt").exists()
    assert not (workspace / ".mcp.json").exists()  # the new path asks, and no one answers
    assert "always asks" in results(s)[1]


async def test_ask_forces_the_question(workspace: Path, home: Path, model: ScriptedModel) -> None:
    hook(home, "PreToolUse", says("ask", "look first"), matcher="Bash")
    model.add(reply("", call("run_cmd", command="touch ran")), reply("done"))
    async with session(workspace, home, model, names=("model", "tools", "shell")) as s:
        with trio.fail_after(30):
            result = await s.run("go")
    assert result.reason == "denied"  # auto mode, but the hook asked: no one to ask
    assert not (workspace / "ran").exists()
    assert "a PreToolUse hook asks first: look first" in results(s)[0]


async def test_a_refused_prompt_never_reaches_the_model(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    hook(home, "UserPromptSubmit", "echo 'no secrets in prompts' >&2; exit 2")
    async with session(workspace, home, model) as s:
        result = await s.run("my password is hunter2")
    assert not result.ok
    assert result.reason == "hook_blocked"
    assert model.requests == []
    assert s.history == []


async def test_a_hung_hook_costs_its_timeout_and_a_second_and_leaves_nothing(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    pids = workspace / "pids"
    hung = f"sleep 60 & echo $! >> {pids}; setsid sleep 60 & echo $! >> {pids}; sleep 60"
    hook(home, "PreToolUse", hung, matcher="Read", timeout=1)
    (workspace / "a.txt").write_text("hello\n")
    model.add(reply("", call("read_file", path="a.txt")), reply("done"))
    async with session(workspace, home, model) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("read")
        seen = drain(events)
    assert result.ok, result
    assert "hello" in results(s)[0]  # the hook failed open: the call went on
    started = next(e for e in seen if isinstance(e, ev.HookStarted))
    finished = next(e for e in seen if isinstance(e, ev.HookFinished))
    assert finished.ts - started.ts < 1 + 1
    assert finished.decision == "error"
    assert "timeout" in finished.reason
    assert any(isinstance(e, ev.Notice) and e.kind == "hook" for e in seen)
    await trio.sleep(0.1)
    alive = [int(p) for p in pids.read_text().split() if psutil.pid_exists(int(p))]
    assert [p for p in alive if psutil.Process(p).status() != psutil.STATUS_ZOMBIE] == []


async def test_a_subagents_calls_meet_the_same_guard(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    hook(home, "PreToolUse", "echo 'no deleting here' >&2; exit 2", matcher="Bash")
    hook(home, "SubagentStop", 'cat >/dev/null; echo \'{"additionalContext": "checked"}\'')
    (workspace / "keep").mkdir()
    Router(
        {
            "clean up": [reply("", call("spawn_agent", task="delete keep")), reply("done")],
            "delete keep": [reply("", call("run_cmd", command="rm -rf keep")), reply("refused")],
        }
    ).serve(model)
    async with session(workspace, home, model, names=("model", "tools", "shell")) as s:
        with trio.fail_after(60):
            result = await s.run("clean up")
    assert result.ok, result
    assert (workspace / "keep").is_dir()
    report = results(s)[0]
    assert report.startswith("refused")
    assert report.endswith("[SubagentStop hook] checked")


async def test_a_subagent_stop_hook_keeps_the_subagent_going_until_it_is_satisfied(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    seen = workspace / "active.txt"
    check = "test -f done.txt || { echo 'write done.txt first' >&2; exit 2; }"
    hook(home, "SubagentStop", f"jq -r .stop_hook_active >> {seen}; {check}")
    Router(
        {
            "work on it": [reply("", call("spawn_agent", task="make done.txt")), reply("ok")],
            "make done.txt": [
                reply("I am done"),  # it is not: the hook sends it back to work
                reply("", call("write_file", path="done.txt", content="ok\n")),
                reply("now it is done"),
            ],
        }
    ).serve(model)
    async with session(workspace, home, model) as s:
        with trio.fail_after(60):
            result = await s.run("work on it")
    assert result.ok, result
    assert (workspace / "done.txt").read_text() == "ok\n"
    assert results(s)[0].startswith("now it is done")
    # asked as it stopped, twice, and not again once its report was in
    assert seen.read_text().split() == ["false", "true"]
    told = [
        m["content"]
        for r in model.requests
        for m in r["messages"]
        if m["role"] == "user" and "[Stop hook]" in str(m["content"])
    ]
    assert "[Stop hook] write done.txt first" in told


async def test_session_start_pre_compact_and_session_end_fire_with_their_payloads(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    hook(home, "SessionStart", f"cat > {workspace}/start.json; echo today is Tuesday", "startup")
    hook(home, "SessionStart", "echo never: not a resume", "resume")
    hook(home, "PreCompact", f"cat > {workspace}/compact.json", "manual")
    hook(home, "SessionEnd", f"cat > {workspace}/end.json")
    model.add(reply("hi"), reply("ok"), reply("we greeted each other"))
    async with session(workspace, home, model, autotitle=False) as s:
        with trio.fail_after(30):
            await s.run("hello")
            await s.run("again")
            assert await s.compact()
        assert not (workspace / "end.json").exists()
    # its context follows the first prompt
    told = [m["content"] for m in model.requests[0]["messages"] if m["role"] == "user"]
    assert told == ["hello", "today is Tuesday"]
    assert "never" not in json.dumps(model.requests)
    start = json.loads((workspace / "start.json").read_text())
    assert (start["hook_event_name"], start["source"]) == ("SessionStart", "startup")
    compact = json.loads((workspace / "compact.json").read_text())
    assert (compact["hook_event_name"], compact["trigger"]) == ("PreCompact", "manual")
    end = json.loads((workspace / "end.json").read_text())
    assert (end["hook_event_name"], end["reason"]) == ("SessionEnd", "exit")
    assert end["session_id"] == start["session_id"] == s.id


async def test_pre_compact_says_auto_when_the_window_fills_during_a_run(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    from harness.conversation import ContextSettings

    hook(home, "PreCompact", f"cat > {workspace}/auto.json", "auto")
    hook(home, "PreCompact", f"touch {workspace}/manual-fired", "manual")
    (workspace / "big.txt").write_text("line of text\n" * 120)
    # no usage reports: calibration would move the estimate this test is built on
    model.add(
        reply("", call("read_file", path="big.txt"), usage=None),
        reply("It repeats.", usage=None),
        reply("The user read big.txt; it holds repeated lines.", usage=None),  # the summary
        reply("Again.", usage=None),
    )
    opts = {"context": ContextSettings(threshold=1.0), "autotitle": False}
    async with session(workspace, home, model, **opts) as s:
        # a window just above what the system prompt and the tool schemas need
        b = s.conversation.budget
        base = b.estimate(s.conversation.config.system, [], s.conversation.schemas())
        b.window, b.reserve = base + 1500, 200
        with trio.fail_after(30):
            assert (await s.run("read big.txt " + "context " * 150)).ok
            assert (await s.run("and again? " + "please " * 570)).ok
    payload = json.loads((workspace / "auto.json").read_text())
    assert (payload["hook_event_name"], payload["trigger"]) == ("PreCompact", "auto")
    assert not (workspace / "manual-fired").exists()


async def test_a_commands_shell_lines_meet_the_same_guard(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    from harness.conversation import run_shell_line

    seen = workspace / "post.json"
    guard = "if grep -q 'rm -rf'; then echo 'no deleting here' >&2; exit 2; fi"
    hook(home, "PreToolUse", guard, matcher="Bash")
    hook(home, "PostToolUse", f"cat > {seen}", matcher="Bash")
    (workspace / "keep").mkdir()
    async with session(workspace, home, model, names=("model", "tools", "shell")) as s:
        with trio.fail_after(30):
            refused = await run_shell_line(s, "rm -rf keep")
            ran = await run_shell_line(s, "echo hello")
    assert refused == (False, "a PreToolUse hook refused it: no deleting here")
    assert (workspace / "keep").is_dir()
    assert ran[0], ran
    assert "hello" in ran[1]
    post = json.loads(seen.read_text())
    assert (post["tool_name"], post["tool_input"]["command"]) == ("Bash", "echo hello")


async def test_a_stop_hook_that_always_blocks_is_capped(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    seen = workspace / "active.txt"
    hook(home, "Stop", f"jq -r .stop_hook_active >> {seen}; echo 'not yet' >&2; exit 2")
    model.add(*[reply(f"done {i}") for i in range(6)])
    async with session(workspace, home, model) as s:
        with trio.fail_after(30):
            result = await s.run("go")
    assert result.ok, result
    assert result.text == "done 3"  # three blocks, then the run ends on the fourth answer
    assert result.turns == 4
    assert seen.read_text().split() == ["false", "true", "true"]
    told = [m.content for m in s.history if m.role == "user"]
    assert told[1:] == ["[Stop hook] not yet"] * 3


async def test_notification_fires_beside_the_approval_question(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    seen = workspace / "note.json"
    hook(home, "Notification", f"cat > {seen}")
    asked: list[str] = []

    async def approver(request: Any) -> str:
        asked.append(request.name)
        return "yes"

    model.add(reply("", call("write_file", path="a.txt", content="a\n")), reply("done"))
    options = options_for(workspace, home, model, permission_mode="ask")
    async with open_session(options, approver=approver) as s:
        with trio.fail_after(30):
            result = await s.run("write")
    assert result.ok, result
    assert asked == ["write_file"]
    note = json.loads(seen.read_text())
    assert note["hook_event_name"] == "Notification"
    assert note["message"] == "harness needs your permission to use write_file"
