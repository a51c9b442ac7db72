"""Running one hook command: a child process in a session of its own, killed with its
whole tree when its time is up.

The command runs as ``/bin/sh -c COMMAND`` in the workspace, with the payload on stdin
and ``CLAUDE_PROJECT_DIR``/``HARNESS_PROJECT_DIR`` set; a command of plain words that
names a program (``python3 .harness/check.py``, ``npx prettier --write``) is run as that
program directly, as the shell would run it, and the shell ``exec``-s the program of any
other single simple command, so one process runs where there were two
(:mod:`harness.hooks._argv`).
It gets a session (and so a process group) of its own and a ``HARNESS_HOOK_TAG`` in its
environment: at its timeout the group is killed, then every descendant and every process
carrying the tag (which finds what left the group with ``setsid``). Whatever the command
left running after it exited goes with its group too: a hook leaves no process behind.

The process is started from the event loop's own thread (``subprocess`` uses vfork, so
the loop waits only until the exec, a fraction of a millisecond) rather than from a worker
thread as ``trio.run_process`` does: a thread hop each way costs two more wake-ups, which
a busy machine makes milliseconds. Its exit is seen on a pidfd; a payload that fits the
pipe is written at once.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import time
from collections.abc import Mapping

import attrs
import trio

from harness.hooks._argv import hook_argv, shell_argv

__all__ = ["HandlerRun", "run_command"]

TAG_ENV = "HARNESS_HOOK_TAG"
# Output past this is cut (a hook is a guard, not a data pipe); the cut is said.
_MAX_OUTPUT = 256 * 1024
# How long the pipes may stay open after the command exited (a child it left holding them)
_DRAIN = 0.2


@attrs.frozen
class HandlerRun:
    """What running a command gave.

    Attributes:
        exit_code: its exit status (negative: the signal that ended it); ``None`` when it
            did not start or was killed at its timeout.
        stdout: what it wrote to stdout (decoded, cut at 256 KiB).
        stderr: what it wrote to stderr.
        ms: milliseconds from start to its end (or its kill).
        timed_out: it ran past its timeout and was killed with its tree.
        error: why it could not start, or what was left after the kill.
    """

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    ms: float = 0.0
    timed_out: bool = False
    error: str = ""


class _Pipes:
    """The parent's ends of the child's stdin, stdout and stderr (non-blocking)."""

    def __init__(self) -> None:
        self.stdin = self.stdout = self.stderr = -1
        self.child: list[int] = []

    def open(self) -> None:
        in_r, self.stdin = os.pipe()
        self.stdout, out_w = os.pipe()
        self.stderr, err_w = os.pipe()
        self.child = [in_r, out_w, err_w]
        for fd in (self.stdin, self.stdout, self.stderr):
            os.set_blocking(fd, False)

    def close_child(self) -> None:
        for fd in self.child:
            os.close(fd)
        self.child = []

    def close_stdin(self) -> None:
        if self.stdin >= 0:
            os.close(self.stdin)
            self.stdin = -1

    def close(self) -> None:
        self.close_child()
        for fd in (self.stdin, self.stdout, self.stderr):
            if fd >= 0:
                trio.lowlevel.notify_closing(fd)
                os.close(fd)
        self.stdin = self.stdout = self.stderr = -1


def _spawn(
    program: str, argv: list[str], pipes: _Pipes, cwd: str, env: dict[str, str]
) -> subprocess.Popen[bytes]:
    in_r, out_w, err_w = pipes.child
    return subprocess.Popen(
        argv,
        executable=program,
        stdin=in_r,
        stdout=out_w,
        stderr=err_w,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )


def _start(command: str, pipes: _Pipes, cwd: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start *command*: directly when it is a plain program call, else (or when that
    program cannot be executed: a script with no ``#!`` line, say) through ``/bin/sh``."""
    pipes.open()
    try:
        direct = hook_argv(command, cwd, env.get("PATH"))
        if direct is not None:
            try:
                return _spawn(*direct, pipes, cwd, env)
            except OSError:
                pass  # the shell runs it (or says why not) as it always would
        return _spawn("/bin/sh", shell_argv(command), pipes, cwd, env)
    finally:
        pipes.close_child()


def _write_now(fd: int, data: bytes) -> bytes:
    """Write what the pipe takes at once; what is left."""
    try:
        return data[os.write(fd, data) :]
    except BlockingIOError:
        return data
    except OSError:
        return b""  # the hook closed its stdin: that is its business


async def _feed(fd: int, data: bytes, pipes: _Pipes) -> None:
    view = memoryview(data)
    try:
        while view:
            await trio.lowlevel.wait_writable(fd)
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                continue
    except OSError:
        pass  # the hook did not read all its input: that is its business
    finally:
        pipes.close_stdin()


async def _drain(fd: int, into: bytearray, done: trio.Event) -> None:
    try:
        while True:
            await trio.lowlevel.wait_readable(fd)
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                return
            if len(into) < _MAX_OUTPUT:
                into += chunk[: _MAX_OUTPUT - len(into)]
    finally:
        done.set()


async def _exited(proc: subprocess.Popen[bytes]) -> None:
    """Until *proc* has exited (and is reaped)."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except OSError:  # a kernel without pidfds: look now and then
        delay = 0.001
        while proc.poll() is None:
            await trio.sleep(delay)
            delay = min(delay * 2, 0.05)
        return
    try:
        await trio.lowlevel.wait_readable(pidfd)
    finally:
        trio.lowlevel.notify_closing(pidfd)
        os.close(pidfd)
    proc.wait()  # it has exited: this only reaps it


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_all(pid: int, tag: str) -> str:
    """SIGKILL the group, the tree and the tagged processes; what is left, said."""
    from harness.supervisor import find_tagged, kill_processes, snapshot_tree

    tree = snapshot_tree(pid)
    _kill_group(pid)
    left = kill_processes([*tree, *find_tagged(tag, variable=TAG_ENV)], timeout=0.5)
    if left:
        return f"{len(left)} of its processes could not be killed: " + ", ".join(
            str(p.pid) for p in left
        )
    return ""


def _text(data: bytearray) -> str:
    text = data.decode("utf-8", "replace")
    return text + "\n[output cut at 256 KiB]" if len(data) >= _MAX_OUTPUT else text


async def run_command(
    command: str,
    payload: bytes,
    *,
    cwd: str | os.PathLike[str],
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> HandlerRun:
    """Run *command* with *payload* on stdin; never raises for the command's faults.

    Args:
        command: the shell command.
        payload: the JSON the hook reads on stdin.
        cwd: the folder it runs in (the workspace).
        timeout: seconds before it is killed with its tree.
        env: its environment (default: this process's), a tag added.
    """
    tag = secrets.token_hex(8)
    environ = dict(os.environ if env is None else env)
    environ[TAG_ENV] = tag
    start = time.perf_counter()
    pipes = _Pipes()
    try:
        proc = _start(command, pipes, os.fspath(cwd), environ)
    except OSError as exc:
        pipes.close()
        return HandlerRun(None, error=f"could not start: {exc.strerror or exc}")
    out = bytearray()
    err = bytearray()
    timed_out = False
    left = ""
    try:
        rest = _write_now(pipes.stdin, payload)
        with trio.move_on_after(timeout) as scope:
            async with trio.open_nursery() as nursery:
                out_done, err_done = trio.Event(), trio.Event()
                if rest:
                    nursery.start_soon(_feed, pipes.stdin, rest, pipes)
                else:
                    pipes.close_stdin()
                nursery.start_soon(_drain, pipes.stdout, out, out_done)
                nursery.start_soon(_drain, pipes.stderr, err, err_done)
                await _exited(proc)
                # a child the command left may hold the pipes open: give them a moment
                with trio.move_on_after(_DRAIN):
                    await out_done.wait()
                    await err_done.wait()
                nursery.cancel_scope.cancel()
        timed_out = scope.cancelled_caught
    finally:
        with trio.CancelScope(shield=True):
            if proc.returncode is None or timed_out:
                left = await trio.to_thread.run_sync(_kill_all, proc.pid, tag)
                with trio.move_on_after(1.0):  # SIGKILLed: at once, but never hang on it
                    await _exited(proc)
            else:
                _kill_group(proc.pid)  # what it left running in its group
            pipes.close()
    ms = (time.perf_counter() - start) * 1000
    code = None if timed_out else proc.returncode
    return HandlerRun(code, _text(out), _text(err), ms, timed_out, left)
