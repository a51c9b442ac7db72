"""Deepthink's five stages against the scripted model, on real workers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from harness.conversation import events as ev
from tests.cli.inprocess import in_process
from tests.conversation.conftest import MODULES, drain
from tests.scripted import ScriptedModel, call, reply
from tests.search import _web


def _stages(seen: list[ev.ConversationEvent]) -> list[tuple[str, str]]:
    out = []
    for e in seen:
        if isinstance(e, ev.StageStarted):
            out.append(("start", e.stage))
        elif isinstance(e, ev.StageFinished):
            out.append(("end", f"{e.stage}:{e.reason}"))
    return out


async def test_five_stages_in_order_with_the_real_diff(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    await trio.run_process(["git", "init", "-q"], cwd=workspace)
    (workspace / "a.txt").write_text("hello\n")
    await trio.run_process(["git", "add", "."], cwd=workspace)
    commit = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"]
    await trio.run_process(commit, cwd=workspace)
    model.add(
        reply("", call("read_file", path="a.txt")),  # plan
        reply("Plan: change hello to bye in a.txt."),
        reply("Checked: a.txt holds hello. Settled."),  # check
        reply("", call("edit_file", path="a.txt", old_text="hello", new_text="bye")),  # implement
        reply("Changed it."),
        reply("The diff is right."),  # review
        reply("", call("read_file", path="a.txt")),  # verify
        reply("a.txt now reads bye."),
    )
    async with session_factory(deepthink=True, autotitle=False) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("change hello to bye in a.txt")
        seen = drain(events)
    assert result.ok, result
    assert result.text == "a.txt now reads bye."
    assert _stages(seen) == [
        ("start", "plan"),
        ("end", "plan:done"),
        ("start", "check"),
        ("end", "check:done"),
        ("start", "implement"),
        ("end", "implement:done"),
        ("start", "review"),
        ("end", "review:done"),
        ("start", "verify"),
        ("end", "verify:done"),
    ]
    # the plan and check stages were offered no changing tool
    for request in model.requests[:3]:
        offered = {t["function"]["name"] for t in request["tools"]}
        assert "read_file" in offered
        assert not offered & {"edit_file", "write_file", "delete_path", "spawn_agent"}
    implement = {t["function"]["name"] for t in model.requests[3]["tools"]}
    assert "edit_file" in implement
    # the review stage was handed the real git diff
    review = model.requests[5]["messages"][-1]["content"]
    assert "stage 4 of 5: review" in review
    assert "-hello" in review
    assert "+bye" in review


async def test_a_question_ends_after_the_plan(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    model.add(reply("It prints hello.\nNOTHING TO BUILD"))
    async with session_factory(deepthink=True) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("what does main.py print?")
        seen = drain(events)
    assert result.ok
    assert result.text == "It prints hello."
    assert _stages(seen) == [("start", "plan"), ("end", "plan:question")]
    assert len(model.requests) == 1


async def test_an_implement_stage_that_changed_nothing_ends_the_chain(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    model.add(
        reply("Plan: nothing to do really."),
        reply("Checked."),
        reply("I decided not to change anything."),
    )
    async with session_factory(deepthink=True) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("tidy a.txt")
        seen = drain(events)
    assert _stages(seen)[-1] == ("end", "implement:nothing_changed")
    assert result.text == "I decided not to change anything."
    assert len(model.requests) == 3


async def test_an_edit_in_the_plan_stage_is_refused_naming_the_stage(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    model.add(
        reply("", call("write_file", path="a.txt", content="bye\n")),
        reply("Plan: I may not write yet.\nNOTHING TO BUILD"),
    )
    async with session_factory(deepthink=True) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("write bye to a.txt")
        seen = drain(events)
    assert result.ok
    assert (workspace / "a.txt").read_text() == "hello\n"
    denied = [e for e in seen if isinstance(e, ev.ToolCallDenied)]
    assert [e.name for e in denied] == ["write_file"]
    told = model.requests[1]["messages"][-1]["content"]
    assert "switched off in the plan stage of deepthink" in told


async def test_outside_git_the_review_is_told_to_reread_the_files(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    model.add(
        reply("Plan: edit a.txt."),
        reply("Settled."),
        reply("", call("edit_file", path="a.txt", old_text="hello", new_text="bye")),
        reply("Done."),
        reply("Reviewed."),
        reply("Verified."),
    )
    async with session_factory(deepthink=True) as s:
        with trio.fail_after(30):
            result = await s.run("edit a.txt")
    assert result.ok
    review = model.requests[4]["messages"][-1]["content"]
    assert "There is no git diff to show" in review
    assert "(a.txt)" in review


def test_headless_deepthink_streams_the_stages(
    model: ScriptedModel,
    workspace: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model.add(reply("The answer is 4.\nNOTHING TO BUILD"))
    args = ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]
    out = in_process(monkeypatch, capsys)(  # the command's code, in this process
        ["-p", "what is 2+2?", "--deepthink", *args, "--output-format", "stream-json"],
        workspace=workspace,
        home=home,
    )
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    stages = [(e["type"], e["stage"]) for e in events if e["type"].startswith("stage_")]
    assert stages == [("stage_started", "plan"), ("stage_finished", "plan")]
    assert events[-1]["text"] == "The answer is 4."


async def test_the_reading_stages_send_only_get_and_head_requests(
    session_factory, model: ScriptedModel
) -> None:
    with _web.Site() as api:
        api.route("/", lambda req: _web.Page(body=b'{"ok": true}', content_type="application/json"))
        model.add(
            reply("", call("call_api", method="POST", url=f"{api.url}/items", body={"a": 1})),
            reply("", call("call_api", method="GET", url=f"{api.url}/items")),
            reply("Plan: read the items."),
            reply("", call("call_api", method="DELETE", url=f"{api.url}/items/1")),
            reply("Checked: reading is enough."),
            reply("Nothing to change."),  # implement
        )
        search = {"search": "harness.actors.search"}
        async with session_factory(
            deepthink=True, allow=("call_api",), workers={**MODULES, **search}
        ) as s:
            events = s.events()
            with trio.fail_after(60):
                result = await s.run("look at the items")
            seen = drain(events)
    assert result.ok, result
    assert [(r.method, r.path) for r in api.seen] == [("GET", "/items")]
    denied = [e.reason for e in seen if isinstance(e, ev.ToolCallDenied)]
    assert denied == [
        "in the plan stage of deepthink: call_api with method POST may change things on the "
        "server; only GET and HEAD are sent while planning",
        "in the check stage of deepthink: call_api with method DELETE may change things on "
        "the server; only GET and HEAD are sent while planning",
    ]
