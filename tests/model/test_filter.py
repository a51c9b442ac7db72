"""The streaming filter: same output however the stream is chunked."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.actors.model._filter import TextStreamFilter
from harness.messages.model import CallWriting, TextDelta, ThinkingDelta

from .test_toolparse import CALLS, KNOWN, NOT_CALLS


def run(reply: str, cuts: list[int], *, parse_calls: bool = True) -> tuple[str, str, list[str]]:
    f = TextStreamFilter(KNOWN, parse_calls=parse_calls)
    out = []
    pos = 0
    for cut in sorted(set(cuts)):
        out += f.feed(reply[pos:cut])
        pos = cut
    out += f.feed(reply[pos:])
    tail, parsed = f.finish()
    out += tail
    text = "".join(d.text for d in out if isinstance(d, TextDelta))
    thinking = "".join(d.text for d in out if isinstance(d, ThinkingDelta))
    return text, thinking, [c.name for c in parsed.calls]


def cuts_for(reply: str) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, len(reply)), max_size=12)


@pytest.mark.parametrize("reply", [c[0] for c in CALLS])
def test_calls_never_reach_the_displayed_text(reply: str) -> None:
    for size in (1, 2, 5, 1000):
        text, _thinking, names = run(reply, list(range(size, len(reply), size)))
        assert names, size
        assert "tool_call" not in text, size
        assert '"arguments"' not in text, size


@pytest.mark.parametrize("reply", NOT_CALLS)
def test_answers_are_displayed_whole(reply: str) -> None:
    visible = reply.split("</think>")[-1]
    for size in (1, 3, 1000):
        text, _thinking, names = run(reply, list(range(size, len(reply), size)))
        assert names == []
        assert text == visible


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_chunking_does_not_change_the_result(data: st.DataObject) -> None:
    reply = data.draw(st.sampled_from([c[0] for c in CALLS] + NOT_CALLS))
    assert run(reply, data.draw(cuts_for(reply))) == run(reply, [])


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_plain_prose_passes_through_untouched(data: st.DataObject) -> None:
    alphabet = st.characters(blacklist_characters="<`{", blacklist_categories=("Cs",))
    reply = data.draw(st.text(alphabet, max_size=200))
    assert run(reply, data.draw(cuts_for(reply))) == (reply, "", [])


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_any_text_any_chunking_loses_nothing_outside_markup(data: st.DataObject) -> None:
    pieces = st.sampled_from(
        [
            "<",
            "<think>",
            "</think>",
            "`",
            "```",
            "\n",
            "{",
            "}",
            "a",
            " ",
            "<tool_call>",
            '{"name": "read_file"}',
            "json\n",
            "</tool_call>",
        ]
    )
    reply = "".join(data.draw(st.lists(pieces, max_size=30)))
    text, thinking, _names = run(reply, data.draw(cuts_for(reply)))
    assert run(reply, []) == (text, thinking, _names)


def test_think_tags_become_thinking() -> None:
    text, thinking, _ = run("<think>\nplan it\n</think>\nThe answer.", [3, 9, 20])
    assert (text, thinking) == ("The answer.", "plan it\n")


def test_native_mode_filters_only_thinking() -> None:
    reply = '<think>x</think>{"name": "read_file", "arguments": {}}'
    text, thinking, names = run(reply, [2, 10], parse_calls=False)
    assert (text, thinking, names) == ('{"name": "read_file", "arguments": {}}', "x", [])


def test_text_streams_before_the_reply_ends() -> None:
    f = TextStreamFilter(KNOWN)
    assert f.feed("Hello, ") == [TextDelta("Hello, ")]
    assert f.feed("wor") == [TextDelta("wor")]
    assert f.feed("ld <t") == [TextDelta("ld ")]  # a partial tag is held
    assert f.feed("ool_call>") == []
    # the call's text never shows; that it is a call to read_file does
    got = f.feed('{"name": "read_file", "arguments": {}}</tool_call> ok')
    assert got == [CallWriting("read_file"), TextDelta(" ok")]


def writing(reply: str, size: int) -> list[tuple[str, int]]:
    """The calls the filter said were being written, with how much of *reply* had come
    in (fed *size* characters at a time) when it said so."""
    f = TextStreamFilter(KNOWN)
    said: list[tuple[str, int]] = []
    for pos in range(0, len(reply), size):
        out = f.feed(reply[pos : pos + size])
        said += [(d.name, pos + size) for d in out if isinstance(d, CallWriting)]
    said += [(d.name, len(reply)) for d in f.finish()[0] if isinstance(d, CallWriting)]
    return said


def test_a_call_being_written_is_named_as_soon_as_its_name_is_whole() -> None:
    # under the text protocol a call never shows in the text: the filter says which tool
    # is being called while the rest of the call is still being written
    head = '<tool_call>\n{"name": "read_file", '
    rest = '"arguments": {"path": "a.py"}}\n</tool_call>\n'
    reply = f"Reading.\n{head}{rest}{head}{rest}"
    for size in (1, 4, 9):
        said = writing(reply, size)
        assert [name for name, _ in said] == ["read_file", "read_file"], size
        first_fed = said[0][1]
        assert len("Reading.\n" + head) - 2 <= first_fed < len("Reading.\n" + head) + size, size
    # an unknown tool, or a name that never comes, is not announced
    assert writing('<tool_call>\n{"name": "rm_rf", "arguments": {}}\n</tool_call>', 3) == []
    assert writing("<tool_call>\n{" + " " * 300 + '"name": "read_file"}\n</tool_call>', 7) == []
    # nor is anything outside a tagged call
    assert writing('Call {"name": "read_file"} later.', 2) == []
