"""Running one hook command: a child process in a session of its own, killed with its
whole tree when its time is up.

The command runs as ``/bin/sh -c COMMAND`` in the workspace, with the payload on stdin
and ``CLAUDE_PROJECT_DIR``/``HARNESS_PROJECT_DIR`` set. It gets a session (and so a
process group) of its own and a ``HARNESS_HOOK_TAG`` in its environment: at its timeout
the group is killed, then every descendant and every process carrying the tag (which
finds what left the group with ``setsid``). Whatever the command left running after it
exited goes with its group too: a hook leaves no process behind.
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


async def _drain(stream: trio.abc.ReceiveStream | None, into: bytearray, done: trio.Event) -> None:
    try:
        while stream is not None:
            chunk = await stream.receive_some(65536)
            if not chunk:
                return
            if len(into) < _MAX_OUTPUT:
                into += chunk[: _MAX_OUTPUT - len(into)]
    finally:
        done.set()


async def _feed(stream: trio.abc.SendStream | None, data: bytes) -> None:
    if stream is None:
        return
    try:
        await stream.send_all(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass  # the hook did not read its input: that is its business
    finally:
        await stream.aclose()


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
    try:
        proc = await trio.lowlevel.open_process(
            ["/bin/sh", "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=os.fspath(cwd),
            env=environ,
            start_new_session=True,
        )
    except OSError as exc:
        return HandlerRun(None, error=f"could not start: {exc.strerror or exc}")
    out = bytearray()
    err = bytearray()
    timed_out = False
    left = ""
    try:
        with trio.move_on_after(timeout) as scope:
            async with trio.open_nursery() as nursery:
                out_done, err_done = trio.Event(), trio.Event()
                nursery.start_soon(_feed, proc.stdin, payload)
                nursery.start_soon(_drain, proc.stdout, out, out_done)
                nursery.start_soon(_drain, proc.stderr, err, err_done)
                await proc.wait()
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
                await proc.wait()
            else:
                _kill_group(proc.pid)  # what it left running in its group
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    await stream.aclose()
    ms = (time.perf_counter() - start) * 1000
    code = None if timed_out else proc.returncode
    return HandlerRun(code, _text(out), _text(err), ms, timed_out, left)
