"""get_user_input and submit_plan answered by a person, in the real terminal on a pty.

A terminal costs a second of CPU to start, so each test answers several questions in one
session, one prompt after the other, the way a person would."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow

DOWN = "\x1b[B"


def _tool_results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m.get("role") == "tool"]


def _offered(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools", [])}


def test_a_plan_kept_rejected_and_approved_then_questions_answered_every_way(  # type: ignore[no-untyped-def]
    term_for, dirs
) -> None:
    """One terminal started in plan mode: keep planning, a plan rejected with feedback,
    then approved (ask mode from then on); then questions answered by number, arrow keys
    and own words, and one left with Ctrl+C."""
    ws, _ = dirs
    plan = call("submit_plan", plan="Change main.py")
    first = call("submit_plan", plan="# Plan\n\n1. Write **a.txt**")
    second = call("submit_plan", plan="# Plan v2\n\n1. Write b.txt with tests")
    write = call("write_file", path="b.txt", content="hello\n")
    ask = call(
        "get_user_input",
        questions=[
            {"question": "Which database?", "options": ["sqlite", "postgres", "mysql"]},
            {"question": "Which port?", "options": ["5432", "3306"]},
            {"question": "Anything else?"},
        ],
    )
    # Typing at the options goes to the answer: an option's words pick that option,
    # other words are the user's own answer; neither sends the highlighted option.
    words = call(
        "get_user_input",
        questions=[
            {"question": "Which colour?", "options": ["red", "green"]},
            {"question": "Which shade?", "options": ["light", "dark"]},
        ],
    )
    left = call("get_user_input", questions=[{"question": "Proceed?", "options": ["yes", "no"]}])
    script = [
        reply("", plan),
        reply("Still looking."),
        reply("Plan session"),  # the session's title, asked for after the first run
        reply("", first),
        reply("", second),
        reply("", write),
        reply("Implemented."),
        # in ask mode, after the plan: the questions (the title was asked for already)
        reply("", ask),
        reply("Noted."),
        reply("", words),
        reply("Painted."),
        reply("", left),
        reply("Assumed yes."),
    ]
    with ScriptedModel(script) as model:
        t = term_for(model, ["--permission-mode", "plan"])
        # keep planning goes on with the user's pointer
        t.line("plan it")
        t.expect("Keep planning")
        t.send("3")
        t.send("\r")
        t.expect("anything to look at\\?")
        t.line("the config loader")
        t.expect("Still looking\\.")
        t.expect("❯")
        result = _tool_results(model.requests[1])[-1]
        assert "keep planning" in result
        assert "the config loader" in result
        t.line("/status")
        t.expect("permission mode plan")
        model.wait_for_requests(3)  # the title's

        t.line("plan the work")
        out = t.expect("Keep planning")
        assert "Write a.txt" in out  # drawn as markdown
        assert "**" not in out
        t.send(DOWN)  # to "Reject, with feedback"
        t.send("\r")
        t.expect("what should change\\?")
        t.line("use b.txt and add tests")
        out = t.expect("Keep planning")
        assert "Plan v2" in out
        feedback = _tool_results(model.requests[4])[-1]
        assert "rejected" in feedback
        assert "use b.txt and add tests" in feedback
        assert "write_file" not in _offered(model.requests[4])  # still planning
        t.send("1")  # approve
        t.send("\r")
        t.expect(r"\[y\]es / \[N\]o")  # ask mode now: the write asks first
        t.send("y")
        t.expect("Implemented\\.")
        t.expect("❯")
        approved = _tool_results(model.requests[5])[-1]
        assert "approved the plan" in approved
        assert "write_file" in _offered(model.requests[5])
        assert (ws / "b.txt").read_text() == "hello\n"
        t.line("/status")
        t.expect("permission mode ask")

        # questions: by number, arrow keys, own words
        t.line("set up the database")
        out = t.expect("mysql")
        assert "Which database?" in out
        assert "sqlite" in out
        t.expect("Type my own answer")
        t.send("2")  # the option's number
        t.send("\r")
        t.expect("→ postgres")
        t.expect("Which port\\?")
        t.expect("Type my own answer")
        t.send(DOWN)
        t.send(DOWN)  # the arrow keys, to "type my own answer"
        t.send("\r")
        t.expect("your answer:")
        t.line("6543, not the default")
        t.expect("→ 6543, not the default")
        t.expect("Anything else\\?")
        t.line("keep it small")
        t.expect("Noted\\.")
        t.expect("❯")
        assert "get_user_input" in _offered(model.requests[7])
        result = _tool_results(model.requests[8])[-1]
        assert "Q: Which database?\nA: postgres" in result
        assert "Q: Which port?\nA: 6543, not the default" in result
        assert "Q: Anything else?\nA: keep it small" in result
        # the key reader came back after the question: a line typed next still works
        t.line("/status")
        t.expect("permission mode")

        t.line("paint it")
        t.expect("Type my own answer")
        t.line("Green")
        t.expect("→ green")
        t.expect("Which shade\\?")
        t.expect("Type my own answer")
        t.line("teal, please")
        t.expect("→ teal, please")
        t.expect("Painted\\.")
        t.expect("❯")
        result = _tool_results(model.requests[10])[-1]
        assert "Q: Which colour?\nA: green" in result
        assert "Q: Which shade?\nA: teal, please" in result

        # a question left with Ctrl+C tells the model, and the run goes on
        t.line("do it")
        t.expect("Type my own answer")
        t.send("\x03")
        t.expect("no answer")
        t.expect("Assumed yes\\.")
        t.expect("❯")
        assert "without answering" in _tool_results(model.requests[12])[-1]
