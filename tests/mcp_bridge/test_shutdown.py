"""Stopping a stdio server the way the SDK does: close its stdin, then SIGTERM, then SIGKILL,
each step woken by the process's exit (a pidfd), not by polling."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import trio

from harness.actors.mcp._transports import _stop_early

# each child says "ready" once its signal handling is set: a short grace then cannot run
# out before it is
READY = "print('ready', flush=True)\n"
IGNORES_STDIN = "import sys, time\nsys.stdin.close()\n" + READY + "time.sleep(60)\n"
#: the wait between the steps here (2 s in a bridge): the steps are what is tested, and a
#: child that ignores a step makes the test wait it out
GRACE = 0.5


def _server(code: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.stdout.close()
    return proc


async def _stop(proc: subprocess.Popen[bytes], grace: float = GRACE) -> None:
    assert proc.stdin is not None
    stdin = trio.lowlevel.FdStream(proc.stdin.fileno())
    proc.stdin.detach()  # the stream owns the fd now
    with trio.fail_after(30):
        await _stop_early(proc, stdin, grace=grace)


@pytest.mark.parametrize(
    ("code", "grace", "status"),
    [
        # leaves when its stdin closes (the wait ends at its exit: a grace as long as a
        # bridge's costs nothing, and leaves the child time to exit on a busy machine)
        (READY + "import sys\nsys.stdin.read()\n", 2.0, 0),
        (IGNORES_STDIN, GRACE, -signal.SIGTERM),
        (
            "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + IGNORES_STDIN,
            GRACE,
            -signal.SIGKILL,
        ),
    ],
    ids=["stdin", "sigterm", "sigkill"],
)
async def test_each_step_is_taken_only_when_the_one_before_fails(
    code: str, grace: float, status: int
) -> None:
    proc = _server(code)
    await _stop(proc, grace)
    assert proc.returncode == status


async def test_a_server_already_gone_is_no_error() -> None:
    proc = _server(READY)
    proc.wait()
    await _stop(proc)
    assert proc.returncode == 0
