"""Stopping a stdio server the way the SDK does: close its stdin, then SIGTERM, then SIGKILL,
each step woken by the process's exit (a pidfd), not by polling."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import trio

from harness.actors.mcp._transports import _stop_early

IGNORES_STDIN = "import sys, time\nsys.stdin.close()\ntime.sleep(60)\n"


def _server(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, start_new_session=True
    )


async def _stop(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    stdin = trio.lowlevel.FdStream(proc.stdin.fileno())
    proc.stdin.detach()  # the stream owns the fd now
    with trio.fail_after(30):
        await _stop_early(proc, stdin)


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("import sys\nsys.stdin.read()\n", 0),  # leaves when its stdin closes
        (IGNORES_STDIN, -signal.SIGTERM),
        (
            "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + IGNORES_STDIN,
            -signal.SIGKILL,
        ),
    ],
    ids=["stdin", "sigterm", "sigkill"],
)
async def test_each_step_is_taken_only_when_the_one_before_fails(code: str, status: int) -> None:
    proc = _server(code)
    await _stop(proc)
    assert proc.returncode == status


async def test_a_server_already_gone_is_no_error() -> None:
    proc = _server("pass\n")
    proc.wait()
    await _stop(proc)
    assert proc.returncode == 0
