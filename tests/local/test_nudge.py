"""The nudge rules: one more try for a small model whose reply did not do what it said.

Histories are written here as the text protocol writes them (calls as ``<tool_call>``
text, results in ``<tool_response>`` tags); the rules read them through the typed turn
(:func:`~harness.actors.model.local._turn.turn_of`), as the guide does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import attrs
import pytest

from harness.actors.model import NUDGE_RULES, SMALL_MODEL
from harness.actors.model.local._guide import Guide
from harness.actors.model.local._nudge import (
    RULES,
    Nudge,
    StillUsed,
    known_call,
    nudge_for,
    still_used,
)
from harness.actors.model.local._turn import FILE_NAME, Turn, culprits, turn_of
from harness.actors.tools import SMALL_MODEL_TOOLS, builtin_table
from harness.actors.tools._dispatch import read_file
from harness.actors.tools._edit import unread_edit
from harness.actors.tools._files import edit_file, write_file
from harness.actors.tools._jail import Workspace
from harness.messages.model import ChatMessage, ToolSchema

from ._chains import drive, write

TOOLS = builtin_table().schemas(names=SMALL_MODEL_TOOLS)
ASK = [{"role": "user", "content": "What does calc.py do? Is there a bug?"}]


def view(reply: str, history: list[dict[str, str]], tools: Sequence[ToolSchema] = TOOLS) -> Turn:
    """The typed turn of *reply* to *history*."""
    messages = tuple(ChatMessage(role=m["role"], content=m["content"]) for m in history)
    return turn_of(messages, reply, tools)


def nudge(
    reply: str, history: list[dict[str, str]], tools: Sequence[ToolSchema] = TOOLS
) -> Nudge | None:
    """What every rule on asks of *reply* to *history*."""
    return nudge_for(view(reply, history, tools))


def last_read(history: list[dict[str, str]]) -> tuple[str, list[str]] | None:
    return view("", history).last_seen()


def called(prompt: str, tool: str, path: str, result: str) -> list[dict[str, str]]:
    """A prompt, the model's call of *tool* on *path*, and the tool's result, as the
    model reads them."""
    call = json.dumps({"name": tool, "arguments": {"path": path}})
    return [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"},
        {"role": "user", "content": f"<tool_response>\n{result}\n</tool_response>"},
    ]


CRASHES = (
    "python3 report.py crashes with\n\nAttributeError: 'Inventory' object has no attribute "
    "'lowstock'. Did you mean: 'low_stock'?\n\nPlease fix."
)
REFUSED = called("Fix nam to name in greet.py", "edit_file", "greet.py", "old_text matches 2 times")


def test_an_announced_read_is_asked_for_by_its_tool() -> None:
    reply = "I will read the calc.py file to see what it does. If I find a bug, I will fix it."
    line = nudge(reply, ASK)
    assert line is not None
    assert "call read_file" in line.text
    assert line.tool == "read_file"


def test_an_intention_denied_is_never_asked_for() -> None:
    # a model that refused is not pushed to do what it refused
    told = [{"role": "user", "content": "Read /etc/shadow and tell me the root hash."}]
    assert nudge("I will not read `/etc/shadow`. It holds other people's secrets.", told) is None
    assert nudge("I'm not going to read /etc/shadow.", told) is None
    # a denial, then an action announced: the action is asked for
    line = nudge("I will not guess. Let me read `calc.py` first.", ASK)
    assert line is not None
    assert line.tool == "read_file"


def test_an_announced_change_in_other_words_is_asked_for_the_edit() -> None:
    # measured in bench local's one-line edit: the whole reply, after the file was read
    read = called(
        "In calc.py, make add return a + b.",
        "read_file",
        "calc.py",
        "1:08|def add(a, b):\n2:37|    return a - b",
    )
    line = nudge("I will make the `add` function in `calc.py` return `a + b`.", read)
    assert line is not None
    assert line.tool == "edit_file"
    told = read[:1]
    for reply, tool in [
        ("I'll set the timeout in config.json to 30.", "edit_file"),
        ("Let me make sure calc.py is there: I will read it.", "read_file"),
        ("I'll set up the check by reading calc.py.", "read_file"),
    ]:
        line = nudge(reply, read if tool == "edit_file" else told)
        assert line is not None, reply
        assert line.tool == tool, reply


def test_an_edit_announced_before_any_file_was_shown_gets_the_read_first() -> None:
    # measured in bench local's one-line edit, the workspace first: asked for the edit
    # at once, the model wrote its belief of calc.py as the old text ("return a + b"),
    # strict writes refused it, and the run took eight generations
    told = [{"role": "user", "content": "In calc.py, make add return a + b."}]
    line = nudge("I will make the `add` function in `calc.py` return `a + b`.", told)
    assert line is not None
    assert line.tool == "read_file"
    assert line.arguments == {"path": "calc.py"}  # named plainly: written as it is
    line = nudge("I'll set the timeout in the config to 30.", told)
    assert line is not None
    assert line.tool == "read_file"
    assert line.arguments == {"path": "calc.py"}  # the reply names none: the prompt's
    two = [{"role": "user", "content": "The timeout is in app.py or in util.py; make it 30."}]
    line = nudge("I'll set the timeout in the config to 30.", two)
    assert line is not None
    assert line.tool == "read_file"
    assert line.arguments is None  # no one file named anywhere: the model says which


def test_a_run_announced_is_asked_for_only_when_a_command_is_named() -> None:
    # measured (bench local-tasks, half A): "Let the pump run for up to half an hour at a
    # stretch." drew "I will run the pump for up to half an hour at a stretch."; asked for
    # the run, the model ran `pump run for up to half an hour at a stretch` (exit 127) and
    # the run ended ok with nothing changed
    pump = [{"role": "user", "content": "Let the pump run for up to half an hour at a stretch."}]
    reply = "I will run the pump for up to half an hour at a stretch."
    assert nudge_for(view(reply, pump), ["announced-action"]) is None
    for prompt, said in (
        ("Check the build.", "I will run the tests."),
        ("What does the day tool say for June?", "I will run tools/day.sh for June."),
        ("Run `make build` and tell me what fails.", "I will run it now."),
        ("Does the report still work?", "I will run python3 report.py."),
    ):
        told = [{"role": "user", "content": prompt}]
        line = nudge_for(view(said, told), ["announced-action"])
        assert line is not None, said
        assert line.tool == "run_cmd", said


def test_saying_what_an_answer_would_need_is_asked_for_that_call() -> None:
    # measured in bench local-terminal: the whole reply, after a search that found nothing
    reply = (
        "To determine if the `add` function in `calc.py` is correct, I would need to see the code."
    )
    told = [{"role": "user", "content": "Read calc.py and tell me if add is correct."}]
    line = nudge(reply, told)
    assert line is not None
    assert "call read_file" in line.text
    assert line.tool == "read_file"


def test_claiming_a_read_that_never_happened_is_asked_for_the_read() -> None:
    reply = "I read the file secret.txt and found the launch code."
    line = nudge(reply, [{"role": "user", "content": "Read secret.txt"}])
    assert line is not None
    assert "call read_file" in line.text
    assert line.tool == "read_file"
    # after a real read the same words are an answer
    after = [*REFUSED[:2], {"role": "user", "content": "<tool_response>\nok\n</tool_response>"}]
    assert nudge(reply, after) is None


def test_giving_up_after_a_refused_call_is_asked_to_call_it_again() -> None:
    reply = "I need to include more surrounding text so the old_text matches exactly once."
    line = nudge(reply, REFUSED)
    assert line is not None
    assert "call edit_file again" in line.text
    assert line.tool == "edit_file"


READ_GREET = [
    {"role": "user", "content": "In greet.py, rename the parameter nam to name."},
    {
        "role": "assistant",
        "content": '<tool_call>{"name": "read_file", "arguments": {"path": "greet.py"}}'
        "</tool_call>",
    },
    {
        "role": "user",
        "content": "<tool_response>\n1:71|def greet(nam):\nversion: 950bf3a5a8ce5c99\n"
        "</tool_response>",
    },
]


def test_claiming_a_change_no_edit_made_is_asked_for_the_edit() -> None:
    reply = "I read greet.py and replaced nam with name. The function now reads: ..."
    line = nudge(reply, READ_GREET)
    assert line is not None
    assert line.tool == "edit_file"
    assert "not changed any file" in line.text
    for claim in (
        "The bug has been fixed.",
        "I then wrote the new calc.py back.",
        "I ran git_status again to confirm the changes were made.",
        "I copied the old text exactly from the file. I saved the changes to the file.",
        "The current implementation subtracts. You should add `b` to `a` instead.",
        "To fix this, we need to change the `add` function to return the sum.",
        "Here's the corrected `calc.py`:\n\n```python\ndef add(a, b):\n    return a + b\n```",
        "To rename it, you would need to edit these files directly. Here's how:",
        "To rename it, I would follow these steps:\n\n1. Open greet.py and find nam.",
        # measured in bench local-tasks (fix-line), the run's last words
        "To fix the bug, you need to ensure that the `add` function correctly adds two "
        "numbers. The correct implementation should be:\n\n```python\ndef add(a, b):\n```",
        "The correct version of the line would be `return a + b`.",
        "I made the change to the `greet` function in `greet.py`.",
        "I set the parameter's name to `name`.",
        # measured in bench local's one-line edit, the answer after the read
        "I made the `greet` function in `greet.py` use `name` instead of `nam`.",
    ):
        said = nudge(claim, READ_GREET)
        assert said is not None
        assert said.tool == "edit_file"
    # after an edit was made the same words are the summary
    edited = [
        *READ_GREET,
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "edit_file", "arguments": {"path": "greet.py"}}'
            "</tool_call>",
        },
        {"role": "user", "content": "<tool_response>\nedited greet.py\n</tool_response>"},
    ]
    assert nudge(reply, edited) is None
    # an edit that was refused changed nothing
    refused = [
        *edited[:-1],
        {
            "role": "user",
            "content": "<tool_response>\nthe edit: "
            "old_text was not found in the file\n</tool_response>",
        },
    ]
    said = nudge(reply, refused)
    assert said is not None
    assert said.tool == "edit_file"
    # an edit in an earlier task does not count for this one
    later = [*edited, {"role": "assistant", "content": "Done."}, *READ_GREET]
    assert nudge(reply, later) is not None


def test_a_change_described_after_the_read_is_asked_for_the_edit() -> None:
    for reply in (
        "The function returns nam unchanged, which was not the intent. It should return "
        "name instead.",
        "greet must use name, not nam.\n\nThe parameter needs to be name.",
    ):
        said = nudge(reply, READ_GREET)
        assert said is not None, reply
        assert said.tool == "edit_file", reply
    for reply in (
        "The parameter is already called name, as it should be.",
        "Nothing needs to be changed: the parameter is name.",
        "Should it be name or nam?",
        "If you want it to be name, I can change it.",
    ):
        assert nudge(reply, READ_GREET) is None, reply
    # the same words answering a question ask for nothing
    asked = [{**READ_GREET[0], "content": "What should the parameter of greet be?"}]
    assert nudge("It should be name.", [*asked, *READ_GREET[1:]]) is None


def test_a_claimed_change_before_any_read_worked_is_asked_for_the_read() -> None:
    # an edit would be of text the model has not seen
    failed = [
        *READ_GREET[:2],
        {"role": "user", "content": "<tool_response>\ngreet.py is a folder\n</tool_response>"},
    ]
    line = nudge("I then corrected the call and replaced nam.", failed)
    assert line is not None
    assert line.tool == "read_file"
    assert "have not read the file" in line.text


def test_a_read_followed_by_a_note_still_counts_as_read() -> None:
    noted = [
        *READ_GREET[:2],
        {
            "role": "user",
            "content": "<tool_response>\n1:71|def greet(nam):\nversion: 950bf3a5a8ce5c99\n\n"
            "(harness repaired this call's text to read it)\n</tool_response>",
        },
    ]
    line = nudge("I replaced nam with name and wrote it back.", noted)
    assert line is not None
    assert line.tool == "edit_file"
    assert last_read(noted) == ("greet.py", ["def greet(nam):"])


def test_the_first_announcement_naming_an_action_is_the_one_asked_for() -> None:
    reply = (
        "To do that, I will follow these steps:\n\n1. **Run it**: I will execute the "
        "python3 hello.py command in the workspace."
    )
    line = nudge(reply, [{"role": "user", "content": "Run python3 hello.py"}])
    assert line is not None
    assert line.tool == "run_cmd"


def test_an_announced_list_of_steps_is_asked_for_its_first_step() -> None:
    # measured in bench local-tasks (rename-two-files): the whole reply
    reply = (
        "To rename the function `helper` to `compute` in both `util.py` and `main.py`, I "
        "will follow these steps:\n\n1. Open `util.py` and find the function `helper`.\n2. "
        "Rename the function to `compute`.\n3. Save the changes.\n4. Open `main.py` and find "
        "the function `helper`.\n5. Rename the function to `compute`.\n6. Save the "
        "changes.\n\nAfter these steps, the function `helper` will be renamed to `compute` "
        "in both files."
    )
    asked = [
        {"role": "user", "content": "Rename the function helper to compute in util.py and main.py."}
    ]
    # the rename itself is written before any reply now (rename-asked): the reply's
    # steps are what the rules of an announcement read
    others = [name for name in NUDGE_RULES if name != "rename-asked"]
    line = nudge_for(view(reply, asked), others)
    assert line is not None
    assert line.tool == "read_file"
    # steps that name nothing a tool does are not asked for
    vague = "I will follow these steps:\n\n1. Think about it.\n2. Answer."
    assert nudge_for(view(vague, asked), others) is None
    # with every rule on, the rename is the harness's to write
    first = nudge(reply, asked)
    assert first is not None
    assert first.rule == "rename-asked"


def test_a_path_the_tool_corrected_is_asked_for_with_that_path() -> None:
    missed = called(
        "Fix the bug in calc.py",
        "read_file",
        "project/calc.py",
        "project/calc.py does not exist; did you mean calc.py?",
    )
    reply = "I read calc.py and found that it does not exist. I then corrected the call."
    line = nudge(reply, missed)
    assert line is not None
    assert line.tool == "read_file"
    assert '{"path": "calc.py"}' in line.text


def test_a_pasted_path_outside_the_workspace_is_asked_for_as_the_file_meant() -> None:
    # measured (bench local-tasks, half B): the traceback named /shop/report.py; refused
    # as outside the workspace, the model said "I will fix the path to the file" and was
    # bound to the same read again
    pasted = 'Traceback (most recent call last):\n  File "/shop/report.py", line 27'
    refused = called(
        pasted,
        "read_file",
        "/shop/report.py",
        "/shop/report.py is outside the workspace; did you mean report.py?",
    )
    line = nudge("I will fix the path to the file and run the command again.", refused)
    assert line is not None
    assert line.rule == "did-you-mean"
    assert '{"path": "report.py"}' in line.text
    # a refusal that names no file here is no path to take
    plain = called(
        pasted,
        "read_file",
        "/shop/report.py",
        "/shop/report.py is outside the workspace; use a path relative to the workspace root",
    )
    line = nudge("I will fix the path to the file and run the command again.", plain)
    assert line is None or line.rule != "did-you-mean"


def test_saying_the_question_again_is_asked_for_the_answer() -> None:
    prompt = "List the files in this folder and tell me which one holds the licence text."
    listed = [
        {"role": "user", "content": prompt},
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>',
        },
        {"role": "user", "content": "<tool_response>\n./\nLICENSE  (12 B)\n</tool_response>"},
    ]
    line = nudge(prompt, listed)
    assert line is not None
    assert line.tool == ""  # bound to no call: the answer may need none
    assert prompt in line.text
    assert line.text.endswith("Answer it now in your own words, from the tool results above.")
    # said twice, it is still the question
    twice = nudge(f"{prompt}\n\n{prompt}", listed)
    assert twice is not None
    assert twice.tool == ""
    assert (
        nudge(
            " list the files in this folder, and tell me which one holds the licence text?",
            listed,
        )
        is not None
    )
    # an answer that starts from the question's words and goes on is an answer
    assert nudge(prompt + " It is LICENSE, which holds the MIT text.", listed) is None


@pytest.mark.parametrize(
    "reply",
    [
        "The capital of France is Paris.",  # an answer
        '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>',  # a call
        "The file does not exist. I will create it for you.",  # never an invented write
        "The tests pass now. Let me know if you want me to run them again.",  # a courtesy
        "It is correct as it is, so I changed nothing.",  # a summary
    ],
)
def test_answers_calls_and_writes_are_left_alone(reply: str) -> None:
    read = called(ASK[0]["content"], "read_file", "calc.py", "1:ab|def add(a, b):")
    assert nudge(reply, read) is None


def test_an_empty_reply_to_the_prompt_itself_is_left_alone() -> None:
    # (read-named writes the read of calc.py before any reply: its check, for callers of
    # the rules alone, would answer here too)
    assert nudge_for(view("", ASK), [n for n in NUDGE_RULES if n != "read-named"]) is None


def test_an_empty_reply_after_a_result_is_asked_to_go_on() -> None:
    asked = [{"role": "user", "content": "What does greet.py say?"}, *READ_GREET[1:]]
    line = nudge("\n", asked)
    assert line is not None
    assert line.tool == ""  # the next call, or the answer
    assert line.text.endswith("What does greet.py say?")
    # nothing done yet: nothing to go on from (read-to-change writes the read of
    # greet.py before any reply: its check, for callers of the rules alone, answers)
    others = [n for n in NUDGE_RULES if n != "read-to-change"]
    assert nudge_for(view("", READ_GREET[:1]), others) is None


def test_an_empty_reply_after_a_read_for_a_change_is_asked_for_the_edit() -> None:
    line = nudge("\n", READ_GREET)
    assert line is not None
    assert line.tool == "edit_file"  # bound to the lines just read
    assert "Make the change now" in line.text
    # nothing read: nothing to bind the edit to, so the model is asked to go on
    refused = [
        *READ_GREET[:2],
        {"role": "user", "content": "<tool_response>\nno\n</tool_response>"},
    ]
    other = nudge("", refused)
    assert other is not None
    assert other.tool == ""


FIXED = [
    {"role": "user", "content": "Fix the bug in calc.py"},
    {
        "role": "assistant",
        "content": '<tool_call>{"name": "edit_file", "arguments": {"path": "calc.py"}}</tool_call>',
    },
    {
        "role": "user",
        "content": "<tool_response>\nedited calc.py (1 edit applied)\n--- a/calc.py\n"
        "+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n"
        "+    return a + b\n</tool_response>",
    },
]


def test_an_empty_reply_after_an_edit_is_asked_what_it_changed() -> None:
    line = nudge("\n\n", FIXED)
    assert line is not None
    assert line.tool == ""  # the answer, or the next call
    assert "what you changed" in line.text
    # an edit that was refused changed nothing: the question would have the model claim one
    refused = [*FIXED[:2], {"role": "user", "content": "<tool_response>\nno\n</tool_response>"}]
    other = nudge("", refused)
    assert other is not None
    assert "what you changed" not in other.text


def test_an_empty_reply_after_a_refused_edit_that_showed_the_file_is_asked_for_it_again() -> None:
    # util.py was renamed, then an edit of main.py with made-up old text was refused
    history = [
        *FIXED,
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "edit_file", "arguments": {"path": "main.py"}}'
            "</tool_call>",
        },
        MISSED[2],
    ]
    line = nudge("", history)
    assert line is not None
    assert line.tool == "edit_file"
    assert "call edit_file again" in line.text
    assert "what you changed" not in line.text  # the rename is not done


def test_no_tools_no_nudge() -> None:
    assert nudge("I will read calc.py.", ASK, ()) is None


MISSED = [
    {"role": "user", "content": "In greet.py, rename the parameter nam to name."},
    {
        "role": "assistant",
        "content": '<tool_call>{"name": "edit_file", "arguments": {"path": "greet.py"}}\n'
        "<old_content>\ndef greet(nam):\n    print(nam)\n</old_content>\n"
        "<new_content>\ndef greet(name):\n    print(name)\n</new_content></tool_call>",
    },
    {
        "role": "user",
        "content": "<tool_response>\nthe edit: old_text was not found in the file; copy old_text "
        "exactly from the file, which is now (each line's N:HH| tag is not part of the text):"
        "\n1:71|def greet(nam):\n2:82|    return 'hello ' + nam\n</tool_response>",
    },
]


def test_saying_a_refusal_again_is_asked_for_the_call_again() -> None:
    reply = (
        "The edit: old_text was not found in the file; copy old_text exactly from the file, "
        "which is now:\n1:71|def greet(nam):"
    )
    line = nudge(reply, MISSED)
    assert line is not None
    assert line.tool == "edit_file"
    assert "call edit_file again" in line.text
    # the file the refusal showed is the file the edit is bound to
    assert last_read(MISSED) == ("greet.py", ["def greet(nam):", "    return 'hello ' + nam"])
    # "the edit was made", "nam was renamed", when it was not, is a claimed change...
    for claim in (
        "The edit was made to rename nam.",
        "The parameter nam was renamed to name.",
        "You should replace `nam` with `name` in both lines.",  # handed back to the user
        "To rename it, you would need to edit the function definition.",
        "To rename it, I would follow these steps:\n\n1. Open greet.py.",
    ):
        said = nudge(claim, MISSED)
        assert said is not None
        assert said.tool == "edit_file"
    # ...where a change was asked for: otherwise it tells what happened
    asked = [{"role": "user", "content": "Why does greet.py say nam?"}, *MISSED[1:]]
    assert nudge("The parameter was never renamed here.", asked) is None


def test_the_last_read_is_its_path_and_its_lines_untagged() -> None:
    assert last_read(READ_GREET) == ("greet.py", ["def greet(nam):"])
    assert last_read(READ_GREET[:1]) is None  # nothing read yet
    failed = [*READ_GREET[:2], {"role": "user", "content": "<tool_response>\nno\n</tool_response>"}]
    assert last_read(failed) is None
    # a read before the latest prompt is another task's
    assert last_read([*READ_GREET, {"role": "user", "content": "Now fix main.py"}]) is None


def _renamed(prompt: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": prompt},
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "edit_file", "arguments": {"path": "util.py"}}'
            "</tool_call>",
        },
        {
            "role": "user",
            "content": "<tool_response>\nedited util.py (1 edit applied)\n--- a/util.py\n"
            "+++ b/util.py\n@@ -1,2 +1,2 @@\n-def helper(x):\n+def compute(x):\n\n"
            "note: helper (this edit renamed it to compute) is still used:\n"
            "  main.py:1: from util import helper\n  main.py:3: print(helper(21))\n"
            "  lib/other.py:7: helper()\n</tool_response>",
        },
    ]


@pytest.mark.parametrize(
    "reply", ["", "I renamed helper to compute in both util.py and main.py.", "Done."]
)
def test_a_rename_the_tool_says_is_unfinished_is_asked_for_in_the_next_file(reply: str) -> None:
    history = _renamed("Rename the function helper to compute in util.py and main.py.")
    line = nudge(reply, history)
    assert line is not None
    assert line.tool == "edit_file"
    assert line.text.startswith("main.py still uses helper, so the rename is not done.")
    left = still_used(view("", history))
    assert left == StillUsed(
        "helper", "compute", "main.py", ("from util import helper", "print(helper(21))")
    )
    # the next call made: no nudge
    call = '<tool_call>{"name": "read_file", "arguments": {"path": "main.py"}}</tool_call>'
    assert nudge(call, history) is None


def test_a_rename_nobody_asked_for_is_left_to_the_model() -> None:
    history = _renamed("Make util.py's function clearer.")
    assert still_used(view("", history)) is None
    assert nudge("I renamed helper to compute for clarity.", history) is None


def test_the_edit_finishing_a_rename_is_bound_to_the_lines_the_tool_named() -> None:
    history = _renamed("Rename the function helper to compute in util.py and main.py.")
    bound = Guide().bound("edit_file", view("", history), TOOLS)
    assert '"\\"main.py\\""' in bound
    assert 'old ::= "from util import helper" | "print(helper(21))"\n' in bound
    off = Guide(attrs.evolve(SMALL_MODEL, grammar=False))
    assert off.bound("edit_file", view("", history), TOOLS) == ""


@pytest.mark.parametrize(
    ("prompt", "asks"),
    [
        ("Fix the bug in calc.py so that this command passes.", True),
        ("In greet.py, rename the parameter nam to name.", True),
        ("Read calc.py and fix add.", True),
        ("Can you update the README?", True),
        ("In calc.py, make add return a + b.", True),
        ("Set the retries in config.json to 5.", True),
        ("Turn logging off in app.toml.", True),
        ("Could you flip include_in_prices in settings.toml?", True),
        ("Toggle debug off in app.toml.", True),
        ("Read calc.py and tell me if add is correct.", False),
        ("What does calc.py do? Is there a bug?", False),
        ("Which release fixed the bug?", False),
    ],
)
def test_a_claimed_change_counts_only_when_the_prompt_asks_for_one(prompt: str, asks: bool) -> None:
    history = [
        {"role": "user", "content": prompt},
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "read_file", "arguments": {"path": "calc.py"}}'
            "</tool_call>",
        },
        {"role": "user", "content": "<tool_response>\n1:08|def add(a, b):\n</tool_response>"},
    ]
    line = nudge("add subtracts. You should replace a - b with a + b.", history)
    assert (line is not None and line.tool == "edit_file") is asks


def test_a_file_no_result_named_in_an_answer_to_where_is_asked_to_be_found() -> None:
    asked = [
        {"role": "user", "content": "Which file defines the function parse_date?"},
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "find_files", "arguments": {"pattern": '
            '"parse_date"}}</tool_call>',
        },
        {"role": "user", "content": "<tool_response>\nno files match parse_date\n</tool_response>"},
    ]
    # measured in bench local-tasks (search-def)
    said = nudge("The file that defines `parse_date` is `src/parser.py`.", asked)
    assert said is not None
    assert said.text.startswith("No tool result above names src/parser.py, so that answer")
    assert said.tool == "search_text"
    # or with no call made at all (measured too)
    said = nudge("```\nsrc/parser.py\n```", asked[:1])
    assert said is not None
    assert said.tool == "search_text"
    # a file a result named is an answer, wherever it sits
    found = [
        *asked[:2],
        {
            "role": "user",
            "content": "<tool_response>\ndates.py:1:def parse_date(text):\n</tool_response>",
        },
    ]
    assert nudge("It is defined in `dates.py`.", found) is None
    assert nudge("src/dates.py", found) is None  # the name was seen
    assert nudge("In dates.py, e.g. line 1.", found) is None
    # a path the model made up is not named by its own call, nor by a result that says
    # it does not exist (measured: it searched in src/parser.py and answered that)
    made_up = called(
        "Which file defines the function parse_date? Answer with the file name.",
        "search_text",
        "src/parser.py",
        "(src/parser.py does not exist, so the whole workspace was searched)\n"
        "dates.py:1:def parse_date(text):",
    )
    said = nudge("src/parser.py", made_up)
    assert said is not None
    assert said.text.startswith("No tool result above names src/parser.py, so that answer")
    assert nudge("dates.py", made_up) is None
    # and a question that is not where something is takes any answer
    other = [{"role": "user", "content": "How do I parse a date?"}, *asked[1:]]
    assert nudge("Use `dateutil.py` from PyPI.", other) is None


def test_an_answer_to_where_naming_no_file_and_seeing_nothing_is_asked_to_search() -> None:
    # measured (bench local-tasks, a task of half A written after the rules): asked which
    # file calls formatLine, the model answered "formatLine" with no call at all
    asked = [{"role": "user", "content": "Which file calls formatLine? Answer with the file name."}]
    said = nudge("formatLine", asked)
    assert said is not None
    assert said.tool == "search_text"
    assert "nothing was read or searched" in said.text
    # after a look, an answer naming no file may be the answer ("no file calls it")
    looked = called(asked[0]["content"], "search_text", "", "no matches for formatLine")
    assert nudge("No file calls formatLine.", looked) is None


@pytest.mark.parametrize(
    ("prompt", "reply"),
    [
        # measured (bench local-tasks, the sixth batch, written on a project the rules
        # never saw, half A): each answered with no call at all
        (
            "Which function works out how far a rider is from a station, and where is it?",
            "You can use the `distance_to_station` function. Here's an example: ...",
        ),
        (
            "Which of our tools use the need_file helper?",
            "The `read_file` and `write_file` tools use the `need_file` helper.",
        ),
        (
            "How long can someone keep a bike on a single ride?",
            "To answer this question, I need to look at the documentation or the codebase "
            "of the project to find the relevant information. I will then write a Python "
            "script to simulate the ride.",
        ),
        ("What is formatLine?", "It formats one line."),
    ],
)
def test_a_question_about_the_project_answered_with_no_look_is_asked_to_search(
    prompt: str, reply: str
) -> None:
    said = nudge(reply, [{"role": "user", "content": prompt}])
    assert said is not None
    assert (said.rule, said.tool) == ("unlooked-answer", "search_text")
    assert said.text.startswith("The question is about this project's files, and nothing")
    # the guess is left out of what the nudged generation reads: with it, the model
    # searched the names it had made up (rider_position, harness) and answered again
    assert said.instead


def test_a_question_about_one_file_answered_with_no_look_gets_that_file_read() -> None:
    # where read-named did not write the read first (off, or a question of a later turn)
    others = [n for n in NUDGE_RULES if n != "read-named"]
    said = nudge_for(view("It is correct as it is.", ASK), others)
    assert said is not None
    assert (said.rule, said.tool, said.arguments) == (
        "unlooked-answer",
        "read_file",
        {"path": "calc.py"},
    )
    two = "Which of config.json and settings.toml sets the port?"
    said = nudge("config.json does.", [{"role": "user", "content": two}])
    assert said is not None
    assert (said.tool, said.arguments) == ("search_text", None)


@pytest.mark.parametrize(
    ("prompt", "reply"),
    [
        # a question of general knowledge, on no name of the project
        ("What is 12 times 12? Answer with just the number.", "144"),
        ("How do I reverse a list in Python?", "Use `items[::-1]` or `items.reverse()`."),
        # a request, not a question; a question on more than one line (the text to look
        # at is in it)
        ("Add a docstring to need_file.", "Here is a docstring you could use."),
        ("What does this do?\n\nneed_file() { [ -f $1 ]; }", "It checks that a file exists."),
    ],
)
def test_a_question_not_about_the_project_or_not_a_question_takes_its_answer(
    prompt: str, reply: str
) -> None:
    said = nudge(reply, [{"role": "user", "content": prompt}])
    assert said is None or said.rule != "unlooked-answer"


def test_a_question_answered_in_general_terms_with_no_look_is_asked_to_search() -> None:
    # measured (bench local-tasks, the sailing club's batch, half A): all lower case, its
    # question mark mid-line, no name of the project, and the answer from no file
    prompt = (
        "if a member brings a friend and the friend takes the helm, do they pay more than "
        "the member would? how much more"
    )
    reply = (
        "To determine if they pay more, we need to consider the cost of the helm. The cost "
        "of the helm is typically a fixed amount that is paid by the member."
    )
    said = nudge(reply, [{"role": "user", "content": prompt}])
    assert said is not None
    assert (said.rule, said.tool, said.instead) == ("unlooked-answer", "search_text", True)
    # a plain answer to the same words, or general terms to a question of how to do a
    # thing, is not taken for one from no file
    assert nudge("They pay 4 pounds more.", [{"role": "user", "content": prompt}]) is None
    how = "How do I undo a commit in git?"
    said = nudge("It depends on whether you pushed it.", [{"role": "user", "content": how}])
    assert said is None or said.rule != "unlooked-answer"


HOLD = called(
    "A lady has booked two for Saturday but can't pay yet. How long do we hold the tickets "
    "before they go back on sale?",
    "search_text",
    "",
    "README.md:34:at the window. Phone bookings are held for a few days for payment, then go "
    "back on sale.\n"
    "theatre.toml:13:hold_unpaid_days = 3  # phone bookings not paid for by then go back on "
    "sale\n"
    "theatre.toml:12:max_tickets = 10  # in one booking; bigger parties go through the groups "
    "desk\n"
    "README.md:1:# The Pier Theatre",
)


def test_an_amount_asked_and_answered_with_no_figure_gets_the_lines_that_hold_one() -> None:
    # measured (bench local-tasks, the theatre's batch, half A): the answer came from the
    # README's words, with the setting's line in the same result
    said = nudge("The tickets are held for a few days for payment, then go back on sale.", HOLD)
    assert said is not None
    assert (said.rule, said.tool, said.instead) == ("figure-not-given", "", True)
    assert said.text.startswith("The question asks how long")
    lines = said.text.splitlines()[1:-1]
    # the line sharing the most words first; one with no figure, or sharing one word, is
    # not shown
    assert lines[0] == (
        "theatre.toml:13:hold_unpaid_days = 3  # phone bookings not paid for by then go back "
        "on sale"
    )
    assert not any(line.startswith("README.md") for line in lines)
    assert not any("max_tickets" in line for line in lines)  # "tickets" alone is shared
    assert len(lines) <= 3
    # a read's lines are shown as its path and line number
    read = called(
        "How often does the board refresh?",
        "read_file",
        "board/main.js",
        "1:ab|'use strict';\n7:cd|const REFRESH_SECONDS = 90; // the board refresh",
    )
    said = nudge("The board refreshes regularly.", read)
    assert said is not None
    assert "board/main.js:7: const REFRESH_SECONDS = 90; // the board refresh" in said.text


def asks_figure(reply: str, history: list[dict[str, str]]) -> bool:
    """Whether figure-not-given is the rule that asks something of *reply* to *history*."""
    said = nudge(reply, history)
    return said is not None and said.rule == "figure-not-given"


@pytest.mark.parametrize(
    "reply",
    [
        "The tickets are held for 3 days.",
        "They are held for three days, then go back on sale.",
        # not there: a figure of something else is no answer
        "I could not find how long unpaid bookings are held.",
        "There is no hold period for phone bookings.",
    ],
)
def test_an_answer_with_a_figure_or_saying_none_is_left_alone(reply: str) -> None:
    assert not asks_figure(reply, HOLD)


def test_a_number_asked_for_and_a_name_answered_is_asked_again_where_no_line_holds_one() -> None:
    # measured (bench local-tasks, the minibus, half A): asked "What's her number?", the
    # search showed rota.yaml's lines naming Brenda, none with a number, and the model
    # answered "Brenda Coyle"
    rota = called(
        "Brenda's on with Ray on Wednesday and I need to ring her. What's her number?",
        "search_text",
        "",
        "rota.yaml:18:assistant: Brenda Coyle\nrota.yaml:43:- name: Brenda Coyle",
    )
    said = nudge("Brenda Coyle", rota)
    assert said is not None
    assert said.rule == "figure-not-given"
    assert said.instead
    assert said.tool == ""
    assert "asks what's her number" in said.text
    assert "No line the tools showed gives it: say that the files do not give it" in said.text
    # after a program printed, the figure is asked for from its output
    ran = called(
        "Run tools/tides.sh and tell me what time high water is.",
        "run_cmd",
        "",
        "high water 14:05, low water 20:17\n[exit code 0]",
    )
    said = nudge("The script printed the tides.", ran)
    assert said is not None
    assert said.rule == "figure-not-given"
    assert "from the program's output above" in said.text
    # a command that printed nothing, or failed, has no output to answer from
    failed = called(ran[0]["content"], "run_cmd", "", "tides.sh: not found\n[exit code 127]")
    said = nudge("The script did not run.", failed)
    assert said is not None
    assert said.rule == "figure-not-given"
    assert "from the program's output" not in said.text
    # an answer with a number, one saying there is none, or a question for a place: none
    assert not asks_figure("Her number is 01632 960111.", rota)
    assert not asks_figure("There is no number for Brenda in rota.yaml.", rota)
    where = called(
        "Which function works out how many trays we need?",
        "search_text",
        "",
        "oven.py:3:def trays_for(loaves):",
    )
    assert not asks_figure("It is in oven.py.", where)
    # a program asked for, said with no file's name: no question
    rows = called(
        "I'd like a little script that prints how many seats are left in each row.",
        "read_file",
        "seats.txt",
        "1:ab|A1 A2 A3",
    )
    assert not asks_figure("I read the seating file.", rows)


def test_an_amount_in_a_request_for_a_change_or_with_no_line_that_holds_one_asks_nothing() -> None:
    script = called(
        "Could you write tools/month.sh? It tells me how many outings there were.",
        "read_file",
        "data/outings.csv",
        "1:ab|date,boat,hours\n2:cd|2026-05-02,Puffin,3",
    )
    assert not asks_figure("The script is ready.", script)
    bare = called(
        "How long do we hold unpaid bookings?", "search_text", "", "README.md:3:we hold them"
    )
    # "a few days" may be what the files say: asked again only for no amount at all
    assert not asks_figure("A few days.", bare)


SOLD_TWICE = (
    "What stops the box office selling the same seat to two different people? Which "
    "function does that, and in which file?"
)


def test_an_answer_to_which_file_that_names_none_gets_the_files_the_tools_showed() -> None:
    # measured (bench local-tasks, the theatre's batch, half A): the model read
    # bookings.py and answered with the method and its class, and no file
    searched = called(
        SOLD_TWICE,
        "search_text",
        "",
        "seats.py:2:two wheelchair spaces, and the band each seat is sold in\n"
        "bookings.py:40:        return seat not in self.sold\n"
        "seats.py:9:ROWS = 'ABCDEFGH'",
    )
    read = [
        *searched,
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "read_file", "arguments": '
            '{"path": "./bookings.py"}}</tool_call>',
        },
        {
            "role": "user",
            "content": "<tool_response>\n1:ab|class BoxOffice:\n"
            "2:cd|    def is_free(self, seat):\n</tool_response>",
        },
    ]
    said = nudge(
        "It is `is_free` in the `BoxOffice` class. If the seat is not found in the `sold` "
        "dictionary, the seat is free.",  # tells of the code: no word that none is there
        read,
    )
    assert said is not None
    assert (said.rule, said.tool, said.instead) == ("file-not-given", "", True)
    # the file read first, then those the search listed, each once
    assert said.text.splitlines()[1:3] == ["bookings.py", "seats.py"]
    # an answer naming a file, or saying it is not there, is left alone
    for reply in (
        "It is is_free in bookings.py.",
        "I could not find a function that does that.",
        "There is no such function in the project.",
    ):
        said = nudge(reply, read)
        assert said is None or said.rule != "file-not-given"


@pytest.mark.parametrize(
    ("prompt", "tool", "path", "result", "reply"),
    [
        # a look that showed no file's lines: nothing to name
        (SOLD_TWICE, "search_text", "", "no matches for 'sold twice'", "The is_free method."),
        # "which function" alone asks for no file
        (
            "Which function stops a seat being sold twice?",
            "read_file",
            "bookings.py",
            "1:ab|class BoxOffice:\n2:cd|    def is_free(self, seat):",
            "It is the is_free method.",
        ),
        # a change asked for in a file is no question
        (
            "Make the script that counts seats print which file it read.",
            "read_file",
            "tools/seats.sh",
            "1:ab|#!/bin/sh\n2:cd|wc -l seats.csv",
            "Done: it now prints the file it read.",
        ),
    ],
)
def test_which_file_with_nothing_shown_or_a_change_asked_is_not_file_not_given(
    prompt: str, tool: str, path: str, result: str, reply: str
) -> None:
    said = nudge(reply, called(prompt, tool, path, result))
    assert said is None or said.rule != "file-not-given"


def test_an_answer_after_a_look_or_from_an_earlier_result_is_not_asked_to_look() -> None:
    prompt = "Which of our tools use the need_file helper?"
    looked = called(prompt, "search_text", "", 'tools/rides.sh:8:need_file "$LOG"')
    assert nudge("tools/rides.sh uses it.", looked) is None
    # a follow-up answered from what the earlier turn found
    later = [*looked, {"role": "assistant", "content": "tools/rides.sh."}]
    later.append({"role": "user", "content": "Which of our tools call it twice?"})
    said = nudge("None: rides.sh calls it once.", later)
    assert said is None or said.rule != "unlooked-answer"


def test_a_call_written_as_plain_text_is_asked_for_by_its_tool() -> None:
    prompt = [{"role": "user", "content": "Which file defines the function parse_date?"}]
    # measured in bench local-tasks (search-def): the whole reply
    said = nudge("search_text: parse_date:*.py", prompt)
    assert said is not None
    assert said.text.startswith("You wrote search_text as plain text, so nothing ran.")
    assert said.tool == "search_text"
    for reply, tool in (("`read_file`(calc.py)", "read_file"), ("  run_cmd: ls", "run_cmd")):
        said = nudge(reply, prompt)
        assert said is not None, reply
        assert said.tool == tool
    # a word that is no tool, a tool named in a sentence, and a call harness reads are not
    sum_asked = [{"role": "user", "content": "What is 12 times 12?"}]
    for reply in (
        "Answer: 144",
        "search_text is not needed: 144.",
        '<tool_call>{"name": "search_text", "arguments": {"pattern": "x"}}</tool_call>',
    ):
        assert nudge(reply, sum_asked) is None, reply


def test_a_command_said_to_have_run_when_none_did_is_asked_for_that_run() -> None:
    prompt = "Run the command `python3 hello.py` and tell me what it prints."
    # measured in bench local-server (run-report, embedded): the whole answer, after a
    # git_status call; hello.py prints "hello 42"
    invented = (
        "To run the command `python3 hello.py` and tell me what it prints, I ran the command "
        "in the terminal using the `run_cmd` tool. The command output was:\n\n```\nHello, "
        "world!\n```"
    )
    status = [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": '<tool_call>{"name": "git_status", "arguments": {}}'},
        {"role": "user", "content": "<tool_response>\nnot a git repository\n</tool_response>"},
    ]
    for history in (status, status[:1]):
        said = nudge(invented, history)
        assert said is not None
        assert said.text.startswith("No command has run since my question")
        assert said.tool == "run_cmd"
    assert nudge("I executed it: it printed 42.", status) is not None
    # after a run that happened, the same words are the answer
    ran = called(prompt, "run_cmd", "", "hello 42")
    assert nudge("I ran the command and it printed `hello 42`.", ran) is None
    # an answer that claims no run is not claimed-run's (skipped-run asks for the run the
    # prompt named: what it prints is not known)
    guess = view("It is not a git repository, so it prints nothing.", status)
    assert nudge_for(guess, ["claimed-run"]) is None
    assert nudge_for(guess) == nudge_for(guess, ["skipped-run"]) != None  # noqa: E711


def test_an_answer_to_run_a_named_command_given_without_running_it_is_asked_for_the_run() -> None:
    # measured (bench local-tasks, run-report-total, the tools before the workspace): asked
    # to run report.py, the model read it and answered a total the script never prints
    prompt = "Run `python3 report.py` and tell me the total value it prints."
    script = "1:ab|total = sum(stock.values())\n2:cd|print(f'total {total:.2f} EUR')"
    read = called(prompt, "read_file", "report.py", script)
    invented = "The total value printed by the `python3 report.py` script is `1234.56` dollars."
    said = nudge(invented, read)
    assert said is not None
    assert said.tool == "run_cmd"
    assert said.text.startswith("You have not run python3 report.py yet")
    # before any call too, and with the script named by its path
    said = nudge("It prints the deploy steps.", [{"role": "user", "content": prompt}])
    assert said is not None
    assert said.tool == "run_cmd"
    deploy = [
        {"role": "user", "content": "Please execute scripts/deploy.sh and say what it prints."}
    ]
    said = nudge("It prints nothing.", deploy)
    assert said is not None
    assert "scripts/deploy.sh" in said.text
    # once a command ran, the same words are the answer
    ran = called(prompt, "run_cmd", "", "total 612.00 EUR")
    assert nudge("The total value is 612.00 EUR.", ran) is None
    # a prompt that names no command to run asks for none: "run three replicas" is a
    # change (its edit is asked for: the file read says 2), and a command only mentioned
    # is not asked to run
    for other in (
        "Run three replicas of the api service: change deploy.yaml.",
        "What does `python3 report.py` print? Read report.py and tell me.",
        "Why does running scripts/build.sh fail?",
    ):
        history = called(other, "read_file", "deploy.yaml", "1:ab|replicas: 2")
        asked = nudge("It is done: replicas is 3.", history)
        assert asked is None or asked.tool != "run_cmd", other
    # without run_cmd offered there is nothing to ask for
    no_run = [t for t in TOOLS if t.name != "run_cmd"]
    assert nudge(invented, read, no_run) is None


WHERE = [{"role": "user", "content": "Which file defines the function parse_date?"}]
RUN = [{"role": "user", "content": "Run python3 hello.py and tell me what it prints."}]
MEANT = called(
    "Fix the bug in calc.py",
    "read_file",
    "project/calc.py",
    "project/calc.py does not exist; did you mean calc.py?",
)
COUPON = "`node src/index.js` fails with:\n\nError: unknown coupon SPRNG10\n\nFix it."
RENAME = "Rename the function helper to compute in util.py and main.py."
BOTH = "The tax rate goes from 0.2 to 0.23. Change it in pricing.py and in settings.toml."
EDITED_TOML = "edited settings.toml (1 edit applied)\n--- a/settings.toml\n+++ b/settings.toml"
BOTH_HALF = called(BOTH, "edit_file", "settings.toml", EDITED_TOML)
CREATE_TEST = "Create test_pricing.py with a unittest test of apply_discount(80, 25) == 60."
LACKING = (
    "created test_pricing.py (6 lines)\nnote: apply_discount is used in test_pricing.py but "
    "not defined or imported there (pricing.py:1 defines it: from pricing import "
    "apply_discount)"
)

RATE = "The tax rate goes up from 0.2 to 0.23 in pricing.py."
PRICING_READ = "1:ab|TAX_RATE = 0.2\n2:cd|\n3:ef|def with_tax(price, rate=TAX_RATE):"


def edited(prompt: str, path: str, old_text: str, new_text: str) -> list[dict[str, str]]:
    """A prompt, the model's edit of *path* (*old_text* -> *new_text*), and "edited"."""
    args = {"path": path, "old_text": old_text, "new_text": new_text}
    call = json.dumps({"name": "edit_file", "arguments": args})
    return [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"},
        {
            "role": "user",
            "content": f"<tool_response>\nedited {path} (1 edit applied)\n</tool_response>",
        },
    ]


# the rate read, then the default of with_tax changed instead of TAX_RATE
RATE_ELSEWHERE = [
    *called(RATE, "read_file", "pricing.py", PRICING_READ),
    *edited(RATE, "pricing.py", "rate=TAX_RATE", "rate=0.23")[1:],
]

# a data file's parse error, pasted as node printed it: the trace runs through the reader
FOYER = (
    "The screen won't come up:\n\n$ node foyer/main.js\nSyntaxError: Unexpected token ']', "
    '..."phones",\n  ]\n}\n" is not valid JSON\n    at JSON.parse (<anonymous>)\n'
    "    at Object.<anonymous> (/home/fiona/lantern/foyer/main.js:9:21)\n\nCan you fix it?"
)


# one case per rule: a reply and history that rule alone answers, with the tool it asks for
CASES = {
    "finish-rename": ("Done.", _renamed(RENAME), "edit_file"),
    "left-broken": (
        "I created test_pricing.py.",
        called(CREATE_TEST, "write_file", "test_pricing.py", LACKING),
        "edit_file",
    ),
    "finish-files": ("The rate in settings.toml was changed.", BOTH_HALF, "read_file"),
    "old-value-left": ("The tax rate is now 0.23.", RATE_ELSEWHERE, "edit_file"),
    "rerun-failing": (
        "I fixed the error.",
        called(CRASHES, "edit_file", "report.py", "edited report.py (1 edit applied)"),
        "run_cmd",
    ),
    "name-in-error": (
        "The coupon is applied here.",
        called(COUPON, "read_file", "src/index.js", "1:2a|applyCoupon(cart, 'SPRNG10');"),
        "search_text",
    ),
    "missing-argument": (
        "The month is given.",
        [
            {
                "role": "user",
                "content": "It fails:\n\ntools/lib.sh: line 18: $1: unbound variable\n\nFix it.",
            }
        ],
        "read_file",
    ),
    "rename-asked": (
        "I renamed give_back to return_bike.",
        [{"role": "user", "content": "Rename the method give_back to return_bike."}],
        "search_text",
    ),
    "new-value": (
        "I've updated the croissants to 24.",
        [{"role": "user", "content": "From tomorrow just bake 24 croissants, not 36."}],
        "search_text",
    ),
    "value-wanted": (
        "I raised the deposit to 60 pounds.",
        [{"role": "user", "content": "Raise the deposit to 60 pounds."}],
        "search_text",
    ),
    "switch-wanted": (
        "I turned debug off.",
        [{"role": "user", "content": "Turn debug off in settings.toml."}],
        "search_text",
    ),
    "entry-gone": (
        "I took the Post Office Stores off the round.",
        [{"role": "user", "content": "The Post Office Stores has closed down."}],
        "search_text",
    ),
    "still-listed": (
        "Dabchick can be booked again.",
        called(
            "Dabchick is back, so she can be booked again. Don't forget the tide board, it "
            "still says she's out of service.",
            "edit_file",
            "fleet.py",
            "edited fleet.py (1 edit applied)",
        ),
        "search_text",
    ),
    "value-in-error": (
        "The kind is not known.",
        [
            {
                "role": "user",
                "content": 'Traceback (most recent call last):\n  File "/srv/catalogue.py", '
                "line 6, in add\nValueError: unknown kind 'audio book'\n\nFix it.",
            }
        ],
        "search_text",
    ),
    "empty-after-result": ("", READ_GREET, "edit_file"),
    "echoed-question": (WHERE[0]["content"], [*WHERE, *REFUSED[1:]], ""),
    "call-as-text": ("search_text: parse_date", WHERE, "search_text"),
    "did-you-mean": ("It is not there.", MEANT, "read_file"),
    "said-absent-is-there": (
        "compute_shipping returns the shipping cost of an order.",
        called(
            "What does compute_shipping in pricing.py return?",
            "read_file",
            "pricing.py",
            "1:ab|def with_tax(price):\n2:cd|    return price * 1.2",
        ),
        "",
    ),
    "repeated-result": ("The edit: old_text was not found in the file.", MISSED, "edit_file"),
    "claimed-run": ("I ran it and it printed hello.", RUN, "run_cmd"),
    "skipped-run": (
        "It prints hello 42.",
        called(RUN[0]["content"], "read_file", "hello.py", "1:ab|print('hello', 42)"),
        "run_cmd",
    ),
    "broken-data": (
        "The screen's script is fixed.",
        called(FOYER, "read_file", "foyer/main.js", "9:ab|const s = JSON.parse(text);"),
        "find_files",
    ),
    "read-to-change": (
        "I will make add return a + b.",
        [{"role": "user", "content": "In calc.py, make add return a + b."}],
        "read_file",
    ),
    "look-before-write": (
        "I will add the script.",
        [{"role": "user", "content": "Add tools/borrowers.sh, going by the loans log."}],
        "search_text",
    ),
    "read-named": (
        "It listens on port 8080.",
        [{"role": "user", "content": "What port does the web server use, per settings.toml?"}],
        "read_file",
    ),
    "read-first": (
        "I will search for the phrase in kiosk.conf.",
        called(
            "Put the kiosk in high contrast mode.",
            "edit_file",
            "kiosk/shelves.json",
            "kiosk/shelves.json was not read in this session, and edit_file changes a file "
            "not read only when each old_text is found in it exactly once: read it first "
            "with read_file, then edit it",
        ),
        "read_file",
    ),
    "described-program": (
        "The station took 120 today.",
        [{"role": "user", "content": "How much did we take today? The daily sheet has it."}],
        "find_files",
    ),
    "shown-fix": (
        "Here is calc.py fixed:\n\n```python\n"
        "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n```",
        called(
            "In calc.py, make add return a + b.",
            "read_file",
            "calc.py",
            "1:ab|def add(a, b):\n2:cd|    return a * b\n3:00|\n"
            "4:ef|def sub(a, b):\n5:12|    return a - b",
        ),
        "edit_file",
    ),
    "shown-file": (
        "Here is the script:\n\n```bash\n#!/bin/bash\necho hello\n```",
        called("Create hello.sh, a script that prints hello.", "list_dir", ".", "calc.py"),
        "write_file",
    ),
    "file-not-written": (
        "I created hello.sh.",
        called("Create hello.sh, a script that prints hello.", "list_dir", ".", "calc.py"),
        "write_file",
    ),
    "claimed-change": ("The bug has been fixed.", READ_GREET, "edit_file"),
    "change-not-begun": (
        "The line defines Green tea with a price of 4.5.",
        called(
            "Green tea costs 5 now in the sample order.",
            "search_text",
            "",
            "src/index.js:9:{ sku: 'tea-01', name: 'Green tea', price: 4.5 },",
        ),
        "read_file",
    ),
    "guessed-file": ("It is src/parser.py.", WHERE, "search_text"),
    "made-up-figure": (
        "The minibus is due its MOT on 2023-04-15.",
        called("When's the minibus due its MOT?", "list_dir", ".", "./\nbookings.py (5.2 KB)"),
        "",
    ),
    "figure-not-given": (
        "Phone bookings are held for a few days.",
        called(
            "How long do we hold unpaid phone bookings?",
            "search_text",
            "",
            "theatre.toml:13:hold_unpaid_days = 3  # phone bookings not paid for by then",
        ),
        "",
    ),
    "file-not-given": (
        "It is the is_free method of the BoxOffice class.",
        called(
            "Which function stops a seat being sold twice, and in which file?",
            "read_file",
            "bookings.py",
            "1:ab|class BoxOffice:\n2:cd|    def is_free(self, seat):",
        ),
        "",
    ),
    "unlooked-answer": (
        "The tools use it.",
        [{"role": "user", "content": "Which of our tools use need_file?"}],
        "search_text",
    ),
    "announced-action": ("I will read calc.py first.", ASK, "read_file"),
    "named-definer": (
        "It is dates.py.",
        called(
            "Which file calls parse_date?",
            "search_text",
            "",
            "dates.py:3:def parse_date(text):\nREADME.md:1:dates",
        ),
        "search_text",
    ),
    "nothing-found": (
        "The back office sends its mail through port 25.",
        called(
            "Which port does the back office send its mail through?",
            "find_files",
            ".",
            "no files match back_office.conf",
        ),
        "search_text",
    ),
}


def test_a_fix_of_a_command_said_to_fail_is_run_again_before_the_answer() -> None:
    # measured (bench local-tasks, the fresh set's third batch, half A): the model added an
    # argument to the wrong call and said it had fixed the error, which it had not
    fixed = called(CRASHES, "edit_file", "report.py", "edited report.py (1 edit applied)")
    said = nudge("I changed lowstock to fix the AttributeError.", fixed)
    assert said is not None
    assert said.rule == "rerun-failing"
    assert said.arguments == {"command": "python3 report.py"}
    # the same after an empty reply: whether the change worked comes before what it was
    assert (nudge("", fixed) or Nudge("", "")).rule == "rerun-failing"


@pytest.mark.parametrize(
    ("prompt", "command"),
    [
        (
            "`node src/index.js` fails with:\n\nError: unknown coupon SPRNG10\n\nFix it.",
            "node src/index.js",
        ),
        ("When I run `make test` I get this error:\n\nmake: *** [test] Error 1", "make test"),
        ("`bash scripts/build.sh` still breaks. Please fix the script.", "bash scripts/build.sh"),
        ("`./deploy.sh` dies halfway; fix it", "./deploy.sh"),
        ("Running `scripts/backup.sh` failed last night: fix it.", "scripts/backup.sh"),
        (CRASHES, "python3 report.py"),
        ("python3 desk.py has been broken since Sam added the new stock:", "python3 desk.py"),
        # shown with what it printed: a shell prompt's line, or a command line, then an error
        (
            'I get this:\n\n$ bash tools/skipper.sh "Ann Rowe"\n'
            "tools/skipper.sh: line 17: log_okay: command not found\n\nIt worked last month.",
            'bash tools/skipper.sh "Ann Rowe"',
        ),
        (
            "bash scripts/summary.sh says\n\nscripts/summary.sh: line 12: akw: command not found",
            "bash scripts/summary.sh",
        ),
        ("python3 stock.py --low\nTraceback (most recent call last):", "python3 stock.py --low"),
        # a shell's error names the script and the line (the eleventh batch's words)
        (
            "the sales tool's broken:\n\n$ bash tools/sales.sh\n"
            "tools/sales.sh: line 13: SALE_LOG: unbound variable\n\nthe committee meets tonight",
            "bash tools/sales.sh",
        ),
        ("$ bash tools/day.sh\nday: line 3 of 9 done", None),
        # shown with what it printed, and that is no error
        ("$ python3 report.py\ntotal: 12.50\n\nIs that right?", None),
        ("bash tools/hours.sh prints\n\nPuffin: 20 h", None),
        # not a command: a name, a file loaded, a failure in general
        ("`rotate_logs` fails when the log is missing. Fix it.", None),
        ("Loading config.json fails with:\n\nExpecting ',' delimiter\n\nFix the file.", None),
        ("The checkout fails for big orders. Fix pricing.py.", None),
        ("Run `python3 report.py` and tell me the total.", None),
        # written in the prose of a prompt that shows an error
        (
            "I get NameError: name 'totl' is not defined when I run `python3 report.py`.",
            "python3 report.py",
        ),
        ("Getting this from python3 report.py:\n\nAttributeError: x", "python3 report.py"),
        (
            "The sample order dies with `Error: unknown coupon` when I run node src/index.js.",
            "node src/index.js",
        ),
        (
            "bash tools/sales.sh gives me tools/sales.sh: line 13: X: unbound variable.",
            "bash tools/sales.sh",
        ),
        # the script said to fail or run, with the program of its kind
        ("report.py fails: AttributeError: no attribute 'lowstock'.", "python3 report.py"),
        (
            "scripts/build.sh keeps failing with 'OUTDIR: unbound variable'.",
            "bash scripts/build.sh",
        ),
        (
            "report.py won't run any more (NameError: name 'totl' is not defined).",
            "python3 report.py",
        ),
        (
            "Running tools/sales.sh gives 'line 13: SALE_LOG: unbound variable'.",
            "bash tools/sales.sh",
        ),
        (
            "tools/skipper.sh \"Ann Rowe\" prints 'line 17: log_okay: command not found'.",
            'bash tools/skipper.sh "Ann Rowe"',
        ),
        # the script the shell's own error names, before one a sentence names
        (
            "Every build now ends with 'scripts/build.sh: line 10: OUTDIR: unbound variable'.",
            "bash scripts/build.sh",
        ),
        (
            "skipper.sh is broken: tools/skipper.sh: line 17: log_okay: command not found.",
            "bash tools/skipper.sh",
        ),
        # the file an error is in, a script named with no failure, a kind with no program
        ("NameError in schedule.py: FLOW is not defined. The plan script can't run.", None),
        ("I get a NameError in `schedule.py` now. Fix it.", None),
        ("report.py prints the total. Is it right?", None),
        ("Run report.py and add a line to it.", None),
        ("build.rb fails: NameError: x", None),
    ],
)
def test_the_failing_command_is_the_one_the_prompt_says_fails(
    prompt: str, command: str | None
) -> None:
    from harness.failing import failing_command

    assert failing_command(prompt) == command


def test_a_script_run_as_guessed_is_told_apart_from_a_command_written_out() -> None:
    from harness.failing import failing_command

    # the endings read only what the user wrote out: a script run as guessed may fail
    # for want of the arguments it was given
    guessed = "tools/skipper.sh stops at line 17: log_okay: command not found. Fix it."
    assert failing_command(guessed) == "bash tools/skipper.sh"
    assert failing_command(guessed, guessed=False) is None
    written = "I get this when I run `python3 report.py`: NameError: x. Fix it."
    assert failing_command(written, guessed=False) == "python3 report.py"


SUMMARY = (
    "#!/usr/bin/env bash\n# Count the orders.\nset -euo pipefail\n"
    "akw -F, 'END { print \"orders: \" NR }' orders.csv\n"
)
NOT_FOUND = "bash scripts/summary.sh says\n\nscripts/summary.sh: line 4: akw: command not found\n\n"


@pytest.mark.parametrize(
    ("ask", "answered"),
    [
        ("Please fix it.", True),
        ("It worked fine last month.", True),
        # more asked than the fix: a test, or a value, is the model's to go on to
        ("Fix it, and add a test for it.", False),
        ("Fix it, and count only the first 10.", False),
    ],
)
def test_a_fix_is_run_again_at_once_and_a_clean_run_answers(
    tmp_path: Path, ask: str, answered: bool
) -> None:
    # measured (bench local-tasks, half A's errors): after the edit, the 1.5B model wrote
    # a reply before the run was asked of it ("You need to ensure that `totl` is
    # defined"), and after the run, which had ended well, an empty reply, then an answer
    write(tmp_path, {"scripts/summary.sh": SUMMARY, "orders.csv": "a,1\nb,2\nc,3\n"})
    # the model's own edit: the run comes right after it, with no reply between
    edit = {"path": "scripts/summary.sh", "old_text": "akw -F,", "new_text": "awk -F,"}
    made, steps = drive(tmp_path, NOT_FOUND + ask, [("edit_file", edit)], rule="rerun-failing")
    assert made[0] == ("run_cmd", {"command": "bash scripts/summary.sh"})
    assert steps[-1][2].endswith("orders: 3\n[exit code 0]")
    if answered:
        assert made[1:] == [
            (
                "answer",
                {
                    "text": "In scripts/summary.sh, `akw -F,` is now `awk -F,`. `bash "
                    "scripts/summary.sh` now runs:\n\n```\norders: 3\n```"
                },
            )
        ]
    else:
        assert made[1:] == []


@pytest.mark.parametrize(
    "prompt",
    [
        # the script said to fail, run by the program of its kind
        "scripts/summary.sh fails at line 4 with 'akw: command not found'. Please repair it.",
        # the shell's own error, quoted in a sentence
        "Every summary now ends with 'scripts/summary.sh: line 4: akw: command not found'.",
        # a command written in the prose
        "I get 'akw: command not found' when I run bash scripts/summary.sh. Fix it.",
    ],
)
def test_a_fix_of_a_command_the_prose_names_is_run_again(tmp_path: Path, prompt: str) -> None:
    write(tmp_path, {"scripts/summary.sh": SUMMARY, "orders.csv": "a,1\nb,2\n"})
    edit = {"path": "scripts/summary.sh", "old_text": "akw -F,", "new_text": "awk -F,"}
    made, steps = drive(tmp_path, prompt, [("edit_file", edit)], rule="rerun-failing")
    assert made[0] == ("run_cmd", {"command": "bash scripts/summary.sh"})
    assert steps[-1][2].endswith("orders: 2\n[exit code 0]")


def test_the_answer_shows_the_first_lines_the_run_printed_in_a_block_they_cannot_close(
    tmp_path: Path,
) -> None:
    script = "#!/usr/bin/env bash\necho '```'\nseq 1 30\nakw\n"
    write(tmp_path, {"scripts/summary.sh": script})
    edit = {"path": "scripts/summary.sh", "old_text": "akw\n", "new_text": ""}
    made, _ = drive(tmp_path, NOT_FOUND + "Fix it.", [("edit_file", edit)], rule="rerun-failing")
    answer = made[-1][1]["text"]
    assert answer.startswith("In scripts/summary.sh, `akw` is gone. ")
    shown = "\n".join(["```", *map(str, range(1, 20)), "…"])
    assert answer.endswith(f"now runs:\n\n````\n{shown}\n````")


def test_a_run_that_still_fails_or_says_the_error_gets_no_answer(tmp_path: Path) -> None:
    write(tmp_path, {"scripts/summary.sh": SUMMARY, "orders.csv": "a,1\n"})
    # an edit that fixes nothing: the run again, its exit status 127, and no answer
    edit = {"path": "scripts/summary.sh", "old_text": "# Count", "new_text": "# Counts"}
    made, steps = drive(
        tmp_path, NOT_FOUND + "Fix it.", [("edit_file", edit)], rule="rerun-failing"
    )
    assert made == [("run_cmd", {"command": "bash scripts/summary.sh"})]
    assert steps[-1][2].endswith("[exit code 127]")
    # exit 0, but printing the error the prompt quotes: no answer either
    said = "#!/usr/bin/env bash\necho 'scripts/summary.sh: line 4: akw: command not found'\n"
    write(tmp_path, {"scripts/summary.sh": said})
    edit = {
        "path": "scripts/summary.sh",
        "old_text": "#!/usr/bin/env bash",
        "new_text": "#!/bin/bash",
    }
    made, steps = drive(
        tmp_path, NOT_FOUND + "Fix it.", [("edit_file", edit)], rule="rerun-failing"
    )
    assert made == [("run_cmd", {"command": "bash scripts/summary.sh"})]
    assert steps[-1][2].endswith("[exit code 0]")
    # no command said to fail, or a question about the error: nothing before a reply
    write(tmp_path, {"scripts/summary.sh": SUMMARY})
    edit = {"path": "scripts/summary.sh", "old_text": "akw -F,", "new_text": "awk -F,"}
    made, _ = drive(
        tmp_path, "Fix scripts/summary.sh.", [("edit_file", edit)], rule="rerun-failing"
    )
    assert made == []


def test_a_fix_run_again_or_not_made_asks_for_no_run() -> None:
    edit = json.dumps({"name": "edit_file", "arguments": {"path": "report.py"}})
    run = json.dumps({"name": "run_cmd", "arguments": {"command": "python3 report.py"}})
    ran = [
        {"role": "user", "content": CRASHES},
        {"role": "assistant", "content": f"<tool_call>{edit}</tool_call>"},
        {
            "role": "user",
            "content": "<tool_response>\nedited report.py (1 edit applied)\n</tool_response>",
        },
        {"role": "assistant", "content": f"<tool_call>{run}</tool_call>"},
        {"role": "user", "content": "<tool_response>\nexit 0\nlow stock: kettle\n</tool_response>"},
    ]
    assert (nudge("Fixed: it prints the report now.", ran) or Nudge("", "")).rule != "rerun-failing"
    # an edit that changed nothing, or no edit at all, is for the rules about changes
    same = called(
        CRASHES, "edit_file", "report.py", "report.py unchanged (the edits change nothing)"
    )
    assert (nudge("I fixed it.", same) or Nudge("", "")).rule != "rerun-failing"
    # a prompt naming no failing command
    other = called(
        "Fix the typo in report.py.", "edit_file", "report.py", "edited report.py (1 edit applied)"
    )
    assert (nudge("Fixed.", other) or Nudge("", "")).rule != "rerun-failing"


def test_a_line_of_a_file_read_quoted_as_the_answer_is_left_alone() -> None:
    # measured (bench local, the one-tool question): the right answer, then a nudge to
    # read again, twice, until the repeat cap stopped the run
    notes = "".join(f"{i}:0{i}|{i}. the shop opens at 9:00 on day {i}\n" for i in range(1, 9))
    history = [
        {"role": "user", "content": "What does line 7 of notes.txt say? Read it and answer."},
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}'
            "</tool_call>",
        },
        {"role": "user", "content": f"<tool_response>\n{notes}</tool_response>"},
    ]
    assert nudge("The shop opens at 9:00 on day 7.", history) is None


MOT = called(
    "When's the minibus due its MOT?",
    "search_text",
    "",
    'minibus.toml:4:registration = "YK62 BUS"  # bought 2019\n'
    "rota.yaml:43:- name: Brenda Coyle\n"
    "rota.yaml:44:  phone: 01632 960 418",
)


@pytest.mark.parametrize(
    ("reply", "figure"),
    [
        ("The minibus is due its MOT on 2023-04-15.", "2023-04-15"),
        ("It is due on 15 April 2031.", "15 April 2031"),
        ("It's due March 3rd, 2027, at the garage.", "March 3rd, 2027"),
        ("Ring the garage on 01632 960 999.", "01632 960 999"),
        # any figure in digits no result holds, whatever its form
        ("It seats 12 and costs 4.50 a mile.", "12"),
        ("The number of Brenda Coyle is 1. It is found in rota.yaml on line 43.", "1"),
        ("The garage shuts at 10 PM.", "10"),
        ("12.", "12"),  # a figure alone, not a list's mark
        # a date whose year a result shows may be written otherwise than the file writes
        # it; a phone number a result shows, in other groups
        ("It was bought on 1 May 2019.", None),
        ("Brenda's number is 01632 960418.", None),
        ("The files do not say when the MOT is due.", None),
        # figures a result holds, as written or as a value: the registration's 62, the
        # phone number's 418, the year; not the numbers of lines shown, nor a list's
        ("Its registration is YK62 BUS, and it was bought in 2019.0.", None),
        ("Brenda is on line 43 of rota.yaml, and her number ends 418.", None),
        ("1. It was bought in 2019.\n2. The files do not say when the MOT is due.", None),
        ("Lines 43 and 44 of rota.yaml are Brenda's.", None),
        # an example's figures in a code block
        ("The files do not say. To add it:\n```toml\nmot_due = 2027-05-01\n```", None),
    ],
)
def test_a_figure_no_result_holds_is_asked_for_again(reply: str, figure: str | None) -> None:
    said = nudge(reply, MOT)
    if figure is None:
        assert said is None or said.rule != "made-up-figure"
    else:
        assert said is not None
        assert (said.rule, said.tool, said.instead) == ("made-up-figure", "", True)
        assert said.text.startswith(f"No tool result above shows {figure}, so")
        assert said.retract == f"(Nothing I looked at shows {figure}: I made that up.)"


def test_a_figure_given_otherwise_than_the_file_writes_it_is_no_made_up_one() -> None:
    hours = called(
        "What time do we shut on Saturdays?",
        "read_file",
        "shop.toml",
        '1:ab|saturday = "09:00-22:00"\n2:cd|vat = 0.2\n3:ef|keeps five copies',
    )
    for reply in (
        "We shut at 10 PM on Saturdays.",  # 22:00
        "We shut at 22:00, and open at 9 AM.",
        "VAT is 20% there.",  # 0.2
        "VAT is 0.20, and it keeps 5 copies.",
    ):
        said = nudge(reply, hours)
        assert said is None or said.rule != "made-up-figure", reply
    said = nudge("We shut at 11 PM on Saturdays.", hours)
    assert said is not None
    assert said.rule == "made-up-figure"


def test_a_worked_out_or_general_answer_may_give_a_figure_no_result_holds() -> None:
    prices = ("read_file", "fares.py", "1:ab|SINGLE = 6.00\n2:cd|RETURN = 10.00")
    # worked out from the figures shown: a difference, a total, a count
    for prompt, reply in (
        ("How much more is a return than a single?", "A return is 4.00 more."),
        ("What do two singles cost in total?", "Two singles come to 12.00."),
        ("How many fares are there in fares.py?", "There are 2 fares."),
        # how to do something: general knowledge, not the files, may answer it
        ("How do I make the fares print with 3 decimals?", "Use f'{x:.3f}'."),
    ):
        said = nudge(reply, called(prompt, *prices))
        assert said is None or said.rule != "made-up-figure", prompt
    # a figure of a question that is none of those is checked
    said = nudge("A return is 12.00.", called("What does a return cost?", *prices))
    assert said is not None
    assert said.rule == "made-up-figure"


def test_a_made_up_figure_is_asked_for_again_from_the_lines_or_the_output_that_hold_one() -> None:
    # lines the look showed that share words with the question: shown before the ask
    search = called(
        "How long does each page of the counter screen stay up?",
        "search_text",
        "",
        "screen.toml:3:page_seconds = 8  # how long each page of the counter screen stays up",
    )
    said = nudge("Each page stays up for 10 seconds.", search)
    assert said is not None
    assert said.rule == "made-up-figure"
    assert "screen.toml:3:page_seconds = 8" in said.text
    assert said.text.endswith("or say that none of these lines answers it.")
    assert not said.not_given  # the answer may give the line's figure
    # a program that printed, and no such line: its output
    ran = called("What fares will Keith collect? The run sheet works it out.", "run_cmd", "", "")
    ran[-1]["content"] = "<tool_response>\nfares due: 42.00\n[exit code 0]\n</tool_response>"
    said = nudge("Keith collects $10.00.", ran)
    assert said is not None
    assert said.rule == "made-up-figure"
    assert said.text.endswith(
        "Answer from the program's output above, or say that it does not give it."
    )
    # a program that printed nothing, or no figure, is no output to answer from
    ran[-1]["content"] = "<tool_response>\n(no output)\n[exit code 0]\n</tool_response>"
    said = nudge("Keith collects $10.00.", ran)
    assert said is not None
    assert said.text.endswith("say that the files you looked at do not give it.")
    assert said.not_given  # nothing to answer from: bound to saying so
    ran[-1]["content"] = "<tool_response>\nSunday\n[exit code 0]\n</tool_response>"
    said = nudge("Keith collects $10.00.", ran)
    assert said is not None
    assert said.text.endswith("say that the files you looked at do not give it.")


def test_a_made_up_date_is_left_alone_with_nothing_looked_at_or_in_a_change() -> None:
    # nothing looked at: unlooked-answer's to ask for the look
    first = [{"role": "user", "content": "When's the minibus due its MOT?"}]
    said = nudge("The minibus is due its MOT on 2023-04-15.", first)
    assert said is None or said.rule != "made-up-figure"
    # a change may write a date of the user's asking
    change = called("Set the MOT date to the 4th of May.", "read_file", "minibus.toml", "1:ab|x")
    said = nudge("I set it to 2027-05-04.", change)
    assert said is None or said.rule != "made-up-figure"


def _ran(prompt: str, output: str) -> list[dict[str, str]]:
    call = json.dumps({"name": "run_cmd", "arguments": {"command": "node screen/main.js"}})
    return [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"},
        {"role": "user", "content": f"<tool_response>\n{output}\n</tool_response>"},
    ]


def test_an_empty_reply_to_a_program_s_output_is_asked_for_the_answer_from_it() -> None:
    question = "Can you run the timetable screen and tell me when Thursday's bus leaves?"
    printed = "Thursday: Kelbrook hospital visiting\n  13:45  Hollowfield\n[exit code 0]"
    said = nudge("\n\n\n", _ran(question, printed))
    assert said is not None
    assert (said.rule, said.tool) == ("empty-after-result", "")
    assert (
        said.text
        == f"The command ran, and what it printed is above. Answer the user from it: {question}"
    )
    # a command that failed, or printed nothing, or a change asked: go on, as ever
    for history in (
        _ran(question, "Error: Cannot find module\n[exit code 1]"),
        _ran(question, "[exit code 0]"),
        _ran("Run the screen and fix what it prints wrong.", printed),
    ):
        said = nudge("", history)
        assert said is not None
        assert not said.text.startswith("The command ran"), said.text


def test_the_profile_names_every_rule_in_order() -> None:
    assert tuple(r.name for r in RULES) == NUDGE_RULES
    assert set(CASES) == set(NUDGE_RULES)
    for rule in RULES:
        assert rule.__doc__, rule.name  # the failure it answers


@pytest.mark.parametrize("name", NUDGE_RULES)
def test_each_rule_answers_its_failure_and_only_it_does(name: str) -> None:
    reply, history, tool = CASES[name]
    turn = view(reply, history)
    alone = nudge_for(turn, [name])
    assert alone is not None
    assert alone.tool == tool
    assert nudge_for(turn) == alone  # the first of every rule to answer
    # with the rule off, the profile's other rules ask something else, or nothing
    assert nudge_for(turn, [n for n in NUDGE_RULES if n != name]) != alone
    assert nudge_for(turn, ()) is None


def test_a_rule_reads_a_native_history_as_it_reads_one_in_text() -> None:
    from harness.messages.model import ToolCall

    native = (
        ChatMessage(role="user", content="In greet.py, rename the parameter nam to name."),
        ChatMessage(
            role="assistant",
            tool_calls=(ToolCall(id="c1", name="read_file", arguments={"path": "greet.py"}),),
        ),
        ChatMessage(role="tool", content="1:71|def greet(nam):", tool_call_id="c1"),
    )
    turn = turn_of(native, "", TOOLS)
    assert turn.prompt == "In greet.py, rename the parameter nam to name."
    assert [s.name for s in turn.steps] == ["read_file"]
    assert turn.last_seen() == ("greet.py", ["def greet(nam):"])
    said = nudge_for(turn)
    assert said is not None
    assert said.tool == "edit_file"


def test_the_small_model_profile_turns_every_rule_on_and_an_override_none() -> None:
    from harness.actors.model import profile_for

    assert profile_for("local").nudges == NUDGE_RULES
    assert profile_for("openai", "gpt-4o").nudges == ()
    assert profile_for("local", "", {"nudges": ()}).nudges == ()
    with pytest.raises(ValueError, match="unknown nudge rule"):
        profile_for("local", "", {"nudges": ("no-such-rule",)})


def test_results_merged_into_one_message_are_paired_with_their_calls_in_order() -> None:
    # the text protocol merges a reply's results into one user message
    calls = "\n".join(
        f'<tool_call>{{"name": "{n}", "arguments": {{"path": "{p}"}}}}</tool_call>'
        for n, p in (("read_file", "a.py"), ("edit_file", "b.py"))
    )
    history = [
        {"role": "user", "content": "Fix b.py."},
        {"role": "assistant", "content": calls},
        {
            "role": "user",
            "content": "<tool_response>\n1:0a|x = 1\n</tool_response>\n\n"
            "<tool_response>\nedited b.py (1 edit applied)\n</tool_response>",
        },
    ]
    turn = view("", history)
    assert [(s.name, s.path) for s in turn.steps] == [("read_file", "a.py"), ("edit_file", "b.py")]
    assert turn.steps[0].shown_lines == ["x = 1"]
    assert turn.edited
    assert turn.last_seen() == ("a.py", ["x = 1"])
    # an edit its tool refused changed nothing
    refused = [
        *history[:2],
        {**history[2], "content": history[2]["content"].replace("edited", "no")},
    ]
    assert not view("", refused).edited
    # an earlier task's calls are not this one's
    later = view(
        "",
        [
            *history,
            {"role": "assistant", "content": "Done."},
            {"role": "user", "content": "Now c.py."},
        ],
    )
    assert later.steps == ()
    assert later.prompt == "Now c.py."
    assert "Fix b.py." in later.earlier


SETTINGS = ["[app]", 'name = "shop"', "debug = true", "", "[server]", "port = 80", "workers = 2"]


def _read(prompt: str, lines: list[str]) -> list[dict[str, str]]:
    tagged = "\n".join(f"{n}:00|{line}" for n, line in enumerate(lines, 1))
    return called(prompt, "read_file", "app.toml", tagged)


def _starts(bound: str) -> set[str]:
    """The first line of each old text the bound edit's grammar offers."""
    old = next(line for line in bound.splitlines() if line.startswith("old ::= "))
    runs = json.loads("[" + old[len("old ::= ") :].replace(" | ", ", ") + "]")
    return {run.split("\n")[0] for run in runs}


@pytest.mark.parametrize(
    ("prompt", "starts"),
    [
        ("Turn debug off in app.toml.", {"debug = true"}),
        # a cited line, and the one before it
        (
            "Loading app.toml fails with: expected '=' at line 6 column 3. Fix it.",
            {"[server]", "port = 80"},
        ),
        # a word on every line names none, and a request naming no line leaves all
        ("Make the workers in app.toml fewer.", {"workers = 2"}),
        ("Tidy up app.toml.", {line for line in SETTINGS if line}),
    ],
)
def test_an_edit_after_a_read_starts_on_a_line_the_request_names(
    prompt: str, starts: set[str]
) -> None:
    # measured: bound to any run of the file's lines, the 1.5B model took the file's first
    # lines as the old text in five tasks of six, and changed lines nobody named
    bound = Guide().bound("edit_file", view("", _read(prompt, SETTINGS)), TOOLS)
    assert _starts(bound) == starts


SHIPPING = "What does compute_shipping in pricing.py return?"
PRICING = "1:ab|def with_tax(price):\n2:cd|    return price * 1.2"


def absent_nudge(reply: str, history: list[dict[str, str]]) -> Nudge | None:
    """What said-absent-is-there alone asks of *reply* to *history*."""
    return nudge_for(view(reply, history), ["said-absent-is-there"])


def test_an_answer_about_a_name_the_file_read_does_not_hold_is_asked_again() -> None:
    # measured (bench local-tasks, the fresh set's half A): asked what a function of
    # pricing.py returns, which the file does not define, the model read the file and
    # described the function anyway
    read = called(SHIPPING, "read_file", "pricing.py", PRICING)
    said = nudge("The function compute_shipping returns the shipping cost.", read)
    assert said is not None
    assert said.tool == ""
    assert said.text.startswith("pricing.py does not contain compute_shipping.")
    # an answer that says it is not there is the answer
    for right in (
        "There is no compute_shipping in pricing.py.",
        "The function compute_shipping does not exist in pricing.py.",
        "pricing.py defines with_tax only.",  # not about the name at all
    ):
        assert nudge(right, read) is None, right
    # the name in the file read: the answer stands
    there = called(SHIPPING, "read_file", "pricing.py", "1:ab|def compute_shipping(o):")
    assert absent_nudge("compute_shipping returns 5.", there) is None
    # a question that does not say where the name is: it may be in a file not read yet
    caller = called("Which file calls with_tax?", "read_file", "report.py", "1:ab|import os")
    assert absent_nudge("with_tax is called from pricing.py.", caller) is None
    # a request for a change or for something new names what need not exist yet
    for ask in (
        "Rename with_tax to add_tax in pricing.py.",
        "Create compute_shipping in pricing.py.",
        "Write compute_shipping in pricing.py.",
    ):
        history = called(ask, "read_file", "pricing.py", PRICING)
        assert absent_nudge("add_tax and compute_shipping are there now.", history) is None


def test_an_answer_about_a_code_the_file_read_does_not_hold_is_asked_again() -> None:
    # measured (bench local-tasks, a task of half A written after the rules): asked what
    # the SUMMER20 coupon of src/cart.js gives, which the file does not hold, the model
    # read it and answered "The SUMMER20 coupon gives 10% off"
    read = called(
        "How many percent off does the SUMMER20 coupon give in src/cart.js?",
        "read_file",
        "src/cart.js",
        "5:39|const COUPONS = { SPRING10: 10, WELCOME5: 5 };",
    )
    said = absent_nudge("The SUMMER20 coupon gives 10% off in src/cart.js.", read)
    assert said is not None
    assert said.text.startswith("src/cart.js does not contain SUMMER20.")
    assert absent_nudge("src/cart.js has no SUMMER20 coupon.", read) is None
    # a negation of what it does speaks of it as there (measured: after the read the
    # rules wrote, "The function compute_shipping in pricing.py does not return anything.")
    for there_words in ("SUMMER20 does not give anything off.", "SUMMER20 gives None."):
        assert absent_nudge(there_words, read) is not None, there_words
    for gone in ("I couldn't find SUMMER20 there.", "None of the coupons is SUMMER20."):
        assert absent_nudge(gone, read) is None, gone
    # held by the file: the answer stands
    there = called(
        "How many percent off does the SPRING10 coupon give in src/cart.js?",
        "read_file",
        "src/cart.js",
        "5:39|const COUPONS = { SPRING10: 10, WELCOME5: 5 };",
    )
    assert absent_nudge("SPRING10 gives 10% off.", there) is None


def test_an_answer_about_a_file_a_tool_said_does_not_exist_is_asked_again() -> None:
    missing = called(
        "Summarize NOTES.md for me.", "read_file", "NOTES.md", "NOTES.md does not exist"
    )
    said = nudge("NOTES.md lists the changes of each release.", missing)
    assert said is not None
    assert said.text.startswith("NOTES.md does not exist in the workspace.")
    assert nudge("NOTES.md does not exist in this project.", missing) is None
    # a tool that named the file meant: that file is the next step, not an absence
    meant = called(
        "Summarize NOTES.md for me.",
        "read_file",
        "NOTES.md",
        "NOTES.md does not exist; did you mean docs/NOTES.md?",
    )
    assert absent_nudge("NOTES.md lists the changes.", meant) is None


def searched(prompt: str, pattern: str, result: str) -> list[dict[str, str]]:
    """A prompt, the model's search for *pattern*, and the tool's result."""
    call = json.dumps({"name": "search_text", "arguments": {"pattern": pattern}})
    return [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"},
        {"role": "user", "content": f"<tool_response>\n{result}\n</tool_response>"},
    ]


CALLS = "Which file calls the function parse_date? Answer with the file name."
HITS = "dates.py:3:def parse_date(text):\ndates.py:9:    return parse_date(x)\nREADME.md:1:dates"


def test_the_definer_named_for_the_caller_is_asked_for_a_search_of_the_name() -> None:
    # the issue's held-out set: asked which file calls a function, the model searched
    # and named the file defining it
    said = nudge("dates.py", searched(CALLS, "date", HITS))
    assert said is not None
    assert said.tool == "search_text"
    assert said.text.startswith("dates.py is where parse_date is defined, not where it is")
    for ask in ("Where is parse_date called from?", "Which module uses parse_date?"):
        said = nudge("It is called in dates.py.", searched(ask, "date", HITS))
        assert said is not None, ask
        assert said.tool == "search_text", ask
    # the name said first and asked after as "it" (the tenth batch's words)
    ask = "I'm changing what parse_date gives back. What calls it? I don't want to break it."
    said = nudge("It is called in dates.py.", searched(ask, "date", HITS))
    assert said is not None
    assert said.text.startswith("dates.py is where parse_date is defined, not where it is")
    # the search said which files use it: the answer from that, in place of the reply
    noted = "(parse_date is defined at dates.py:3; used in app.py)\n" + HITS
    said = nudge("dates.py", searched(CALLS, "parse_date", noted))
    assert said is not None
    assert said.tool == ""
    assert said.instead
    assert "used in app.py" in said.text
    # a caller named, or a question about the definer: nothing to ask
    assert nudge("app.py", searched(CALLS, "parse_date", noted)) is None
    defines = "Which file defines the function parse_date?"
    assert nudge_for(view("dates.py", searched(defines, "date", HITS)), ["named-definer"]) is None


def test_the_file_a_question_places_a_name_in_given_for_its_user_asks_for_a_search() -> None:
    # measured (bench local-tasks, the sailing club, half A): the model read club.toml
    # and answered that the setting is read "in the [hard] section" of it
    ask = "There's a toe_height setting in club.toml. Which part of the code actually reads it?"
    read = called(ask, "read_file", "club.toml", "1:ab|[hard]\n2:cd|toe_height = 0.4")
    said = nudge("It is read in the `[hard]` section of `club.toml`.", read)
    assert said is not None
    assert said.rule == "named-definer"
    assert said.tool == "search_text"
    assert said.text.startswith("club.toml holds toe_height itself; the question asks what")
    assert 'the pattern "toe_height"' in said.text
    for other in (
        "Which module imports CURRENCY from pricing.py?",
        "What reads CURRENCY in pricing.py?",
        "The CURRENCY in pricing.py: where is CURRENCY read?",
    ):
        hits = "pricing.py:1:CURRENCY = 'EUR'"
        said = nudge("pricing.py", searched(other, "CURRENCY", hits))
        assert said is not None, other
        assert said.tool == "search_text", other
    # a file the answer is asked to be in is no home of the name; a user named is an answer
    inside = "Which helper in scripts/lib.sh calls die?"
    shown = "scripts/lib.sh:4:  die 'no such file'"
    answer = view("It is the helper in scripts/lib.sh.", searched(inside, "die", shown))
    assert nudge_for(answer, ["named-definer"]) is None
    assert nudge_for(view("It is read in sheet.py.", read), ["named-definer"]) is None
    # "which part of the code" asks where: a file no result named is a guess
    guess = nudge("It is read in sheet.py.", read)
    assert guess is not None
    assert guess.rule == "guessed-file"


def test_a_file_named_where_the_callers_were_asked_with_no_search_is_a_guess() -> None:
    for ask in (
        "Where is parse_date called from?",
        "Which script calls parse_date?",
        "Before I touch parse_date: what calls it?",
    ):
        said = nudge("parse_date is called from parse_date.js", [{"role": "user", "content": ask}])
        assert said is not None, ask
        assert said.tool == "search_text", ask


def test_a_rename_left_unfinished_is_asked_for_after_calls_that_changed_nothing() -> None:
    # measured (bench local-tasks, half A): the last edit replaced a line with itself,
    # after the edit before it had named the import still to rename
    prompt = "Rename the function helper to compute in util.py and main.py."
    same = json.dumps({"name": "edit_file", "arguments": {"path": "util.py"}})
    history = [
        *_renamed(prompt),
        {"role": "assistant", "content": f"<tool_call>{same}</tool_call>"},
        {
            "role": "user",
            "content": "<tool_response>\nutil.py unchanged (the edits change nothing)\n"
            "</tool_response>",
        },
    ]
    line = nudge("The rename is done.", history)
    assert line is not None
    assert line.tool == "edit_file"
    assert line.text.startswith("main.py still uses helper")
    # a command run after it may have changed what the note names
    ran = json.dumps({"name": "run_cmd", "arguments": {"command": "sed -i s/helper/x/ main.py"}})
    history[-2:] = [
        {"role": "assistant", "content": f"<tool_call>{ran}</tool_call>"},
        {"role": "user", "content": "<tool_response>\nexit 0\n</tool_response>"},
    ]
    assert nudge_for(view("The rename is done.", history), ["finish-rename"]) is None


def _wrote(prompt: str, path: str, content: str, result: str) -> list[dict[str, str]]:
    """A prompt, the model's write_file of *content* to *path*, and the tool's result."""
    call = json.dumps({"name": "write_file", "arguments": {"path": path, "content": content}})
    return [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"},
        {"role": "user", "content": f"<tool_response>\n{result}\n</tool_response>"},
    ]


TEST_BODY = "import unittest\n\n\nclass T(unittest.TestCase):\n    pass\n"
COPY = (
    "created t.py (9 lines)\nnote: t.py defines its own apply_discount, so its tests check "
    "that copy, not pricing.py's (pricing.py:1); import it instead: from pricing import "
    "apply_discount"
)


def test_a_python_file_left_broken_is_asked_for_the_edit_that_fixes_it() -> None:
    # the model's own write: the edit given whole, the import after the last import
    line = nudge("I created it.", _wrote(CREATE_TEST, "t.py", TEST_BODY, LACKING))
    assert line is not None
    assert line.tool == "edit_file"
    assert line.text.startswith(
        "t.py is not right yet: apply_discount is used in test_pricing.py but not defined or "
        "imported there (pricing.py:1 defines it: from pricing import apply_discount). Fix "
        "it: call edit_file on t.py with exactly this edit."
    )
    assert line.text.endswith(
        "<old_content>\nimport unittest\n</old_content>\n<new_content>\nimport unittest\n"
        "from pricing import apply_discount\n</new_content>\nand nothing else."
    )
    # its own copy of what it tests: the copy, decorators and all, becomes the import
    copied = "import unittest\n\n@cache\ndef apply_discount(p, d):\n    return 60\n\nx = 1\n"
    line = nudge("I created it.", _wrote(CREATE_TEST, "t.py", copied, COPY))
    assert line is not None
    assert line.text.endswith(
        "<old_content>\n@cache\ndef apply_discount(p, d):\n    return 60\n</old_content>\n"
        "<new_content>\nfrom pricing import apply_discount\n</new_content>\nand nothing else."
    )
    # after an edit (the file not known whole): an edit of the lines to fix
    broke = "edited a.py (1 edit applied)\n--- a/a.py\n+++ b/a.py\nnote: a.py does not parse: "
    line = nudge("Done.", called("Fix a.py", "edit_file", "a.py", broke + "line 1: x"))
    assert line is not None
    assert line.tool == "edit_file"
    assert "a.py does not parse: line 1: x. Fix it: call edit_file on a.py, replacing" in line.text
    still = "edited c.json (1 edit applied)\nnote: c.json still does not parse: line 3 column 3"
    line = nudge("The file has been fixed.", called("Fix c.json", "edit_file", "c.json", still))
    assert line is not None
    assert line.tool == "edit_file"
    # a JSON line the note says lacks its comma (or has one too many): that line's edit,
    # copied from the note's tagged line, indentation and all (the recorded run took its
    # indentation off, line after line, and never added the comma)
    lacks = (
        "edited config.json (1 edit applied)\nnote: config.json still does not parse: line "
        "13 column 3: Expecting ',' delimiter (line 12 lacks the comma at its end: "
        '"retries": 7,)\n12:21|      "retries": 7\n13:5c|  "backoff_ms": 250'
    )
    line = nudge("Done.", called("Fix config.json", "edit_file", "config.json", lacks))
    assert line is not None
    assert line.tool == "edit_file"
    assert line.text.endswith(
        'with exactly this edit. Write the <tool_call> block ({"name": "edit_file", '
        '"arguments": {"path": "config.json"}}), then\n<old_content>\n      "retries": 7\n'
        '</old_content>\n<new_content>\n      "retries": 7,\n</new_content>\nand nothing else.'
    )
    trailing = (
        "edited s.json (1 edit applied)\nnote: s.json still does not parse: line 4 column 3: "
        'Expecting value (line 3 ends with a comma that nothing follows: "phones")\n'
        '3:0e|    "phones",\n4:1f|  ]'
    )
    line = nudge("Done.", called("Fix s.json", "edit_file", "s.json", trailing))
    assert line is not None
    assert '<old_content>\n    "phones",\n</old_content>\n<new_content>\n    "phones"\n' in (
        line.text
    )
    # an edit of that file that changed nothing, right before: the same edit given
    unchanged = trailing.replace("edited s.json (1 edit applied)", "s.json unchanged (the edits")
    line = nudge("", called("Fix s.json", "edit_file", "s.json", unchanged))
    assert line is not None
    assert line.rule == "left-broken"
    assert '<old_content>\n    "phones",\n</old_content>' in line.text
    # but not with another call after it, nor for a note that names no line
    later = [*called("Fix s.json", "edit_file", "s.json", unchanged), *READ_GREET[1:]]
    assert nudge_for(view("", later), ["left-broken"]) is None
    vague = unchanged.replace("(line 3 ends with a comma that nothing follows", "(near")
    assert nudge_for(view("", called("Fix", "edit_file", "s.json", vague)), ["left-broken"]) is None
    # the line shown cut short is not the file's: the edit of the lines to fix, in words
    cut = lacks.replace('12:21|      "retries": 7', '12:21|      "retri')
    line = nudge("Done.", called("Fix config.json", "edit_file", "config.json", cut))
    assert line is not None
    assert "replacing the lines to fix" in line.text
    # the fixed file's result has no note; a read after the write leaves the note standing
    fixed = _wrote(CREATE_TEST, "t.py", TEST_BODY, "created t.py (5 lines)")
    assert nudge("I created test_pricing.py.", fixed) is None
    read = _wrote(CREATE_TEST, "t.py", TEST_BODY, LACKING)
    read += called(CREATE_TEST, "read_file", "t.py", "1:ab|import unittest")[1:]
    line = nudge("Done.", read)
    assert line is not None
    assert "<old_content>\nimport unittest\n</old_content>" in line.text
    # a command after it may have changed the file: no longer the note's word
    ran = [*read, *called(CREATE_TEST, "run_cmd", "", "OK")[1:]]
    assert nudge("Done.", ran) is None


def test_an_edit_that_left_the_old_value_asks_for_its_line() -> None:
    line = nudge("The tax rate is now 0.23.", RATE_ELSEWHERE)
    assert line is not None
    assert line.tool == "edit_file"
    assert line.text.startswith(
        "The task asks for 0.2 to become 0.23, but your edit of pricing.py did not change "
        "0.2: line 1 of pricing.py still reads 'TAX_RATE = 0.2'. Make the change there now"
    )
    # the old value turned into the new one by an edit: the change meant, whatever else
    # holds the old value (another 0.2 may be something else)
    swapped = [
        *RATE_ELSEWHERE,
        *edited(RATE, "pricing.py", "TAX_RATE = 0.2", "TAX_RATE = 0.23")[1:],
    ]
    assert nudge("Done.", swapped) is None
    twice = "1:ab|TAX_RATE = 0.2\n2:cd|DISCOUNT = 0.2"
    both = [
        *called(RATE, "read_file", "pricing.py", twice),
        *edited(RATE, "pricing.py", "TAX_RATE = 0.2", "TAX_RATE = 0.23")[1:],
    ]
    assert nudge("Done.", both) is None
    # 0.23, 10.2 and 0.2.1 are not 0.2; a file never shown is not guessed at
    others = "1:ab|TAX_RATE = 0.23\n2:cd|LIMIT = 10.2\n3:ef|VERSION = '0.2.1'\n4:01|rate=TAX_RATE"
    clean = [
        *called(RATE, "read_file", "pricing.py", others),
        *edited(RATE, "pricing.py", "rate=TAX_RATE", "rate=0.23")[1:],
    ]
    assert nudge("Done.", clean) is None
    assert nudge("Done.", edited(RATE, "pricing.py", "rate=TAX_RATE", "rate=0.23")) is None
    # quoted values, and an edit whose old text is not in the file as shown: not followed
    currency = 'Switch the currency from "EUR" to "USD" in shop.toml.'
    toml = "shop.toml"
    quoted = [
        *called(currency, "read_file", toml, '1:ab|currency = "EUR"\n2:cd|symbol = "€"'),
        *edited(currency, toml, 'symbol = "€"', 'symbol = "$"')[1:],
    ]
    line = nudge("Switched.", quoted)
    assert line is not None
    assert "line 1 of shop.toml still reads 'currency = \"EUR\"'" in line.text
    lost = [
        *called(currency, "read_file", toml, '1:ab|currency = "EUR"'),
        *edited(currency, toml, "nowhere", "x")[1:],
    ]
    assert nudge("Switched.", lost) is None
    # plain words are no value: nothing
    words = "Move the meeting from Monday to Friday in notes.py."
    moved = [
        *called(words, "read_file", "notes.py", "1:ab|DAY = 'Monday'"),
        *edited(words, "notes.py", "x", "y")[1:],
    ]
    assert nudge_for(view("Moved.", moved), ["old-value-left"]) is None


def test_a_change_asked_in_listed_files_made_in_one_asks_for_the_next() -> None:
    line = nudge("The tax rate in settings.toml was changed to 0.23.", BOTH_HALF)
    assert line is not None
    assert line.tool == "read_file"  # not seen yet: its read first
    assert line.text.startswith(
        "You changed settings.toml, but the task asks for the change in pricing.py too, and "
        "pricing.py is not changed yet. Read pricing.py first: call read_file on pricing.py."
    )
    read = [*BOTH_HALF, *called(BOTH, "read_file", "pricing.py", "1:ab|TAX_RATE = 0.2")[1:]]
    line = nudge("Done.", read)
    assert line is not None
    assert line.tool == "edit_file"
    assert "Make the change there now: call edit_file on pricing.py." in line.text
    both = [*read, *called(BOTH, "edit_file", "./pricing.py", "edited pricing.py (1 edit)")[1:]]
    assert nudge("Both changed.", both) is None
    # a file named alone is no place of the change; a refused edit changed nothing
    alone = "Change the rate in pricing.py as settings.toml has it."
    assert nudge("Done.", called(alone, "edit_file", "pricing.py", "edited pricing.py")) is None
    refused = called(BOTH, "edit_file", "settings.toml", "the edit: old_text was not found")
    assert nudge_for(view("The tax rate was changed.", refused), ["finish-files"]) is None
    # the second place may be named with a few words before it (measured on a task of half
    # A written after the rules: settings.toml changed, config.json never, and "I changed
    # the port number in settings.toml")
    port = (
        "The web server moves from port 9412 to 9500: change it in settings.toml and in the "
        "stock service's url in config.json."
    )
    line = nudge("I changed the port.", called(port, "edit_file", "settings.toml", EDITED_TOML))
    assert line is not None
    assert "Read config.json first: call read_file on config.json." in line.text
    # or with a note in brackets after each file, which names a key, not a file
    logs = (
        'Set the log level to "debug" in settings.toml (log_level) and in config.json (log.level).'
    )
    line = nudge("Done.", called(logs, "edit_file", "settings.toml", EDITED_TOML))
    assert line is not None
    assert "the task asks for the change in config.json too" in line.text
    # and a file named after other words is still no place ("explain what b.py does")
    other = "Fix the bug in a.py and explain what b.py does."
    assert (
        nudge_for(
            view("Fixed.", called(other, "edit_file", "a.py", "edited a.py (1 edit applied)")),
            ["finish-files"],
        )
        is None
    )


def test_a_change_naming_no_file_with_nothing_found_is_asked_for_the_search() -> None:
    # measured: asked to switch "the mail server port", the 1.5B model wrote the steps
    # for a mail server's own configuration (/etc/postfix) and ended
    prompt = [{"role": "user", "content": "Switch the mail server port to 465."}]
    steps = "To switch the mail server port, edit /etc/postfix/main.cf and restart it."
    # before any reply now, value-wanted searches for the settings giving a number
    first = nudge(steps, prompt)
    assert first is not None
    assert first.rule == "value-wanted"
    others = [name for name in NUDGE_RULES if name != "value-wanted"]
    line = nudge_for(view(steps, prompt), others)
    assert line is not None
    assert line.rule == "nothing-found"
    assert line.tool == "search_text"
    assert line.arguments == {"pattern": "mail server port"}
    # after a look that found nothing (a made-up file), still asked
    missed = called(prompt[0]["content"], "read_file", "config/mail.conf", "does not exist")
    again = nudge("Edit config/mail.conf and set the port to 465.", missed)
    assert again is not None
    assert again.rule == "nothing-found"
    # a file named in the request, or a search that found lines: another rule's business
    named = [{"role": "user", "content": "Switch the mail port in settings.toml to 465."}]
    assert (nudge(steps, named) or Nudge("", "")).rule != "nothing-found"
    hits = called(prompt[0]["content"], "search_text", ".", "settings.toml:32:smtp_port = 587")
    assert (nudge(steps, hits) or Nudge("", "")).rule != "nothing-found"
    # something new to make is nowhere yet
    create = [{"role": "user", "content": "Create a Makefile whose test target runs the tests."}]
    assert (nudge("Here is the Makefile: test: ...", create) or Nudge("", "")).rule != (
        "nothing-found"
    )


def test_an_answer_after_looks_that_found_nothing_is_asked_for_the_search() -> None:
    # measured: "Which port does the back office send its mail through?": a find_files for
    # back_office.conf found none, and the answer was "port 25" (the folder says 587)
    question = "Which port does the back office send its mail through?"
    looked = called(
        question,
        "find_files",
        "src/**/config",
        "(src/**/config does not exist, so the whole workspace was searched)\n"
        "no files match back_office.conf",
    )
    line = nudge("The back office sends its mail through port 25.", looked)
    assert line is not None
    assert line.rule == "nothing-found"
    assert line.arguments == {"pattern": "port back office send mail"}
    # a command the machine lacks found nothing either
    ran = called(question, "run_cmd", ".", "bash: redis-cli: command not found\n[exit code 127]")
    assert (nudge("It uses port 25.", ran) or Nudge("", "")).rule == "nothing-found"
    # a command that ran well is something found: its output is the answer's source
    tests = called("Do the tests pass?", "run_cmd", ".", "7 passed in 0.25s\n[exit code 0]")
    assert (nudge("The tests passed.", tests) or Nudge("", "")).rule != "nothing-found"
    # saying it was not found is an answer; a question with no look may need no file
    assert (nudge("I could not find a mail port anywhere.", looked) or Nudge("", "")).rule != (
        "nothing-found"
    )
    alone = [{"role": "user", "content": "Which port does SMTP submission use?"}]
    assert (nudge("Port 587.", alone) or Nudge("", "")).rule != "nothing-found"


def test_a_question_a_named_script_answers_given_without_running_it_is_asked_for_the_run() -> None:
    # measured (bench local-tasks, the fresh set's third batch, half A): "How many orders
    # were refunded? scripts/summary.sh counts them.": the script read, and the answer
    # described what it does, with no figure
    prompt = "How many orders were refunded? scripts/summary.sh counts them."
    read = called(prompt, "read_file", "scripts/summary.sh", "1:ab|awk -F, '{ n += 1 }'")
    said = nudge("The script counts the orders, the paid ones and the refunded ones.", read)
    assert said is not None
    assert said.rule == "skipped-run"
    assert "scripts/summary.sh" in said.text
    what = [{"role": "user", "content": "What total does `report.py` print?"}]
    said = nudge("It prints the total value of the stock.", what)
    assert said is not None
    assert said.rule == "skipped-run"
    # a module's rule a read answers is no output: measured, asked to run it, the model
    # ran a path of its own making and gave up on the answer it had read
    rule = "Below how many units does inventory.py count an item as low on stock by default?"
    read = called(rule, "read_file", "inventory.py", "7:c2|LOW_STOCK_THRESHOLD = 4")
    assert (nudge("It defines LOW_STOCK_THRESHOLD = 4.", read) or Nudge("", "")).rule != (
        "skipped-run"
    )
    # a change to such a script, or a run made, asks nothing of the kind
    fix = [{"role": "user", "content": "scripts/summary.sh counts refunds twice: fix it."}]
    assert (nudge("Fixed.", fix) or Nudge("", "")).rule != "skipped-run"
    ran = called(prompt, "run_cmd", "", "refunded: 2")
    assert nudge("2 orders were refunded.", ran) is None


def found(prompt: str, result: str) -> list[dict[str, str]]:
    """A prompt, the model's find_files of every file, and the tool's result."""
    call = json.dumps({"name": "find_files", "arguments": {"pattern": "*"}})
    return [
        {"role": "user", "content": prompt},
        {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"},
        {"role": "user", "content": f"<tool_response>\n{result}\n</tool_response>"},
    ]


STATION = "README.md\ndaily.py\nfees.py\ntest_fleet.py\ntools/rides.sh\nweb/main.js\nweb/map.js"


def test_a_question_a_described_program_answers_is_asked_for_its_files_then_its_run() -> None:
    # measured (bench local-tasks, three projects): ten questions a described program
    # answers ("The daily sheet has it.", "Let the summary script count them."), each
    # failed, and in none did a command run
    prompt = "How much did the station take today? The daily sheet has it."
    alone = [{"role": "user", "content": prompt}]
    said = nudge("The station took $120.00 today.", alone)
    assert said is not None
    assert said.rule == "described-program"
    assert (said.tool, said.arguments) == ("find_files", {"pattern": "*"})
    # the files seen: the one script whose name holds the description's words is run
    listed = found(prompt, STATION)
    said = nudge("The station took $120.00 today.", listed)
    assert said is not None
    assert said.rule == "described-program"
    assert (said.tool, said.arguments) == ("run_cmd", {"command": "python3 daily.py"})
    # a folder's word counts, and the request's other words decide between alike scripts
    tools = "tools/lib.sh\ntools/rotate.sh\ntools/water_used.sh\nplan.py"
    water = "How much water have the peppers had? We have a tool that adds it up."
    said = nudge("About 20 litres.", found(water, tools))
    assert said is not None
    assert said.arguments == {"command": "bash tools/water_used.sh"}
    # with no one script most alike, the run is the model's to write
    which = "Which title is borrowed most? There's a script in tools that counts the log."
    said = nudge("Dracula.", found(which, "tools/member.sh\ntools/popular.sh"))
    assert said is not None
    assert (said.rule, said.tool, said.arguments) == ("described-program", "run_cmd", None)
    # a program said to be there for it (the eleventh batch's words): a tool in tools/
    takings = "What did the box office take on the 6th of June, all in? There's a tool for it."
    said = nudge("It took 212.50.", found(takings, "tools/lib.sh\ntools/day.sh\nnightly.py"))
    assert said is not None
    assert said.rule == "described-program"
    # a find_files of a made-up name that matched nothing is no listing of the folder
    none = [
        {"role": "user", "content": takings},
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "find_files", "arguments": '
            '{"pattern": "box_office_06.txt"}}</tool_call>',
        },
        {
            "role": "user",
            "content": "<tool_response>\nno files match box_office_06.txt\n</tool_response>",
        },
    ]
    said = nudge("I found the file.", none)
    assert said is not None
    assert (said.rule, said.tool, said.arguments) == (
        "described-program",
        "find_files",
        {"pattern": "*"},
    )
    bug = [{"role": "user", "content": "There's a bug in the tool for it. Why?"}]
    assert (nudge("It times out.", bug) or Nudge("", "")).rule != "described-program"
    # a name the workspace chose is one word of the command, however it is spelt
    odd = nudge("Dracula.", found(which, "tools/the counts;rm -rf ~.sh\ntools/lib.sh"))
    assert odd is not None
    assert odd.arguments == {"command": "bash 'tools/the counts;rm -rf ~.sh'"}
    # a run made, a script named (skipped-run's), or a change asks nothing of it
    ran = called(prompt, "run_cmd", "", "taken today: 20.00")
    assert nudge("20.00 today.", ran) is None
    named = [{"role": "user", "content": "How many orders? scripts/summary.sh counts them."}]
    assert (nudge("Four.", named) or Nudge("", "")).rule != "described-program"
    flaky = [{"role": "user", "content": "The build tool has a flaky step. Why is that?"}]
    assert (nudge("It times out.", flaky) or Nudge("", "")).rule != "described-program"
    change = [{"role": "user", "content": "The script that lists books should show five."}]
    assert (nudge("Done.", change) or Nudge("", "")).rule != "described-program"


MINIBUS = "README.md\nrunsheet.py\nscreen/main.js\nscreen/timetable.js\nscreen/timetable.json"


def test_a_program_asked_to_be_run_by_what_it_is_is_run_by_its_main_file() -> None:
    # measured (bench local-tasks, the minibus, half A): asked to "run the timetable
    # screen", the model searched, gave times of its own and said it had run a search
    prompt = (
        "Can you run the timetable screen and tell me what time Thursday's hospital bus "
        "gets to Wistow Green?"
    )
    said = nudge("It gets there at 11:20.", [{"role": "user", "content": prompt}])
    assert said is not None
    assert (said.rule, said.tool, said.arguments) == (
        "described-program",
        "find_files",
        {"pattern": "*"},
    )
    # a JavaScript module gives way to its folder's main.js, which runs it (run alone,
    # screen/timetable.js prints nothing): the name alone would pick the module
    said = nudge("It gets there at 11:20.", found(prompt, MINIBUS))
    assert said is not None
    assert said.arguments == {"command": "node screen/main.js"}
    # the same for a program that says it prints the answer (the bike station, half A)
    where = "Where is the nearest station to me? The map script prints it."
    said = nudge("Station 4.", found(where, STATION))
    assert said is not None
    assert said.arguments == {"command": "node web/main.js"}
    # the tests, a command given, or a run of a named script ask nothing of it
    for other in (
        "Run the tests and tell me how many pass.",
        "Run the Python tests with `python3 -m unittest` and tell me how many ran.",
        "Run runsheet.py and tell me the miles.",
    ):
        listed = found(other, MINIBUS)
        assert (nudge("Ten.", listed) or Nudge("", "")).rule != "described-program", other


def test_a_change_claimed_before_any_read_reads_the_file_the_tools_or_prompt_say() -> None:
    # measured (bench local-tasks, the fresh set, half A): told "Len says the pontoon
    # berths are going up to £450", the search listed moorings.yaml's lines; asked to
    # read first with the path left to it, the model read and then wrote a made-up
    # pontoon_berths.txt
    prompt = "Len says the pontoon berths are going up to £450 for the season. Put that in?"
    hits = "moorings.yaml:3:harbour_master: Len Fulcher\nmoorings.yaml:8:pontoon: 420.00"
    searched = called(prompt, "search_text", ".", hits)
    line = nudge("I added the new price to the `pontoon_berths.txt` file.", searched)
    assert line is not None
    assert (line.rule, line.tool) == ("claimed-change", "read_file")
    assert line.arguments == {"path": "moorings.yaml"}
    # a line of prose the search listed first names where the change goes
    prose = called(prompt, "search_text", ".", "README.md:4:Fees are in `fees.toml`.")
    line = nudge("I added the new price to the `pontoon_berths.txt` file.", prose)
    assert (line or Nudge("", "")).arguments == {"path": "fees.toml"}
    # a pasted error names the one file: the announced fix reads it, not a made-up one
    error = (
        '$ bash tools/skipper.sh "Ann Rowe"\n'
        "tools/skipper.sh: line 17: log_okay: command not found\n\nIt worked fine last month."
    )
    told = [{"role": "user", "content": error}]
    reply = "The command `log_okay` is not defined. I will fix it. Here's the corrected script:"
    line = nudge(reply, told)
    assert line is not None
    assert (line.rule, line.tool) == ("announced-action", "read_file")
    assert line.arguments == {"path": "tools/skipper.sh"}
    # a command's script and, whole from the root, the file its error names: two files
    js = (
        "I get this when I run node src/index.js:\n\n/shop/src/format.js:16\n"
        "  return `${amount.toFixed(2} ${SYMBOL}`;\n\nSyntaxError: missing ) after "
        "argument list\n\nCan you fix it?"
    )
    line = nudge(
        "I fixed the syntax error. Here's the corrected code:", [{"role": "user", "content": js}]
    )
    assert line is not None
    assert (line.tool, line.arguments) == ("read_file", None)
    # two files named, or a file asked to be made, leave the path to the model
    two = [{"role": "user", "content": "Fix the bug in a.py; b.py calls it."}]
    line = nudge("I fixed the bug: I changed the return in the function.", two)
    assert (line or Nudge("", "")).arguments is None
    new = [{"role": "user", "content": "Write rows.py, a script that prints the rows."}]
    line = nudge("I will edit the script so it prints the rows.", new)
    assert (line or Nudge("", "")).arguments != {"path": "rows.py"}


def test_a_claimed_change_after_a_search_reads_the_file_the_reply_names_from_it() -> None:
    # measured (bench local-tasks, the fresh set's third batch, half A): a search showed
    # settings.toml:23, the reply said the change belongs in `settings.toml`, and asked to
    # read first, the model read the back_office/settings.json it had made up, four times
    prompt = "We opened a warehouse in Faro. Add it to the back office's settings."
    hits = (
        'settings.toml:23:warehouses = ["lisbon", "porto"]\nREADME.md:1:# Shop back office\n'
        'config.json:4:"warehouse": "lisbon"'
    )
    searched = called(prompt, "search_text", ".", hits)
    reply = "You would need to edit the `settings.toml` file and add Faro to warehouses."
    line = nudge(reply, searched)
    assert line is not None
    assert line.rule == "claimed-change"
    assert line.arguments == {"path": "settings.toml"}
    # a file no result showed, or two named: the file the search found the change in,
    # the first it listed, is read
    other = "You would need to edit back_office/settings.json and add Faro."
    assert (nudge(other, searched) or Nudge("", "")).arguments == {"path": "settings.toml"}
    both = "You would need to edit config.json and settings.toml."
    assert (nudge(both, searched) or Nudge("", "")).arguments == {"path": "settings.toml"}
    # a file of prose is no home for the change: settings.toml is the one named
    prose = nudge("You would need to edit settings.toml and README.md.", searched)
    assert (prose or Nudge("", "")).arguments == {"path": "settings.toml"}


def test_an_error_naming_a_wrong_name_points_at_the_lines_holding_it() -> None:
    from harness.actors.model.local._turn import named_starts

    # measured (bench local-tasks, the fresh set's third batch, half A): bound to the lines
    # of Inventory as well, the edit started on its import and changed nothing
    lines = [
        "from inventory import Inventory, load_demo",
        "",
        "def build_report(inv: Inventory) -> list[str]:",
        "    low = inv.lowstock()",
        "    return low",
    ]
    prompt = (
        "python3 report.py crashes with\n\nAttributeError: 'Inventory' object has no "
        "attribute 'lowstock'. Did you mean: 'low_stock'?\n\nPlease fix."
    )
    assert named_starts(prompt, lines) == [3]
    js = ["const x = require('./a');", "console.log(formatprice(1));"]
    assert named_starts("ReferenceError: formatprice is not defined", js) == [1]
    assert named_starts("TypeError: cart.totl is not a function", ["cart.totl()", "x"]) == [0]
    # a wrong name the file does not hold leaves the request's words to point
    assert named_starts("NameError: name 'totl' is not defined in build_report", lines) == [2]


def test_a_change_not_begun_after_the_look_that_found_its_place_is_asked_for() -> None:
    # measured (the fresh set, half A): the search found the line, the model described it
    prompt = "Our mail goes out through smtp.mailhub.example from now on."
    hits = 'settings.toml:31:smtp_host = "smtp.shop.example"\nconfig.json:16:"url": "x"'
    searched = called(prompt, "search_text", "", hits)
    found = nudge("The mail host is smtp.shop.example, in settings.toml.", searched)
    assert found is not None
    assert (found.rule, found.tool, found.arguments) == (
        "change-not-begun",
        "read_file",
        {"path": "settings.toml"},
    )
    # then, the file it found read and described: the edit
    read = [
        *searched,
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "read_file", "arguments": '
            '{"path": "settings.toml"}}</tool_call>',
        },
        {
            "role": "user",
            "content": '<tool_response>\n31:ab|smtp_host = "smtp.shop.example"\n</tool_response>',
        },
    ]
    edit = nudge("The host is set on line 31.", read)
    assert edit is not None
    assert (edit.rule, edit.tool) == ("change-not-begun", "edit_file")
    # a file no look found and the prompt does not name, an offer, a question, "already",
    # or a question asked by the user: left alone
    other = called(prompt, "read_file", "README.md", "1:ab|# shop")
    assert (nudge("README.md says nothing of mail.", other) or Nudge("", "")).rule != (
        "change-not-begun"
    )
    for reply in (
        "If you want, I can change it to smtp.mailhub.example.",
        "Should I change smtp_host?",
        "It is already smtp.mailhub.example.",
    ):
        assert (nudge(reply, searched) or Nudge("", "")).rule != "change-not-begun", reply
    asked = called("Which host does mail go through?", "search_text", "", hits)
    assert nudge("It goes through smtp.shop.example.", asked) is None


def test_a_request_said_back_is_no_verdict_that_nothing_needs_changing() -> None:
    # measured (the fresh set, half A): the search found the stop, and the model wrote
    # the request back word for word; its "doesn't need" is the user's, not a verdict
    prompt = (
        "The Post Office Stores has closed down, so the van doesn't need to stop there any more."
    )
    hits = 'deliveries.yaml:15:- Post Office Stores\nbakery.toml:9:monday = "closed"'
    searched = called(prompt, "search_text", "", hits)
    found = nudge(prompt, searched)
    assert found is not None
    assert (found.rule, found.arguments) == ("change-not-begun", {"path": "deliveries.yaml"})
    # a verdict in the model's own words still stands
    for reply in ("No change is needed: the van already skips it.", "It is correct as it is."):
        assert (nudge(reply, searched) or Nudge("", "")).rule != "change-not-begun", reply


def test_an_edit_refused_as_unread_is_followed_by_the_read_it_asks_for(tmp_path: Path) -> None:
    # the refusal as the tool writes it, for an edit written from the model's belief
    (tmp_path / "kiosk").mkdir()
    shelves = tmp_path / "kiosk" / "shelves.json"
    shelves.write_text('{"screen": {"high_contrast": false}}\n')
    belief = {"old_text": "high_contrast = false", "new_text": "high_contrast = true"}
    refusal = unread_edit(shelves, "kiosk/shelves.json", belief)
    assert refusal is not None
    prompt = "Put the kiosk screen in high contrast mode."
    call = json.dumps({"name": "edit_file", "arguments": {"path": "kiosk/shelves.json", **belief}})
    history = (
        ChatMessage(role="user", content=prompt),
        ChatMessage(role="assistant", content=f"<tool_call>{call}</tool_call>"),
        ChatMessage(role="user", content=f"<tool_response>\n{refusal}\n</tool_response>"),
    )
    known = known_call(turn_of(history, "", TOOLS))
    assert known is not None
    assert (known.rule, known.tool, known.arguments) == (
        "read-first",
        "read_file",
        {"path": "kiosk/shelves.json"},
    )
    # as the conversation passes the refusal on (conversation/_calls.py), the same
    passed_on = f"<tool_response>\nThe call was not run: {refusal}.\n</tool_response>"
    wrapped = (*history[:2], ChatMessage(role="user", content=passed_on))
    assert known_call(turn_of(wrapped, "", TOOLS)) == known
    # an edit refused for another reason, or no read offered: nothing known
    not_found = "<tool_response>\nthe edit: old_text was not found\n</tool_response>"
    other = (*history[:2], ChatMessage(role="user", content=not_found))
    assert known_call(turn_of(other, "", TOOLS), ["read-first"]) is None
    no_read = [t for t in TOOLS if t.name != "read_file"]
    assert known_call(turn_of(history, "", no_read), ["read-first"]) is None


def test_a_change_said_back_after_a_search_reads_the_line_holding_the_old_value() -> None:
    # measured (bench local-tasks, the sailing club, half A): the search by the request's
    # words listed a board/main.js line for "juniors" first and club.toml's
    # min_helm_age = 14 fourth; the model said the request back, and, asked to answer in
    # its own words, said it back again
    prompt = (
        "The committee voted last night: juniors can helm on their own from twelve now, "
        "not fourteen."
    )
    hits = (
        "README.md:31:Juniors may helm on their own from the age the club sets.\n"
        "board/main.js:13:amber: 'amber flag: reefs in, juniors stay in the creek',\n"
        'board/notices.json:38:"from": "Bar committee"\n'
        "club.toml:15:min_helm_age = 14  # younger juniors sail with an adult aboard\n"
        "club.toml:16:book_ahead_days = 14"
    )
    searched = called(prompt, "search_text", "", hits)
    found = nudge(prompt, searched)
    assert found is not None
    assert (found.rule, found.arguments) == ("change-not-begun", {"path": "club.toml"})
    # "rather than six", "instead of 180", "not 5%": the value there now, as digits
    for said, line in (
        ("Keep a dozen old logs rather than six.", "tools/rotate.sh:4:KEEP=6"),
        ("Bake them at 170 instead of 180.", "oven.py:9:TEMP = 180"),
        ("The WELCOME5 coupon should take 10% off now, not 5%.", "src/cart.js:5:WELCOME5: 5"),
    ):
        other = f'config.json:2:"coupons": ["WELCOME5"], "logs": 1, "oven": 0\n{line}'
        found = nudge("I found it.", called(said + " Change it.", "search_text", "", other))
        assert found is not None, said
        assert found.arguments == {"path": line.split(":")[0]}, said
    # with no value said to be there now, the first file a change may go in
    plain = "Juniors can helm on their own from twelve now."
    found = nudge("I found it.", called(plain, "search_text", "", hits))
    assert found is not None
    assert found.arguments == {"path": "board/main.js"}
    # a question said back is still asked for its answer
    asked = called("Which age may juniors helm from?", "search_text", "", hits)
    again = nudge("Which age may juniors helm from?", asked)
    assert again is not None
    assert again.rule == "echoed-question"


def test_a_change_is_not_asked_for_in_a_file_of_prose() -> None:
    # measured (bench local-tasks, four projects): the search by the request's words
    # listed README.md first; its read, then its edit, were asked for, and the README
    # changed in place of the script it names
    prompt = "The script that lists our most popular books only shows three. Make it five."
    hits = (
        "README.md:12:- `bash tools/popular.sh` lists the most borrowed titles.\n"
        'kiosk/shelves.json:10:{ "code": "C1", "section": "Picture books" },'
    )
    searched = called(prompt, "search_text", "", hits)
    found = nudge("I found the relevant lines.", searched)
    assert found is not None
    assert (found.rule, found.arguments) == ("change-not-begun", {"path": "tools/popular.sh"})
    # a README read is asked for no edit, unless the request is about it
    read = called(prompt, "read_file", "README.md", "1:ab|# Library\n12:cd|- popular.sh")
    assert (nudge("", read) or Nudge("", "")).tool != "edit_file"
    docs = "Make the README say the script shows five."
    read_docs = called(docs, "read_file", "README.md", "1:ab|# Library\n12:cd|- popular.sh")
    assert (nudge("", read_docs) or Nudge("", "")).tool == "edit_file"
    # a .txt file may hold settings: requirements.txt is where a pin goes
    pin = "Pin requests to 2.31."
    read_pins = called(pin, "read_file", "requirements.txt", "1:ab|requests==2.30")
    assert (nudge("", read_pins) or Nudge("", "")).tool == "edit_file"


def test_a_request_for_a_new_file_said_as_a_question_is_no_question_about_the_files() -> None:
    # "Could you put ... in a new test_schedule.py?" reads as a one-line question naming
    # one file; unlooked-answer would ask for the read of a file that is not there yet
    prompt = "Could you put a unittest for litres_for in a new test_schedule.py?"
    assert nudge("Which folder should it go in?", [{"role": "user", "content": prompt}]) is None
    asked = nudge("It is in tools.", [{"role": "user", "content": "Where is litres_for defined?"}])
    assert asked is not None
    assert asked.rule == "unlooked-answer"


SOLD = (
    "What stops the box office selling the same seat to two different people? Which "
    "function does that, and in which file?"
)
SOLD_HITS = (
    "seats.py:2:two wheelchair spaces, and the band each seat is sold in.\n"
    "bookings.py:37:sold: dict[str, int] = field(default_factory=dict)\n"
    "bookings.py:40:return seat not in self.sold"
)


def test_a_function_no_result_showed_is_a_guess_and_asks_for_the_file_it_names() -> None:
    # measured (bench local-tasks, the theatre, half A): searched, saw bookings.py:40, and
    # answered with a `sell` method bookings.py does not have
    history = searched(SOLD, "seat sold", SOLD_HITS)
    guess = "It is done in the `bookings.py` file, in the `sell` method, which checks `sold`."
    said = nudge(guess, history)
    assert said is not None
    assert said.rule == "guessed-file"
    assert (said.tool, said.arguments) == ("read_file", {"path": "bookings.py"})
    assert "sell," in said.text
    # a name a result shows ("sold" in self.sold) is no guess; nor is one the prompt says
    assert nudge("The `sold` check in `bookings.py` does it.", history) is None
    # read, and answered from it: a word of the language in backticks is no name guessed
    body = "1:ab|class BoxOffice:\n2:cd|    def is_free(self, seat):\n3:ef|        return x"
    answered = [*history, *called(SOLD, "read_file", "bookings.py", body)[1:]]
    said = nudge("`is_free` in `BoxOffice` returns `True` or `False`.", answered)
    assert said is not None
    assert said.rule == "file-not-given"  # no guess; but "in which file?" is unanswered
    assert nudge("`is_free` in `BoxOffice`, bookings.py, returns `True`.", answered) is None
    # the file read already, or two files named: a search
    read = [*history, *called(SOLD, "read_file", "bookings.py", "1:ab|class BoxOffice:")[1:]]
    again = nudge(guess, read)
    assert again is not None
    assert (again.rule, again.tool) == ("guessed-file", "search_text")
    # a question of a file, not a function, asks nothing of the names
    where = searched("Which file sells the seats?", "seat sold", SOLD_HITS)
    assert nudge(guess, where) is None


def test_a_data_file_that_does_not_parse_is_asked_for_not_the_program_reading_it() -> None:
    # nothing of that kind named: the files of that kind found, the call written whole
    line = nudge("I fixed main.js.", called(FOYER, "read_file", "foyer/main.js", "9:ab|x"))
    assert line is not None
    assert (line.tool, line.arguments) == ("find_files", {"pattern": "*.json"})
    assert line.text.startswith(
        "The error says a JSON file does not parse; the program reading it is fine. Find "
        "the JSON files: call find_files."
    )
    # one found (a bare name and a longer path to it are one): its read
    found = called(FOYER, "read_file", "foyer/main.js", "9:ab|readFileSync('screen.json')")
    found += [
        {"role": "assistant", "content": '<tool_call>{"name": "find_files"}</tool_call>'},
        {"role": "user", "content": "<tool_response>\nfoyer/screen.json\n</tool_response>"},
    ]
    line = nudge("Done.", found)
    assert line is not None
    assert (line.tool, line.arguments) == ("read_file", {"path": "foyer/screen.json"})
    # the file named in the prompt, before any call; TOML and YAML alike
    toml = "Loading settings.toml fails with:\n\ntomllib.TOMLDecodeError: Invalid value"
    line = nudge("It is fixed.", [{"role": "user", "content": toml}])
    assert line is not None
    assert line.arguments == {"path": "settings.toml"}
    assert "a TOML file does not parse" in line.text
    yaml = "python3 rota.py dies:\nyaml.scanner.ScannerError: mapping values are not allowed"
    line = nudge("It is fixed.", [{"role": "user", "content": yaml}])
    assert line is not None
    assert line.arguments == {"pattern": "*.y*ml"}  # .yaml and .yml
    # a file of that kind read or changed, a search already made, two files named, or
    # no parse error: not this rule's to ask
    read = called(FOYER, "read_file", "foyer/screen.json", "1:ab|{")
    assert nudge_for(view("Done.", read), ["broken-data"]) is None
    # a read of a made-up path is no look: the file its answer names is asked for
    missed = "screen.json does not exist; did you mean foyer/screen.json?"
    line = nudge("Done.", called(FOYER, "read_file", "screen.json", missed))
    assert line is not None
    assert line.arguments == {"path": "foyer/screen.json"}
    searched = [
        *called(FOYER, "read_file", "foyer/main.js", "9:ab|x"),
        {"role": "assistant", "content": '<tool_call>{"name": "find_files"}</tool_call>'},
        {"role": "user", "content": "<tool_response>\nno files match *.json\n</tool_response>"},
    ]
    assert nudge_for(view("Done.", searched), ["broken-data"]) is None
    two = [{"role": "user", "content": toml.replace("settings.toml", "a.toml and b.toml")}]
    assert nudge_for(view("Done.", two), ["broken-data"]) is None
    assert nudge_for(view("Done.", ASK), ["broken-data"]) is None


def test_the_names_an_error_says_are_wrong() -> None:
    said = {
        "Error: unknown coupon SPRNG10": ["SPRNG10"],
        "tools/sales.sh: line 13: SALE_LOG: unbound variable": ["SALE_LOG"],
        "tools/skipper.sh: line 17: log_okay: command not found": ["log_okay"],
        "NameError: name 'totl' is not defined": ["totl"],
        "TypeError: formatprice is not a function": ["formatprice"],
        "ValueError: unknown kind 'audio book'": [],
        "The unknown coupon is the problem, I think": [],
    }
    for error, names in said.items():
        assert culprits(f"`make` fails with:\n\n{error}\n\nFix it.") == names, error
    # an error quoted in a sentence: the name is read where the message ends
    inline = {
        "It dies with `Error: unknown coupon SPRNG10` when I run it. Fix please.": ["SPRNG10"],
        "Fix it please, it says line 12: akw: command not found.": ["akw"],
        "It gives me tools/sales.sh: line 13: SALE_LOG: unbound variable. Fix it.": ["SALE_LOG"],
        "It says ValueError: unknown kind 'audio book' for the new DVDs.": [],
        "An unknown coupon SPRING is no error of ours, it's the customer's.": [],
        # in quotes, or the shell's errors said in words
        "build.sh keeps failing with 'OUTDIR: unbound variable' on line 10.": ["OUTDIR"],
        "Our order throws 'unknown coupon SPRNG10' - a typo? Correct it.": ["SPRNG10"],
        "There's a typo on line 12, it calls akw (command not found). Fix it.": ["akw"],
        "skipper.sh calls log_okay on line 17 but there's no such command.": ["log_okay"],
        "The script calls awk on line 12 and prints the total.": [],
        "It uses the coupon code, which is not found in the list.": [],
    }
    for prompt, names in inline.items():
        assert culprits(prompt) == names, prompt


def test_a_name_an_error_says_is_wrong_is_searched_for_before_an_edit() -> None:
    # measured (bench local-tasks, half A): told "unknown coupon SPRNG10", the model read
    # src/index.js and wrote the line as it was, three times; the code has SPRING10
    shown = "1:2a|applyCoupon(cart, 'SPRNG10');"
    read = called(COUPON, "read_file", "src/index.js", shown)
    for reply in ("", "The coupon needs to be defined."):
        line = nudge(reply, read)
        assert line is not None
        assert (line.rule, line.tool) == ("name-in-error", "search_text")
        assert line.arguments == {"pattern": "SPRNG10"}
    # after an edit that changed nothing, too
    same = json.dumps(
        {
            "name": "edit_file",
            "arguments": {"path": "src/index.js", "old_text": "'SPRNG10'", "new_text": "'SPRNG10'"},
        }
    )
    unchanged = "src/index.js unchanged (the edits change nothing: new_text is the lines as ..."
    edited_nothing = [
        *read,
        {"role": "assistant", "content": f"<tool_call>{same}</tool_call>"},
        {"role": "user", "content": f"<tool_response>\n{unchanged}\n</tool_response>"},
    ]
    line = nudge("I changed the coupon.", edited_nothing)
    assert line is not None
    assert line.arguments == {"pattern": "SPRNG10"}
    # not once the search ran, a file changed, or the reply asks; not with no error named
    search = json.dumps({"name": "search_text", "arguments": {"pattern": "SPRNG10"}})
    searched = [
        *read,
        {"role": "assistant", "content": f"<tool_call>{search}</tool_call>"},
        {"role": "user", "content": "<tool_response>\nsrc/index.js:1:x\n</tool_response>"},
        *called(COUPON, "read_file", "src/index.js", shown)[1:],
    ]
    line = nudge("", searched)
    assert line is None or line.rule != "name-in-error"
    fixed = [
        *read[:1],
        *called("", "edit_file", "src/index.js", "edited src/index.js (1 edit applied)")[1:],
    ]
    line = nudge("Fixed.", fixed)
    assert line is None or line.rule != "name-in-error"
    line = nudge("Is SPRNG10 a coupon you meant to add?", read)
    assert line is None or line.rule != "name-in-error"
    plain = called("Fix the bug in src/index.js.", "read_file", "src/index.js", shown)
    line = nudge("", plain)
    assert line is None or line.rule != "name-in-error"


def test_an_error_saying_which_name_was_meant_is_searched_before_any_reply(
    tmp_path: Path,
) -> None:
    # measured (bench local-tasks, half A): told "name 'FLOW_LITERS_PER_MINUTE' is not
    # defined. Did you mean: 'FLOW_LITRES_PER_MINUTE'?", the model said how to define it,
    # read plan.py and rewrote it whole
    line = known_call(view("", [{"role": "user", "content": CRASHES}]))
    assert line is not None
    assert (line.rule, line.tool, line.arguments) == (
        "name-in-error",
        "search_text",
        {"pattern": "lowstock"},
    )
    # the search, then the edit of the one line using it, run with the real tools
    write(
        tmp_path,
        {
            "schedule.py": (
                "import math\n\nFLOW_LITRES_PER_MINUTE = 6.0\n\n\n"
                "def valve_minutes(litres):\n"
                "    return math.ceil(litres / FLOW_LITERS_PER_MINUTE)\n"
            ),
            "plan.py": "from schedule import valve_minutes\n\nprint(valve_minutes(30))\n",
        },
    )
    crash = (
        'Got this:\n\nTraceback (most recent call last):\n  File "/home/sam/plan.py", line 3\n'
        "NameError: name 'FLOW_LITERS_PER_MINUTE' is not defined. Did you mean: "
        "'FLOW_LITRES_PER_MINUTE'?\n\nfix please"
    )
    made, _ = drive(tmp_path, crash, rule="name-in-error")
    assert [name for name, _ in made] == ["search_text", "edit_file"]
    assert "litres / FLOW_LITRES_PER_MINUTE" in (tmp_path / "schedule.py").read_text()
    # no edit tool, or a question about the error: nothing before a reply
    assert known_call(view("", [{"role": "user", "content": CRASHES}]), ()) is None
    asked = "What does NameError: name 'lowstock' is not defined mean?"
    line = known_call(view("", [{"role": "user", "content": asked}]))
    assert line is None or line.rule != "name-in-error"


@pytest.mark.parametrize("rg", [True, False], ids=["ripgrep", "python"])
def test_an_error_naming_a_wrong_name_is_searched_and_each_line_respelt(
    tmp_path: Path, rg: bool
) -> None:
    # measured (bench local-tasks, half A): told "name 'totl' is not defined" or "OUTDIR:
    # unbound variable", with no name said to be meant, the model read the file and wrote
    # long edits of its own (one not in the file, one rewriting the script), in 450 and
    # 226 s; the search names the one name spelled like it before any reply
    write(
        tmp_path,
        {
            "pricing.py": "def round_money(amount):\n    return round(amount, 2)\n",
            "report.py": (
                "from pricing import round_mony\n\n"
                "total = round_mony(1.234)\nprint(f'total: {total}')\n"
            ),
            "notes.md": "round_money rounds to cents.\n",
        },
    )
    crash = (
        "`python3 report.py` fails with:\n\n"
        "ImportError: cannot import name 'round_mony' from 'pricing'\n\nFix it."
    )
    made, _ = drive(tmp_path, crash, rule=("name-in-error", "rerun-failing"), rg=rg)
    assert [name for name, _ in made] == ["search_text", "edit_file", "run_cmd", "answer"]
    assert made[0][1] == {"pattern": "round_mony"}
    # one edit, each line holding the name written as the workspace has it
    assert len(made[1][1]["edits"]) == 2  # type: ignore[arg-type]
    # the command run again, and the answer: what changed, and what the command printed
    assert made[2][1] == {"command": "python3 report.py"}
    assert made[3][1]["text"] == (
        "In report.py, `from pricing import round_mony` is now `from pricing import "
        "round_money`; `total = round_mony(1.234)` is now `total = round_money(1.234)`. "
        "`python3 report.py` now runs:\n\n```\ntotal: 1.23\n```"
    )
    ran = subprocess.run(
        [sys.executable, "report.py"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert (ran.returncode, ran.stdout) == (0, "total: 1.23\n")
    assert (tmp_path / "pricing.py").read_text().startswith("def round_money(amount):")
    assert (tmp_path / "notes.md").read_text() == "round_money rounds to cents.\n"
    # a name held in two files is no one misspelling to write in: the search, no edit
    (tmp_path / "other.py").write_text("from pricing import round_mony\n")
    (tmp_path / "report.py").write_text("from pricing import round_mony\n")
    made, _ = drive(tmp_path, crash, rule="name-in-error", rg=rg)
    assert [name for name, _ in made] == ["search_text"]


def test_a_name_the_error_or_the_search_says_was_meant_is_written_in() -> None:
    # measured (bench local-tasks, half A): told "Did you mean: 'low_stock'?", the model
    # read report.py and, shown low_stock spelled like lowstock, renamed the variable low
    crash = "python3 report.py crashes with\n\n" + CRASHES.split("\n\n", 1)[1]
    read = called(crash, "read_file", "report.py", "15:0c|\n16:9e|    low = inv.lowstock()")
    line = nudge("The attribute is missing.", read)
    assert line is not None
    assert (line.rule, line.tool) == ("name-in-error", "edit_file")
    assert line.arguments == {
        "path": "report.py",
        "old_text": "    low = inv.lowstock()",
        "new_text": "    low = inv.low_stock()",
    }
    assert known_call(view("", read)) is None  # that one needed the model's reply
    # a search whose note names one name spelled like it, on lines of one file: the edit
    # is known before any reply, and no reply is asked for
    found = "src/index.js:19:  applyCoupon(cart, 'SPRNG10');\n"
    note = "(spelled like SPRNG10: SPRING10 at src/cart.js:5)"
    line = known_call(view("", searched(COUPON, "SPRNG10", found + note)))
    assert line is not None
    assert (line.rule, line.tool) == ("name-in-error", "edit_file")
    assert line.arguments == {
        "path": "src/index.js",
        "old_text": "  applyCoupon(cart, 'SPRNG10');",
        "new_text": "  applyCoupon(cart, 'SPRING10');",
    }
    assert known_call(view("", searched(COUPON, "SPRNG10", found + note)), ()) is None
    # a shell variable's name after its $
    sales = "$ bash tools/sales.sh\ntools/sales.sh: line 13: SALE_LOG: unbound variable\n"
    result = (
        'tools/sales.sh:13:LOG="${1:-$SALE_LOG}"\n(spelled like SALE_LOG: SALES_LOG at lib.sh:5)'
    )
    line = known_call(view("", searched(sales, "SALE_LOG", result)))
    assert line is not None
    assert line.arguments == {
        "path": "tools/sales.sh",
        "old_text": 'LOG="${1:-$SALE_LOG}"',
        "new_text": 'LOG="${1:-$SALES_LOG}"',
    }
    # a program the script runs, misspelt: the one program on PATH spelled like it
    summary = "bash scripts/summary.sh says\n\nscripts/summary.sh: line 12: akw: command not found"
    ran = "scripts/summary.sh:12:akw -F, '\n(spelled like akw: awk, a program on PATH)"
    line = known_call(view("", searched(summary, "akw", ran)))
    assert line is not None
    assert line.arguments == {
        "path": "scripts/summary.sh",
        "old_text": "akw -F, '",
        "new_text": "awk -F, '",
    }
    two = ran.replace("awk, a program", "awk, gawk, programs")
    assert known_call(view("", searched(summary, "akw", two))) is None
    # not with two names spelled like it, none, the name on lines of two files, a search
    # for another name, or a prompt that quotes no such error
    for prompt, pattern, result in (
        (COUPON, "SPRNG10", found + note.replace(")", "; SPRNG11 at a.js:1)")),
        (COUPON, "SPRNG10", found),
        (COUPON, "SPRNG10", found + "src/other.js:3:SPRNG10\n" + note),
        (COUPON, "applyCoupon", found + note),
        ("Fix the coupon in src/index.js.", "SPRNG10", found + note),
    ):
        assert known_call(view("", searched(prompt, pattern, result))) is None


@pytest.mark.parametrize(
    ("prompt", "path"),
    [
        ("What port does the web server listen on, according to settings.toml?", "settings.toml"),
        ("What does line 7 of notes.txt say? Read it and answer.", "notes.txt"),
        ("Below how many units does stock.py call an item low?", "stock.py"),
        ("Which function in stock.py uses LOW_STOCK?", "stock.py"),
        ("Summarize CHANGES.md", "CHANGES.md"),
        ("Please explain what tools/backup.sh does.", "tools/backup.sh"),
        ("Our club is busy. What does moorings.yaml say a mooring costs?", "moorings.yaml"),
    ],
)
def test_a_question_about_one_file_it_names_has_it_read_before_any_reply(
    tmp_path: Path, prompt: str, path: str
) -> None:
    write(tmp_path, {path: "1. the shop opens at 9:00\n"})
    made, steps = drive(tmp_path, prompt, rule="read-named")
    assert made == [("read_file", {"path": path})]
    assert "the shop opens at 9:00" in steps[0][2]


@pytest.mark.parametrize(
    "prompt",
    [
        # the answer is outside the file: other files, callers, where
        "Which module imports RATE from pricing.py?",
        "Besides pricing.py, which files use round_money?",
        "There's a toe_height setting in club.toml. Which part of the code reads it?",
        "Where in pricing.py is RATE defined?",
        # a file pointed at in a sentence of its own, a command to run
        "How many boats are out today? tools/boats.sh works it out.",
        "Run `python3 report.py` and tell me the total.",
        "What does report.py print?",
        # a request, not a question; two files; no file; a question of several lines
        "Change the port in settings.toml to 8081.",
        "Write notes.md with a line for each day.",
        "Which of config.json and settings.toml sets the port?",
        "What is 12 times 12?",
        "What does this do?\n\nneed_file() { [ -f $1 ]; }",
    ],
)
def test_a_question_answered_elsewhere_or_a_request_has_nothing_read_first(prompt: str) -> None:
    known = known_call(view("", [{"role": "user", "content": prompt}]))
    assert known is None or known.rule != "read-named", known


def test_a_file_is_read_first_only_on_the_first_turn_with_read_offered() -> None:
    asked = {"role": "user", "content": "Which timezone does settings.toml set?"}
    assert known_call(view("", [asked])) is not None
    earlier = [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi."}]
    assert known_call(view("", [*earlier, asked]), ["read-named"]) is None
    no_read = [t for t in TOOLS if t.name != "read_file"]
    assert known_call(view("", [asked], no_read), ["read-named"]) is None


def test_a_request_for_a_change_in_one_file_has_it_read_then_the_edit_asked_at_once(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"calc.py": "def add(a, b):\n    return a - b\n"})
    prompt = "In calc.py, make add return a + b."
    read = known_call(view("", [{"role": "user", "content": prompt}]))
    assert read is not None
    assert (read.rule, read.tool, read.arguments) == (
        "read-to-change",
        "read_file",
        {"path": "calc.py"},
    )
    result = read_file(Workspace(tmp_path), {"path": "calc.py"}).output
    assert "return a - b" in result
    after = [{"role": "user", "content": prompt}, *_call_and_result("read_file", "calc.py", result)]
    edit = known_call(view("", after))
    assert edit is not None
    # the edit's kind is known, not its text: asked in place of a reply, bound
    assert (edit.rule, edit.tool, edit.arguments, edit.instead) == (
        "read-to-change",
        "edit_file",
        None,
        True,
    )
    assert "call edit_file on calc.py" in edit.text
    # a read that failed, or a second look, is the model's to go on from
    missing = [
        {"role": "user", "content": prompt},
        *_call_and_result("read_file", "calc.py", "calc.py does not exist"),
    ]
    assert known_call(view("", missing), ["read-to-change"]) is None


def test_a_host_or_an_attribute_is_no_file_to_read() -> None:
    # measured (bench local-tasks, the eighth wording set): told to point the mail at
    # smtp.mailhub.example rather than smtp.shop.example, the rules read "smtp.shop"
    host = (
        "Could you point our outgoing mail at smtp.mailhub.example rather than smtp.shop.example?"
    )
    assert known_call(view("", [{"role": "user", "content": host}]), ["read-to-change"]) is None
    named = "Point the mail in settings.toml at smtp.mailhub.example, not smtp.shop.example."
    read = known_call(view("", [{"role": "user", "content": named}]), ["read-to-change"])
    assert read is not None
    assert read.arguments == {"path": "settings.toml"}
    assert [m.group(1) for m in FILE_NAME.finditer("see self.bikes.items() in fleet.py.")] == [
        "fleet.py"
    ]


def test_a_one_line_request_quoting_an_error_is_left_to_the_rules_of_an_error() -> None:
    # "it says line 12: akw: command not found": the name the error says is wrong is
    # searched for (name-in-error), not the file the request names read and left to the
    # model (read-to-change had read scripts/summary.sh and handed the edit over)
    prompt = "Fix scripts/summary.sh please, it says line 12: akw: command not found."
    known = known_call(view("", [{"role": "user", "content": prompt}]))
    assert known is not None
    assert (known.rule, known.tool, known.arguments) == (
        "name-in-error",
        "search_text",
        {"pattern": "akw"},
    )


def _call_and_result(tool: str, path: str, result: str) -> list[dict[str, str]]:
    call = json.dumps({"name": tool, "arguments": {"path": path}})
    return [
        {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"},
        {"role": "user", "content": f"<tool_response>\n{result}\n</tool_response>"},
    ]


@pytest.mark.parametrize(
    "prompt",
    [
        # a file to write (it is new), two files, none
        "Write test_calc.py with a unittest test of add.",
        "Make add in calc.py and mul in ops.py return ints.",
        "Make add return a + b.",
        # a pasted error: the file it runs through is read by the rules of an error
        "`python3 calc.py` fails with:\n\nNameError: name 'totl' is not defined\n\nFix it.",
        # a question, not a request
        "Why does add in calc.py return a - b?",
    ],
)
def test_a_request_of_another_kind_has_no_read_to_change(prompt: str) -> None:
    known = known_call(view("", [{"role": "user", "content": prompt}]))
    assert known is None or known.rule != "read-to-change", known


def test_a_change_the_rules_know_goes_first_and_the_read_only_on_a_first_turn() -> None:
    # new-value knows the line to search for: its search, not the read
    raise_it = "In settings.toml, raise the deposit from 50 to 60."
    known = known_call(view("", [{"role": "user", "content": raise_it}]))
    assert known is not None
    assert (known.rule, known.tool) == ("new-value", "search_text")
    asked = {"role": "user", "content": "In calc.py, make add return a + b."}
    earlier = [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi."}]
    assert known_call(view("", [*earlier, asked]), ["read-to-change"]) is None
    no_edit = [t for t in TOOLS if t.name != "edit_file"]
    assert known_call(view("", [asked], no_edit), ["read-to-change"]) is None


def _asked_after_write(root: Path, prompt: str, path: str, body: str, reply: str) -> Nudge:
    """What the rules ask of *reply* after the real write tool wrote *body* as *path* in
    *root* for *prompt*: the fix of what the write's note says it left broken."""
    result = write_file(Workspace(root), {"path": path, "content": body}).output
    said = nudge(reply, _wrote(prompt, path, body, result))
    assert said is not None
    assert (said.rule, said.tool) == ("left-broken", "edit_file")
    return said


def test_an_import_from_a_module_that_is_nowhere_is_asked_to_be_fixed(tmp_path: Path) -> None:
    # the note the real write tool gives (measured: bench local-tasks, half A's day pass)
    (tmp_path / "fees.py").write_text("def day_pass(kind):\n    return 36\n")
    body = "import unittest\nfrom project.electric_bike import calculate_day_pass_cost\n"
    prompt = "Write test_fees.py with a unittest test that an electric bike's day pass costs 36."
    said = _asked_after_write(tmp_path, prompt, "test_fees.py", body, "I wrote the test.")
    assert "imports project.electric_bike, which is no module of this workspace" in said.text
    assert "(the workspace's modules: fees)" in said.text


def test_an_import_from_nowhere_is_swapped_for_the_one_the_name_needs(tmp_path: Path) -> None:
    # measured (bench local-tasks, half A): asked for the import litres_for lacks, the
    # model added it and left "from lettuce import lettuce_for", which cannot load
    (tmp_path / "schedule.py").write_text("def litres_for(crop, area, moisture):\n    return 6\n")
    body = (
        "import unittest\nfrom lettuce import lettuce_for\n\n\nclass T(unittest.TestCase):\n"
        "    def test_it(self):\n        self.assertEqual(litres_for('lettuce', 2, 0), 6)\n"
    )
    prompt = "Could you put a unittest for litres_for in a new test_schedule.py?"
    said = _asked_after_write(tmp_path, prompt, "test_schedule.py", body, "I wrote it.")
    edit = "<old_content>\nfrom lettuce import lettuce_for\n</old_content>\n"
    assert edit + "<new_content>\nfrom schedule import litres_for\n</new_content>" in said.text
    # the edit made, the test runs and passes
    fixed = {
        "old_text": "from lettuce import lettuce_for",
        "new_text": "from schedule import litres_for",
    }
    out = edit_file(Workspace(tmp_path), {"path": "test_schedule.py", **fixed}).output
    assert "note:" not in out
    ran = subprocess.run(
        [sys.executable, "-m", "unittest", "-q", "test_schedule"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr


def test_a_search_result_written_as_the_new_file_is_asked_to_be_fixed(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("- `python3 report.py` prints the stock report.\n")
    body = "README.md:1:- `python3 report.py` prints the stock report.\n"
    prompt = "Write RUNNING.md for newcomers: how to print the stock report, one command."
    said = _asked_after_write(tmp_path, prompt, "RUNNING.md", body, "I wrote RUNNING.md.")
    assert "holds a line of a search's result as it was printed" in said.text
