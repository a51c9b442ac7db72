"""What the supervisor and its fork server say to each other, and how it crosses.

The fork server (``_zygote``) is a process that has imported trio, the channel
and the worker base once, and forks a worker from that state on request; see
``_forkserver`` for why. Its socket is ``SOCK_SEQPACKET``: one message a packet,
so no framing, and the descriptors a message carries (the worker's channel and
output pipe going in, a pidfd coming back) ride on the same packet as
``SCM_RIGHTS``. The messages are typed like every other.
"""

from __future__ import annotations

import array
import os
import socket

import attrs
import orjson

from harness.ipc import Message, ProtocolError, decode_message, encode_message

__all__ = [
    "ForkFailed",
    "ForkRequest",
    "Forked",
    "Reaped",
    "SessionRequest",
    "WarmRequest",
    "ZygoteReady",
    "pack_fds",
    "receive",
    "send",
    "unpack_fds",
]

MAX_PACKET = 1 << 20
MAX_FDS = 4


@attrs.frozen
class ZygoteReady(Message, tag="zygote.ready"):
    """The fork server has imported what it preloads and takes requests."""

    pid: int


@attrs.frozen
class ForkRequest(Message, tag="zygote.fork"):
    """Fork a worker that runs ``python -m <module> <args>``.

    Carries two descriptors: the worker's end of its channel, and the write end
    of the pipe its stdout and stderr go to.
    """

    module: str
    args: list[str]
    env: dict[str, str]
    cwd: str  # resolved by the supervisor: the server's own folder may differ


@attrs.frozen
class SessionRequest(Message, tag="zygote.session"):
    """Fork a whole session: ``python -m <module> <args>`` on stdio of its own.

    Carries three descriptors: its stdin, stdout and stderr. The child dies with
    the server (``PR_SET_PDEATHSIG``), and *tag* replaces the server's placeholder
    ``HARNESS_WORKER_TAG`` in the environment block ``/proc/PID/environ`` shows, so
    the session and everything forked from it are found by their tag.
    """

    module: str
    args: list[str]
    env: dict[str, str]
    cwd: str
    tag: str


@attrs.frozen
class WarmRequest(Message, tag="zygote.warm"):
    """Import *modules* too, while no request waits: what workers of module *worker*
    (started later, or restarted) need and the server did not preload.

    A worker of that module is forked only once they are imported, so that it never
    imports them itself beside the server. No reply: a module that does not import
    is said on the server's output, and the worker imports it itself.
    """

    worker: str
    modules: list[str]


@attrs.frozen
class Forked(Message, tag="zygote.forked"):
    """The worker is running as *pid*; the packet carries a pidfd for it."""

    pid: int


@attrs.frozen
class ForkFailed(Message, tag="zygote.fork_failed"):
    """The fork did not happen (the caller starts the worker the slow way)."""

    error: str


@attrs.frozen
class Reaped(Message, tag="zygote.reaped"):
    """Worker *pid* ended; *returncode* as :attr:`subprocess.Popen.returncode`."""

    pid: int
    returncode: int


def encode(msg: Message) -> bytes:
    """One packet's payload."""
    return orjson.dumps(encode_message(msg))


def decode(payload: bytes) -> Message:
    """A packet's message; :class:`ProtocolError` for anything else."""
    try:
        data = orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        raise ProtocolError(f"fork server sent undecodable bytes: {exc}") from None
    return decode_message(data)


def send(sock: socket.socket, msg: Message, fds: list[int] | tuple[int, ...] = ()) -> None:
    """Send *msg* (and *fds*) as one packet on a blocking socket."""
    socket.send_fds(sock, [encode(msg)], list(fds))


def receive(sock: socket.socket) -> tuple[Message | None, list[int]]:
    """The next packet on a blocking socket: ``(None, [])`` at EOF."""
    payload, fds, _flags, _addr = socket.recv_fds(sock, MAX_PACKET, MAX_FDS)
    if not payload:
        for fd in fds:
            _close(fd)
        return None, []
    try:
        return decode(payload), fds
    except ProtocolError:
        for fd in fds:
            _close(fd)
        raise


def pack_fds(fds: list[int]) -> bytes:
    """*fds* as an ``SCM_RIGHTS`` message's data (for a non-blocking ``sendmsg``)."""
    return array.array("i", fds).tobytes()


def unpack_fds(ancdata: list[tuple[int, int, bytes]]) -> list[int]:
    """The descriptors an ``SCM_RIGHTS`` message of *ancdata* (``recvmsg``'s) carried."""
    fds = array.array("i")
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
    return list(fds)


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
