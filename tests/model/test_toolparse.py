"""The lenient text tool-call parser: a table of shapes that are and are not calls."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.actors.model import ParsedCall, parse_reply

KNOWN = {
    "read_file": ("path",),
    "write_file": ("path", "content"),
    "edit_file": ("path", "old_string", "new_string"),
}
READ = {"path": "a.py"}

# (reply, name, arguments, a word the repair note must contain or None for no repair)
CALLS = [
    (
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>',
        "read_file",
        READ,
        None,
    ),
    (
        'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n'
        "</tool_call>",
        "read_file",
        READ,
        None,
    ),
    # Qwen2.5-Coder 0.5B: a bare object.
    ('{"name": "read_file", "arguments": {"path": "a.py"}}', "read_file", READ, "bare"),
    (
        'I will read it.\n  {"name": "read_file", "arguments": {"path": "a.py"}}\n',
        "read_file",
        READ,
        "bare",
    ),
    # Qwen2.5-Coder 1.5B: a ```json fence.
    (
        '```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```',
        "read_file",
        READ,
        "fenced",
    ),
    (
        '```tool_call\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```',
        "read_file",
        READ,
        "fenced",
    ),
    ('```\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```', "read_file", READ, "fenced"),
    # parameters beside name
    ('<tool_call>{"name": "read_file", "path": "a.py"}</tool_call>', "read_file", READ, "beside"),
    (
        '<tool_call>{"tool_name": "read_file", "arguments": {"path": "a.py"}}</tool_call>',
        "read_file",
        READ,
        "tool_name",
    ),
    (
        '<tool_call>{"tool_call": {"name": "read_file", "arguments": {"path": "a.py"}}}'
        "</tool_call>",
        "read_file",
        READ,
        "nested",
    ),
    (
        '<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}</tool_call>',
        "read_file",
        READ,
        "string",
    ),
    (
        '<tool_call>{"name": "read_file", "parameters": {"path": "a.py"}}</tool_call>',
        "read_file",
        READ,
        "parameters",
    ),
    # unclosed at the end of a complete reply
    (
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"',
        "read_file",
        READ,
        "brackets",
    ),
    (
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}',
        "read_file",
        READ,
        "</tool_call>",
    ),
    ('{"name": "read_file", "arguments": {"path": "a.py"}', "read_file", READ, "brackets"),
    # bodies outside the JSON, verbatim
    (
        '<tool_call>{"name": "write_file", "arguments": {"path": "x"}}\n<content>\n'
        'print("a\\n")\n\ttab "q"\n</content>\n</tool_call>',
        "write_file",
        {"path": "x", "content": 'print("a\\n")\n\ttab "q"\n'},
        None,
    ),
    (
        '<tool_call>{"name": "edit_file", "arguments": {"path": "x"}}\n<old_content>\na\n'
        "</old_content>\n<new_content>\nb\n</new_content></tool_call>",
        "edit_file",
        {"path": "x", "old_string": "a\n", "new_string": "b\n"},
        None,
    ),
    # an unknown tool inside the tags is still a call (the conversation reports it)
    ('<tool_call>{"name": "fly", "arguments": {}}</tool_call>', "fly", {}, None),
    # thinking is not the reply
    (
        '<think>maybe {"name": "write_file"}</think>\n<tool_call>{"name": "read_file", '
        '"arguments": {"path": "a.py"}}</tool_call>',
        "read_file",
        READ,
        None,
    ),
]

NOT_CALLS = [
    "Just an answer.",
    "Here is Python:\n```python\nprint({'name': 'read_file'})\n```",
    '```json\n{"name": "alice", "age": 3}\n```',
    '```json\n{"name": "fly", "arguments": {}}\n```',
    '{"name": "fly", "arguments": {}}',
    'The format is {"name": "read_file", "arguments": {"path": "x"}} as you see.',
    "Use the <tool_call> tag to call tools.",
    '```json\n{"config": {"name": "read_file"}}\n```',
    '[1, 2, {"name": "read_file"}]',
    '<think>{"name": "read_file", "arguments": {}}</think>The answer is 4.',
]


@pytest.mark.parametrize(("reply", "name", "arguments", "repair"), CALLS)
def test_shapes_read_as_calls(
    reply: str, name: str, arguments: dict[str, object], repair: str | None
) -> None:
    parsed = parse_reply(reply, KNOWN)
    assert len(parsed.calls) == 1, parsed
    call = parsed.calls[0]
    assert (call.name, call.arguments, call.parse_error) == (name, arguments, None)
    if repair is None:
        assert call.repaired is None
    else:
        assert call.repaired is not None
        assert repair in call.repaired
    assert "tool_call" not in parsed.text
    assert '"arguments"' not in parsed.text


@pytest.mark.parametrize("reply", NOT_CALLS)
def test_shapes_not_read_as_calls(reply: str) -> None:
    parsed = parse_reply(reply, KNOWN)
    assert parsed.calls == ()
    assert parsed.text == reply.split("</think>")[-1].strip()


def test_fence_is_not_a_call_when_a_tool_call_tag_is_present() -> None:
    reply = (
        'Example:\n```json\n{"name": "write_file", "arguments": {"path": "b"}}\n```\n'
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
    )
    parsed = parse_reply(reply, KNOWN)
    assert [c.name for c in parsed.calls] == ["read_file"]
    assert "```json" in parsed.text


@pytest.mark.parametrize(
    "reply",
    [
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"',
        '{"name": "read_file", "arguments": {"path": "a.py"',
        '<tool_call>{"name": "write_file", "arguments": {"path": "x"}}\n<content>\nhalf',
        '```tool_call\n{"name": "read_file", "arguments": {"path": "a.py"}',
    ],
)
def test_a_cut_off_reply_is_refused_not_repaired(reply: str) -> None:
    parsed = parse_reply(reply, KNOWN, complete=False)
    for call in parsed.calls:
        assert call.arguments is None
        assert call.parse_error is not None
        assert "cut off" in call.parse_error


def test_several_calls_in_order() -> None:
    reply = "".join(
        f'<tool_call>{{"name": "read_file", "arguments": {{"path": "{p}"}}}}</tool_call>\n'
        for p in "abc"
    )
    parsed = parse_reply(reply, KNOWN)
    assert [c.arguments for c in parsed.calls] == [{"path": p} for p in "abc"]


def test_broken_json_in_tags_is_an_error_call_with_the_name_guessed() -> None:
    parsed = parse_reply(
        '<tool_call>{"name": "read_file", "arguments": {path: 1}}</tool_call>', KNOWN
    )
    (call,) = parsed.calls
    assert call.name == "read_file"
    assert call.arguments is None
    assert call.parse_error is not None
    assert "invalid JSON" in call.parse_error


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.booleans())
def test_parser_never_raises_on_any_text(text: str, complete: bool) -> None:
    parsed = parse_reply(text, KNOWN, complete=complete)
    for call in parsed.calls:
        assert (call.arguments is None) == (call.parse_error is not None)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.text(min_size=1, max_size=8), json_values, max_size=4),
    st.text(max_size=40).filter(lambda s: "<" not in s and "`" not in s and "{" not in s),
)
def test_any_tagged_call_reads_back_exactly(args: dict[str, object], prose: str) -> None:
    call = json.dumps({"name": "read_file", "arguments": args})
    parsed = parse_reply(f"{prose}\n<tool_call>{call}</tool_call>", KNOWN)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("read_file", args)]
    assert parsed.text == prose.strip()


def test_think_text_inside_a_call_or_a_fence_is_data() -> None:
    call = json.dumps({"name": "read_file", "arguments": {"<think>": "x</think>y"}})
    parsed = parse_reply(f"<think>plan</think>Reading.\n<tool_call>{call}</tool_call>", KNOWN)
    assert [(c.name, c.arguments) for c in parsed.calls] == [
        ("read_file", {"<think>": "x</think>y"})
    ]
    assert parsed.text == "Reading."
    fenced = parse_reply(
        '```json\n{"name": "read_file", "arguments": {"path": "<think>"}}\n```', KNOWN
    )
    assert [(c.name, c.arguments) for c in fenced.calls] == [("read_file", {"path": "<think>"})]


# --- what models really write (issue: parsers that repair) ---------------------------

# Gemma: a ```tool_call fence naming the tool, then the body in a <content> block after it.
GEMMA_WRITE = (
    "I'll create the file.\n\n"
    "```tool_call\n"
    '{"tool_name": "write_file", "arguments": {"path": "hello.py"}}\n'
    "```\n"
    "<content>\n"
    'print("hello")\n'
    "</content>\n\n"
    "That writes the greeting."
)


def test_a_content_block_after_the_fence_feeds_the_call() -> None:
    parsed = parse_reply(GEMMA_WRITE, KNOWN)
    [call] = parsed.calls
    assert (call.name, call.arguments) == (
        "write_file",
        {"path": "hello.py", "content": 'print("hello")\n'},
    )
    assert call.repaired is not None
    assert "<content> block after the call" in call.repaired
    assert parsed.text == "I'll create the file.\n\nThat writes the greeting."


def test_body_blocks_after_a_bare_object_feed_the_call() -> None:
    # what the 1.5B Qwen wrote, under the call grammar (which requires the bodies)
    bare = (
        '{"name": "edit_file", "arguments": {"path": "main.py"}}\n'
        "<old_content>\nfrom util import helper\n</old_content>\n"
        "<new_content>\nfrom util import compute\n</new_content>"
    )
    known = {"edit_file": ("path", "old_text", "new_text")}
    parsed = parse_reply(bare, known)
    [call] = parsed.calls
    assert call.arguments == {
        "path": "main.py",
        "old_text": "from util import helper\n",
        "new_text": "from util import compute\n",
    }
    assert parsed.text == ""
    cut = parse_reply(bare.split("</new_content>")[0], known, complete=False)
    assert cut.calls[0].arguments is None
    assert "cut off inside <new_content>" in (cut.calls[0].parse_error or "")


def test_a_body_block_on_the_line_of_a_bare_object_feeds_the_call() -> None:
    # the 1.5B Qwen's whole reply in a bench local-tasks run, which was taken for prose
    bare = (
        '{"name": "write_file", "arguments": {"path": "calc.py"}}<content>\n'
        "def add(a, b):\n    return a + b\n</content>"
    )
    parsed = parse_reply(bare, {"write_file": ("path", "content")})
    [call] = parsed.calls
    assert call.arguments == {"path": "calc.py", "content": "def add(a, b):\n    return a + b\n"}
    assert parsed.text == ""
    # prose after the object on its line still quotes it
    quoted = '{"name": "write_file", "arguments": {"path": "calc.py"}} is how I would call it'
    assert parse_reply(quoted, {"write_file": ("path", "content")}).calls == ()


def test_a_content_block_after_a_cut_off_fence_call_is_refused() -> None:
    cut = GEMMA_WRITE.split("</content>")[0]
    parsed = parse_reply(cut, KNOWN, complete=False)
    [call] = parsed.calls
    assert call.arguments is None
    assert call.parse_error is not None
    assert "cut off" in call.parse_error


def test_a_tool_code_fence_is_a_call_and_leaves_no_fence_in_the_answer() -> None:
    reply = (
        'Reading it now.\n```tool_code\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```'
    )
    parsed = parse_reply(reply, KNOWN)
    assert [(c.name, c.arguments) for c in parsed.calls] == [("read_file", READ)]
    assert parsed.text == "Reading it now."


@pytest.mark.parametrize(
    "body", ['read_file(path="a.py")', 'print(default_api.read_file(path="a.py"))']
)
def test_a_tool_code_fence_may_hold_a_python_style_call(body: str) -> None:
    parsed = parse_reply(f"```tool_code\n{body}\n```", KNOWN)
    [call] = parsed.calls
    assert (call.name, call.arguments, call.parse_error) == ("read_file", READ, None)
    assert call.repaired is not None
    assert "Python-style" in call.repaired
    assert parsed.text == ""


@pytest.mark.parametrize(
    "body",
    [
        'read_file(path=open("x").read())',  # not a literal: never evaluated
        'os.system("rm -rf /")',  # not a tool
        'read_file("a.py")',  # positional: which parameter is unknown
    ],
)
def test_a_python_style_call_that_is_not_plain_data_is_not_a_call(body: str) -> None:
    reply = f"```tool_code\n{body}\n```"
    parsed = parse_reply(reply, KNOWN)
    assert parsed.calls == ()
    assert parsed.text == reply


@pytest.mark.parametrize(
    ("reply", "arguments"),
    [
        # the exact payload of the issue
        (
            '{"name": "write_file", "arguments": {"content": "print("hi")"}}',
            {"content": 'print("hi")'},
        ),
        (
            '<tool_call>{"name": "write_file", "arguments": {"path": "a.py", '
            '"content": "print("a", "b")"}}</tool_call>',
            {"path": "a.py", "content": 'print("a", "b")'},
        ),
        (
            '<tool_call>{"name": "edit_file", "arguments": {"path": "x", '
            '"old_string": "f("a")", "new_string": "f("b")"}}</tool_call>',
            {"path": "x", "old_string": 'f("a")', "new_string": 'f("b")'},
        ),
    ],
)
def test_unescaped_quotes_with_one_reading_are_repaired_and_said(
    reply: str, arguments: dict[str, str]
) -> None:
    [call] = parse_reply(reply, KNOWN).calls
    assert (call.arguments, call.parse_error) == (arguments, None)
    assert call.repaired is not None
    assert "escaped quotes" in call.repaired


def test_unescaped_quotes_with_two_readings_are_refused() -> None:
    # content may be 'say "a' with a second key "b", or the whole 'say "a", "b": "c'
    reply = (
        '<tool_call>{"name": "write_file", "arguments": {"content": "say "a", "b": "c"}}'
        "</tool_call>"
    )
    [call] = parse_reply(reply, KNOWN).calls
    assert call.arguments is None
    assert call.parse_error is not None
    assert "two ways" in call.parse_error


def test_too_many_unsure_quotes_are_refused_without_trying_them_all() -> None:
    items = ", ".join(f'"k{i}", "v{i}"' for i in range(40))
    reply = (
        '<tool_call>{"name": "write_file", "arguments": {"path": "x", '
        f'"content": "x = f("{items}")"}}}}</tool_call>'
    )
    [call] = parse_reply(reply, KNOWN).calls
    assert call.arguments is None
    assert call.parse_error is not None


def test_a_line_that_is_a_tag_named_after_a_tool_is_a_call() -> None:
    known = {"run_cmd": ("command", "timeout"), "git_status": (), "read_file": ("path",)}
    got = parse_reply("<run_cmd>python3 hello.py</run_cmd>", known)
    assert got.calls == (
        ParsedCall(
            "run_cmd", {"command": "python3 hello.py"}, repaired="read a <run_cmd> tag as a call"
        ),
    )
    assert got.text == ""
    got = parse_reply(
        'First:\n<read_file>{"path": "a.py"}</read_file>\n<git_status></git_status>', known
    )
    assert [(c.name, c.arguments) for c in got.calls] == [
        ("read_file", {"path": "a.py"}),
        ("git_status", {}),
    ]
    assert got.text == "First:"
    # attributes are the arguments, closed or not; numbers are numbers
    for line in (
        '<run_cmd command="python3 hello.py" timeout="120">',
        '<run_cmd command="python3 hello.py" timeout="120"/>',
        '<run_cmd command="python3 hello.py" timeout="120"></run_cmd>',
    ):
        (call,) = parse_reply(line, known).calls
        assert call.arguments == {"command": "python3 hello.py", "timeout": 120}


@pytest.mark.parametrize(
    "reply",
    [
        "Use <run_cmd>ls</run_cmd> to list them.",  # inside prose: quoted, not called
        "<b>bold</b>",  # not a tool
        "<read_file></read_file>",  # no path
        "<git_status>x</git_status>",  # a tool without parameters given text
        "<run_cmd>python3 hello.py",  # not closed, no attributes: prose or cut off
        '<run_cmd command="ls">and text</run_cmd>',  # attributes and text: a guess
    ],
)
def test_a_tag_that_is_not_a_whole_line_naming_a_tool_is_text(reply: str) -> None:
    known = {"run_cmd": ("command",), "git_status": (), "read_file": ("path",)}
    assert parse_reply(reply, known).calls == ()


def test_a_fence_inside_a_body_in_a_fenced_call_is_the_file_s_own() -> None:
    # the 1.5B Qwen writing a page of commands under the call grammar: its ```json call
    # held a <content> whose own code block's fence closed the call there, and the page
    # was written cut before its first command
    reply = (
        '```json\n{"name": "write_file", "arguments": {"path": "RUNNING.md"}}\n'
        "<content>\n# Running\n\nPrint the report:\n\n```\npython3 report.py\n```\n"
        "</content>\n```\nDone."
    )
    parsed = parse_reply(reply, KNOWN)
    [call] = parsed.calls
    assert call.arguments == {
        "path": "RUNNING.md",
        "content": "# Running\n\nPrint the report:\n\n```\npython3 report.py\n```\n",
    }
    assert parsed.text == "Done."
    # while it streams, the file's fence leaves the call open
    cut = reply.split("python3")[0]
    [open_call] = parse_reply(cut, KNOWN, complete=False).calls
    assert open_call.arguments is None
