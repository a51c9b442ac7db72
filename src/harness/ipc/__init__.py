"""Typed message channels between harness processes.

The public surface: :class:`Message` and its codec, the framed :class:`Channel`
(request/reply, streams, cancel), and the exception tree of :mod:`._errors`.

The channel (and with it trio) loads on first use, so a process that only needs
the message classes (to build a tool table, say) does not pay for the event loop.
"""

from typing import TYPE_CHECKING

from harness.ipc._envelope import Control, Hello, Ping, Pong, Shutdown
from harness.ipc._errors import (
    ChannelClosed,
    IpcError,
    ProtocolError,
    RemoteError,
    RequestTimeout,
    WorkerDied,
    WorkerError,
    WorkerUnavailable,
    describe_exit,
)
from harness.ipc._framing import DEFAULT_MAX_FRAME, FrameDecoder, encode_frame
from harness.ipc._messages import (
    Message,
    converter,
    decode_message,
    encode_message,
    message_types,
)
from harness.ipc._router import Emit, Router
from harness.ipc._transport import IPC_FD_ENV, MAX_FRAME_ENV, WORKER_NAME_ENV, WORKER_TAG_ENV

__all__ = [
    "DEFAULT_MAX_FRAME",
    "IPC_FD_ENV",
    "MAX_FRAME_ENV",
    "WORKER_NAME_ENV",
    "WORKER_TAG_ENV",
    "Channel",
    "ChannelClosed",
    "ChannelStatistics",
    "Control",
    "Emit",
    "FrameDecoder",
    "Hello",
    "IpcError",
    "Message",
    "MessageStream",
    "Ping",
    "Pong",
    "ProtocolError",
    "RemoteError",
    "RequestTimeout",
    "Router",
    "Shutdown",
    "WorkerDied",
    "WorkerError",
    "WorkerUnavailable",
    "converter",
    "decode_message",
    "describe_exit",
    "encode_frame",
    "encode_message",
    "message_types",
]

if TYPE_CHECKING:
    from harness.ipc._channel import Channel, ChannelStatistics, MessageStream

_LAZY = {"Channel", "ChannelStatistics", "MessageStream"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from harness.ipc import _channel

        return getattr(_channel, name)
    raise AttributeError(f"module 'harness.ipc' has no attribute {name!r}")
