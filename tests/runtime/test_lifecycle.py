"""A worker's life at its edges: a stop that comes before its first start, or during the
wait before a restart."""

from __future__ import annotations

from collections.abc import Callable

import psutil
import pytest
import trio
import trio.testing

from harness.ipc import WorkerUnavailable
from harness.supervisor import (
    ChildSpec,
    Supervisor,
    SupervisorEvent,
    WorkerExited,
    WorkerHandle,
)


async def test_a_stop_asked_before_the_first_start_ends_the_run_without_starting_it(
    make_spec: Callable[..., ChildSpec],
) -> None:
    # The supervisor starts a handle's run as a task of its nursery and its aclose stops
    # every handle: when the stop's task runs first, the run must see it. Here the order is
    # made certain: the stop has asked and waits before the run begins.
    events: list[SupervisorEvent] = []
    handle = WorkerHandle(make_spec(), events.append)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(handle.stop)
        await trio.testing.wait_all_tasks_blocked()
        # a lost stop leaves the worker running and the stop waiting for ever (the
        # supervisor's aclose gave up after 30 s)
        with trio.fail_after(5):
            await handle.run()
    assert events == []  # no process was started, so none exited
    assert handle.state == "stopped"
    assert handle.pid is None


async def test_a_restart_after_the_first_waits_its_backoff_and_a_stop_ends_that_wait(
    supervisor: Supervisor, make_spec: Callable[..., ChildSpec]
) -> None:
    # the first restart in a window is at once, the next one backoff_initial later: here
    # a minute, which the stop cuts short
    events = supervisor.subscribe()
    spec = make_spec(name="crasher", module="tests.runtime.workers.crasher", backoff_initial=60)

    async def start() -> None:
        with pytest.raises(WorkerUnavailable, match="is stopped"):
            await supervisor.start(spec, timeout=None)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(start)
        exits = 0
        with trio.fail_after(10):
            async for event in events:
                exits += isinstance(event, WorkerExited)
                if exits == 2:
                    break
        await trio.sleep(0.5)  # a restart not held back would have died again by now
        assert supervisor.get("crasher").state == "restarting"
        with pytest.raises(trio.WouldBlock):
            events.receive_nowait()  # nothing more: no start, no exit
        with trio.fail_after(10):
            await supervisor.stop("crasher")
    assert supervisor.get("crasher").state == "stopped"


async def test_a_cancelled_run_leaves_no_process(make_spec: Callable[..., ChildSpec]) -> None:
    # a run is a task of whoever supervises it: when that scope is cancelled (its nursery
    # fails, a frontend quits), the worker's process must go with it, not live on as an
    # orphan holding its socket
    events: list[SupervisorEvent] = []
    handle = WorkerHandle(make_spec(), events.append)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handle.run)
            await handle.wait_running()
            pid = handle.pid
            assert pid is not None
            nursery.cancel_scope.cancel()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert handle.state == "stopped"
    assert [(e.pid, e.reason) for e in events if isinstance(e, WorkerExited)] == [
        (pid, "cancelled")
    ]
