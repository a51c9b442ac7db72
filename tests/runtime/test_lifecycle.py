"""A worker's life at its edges: a stop that comes before its first start."""

from __future__ import annotations

from collections.abc import Callable

import trio
import trio.testing

from harness.supervisor import ChildSpec, SupervisorEvent, WorkerHandle


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
