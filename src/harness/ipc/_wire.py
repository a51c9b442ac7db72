"""The byte side of a channel: whole frames in and out of one non-blocking socket."""

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

    One task receives; any number may send (a lock keeps their frames whole).
    Both :meth:`receive` and :meth:`send` are checkpoints, like trio's own streams.

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

    async def receive(self) -> list[bytes] | None:
        """Wait for the next whole frames; ``None`` once the stream has ended.

        The stream ends when the peer closes it, resets it, or the socket is
        closed here; a frame cut off by the end is dropped with it.

        Raises:
            ProtocolError: a frame header is over the limit.
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        waited = False
        while True:
            try:
                n = self.sock.recv_into(self._buf)
            except BlockingIOError:
                try:
                    await trio.lowlevel.wait_readable(self.sock)
                except trio.ClosedResourceError:
                    return None
                waited = True
                continue
            except OSError:  # the peer reset, or the socket was closed here
                return None
            if not n:
                return None
            frames = self._decoder.feed(self._view[:n])
            if frames:
                if not waited:
                    await trio.lowlevel.cancel_shielded_checkpoint()
                return frames

    async def send(self, payload: bytes, *, then_yield: bool = True) -> None:
        """Send one frame, waiting for room in the socket if there is none.

        A send that has not put out a byte yet can be cancelled; once part of a
        frame is out, the rest follows shielded from cancellation, since a half
        frame would break the channel for every call, not just this one.

        Args:
            payload: the frame's body.
            then_yield: let other tasks run once the frame is out, the second
                half of the checkpoint (default). ``False`` where the task waits
                right after anyway, for the reply it asked for or for its next
                request: a yield there would only add a turn of the scheduler.

        Raises:
            trio.BrokenResourceError: the peer is gone.
            trio.ClosedResourceError: the socket was closed here.
            ProtocolError: the frame is over the limit.
        """
        data = memoryview(encode_frame(payload, self.max_frame))
        # A checkpoint split in two around the send, as trio's own sockets do: the
        # frame goes out before this task yields, so the peer is already on it.
        await trio.lowlevel.checkpoint_if_cancelled()
        # Usually no other frame is partway out and the socket takes this one whole
        # at once: nothing waits, so there is no turn to take.
        sent = 0 if self._lock.locked() else self._send_some(data)
        if sent < len(data):
            await self._send_in_turn(data, sent)
        if then_yield:
            await trio.lowlevel.cancel_shielded_checkpoint()

    async def _send_in_turn(self, data: memoryview, sent: int) -> None:
        """The rest of a frame *sent* bytes into, holding the lock so that frames
        that wait for room in the socket go out whole and in order."""
        if sent:
            self._lock.acquire_nowait()  # nobody held it, and this task has not yielded
        else:
            await self._lock.acquire()  # after the frame that holds it, if any
            sent = self._send_some(data)
        try:
            while not sent:
                await trio.lowlevel.wait_writable(self.sock)
                sent = self._send_some(data)
            if sent < len(data):
                with trio.CancelScope(shield=True):
                    await self._send_rest(data[sent:])
        finally:
            self._lock.release()

    def _send_some(self, data: memoryview) -> int:
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
            await trio.lowlevel.wait_writable(self.sock)
            data = data[self._send_some(data) :]

    def close(self) -> None:
        """Close the socket: a task waiting on it wakes, later sends fail. Idempotent."""
        if self.sock.fileno() != -1:
            trio.lowlevel.notify_closing(self.sock)
            self.sock.close()
