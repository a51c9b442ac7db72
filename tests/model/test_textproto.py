"""The text protocol's prompt section and history rendering."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.actors.model._textproto import (
    body_params,
    render_call,
    render_text_history,
    text_protocol_prompt,
)
from harness.actors.model._toolparse import parse_reply
from harness.messages.model import ChatMessage, ToolCall, ToolSchema

STR = {"type": "string"}
TOOLS = (
    ToolSchema(
        "read_file",
        "Read a file.",
        {"type": "object", "properties": {"path": STR}, "required": ["path"]},
    ),
    ToolSchema(
        "write_file",
        "Write a file.",
        {
            "type": "object",
            "properties": {"path": STR, "content": STR},
            "required": ["path", "content"],
        },
    ),
    ToolSchema(
        "edit_file",
        "Replace text.",
        {"type": "object", "properties": {"path": STR, "old_string": STR, "new_string": STR}},
    ),
)
KNOWN = {t.name: tuple(t.parameters["properties"]) for t in TOOLS}


def test_prompt_names_every_tool_and_the_body_tags() -> None:
    prompt = text_protocol_prompt(TOOLS)
    for tool in TOOLS:
        assert f"## {tool.name}" in prompt
        assert tool.description in prompt
    assert "<tool_call>" in prompt
    assert "<tool_response>" in prompt
    assert "<content>" in prompt
    assert "edit_file: <old_content> for 'old_string', <new_content> for 'new_string'" in prompt
    assert text_protocol_prompt(()) == ""


def test_prompt_without_body_tools_does_not_mention_tags() -> None:
    assert "<content>" not in text_protocol_prompt(TOOLS[:1])


def test_body_params() -> None:
    assert body_params(TOOLS[0]) == {}
    assert body_params(TOOLS[2]) == {"old_string": "old_content", "new_string": "new_content"}


body_text = st.text(max_size=80).filter(lambda s: "</" not in s)


@settings(max_examples=150, deadline=None)
@given(body_text, body_text, st.text(max_size=20))
def test_a_rendered_call_reads_back_exactly(old: str, new: str, path: str) -> None:
    call = ToolCall("c1", "edit_file", {"path": path, "old_string": old, "new_string": new})
    parsed = parse_reply(render_call(call, TOOLS[2]), KNOWN)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("edit_file", call.arguments)]


def test_history_rendering_for_text_models() -> None:
    history = (
        ChatMessage("user", "fix it"),
        ChatMessage(
            "assistant",
            "Looking.",
            tool_calls=(
                ToolCall("1", "read_file", {"path": "a"}),
                ToolCall("2", "write_file", {"path": "b", "content": "x = 1\n"}),
            ),
            thinking="secret plan",
        ),
        ChatMessage("tool", "A", tool_call_id="1", name="read_file"),
        ChatMessage("tool", "ok", tool_call_id="2", name="write_file"),
        ChatMessage("user", "thanks"),
    )
    out = render_text_history(history, TOOLS)
    assert [m.role for m in out] == ["user", "assistant", "user"]
    assert all(not m.tool_calls and m.tool_call_id is None for m in out)
    assert "secret plan" not in out[1].content
    assert out[1].content == (
        'Looking.\n<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\n'
        '<tool_call>{"name": "write_file", "arguments": {"path": "b"}}\n<content>\nx = 1\n'
        "</content></tool_call>"
    )
    assert out[2].content == (
        "<tool_response>\nA\n</tool_response>\n\n<tool_response>\nok\n</tool_response>\n\nthanks"
    )


def test_prompt_shows_one_concrete_call_that_parses() -> None:
    prompt = text_protocol_prompt(TOOLS)
    example = '<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>'
    assert example in prompt
    parsed = parse_reply(example, KNOWN)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("read_file", {"path": "notes.txt"})]
    # no placeholder call a small model could copy as it is
    assert "TOOL_NAME" not in prompt


def test_prompt_says_files_are_seen_only_through_tools_and_lists_what_each_does() -> None:
    prompt = text_protocol_prompt(TOOLS)
    assert "You cannot see the user's files" in prompt
    assert "- read_file: Read a file.\n- write_file: Write a file.\n- edit_file: Replace text." in (
        prompt
    )


def test_a_call_refused_until_its_file_was_read_is_left_out_after_the_read() -> None:
    refusal = (
        "The call was not run: a was not read in this session, and edit_file changes only "
        "a file that was: read it first with read_file, then edit it."
    )
    edit = ToolCall("1", "edit_file", {"path": "a", "old_text": "x", "new_text": "y"})
    history = [
        ChatMessage("user", "fix a"),
        ChatMessage("assistant", "I will edit a.", tool_calls=(edit,)),
        ChatMessage("tool", refusal, tool_call_id="1", name="edit_file"),
    ]
    before = render_text_history(history, TOOLS)
    assert refusal in before[-1].content
    history += [
        ChatMessage("assistant", "", tool_calls=(ToolCall("2", "read_file", {"path": "./a"}),)),
        ChatMessage("tool", "x = 1", tool_call_id="2", name="read_file"),
    ]
    after = render_text_history(history, TOOLS)
    assert [m.role for m in after] == ["user", "assistant", "user"]
    assert after[1].content.startswith('<tool_call>{"name": "read_file"')
    assert after[2].content == "<tool_response>\nx = 1\n</tool_response>"
    # an edit of the file that worked (the refusal showed the file) settles it too
    history[3:] = [
        ChatMessage("assistant", "", tool_calls=(ToolCall("2", "edit_file", {"path": "a"}),)),
        ChatMessage("tool", "edited a (1 edit applied)", tool_call_id="2", name="edit_file"),
    ]
    assert refusal not in "".join(m.content for m in render_text_history(history, TOOLS))
    history[4] = ChatMessage("tool", "Error: old_text was not found", tool_call_id="2")
    assert refusal in "".join(m.content for m in render_text_history(history, TOOLS))
    # a refusal of another kind stays
    denied = "The call was not run: denied by rule edit_file(a) (<session>)."
    history[2] = ChatMessage("tool", denied, tool_call_id="1", name="edit_file")
    assert denied in render_text_history(history, TOOLS)[2].content
