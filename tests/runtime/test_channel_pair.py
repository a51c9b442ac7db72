"""Two channels over a real socketpair in one process: the reading and sending paths.

Lanes that take turns reading and serve the requests they read: these tests drive calls
from both ends at once, frames larger than the socket buffer, callers that time out
or walk away, handlers that call back, deadlines carried by a request, and a peer
that hangs up.
"""

from __future__ import annotations

import socket
import time
from collections.abc import AsyncIterator

import pytest
import trio
import trio.testing

from harness.ipc import (
    Channel,
    ChannelClosed,
    FrameDecoder,
    Ping,
    RequestTimeout,
    Router,
    encode_frame,
)
from harness.ipc._channel import SPARE_LANES
from harness.ipc._envelope import (
    BadBody,
    Cancel,
    Envelope,
    Error,
    Reply,
    Request,
    decode_envelope,
    encode_envelope,
)
from tests.runtime.workers.messages import (
    AskParent,
    BlockLoop,
    Count,
    Echo,
    Echoed,
    Number,
    Sleep,
)


def _router(side: str) -> Router:
    router = Router()

    @router.handle(Echo)
    async def echo(req: Echo) -> Echoed:
        await trio.lowlevel.checkpoint()
        return Echoed(f"{side}:{req.text}", 0)

    @router.handle(Sleep)
    async def sleep(req: Sleep) -> Echoed:
        await trio.sleep(req.seconds)
        return Echoed("slept", 0)

    @router.handle(BlockLoop)
    async def block(req: BlockLoop) -> Echoed:
        time.sleep(req.seconds)  # noqa: ASYNC251 - a handler that never waits is the point
        await trio.lowlevel.checkpoint()  # ... but checkpoints, as any loop of awaits does
        return Echoed("unblocked", 0)

    @router.stream(Count)
    async def count(req: Count, emit) -> None:  # type: ignore[no-untyped-def]
        for i in range(req.n):
            await emit(Number(i))

    return router


@pytest.fixture
async def pair() -> AsyncIterator[tuple[Channel, Channel]]:
    a, b = socket.socketpair()
    left = Channel(a, name="right", router=_router("left"))
    right = Channel(b, name="left", router=_router("right"))
    async with trio.open_nursery() as nursery:
        await nursery.start(left.run)
        await nursery.start(right.run)
        yield left, right
        nursery.cancel_scope.cancel()
    await left.aclose()
    await right.aclose()


async def test_calls_from_both_ends_at_once_each_get_their_own_reply(
    pair: tuple[Channel, Channel],
) -> None:
    left, right = pair
    got: dict[tuple[str, int], str] = {}

    async def call(chan: Channel, side: str, i: int) -> None:
        reply = await chan.request(Echo(str(i)), timeout=10)
        assert isinstance(reply, Echoed)
        got[(side, i)] = reply.text

    # A broken channel would leave calls waiting: fail rather than hang.
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            for i in range(300):
                nursery.start_soon(call, left, "left", i)
                nursery.start_soon(call, right, "right", i)
    assert got == {
        **{("left", i): f"right:{i}" for i in range(300)},
        **{("right", i): f"left:{i}" for i in range(300)},
    }
    assert left.statistics().calls_in_flight == right.statistics().calls_in_flight == 0
    assert left.statistics().handlers_running == right.statistics().handlers_running == 0


async def test_frames_larger_than_the_socket_buffer_do_not_interleave(
    pair: tuple[Channel, Channel],
) -> None:
    left, right = pair
    big = "x" * (3 * 1024 * 1024)  # far over a socketpair's buffer: sent in many pieces

    async def large(chan: Channel, tag: str) -> None:
        reply = await chan.request(Echo(tag + big), timeout=30)
        assert isinstance(reply, Echoed)
        assert reply.text.endswith(tag + big)

    async def small(chan: Channel, i: int) -> None:
        reply = await chan.request(Echo(str(i)), timeout=30)
        assert isinstance(reply, Echoed)
        assert reply.text.endswith(f":{i}")

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            for tag in "abc":
                nursery.start_soon(large, left, tag)
                nursery.start_soon(large, right, tag)
            for i in range(50):
                nursery.start_soon(small, left, i)
                nursery.start_soon(small, right, i)
    assert left.statistics().frames_dropped == right.statistics().frames_dropped == 0


async def test_a_caller_timing_out_while_it_reads_hands_the_socket_on(
    pair: tuple[Channel, Channel],
) -> None:
    left, _right = pair
    for _ in range(20):
        with pytest.raises(RequestTimeout):
            await left.request(Sleep(5), timeout=0.01)
        reply = await left.request(Echo("after"), timeout=5)
        assert isinstance(reply, Echoed)
        assert reply.text == "right:after"

    # Callers leaving at random while others wait: the ones that stay are answered.
    answered = 0

    async def impatient() -> None:
        with trio.move_on_after(0.005):
            await left.request(Sleep(0.05), timeout=5)

    async def patient(i: int) -> None:
        nonlocal answered
        reply = await left.request(Echo(str(i)), timeout=5)
        assert isinstance(reply, Echoed)
        assert reply.text == f"right:{i}"
        answered += 1

    async with trio.open_nursery() as nursery:
        for i in range(100):
            nursery.start_soon(impatient)
            nursery.start_soon(patient, i)
    assert answered == 100


async def test_streams_and_requests_share_the_socket(pair: tuple[Channel, Channel]) -> None:
    left, right = pair
    numbers: list[int] = []

    async def consume() -> None:
        async with left.stream(Count(2000), timeout=30) as items:
            async for item in items:
                assert isinstance(item, Number)
                numbers.append(item.value)
                if item.value % 500 == 0:
                    await trio.sleep(0.01)  # a slow consumer: the reader waits for it

    async with trio.open_nursery() as nursery:
        nursery.start_soon(consume)
        for i in range(100):
            reply = await right.request(Echo(str(i)), timeout=10)
            assert isinstance(reply, Echoed)
            assert reply.text == f"left:{i}"
    assert numbers == list(range(2000))


async def test_a_peer_hanging_up_wakes_the_caller_that_reads() -> None:
    a, b = socket.socketpair()
    left = Channel(a, name="right", router=_router("left"))
    right = Channel(b, name="left", router=_router("right"))
    outcome: list[BaseException] = []

    async def run_left() -> None:
        await left.run()
        left.abort(ChannelClosed("the peer hung up"))

    async def waiting_caller() -> None:
        try:
            await left.request(Sleep(30), timeout=60)
        except ChannelClosed as exc:
            outcome.append(exc)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_left)
            async with trio.open_nursery() as inner:
                await inner.start(right.run)
                nursery.start_soon(waiting_caller)
                await trio.sleep(0.1)
                await right.aclose()  # the peer's socket closes under the call
    assert len(outcome) == 1
    assert "hung up" in str(outcome[0])
    await left.aclose()


async def test_a_handler_that_waits_lets_the_next_request_through(
    pair: tuple[Channel, Channel],
) -> None:
    left, _right = pair
    order: list[str] = []

    async def slow() -> None:
        await left.request(Sleep(0.5), timeout=10)
        order.append("slow")

    async def quick() -> None:
        await trio.sleep(0.05)  # the slow handler is waiting by now
        reply = await left.request(Echo("q"), timeout=10)
        assert isinstance(reply, Echoed)
        order.append("quick")

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(slow)
            nursery.start_soon(quick)
    assert order == ["quick", "slow"]


def _lanes() -> list[trio.lowlevel.Task]:
    """The tasks that read and serve requests (lanes) anywhere in this run."""
    found: list[trio.lowlevel.Task] = []
    tasks = [trio.lowlevel.current_root_task()]
    while tasks:
        task = tasks.pop()
        assert task is not None
        if task.name.endswith("._lane"):
            found.append(task)
        tasks.extend(t for n in task.child_nurseries for t in n.child_tasks)
    return found


async def test_requests_that_find_every_lane_busy_each_get_one() -> None:
    """Twenty handlers that wait for each other all run at once, sent in one write, and
    again once the first twenty are done; afterwards only a few idle lanes are kept."""
    router = Router()
    running: list[str] = []
    gates: list[trio.Event] = []

    @router.handle(Echo)
    async def wait_for_the_others(req: Echo) -> Echoed:
        running.append(req.text)
        await gates[-1].wait()
        return Echoed(req.text, 0)

    raw, theirs = socket.socketpair()
    server = Channel(theirs, name="caller", router=router)
    peer = RawPeer(raw)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            for burst in range(2):
                running.clear()
                gates.append(trio.Event())
                await peer.stream.send_all(
                    b"".join(
                        encode_frame(encode_envelope(Request(i, Echo(f"{burst}.{i}"), False, None)))
                        for i in range(20)
                    )
                )
                await trio.testing.wait_all_tasks_blocked()
                assert sorted(running) == sorted(f"{burst}.{i}" for i in range(20))
                gates[-1].set()
                replies: list[Envelope | BadBody] = []
                while len(replies) < 20:
                    frames = peer.decoder.feed(await peer.stream.receive_some(65536))
                    replies.extend(decode_envelope(f) for f in frames)
                assert sorted(r.id for r in replies if isinstance(r, Reply)) == list(range(20))
                await trio.testing.wait_all_tasks_blocked()
                assert len(_lanes()) == SPARE_LANES + 1  # and the one that reads
            nursery.cancel_scope.cancel()
    await server.aclose()
    await peer.stream.aclose()


async def test_a_handler_calling_back_before_it_waits() -> None:
    """A handler's own call to the peer is answered while the handler waits for it."""
    a, b = socket.socketpair()
    left = Channel(a, name="right", router=_router("left"))
    router = _router("right")
    right = Channel(b, name="left", router=router)

    @router.handle(AskParent)
    async def ask(req: AskParent) -> Echoed:
        back = await right.request(Echo(req.text), timeout=10)  # no wait before this
        assert isinstance(back, Echoed)
        return Echoed(f"asked {back.text}", 0)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(left.run)
            await nursery.start(right.run)
            for i in range(50):
                reply = await left.request(AskParent(str(i)), timeout=10)
                assert isinstance(reply, Echoed)
                assert reply.text == f"asked left:{i}"
            nursery.cancel_scope.cancel()
    await left.aclose()
    await right.aclose()


class RawPeer:
    """The far end of a channel, speaking frames by hand: no timers, no cancels of its own."""

    def __init__(self, sock: socket.socket) -> None:
        self.stream = trio.SocketStream(trio.socket.from_stdlib_socket(sock))
        self.decoder = FrameDecoder()

    async def send(self, env: Envelope) -> None:
        await self.stream.send_all(encode_frame(encode_envelope(env)))

    async def read_one(self) -> Envelope | BadBody:
        while True:
            frames = self.decoder.feed(await self.stream.receive_some(65536))
            if frames:
                assert len(frames) == 1
                return decode_envelope(frames[0])


@pytest.fixture
async def served() -> AsyncIterator[tuple[Channel, RawPeer]]:
    """A channel that serves ``_router("server")``, and a raw peer to call it."""
    raw, theirs = socket.socketpair()
    server = Channel(theirs, name="caller", router=_router("server"))
    peer = RawPeer(raw)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            yield server, peer
            nursery.cancel_scope.cancel()
    await server.aclose()
    await peer.stream.aclose()


async def test_the_deadline_a_request_carries_cancels_its_handler_on_the_serving_side(
    served: tuple[Channel, RawPeer],
) -> None:
    """Without any ``Cancel`` from the caller, the server gives up at the deadline.

    A handler that waits is cancelled at its deadline, and a request that follows
    keeps no deadline of the last one.
    """
    _server, peer = served
    started = trio.current_time()
    await peer.send(Request(1, Sleep(30), False, 0.2))
    answer = await peer.read_one()
    assert isinstance(answer, Error)
    assert (answer.id, answer.type_name) == (1, "Cancelled")
    assert 0.15 < trio.current_time() - started < 5
    # A request that follows keeps no deadline of the last one.
    await peer.send(Request(2, Sleep(0.4), False, 30))
    answer = await peer.read_one()
    assert isinstance(answer, Reply)
    assert answer.id == 2


async def test_a_handler_that_never_waits_is_cancelled_at_its_deadline(
    served: tuple[Channel, RawPeer],
) -> None:
    """The deadline is on the handler's scope from the start: a handler stuck in
    synchronous code past it is cancelled at its next checkpoint, though it never
    waited for anything."""
    _server, peer = served
    await peer.send(Request(1, BlockLoop(0.3), False, 0.1))
    answer = await peer.read_one()
    assert isinstance(answer, Error)
    assert (answer.id, answer.type_name) == (1, "Cancelled")
    # The same handler within its deadline answers: blocking alone is not what failed.
    await peer.send(Request(2, BlockLoop(0.05), False, 30))
    answer = await peer.read_one()
    assert isinstance(answer, Reply)
    assert answer.body == Echoed("unblocked", 0)


async def test_a_cancel_read_with_its_request_answers_before_the_handler_runs(
    served: tuple[Channel, RawPeer],
) -> None:
    """A caller that walks away at once sends its request and the cancel back to back,
    so both can come in one read: the request is answered ``Cancelled`` and its handler
    never runs. (Heard only at the handler's first checkpoint, a stream's first item went
    out first, and a handler that does not wait before its answer was served whole.)"""
    _server, peer = served
    both = [Request(1, Count(3), True, None), Cancel(1)]
    await peer.stream.send_all(b"".join(encode_frame(encode_envelope(e)) for e in both))
    frames: list[Envelope | BadBody] = []
    while not any(isinstance(f, Error) for f in frames):
        frames += map(decode_envelope, peer.decoder.feed(await peer.stream.receive_some(65536)))
    assert [(type(f).__name__, getattr(f, "type_name", None)) for f in frames] == [
        ("Error", "Cancelled")
    ]
    # the cancel, read after the request was answered, touches nothing else
    await peer.send(Request(1, Echo("again"), False, None))
    answer = await peer.read_one()
    assert isinstance(answer, Reply)
    assert answer.body == Echoed("server:again", 0)


async def test_leaving_the_callers_scope_cancels_that_handler_only() -> None:
    a, b = socket.socketpair()
    outcomes: list[str] = []
    router = Router()

    @router.handle(Sleep)
    async def sleep(req: Sleep) -> Echoed:
        try:
            await trio.sleep(req.seconds)
        except trio.Cancelled:
            outcomes.append(f"cancelled {req.seconds:g}")
            raise
        outcomes.append(f"slept {req.seconds:g}")
        return Echoed("slept", 0)

    caller = Channel(a, name="server")
    server = Channel(b, name="caller", router=router)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(caller.run)
            await nursery.start(server.run)
            long_call = trio.CancelScope()

            async def call_and_walk_away() -> None:
                with long_call:
                    await caller.request(Sleep(30), timeout=60)

            nursery.start_soon(call_and_walk_away)
            while server.statistics().handlers_running < 1:  # noqa: ASYNC110 - until it runs
                await trio.sleep(0.01)
            reply = await caller.request(Sleep(0.05), timeout=60)
            assert reply == Echoed("slept", 0)
            long_call.cancel()
            while caller.statistics().calls_in_flight:  # noqa: ASYNC110 - until the ack
                await trio.sleep(0.01)
            assert server.statistics().handlers_running == 0
            nursery.cancel_scope.cancel()
    assert outcomes == ["slept 0.05", "cancelled 30"]
    await caller.aclose()
    await server.aclose()


async def test_every_send_and_request_is_a_checkpoint(pair: tuple[Channel, Channel]) -> None:
    left, _right = pair
    with trio.testing.assert_checkpoints():
        await left.request(Echo("x"), timeout=5)
    with trio.testing.assert_checkpoints():
        await left.send_control(Ping(1))
    left.abort(ChannelClosed("closed here"))
    with trio.testing.assert_checkpoints(), pytest.raises(ChannelClosed):
        await left.request(Echo("y"), timeout=5)
