"""The frame decoder and the message codec against garbage, truncation and oversize."""

from __future__ import annotations

import attrs
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.ipc import FrameDecoder, Message, ProtocolError, decode_message, encode_frame
from harness.ipc._envelope import (
    BadBody,
    Cancel,
    Error,
    Reply,
    Request,
    StreamItem,
    decode_envelope,
    encode_envelope,
)


@attrs.frozen
class Sample(Message, tag="test.codec.sample"):
    text: str
    number: int = 0
    items: tuple[str, ...] = ()
    extra: dict[str, int] | None = None


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


@given(st.lists(st.binary(max_size=300), max_size=20), st.data())
def test_frames_survive_any_split(payloads: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(p) for p in payloads)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = FrameDecoder()
    got: list[bytes] = []
    last = 0
    for cut in [*cuts, len(stream)]:
        got += decoder.feed(stream[last:cut])
        last = cut
    assert got == payloads
    assert decoder.pending == 0


@given(st.binary(max_size=2000))
def test_garbage_bytes_raise_only_protocol_error(blob: bytes) -> None:
    decoder = FrameDecoder(max_frame=1024)
    try:
        for payload in decoder.feed(blob):
            decode_envelope(payload)
    except ProtocolError:
        pass


@given(json_values)
def test_any_json_decodes_or_raises_protocol_error(value: object) -> None:
    payload = orjson.dumps(value)
    try:
        decode_envelope(payload)
    except ProtocolError:
        pass
    try:
        decode_message(value)
    except ProtocolError:
        pass


@given(st.dictionaries(st.sampled_from(["type", "text", "number", "items", "extra"]), json_values))
def test_message_fields_of_the_wrong_shape_are_protocol_errors(fields: dict) -> None:
    fields["type"] = "test.codec.sample"
    try:
        msg = decode_message(fields)
    except ProtocolError:
        return
    assert isinstance(msg, Sample)


@settings(max_examples=50)
@given(
    st.builds(
        Sample,
        st.text(),
        st.integers(-(2**53), 2**53),
        st.lists(st.text(), max_size=3).map(tuple),
        st.none() | st.dictionaries(st.text(max_size=4), st.integers(-100, 100), max_size=3),
    ),
    st.integers(0, 2**31),
)
def test_envelopes_round_trip(sample: Sample, ident: int) -> None:
    for env in (
        Request(ident, sample, stream=True, timeout=1.5),
        Reply(ident, sample),
        StreamItem(ident, sample),
        Cancel(ident),
        Error(ident, "ValueError", "bad", "tb"),
    ):
        assert decode_envelope(encode_envelope(env)) == env


def test_a_message_that_cannot_be_json_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="cannot be encoded"):
        encode_envelope(Reply(1, Sample("x", number=2**70)))


def test_oversize_frame_is_refused_from_its_header() -> None:
    decoder = FrameDecoder(max_frame=100)
    with pytest.raises(ProtocolError, match="over the limit"):
        decoder.feed(b"\x7f\xff\xff\xff")
    with pytest.raises(ProtocolError, match="over the limit"):
        encode_frame(b"x" * 101, max_frame=100)


def test_truncated_frame_waits_for_the_rest() -> None:
    frame = encode_frame(b'{"k":"c","i":1}')
    decoder = FrameDecoder()
    assert decoder.feed(frame[:-1]) == []
    assert decoder.feed(frame[-1:]) == [b'{"k":"c","i":1}']


def test_unknown_type_in_a_valid_envelope_fails_only_that_call() -> None:
    env = decode_envelope(b'{"k":"r","i":9,"m":{"type":"no.such.thing"}}')
    assert isinstance(env, BadBody)
    assert env.id == 9
    assert "unknown message type" in str(env.error)


def test_duplicate_tags_are_refused() -> None:
    with pytest.raises(TypeError, match="already used"):

        @attrs.frozen
        class Other(Message, tag="test.codec.sample"):
            x: int


def test_a_field_that_does_not_fit_is_named() -> None:
    with pytest.raises(ProtocolError, match=r"expected int @ message\.number"):
        decode_message({"type": "test.codec.sample", "text": "x", "number": "many"})
    with pytest.raises(ProtocolError, match=r"required field missing @ message\.text"):
        decode_message({"type": "test.codec.sample"})


@attrs.frozen
class Secretive(Message, tag="test.codec.secretive"):
    user: str
    token: str = attrs.field(default="", repr=False)
    shown: int = attrs.field(default=0, repr=lambda n: f"<{n}>")


def test_a_message_prints_its_fields_as_attrs_would_and_keeps_hidden_ones_hidden() -> None:
    assert repr(Sample("hi", 2, ("a",))) == "Sample(text='hi', number=2, items=('a',), extra=None)"
    assert repr(Secretive("ann", "s3cret", 7)) == "Secretive(user='ann', shown=<7>)"
    # the one shared __repr__, not one attrs wrote for the class
    assert Sample.__repr__ is Message.__repr__


def test_a_message_with_its_own_repr_keeps_it() -> None:
    @attrs.frozen
    class Own(Message):
        x: int

        def __repr__(self) -> str:
            return "own"

    assert repr(Own(1)) == "own"
