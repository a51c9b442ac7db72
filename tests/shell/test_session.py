"""One session on a real pty: what a call waits on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio

from harness.actors.shell._drive import destroy
from harness.actors.shell._session import Session


def start(command: str, workspace: Path, spawner: str = "auto") -> Session:
    return Session(
        "s1",
        command,
        ["bash", "-c", command],
        cwd=str(workspace),
        env=dict(os.environ),
        token="test-token",
        timeout=30,
        answers=[],
        rows=24,
        cols=80,
        fallback_encoding=None,
        spawner=spawner,
    )


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="no pidfd here: the exit is polled")
async def test_the_leaders_exit_wakes_a_call_while_a_job_holds_the_terminal(
    workspace: Path,
) -> None:
    # The background sleep ignores the hangup the leader's exit sends it, so it keeps
    # the pty open and silent: only the exit itself can wake the call.
    s = start("trap '' HUP; sleep 30 & exit 0", workspace)
    try:
        with trio.fail_after(10):
            while not s.poll_exit():
                s.read_available()
                fd = s.wait_fd()
                assert fd is not None
                await trio.lowlevel.wait_readable(fd)
        assert s.exit_code == 0
        assert not s.eof  # the job still holds the terminal
    finally:
        await destroy(s, 0.2)
    assert s.wait_fd() is None
    assert s.open_fds() == []
