"""A test-only worker with one handler per thing that can go wrong."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import trio

from harness.ipc import Emit
from harness.worker import Worker
from tests.runtime.workers.messages import (
    AskParent,
    BlockLoop,
    Boom,
    Count,
    Crash,
    Echo,
    Echoed,
    Identity,
    IgnoreCancel,
    Leak,
    Number,
    Pids,
    Sleep,
    SpawnTree,
    WhoAmI,
    WriteGarbage,
)

# It has no shutdown hooks to wait for; the lifeline's grace is this plus a second, so a
# test whose worker loop is stuck waits two seconds for it, not six.
worker = Worker("echo", shutdown_grace=1.0)
_hoard: list[bytearray] = []


@worker.handle(Echo)
async def echo(req: Echo) -> Echoed:
    return Echoed(req.text, os.getpid())


@worker.handle(WhoAmI)
async def who_am_i(req: WhoAmI) -> Identity:
    from harness.ipc import IPC_FD_ENV

    return Identity(
        pid=os.getpid(),
        ppid=os.getppid(),
        sid=os.getsid(0),
        cwd=os.getcwd(),
        argv=list(sys.argv),
        variable=os.environ.get(req.variable),
        path0=sys.path[0],
        stdin=os.readlink("/proc/self/fd/0"),
        ipc_fd_inheritable=os.get_inheritable(int(os.environ[IPC_FD_ENV])),
    )


@worker.handle(Sleep)
async def sleep(req: Sleep) -> Echoed:
    await trio.sleep(req.seconds)
    return Echoed("slept", os.getpid())


@worker.stream(Count)
async def count(req: Count, emit: Emit) -> None:
    for i in range(req.n):
        if req.delay:
            await trio.sleep(req.delay)
        await emit(Number(i))


@worker.handle(Crash)
async def crash(req: Crash) -> Echoed:
    if req.message:
        sys.stderr.write(req.message + "\n")
        sys.stderr.flush()
    os._exit(req.code)


@worker.handle(Boom)
async def boom(req: Boom) -> Echoed:
    raise ValueError(req.message)


@worker.handle(BlockLoop)
async def block_loop(req: BlockLoop) -> Echoed:
    time.sleep(req.seconds)  # noqa: ASYNC251 - blocking the loop is the point
    return Echoed("unblocked", os.getpid())


@worker.handle(IgnoreCancel)
async def ignore_cancel(req: IgnoreCancel) -> Echoed:
    with trio.CancelScope(shield=True):
        await trio.sleep(req.seconds)
    return Echoed("done", os.getpid())


@worker.handle(Leak)
async def leak(req: Leak) -> Echoed:
    for _ in range(req.megabytes):
        block = bytearray(1024 * 1024)
        block[::4096] = b"x" * len(block[::4096])  # touch every page so it is resident
        _hoard.append(block)
        await trio.sleep(0.005)  # grow over time, as a real leak does, so heartbeats see it
    return Echoed(f"holding {len(_hoard)} MB", os.getpid())


@worker.handle(SpawnTree)
async def spawn_tree(req: SpawnTree) -> Pids:
    # Blocking Popen is fine here: these return at once, and this is a test worker.
    plain = subprocess.Popen(["sleep", "1000"])  # noqa: ASYNC220
    escaped = subprocess.Popen(["setsid", "sleep", "1000"])  # noqa: ASYNC220
    nested = subprocess.Popen(["bash", "-c", "sleep 1000 & sleep 1000 & wait"])  # noqa: ASYNC220
    return Pids((plain.pid, escaped.pid, nested.pid))


@worker.handle(AskParent)
async def ask_parent(req: AskParent) -> Echoed:
    reply = await worker.peer.request(Echo(req.text), timeout=5)
    assert isinstance(reply, Echoed)
    return Echoed("parent said " + reply.text, os.getpid())


@worker.handle(WriteGarbage)
async def write_garbage(req: WriteGarbage) -> Echoed:
    fd = int(os.environ["HARNESS_IPC_FD"])
    os.write(fd, bytes.fromhex(req.data))
    await trio.sleep(10)
    return Echoed("unreachable", os.getpid())


if __name__ == "__main__":
    worker.run()
