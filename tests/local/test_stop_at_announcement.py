"""A reply to the prompt stopped at the look it announces, and that call asked for; a call
known whole from the last result, written before any reply."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator

import attrs

from harness.actors.model import Finish, ProviderCall, ProviderEvent, parse_reply
from harness.actors.model._profile import SMALL_MODEL
from harness.actors.model.local._grammar import NOT_GIVEN
from harness.actors.model.local._guide import (
    ASKED_PREFIX,
    KNOWN_ANSWER_PREFIX,
    KNOWN_PREFIX,
    NUDGED_PREFIX,
    TAKEN_PREFIX,
    Generate,
    Guide,
    StopReply,
)
from harness.actors.model.local._nudge import announced_call
from harness.actors.model.local._turn import Turn
from harness.actors.tools import SMALL_MODEL_TOOLS, builtin_table
from harness.messages.local import LocalModelProgress
from harness.messages.model import ChatMessage, ChatOptions, TextDelta, Usage

TOOLS = builtin_table().schemas(names=SMALL_MODEL_TOOLS)
CALL = '<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n</tool_call>'
# a question naming no file (one naming notes.txt has its read written before any reply:
# read-named)
NOTES_QUESTION = "What does line 7 of my notes say?"
# the shape of the one-tool question's first reply (bench local): a plan, then the call
PLAN = [
    "To answer",
    " this question, I will follow these steps:",
    "\n\n",
    "1. Read",
    " `notes.txt`",
    " to find line",
    " 7.",
    "\n",
    "2. Answer",
    " with what it says.",
    "\n\n",
    CALL,
]


@attrs.define
class Scripted:
    """A :data:`Generate` that streams *first* as the first generation and *then* as
    every later one, and records what each was asked and whether it ran to its end."""

    first: list[str]
    then: list[str] = attrs.Factory(lambda: [CALL])
    asked: list[tuple[list[dict[str, str]], str, bool]] = attrs.Factory(list)
    ended: list[bool] = attrs.Factory(list)

    def generate(self) -> Generate:
        async def generate(
            messages: list[dict[str, str]], call: ProviderCall, grammar: str, lazy: bool
        ) -> AsyncGenerator[ProviderEvent, None]:
            self.asked.append((messages, grammar, lazy))
            pieces = self.first if len(self.asked) == 1 else self.then
            self.ended.append(True)
            for piece in pieces:
                try:
                    yield TextDelta(text=piece)
                except StopReply:  # as the embedded engine: it stops, and says its usage
                    self.ended[-1] = False
                    break
            yield Usage(prompt_tokens=100 * len(self.asked), completion_tokens=5)
            yield Finish(reason="stop" if self.ended[-1] else "cancelled")

        return generate


def _call(prompt: str, *earlier: ChatMessage) -> ProviderCall:
    return ProviderCall(
        model="m",
        messages=(ChatMessage(role="user", content=prompt), *earlier),
        options=ChatOptions(max_tokens=200),
        text_protocol=True,
        text_tools=TOOLS,
    )


async def _run(guide: Guide, call: ProviderCall, script: Scripted) -> list[ProviderEvent]:
    return [e async for e in guide.stream(call, script.generate())]


def _said(out: list[ProviderEvent]) -> tuple[str, list[str]]:
    """The text streamed before the first nudge, and the nudges' status lines."""
    nudges = [e.message for e in out if isinstance(e, LocalModelProgress)]
    text = []
    for event in out:
        if isinstance(event, LocalModelProgress):
            break
        if isinstance(event, TextDelta):
            text.append(event.text)
    return "".join(text), nudges


async def test_a_plan_is_stopped_at_its_announced_read_and_that_read_is_written() -> None:
    script = Scripted(PLAN)
    out = await _run(Guide(), _call(NOTES_QUESTION), script)
    text, nudges = _said(out)
    assert text == "".join(PLAN[:7])  # up to the end of the first step, not a piece more
    assert nudges == [TAKEN_PREFIX + "announced-action"]
    # the sentence named the one file: the call is written as named, no generation asked
    assert len(script.asked) == 1
    assert script.ended == [False]  # the plan's generation was ended, not read out
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole == text + "\n\n" + CALL
    assert parse_reply(whole, {}).calls[0].arguments == {"path": "notes.txt"}
    usage = [e for e in out if isinstance(e, Usage)]
    assert usage == [Usage(prompt_tokens=100, completion_tokens=5, cached_tokens=None)]
    assert out[-1] == Finish(reason="stop")


async def test_a_plan_naming_two_files_gets_the_bound_read_asked_for() -> None:
    plan = [*PLAN[:4], " `notes.txt` and `days.txt`", *PLAN[5:]]
    script = Scripted(plan)
    out = await _run(Guide(), _call(NOTES_QUESTION), script)
    text, nudges = _said(out)
    assert text == "".join(plan[:7])
    assert nudges == [NUDGED_PREFIX + "announced-action"]
    assert len(script.asked) == 2
    assert script.ended == [False, True]
    messages, grammar, lazy = script.asked[1]
    assert not lazy
    assert "read_file" in grammar
    assert "edit_file" not in grammar
    assert messages[-2] == {"role": "assistant", "content": text}
    assert "call read_file" in messages[-1]["content"]
    # the usage is the request's own (the first generation's prompt), every token counted
    usage = [e for e in out if isinstance(e, Usage)]
    assert usage == [Usage(prompt_tokens=100, completion_tokens=10, cached_tokens=None)]
    assert out[-1] == Finish(reason="stop")


async def test_the_target_may_come_before_the_announcement_in_its_sentence() -> None:
    first = [
        "To find the file that defines `formatLine`,",
        " I'll use the `search_text` tool.",
        " I'll search the whole workspace.",
        "\n\n",
    ]
    script = Scripted(first)
    out = await _run(Guide(), _call("Which file defines formatLine?"), script)
    text, nudges = _said(out)
    assert text == "".join(first[:2])
    assert nudges == [NUDGED_PREFIX + "announced-action"]
    assert "search_text" in script.asked[1][1]


async def test_an_answer_that_needs_no_tool_is_not_stopped() -> None:
    # a question about code in the prompt: "Let me look at" names no file to read
    answer = [
        "Let me look at the function.",
        " It returns",
        " twice its argument:",
        " `double(3)` is 6.",
        "\n",
    ]
    script = Scripted(answer)
    prompt = "What does this function do?\n\ndef double(x):\n    return 2 * x"
    out = await _run(Guide(), _call(prompt), script)
    assert _said(out)[0] == "".join(answer)
    assert script.ended[0]
    # a refusal announces nothing it will do: it runs to its end
    refusal = ["I will not read `/etc/shadow`.", " It is outside the workspace", "."]
    script = Scripted(refusal)
    out = await _run(Guide(), _call("Read /etc/shadow."), script)
    assert _said(out)[0] == "".join(refusal)
    assert script.ended[0]


async def test_text_inside_a_call_is_never_stopped() -> None:
    # the sentences are a call's arguments, not an announcement
    inside = [
        "<tool_call>",
        '\n{"name": "search_text", "arguments": {"pattern": "I will read notes.txt.',
        "\n",
        'Then I will list src/."}}',
        "\n</tool_call>",
    ]
    fenced = ["```json", '\n{"name": "read_file", "arguments": {"path": "I will read a.py.', "\n"]
    for first in (inside, fenced):
        script = Scripted(first)
        out = await _run(Guide(), _call("Find where notes are read."), script)
        assert _said(out)[0] == "".join(first)
        assert script.ended[0]


async def test_after_a_result_and_with_the_profile_off_the_reply_runs_to_its_call() -> None:
    read = ChatMessage(role="assistant", content=CALL)
    result = ChatMessage(role="user", content="<tool_response>\n1:0a|hello\n</tool_response>")
    after = _call("What does notes.txt say?", read, result)
    script = Scripted(["I will read `other.txt` too.", "\n", CALL])
    out = await _run(Guide(), after, script)
    assert _said(out) == ("I will read `other.txt` too.\n" + CALL, [])
    off = Guide(attrs.evolve(SMALL_MODEL, stops_at_announcement=False))
    script = Scripted(PLAN)
    out = await _run(off, _call(NOTES_QUESTION), script)
    assert _said(out) == ("".join(PLAN), [])
    assert len(script.asked) == 1


def test_an_announcement_is_asked_for_only_with_its_target_named() -> None:
    names = tuple(t.name for t in TOOLS)

    def asked(reply: str) -> str | None:
        nudge = announced_call(
            Turn(prompt="Which file defines Cart?", steps=(), reply=reply, tools=names)
        )
        return nudge.tool if nudge else None

    assert asked("I'll use the `search_text` tool.") is None  # a tool's own name
    assert asked("I'll search for `Cart` in the workspace.") == "search_text"
    assert asked("I will read the file.") is None
    assert asked("I will read src/cart.py.") == "read_file"
    assert asked("I will edit `src/cart.py`.") is None  # an edit before any read: no
    assert asked("I will run `python3 cart.py`.") is None  # a run is no look
    assert asked("I will create `src/cart.py`.") is None


def test_a_read_comes_with_its_arguments_only_when_one_file_is_named_plainly() -> None:
    names = tuple(t.name for t in TOOLS)

    def arguments(reply: str) -> dict[str, str | bool] | None:
        nudge = announced_call(
            Turn(prompt="What does cart.py do?", steps=(), reply=reply, tools=names)
        )
        assert nudge is not None, reply
        assert nudge.tool == "read_file", reply
        return nudge.arguments

    assert arguments("I will read src/cart.py.") == {"path": "src/cart.py"}
    assert arguments("First, I need to read `cart.py` to see it.") == {"path": "cart.py"}
    assert arguments("I will read `cart.py`, then `cart.py` again.") == {"path": "cart.py"}
    # two files, an absolute path, a home path, a URL: the model writes its own call
    assert arguments("I will read `cart.py` and `tax.py`.") is None
    assert arguments("I will read /etc/cart.conf.") is None
    assert arguments("I will read ~/cart.py now.") is None
    assert arguments("I will read https://example.com/cart.py now.") is None


async def test_an_edit_announced_before_any_read_ends_with_the_read_of_its_file() -> None:
    # the whole reply announces the edit (never stopped): at its end the read comes first,
    # written as named, and no generation writes the edit from the model's belief
    said = ["I will make the `add` function", " in `calc.py` return `a + b`."]
    script = Scripted(said)
    # (on a session's first turn, calc.py named is read before any reply: read-to-change)
    hello = (
        ChatMessage(role="user", content="Hello"),
        ChatMessage(role="assistant", content="Hi."),
    )
    call = _call("In calc.py, make add return a + b.")
    call = attrs.evolve(call, messages=(*hello, *call.messages))
    out = await _run(Guide(), call, script)
    assert len(script.asked) == 1
    assert script.ended == [True]
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole.startswith("".join(said))
    calls = parse_reply(whole, {}).calls
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "calc.py"})]
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        TAKEN_PREFIX + "announced-action"
    ]


async def test_a_call_known_from_the_last_result_is_written_with_no_generation() -> None:
    # name-in-error: the search for the name the error says is wrong found it on one line
    # and one name spelled like it; the edit writing it so needs no reply of the model
    prompt = "`node src/index.js` fails with:\n\nError: unknown coupon SPRNG10\n\nFix it."
    search = '<tool_call>{"name": "search_text", "arguments": {"pattern": "SPRNG10"}}</tool_call>'
    found = (
        "src/index.js:19:  applyCoupon(cart, 'SPRNG10');\n"
        "(spelled like SPRNG10: SPRING10 at src/cart.js:5)"
    )
    call = _call(
        prompt,
        ChatMessage(role="assistant", content=search),
        ChatMessage(role="user", content=f"<tool_response>\n{found}\n</tool_response>"),
    )
    script = Scripted(["I will edit it."])
    out = await _run(Guide(), call, script)
    assert script.asked == []
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        KNOWN_PREFIX + "name-in-error"
    ]
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    edit = parse_reply(whole, {}).calls[0]
    assert edit.name == "edit_file"
    assert edit.arguments == {
        "path": "src/index.js",
        "old_text": "  applyCoupon(cart, 'SPRNG10');",
        "new_text": "  applyCoupon(cart, 'SPRING10');",
    }
    assert out[-1] == Finish(reason="stop")
    # with the rule off, the model is asked as ever
    off = Guide(attrs.evolve(SMALL_MODEL, nudges=()))
    script = Scripted(["I will edit it."])
    out = await _run(off, call, script)
    assert len(script.asked) == 1


async def test_a_call_known_from_the_prompt_alone_is_written_before_any_reply() -> None:
    # new-value: a change saying the value wanted and the one there now begins with the
    # search for the one there now, written before the model says a word (asked, the
    # 1.5B model claimed the change at once: "I've updated the `bake_croissants`
    # function to bake 24 croissants instead of 36.")
    call = _call("From tomorrow just bake 24 croissants for the counter, not 36.")
    script = Scripted(["I've updated the croissants."])
    out = await _run(Guide(), call, script)
    assert script.asked == []
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        KNOWN_PREFIX + "new-value"
    ]
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    search = parse_reply(whole, {}).calls[0]
    assert (search.name, search.arguments) == (
        "search_text",
        {
            # a line giving 36 to a name, a word of the request before it or after
            "pattern": r"(?i)(?:bake|count|crois)[^\n]*"
            r"""[=:<>]\s*["'(\[{]?\s*(?:\$\{\w+:-)?[£$€]?(?:36)(?:\.0+)?(?:[^\w.]|$)"""
            r"""|[=:<>]\s*["'(\[{]?\s*(?:\$\{\w+:-)?[£$€]?(?:36)(?:\.0+)?(?:[^\w.]|$)"""
            r"[^\n]*(?:bake|count|crois)",
            "regex": True,
        },
    )
    off = Guide(attrs.evolve(SMALL_MODEL, nudges=()))
    script = Scripted(["I've updated the croissants."])
    await _run(off, call, script)
    assert len(script.asked) == 1


async def test_the_read_of_the_one_file_a_question_names_needs_no_reply() -> None:
    # read-named: the split's question, and a request to tell of a file
    for prompt, rule, path in (
        ("What does line 7 of notes.txt say? Read it and answer.", "read-named", "notes.txt"),
        ("Summarize CHANGES.md.", "read-named", "CHANGES.md"),
    ):
        script = Scripted(["I will read it."])
        out = await _run(Guide(), _call(prompt), script)
        assert script.asked == []
        assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
            KNOWN_PREFIX + rule
        ]
        whole = "".join(e.text for e in out if isinstance(e, TextDelta))
        read = parse_reply(whole, {}).calls[0]
        assert (read.name, read.arguments) == ("read_file", {"path": path})
        assert out[-1] == Finish(reason="stop")


async def test_the_edit_after_the_rules_read_is_asked_at_once_bound_to_its_lines() -> None:
    # read-to-change: the read written with no generation, then the edit asked in place
    # of a reply, bound to calc.py's lines, with no free reply before it
    prompt = "In calc.py, make add return a + b."
    script = Scripted(["I will read it."])
    out = await _run(Guide(), _call(prompt), script)
    assert script.asked == []
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert parse_reply(whole, {}).calls[0].arguments == {"path": "calc.py"}
    read = ChatMessage(role="assistant", content=whole)
    shown = "1:08|def add(a, b):\n2:37|    return a - b"
    result = ChatMessage(role="user", content=f"<tool_response>\n{shown}\n</tool_response>")
    edit = (
        '<tool_call>\n{"name": "edit_file", "arguments": {"path": "calc.py"}}\n'
        "<old_content>\n    return a - b\n</old_content>\n"
        "<new_content>\n    return a + b\n</new_content>\n</tool_call>"
    )
    script = Scripted([edit])
    out = await _run(Guide(), _call(prompt, read, result), script)
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        ASKED_PREFIX + "read-to-change"
    ]
    [(messages, grammar, lazy)] = script.asked
    assert not lazy
    assert "return a - b" in grammar  # bound to the file's own lines
    assert messages[-1]["role"] == "user"
    assert messages[-1]["content"].endswith(
        "Make the change asked for: call edit_file on calc.py, replacing only the lines to "
        'change. Write the <tool_call> block ({"name": "edit_file", "arguments": {"path": '
        '"calc.py"}} then <old_content> and <new_content>) and nothing else.'
    )
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole == "\n\n" + edit  # the bound generation's text is the whole reply
    assert out[-1] == Finish(reason="stop")


async def test_the_answer_known_once_the_rules_calls_did_the_task_ends_the_turn() -> None:
    # rename-asked: the search, the read and the edit were the rule's, and the edit's
    # result says no file still uses the name; the answer needs no reply of the model
    prompt = "Rename the method give_back to return_bike."
    steps = [
        (
            "search_text",
            {"pattern": r"\bgive_back\b", "regex": True},
            "fleet.py:3:def give_back():",
        ),
        ("read_file", {"path": "fleet.py"}, "1:ab|class Fleet:\n2:00|\n3:cd|    def give_back():"),
        (
            "edit_file",
            {
                "path": "fleet.py",
                "old_text": "    def give_back():",
                "new_text": "    def return_bike():",
            },
            "edited fleet.py (1 edit applied)\n--- a/fleet.py\n+++ b/fleet.py\n",
        ),
    ]
    history = []
    for name, arguments, result in steps:
        made = json.dumps({"name": name, "arguments": arguments})
        history.append(ChatMessage(role="assistant", content=f"<tool_call>{made}</tool_call>"))
        history.append(
            ChatMessage(role="user", content=f"<tool_response>\n{result}\n</tool_response>")
        )
    call = _call(prompt, *history)
    script = Scripted(["I renamed it."])
    out = await _run(Guide(), call, script)
    assert script.asked == []
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        KNOWN_ANSWER_PREFIX + "rename-asked"
    ]
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole == "Renamed give_back to return_bike in fleet.py."
    assert not parse_reply(whole, {}).calls
    assert out[-1] == Finish(reason="stop")
    # a request asking more than the rename leaves the answer to the model
    more = _call("Rename the method give_back to return_bike, then run the tests.", *history)
    script = Scripted(["I renamed it."])
    await _run(Guide(), more, script)
    assert len(script.asked) == 1


async def test_a_reply_asked_again_after_an_empty_one_is_bound_to_say_something() -> None:
    # empty-after-result: after a command's output the model wrote "\n\n\n", and asked
    # again under the lazy grammar, "\n\n\n" again: the run ended with no answer
    run = '<tool_call>{"name": "run_cmd", "arguments": {"command": "node screen/main.js"}}'
    output = "Thursday: Kelbrook hospital visiting\n  14:02  Wistow Green, the Plough"
    call = _call(
        "Can you run the timetable screen and tell me when Thursday's bus gets to Wistow?",
        ChatMessage(role="assistant", content=run + "</tool_call>"),
        ChatMessage(role="user", content=f"<tool_response>\n{output}\n</tool_response>"),
    )
    script = Scripted(["\n\n\n"], then=["It gets to Wistow Green at 14:02."])
    out = await _run(Guide(), call, script)
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        NUDGED_PREFIX + "empty-after-result"
    ]
    (_, first, first_lazy), (_, again, again_lazy) = script.asked
    assert first_lazy
    assert "words ::=" not in first
    # bound from its first token: a call, or words whose first character is no blank
    assert not again_lazy
    assert "words ::=" in again
    assert "read_file" in again
    # a reply that said something and is asked again with no call named (the question
    # said back: echoed-question) keeps the lazy grammar
    echo = "Can you run the timetable screen and tell me when Thursday's bus gets to Wistow?"
    said = Scripted([echo], then=["It gets there at 14:02."])
    out = await _run(Guide(), call, said)
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        NUDGED_PREFIX + "echoed-question"
    ]
    assert said.asked[1][2]
    assert "words ::=" not in said.asked[1][1]
    # with the grammar off, nothing is bound
    off = Scripted(["\n\n\n"], then=["It gets there at 14:02."])
    await _run(Guide(attrs.evolve(SMALL_MODEL, grammar=False)), call, off)
    assert [grammar for _, grammar, _ in off.asked] == ["", ""]


async def test_a_made_up_date_is_said_to_be_made_up_before_the_answer_asked_again() -> None:
    # made-up-figure: the reply was streamed as it came, so it stays in the answer; the
    # answer says it was made up before the one asked again
    listing = '<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>'
    call = _call(
        "When's the minibus due its MOT?",
        ChatMessage(role="assistant", content=listing),
        ChatMessage(role="user", content="<tool_response>\n./\nbookings.py\n</tool_response>"),
    )
    made_up = "The minibus is due its MOT on 2023-04-15."
    said = "The files I looked at do not give the MOT date."
    script = Scripted([made_up], then=[said])
    out = await _run(Guide(), call, script)
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        NUDGED_PREFIX + "made-up-figure"
    ]
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole == (
        f"{made_up}\n\n(Nothing I looked at shows 2023-04-15: I made that up.)\n\n{said}"
    )
    # asked again from the history without the made-up reply
    again = script.asked[1][0]
    assert made_up not in json.dumps(again)
    assert "No tool result above shows 2023-04-15" in again[-1]["content"]
    # nothing shown to answer from: the answer asked for is bound to saying so
    assert script.asked[1][1:] == (NOT_GIVEN, False)
    # with the grammar off, nothing is bound
    off = Scripted([made_up], then=[said])
    await _run(Guide(attrs.evolve(SMALL_MODEL, grammar=False)), call, off)
    assert off.asked[1][1] == ""


async def test_a_figure_made_up_in_the_answer_a_nudge_asked_for_is_said_to_be_made_up() -> None:
    # one nudge a reply: the answer asked again is not asked a third time, but a figure
    # no result holds is said to be made up after it
    search = '<tool_call>{"name": "search_text", "arguments": {"pattern": "page"}}</tool_call>'
    hit = "screen.toml:3:page_seconds = 8  # how long each page of the counter screen stays up"
    call = _call(
        "How long does each page of the counter screen stay up?",
        ChatMessage(role="assistant", content=search),
        ChatMessage(role="user", content=f"<tool_response>\n{hit}\n</tool_response>"),
    )
    made_up = "Each page stays up for 10 seconds."
    script = Scripted([made_up], then=["Each page stays up for 12 seconds."])
    out = await _run(Guide(), call, script)
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole == (
        f"{made_up}\n\n(Nothing I looked at shows 10: I made that up.)\n\n"
        "Each page stays up for 12 seconds.\n\n(Nothing I looked at shows 12: I made that up.)"
    )
    # the figure the line holds is the answer: nothing is said after it
    script = Scripted([made_up], then=["Each page stays up for 8 seconds (page_seconds)."])
    whole = "".join(e.text for e in await _run(Guide(), call, script) if isinstance(e, TextDelta))
    assert whole.endswith("Each page stays up for 8 seconds (page_seconds).")
    # after another rule's ask too (figure-not-given: an answer with no figure)
    script = Scripted(["Each page stays up for a while."], then=["It stays up 12 seconds."])
    out = await _run(Guide(), call, script)
    assert [e.message for e in out if isinstance(e, LocalModelProgress)] == [
        NUDGED_PREFIX + "figure-not-given"
    ]
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole.endswith(
        "It stays up 12 seconds.\n\n(Nothing I looked at shows 12: I made that up.)"
    )
    # with the rule off, nothing is said
    without = tuple(n for n in SMALL_MODEL.nudges if n != "made-up-figure")
    script = Scripted(["Each page stays up for a while."], then=["It stays up 12 seconds."])
    out = await _run(Guide(attrs.evolve(SMALL_MODEL, nudges=without)), call, script)
    whole = "".join(e.text for e in out if isinstance(e, TextDelta))
    assert whole.endswith("It stays up 12 seconds.")
