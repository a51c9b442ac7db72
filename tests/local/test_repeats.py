"""The cap on identical repeated tool calls."""

from __future__ import annotations

from harness.actors.model.local._repeats import check_repeats
from harness.messages.model import ChatMessage, ToolCall

CALL = '<tool_call>\n{"name": "list_files", "arguments": {"path": "."}}\n</tool_call>'


def _loop(times: int, call: str = CALL) -> tuple[ChatMessage, ...]:
    msgs = [ChatMessage(role="user", content="what is here?")]
    for _ in range(times):
        msgs.append(ChatMessage(role="assistant", content=call))
        msgs.append(ChatMessage(role="user", content="<tool_response>a.txt</tool_response>"))
    return tuple(msgs)


def test_below_the_cap_the_history_is_untouched() -> None:
    msgs = _loop(1)
    verdict = check_repeats(msgs, cap=2)
    assert verdict.count == 1
    assert verdict.messages == msgs
    assert not verdict.refuse


def test_at_the_cap_the_model_is_told_to_answer() -> None:
    verdict = check_repeats(_loop(2), cap=2)
    assert verdict.count == 2
    assert not verdict.refuse
    last = verdict.messages[-1]
    assert last.role == "user"
    assert last.content.startswith("<tool_response>a.txt</tool_response>")
    assert "Do not call it again" in last.content
    assert len(verdict.messages) == len(_loop(2))


def test_past_the_cap_generation_is_refused_with_a_reason() -> None:
    verdict = check_repeats(_loop(3), cap=2)
    assert verdict.refuse
    assert "same tool call 3 times" in verdict.reason


def test_whitespace_differences_are_the_same_call() -> None:
    msgs = (
        *_loop(1, CALL),
        ChatMessage(role="assistant", content=CALL.replace("\n", "  \n")),
        ChatMessage(role="user", content="<tool_response>a.txt</tool_response>"),
    )
    assert check_repeats(msgs, cap=2).count == 2


def test_different_calls_and_prose_are_not_repeats() -> None:
    other = CALL.replace('"."', '"src"')
    msgs = (*_loop(2), ChatMessage(role="assistant", content=other), _loop(1)[-1])
    assert check_repeats(msgs, cap=2).count == 1
    prose = _loop(3, "I do not know.")
    assert check_repeats(prose, cap=2).count == 0


def test_native_calls_compare_by_name_and_arguments() -> None:
    def turn(i: int) -> tuple[ChatMessage, ...]:
        call = ToolCall(id=f"c{i}", name="read_file", arguments={"path": "a"})
        return (
            ChatMessage(role="assistant", tool_calls=(call,)),
            ChatMessage(role="tool", content="x", tool_call_id=f"c{i}", name="read_file"),
        )

    msgs = (ChatMessage(role="user", content="go"), *turn(1), *turn(2), *turn(3))
    assert check_repeats(msgs, cap=2).refuse
    assert check_repeats(msgs, cap=0).messages == msgs


def test_the_same_call_after_different_words_is_a_repeat() -> None:
    msgs = (
        *_loop(1, "Let me look.\n" + CALL),
        ChatMessage(role="assistant", content="I will check again.\n" + CALL),
        ChatMessage(role="user", content="<tool_response>a.txt</tool_response>"),
    )
    assert check_repeats(msgs, cap=2).count == 2
