"""The worker the runtime benchmark talks to: echoes a payload back."""

from __future__ import annotations

import attrs

from harness.ipc import Message
from harness.worker import Worker


@attrs.frozen
class BenchPing(Message, tag="bench.ping"):
    payload: str
    seq: int = 0


@attrs.frozen
class BenchPong(Message, tag="bench.pong"):
    payload: str
    seq: int = 0


@attrs.frozen
class BenchHang(Message, tag="bench.hang"):
    pass


worker = Worker("bench")


@worker.handle(BenchPing)
async def ping(req: BenchPing) -> BenchPong:
    return BenchPong(req.payload, req.seq)


@worker.handle(BenchHang)
async def hang(req: BenchHang) -> BenchPong:
    import trio

    await trio.sleep_forever()
    raise AssertionError("unreachable")


if __name__ == "__main__":
    worker.run()
