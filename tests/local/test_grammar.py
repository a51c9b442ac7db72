"""Tool calls the embedded model cannot get wrong: the lazy grammar of the tool table, and
the end of generation at the end of a call.

What the grammar accepts and refuses is fed token by token to the tiny model's sampler
(``_tiny.py``: the default model's tokenizer); what a model writes under it runs the real
default model."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness.actors.model import parse_reply, text_protocol_prompt
from harness.actors.model.local import ModelLoadError
from harness.actors.model.local._engine import LoadedModel, _call_closed
from harness.actors.model.local._grammar import edit_call_grammar, tool_call_grammar
from harness.actors.model.local._looping import BLANK_RUN, LoopWatch
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
        # a file's own code block inside the call's body: the call goes on
        ('```json\n{"name": "write_file", "arguments": {}}\n<content>\n# Run\n\n```', False),
        ('```json\n{"name": "w", "arguments": {}}\n<content>\n```\nx\n```\n</content>\n```', True),
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


DIFF = ToolSchema("git_diff", "Show the diff.", {"type": "object", "properties": {}})


def test_a_bound_call_names_a_real_tool_and_ends_the_turn(tiny_model: LoadedModel) -> None:
    # The tiny model never writes a call by itself (``_tiny.py``): whatever call comes out
    # is the grammar's. Tools with no parameters leave it no free text to ramble in, so
    # the call must close, and the reply ends there.
    ask = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Show me what changed."},
    ]
    text, finish = _reply(tiny_model, ask, tool_call_grammar((STATUS, DIFF)), 150, lazy=False)
    assert "<tool_response>" not in text  # never a made-up result
    parsed = parse_reply(text, {"git_status": (), "git_diff": ()})
    assert finish == "stop", text
    assert len(parsed.calls) == 1, text
    assert parsed.calls[0].name in ("git_status", "git_diff")
    assert parsed.calls[0].parse_error is None
    # nothing after the call: no made-up tool result
    assert text.rstrip().endswith(("</tool_call>", "```", "}")), text


def test_a_lazy_grammar_leaves_prose_alone(tiny_model: LoadedModel) -> None:
    # no trigger in what the tiny model writes: the grammar never applies, the reply is
    # the model's own words to the limit
    ask = [{"role": "user", "content": "Say hello."}]
    text, finish = _reply(tiny_model, ask, tool_call_grammar(TOOLS), 24)
    assert finish == "length", text
    assert not text.startswith(("<tool_call>", "```", "{")), text


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


def test_a_grammar_bound_from_the_first_token_turns_prose_into_the_call(
    tiny_model: LoadedModel,
) -> None:
    # What a nudged model gets: it would answer in words (the tiny model never writes a
    # call); bound, it writes the call, and its reply ends with it.
    ask = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Say hello in French, in one word."},
    ]
    grammar = tool_call_grammar((STATUS,), tagged_only=True)
    text, finish = _reply(tiny_model, ask, grammar, 100, lazy=False)
    assert finish == "stop", text
    assert text.startswith("<tool_call>"), text
    assert text.rstrip().endswith("</tool_call>"), text
    parsed = parse_reply(text, {"git_status": ()})
    assert [c.name for c in parsed.calls] == ["git_status"], text
    assert parsed.calls[0].parse_error is None
    assert parsed.calls[0].arguments == {}


def test_a_grammar_llama_cpp_refuses_is_an_error_not_a_crash(tiny_model: LoadedModel) -> None:
    ask = [{"role": "user", "content": "Say hi."}]
    with pytest.raises(ModelLoadError, match="grammar"):
        tiny_model.generate(ask, lambda _p: None, threading.Event(), grammar="root ::= (")


# Text the grammar refuses after a trigger fired aborts the process that feeds it (an
# exception llama.cpp lets out of its C API), so each text is fed in a process of its own,
# token by token as llama.cpp feeds what a model writes. One child loads the tiny model
# (only its tokenizer and the sampler are used) and forks a process per text: a fork
# costs milliseconds, a new interpreter and a load a second.
_FEEDER = """
import json, os, sys
from pathlib import Path
from harness.actors.model.local._load import load_model
from harness.actors.model.local._grammar import NOT_GIVEN, tool_call_grammar
from harness.actors.tools import SMALL_MODEL_TOOLS, builtin_table

model = load_model(Path(sys.argv[1]), "tiny", n_ctx=256, threads=1)
tools = builtin_table().schemas(names=SMALL_MODEL_TOOLS)
grammars = {
    False: tool_call_grammar(tools),
    True: tool_call_grammar(tools, or_words=True),
    "not_given": NOT_GIVEN,
}
for line in sys.stdin:
    text, words = json.loads(line)
    pid = os.fork()
    if pid == 0:
        os.dup2(2, 1)  # what an abort prints is not an answer
        # the lazy grammar of a reply, or one bound from the first token: what a reply
        # asked again after an empty one gets, or an answer asked to give no figure
        sampler = model._sampler(0.2, 1, grammars[words], not words)
        for token in model.tokenize(text):
            sampler.accept(token)
        sampler.close()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""

ACCEPTED, ABORTED = 0, -6


@pytest.fixture(scope="module")
def fed(
    tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., int]]:
    """``fed(text, words=False)``: how the process fed *text* under the small tool list's
    lazy grammar (*words*: its grammar of a call or words; ``"not_given"``: the one
    sentence saying the files do not give it) ended: :data:`ACCEPTED`, or :data:`ABORTED`
    by the refusal."""
    log = tmp_path_factory.mktemp("feeder") / "stderr"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", _FEEDER, str(tiny_model_path)],
            # an abort would run gdb for a backtrace nobody reads: seconds of CPU
            env={**os.environ, "GGML_NO_BACKTRACE": "1"},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    assert proc.stdin is not None
    assert proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def feed(text: str, words: bool | str = False) -> int:
        stdin.write(json.dumps([text, words]) + "\n")
        stdin.flush()
        ready, _, _ = select.select([stdout], [], [], 120)  # a bound against a hang
        line = stdout.readline() if ready else ""
        assert line, log.read_text()[-2000:]
        return int(line)

    yield feed
    stdin.close()
    proc.wait(timeout=60)


def test_every_call_opening_a_trigger_takes_the_grammar_takes_too(
    fed: Callable[..., int],
) -> None:
    openings = [
        # what the 1.5B model wrote inside a Markdown list, which killed the worker
        '1. **Read the current content of `calc.py`**:\n   ```json\n   {\n     "name": '
        '"read_file", "arguments": {"path": "calc.py"}}\n   ```',
        '<tool_call>\n\n  {"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>',
        'Here:\n{\n\n    "name":   "run_cmd", "arguments": {"command": "ls"}}',
        '```json\n{"name": "list_dir", "arguments": {}}\n```',
    ]
    assert [fed(opening) for opening in openings] == [ACCEPTED] * len(openings)
    # and each opening did switch the grammar on: what follows a whole call is refused,
    # which llama.cpp can only signal by aborting the process
    for opening in openings:
        assert fed(opening + " and then some words") == ABORTED, opening


def test_a_body_ends_at_its_first_closing_tag_as_the_parser_reads_it(
    fed: Callable[..., int],
) -> None:
    head = '<tool_call>{"name": "write_file", "arguments": {"path": "a.xml"}}\n<content>\n'
    # a body may hold anything but its own closing tag: other tags, parts of that one
    kept = head + "a < b, <b>x</b> <</cont </content\n</content>\n</tool_call>"
    assert fed(kept) == ACCEPTED
    # after the closing tag the call ends: prose there no longer reads as more body
    # (it did, and a model went on writing newlines to its output limit)
    fence = '```json\n{"name": "write_file", "arguments": {"path": "a"}}\n<content>\nhi\n'
    assert fed(fence + "</content>\nand then some words") == ABORTED


def test_a_reply_asked_again_after_an_empty_one_cannot_be_empty_again(
    fed: Callable[..., int],
) -> None:
    # measured: asked again after a blank reply, the 1.5B model wrote "\n\n\n" again, and
    # the run ended with no answer after a run's output that held it
    for blank in ("\n", " ", "\t\n", "\n\nThe bus gets there at 14:02."):
        assert fed(blank, words=True) == ABORTED, repr(blank)
    said = [
        "The hospital bus gets to Wistow Green at 14:02.",
        "1. It leaves at 16:00.\n\n```\nnode screen/main.js\n```",
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>',
        '```json\n{"name": "list_dir", "arguments": {}}\n```',
    ]
    assert [fed(text, words=True) for text in said] == [ACCEPTED] * len(said)
    # a call is still a whole call, and nothing follows it
    broken = '<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>'
    assert fed(broken, words=True) == ABORTED
    after = '<tool_call>{"name": "list_dir", "arguments": {}}</tool_call> and then words'
    assert fed(after, words=True) == ABORTED


def test_an_answer_asked_after_a_made_up_figure_can_only_say_it_is_not_given(
    fed: Callable[..., int],
) -> None:
    # measured: asked to say the files do not give the figure it had made up, the 1.5B
    # model wrote the made-up figure again; bound to words with no digit, it wrote "… due
    # its MOT on April" and then spaces where the digits it wanted were
    said = [
        "The files I looked at do not give the temperature at which watering is skipped.",
        "The files I looked at do not give the MOT date.",
    ]
    assert [fed(text, words="not_given") for text in said] == [ACCEPTED] * len(said)
    for text in (
        "The files I looked at do not give 10 degrees.",
        "The files I looked at do not give the date of April  the fifteenth.",  # two spaces
        "The files I looked at do not give it. It is ten.",  # one sentence
        "It kicks in below 10 degrees.",
        "The files do not say.",
        '<tool_call>{"name": "list_dir", "arguments": {}}</tool_call>',
    ):
        assert fed(text, words="not_given") == ABORTED, text


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


def test_a_bound_edit_replaces_text_that_is_in_the_file(tiny_model: LoadedModel) -> None:
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
    # The tiny model's words are noise, and its new text never ends (a body is free
    # text): what the grammar holds it to is the call's head and the old text, which
    # come first.
    text, _ = _reply(tiny_model, ask, edit_call_grammar("calc.py", CALC_LINES), 100, lazy=False)
    head, _, rest = text.partition("<old_content>")
    assert head.startswith("<tool_call>"), text
    parsed = parse_reply(
        head + "</tool_call>", {t.name: tuple(t.parameters["properties"]) for t in tools}
    )
    assert [(c.name, c.arguments) for c in parsed.calls] == [("edit_file", {"path": "calc.py"})], (
        text
    )
    old, closed, _ = rest.partition("</old_content>")
    assert closed, text
    # whatever it replaces, the old text is the file's, once: the edit applies
    assert apply_edits(calc, [(old.removeprefix("\n"), "")]) != calc


# A bound call's JSON as the grammar takes it, with a gap at each place whitespace may go
# (``{}`` marks them): the first call in the fenced form, the second in the tagged one.
_GAPPED = (
    '```json\n{}{{"name": "read_file", "arguments": {{"path": "a"}}}}{}```',
    '<tool_call>{}{{{}"name"{}:{}"read_file"{},{}"arguments"{}:{}{{{}"path"{}:{}"a"{}}}{}}}'
    "\n</tool_call>",
)


def _gapped(template: str, at: int, gap: str) -> str:
    gaps = ["" if i != at else gap for i in range(template.count("{}"))]
    return template.format(*gaps)


def test_no_whitespace_a_bound_call_may_hold_reads_as_a_loop(fed: Callable[[str], int]) -> None:
    # Once bound, a call is what the grammar takes, and the loop watch must not cut it:
    # blank lines in a row the grammar takes between two tokens stay under BLANK_RUN.
    # (It took 24 whitespace characters in a gap, so a call with 13 newlines in one was
    # stopped mid-JSON by the watch; seen on the tiny model.)
    texts = [
        (_gapped(t, at, "\n" * n), n)
        for t in _GAPPED
        for at in range(t.count("{}"))
        for n in (2, BLANK_RUN + 1)
    ]
    for text, n in texts:
        if n == 2:  # a blank line in a pretty-printed call is taken, in every gap
            assert fed(text) == ACCEPTED, text
        else:
            assert fed(text) == ABORTED or not _stops(text), text


def _stops(text: str) -> bool:
    watch = LoopWatch()
    return any(watch.looping(text[at : at + 1]) for at in range(len(text)))
