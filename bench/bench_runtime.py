"""Benchmarks of the runtime (issue: supervisor and typed IPC).

- round trip of a typed request/reply through a real worker process, p50/p99 and
  calls per second, beside a bare trio ping-pong of the same bytes with a peer
  process over a socketpair (no typing, no envelope decoding), in alternating
  blocks of 100 so that a change of load hits both alike; and the CPU both ends
  spend per round trip (Linux: each process's own time on a CPU, in nanoseconds),
  which does not move with where the scheduler puts the two processes as the wall
  time does;
- what the typed codec alone costs a round trip (in one process: the request and
  its reply each encoded to a frame and decoded back), the part of the difference
  that is not trio's extra task switches;
- crash to failure: ``kill -9`` of a worker -> its in-flight call fails;
- crash to ready: ``kill -9`` -> a replacement worker answers: forked by the fork
  server (the default), and started as a new interpreter (``fork=False``);
- start to first answer of a new worker, forked and as a new interpreter;
- idle RSS (and USS) of one worker process, beside ``python -c`` importing only trio.

Run: ``python -m bench runtime``.
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path

import attrs
import orjson
import psutil
import trio

from bench._echo_worker import BenchHang, BenchPing, BenchPong
from bench._timing import ms
from harness.ipc import FrameDecoder, WorkerDied, encode_frame, encode_message
from harness.ipc._envelope import Reply, Request, decode_envelope, encode_envelope
from harness.supervisor import ChildSpec, open_supervisor

ROOT = Path(__file__).resolve().parents[1]
ROUND_TRIPS = 3000
CRASHES = 15


def _spec() -> ChildSpec:
    env = {"PYTHONPATH": f"{ROOT}/src:{ROOT}"}
    return ChildSpec(name="bench", module="bench._echo_worker", env=env, heartbeat_interval=None)


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


BLOCK = 100  # round trips per block; typed and bare blocks alternate


@attrs.frozen
class RoundTrips:
    """Typed and bare round trips: samples (seconds), calls per second, and CPU seconds
    per round trip of both ends together (``None`` where ``/proc`` does not say)."""

    typed: list[float]
    bare: list[float]
    typed_rate: float
    bare_rate: float
    typed_cpu: float | None
    bare_cpu: float | None


def _cpu(pid: int) -> float:
    """Seconds process *pid* has run on a CPU (its main thread), from Linux's schedstat;
    0 where there is none."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0]) / 1e9
    except OSError:
        return 0.0


async def round_trips(n: int) -> RoundTrips:
    """Typed and bare round trips, in alternating blocks so load hits both alike."""
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen(  # noqa: ASYNC220 - started once, before anything is timed
        [sys.executable, "-m", "bench._bare_echo"],
        pass_fds=(theirs.fileno(),),
        env={**os.environ, "BARE_FD": str(theirs.fileno()), "PYTHONPATH": str(ROOT)},
    )
    theirs.close()
    ours.setblocking(False)
    stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
    # The same bytes a typed request carries, prepared once: no typing, no codec.
    body = orjson.dumps(
        {"k": "q", "i": 1, "s": False, "t": None, "m": encode_message(BenchPing("x" * 64, 1))}
    )
    frame = struct.pack(">I", len(body)) + body

    async def bare_one() -> None:
        await stream.send_all(frame)
        got = 0
        while got < len(frame):
            got += len(await stream.receive_some(65536))

    def both_ends(peer: int) -> float:
        return _cpu(peer) + time.thread_time()

    counted = _cpu(os.getpid()) > 0  # a system with schedstat

    typed: list[float] = []
    bare: list[float] = []
    typed_time = bare_time = 0.0
    typed_cpu = bare_cpu = 0.0
    try:
        async with open_supervisor() as sup:
            h = await sup.start(_spec())
            assert h.pid is not None
            for i in range(200):  # warm up both
                await h.request(BenchPing("x" * 64, i))
                await bare_one()
            for block in range(n // BLOCK):
                cpu = both_ends(h.pid)
                started = time.perf_counter()
                for i in range(BLOCK):
                    t0 = time.perf_counter()
                    await h.request(BenchPing("x" * 64, block * BLOCK + i))
                    typed.append(time.perf_counter() - t0)
                typed_time += time.perf_counter() - started
                typed_cpu += both_ends(h.pid) - cpu
                cpu = both_ends(proc.pid)
                started = time.perf_counter()
                for _ in range(BLOCK):
                    t0 = time.perf_counter()
                    await bare_one()
                    bare.append(time.perf_counter() - t0)
                bare_time += time.perf_counter() - started
                bare_cpu += both_ends(proc.pid) - cpu
    finally:
        await stream.aclose()
        proc.wait(5)
    return RoundTrips(
        typed,
        bare,
        len(typed) / typed_time,
        len(bare) / bare_time,
        typed_cpu / len(typed) if counted else None,
        bare_cpu / len(bare) if counted else None,
    )


def block_ratios(typed: list[float], bare: list[float]) -> list[float]:
    """Typed ÷ bare p50 of each pair of blocks run one after the other: the spread says
    how much the machine's state (load, which core wakes which process) moves the ratio."""
    return [
        statistics.median(typed[i : i + BLOCK]) / statistics.median(bare[i : i + BLOCK])
        for i in range(0, min(len(typed), len(bare)), BLOCK)
    ]


def codec_round_trip(n: int = 20_000) -> float:
    """Seconds the typed codec takes per round trip, median of 5 runs in this process.

    Each side's share: the request encoded, framed, cut out of the bytes and decoded,
    then the same for its reply. This is what the bare ping-pong skips besides trio's
    task switches.
    """
    decoder = FrameDecoder()

    def one(i: int) -> None:
        for env in (Request(i, BenchPing("x" * 64, i)), Reply(i, BenchPong("x" * 64, i))):
            (payload,) = decoder.feed(encode_frame(encode_envelope(env)))
            decode_envelope(payload)

    runs = []
    for _ in range(5):
        started = time.perf_counter()
        for i in range(n // 5):
            one(i)
        runs.append((time.perf_counter() - started) / (n // 5))
    return statistics.median(runs)


async def crash_timings(n: int, *, fork: bool = True) -> tuple[list[float], list[float]]:
    to_failure: list[float] = []
    to_ready: list[float] = []
    async with open_supervisor() as sup:
        spec = _spec()
        spec = ChildSpec(
            **{
                **_fields(spec),
                "max_restarts": n + 5,
                "backoff_initial": 0.0,
                "fork": fork,
            }
        )
        h = await sup.start(spec)
        for _ in range(n):
            await h.request(BenchPing("warm"))
            failed_at: list[float] = []

            async def in_flight(failed_at: list[float] = failed_at) -> None:
                try:
                    await h.request(BenchHang())
                except WorkerDied:
                    failed_at.append(time.perf_counter())

            async with trio.open_nursery() as nursery:
                nursery.start_soon(in_flight)
                await trio.sleep(0.05)
                pid = h.pid
                assert pid is not None
                killed_at = time.perf_counter()
                os.kill(pid, signal.SIGKILL)
            to_failure.append(failed_at[0] - killed_at)
            await h.request(BenchPing("back"), timeout=10)
            to_ready.append(time.perf_counter() - killed_at)
    return to_failure, to_ready


def _fields(spec: ChildSpec) -> dict[str, object]:
    return attrs.asdict(spec, recurse=False)


async def idle_worker_rss() -> tuple[int, int]:
    """RSS and USS (the pages no other process shares) of an idle forked worker."""
    async with open_supervisor() as sup:
        h = await sup.start(_spec())
        await h.request(BenchPing("x"))
        await trio.sleep(0.5)
        assert h.pid is not None
        info = psutil.Process(h.pid).memory_full_info()
        return int(info.rss), int(info.uss)


async def first_start(fork: bool) -> float:
    """Median wall time from ``Supervisor.start`` to a worker answering."""
    times = []
    async with open_supervisor() as sup:
        for i in range(5):
            spec = ChildSpec(**{**_fields(_spec()), "name": f"bench{i}", "fork": fork})
            t0 = time.perf_counter()
            h = await sup.start(spec)
            await h.request(BenchPing("x"))
            times.append(time.perf_counter() - t0)
            await h.stop()
    return statistics.median(times)


def bare_trio_start() -> float:
    """Median wall time of ``python -c "import trio"``: the floor under a fresh worker."""
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import trio"], check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bare_trio_rss() -> int:
    bare = subprocess.Popen([sys.executable, "-c", "import trio, time; time.sleep(5)"])
    time.sleep(1.0)
    rss = int(psutil.Process(bare.pid).memory_info().rss)
    bare.kill()
    bare.wait()
    return rss


def _cpu_row(trips: RoundTrips) -> tuple[str, str, str]:
    if trips.typed_cpu is None or trips.bare_cpu is None:
        return ("CPU per round trip, both ends", "-", "no /proc/<pid>/schedstat here")
    return (
        "CPU per round trip, both ends",
        _us(trips.typed_cpu),
        f"bare {_us(trips.bare_cpu)}; ratio {trips.typed_cpu / trips.bare_cpu:.2f}x (the "
        "wall ratio also moves with where the two processes run)",
    )


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs"


async def _all() -> list[tuple[str, str, str]]:
    trips = await round_trips(ROUND_TRIPS)
    typed, bare = trips.typed, trips.bare
    codec = codec_round_trip()
    failure, ready = await crash_timings(CRASHES)
    _, ready_exec = await crash_timings(CRASHES, fork=False)
    start_fork, start_exec = await first_start(True), await first_start(False)
    worker_rss, worker_uss = await idle_worker_rss()
    bare_rss = await trio.to_thread.run_sync(bare_trio_rss)
    trio_start = await trio.to_thread.run_sync(bare_trio_start)
    t50, b50 = statistics.median(typed), statistics.median(bare)
    ratios = block_ratios(typed, bare)
    return [
        (
            "typed round trip p50",
            _us(t50),
            f"bare {_us(b50)}; ratio {t50 / b50:.2f}x (goal < 2x, < 150 µs)",
        ),
        (
            "typed ÷ bare, block by block",
            f"{statistics.median(ratios):.2f}x",
            f"middle half {_pct(ratios, 0.25):.2f}-{_pct(ratios, 0.75):.2f}x over "
            f"{len(ratios)} pairs of blocks of {BLOCK}",
        ),
        ("typed round trip p99", _us(_pct(typed, 0.99)), f"bare {_us(_pct(bare, 0.99))}"),
        (
            "typed codec per round trip",
            _us(codec),
            f"{codec / max(t50 - b50, 1e-9):.0%} of what typed adds to bare; the rest is the "
            "caller woken by the lane that reads its reply, and each call's bookkeeping",
        ),
        (
            "typed calls per second",
            f"{trips.typed_rate:,.0f}",
            f"bare {trips.bare_rate:,.0f}; ratio {trips.bare_rate / trips.typed_rate:.2f}x",
        ),
        _cpu_row(trips),
        (
            "kill -9 -> in-flight call fails, p50",
            ms(statistics.median(failure)),
            f"max {ms(max(failure))} over {CRASHES} (goal < 50 ms)",
        ),
        (
            "kill -9 -> replacement answers, p50",
            ms(statistics.median(ready)),
            f"max {ms(max(ready))} over {CRASHES} (goal < 300 ms); forked by the fork server",
        ),
        (
            "kill -9 -> new interpreter answers, p50",
            ms(statistics.median(ready_exec)),
            f"max {ms(max(ready_exec))} (ChildSpec(fork=False)); "
            f"python -c 'import trio' alone {ms(trio_start)}",
        ),
        (
            "start -> first answer, p50",
            ms(start_fork),
            f"new interpreter (fork=False) {ms(start_exec)}; ratio {start_exec / start_fork:.1f}x",
        ),
        (
            "idle worker RSS",
            f"{worker_rss / 2**20:.1f} MiB",
            f"{worker_uss / 2**20:.1f} MiB its own (USS); "
            f"python importing only trio: {bare_rss / 2**20:.1f} MiB",
        ),
    ]


def run() -> list[tuple[str, str, str]]:
    """Every row of this benchmark: (what, figure, comparison)."""
    return trio.run(_all)


if __name__ == "__main__":
    for what, figure, note in run():
        print(f"{what:<40} {figure:>12}  {note}")
