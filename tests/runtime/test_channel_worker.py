"""Request/reply, streams, concurrency and cancellation through a real worker process."""

from __future__ import annotations

import os

import pytest
import trio

from harness.ipc import RemoteError, RequestTimeout
from harness.supervisor import Supervisor, WorkerHandle
from tests.runtime.workers.messages import (
    AskParent,
    Boom,
    Count,
    Echo,
    Echoed,
    Number,
    Sleep,
)


async def test_request_reply(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec())
    reply = await h.request(Echo("hello"), timeout=5)
    assert reply == Echoed("hello", h.pid)
    assert h.pid != os.getpid()


async def test_stream_yields_every_item_in_order(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec())
    async with h.stream(Count(500), timeout=10) as items:
        got = [item async for item in items]
    assert got == [Number(i) for i in range(500)]


async def test_concurrent_requests_are_correlated(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec())
    results: dict[int, object] = {}

    async def one(i: int) -> None:
        results[i] = await h.request(Echo(f"m{i}"), timeout=10)

    async with trio.open_nursery() as nursery:
        for i in range(50):
            nursery.start_soon(one, i)
    assert {i: r.text for i, r in results.items()} == {i: f"m{i}" for i in range(50)}


async def test_cancel_one_of_several(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec())
    done: list[str] = []

    async def slow(name: str, seconds: float) -> None:
        await h.request(Sleep(seconds), timeout=10)
        done.append(name)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(slow, "a", 0.3)
        nursery.start_soon(slow, "b", 0.3)
        cancel_me = trio.CancelScope()

        async def cancelled() -> None:
            with cancel_me:
                await slow("c", 5)

        nursery.start_soon(cancelled)
        await trio.sleep(0.1)
        cancel_me.cancel()
    assert sorted(done) == ["a", "b"]
    # The worker cancelled that handler only, and is still serving.
    stats = h.statistics()
    assert stats is not None
    assert stats.calls_in_flight == 0
    assert (await h.request(Echo("still here"), timeout=5)).text == "still here"


def in_flight(h: WorkerHandle) -> int:
    stats = h.statistics()
    assert stats is not None  # the worker is running
    return stats.calls_in_flight


async def test_leaving_a_stream_early_cancels_it(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec())
    async with h.stream(Count(10_000, delay=0.01), timeout=30) as items:
        async for item in items:
            if item == Number(3):
                break
    with trio.fail_after(5):
        while in_flight(h):  # noqa: ASYNC110 - a peer counter has no event
            await trio.sleep(0.01)
    assert (await h.request(Echo("after"), timeout=5)).text == "after"


async def test_handler_error_is_remote_error(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec())
    with pytest.raises(RemoteError) as info:
        await h.request(Boom("nope"), timeout=5)
    assert info.value.type_name == "ValueError"
    assert info.value.message == "nope"
    assert "raise ValueError" in info.value.traceback
    assert info.value.worker == "echo"


async def test_timeout_is_request_timeout_and_worker_survives(
    supervisor: Supervisor, make_spec
) -> None:
    h = await supervisor.start(make_spec())
    pid = h.pid
    with pytest.raises(RequestTimeout) as info:
        await h.request(Sleep(10), timeout=0.2)
    assert info.value.request == "test.sleep"
    assert info.value.worker == "echo"
    # The handler honoured the cancel, so the worker was not killed.
    assert (await h.request(Echo("x"), timeout=5)).pid == pid


async def test_worker_can_call_the_parent(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec())

    async def answer(req: Echo) -> Echoed:
        return Echoed(req.text.upper(), os.getpid())

    h.on_request(Echo, answer)
    reply = await h.request(AskParent("hi"), timeout=5)
    assert reply.text == "parent said HI"
