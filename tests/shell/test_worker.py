"""The shell worker process under the real supervisor: calls, chaos, shutdown."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import trio

from harness.actors.shell._ids import SessionIds
from harness.ipc import WorkerDied
from harness.messages.tools import ToolInvoke, ToolOutcome
from harness.supervisor import ChildSpec, WorkerHandle, open_supervisor

from .conftest import gone, py

ASK = py("print('got', input('Name? '))")


def shell_spec(tmp_path: Path, **env: str) -> ChildSpec:
    return ChildSpec(
        name="shell",
        module="harness.actors.shell",
        # Longer than the longest command timeout, plus the kill ladder.
        request_timeout=60.0,
        request_grace=5.0,
        # a worker that stops answering is killed 1.2-1.6 s later (three pings missed)
        heartbeat_interval=0.4,
        backoff_initial=0.05,
        shutdown_grace=3.0,
        env={"HARNESS_HOME": str(tmp_path / "home"), "HARNESS_SHELL_KILL_GRACE": "0.2", **env},
        cwd=str(tmp_path),
    )


@pytest.fixture
async def shell(tmp_path: Path) -> AsyncIterator[WorkerHandle]:
    async with open_supervisor() as sup:
        yield await sup.start(shell_spec(tmp_path))


async def call(h: WorkerHandle, name: str, workspace: Path, **arguments: Any) -> ToolOutcome:
    reply = await h.request(ToolInvoke(name=name, arguments=arguments, workspace=str(workspace)))
    assert isinstance(reply, ToolOutcome)
    return reply


async def test_run_cmd_through_the_worker(shell: WorkerHandle, tmp_path: Path) -> None:
    where = await trio.Path(tmp_path).resolve()
    out = await call(shell, "run_cmd", tmp_path, command="echo hello; pwd")
    assert out.ok
    assert out.output == f"hello\n{where}\n[exit code 0]"
    first = await call(shell, "run_cmd", tmp_path, command=ASK)
    assert first.data["status"] == "waiting"
    done = await call(shell, "send_input", tmp_path, session=first.data["session"], text="Zoe")
    assert "got Zoe" in done.output
    bad = await call(shell, "run_cmd", tmp_path, command="true", timeout="soon")
    assert not bad.ok
    assert "timeout must be number" in bad.output
    unknown = await call(shell, "delete_everything", tmp_path)
    assert not unknown.ok


async def test_a_flood_of_output_does_not_starve_the_worker(
    shell: WorkerHandle, tmp_path: Path
) -> None:
    # Heartbeats keep flowing while `yes` floods its terminal for longer than a worker
    # that stopped answering them would live (see shell_spec).
    out = await call(shell, "run_cmd", tmp_path, command="yes flood", timeout=2)
    assert out.data["status"] == "timeout"
    assert out.data["cut_lines"] > 0
    assert out.output.startswith("flood\nflood\n")
    assert gone([out.data["pid"]]) == []


async def test_kill_9_with_two_live_sessions(shell: WorkerHandle, tmp_path: Path) -> None:
    a = await call(shell, "run_cmd", tmp_path, command=ASK)
    b = await call(shell, "run_cmd", tmp_path, command="sleep 1000 & echo child=$!; read x")
    assert a.data["status"] == b.data["status"] == "waiting"
    child = int(b.output.split("child=")[1].split()[0])
    pids = [a.data["pid"], b.data["pid"], child]
    old = shell.pid
    # A third call is in flight when the worker dies: it fails at once, typed.
    failures: list[BaseException] = []

    async def in_flight() -> None:
        try:
            await call(shell, "run_cmd", tmp_path, command="sleep 1000")
        except WorkerDied as exc:
            failures.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(in_flight)
        await trio.sleep(0.5)
        shell.kill()
    assert len(failures) == 1
    assert gone(pids) == []
    for lost in (a, b):
        again = await call(shell, "send_input", tmp_path, session=lost.data["session"], text="x")
        assert not again.ok
        assert "lost when the shell worker restarted" in again.output
    assert shell.pid != old
    fresh = await call(shell, "run_cmd", tmp_path, command="echo alive")
    assert fresh.output == "alive\n[exit code 0]"
    # The new worker never reuses the lost sessions' ids.
    c = await call(shell, "run_cmd", tmp_path, command=ASK)
    assert c.data["session"] not in (a.data["session"], b.data["session"])


async def test_stopping_the_worker_ends_every_session(tmp_path: Path) -> None:
    async with open_supervisor() as sup:
        h = await sup.start(shell_spec(tmp_path))
        a = await call(h, "run_cmd", tmp_path, command=ASK)
        b = await call(h, "run_cmd", tmp_path, command="read x")
        await h.stop()
    assert gone([a.data["pid"], b.data["pid"]]) == []


async def test_counters_of_parents_that_are_gone_are_swept(tmp_path: Path) -> None:
    """Each session leaves its counter of command ids in the temp folder (its restarted
    shell worker must not hand out an id twice); the first command of a worker removes
    this user's counters whose parent process has ended, and no other file."""
    temp = tmp_path / "temp"
    temp.mkdir()
    ended = await trio.lowlevel.open_process(["true"])
    await ended.wait()
    uid = os.getuid()
    kept = [f"harness-shell-{uid}-{os.getpid()}.next", f"harness-shell-{uid + 1}-{ended.pid}.next"]
    kept += ["notes.txt", f"harness-shell-{uid}-x.next"]
    for name in [*kept, f"harness-shell-{uid}-{ended.pid}.next"]:
        (temp / name).write_text("00000000000000000003\n")
    async with open_supervisor() as sup:
        h = await sup.start(shell_spec(tmp_path, TMPDIR=str(temp)))
        out = await call(h, "run_cmd", tmp_path, command="echo hi")
        assert out.ok
        assert h.pid is not None
        own = f"harness-shell-{uid}-{psutil.Process(h.pid).ppid()}.next"
        assert sorted(os.listdir(temp)) == sorted([*kept, own])
    # a counter's name that is a symlink (planted in a shared folder) is never written
    # through: the ids are counted in memory
    planted = tmp_path / "elsewhere"
    planted.write_text("untouched\n")
    (temp / "link").symlink_to(planted)
    ids = SessionIds(str(temp / "link"))
    assert [ids.next(), ids.next()] == ["s1", "s2"]
    assert planted.read_text() == "untouched\n"


async def test_bad_settings_are_reported_on_every_call(tmp_path: Path) -> None:
    async with open_supervisor() as sup:
        h = await sup.start(shell_spec(tmp_path, HARNESS_SHELL_MAX_SESSIONS="lots"))
        out = await call(h, "run_cmd", tmp_path, command="echo hi")
    assert not out.ok
    assert "HARNESS_SHELL_MAX_SESSIONS='lots'" in out.output


async def test_arguments_are_bound_by_the_tool_table(shell: WorkerHandle, tmp_path: Path) -> None:
    # What the model is told (the table's schema) is what the worker accepts.
    coerced = await call(shell, "run_cmd", tmp_path, command="echo ok", timeout="5")
    assert coerced.ok, coerced.output
    for bad, why in [
        ({"command": "true", "timeout": 0.5}, "timeout must be at least 1"),
        ({"command": "true", "stdin": ["a", "b"]}, "stdin must be string"),
        ({"command": "true", "shell": "zsh"}, "unknown argument 'shell'"),
        ({"command": 5}, "command must be string"),
        ({}, "missing required argument 'command'"),
    ]:
        out = await call(shell, "run_cmd", tmp_path, **bad)
        assert not out.ok, bad
        assert why in out.output, (bad, out.output)
    missing = await call(shell, "send_input", tmp_path, session="s9")
    assert "missing required argument 'text'" in missing.output
