"""The envelope every frame carries: who it answers and what kind of frame it is.

Wire form (one JSON object per frame; keys kept short because every call pays for them)::

    {"k": "q", "i": 7, "s": false, "t": 30.0, "m": {...}}   request (s: stream, t: timeout s)
    {"k": "r", "i": 7, "m": {...}}                          reply
    {"k": "y", "i": 7, "m": {...}}                          stream item
    {"k": "e", "i": 7}                                      stream end
    {"k": "c", "i": 7}                                      cancel
    {"k": "x", "i": 7, "n": "ValueError", "x": "...", "tb": "..."}   error
    {"k": "p", "i": 3}  /  {"k": "P", "i": 3, "rss": 123}   heartbeat ping / pong
    {"k": "h", "pid": 123}                                  hello: the worker is ready
    {"k": "s"}                                              shutdown

``t`` is a relative number of seconds: trio's clock has a random offset per process,
so absolute deadlines mean nothing to the other side.

Envelopes are plain (not frozen) slotted classes: each lives from one frame's
decoding to its dispatch inside this package, and a frozen one takes twice as
long to build, which two of them on each side of every round trip would pay.
"""

from __future__ import annotations

from typing import Any

import attrs
import orjson

from harness.ipc._errors import ProtocolError
from harness.ipc._messages import Message, decode_message, encode_message

__all__ = [
    "Cancel",
    "Control",
    "Envelope",
    "Error",
    "Hello",
    "Ping",
    "Pong",
    "Reply",
    "Request",
    "Shutdown",
    "StreamEnd",
    "StreamItem",
    "decode_envelope",
    "encode_envelope",
]


@attrs.define
class Request:
    id: int
    body: Message
    stream: bool = False
    timeout: float | None = None


@attrs.define
class Reply:
    id: int
    body: Message


@attrs.define
class StreamItem:
    id: int
    body: Message


@attrs.define
class StreamEnd:
    id: int


@attrs.define
class Cancel:
    id: int


@attrs.define
class Error:
    """The handler of request ``id`` failed (``type_name`` ``Cancelled`` when cancelled)."""

    id: int
    type_name: str
    message: str
    traceback: str = ""


@attrs.define
class Ping:
    seq: int


@attrs.define
class Pong:
    seq: int
    rss: int = 0


@attrs.define
class Hello:
    pid: int


@attrs.define
class Shutdown:
    pass


@attrs.define
class BadBody:
    """A frame whose envelope is fine but whose message does not decode.

    Kept apart from a broken frame: it fails one call, not the whole channel.
    """

    kind: str
    id: int
    error: ProtocolError


#: The frames that belong to no call: heartbeats, the worker's hello, shutdown.
Control = Ping | Pong | Hello | Shutdown
Envelope = (
    Request | Reply | StreamItem | StreamEnd | Cancel | Error | Ping | Pong | Hello | Shutdown
)


def encode_envelope(env: Envelope) -> bytes:
    """Serialise *env* to JSON bytes (without the length prefix)."""
    obj: dict[str, Any]
    if isinstance(env, Request):
        obj = {
            "k": "q",
            "i": env.id,
            "s": env.stream,
            "t": env.timeout,
            "m": encode_message(env.body),
        }
    elif isinstance(env, Reply):
        obj = {"k": "r", "i": env.id, "m": encode_message(env.body)}
    elif isinstance(env, StreamItem):
        obj = {"k": "y", "i": env.id, "m": encode_message(env.body)}
    elif isinstance(env, StreamEnd):
        obj = {"k": "e", "i": env.id}
    elif isinstance(env, Cancel):
        obj = {"k": "c", "i": env.id}
    elif isinstance(env, Error):
        obj = {"k": "x", "i": env.id, "n": env.type_name, "x": env.message, "tb": env.traceback}
    elif isinstance(env, Ping):
        obj = {"k": "p", "i": env.seq}
    elif isinstance(env, Pong):
        obj = {"k": "P", "i": env.seq, "rss": env.rss}
    elif isinstance(env, Hello):
        obj = {"k": "h", "pid": env.pid}
    else:
        obj = {"k": "s"}
    try:
        return orjson.dumps(obj)
    except orjson.JSONEncodeError as exc:
        raise ProtocolError(f"message cannot be encoded as JSON: {exc}") from None


def _int(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key)
    if type(value) is not int:
        raise ProtocolError(f"frame field {key!r} must be an integer")
    return value


def _str(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key, "")
    if not isinstance(value, str):
        raise ProtocolError(f"frame field {key!r} must be a string")
    return value


def decode_envelope(payload: bytes) -> Envelope | BadBody:
    """Parse one frame's payload.

    Raises:
        ProtocolError: the payload is not JSON, or not a valid envelope. A valid
            envelope whose message does not decode comes back as :class:`BadBody`.
    """
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        raise ProtocolError(f"frame is not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise ProtocolError("frame is not a JSON object")
    kind = obj.get("k")
    if kind == "r" or kind == "q" or kind == "y":
        ident = _int(obj, "i")
        try:
            body: Message = decode_message(obj.get("m"))
        except ProtocolError as exc:
            return BadBody(kind=kind, id=ident, error=exc)
        if kind == "r":
            return Reply(ident, body)
        if kind == "y":
            return StreamItem(ident, body)
        timeout = obj.get("t")
        if timeout is None:
            return Request(ident, body, obj.get("s") is True, None)
        # type(), not isinstance(): a JSON true is a bool, which is an int.
        if type(timeout) not in (int, float) or timeout < 0:
            raise ProtocolError("request timeout must be a non-negative number")
        return Request(ident, body, obj.get("s") is True, float(timeout))
    if kind == "e":
        return StreamEnd(_int(obj, "i"))
    if kind == "c":
        return Cancel(_int(obj, "i"))
    if kind == "x":
        return Error(_int(obj, "i"), _str(obj, "n"), _str(obj, "x"), _str(obj, "tb"))
    if kind == "p":
        return Ping(_int(obj, "i"))
    if kind == "P":
        rss = obj.get("rss", 0)
        return Pong(_int(obj, "i"), rss if type(rss) is int else 0)
    if kind == "h":
        return Hello(_int(obj, "pid"))
    if kind == "s":
        return Shutdown()
    raise ProtocolError(f"unknown frame kind {kind!r}")
