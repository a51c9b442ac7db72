"""Chaos through the real supervisor: kill -9, hangs, leaks, garbage, escaping children."""

from __future__ import annotations

import os
import signal

import psutil
import pytest
import trio

from harness.ipc import RequestTimeout, WorkerDied, WorkerUnavailable
from harness.supervisor import (
    Supervisor,
    WorkerExited,
    WorkerGaveUp,
    WorkerRestarted,
    WorkerStarted,
)
from tests.runtime.workers.messages import (
    BlockLoop,
    Crash,
    Echo,
    IgnoreCancel,
    Leak,
    Sleep,
    SpawnTree,
    WriteGarbage,
)


async def wait_running(h, timeout: float = 10) -> None:
    await h.wait_running(timeout)


async def collect(events, kinds, timeout: float = 10) -> list:
    """Events until one of each of *kinds* (in order of arrival) has been seen."""
    seen = []
    wanted = list(kinds)
    with trio.fail_after(timeout):
        async for ev in events:
            seen.append(ev)
            if wanted and isinstance(ev, wanted[0]):
                wanted.pop(0)
            if not wanted:
                return seen
    return seen


def all_gone(pids, timeout: float = 5.0) -> list[int]:
    procs = []
    for pid in pids:
        try:
            procs.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            continue
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    return [p.pid for p in alive if p.status() != psutil.STATUS_ZOMBIE]


async def whole_tree(pid: int, pids) -> set[int]:
    """The worker's descendants once bash has started both of its sleeps (five in all)."""
    with trio.fail_after(10):
        while True:
            found = {p.pid for p in psutil.Process(pid).children(recursive=True)} | set(pids)
            if len(found) >= 5:
                return found
            await trio.sleep(0.02)


async def test_kill_9_fails_every_call_in_flight_and_the_worker_comes_back(
    supervisor: Supervisor, make_spec
) -> None:
    events = supervisor.subscribe()
    h = await supervisor.start(make_spec())
    old_pid = h.pid
    failures: list[BaseException] = []

    async def call() -> None:
        try:
            await h.request(Sleep(30), timeout=20)
        except WorkerDied as exc:
            failures.append(exc)

    async with trio.open_nursery() as nursery:
        for _ in range(3):
            nursery.start_soon(call)
        await trio.sleep(0.3)
        os.kill(old_pid, signal.SIGKILL)
    assert len(failures) == 3
    for exc in failures:
        assert exc.worker == "echo"
        assert exc.pid == old_pid
        assert exc.signal == signal.SIGKILL
        assert "killed by signal 9 (SIGKILL)" in str(exc)
    reply = await h.request(Echo("back"), timeout=10)
    assert reply.pid != old_pid
    seen = await collect(events, [WorkerStarted, WorkerExited, WorkerRestarted])
    exited = next(ev for ev in seen if isinstance(ev, WorkerExited))
    assert exited.exit_code == -signal.SIGKILL
    assert exited.reason == "exited"
    assert supervisor.status()[0].restarts == 1


async def test_exit_code_and_stderr_tail_reach_the_caller(supervisor: Supervisor, make_spec):
    h = await supervisor.start(make_spec())
    with pytest.raises(WorkerDied) as info:
        await h.request(Crash(code=3, message="the disk is on fire"), timeout=10)
    assert info.value.exit_code == 3
    assert "the disk is on fire" in info.value.stderr_tail
    assert "exited with code 3" in str(info.value)
    await h.request(Echo("ok"), timeout=10)


async def test_handler_that_ignores_cancel_is_killed_after_the_grace(
    supervisor: Supervisor, make_spec
) -> None:
    events = supervisor.subscribe()
    h = await supervisor.start(make_spec(request_grace=0.3))
    old_pid = h.pid
    with pytest.raises(RequestTimeout):
        await h.request(IgnoreCancel(60), timeout=0.2)
    seen = await collect(events, [WorkerExited, WorkerRestarted])
    exited = next(ev for ev in seen if isinstance(ev, WorkerExited))
    assert exited.reason == "deadline"
    assert exited.pid == old_pid
    assert (await h.request(Echo("fresh"), timeout=10)).pid != old_pid


async def test_missed_heartbeats_kill_and_restart(supervisor: Supervisor, make_spec) -> None:
    events = supervisor.subscribe()
    h = await supervisor.start(make_spec(heartbeat_interval=0.1, heartbeat_misses=3))
    old_pid = h.pid
    with pytest.raises(WorkerDied) as info:
        await h.request(BlockLoop(60), timeout=30)
    assert info.value.reason == "heartbeat"
    seen = await collect(events, [WorkerExited, WorkerRestarted])
    assert any(isinstance(ev, WorkerExited) and ev.reason == "heartbeat" for ev in seen)
    assert (await h.request(Echo("alive"), timeout=10)).pid != old_pid


async def test_memory_past_the_limit_kills_and_restarts(supervisor: Supervisor, make_spec):
    limit = 150 * 1024 * 1024
    h = await supervisor.start(make_spec(rss_limit=limit, heartbeat_interval=0.1))
    old_pid = h.pid
    with pytest.raises(WorkerDied) as info:
        await h.request(Leak(1000), timeout=30)
    assert info.value.reason == "memory"
    assert "over the limit" in info.value.stderr_tail
    assert (await h.request(Echo("lean again"), timeout=10)).pid != old_pid
    await trio.sleep(0.3)
    (row,) = supervisor.status()
    assert row.restarts == 1
    assert row.state == "running"
    assert 0 < row.rss < limit


async def test_kill_leaves_no_descendant_even_one_that_left_the_group(
    supervisor: Supervisor, make_spec
) -> None:
    events = supervisor.subscribe()
    h = await supervisor.start(make_spec())
    pids = (await h.request(SpawnTree(), timeout=10)).pids
    everyone = await whole_tree(h.pid, pids)
    with trio.fail_after(10):  # until setsid has run and exec'd sleep
        while os.getsid(pids[1]) == os.getsid(h.pid):  # noqa: ASYNC110 - no event for a sid
            await trio.sleep(0.02)
    h.kill()
    seen = await collect(events, [WorkerExited, WorkerRestarted])
    assert [ev.reason for ev in seen if isinstance(ev, WorkerExited)] == ["killed"]
    assert all_gone(everyone) == []


async def test_kill_9_from_outside_also_sweeps_the_orphans(supervisor: Supervisor, make_spec):
    h = await supervisor.start(make_spec())
    pids = (await h.request(SpawnTree(), timeout=10)).pids
    everyone = await whole_tree(h.pid, pids)
    os.kill(h.pid, signal.SIGKILL)  # no snapshot possible: only the tag finds them now
    with trio.fail_after(10):
        while h.state != "running" or all_gone(everyone, timeout=0) != []:  # noqa: ASYNC110
            await trio.sleep(0.05)
    assert all_gone(everyone) == []


async def test_restart_intensity_gives_up_without_a_storm(supervisor: Supervisor, make_spec):
    events = supervisor.subscribe()
    spec = make_spec(
        name="crasher",
        module="tests.runtime.workers.crasher",
        max_restarts=3,
        restart_period=60,
        backoff_initial=0.01,
    )
    with pytest.raises(WorkerUnavailable) as info:
        await supervisor.start(spec, timeout=30)
    assert "given up" in str(info.value)
    seen = await collect(events, [WorkerGaveUp])
    exits = [ev for ev in seen if isinstance(ev, WorkerExited)]
    assert len(exits) == 4  # the first start and three restarts, then nothing
    assert all(ev.exit_code == 4 for ev in exits), exits
    assert "giving up at start" in exits[-1].stderr_tail
    await trio.sleep(0.3)
    assert supervisor.status()[0].state == "gave_up"
    with pytest.raises(WorkerUnavailable):
        await supervisor.get("crasher").request(Echo("x"), timeout=1)


async def test_garbage_from_a_worker_is_a_protocol_error_not_a_crash(
    supervisor: Supervisor, make_spec
) -> None:
    events = supervisor.subscribe()
    h = await supervisor.start(make_spec())
    # A length prefix claiming 2 GiB: refused from the header alone.
    with pytest.raises(WorkerDied) as info:
        await h.request(WriteGarbage("7fffffff00"), timeout=10)
    assert info.value.reason == "protocol"
    seen = await collect(events, [WorkerExited, WorkerRestarted])
    exited = next(ev for ev in seen if isinstance(ev, WorkerExited))
    assert "over the limit" in exited.stderr_tail
    # Not JSON at all.
    with pytest.raises(WorkerDied):
        await h.request(WriteGarbage("00000003ffffff"), timeout=10)
    assert (await h.request(Echo("still fine"), timeout=10)).text == "still fine"


async def test_one_for_one(supervisor: Supervisor, make_spec) -> None:
    a = await supervisor.start(make_spec(name="a"))
    b = await supervisor.start(make_spec(name="b"))
    b_pid = b.pid
    a.kill()
    await a.wait_running(10)
    assert b.pid == b_pid
    assert (await b.request(Echo("b"), timeout=5)).pid == b_pid


async def test_status_lists_the_tree(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec(heartbeat_interval=0.1))
    await trio.sleep(0.5)  # a few heartbeats carry the RSS
    (row,) = supervisor.status()
    assert row.name == "echo"
    assert row.pid == h.pid
    assert row.state == "running"
    assert row.uptime > 0.3
    assert row.restarts == 0
    assert 5 * 1024 * 1024 < row.rss < 500 * 1024 * 1024


async def test_temporary_worker_is_not_restarted(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec(restart="temporary"))
    with pytest.raises(WorkerDied):
        await h.request(Crash(code=1), timeout=10)
    with pytest.raises(WorkerUnavailable):
        await h.request(Echo("x"), timeout=2)
    assert h.state == "stopped"
