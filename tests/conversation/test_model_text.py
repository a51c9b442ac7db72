"""What models really write, through the real model worker and the loop: a call whose
quotes broke its JSON is repaired and the result says so; an answer cut off at the
token limit is kept, marked incomplete, and none of its calls run."""

from __future__ import annotations

from pathlib import Path

from harness.conversation import events as ev
from tests.conversation.conftest import drain
from tests.scripted import ScriptedModel, call, reply

# a 7B model's reply, quotes inside the string left unescaped
UNESCAPED = (
    "I'll create the file.\n<tool_call>\n"
    '{"name": "write_file", "arguments": {"path": "hi.py", "content": "print("hi")"}}\n'
    "</tool_call>"
)


async def test_a_repaired_call_runs_and_its_result_says_so(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    model.add(reply(UNESCAPED), reply("Created hi.py."))
    async with session_factory(tool_protocol="text") as s:
        result = await s.run("write hi.py that prints hi")
    assert result.ok, result
    assert (workspace / "hi.py").read_text() == 'print("hi")'
    sent = model.requests[1]["messages"]
    told = sent[-1]["content"]
    assert "harness repaired this call's text to read it: escaped quotes inside a string" in told


async def test_a_cut_off_answer_is_incomplete_and_runs_none_of_its_calls(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    model.add(
        reply(
            "Writing both files now",
            call("write_file", path="a.txt", content="a"),
            call("write_file", path="b.txt", content="b"),
            finish_reason="length",
        ),
        reply("Done in smaller steps."),
    )
    async with session_factory() as s:
        events = s.events()
        result = await s.run("write a and b")
        seen = drain(events)
        assert not result.ok
        assert result.reason == "incomplete"
        assert result.text == "Writing both files now"
        assert not (workspace / "a.txt").exists()
        assert not (workspace / "b.txt").exists()
        assert not [e for e in seen if isinstance(e, ev.ToolCallRequested)]
        said = [e for e in seen if isinstance(e, ev.AssistantMessage)]
        assert [(m.incomplete, m.tool_calls) for m in said] == [(True, ())]
        errors = [e for e in seen if isinstance(e, ev.ErrorEvent)]
        assert [e.kind for e in errors] == ["incomplete"]
        assert "cut off at the output token limit" in errors[0].message
        assert "none of its 2 tool calls was run" in errors[0].message
        # the history stays valid: the next run goes on from the kept text
        assert (await s.run("go on, one file at a time")).ok
    sent = model.requests[1]["messages"]
    assert [m["role"] for m in sent[-3:]] == ["user", "assistant", "user"]
    assert sent[-2]["content"] == "Writing both files now"
    assert not sent[-2].get("tool_calls")


async def test_a_text_protocol_call_is_announced_while_it_is_written(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    # the call's text never reaches the screen: the event naming its tool comes before
    # the call is whole, then the call itself
    (workspace / "a.txt").write_text("alpha\n")
    model.add(
        reply('Reading.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n'),
        reply("It says alpha."),
    )
    async with session_factory(tool_protocol="text") as s:
        events = s.events()
        result = await s.run("what does a.txt say?")
        seen = drain(events)
    assert result.ok, result
    kinds = [
        type(e).__name__
        for e in seen
        if isinstance(e, ev.TextDelta | ev.ToolCallWriting | ev.ToolCallRequested)
    ]
    first = kinds.index("ToolCallWriting")
    assert "ToolCallRequested" in kinds[first:]
    assert [e.name for e in seen if isinstance(e, ev.ToolCallWriting)] == ["read_file"]
    assert "tool_call" not in "".join(e.text for e in seen if isinstance(e, ev.TextDelta))
