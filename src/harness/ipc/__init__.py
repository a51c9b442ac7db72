"""Typed message channels between harness processes.

The public surface: :class:`Message` and its codec, the framed :class:`Channel`
(request/reply, streams, cancel), and the exception tree of :mod:`._errors`.
"""

from harness.ipc._errors import (
    ChannelClosed,
    IpcError,
    ProtocolError,
    RemoteError,
    RequestTimeout,
    WorkerDied,
    WorkerError,
    WorkerUnavailable,
)
from harness.ipc._messages import (
    Message,
    converter,
    decode_message,
    encode_message,
    message_types,
)

__all__ = [
    "ChannelClosed",
    "IpcError",
    "Message",
    "ProtocolError",
    "RemoteError",
    "RequestTimeout",
    "WorkerDied",
    "WorkerError",
    "WorkerUnavailable",
    "converter",
    "decode_message",
    "encode_message",
    "message_types",
]
