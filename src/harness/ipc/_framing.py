"""Length-prefixed frames: a 4-byte big-endian length, then that many bytes of JSON."""

from __future__ import annotations

import struct

from harness.ipc._errors import ProtocolError

__all__ = ["DEFAULT_MAX_FRAME", "FrameDecoder", "encode_frame"]

DEFAULT_MAX_FRAME = 16 * 1024 * 1024
_HEADER = struct.Struct(">I")


def encode_frame(payload: bytes, max_frame: int = DEFAULT_MAX_FRAME) -> bytes:
    """Prefix *payload* with its length.

    Raises:
        ProtocolError: the payload is larger than *max_frame*.
    """
    if len(payload) > max_frame:
        raise ProtocolError(f"frame of {len(payload)} bytes is over the limit of {max_frame}")
    return _HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: feed bytes as they arrive, get whole payloads back.

    A length over ``max_frame`` raises :class:`ProtocolError` as soon as the header is
    read, before any of the body is buffered, so a hostile length cannot make us
    allocate.
    """

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._buf = bytearray()

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """Add *data*; return every payload that is now complete, in order."""
        buf = self._buf
        if buf:
            buf += data
            data = buf
        # Usually nothing is left over from the last read: the frames are cut
        # straight out of *data*, and only a partial tail is kept.
        frames: list[bytes] = []
        pos = 0
        end = len(data)
        while end - pos >= 4:
            (size,) = _HEADER.unpack_from(data, pos)
            if size > self.max_frame:
                raise ProtocolError(f"frame of {size} bytes is over the limit of {self.max_frame}")
            if end - pos - 4 < size:
                break
            frames.append(bytes(data[pos + 4 : pos + 4 + size]))
            pos += 4 + size
        if data is buf:
            del buf[:pos]
        elif pos < end:
            buf += data[pos:]
        return frames

    @property
    def pending(self) -> int:
        """Bytes received that do not make a whole frame yet."""
        return len(self._buf)
