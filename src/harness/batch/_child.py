"""One attempt at a task: a child ``harness -p - --output-format stream-json`` process.

The child runs in its own session (its own process group) with its own supervisor
and workers. Its events go to a file as they come and are handed to a callback;
a timeout or a hard stop kills its whole tree; a soft stop (Ctrl+C) sends it SIGINT
first, so it ends its run as cancelled, then kills it after a grace period.

Synchronous on purpose: the child is started from the thread that waits for it, and
told to die with that thread (``PR_SET_PDEATHSIG``), so a killed driver or Ray worker
never leaves a session running. Run it in a thread of its own
(:func:`trio.to_thread.run_sync`), never from a thread that may end before the child.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import selectors
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import orjson

from harness.supervisor import kill_descendants

__all__ = ["Attempt", "Stop", "run_child"]

_PR_SET_PDEATHSIG = 1
_TAG_ENV = "HARNESS_WORKER_TAG"
_TAIL = 4000


@attrs.define
class Stop:
    """How a driver stops running attempts: ``soft`` (ask, then kill) or ``hard`` (kill)."""

    soft: threading.Event = attrs.field(factory=threading.Event)
    hard: threading.Event = attrs.field(factory=threading.Event)


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
    """

    result: dict[str, Any] | None
    status: int | None
    timed_out: bool = False
    interrupted: bool = False
    stderr_tail: str = ""


def _die_with_parent() -> None:  # pragma: no cover - runs in the forked child
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _kill_tree(proc: subprocess.Popen[bytes], tag: str) -> None:
    # descendants first, while the child still holds its tree together
    kill_descendants(proc.pid, tag, timeout=2.0)
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()


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
) -> Attempt:
    """Run *argv* (a stream-json headless harness) with *prompt* on its stdin.

    Every line it prints is appended to *events_path*; its stderr goes to
    *stderr_path*. Returns when the child and everything it started are gone.
    """
    stop = stop or Stop()
    tag = f"batch-{uuid.uuid4().hex[:16]}"
    env = {**environ, _TAG_ENV: tag}
    with open(stderr_path, "wb") as err, open(events_path, "wb") as events:
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
        try:
            outcome = _pump(proc, prompt, events, timeout, stop, on_event, grace, tag)
        finally:
            if proc.poll() is None:
                _kill_tree(proc, tag)
            proc.wait()
            # what the child left behind (a fork server that lost its parent)
            kill_descendants(proc.pid, tag, timeout=2.0)
    result, timed_out, interrupted = outcome
    return Attempt(
        result=result,
        status=proc.returncode,
        timed_out=timed_out,
        interrupted=interrupted,
        stderr_tail=_tail(stderr_path),
    )


def _pump(
    proc: subprocess.Popen[bytes],
    prompt: str,
    events: Any,
    timeout: float | None,
    stop: Stop,
    on_event: Callable[[dict[str, Any]], None] | None,
    grace: float,
    tag: str,
) -> tuple[dict[str, Any] | None, bool, bool]:
    assert proc.stdin is not None
    assert proc.stdout is not None
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.write(prompt.encode())
    with contextlib.suppress(BrokenPipeError):
        proc.stdin.close()
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    deadline = None if timeout is None else time.monotonic() + timeout
    soft_deadline: float | None = None
    result: dict[str, Any] | None = None
    partial = b""
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if stop.hard.is_set():
                _kill_tree(proc, tag)
                return result, False, True
            if deadline is not None and now >= deadline:
                _kill_tree(proc, tag)
                return result, True, False
            if stop.soft.is_set() and soft_deadline is None:
                soft_deadline = now + grace
                with contextlib.suppress(OSError):
                    proc.send_signal(signal.SIGINT)
            if soft_deadline is not None and now >= soft_deadline:
                _kill_tree(proc, tag)
                return result, False, True
            if not sel.select(0.1):
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                break
            events.write(chunk)
            events.flush()
            *lines, partial = (partial + chunk).split(b"\n")
            for line in lines:
                try:
                    event = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue
                if not isinstance(event, dict):
                    continue
                if event.get("type") == "result":
                    result = event
                if on_event is not None:
                    on_event(event)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        _kill_tree(proc, tag)
    return result, False, soft_deadline is not None
