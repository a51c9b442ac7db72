"""SSE and NDJSON parsers: any cut of the bytes gives the same events."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.actors.model._wire import BadLine, NdjsonParser, SseEvent, SseParser


def cut(data: bytes, points: list[int]) -> list[bytes]:
    out, pos = [], 0
    for p in sorted(set(points)):
        out.append(data[pos:p])
        pos = p
    out.append(data[pos:])
    return out


def run_sse(parts: list[bytes]) -> list[SseEvent]:
    p = SseParser()
    events = [e for part in parts for e in p.feed(part)]
    return events + p.close()


def test_sse_rules() -> None:
    data = (
        b": comment\r\nevent: delta\r\ndata: a\r\ndata:  b\r\nid: 3\r\nretry: 10\r\n\r\n"
        b"data\n\ndata: last"
    )
    # "data: last" never got its newline: the stream was cut there, so it is dropped.
    assert run_sse([data]) == [SseEvent("delta", "a\n b"), SseEvent("message", "")]
    assert run_sse([b"data: whole\n"]) == [SseEvent("message", "whole")]


sse_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=30
)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["", "delta", "error"]), sse_text), max_size=8),
    st.sampled_from([b"\n", b"\r\n", b"\r"]),
    st.data(),
)
def test_sse_any_cut_any_line_ending(
    events: list[tuple[str, str]], nl: bytes, data: st.DataObject
) -> None:
    raw = b""
    for name, payload in events:
        if name:
            raw += b"event: " + name.encode() + nl
        raw += b": keep-alive" + nl + b"data: " + payload.encode() + nl + nl
    points = data.draw(st.lists(st.integers(0, len(raw)), max_size=15))
    expected = [SseEvent(n or "message", p) for n, p in events]
    assert run_sse(cut(raw, points)) == expected


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), st.data())
def test_sse_never_raises_on_garbage(raw: bytes, data: st.DataObject) -> None:
    points = data.draw(st.lists(st.integers(0, len(raw)), max_size=10))
    assert run_sse(cut(raw, points)) == run_sse([raw])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(json_values, max_size=6), st.data())
def test_ndjson_any_cut(values: list[object], data: st.DataObject) -> None:
    raw = b"".join(json.dumps(v, ensure_ascii=False).encode() + b"\n\n" for v in values)
    points = data.draw(st.lists(st.integers(0, len(raw)), max_size=15))
    p = NdjsonParser()
    got = [v for part in cut(raw, points) for v in p.feed(part)] + p.close()
    assert got == values


def test_ndjson_bad_line_and_last_line_without_newline() -> None:
    p = NdjsonParser()
    got = p.feed(b'{"a": 1}\nnot json\n{"b"') + p.feed(b": 2}") + p.close()
    assert got[0] == {"a": 1}
    assert isinstance(got[1], BadLine)
    assert got[1].line == "not json"
    assert got[2] == {"b": 2}
