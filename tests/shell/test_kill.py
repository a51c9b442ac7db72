"""Each rung of the kill ladder, on real process trees."""

from __future__ import annotations

import os
import subprocess
import sys

from harness.actors.shell._kill import SESSION_VAR, find_tagged, kill_tree, session_processes

from .conftest import gone

TOKEN_ENV = {**os.environ, SESSION_VAR: "test-token"}


def start(script: str, token: str = "test-token") -> subprocess.Popen[bytes]:
    """``bash -c script`` in its own session (as a pty command is), tagged with *token*."""
    return subprocess.Popen(
        ["bash", "-c", script],
        env={**os.environ, SESSION_VAR: token},
        start_new_session=True,
        stdout=subprocess.PIPE,
    )


def pids_from(proc: subprocess.Popen[bytes], count: int) -> list[int]:
    assert proc.stdout is not None
    return [int(proc.stdout.readline()) for _ in range(count)]


def test_sigterm_rung_stops_a_polite_tree() -> None:
    proc = start("sleep 1000 & echo $!; sleep 1000 & echo $!; wait")
    kids = pids_from(proc, 2)
    assert kill_tree(proc.pid, proc.pid, "test-token", grace=2.0) == []
    proc.wait(timeout=5)
    assert proc.returncode == -15  # SIGTERM was enough
    assert gone(kids) == []


def test_sigkill_rung_stops_what_ignores_sigterm() -> None:
    proc = start("trap '' TERM; sleep 1000 & echo $!; while :; do sleep 0.05; done")
    kids = pids_from(proc, 1)
    assert kill_tree(proc.pid, proc.pid, "test-token", grace=0.2) == []
    proc.wait(timeout=5)
    assert proc.returncode == -9
    assert gone(kids) == []


def test_tag_scan_finds_a_reparented_setsid_escapee() -> None:
    proc = start("(setsid sh -c 'echo $$; exec sleep 1000' &); sleep 1000")
    escapee = pids_from(proc, 1)[0]
    assert os.getsid(escapee) != os.getsid(proc.pid)
    found = {p.pid for p in session_processes(proc.pid, proc.pid, "test-token")}
    assert escapee in found
    assert kill_tree(proc.pid, proc.pid, "test-token", grace=0.2) == []
    proc.wait(timeout=5)
    assert gone([escapee]) == []


def test_tag_scan_leaves_other_sessions_alone() -> None:
    mine = start("echo $$; sleep 1000", token="mine")
    other = start("echo $$; sleep 1000", token="other")
    try:
        pids_from(mine, 1)
        pids_from(other, 1)
        assert {p.pid for p in find_tagged("other")} == {other.pid}
        assert kill_tree(mine.pid, mine.pid, "mine", grace=0.2) == []
        assert other.poll() is None
    finally:
        kill_tree(other.pid, other.pid, "other", grace=0.2)
        mine.wait(timeout=5)
        other.wait(timeout=5)


def test_a_reaped_leader_limits_the_group_to_tagged_processes() -> None:
    proc = start("sleep 1000 & echo $!")
    kid = pids_from(proc, 1)[0]
    proc.wait(timeout=5)  # the leader is reaped: its pid could be reused
    found = session_processes(proc.pid, proc.pid, "test-token", group_is_ours=False)
    assert {p.pid for p in found} == {kid}
    assert kill_tree(proc.pid, proc.pid, "test-token", grace=0.2, group_is_ours=False) == []
    assert gone([kid]) == []
    assert sys.platform.startswith("linux")
