"""The event vocabulary: every event the issue names exists, round-trips, carries its ids."""

import orjson
import pytest

from harness.conversation import events as ev
from harness.ipc import ProtocolError
from harness.messages.model import ToolCall

REQUIRED = {
    "session_started",
    "turn_started",
    "text_delta",
    "thinking_delta",
    "tool_call_requested",
    "tool_call_approved",
    "tool_call_denied",
    "tool_call_started",
    "tool_call_finished",
    "worker_exited",
    "worker_restarted",
    "worker_gave_up",
    "subagent_started",
    "subagent_finished",
    "turn_finished",
    "error",
    "result",
}


def test_every_required_event_exists() -> None:
    assert set(ev.event_types()) >= REQUIRED


def test_round_trip_through_json() -> None:
    event = ev.AssistantMessage(
        session_id="s1",
        text="hi",
        tool_calls=(ToolCall(id="c1", name="read_file", arguments={"path": "a"}),),
    )
    line = orjson.dumps(ev.encode_event(event))
    data = orjson.loads(line)
    assert data["type"] == "assistant_message"
    assert data["session_id"] == "s1"
    assert isinstance(data["ts"], float)
    assert ev.decode_event(data) == event


@pytest.mark.parametrize("tag", sorted(REQUIRED))
def test_each_event_carries_session_and_timestamp(tag: str) -> None:
    cls = ev.event_types()[tag]
    names = {f.name for f in cls.__attrs_attrs__}  # type: ignore[attr-defined]
    assert {"session_id", "ts"} <= names


def test_bad_input_is_a_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        ev.decode_event({"type": "nope", "session_id": "x"})
    with pytest.raises(ProtocolError):
        ev.decode_event({"type": "tool_call_finished", "session_id": "x"})
    with pytest.raises(ProtocolError):
        ev.decode_event({"type": "model.text", "text": "x"})
