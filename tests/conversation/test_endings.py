"""Honest endings: a last reply that claims what no call did, or announces and stops.

The loop runs against the scripted model over loopback, under both tool protocols (calls as
the provider's own tool calls, and as text in the reply), with the workers as real
processes; the headless command prints what the result says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.conversation import events as ev
from harness.conversation._endings import honest_ending
from tests.conversation.conftest import MODULES, PYTHONPATH, drain
from tests.scripted import Reply, ScriptedModel, call, reply

PROTOCOLS = ("native", "text")
BUGGY = "def add(a, b):\n    return a - b\n"


def calling(protocol: str, name: str, **arguments: str) -> Reply:
    """A reply that makes one call, as *protocol* writes it."""
    if protocol == "native":
        return reply("", call(name, **arguments))
    head = json.dumps({"name": name, "arguments": arguments})
    return reply(f"<tool_call>\n{head}\n</tool_call>")


async def run(session_factory, protocol: str, prompt: str) -> tuple[ev.Result, list]:
    async with session_factory(tool_protocol=protocol) as s:
        events = s.events()
        result = await s.run(prompt)
        return result, drain(events)


def errors(seen: list) -> list[ev.ErrorEvent]:
    return [e for e in seen if isinstance(e, ev.ErrorEvent)]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_change_claimed_with_no_call_is_not_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(reply("I have updated calc.py so that add returns a + b."))
    result, seen = await run(session_factory, protocol, "Fix add in calc.py.")
    assert not result.ok
    assert result.reason == "unbacked_claim"
    assert result.text == "I have updated calc.py so that add returns a + b."
    said = errors(seen)
    assert said
    assert said[-1].fatal
    assert said[-1].message == (
        'the model said it changed something ("I have updated calc.py so that add returns '
        'a + b."), but no call that changes files succeeded in this run'
    )
    finished = [e for e in seen if isinstance(e, ev.TurnFinished)]
    assert finished[-1].reason == "unbacked_claim"
    assert (workspace / "calc.py").read_text() == BUGGY


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_change_claimed_after_the_edit_failed_is_not_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(
        calling(protocol, "read_file", path="calc.py"),
        calling(protocol, "edit_file", path="calc.py", old_text="a - c", new_text="a + b"),
        reply("The bug has been fixed."),
    )
    result, seen = await run(session_factory, protocol, "Fix add in calc.py.")
    failed = [e for e in seen if isinstance(e, ev.ToolCallFinished) and not e.ok]
    assert [e.name for e in failed] == ["edit_file"]
    assert not result.ok
    assert result.reason == "unbacked_claim"
    assert (workspace / "calc.py").read_text() == BUGGY


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_change_claimed_after_the_edit_ran_is_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(
        calling(protocol, "read_file", path="calc.py"),
        calling(protocol, "edit_file", path="calc.py", old_text="a - b", new_text="a + b"),
        reply("I fixed add: it has been updated to return a + b."),
    )
    result, seen = await run(session_factory, protocol, "Fix add in calc.py.")
    assert result.ok, errors(seen)
    assert result.reason == "done"
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_run_claimed_after_only_reads_is_not_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "test_calc.py").write_text("def test_add():\n    assert True\n")
    model.add(
        calling(protocol, "read_file", path="test_calc.py"),
        reply("I ran the tests and they all pass."),
    )
    result, seen = await run(session_factory, protocol, "Run the tests.")
    assert not result.ok
    assert result.reason == "unbacked_claim"
    assert errors(seen)[-1].message == (
        'the model said it ran something ("I ran the tests and they all pass."), but no '
        "command ran in this run"
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_announcement_that_stops_ends_as_stopped_early(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "notes.md").write_text("# notes\n")
    model.add(reply("I will summarize the contents of notes.md for you."))
    result, seen = await run(session_factory, protocol, "What is in notes.md?")
    assert not result.ok
    assert result.reason == "stopped_early"
    assert errors(seen)[-1].message == (
        'the model stopped before doing what it said ("I will summarize the contents of '
        'notes.md for you.")'
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_answer_after_the_call_it_announced_is_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "notes.md").write_text("# notes\n")
    model.add(
        calling(protocol, "read_file", path="notes.md"),
        reply("notes.md holds one heading, 'notes', and nothing else."),
    )
    result, _ = await run(session_factory, protocol, "What is in notes.md?")
    assert result.ok
    assert result.reason == "done"


def test_the_headless_result_says_why_the_run_did_not_complete(
    model: ScriptedModel, workspace: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("PYTHONPATH", PYTHONPATH)
    workers = {k: v for k, v in MODULES.items() if k in ("model", "tools")}
    monkeypatch.setenv("HARNESS_WORKERS", json.dumps(workers))

    def run_main(*args: str) -> tuple[int, str, str]:
        status = main([*args, "--workspace", str(workspace)])
        out = capsys.readouterr()
        return status, out.out, out.err

    base = ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]
    model.add(reply("I've created hello.py for you."))
    status, out, _ = run_main("-p", "write hello.py", "--output-format", "json", *base)
    assert status == 1
    doc = json.loads(out)
    assert doc["ok"] is False
    assert doc["reason"] == "unbacked_claim"
    assert doc["error"] == {
        "kind": "unbacked_claim",
        "message": 'the model said it changed something ("I\'ve created hello.py for you."), '
        "but no call that changes files succeeded in this run",
    }
    model.add(reply("Let me check the folder first."))
    status, out, err = run_main("-p", "what is here?", *base)
    assert status == 1
    assert out == "Let me check the folder first.\n"
    assert 'harness: the model stopped before doing what it said ("Let me check' in err


# -- what counts as a claim -----------------------------------------------------------------

CHANGED = ("mutating",)


@pytest.mark.parametrize(
    "text",
    [
        "I edited calc.py.",
        "I've fixed the bug in add.",
        "The file has been updated.",
        "I made the changes you asked for.",
        "Done! I have also renamed helper to compute in main.py.",
        "Changes have been applied to `calc.py`.",
    ],
)
def test_a_claimed_change_needs_a_call_that_changes_files(text: str) -> None:
    ending = honest_ending(text, ["read"])
    assert ending is not None
    assert ending.reason == "unbacked_claim"
    for kind in ("mutating", "shell", "agent", "other"):
        assert honest_ending(text, ["read", kind]) is None, kind
    assert honest_ending(text, ["read", "network"]) is not None


@pytest.mark.parametrize(
    "text",
    [
        "add returns a - b, so it subtracts: that is the bug.",
        "I have not changed anything: calc.py is already correct.",
        "I didn't edit the file; the fix is to return a + b.",
        "Let me know if you want me to fix it.",
        "The bug was reported in 2.0 and has been fixed in version 2.1.",
        "Here is the fix:\n```python\n# I changed this line\nreturn a + b\n```\nApply it.",
        "Should I run the tests now?",
        "I read calc.py: add subtracts.",
        "",
    ],
)
def test_answers_that_claim_nothing_undone_end_as_done(text: str) -> None:
    assert honest_ending(text, ()) is None


def test_a_claimed_run_needs_a_command() -> None:
    assert honest_ending("I ran pytest: 3 passed.", ["mutating"]) is not None
    assert honest_ending("I ran pytest: 3 passed.", ["shell"]) is None
    assert honest_ending("The script has been executed.", ["read"]) is not None


@pytest.mark.parametrize(
    "text",
    [
        "I will summarize the contents of notes.md for you.",
        "Sure! Let me read calc.py first.",
        "The file is long.\n\nNext, I'll search for the definition of parse_date.",
        "I'm going to run the tests now:",
    ],
)
def test_an_announced_action_at_the_end_is_stopping_early(text: str) -> None:
    ending = honest_ending(text, ["read", "shell"])
    assert ending is not None
    assert ending.reason == "stopped_early"
    # a stage that is meant to end on a plan (deepthink) is not held to it
    assert honest_ending(text, ["read"], announcements=False) is None


def test_an_announcement_followed_by_the_answer_is_an_answer() -> None:
    text = "Let me read calc.py. It defines add, which subtracts: that is the bug."
    assert honest_ending(text, ["read"]) is None
