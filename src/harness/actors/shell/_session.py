"""One live command: ``bash -c`` under a pty, in its own session and process group.

The pty's master end is read without blocking (the pool waits on it with trio); the
slave end is the command's stdin, stdout, stderr and controlling terminal, so a program
that opens ``/dev/tty`` (a password prompt) meets the same pty, never harness's own
terminal.

How it is started is :mod:`harness.actors.shell._spawn`'s business (``posix_spawn``
where it can, else ``setsid --ctty``, else pexpect's fork); a session only reads,
writes, reaps and kills.
"""

from __future__ import annotations

import errno
import os
import queue
import select
import shutil
import subprocess
import threading
import time

import pexpect
import trio

from harness.actors.shell._clean import StreamDecoder, TerminalCleaner
from harness.actors.shell._detect import tty_rdev
from harness.actors.shell._kill import kill_tree
from harness.actors.shell._spawn import SPAWN_POSIX, restore_signals, spawn_posix, spawn_setsid

__all__ = ["Session"]

_which_cache: dict[str, str | None] = {}
_closing: queue.SimpleQueue[int] | None = None


def _close_later(fd: int) -> None:
    """Close a pty master on a helper thread.

    The kernel flushes the terminal's buffers on the last close of a master, which
    can take milliseconds on a busy machine; nobody needs to wait for it.
    """
    global _closing
    if _closing is None:
        _closing = queue.SimpleQueue()
        threading.Thread(target=_closer, args=(_closing,), name="pty-closer", daemon=True).start()
    _closing.put(fd)


def _closer(fds: queue.SimpleQueue[int]) -> None:
    while True:
        fd = fds.get()
        try:
            os.close(fd)
        except OSError:
            pass


def _setsid() -> str | None:
    if "setsid" not in _which_cache:
        _which_cache["setsid"] = shutil.which("setsid")
    return _which_cache["setsid"]


class Session:
    """A command running under a pty.

    Attributes:
        id: the session id the model uses (``s1``).
        command: the command line as given.
        pid: the leader (``bash -c``, or bwrap); also its session and process group id.
        token: the ``HARNESS_SHELL_SESSION`` value every process of it inherits.
        timeout: seconds each call on it may wait.
        answers: ``stdin`` lines not yet sent, one per prompt.
        busy: a call is driving it right now.
        last_used: monotonic time the last call on it ended.
        read_only: started in plan mode (only such a session takes input there).
    """

    def __init__(
        self,
        sid: str,
        command: str,
        argv: list[str],
        *,
        cwd: str,
        env: dict[str, str],
        token: str,
        timeout: float,
        answers: list[str],
        rows: int,
        cols: int,
        fallback_encoding: str | None,
        spawner: str = "auto",
    ) -> None:
        self.id = sid
        self.command = command
        self.token = token
        self.timeout = timeout
        self.answers = list(answers)
        self.busy = False
        self.read_only = False
        self.started = time.monotonic()
        self.last_used = self.started
        self.decoder = StreamDecoder(fallback_encoding)
        self.cleaner = TerminalCleaner()
        self._popen: subprocess.Popen[bytes] | None = None
        self._child: pexpect.spawn | None = None
        self.slave_rdev: int | None = None
        slave: int | None
        setsid = _setsid() if spawner != "pexpect" else None
        if spawner == "auto" and SPAWN_POSIX:
            self.fd, slave, self.pid, self.slave_rdev = spawn_posix(argv, cwd, env, rows, cols)
        elif setsid is not None:
            spawned = spawn_setsid(setsid, argv, cwd, env, rows, cols)
            self.fd, slave, self._popen, self.slave_rdev = spawned
            self.pid = self._popen.pid
        else:
            self.fd, self.pid = self._spawn_pexpect(argv, cwd, env, rows, cols)
            self.slave_rdev = tty_rdev(self.pid)
            slave = None
        os.set_blocking(self.fd, False)
        # A pidfd turns readable the moment the leader exits, so the exit is seen
        # at once instead of at the next poll (Linux 5.3+; elsewhere we poll).
        self.pidfd: int | None = None
        if hasattr(os, "pidfd_open"):
            try:
                self.pidfd = os.pidfd_open(self.pid)
            except OSError:
                self.pidfd = None
        # An epoll set is itself pollable: readable when the pty has output or the
        # leader exits, so a call waits for both at once (a background job holding
        # the pty open does not hide the leader's exit). Holding the slave open as
        # well keeps the pty from hanging up when the leader closes it on its way
        # out: the exit then wakes the call once, not a hangup first and the exit
        # a moment later. :meth:`release_terminal` lets it go.
        self._ready: select.epoll | None = None
        self._slave: int | None = None
        if self.pidfd is not None and hasattr(select, "epoll"):
            self._ready = select.epoll()
            self._ready.register(self.fd, select.EPOLLIN)
            self._ready.register(self.pidfd, select.EPOLLIN)
            self._slave = slave
        elif slave is not None:
            os.close(slave)
        self.eof = False
        self.exit_code: int | None = None
        self.exit_signal: int | None = None
        self._reaped = False
        self.closed = False

    def _spawn_pexpect(
        self, argv: list[str], cwd: str, env: dict[str, str], rows: int, cols: int
    ) -> tuple[int, int]:
        child = pexpect.spawn(
            argv[0],
            argv[1:],
            cwd=cwd,
            env=env,
            dimensions=(rows, cols),
            encoding=None,
            preexec_fn=restore_signals,
        )
        # pexpect sleeps before every send and after close by default; we pace ourselves.
        child.delaybeforesend = None
        child.delayafterclose = 0
        child.delayafterterminate = 0
        child.ptyproc.delayafterclose = 0
        child.ptyproc.delayafterterminate = 0
        self._child = child
        return child.child_fd, child.pid

    def wait_fd(self) -> int | None:
        """A descriptor that turns readable on output or on the leader's exit.

        Without an epoll set: the pty until it is closed, then the pidfd; ``None``
        when there is neither (the caller polls).
        """
        if self.closed:
            return None
        if self._ready is not None:
            return self._ready.fileno()
        if not self.eof:
            return self.fd
        return self.pidfd

    def open_fds(self) -> list[int]:
        """Every descriptor of the session still open (trio must hear of their closing)."""
        if self.closed:
            return []
        fds = [self.fd]
        if self.pidfd is not None:
            fds.append(self.pidfd)
        if self._ready is not None:
            fds.append(self._ready.fileno())
        return fds

    def read_available(self, limit: int = 1 << 16) -> bytes:
        """What the command printed that is ready now (``b""`` if nothing); sets :attr:`eof`."""
        if self.eof or self.closed:
            return b""
        try:
            return os.read(self.fd, limit)
        except BlockingIOError:
            return b""
        except OSError as exc:
            # Linux reports the slave's last close as EIO on the master.
            if exc.errno in (errno.EIO, errno.EBADF):
                self.eof = True
                if self._ready is not None:
                    # A closed pty stays "ready" for good; from now on only the exit counts.
                    self._ready.unregister(self.fd)
                return b""
            raise

    async def write(self, data: bytes, timeout: float = 5.0) -> None:
        """Type *data* into the command's terminal, waiting (off the loop) while it is full.

        Raises:
            OSError: the terminal took nothing for *timeout* seconds (the command does
                not read), or it is closed.
        """
        view = memoryview(data)
        deadline = trio.current_time() + timeout
        while view:
            try:
                n = os.write(self.fd, view)
            except BlockingIOError:
                # The command is not reading. A pty master polls writable even then,
                # so there is no event to wait on.
                if trio.current_time() > deadline:
                    raise OSError("the command does not read its input") from None
                await trio.sleep(0.005)
                continue
            view = view[n:]

    def poll_exit(self) -> bool:
        """Whether the leader has exited (reaps it and records the status)."""
        if self._reaped:
            return True
        if self._popen is not None:
            code = self._popen.poll()
            if code is None:
                return False
            self.exit_code, self.exit_signal = (None, -code) if code < 0 else (code, None)
        elif self._child is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: the status is lost
                pid, status = self.pid, None
            if pid == 0:
                return False
            if status is not None:
                code = os.waitstatus_to_exitcode(status)
                self.exit_code, self.exit_signal = (None, -code) if code < 0 else (code, None)
        else:
            try:
                if self._child.isalive():
                    return False
            except pexpect.ExceptionPexpect:
                pass
            self.exit_code = self._child.exitstatus
            self.exit_signal = self._child.signalstatus
        self._reaped = True
        return True

    def kill(self, grace: float) -> list[int]:
        """Kill the command's whole tree (blocking, bounded); return survivors' pids."""
        survivors = kill_tree(self.pid, self.pid, self.token, grace, group_is_ours=not self._reaped)
        self.poll_exit()
        return survivors

    def release_terminal(self) -> None:
        """Stop holding the pty's slave end (the leader exited).

        Once nothing else holds it, reading the master returns what is left (the
        kernel first delivers output still in flight) and then reports the end.
        """
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None

    def close(self) -> None:
        """Release the pty (after :meth:`kill`, or once the command exited)."""
        if self.closed:
            return
        self.closed = True
        self.release_terminal()
        if self._ready is not None:
            self._ready.close()
            self._ready = None
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        if self._child is not None:
            try:
                self._child.close(force=True)
            except (OSError, pexpect.ExceptionPexpect):
                pass
        else:
            _close_later(self.fd)
        if not self._reaped:
            self.poll_exit()
