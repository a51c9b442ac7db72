"""The byte side of a channel: whole frames in and out of one non-blocking socket.

Everything here is about not paying for the scheduler when the kernel is ready:
a frame goes out with one ``send`` when the socket buffer has room, and frames
come in with one ``recv_into``; a task waits for the socket only when it must.
"""

from __future__ import annotations

import errno
import socket

import trio

from harness.ipc._framing import FrameDecoder, encode_frame

__all__ = ["FrameSocket"]

_READ_SIZE = 64 * 1024
# What a send or receive raises once the peer has gone.
_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class FrameSocket:
    """Length-prefixed frames over a connected socket the channel owns.

    Args:
        sock: a connected stream socket; it is made non-blocking.
        name: the peer's name, for error messages.
        max_frame: largest frame sent or accepted, in bytes.
    """

    def __init__(self, sock: socket.socket, name: str, max_frame: int) -> None:
        sock.setblocking(False)
        self.sock = sock
        self.name = name
        self.max_frame = max_frame
        self._decoder = FrameDecoder(max_frame)
        self._buf = bytearray(_READ_SIZE)
        self._view = memoryview(self._buf)
        self._lock = trio.StrictFIFOLock()
        self._drained = False

    # ------------------------------------------------------------------ receiving

    def receive_nowait(self) -> list[bytes] | None:
        """The whole frames that have arrived; ``None`` when the peer closed.

        Raises:
            BlockingIOError: nothing to read yet; wait with :meth:`wait_readable`.
            ProtocolError: a frame header is over the limit.
        """
        if self._drained:
            # The last read took less than it asked for: the socket was empty
            # then, and nobody has seen it readable since. Skip the syscall.
            raise BlockingIOError
        try:
            n = self.sock.recv_into(self._buf)
        except BlockingIOError:
            self._drained = True
            raise
        except OSError:  # the peer reset, or the socket was closed here
            return None
        if not n:
            return None
        self._drained = n < len(self._buf)
        return self._decoder.feed(self._view[:n])

    async def wait_readable(self) -> bool:
        """Wait until there is something to read; ``False`` if the socket was closed."""
        try:
            await trio.lowlevel.wait_readable(self.sock)
        except trio.ClosedResourceError:
            return False
        self._drained = False
        return True

    # ------------------------------------------------------------------ sending

    async def send(self, payload: bytes) -> None:
        """Send one frame: at once when the socket takes it, else wait for room.

        Once any byte of a frame is out, the rest follows shielded from
        cancellation (under the lock, so frames never interleave): a half frame
        would break the channel for every call, not just this one.

        Raises:
            trio.BrokenResourceError: the peer is gone.
            trio.ClosedResourceError: the socket was closed here.
            ProtocolError: the frame is over the limit.
        """
        data = encode_frame(payload, self.max_frame)
        lock = self._lock
        if not lock.locked():
            sent = self._send_some(data)
            if sent == len(data):
                return
            lock.acquire_nowait()  # free, and no checkpoint since: nobody got in
            try:
                with trio.CancelScope(shield=True):
                    await self._send_rest(memoryview(data)[sent:])
            finally:
                lock.release()
            return
        async with lock:
            with trio.CancelScope(shield=True):
                await self._send_rest(memoryview(data))

    def _send_some(self, data: bytes | memoryview) -> int:
        try:
            return self.sock.send(data)
        except BlockingIOError:
            return 0
        except _GONE as exc:
            raise trio.BrokenResourceError(f"{self.name}: the peer hung up") from exc
        except OSError as exc:
            if exc.errno == errno.EBADF:
                raise trio.ClosedResourceError(f"{self.name}: the channel is closed") from None
            raise trio.BrokenResourceError(f"{self.name}: {exc}") from exc

    async def _send_rest(self, data: memoryview) -> None:
        while data:
            sent = self._send_some(data)
            data = data[sent:]
            if data:
                await trio.lowlevel.wait_writable(self.sock)

    # ------------------------------------------------------------------ closing

    def close(self) -> None:
        """Close the socket: a task waiting on it wakes, later sends fail. Idempotent."""
        if self.sock.fileno() != -1:
            trio.lowlevel.notify_closing(self.sock)
            self.sock.close()
