"""Starting one worker process: its socketpair, its output pipe, its own session."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from typing import Protocol

import attrs
import trio

from harness.ipc import IPC_FD_ENV, MAX_FRAME_ENV, WORKER_NAME_ENV, WORKER_TAG_ENV
from harness.supervisor._spec import ChildSpec

__all__ = ["ExecProcess", "OutputTail", "Spawned", "WorkerProcess", "spawn_worker", "worker_env"]


class WorkerProcess(Protocol):
    """What the supervisor needs of a worker's process, however it was started."""

    pid: int

    @property
    def returncode(self) -> int | None:
        """Its exit status once known (negative: killed by that signal)."""

    @property
    def exited(self) -> bool:
        """Whether it has ended (its status may still be unknown)."""

    async def wait(self) -> int | None:
        """Wait until it has ended; its return code."""


class ExecProcess:
    """A worker started as a new interpreter: our child, reaped by trio."""

    def __init__(self, process: trio.Process) -> None:
        self._process = process
        self.pid = process.pid

    @property
    def returncode(self) -> int | None:
        """Its exit status once reaped."""
        return self._process.returncode

    @property
    def exited(self) -> bool:
        """Whether it has ended and been reaped."""
        return self._process.returncode is not None

    async def wait(self) -> int | None:
        """Wait for it to end; its return code."""
        return await self._process.wait()


@attrs.define
class Spawned:
    """A started worker: its process, our end of the channel, its output pipe."""

    process: WorkerProcess
    sock: socket.socket
    output: trio.lowlevel.FdStream
    tag: str


def worker_env(spec: ChildSpec, tag: str) -> dict[str, str]:
    """A worker's environment: ours, the spec's, and what the worker base reads
    (all but the fd of its channel, which depends on how it is started)."""
    env = dict(os.environ)
    env.update(spec.env)
    env.pop(IPC_FD_ENV, None)
    env[MAX_FRAME_ENV] = str(spec.max_frame)
    env[WORKER_NAME_ENV] = spec.name
    env[WORKER_TAG_ENV] = tag
    return env


async def spawn_worker(spec: ChildSpec, tag: str) -> Spawned:
    """Start ``python -m <spec.module>`` in its own session with the channel on a passed fd.

    stdout and stderr share one pipe that the supervisor drains (never the
    terminal: a library printing to stdout must not reach the user's screen or a
    headless JSON stream).
    """
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    read_fd, write_fd = os.pipe()
    try:
        env = worker_env(spec, tag)
        env[IPC_FD_ENV] = str(theirs.fileno())
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", spec.module, *spec.args],
            stdin=subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            pass_fds=(theirs.fileno(),),
            start_new_session=True,
            env=env,
            cwd=spec.cwd,
        )
    except BaseException:
        ours.close()
        os.close(read_fd)
        raise
    finally:
        theirs.close()
        os.close(write_fd)
    return Spawned(ExecProcess(process), ours, trio.lowlevel.FdStream(read_fd), tag)


class OutputTail:
    """The last *limit* bytes a worker wrote to stdout/stderr."""

    def __init__(self, limit: int = 64 * 1024) -> None:
        self.limit = limit
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        self._buf += data
        if len(self._buf) > 2 * self.limit:
            del self._buf[: len(self._buf) - self.limit]

    def text(self, lines: int = 20) -> str:
        """The last *lines* lines, decoded leniently."""
        tail = self._buf[-self.limit :].decode("utf-8", "replace")
        return "\n".join(tail.rstrip("\n").splitlines()[-lines:])

    async def drain(self, stream: trio.lowlevel.FdStream) -> None:
        """Read *stream* until EOF, keeping the tail."""
        try:
            while True:
                data = await stream.receive_some(65536)
                if not data:
                    return
                self.feed(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return
