"""One attempt at a task: a headless ``harness -p - --output-format stream-json`` session.

The session is forked from this process's task server (a
:class:`harness.supervisor.SessionForker` that has imported all a headless session
needs, started once and kept for every task this process runs), or, when that
cannot be done, started as a new interpreter. Either way it runs in its own session
(its own process group) with its own supervisor and workers, and dies with this
process. Its events go to a file as they come and are handed to a callback; a
timeout or a hard stop kills its whole tree; a soft stop (Ctrl+C) sends it SIGINT
first, so it ends its run as cancelled, then kills it after a grace period.

Synchronous on purpose, and it waits without polling: one ``select`` on the
session's output, its pidfd and the stop's own descriptors. A session started as a
new interpreter is told to die with the thread that started it
(``PR_SET_PDEATHSIG``): run this in a thread of its own
(:func:`trio.to_thread.run_sync`), never from a thread that may end before it. A
forked one dies with the task server, which lives as long as this process.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import IO, Any, Protocol

import attrs
import orjson

from harness import _forkstart
from harness.supervisor import SessionForker, find_tagged, kill_descendants, kill_processes

__all__ = ["Attempt", "Flag", "Stop", "run_child", "start_task_server", "stop_task_server"]

_PR_SET_PDEATHSIG = 1
_TAG_ENV = "HARNESS_WORKER_TAG"
_TAIL = 4000
#: What a headless session imports beyond what every worker does: the task server
#: has it all before its first fork.
SESSION_PRELOAD = (
    "harness.settings",
    "harness.keys",
    "harness.cli",
    "harness.cli._headless",
    "harness.cli._session_options",
)


class Flag(threading.Event):
    """A :class:`threading.Event` a ``select`` loop can wait for: :meth:`fileno`
    turns readable once it is set (and stays so)."""

    def __init__(self) -> None:
        super().__init__()
        self._guard = threading.Lock()
        self._pipe: tuple[int, int] | None = None

    def fileno(self) -> int:
        """A descriptor that is readable once the flag is set."""
        with self._guard:
            if self._pipe is None:
                self._pipe = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
                if self.is_set():
                    os.write(self._pipe[1], b"x")
            return self._pipe[0]

    def set(self) -> None:
        with self._guard:
            was = self.is_set()
            super().set()
            if self._pipe is not None and not was:
                os.write(self._pipe[1], b"x")

    def __del__(self) -> None:
        if self._pipe is not None:
            for fd in self._pipe:
                with contextlib.suppress(OSError):
                    os.close(fd)


@attrs.define
class Stop:
    """How a driver stops running attempts: ``soft`` (ask, then kill) or ``hard`` (kill)."""

    soft: Flag = attrs.field(factory=Flag)
    hard: Flag = attrs.field(factory=Flag)


@attrs.frozen
class Attempt:
    """How one attempt ended.

    Attributes:
        result: the stream's ``result`` event, or ``None`` when the child ended without
            one (it crashed, was killed or timed out).
        status: the child's exit status (negative: the signal that ended it).
        timed_out: the task's timeout killed it.
        interrupted: a stop ended it.
        stderr_tail: the end of what it wrote on stderr.
        forked: it was forked from the task server (not a new interpreter).
    """

    result: dict[str, Any] | None
    status: int | None
    timed_out: bool = False
    interrupted: bool = False
    stderr_tail: str = ""
    forked: bool = False


_server: SessionForker | None = None
_server_lock = threading.Lock()


def start_task_server(environ: Mapping[str, str], shared: str | None = None) -> SessionForker:
    """This process's task server, started in the background on the first call with
    *environ* (a task whose interpreter settings differ is not forked from it).

    With *shared*, the server is the one every process of this user that names it
    shares (:class:`harness.supervisor.SessionForker`'s *shared*): the first starts
    it, the others connect to it, and it leaves with the last of them.
    """
    global _server
    with _server_lock:
        if _server is None:
            _server = SessionForker(
                (
                    *_forkstart.PRELOAD,
                    *_forkstart.WORKER_PRELOAD,
                    *_forkstart.RUNNER_PRELOAD,
                    *SESSION_PRELOAD,
                ),
                environ=environ,
                shared=shared,
            )
            _server.start()
        return _server


def stop_task_server() -> None:
    """Stop this process's task server, if it runs (a later task starts another)."""
    global _server
    with _server_lock:
        server, _server = _server, None
    if server is not None:
        server.close()


class _Session(Protocol):
    """What an attempt needs of its session's process, however it started."""

    pid: int

    @property
    def pidfd(self) -> int | None: ...

    @property
    def returncode(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> bool: ...

    def send_signal(self, sig: int) -> None: ...

    def close(self) -> None: ...


class _Spawned:
    """A session started as a new interpreter (when no task server could fork it)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.pidfd: int | None = None
        with contextlib.suppress(OSError, AttributeError):
            self.pidfd = os.pidfd_open(proc.pid)

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    def wait(self, timeout: float | None = None) -> bool:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def send_signal(self, sig: int) -> None:
        with contextlib.suppress(OSError):
            self.proc.send_signal(sig)

    def close(self) -> None:
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


def _die_with_parent() -> None:  # pragma: no cover - runs in the forked child
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _kill_tree(session: _Session, tag: str) -> None:
    # descendants first, while the child still holds its tree together
    kill_descendants(session.pid, tag, timeout=2.0)
    with contextlib.suppress(OSError):
        os.killpg(session.pid, signal.SIGKILL)
    session.send_signal(signal.SIGKILL)


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - _TAIL))
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def run_child(
    argv: Sequence[str],
    *,
    prompt: str,
    cwd: str,
    environ: Mapping[str, str],
    events_path: str,
    stderr_path: str,
    timeout: float | None = None,
    stop: Stop | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    grace: float = 5.0,
    fork: bool = True,
) -> Attempt:
    """Run *argv* (a stream-json headless harness) with *prompt* on its stdin.

    Every line it prints is appended to *events_path*; its stderr goes to
    *stderr_path*. With *fork* (and *argv* this interpreter's ``-m harness``), the
    session is forked from this process's task server, else it is a new process.
    Returns when the child and everything it started are gone.
    """
    stop = stop or Stop()
    # as long as a forked session's environment block can show
    tag = f"batch-{uuid.uuid4().hex}"[: SessionForker.TAG_LENGTH]
    env = {**environ, _TAG_ENV: tag}
    with open(stderr_path, "wb") as err, open(events_path, "wb") as events:
        session, stdin_fd, stdout_fd = _start(argv, cwd, env, err, tag, fork)
        try:
            outcome = _pump(
                session, stdin_fd, stdout_fd, prompt, events, timeout, stop, on_event, grace, tag
            )
        finally:
            os.close(stdout_fd)
            if not session.wait(0):
                _kill_tree(session, tag)
            session.wait()
            # What the child left behind (a worker that lost its supervisor), by its tag
            # alone: its pid may be another process's by now.
            kill_processes(find_tagged(tag), timeout=2.0)
            session.close()
    result, timed_out, interrupted = outcome
    return Attempt(
        result=result,
        status=session.returncode,
        timed_out=timed_out,
        interrupted=interrupted,
        stderr_tail=_tail(stderr_path),
        forked=not isinstance(session, _Spawned),
    )


def _start(
    argv: Sequence[str], cwd: str, env: dict[str, str], err: IO[bytes], tag: str, fork: bool
) -> tuple[_Session, int, int]:
    """The session, our end of its stdin and of its stdout."""
    if fork and list(argv[:3]) == [sys.executable, "-m", "harness"]:
        server = start_task_server(env)
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            forked = server.fork(
                "harness", argv[3:], env=env, cwd=cwd, stdio=(in_r, out_w, err.fileno()), tag=tag
            )
        finally:
            os.close(in_r)
            os.close(out_w)
        if forked is not None:
            return forked, in_w, out_r
        os.close(in_w)
        os.close(out_r)
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=err,
        cwd=cwd,
        env=env,
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    # the descriptors are ours now: the Popen objects would close them again
    stdin_fd, stdout_fd = os.dup(proc.stdin.fileno()), os.dup(proc.stdout.fileno())
    proc.stdin.close()
    proc.stdout.close()
    return _Spawned(proc), stdin_fd, stdout_fd


class _Events:
    """The session's stdout, line by line: appended to the events file, each JSON
    object handed to the callback, the ``result`` event kept."""

    def __init__(self, file: IO[bytes], on_event: Callable[[dict[str, Any]], None] | None):
        self.file = file
        self.on_event = on_event
        self.result: dict[str, Any] | None = None
        self._partial = b""

    def feed(self, chunk: bytes) -> None:
        self.file.write(chunk)
        self.file.flush()
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        for line in lines:
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(event, dict):
                continue
            if event.get("type") == "result":
                self.result = event
            if self.on_event is not None:
                self.on_event(event)


def _pump(
    session: _Session,
    stdin_fd: int,
    stdout_fd: int,
    prompt: str,
    events_file: IO[bytes],
    timeout: float | None,
    stop: Stop,
    on_event: Callable[[dict[str, Any]], None] | None,
    grace: float,
    tag: str,
) -> tuple[dict[str, Any] | None, bool, bool]:
    """Feed the prompt, read the events, watch the stops and the deadline; the
    result event, whether the deadline and whether a stop ended it. Closes *stdin_fd*."""
    events = _Events(events_file, on_event)
    unsent = memoryview(prompt.encode())
    os.set_blocking(stdin_fd, False)
    os.set_blocking(stdout_fd, False)
    now = time.monotonic()
    deadline = None if timeout is None else now + timeout
    soft_deadline: float | None = None
    ended = False
    with selectors.DefaultSelector() as sel, _closing(stdin_fd) as close_stdin:
        sel.register(stdout_fd, selectors.EVENT_READ, "out")
        sel.register(stdin_fd, selectors.EVENT_WRITE, "in")
        sel.register(stop.soft.fileno(), selectors.EVENT_READ, "soft")
        sel.register(stop.hard.fileno(), selectors.EVENT_READ, "hard")
        if session.pidfd is not None:
            sel.register(session.pidfd, selectors.EVENT_READ, "exit")
        while True:
            now = time.monotonic()
            if stop.hard.is_set():
                _kill_tree(session, tag)
                return events.result, False, True
            if deadline is not None and now >= deadline:
                _kill_tree(session, tag)
                return events.result, True, False
            if stop.soft.is_set() and soft_deadline is None:
                soft_deadline = now + grace
                sel.unregister(stop.soft.fileno())
                session.send_signal(signal.SIGINT)
            if soft_deadline is not None and now >= soft_deadline:
                _kill_tree(session, tag)
                return events.result, False, True
            waits = [t - now for t in (deadline, soft_deadline) if t is not None]
            for key, _ in sel.select(min(waits) if waits else None):
                if key.data == "in":
                    try:
                        unsent = unsent[os.write(stdin_fd, unsent) :]
                    except BlockingIOError:
                        continue
                    except OSError:  # it does not read its prompt any more
                        unsent = unsent[:0]
                    if not unsent:
                        sel.unregister(stdin_fd)
                        close_stdin()
                elif key.data == "out":
                    chunk = _read(stdout_fd)
                    if chunk is None:
                        continue
                    if not chunk:
                        ended = True
                    events.feed(chunk)
                elif key.data == "exit":
                    # Gone, though something may still hold its stdout: take what is there.
                    while chunk := _read(stdout_fd):
                        events.feed(chunk)
                    ended = True
            if ended:
                break
    if not session.wait(grace):
        _kill_tree(session, tag)
    return events.result, False, soft_deadline is not None


@contextlib.contextmanager
def _closing(fd: int) -> Iterator[Callable[[], None]]:
    """Close *fd* when the block ends, or earlier through the function it gives."""
    closed = False

    def close() -> None:
        nonlocal closed
        if not closed:
            closed = True
            os.close(fd)

    try:
        yield close
    finally:
        close()


def _read(fd: int) -> bytes | None:
    """What the pipe has (``b""`` at its end, ``None`` when nothing is there yet)."""
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None
