"""Named sub-agents from agents/*.md, hired by the model with spawn_agent(agent=...),
and the honest report of a sub-agent stopped by its turn limit; real runners, the
scripted model on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from harness.conversation import SubagentLimits, Task, open_session
from tests.conversation.conftest import options_for
from tests.scripted import ScriptedModel, call, reply
from tests.subagents.conftest import Router, runners

REVIEWER = """---
name: reviewer
description: Reviews code for bugs. Use after a change.
tools: Read, Grep, frobnicate
model: inherit
---
You are REVIEWER-PROMPT-7. You only read.
"""


def _session(workspace: Path, home: Path, model: ScriptedModel, **kw: Any) -> Any:
    return open_session(options_for(workspace, home, model, **kw))


def _system(body: dict[str, Any]) -> str:
    return "\n".join(str(m["content"]) for m in body["messages"] if m["role"] == "system")


def _first_user(body: dict[str, Any]) -> str:
    return next(str(m["content"]) for m in body["messages"] if m["role"] == "user")


def _tools(body: dict[str, Any]) -> list[str]:
    return sorted(t["function"]["name"] for t in body.get("tools") or [])


async def test_the_model_hires_a_named_agent_with_its_prompt_and_tools(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / ".claude" / "agents").mkdir(parents=True)
    (workspace / ".claude" / "agents" / "reviewer.md").write_text(REVIEWER)
    (workspace / "a.py").write_text("x = 1\n")
    Router(
        {
            "review a.py": [
                reply("", call("spawn_agent", agent="reviewer", task="look over a.py")),
                reply("The reviewer found nothing."),
            ],
            "look over a.py": [
                reply("", call("read_file", path="a.py")),
                # outside its tools: refused by the parent, whatever the runner asks
                reply("", call("write_file", path="a.py", content="broken")),
                reply("a.py sets x to 1; no bugs."),
            ],
        }
    ).serve(model)
    async with _session(workspace, home, model) as s:
        with trio.fail_after(30):
            result = await s.run("review a.py")
    assert result.ok, result
    parent = model.requests[0]
    spawn = next(t for t in parent["tools"] if t["function"]["name"] == "spawn_agent")
    # offered by name and description
    assert (
        "- reviewer: Reviews code for bugs. Use after a change." in spawn["function"]["description"]
    )
    assert spawn["function"]["parameters"]["properties"]["agent"]["enum"] == ["reviewer"]
    hired = [b for b in model.requests if "look over a.py" in _first_user(b)]
    assert hired
    assert all("You are REVIEWER-PROMPT-7." in _system(b) for b in hired)
    assert all(_tools(b) == ["read_file", "search_text"] for b in hired)
    assert (workspace / "a.py").read_text() == "x = 1\n"
    [tool] = [m for m in s.history if m.role == "tool"]
    assert tool.content.startswith("a.py sets x to 1; no bugs.")
    assert runners() == []


async def test_an_unknown_agent_name_is_a_clear_tool_error(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / ".harness" / "agents").mkdir(parents=True)
    (workspace / ".harness" / "agents" / "reviewer.md").write_text(REVIEWER)
    async with _session(workspace, home, model) as s:
        [report] = await s.spawn_subagents([Task("anything", agent="nobody")])
    assert not report.ok
    assert "no agent named 'nobody'" in report.text
    assert "reviewer" in report.text


async def test_a_tool_call_for_a_report_is_not_passed_on_as_one(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / "a.txt").write_text("a\n")

    def forever(body: dict[str, Any]) -> Any:
        if "used all your turns" in str(body["messages"][-1].get("content")):
            return reply(
                '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>'
            )
        return reply("a.txt holds the letter a.", call("read_file", path="a.txt"))

    Router({"loop forever": [forever]}).serve(model)
    limits = SubagentLimits(max_turns=2)
    async with _session(workspace, home, model, subagents=limits) as s:
        with trio.fail_after(30):
            [report] = await s.spawn_subagents([Task("loop forever")])
    assert not report.ok
    assert "<tool_call>" not in report.text
    assert "was stopped: it reached its turn limit (2)" in report.text
    assert "answered with a tool call instead (not run)" in report.text
    assert "the last tool it called was read_file" in report.text
    assert "The last thing it said: a.txt holds the letter a." in report.text


async def test_prose_around_a_call_is_kept_as_the_report(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / "a.txt").write_text("a\n")

    def forever(body: dict[str, Any]) -> Any:
        if "used all your turns" in str(body["messages"][-1].get("content")):
            return reply(
                "Found: a.txt holds a.\n"
                '<tool_call>{"name": "read_file", "arguments": {"path": "b.txt"}}</tool_call>'
            )
        return reply("", call("read_file", path="a.txt"))

    Router({"loop forever": [forever]}).serve(model)
    async with _session(workspace, home, model, subagents=SubagentLimits(max_turns=2)) as s:
        with trio.fail_after(30):
            [report] = await s.spawn_subagents([Task("loop forever")])
    assert report.ok
    assert report.text.endswith("reported from what it had:\nFound: a.txt holds a.")


async def test_a_named_agents_model_is_asked_first(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / ".harness" / "agents").mkdir(parents=True)
    (workspace / ".harness" / "agents" / "mini.md").write_text(
        "---\nname: mini\ndescription: cheap looks\nmodel: scripted-mini\n---\nBe brief.\n"
    )
    Router({"have a look": [reply("looked")]}).serve(model)
    async with _session(workspace, home, model) as s:
        with trio.fail_after(20):
            [report] = await s.spawn_subagents([Task("have a look", agent="mini")])
    assert report.ok
    assert report.text == "looked"
    assert model.requests[0]["model"] == "scripted-mini"
    assert "Be brief." in _system(model.requests[0])


async def test_a_bad_definition_is_among_the_sessions_problems(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    folder = workspace / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "broken.md").write_text("---\nname: broken\n---\nno description\n")
    (folder / "reviewer.md").write_text(REVIEWER)
    async with _session(workspace, home, model) as s:
        problems = list(s.problems)
    assert f"{folder / 'broken.md'}: skipped: no description" in "\n".join(problems)
    assert any("unknown tool frobnicate: no harness tool has that name" in p for p in problems)
