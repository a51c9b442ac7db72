"""Tool calls the embedded model cannot get wrong: the lazy grammar of the tool table, and
the end of generation at the end of a call.

What the grammar accepts and refuses is fed token by token to the tiny model's sampler
(``_tiny.py``: the default model's tokenizer); what a model writes under it runs the real
default model."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from harness.actors.model import parse_reply, text_protocol_prompt
from harness.actors.model.local import ModelLoadError
from harness.actors.model.local._engine import LoadedModel, _call_closed
from harness.actors.model.local._grammar import edit_call_grammar, tool_call_grammar
from harness.messages.model import ToolSchema

READ = ToolSchema(
    "read_file",
    "Read a text file.",
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "start_line": {"type": "integer"},
            "encoding": {"type": "string"},
        },
        "required": ["path"],
    },
)
WRITE = ToolSchema(
    "write_file",
    "Write a whole file.",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)
STATUS = ToolSchema("git_status", "Show the git status.", {"type": "object", "properties": {}})
TOOLS = (READ, WRITE, STATUS)


def test_the_grammar_names_each_tool_and_only_its_parameters() -> None:
    g = tool_call_grammar(TOOLS)
    for name in ("read_file", "write_file", "git_status"):
        assert f'"\\"{name}\\""' in g
    assert '"\\"path\\""' in g
    assert '"\\"encoding\\""' in g  # an optional string stays
    assert "start_line" not in g  # an optional number is left to its default
    assert '"<content>"' in g  # a body goes in its tag, not in the JSON
    assert '"\\"content\\""' not in g
    root = next(line for line in g.splitlines() if line.startswith("root ::="))
    # a tagged call, a fenced one, or a bare object: the three ways these models call
    assert root.startswith('root ::= "<tool_call>" space call')
    assert '| "```" ("json" | "tool_call")? "\\n" space call space "```"' in root
    assert root.endswith(" | call")
    assert tool_call_grammar(()) == ""


@pytest.mark.parametrize(
    ("text", "closed"),
    [
        ('<tool_call>{"name": "x", "arguments": {}}</tool_call>', True),
        ('<tool_call>{"name": "x", "arguments": {}}', False),
        ('```json\n{"name": "x", "arguments": {}}\n```', True),
        ("```python\nprint(1)\n```", False),
        ("plain words", False),
    ],
)
def test_a_reply_ends_where_a_call_closes(text: str, closed: bool) -> None:
    assert _call_closed(text, 3) is closed


SYSTEM = (
    "You are a coding assistant working in a project folder. You cannot see any file "
    "until you read it with a tool.\n\n" + text_protocol_prompt(TOOLS)
)


def _reply(
    model: LoadedModel, ask: list[dict[str, str]], grammar: str, max_tokens: int, lazy: bool = True
) -> tuple[str, str]:
    """``(text, finish reason)`` of a greedy reply to *ask* under *grammar*."""
    pieces: list[str] = []
    result = model.generate(
        ask,
        pieces.append,
        threading.Event(),
        max_tokens=max_tokens,
        temperature=0.0,
        grammar=grammar,
        lazy=lazy,
    )
    return "".join(pieces), result.finish_reason


@pytest.mark.slow
def test_a_constrained_call_names_a_real_tool_and_ends_the_turn(
    loaded_model: LoadedModel,
) -> None:
    ask = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Read the file notes.txt and tell me what it says."},
    ]
    text, finish = _reply(loaded_model, ask, tool_call_grammar(TOOLS), 150)
    assert "<tool_response>" not in text  # never a made-up result
    parsed = parse_reply(text, {t.name: tuple(t.parameters["properties"]) for t in TOOLS})
    assert finish == "stop", text
    assert len(parsed.calls) == 1, text
    call = parsed.calls[0]
    assert call.name == "read_file"
    assert call.parse_error is None
    assert call.arguments == {"path": "notes.txt"}
    # nothing after the call: no made-up tool result
    assert text.rstrip().endswith(("</tool_call>", "```")), text


def test_bodies_are_required_where_the_grammar_leaves_out_the_other_way() -> None:
    from harness.actors.tools import builtin_table

    tools = builtin_table().schemas(names=("edit_file", "write_file"))
    grammar = tool_call_grammar(tools).splitlines()
    edit = next(line for line in grammar if '"\\"edit_file\\""' in line)
    write = next(line for line in grammar if '"\\"write_file\\""' in line)
    # edit_file's `edits` list is left out, so old and new text must come as bodies
    assert edit.endswith('"<new_content>" "\\n"? body-new-content "</new_content>"')
    assert "( " not in edit
    assert write.endswith('"<content>" "\\n"? body-content "</content>"')
    assert "version" not in "\n".join(grammar)  # a small model invents one


def test_a_forced_call_takes_the_tagged_block_only() -> None:
    root = next(
        line
        for line in tool_call_grammar((READ,), tagged_only=True).splitlines()
        if line.startswith("root ::=")
    )
    assert root == 'root ::= "<tool_call>" space call "\\n"? "</tool_call>"'


@pytest.mark.slow
def test_a_grammar_bound_from_the_first_token_turns_prose_into_the_call(
    loaded_model: LoadedModel,
) -> None:
    # What a nudged model gets: it would answer in words; bound, it writes the call.
    ask = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Say hello in French, in one word."},
    ]
    grammar = tool_call_grammar((READ,), tagged_only=True)
    text, finish = _reply(loaded_model, ask, grammar, 60, lazy=False)
    assert finish == "stop", text
    assert text.startswith("<tool_call>"), text
    assert text.rstrip().endswith("</tool_call>"), text
    parsed = parse_reply(text, {"read_file": tuple(READ.parameters["properties"])})
    assert [c.name for c in parsed.calls] == ["read_file"], text
    assert parsed.calls[0].parse_error is None
    assert isinstance(parsed.calls[0].arguments.get("path"), str)


def test_a_grammar_llama_cpp_refuses_is_an_error_not_a_crash(tiny_model: LoadedModel) -> None:
    ask = [{"role": "user", "content": "Say hi."}]
    with pytest.raises(ModelLoadError, match="grammar"):
        tiny_model.generate(ask, lambda _p: None, threading.Event(), grammar="root ::= (")


# The child feeds each text to the lazy grammar's sampler token by token, as llama.cpp
# does with what a model writes; text the grammar refuses after a trigger fired aborts
# the process (an exception llama.cpp lets out of its C API), so it runs in a child. The
# child loads the model its first argument names (the tiny one: only the tokenizer and
# the sampler are used).
_FEED = """
import sys
from harness.actors.model.local._grammar import edit_call_grammar, tool_call_grammar
from harness.actors.model.local._provider import LocalProvider
from harness.actors.tools import SMALL_MODEL_TOOLS, builtin_table

model = LocalProvider().preload(sys.argv[1]).wait()
grammar = tool_call_grammar(builtin_table().schemas(names=SMALL_MODEL_TOOLS))
for text in sys.argv[2:]:
    sampler = model._sampler(0.2, 1, grammar)
    for token in model.tokenize(text):
        sampler.accept(token)
    sampler.close()
    print("accepted", flush=True)
"""


@pytest.fixture
def feed_env(tiny_model_path: Path, tiny_cache: Path) -> dict[str, str]:
    """The environment of a feeding child: the tiny model's cache."""
    return {**os.environ, "HARNESS_MODEL_CACHE": str(tiny_cache), "TINY": str(tiny_model_path)}


def _fed(env: dict[str, str], *texts: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _FEED, env["TINY"], *texts],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_every_call_opening_a_trigger_takes_the_grammar_takes_too(
    feed_env: dict[str, str],
) -> None:
    openings = [
        # what the 1.5B model wrote inside a Markdown list, which killed the worker
        '1. **Read the current content of `calc.py`**:\n   ```json\n   {\n     "name": '
        '"read_file", "arguments": {"path": "calc.py"}}\n   ```',
        '<tool_call>\n\n  {"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>',
        'Here:\n{\n\n    "name":   "run_cmd", "arguments": {"command": "ls"}}',
        '```json\n{"name": "list_dir", "arguments": {}}\n```',
    ]
    env = feed_env
    proc = _fed(env, *openings)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["accepted"] * len(openings)
    # and each opening did switch the grammar on: what follows a whole call is refused,
    # which llama.cpp can only signal by aborting the process
    for opening in openings:
        after = _fed(env, opening + " and then some words")
        assert after.returncode == -6, (opening, after.returncode, after.stdout)


def test_a_body_ends_at_its_first_closing_tag_as_the_parser_reads_it(
    feed_env: dict[str, str],
) -> None:
    env = feed_env
    head = '<tool_call>{"name": "write_file", "arguments": {"path": "a.xml"}}\n<content>\n'
    # a body may hold anything but its own closing tag: other tags, parts of that one
    kept = _fed(env, head + "a < b, <b>x</b> <</cont </content\n</content>\n</tool_call>")
    assert kept.returncode == 0, kept.stderr[-2000:]
    assert kept.stdout.split() == ["accepted"]
    # after the closing tag the call ends: prose there no longer reads as more body
    # (it did, and a model went on writing newlines to its output limit)
    fence = '```json\n{"name": "write_file", "arguments": {"path": "a"}}\n<content>\nhi\n'
    ended = _fed(env, fence + "</content>\nand then some words")
    assert ended.returncode == -6, (ended.returncode, ended.stdout)


CALC_LINES = ["def add(a, b):", "    return a - b", "", "", "def mul(a, b):", "    return a * b"]


def test_an_edit_bound_to_a_read_file_offers_its_own_lines_once_each() -> None:
    g = edit_call_grammar("calc.py", CALC_LINES).splitlines()
    old = next(line for line in g if line.startswith("old ::= "))
    assert '"    return a - b\\n"' in old
    assert '"def add(a, b):\\n    return a - b\\n"' in old
    assert '"    return a * b"' in old  # the last line, with or without its newline
    assert '"\\n\\ndef mul' not in old  # no run starts or ends on a blank line
    assert '\\"calc.py\\"' in g[0]
    # a line found twice is never offered alone: that edit would be refused
    twice = edit_call_grammar("t.py", ["x = 1", "y = 2", "x = 1"])
    assert '"x = 1\\n" |' not in twice
    assert '"y = 2\\n"' in twice
    assert 'old ::= "same\\nsame"\n' in edit_call_grammar("t.py", ["same", "same"])
    assert edit_call_grammar("t.py", ["", " "]) == ""  # nothing to replace
    # lines picked out of a file (the uses a rename left) are offered one by one
    picked = edit_call_grammar(
        "main.py", ["from util import helper", "print(helper(21))"], picked=True
    )
    assert 'old ::= "from util import helper" | "print(helper(21))"\n' in picked
    three = edit_call_grammar("m.py", ["a = helper", "b = helper()", "c = helper"], picked=True)
    assert 'old ::= "a = helper" | "b = helper()" | "c = helper"\n' in three


@pytest.mark.slow
def test_a_bound_edit_replaces_text_that_is_in_the_file(loaded_model: LoadedModel) -> None:
    from harness.actors.tools import builtin_table
    from harness.actors.tools._edit import apply_edits

    tools = builtin_table().schemas(names=("read_file", "edit_file"))
    calc = "\n".join(CALC_LINES) + "\n"
    shown = "".join(f"{i}:00|{line}\n" for i, line in enumerate(CALC_LINES, 1))
    ask = [
        {
            "role": "system",
            "content": "You are a coding assistant.\n\n" + text_protocol_prompt(tools),
        },
        {"role": "user", "content": "Fix the bug in calc.py: add must return the sum."},
        {
            "role": "assistant",
            "content": '<tool_call>{"name": "read_file", "arguments": {"path": "calc.py"}}'
            "</tool_call>",
        },
        {
            "role": "user",
            "content": f"<tool_response>\n{shown}version: 0123456789abcdef\n</tool_response>",
        },
        {"role": "user", "content": "Make the change now: call edit_file."},
    ]
    text, finish = _reply(
        loaded_model, ask, edit_call_grammar("calc.py", CALC_LINES), 200, lazy=False
    )
    assert finish == "stop", text
    parsed = parse_reply(text, {t.name: tuple(t.parameters["properties"]) for t in tools})
    assert [c.name for c in parsed.calls] == ["edit_file"], text
    args = parsed.calls[0].arguments
    assert args["path"] == "calc.py"
    # whatever it replaces it with, the old text is the file's, once: the edit applies
    apply_edits(calc, [(args["old_text"], args["new_text"])])
