"""The history as the embedded model reads it."""

from __future__ import annotations

from harness.actors.model.local._guide import template_messages
from harness.messages.model import ChatMessage, ToolCall

LISTED = '{"name": "list_dir", "arguments": {"path": "."}}'
CALL = '<tool_call>{"name": "read_file", "arguments": {"path": "util.py"}}</tool_call>'


def test_an_earlier_reply_that_made_a_call_is_read_as_its_calls_alone() -> None:
    plan = "I will rename it. Here's the step-by-step process:\n\n1. **Read util.py**\n\n"
    history = (
        ChatMessage(role="user", content="Rename helper to compute."),
        ChatMessage(role="assistant", content=plan + CALL),
        ChatMessage(role="user", content="<tool_response>\ndef helper(x)\n</tool_response>"),
        ChatMessage(role="assistant", content="It is renamed."),  # an answer stays whole
        ChatMessage(
            role="assistant",
            content=plan,
            tool_calls=(ToolCall(id="c1", name="list_dir", arguments={"path": "."}),),
        ),
        ChatMessage(role="tool", content="util.py", tool_call_id="c1"),
    )
    got = template_messages("SYSTEM", history)
    assert got == [
        {"role": "system", "content": "SYSTEM"},
        {"role": "user", "content": "Rename helper to compute."},
        {"role": "assistant", "content": CALL},
        {"role": "user", "content": "<tool_response>\ndef helper(x)\n</tool_response>"},
        {"role": "assistant", "content": "It is renamed."},
        {"role": "assistant", "content": f"<tool_call>\n{LISTED}\n</tool_call>"},
        {"role": "user", "content": "<tool_response>\nutil.py\n</tool_response>"},
    ]


def test_tool_results_are_read_without_the_version_line() -> None:
    shown = "1:11|def helper(x):\nversion: dc91b93f5c9c051c\n\n(a note)"
    text = f"<tool_response>\n{shown}\n</tool_response>"
    history = (
        ChatMessage(role="user", content="Read util.py."),
        ChatMessage(role="user", content=text),  # the text protocol's result
        ChatMessage(role="tool", content=shown, tool_call_id="c1"),  # a native one
    )
    got = template_messages("", history)
    kept = "<tool_response>\n1:11|def helper(x):\n\n(a note)\n</tool_response>"
    assert [m["content"] for m in got] == ["Read util.py.", kept, kept]
