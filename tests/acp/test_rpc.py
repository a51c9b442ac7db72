"""The JSON-RPC stream of ``harness acp`` (``harness.acp._rpc``) fed whatever a broken
client might send: every line gets at most one answer, every answer is JSON-RPC 2.0,
and the well-formed requests among the garbage are still answered."""

from __future__ import annotations

from typing import Any

import orjson
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.acp._rpc import Connection


async def _echo(method: str, params: Any, notification: bool) -> Any:
    # the handler a test gives the connection: what it was asked, back
    return {"method": method, "params": params}


async def _feed(lines: list[bytes]) -> list[dict[str, Any]]:
    to_conn_send, to_conn_receive = trio.testing.memory_stream_one_way_pair()
    from_conn_send, from_conn_receive = trio.testing.memory_stream_one_way_pair()
    conn = Connection(to_conn_receive, from_conn_send, _echo, log=lambda _: None)
    out = bytearray()

    async def read_all() -> None:
        while chunk := await from_conn_receive.receive_some():
            out.extend(chunk)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_all)
        for line in lines:
            await to_conn_send.send_all(line + b"\n")
        await to_conn_send.aclose()
        with trio.fail_after(10):
            await conn.run()
        await from_conn_send.aclose()
    return [orjson.loads(line) for line in bytes(out).splitlines()]


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
_messages = st.one_of(
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
    _json.map(orjson.dumps),
    st.fixed_dictionaries(
        {"jsonrpc": st.sampled_from(["2.0", "1.0"]), "id": _json, "method": _json, "params": _json}
    ).map(orjson.dumps),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(_messages, max_size=12))
async def test_garbage_gets_at_most_one_answer_a_line_and_all_are_json_rpc(
    lines: list[bytes],
) -> None:
    good = orjson.dumps({"jsonrpc": "2.0", "id": "last", "method": "m", "params": {"a": 1}})
    answers = await _feed([*lines, good])
    assert len(answers) <= len(lines) + 1
    for answer in answers:
        assert answer["jsonrpc"] == "2.0"
        assert "id" in answer
        assert ("result" in answer) != ("error" in answer)
        if "error" in answer:
            assert isinstance(answer["error"]["code"], int)
    last = [a for a in answers if a.get("id") == "last"]
    assert last[-1]["result"] == {"method": "m", "params": {"a": 1}}


async def test_notifications_get_no_answer_and_answers_to_nothing_are_dropped() -> None:
    lines = [
        orjson.dumps({"jsonrpc": "2.0", "method": "note", "params": {}}),
        orjson.dumps({"jsonrpc": "2.0", "id": 99, "result": {}}),
        b"",
        orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "m"}),
    ]
    answers = await _feed(lines)
    assert answers == [{"jsonrpc": "2.0", "id": 1, "result": {"method": "m", "params": None}}]
