"""The history as the embedded model reads it."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from harness.actors.model import Finish, ProviderCall, ProviderEvent
from harness.actors.model._profile import NUDGE_RULES
from harness.actors.model.local._guide import (
    NUDGED_PREFIX,
    Generate,
    Guide,
    template_messages,
    untagged,
)
from harness.actors.tools import builtin_table
from harness.messages.local import LocalModelProgress
from harness.messages.model import ChatMessage, ChatOptions, TextDelta, ToolCall

LISTED = '{"name": "list_dir", "arguments": {"path": "."}}'
ASKED = '\n\nThe user asked: "Rename helper to compute."'
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
        {"role": "user", "content": "<tool_response>\ndef helper(x)\n</tool_response>" + ASKED},
        {"role": "assistant", "content": "It is renamed."},
        {"role": "assistant", "content": f"<tool_call>\n{LISTED}\n</tool_call>"},
        {"role": "user", "content": "<tool_response>\nutil.py\n</tool_response>" + ASKED},
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
    asked = '\n\nThe user asked: "Read util.py."'
    assert [m["content"] for m in got] == ["Read util.py.", kept, kept + asked]


def test_the_question_follows_the_last_result_of_each_run_and_stays_there() -> None:
    # measured: the question scrolled away behind a file, and the 1.5B model answered only
    # half of it; after each run of results it reads it again, the same every turn (so the
    # prompt cache keeps the prefix)
    first = (
        ChatMessage(role="user", content="What does a.py do? Is there a bug?"),
        ChatMessage(role="assistant", content=CALL + CALL),
        ChatMessage(role="user", content="<tool_response>\none\n</tool_response>"),
        ChatMessage(role="user", content="<tool_response>\ntwo\n</tool_response>"),
    )
    later = (
        *first,
        ChatMessage(role="assistant", content="It adds."),
        ChatMessage(role="user", content="x" * 401),  # too long to repeat each round
        ChatMessage(role="assistant", content=CALL),
        ChatMessage(role="tool", content="three", tool_call_id="c1"),
    )
    asked = '\n\nThe user asked: "What does a.py do? Is there a bug?"'
    got = [m["content"] for m in template_messages("", first)]
    assert got[2:] == [
        "<tool_response>\none\n</tool_response>",
        f"<tool_response>\ntwo\n</tool_response>{asked}",
    ]
    again = [m["content"] for m in template_messages("", later)]
    assert again[: len(got)] == got
    assert again[-1] == "<tool_response>\nthree\n</tool_response>"


def test_the_question_is_repeated_as_asked_with_nothing_added() -> None:
    # what a review question should check is the model's to work out: a hint that defined
    # a bug as "not what its name says" fitted one task of the bench (docs/models.md)
    def reminder(prompt: str) -> str:
        history = (
            ChatMessage(role="user", content=prompt),
            ChatMessage(role="assistant", content=CALL),
            ChatMessage(role="user", content="<tool_response>\ndef add(a, b)\n</tool_response>"),
        )
        last = template_messages("", history)[-1]["content"]
        return last.removeprefix("<tool_response>\ndef add(a, b)\n</tool_response>")

    for prompt in (
        "What does calc.py do? Is there a bug?",
        "Read calc.py and tell me if add is correct.",
        "Read util.py.",
        "Fix the bug in calc.py.",
    ):
        assert reminder(prompt) == f'\n\nThe user asked: "{prompt}"', prompt


def test_the_model_reads_results_without_line_tags_and_nothing_else_changes() -> None:
    history = [
        {"role": "system", "content": "1:ab|not a result"},
        {"role": "user", "content": "12:ab|a prompt"},
        {"role": "assistant", "content": "3:cd|mine"},
        {
            "role": "user",
            "content": "<tool_response>\n1:08|def add(a, b):\n2:37|    return a - b\n"
            "</tool_response>",
        },
    ]
    note = (
        "the edit: old_text was not found in the file; copy old_text exactly from the file, "
        "which is now (each line's N:HH| tag is not part of the text):\n1:08|def add(a, b):"
    )
    history.append({"role": "user", "content": f"<tool_response>\n{note}\n</tool_response>"})
    got = untagged(history)
    assert got[4]["content"] == (
        "<tool_response>\nthe edit: old_text was not found in the file; copy old_text exactly "
        "from the file, which is now:\ndef add(a, b):\n</tool_response>"
    )
    assert got[:3] == history[:3]
    assert (
        got[3]["content"] == "<tool_response>\ndef add(a, b):\n    return a - b\n</tool_response>"
    )
    assert history[3]["content"].startswith("<tool_response>\n1:08|")  # a copy, not changed


def _fix_after_a_read() -> ProviderCall:
    """A call asking to fix calc.py, after the read of its two lines (tagged)."""
    read = '{"name": "read_file", "arguments": {"path": "calc.py"}}'
    return ProviderCall(
        model="m",
        messages=(
            # (naming no file: a request naming calc.py after its read has the edit asked
            # at once, read-to-change's, with no reply for a nudge to read)
            ChatMessage(role="user", content="Fix the bug in the calculator."),
            ChatMessage(role="assistant", content=f"<tool_call>\n{read}\n</tool_call>"),
            ChatMessage(
                role="tool", content="1:08|def add(a, b):\n2:37|    return a - b", tool_call_id="c"
            ),
        ),
        options=ChatOptions(max_tokens=50),
        text_protocol=True,
        text_tools=builtin_table().schemas(names=("read_file", "edit_file")),
    )


async def test_the_nudges_read_the_tags_and_the_model_does_not() -> None:
    # the engine gets the history untagged; the nudge still finds the file's lines (its
    # bound edit is built from them), so the nudged generation is bound to those lines
    seen: list[tuple[list[dict[str, str]], str, bool]] = []

    async def generate(
        messages: list[dict[str, str]], call: ProviderCall, grammar: str, lazy: bool
    ) -> AsyncGenerator[ProviderEvent, None]:
        seen.append((messages, grammar, lazy))
        if len(seen) == 1:
            yield TextDelta(text="I will fix the bug in calc.py now.")
        yield Finish(reason="stop")

    call = _fix_after_a_read()
    out = [e async for e in Guide().stream(call, generate)]
    assert isinstance(out[-1], Finish)
    assert len(seen) == 2  # the announcement was nudged, to an edit of the lines read
    bound, lazy = seen[1][1], seen[1][2]
    assert not lazy
    assert "return a - b" in bound
    for messages, _, _ in seen:
        assert all("1:08|" not in m["content"] and "2:37|" not in m["content"] for m in messages)
    assert "def add(a, b):\n    return a - b" in seen[0][0][-1]["content"]


async def test_a_nudge_is_said_with_the_name_of_its_rule_and_a_plain_answer_is_not() -> None:
    # the status line shows why the model is asked again, and the task bench counts the
    # rules that asked; an answer no rule stops at goes out with no such line
    replies = ["I will fix the bug in calc.py now.", "The bug is on line 2: shall I fix it?"]

    def generator(first: str) -> Generate:
        calls = 0

        async def generate(
            messages: list[dict[str, str]], call: ProviderCall, grammar: str, lazy: bool
        ) -> AsyncGenerator[ProviderEvent, None]:
            nonlocal calls
            calls += 1
            if calls == 1:
                yield TextDelta(text=first)
            yield Finish(reason="stop")

        return generate

    call = _fix_after_a_read()
    nudged = [e async for e in Guide().stream(call, generator(replies[0]))]
    said = [e for e in nudged if isinstance(e, LocalModelProgress)]
    assert [e.stage for e in said] == ["nudged"]
    assert said[0].message.startswith(NUDGED_PREFIX)
    assert said[0].message.removeprefix(NUDGED_PREFIX) in NUDGE_RULES
    texts = [e for e in nudged if isinstance(e, TextDelta | LocalModelProgress)]
    assert texts.index(said[0]) == 1  # after the reply it follows, before the next text
    plain = [e async for e in Guide().stream(call, generator(replies[1]))]
    assert not [e for e in plain if isinstance(e, LocalModelProgress)]


def _after_a_read(prompt: str, result: str) -> str:
    """What follows the result of a read of pricing.py made for *prompt*."""
    call = '<tool_call>{"name": "read_file", "arguments": {"path": "pricing.py"}}</tool_call>'
    history = (
        ChatMessage(role="user", content=prompt),
        ChatMessage(role="assistant", content="I will read it. " + call),
        ChatMessage(role="user", content=f"<tool_response>\n{result}\n</tool_response>"),
    )
    last = template_messages("", history)[-1]["content"]
    return last.removeprefix(f"<tool_response>\n{result}\n</tool_response>")


def test_a_name_asked_about_that_the_file_read_does_not_hold_is_said_after_the_question() -> None:
    # measured (bench local-tasks, half A): the model read pricing.py, which has no
    # compute_shipping, and described the function anyway
    ask = "What does compute_shipping in pricing.py return?"
    said = _after_a_read(ask, "1:ab|def with_tax(p):")
    assert (
        said == f'\n\nThe user asked: "{ask}"\nNote: pricing.py does not contain compute_shipping.'
    )
    # there: nothing added; a change or something new asked for: nothing added either
    assert _after_a_read(ask, "1:ab|def compute_shipping(o):") == f'\n\nThe user asked: "{ask}"'
    for other in ("Rename with_tax to add_tax in pricing.py.", "Create compute_shipping."):
        assert _after_a_read(other, "1:ab|def with_tax(p):") == f'\n\nThe user asked: "{other}"'
    # a file shown in part may hold it further on
    cut = "1:ab|def with_tax(p):\n[truncated at 2000 lines / 20000 characters; continue with"
    assert _after_a_read(ask, cut) == f'\n\nThe user asked: "{ask}"'


def test_a_file_asked_about_that_a_tool_said_does_not_exist_is_said_after_the_question() -> None:
    ask = "Summarize NOTES.md for me."
    said = _after_a_read(ask, "NOTES.md does not exist; use write_file to create it")
    assert said.endswith("\nNote: NOTES.md does not exist in the workspace.")
    meant = _after_a_read(ask, "NOTES.md does not exist; did you mean docs/NOTES.md?")
    assert meant == f'\n\nThe user asked: "{ask}"'
