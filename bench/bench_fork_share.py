"""Sessions opened one after the other in one process, each with a fork server of its own
(the baseline) and all on one shared fork server (``harness.supervisor.SharedForkServer``).

A session opened in-process (the Python API, a test) starts a fork server, which
imports trio, the channel and the worker base before its first fork, then forks the
model and tools workers. With a shared server offered, the session connects to the
one the process started once, with the default workers' modules imported too
(``harness._forkstart.WORKER_PRELOAD``), so its workers are forked with them. Each
turn opens a session on the scripted model, runs one prompt and closes it, the two
ways in turn, ``PAIRS`` times; each figure is the median: the CPU of the whole tree
(this process, its reaped children, and the shared server with the workers it has
reaped, read from ``/proc``) and the wall time from the open to the close's end.
Both ways run with the session's own warm left out (``HARNESS_FORK_WARM=0``, the test
suite's setting) and with it (the API's default).
"""

from __future__ import annotations

import contextlib
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import trio
from tests.scripted import ScriptedModel, reply

from bench._session import scripted_options
from harness._forkstart import WORKER_PRELOAD
from harness.conversation import open_session
from harness.conversation.workers import FORK_WARM_ENV
from harness.supervisor import SharedForkServer

PAIRS = 7


def _cpu(shared: SharedForkServer | None) -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    pid = None if shared is None else shared.pid
    if pid is not None:
        # the server is reaped only when it ends: its CPU and its reaped workers'
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


async def _one(
    ws: Path, home: Path, model: ScriptedModel, shared: SharedForkServer | None
) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one session's open, prompt and close."""
    cpu, wall = _cpu(shared), time.perf_counter()
    model.add(reply("hi", usage=None))
    async with open_session(scripted_options(ws, home, model)) as s:
        assert (await s.run("hello")).ok
    return _cpu(shared) - cpu, time.perf_counter() - wall


@contextlib.contextmanager
def _warm_setting(value: str) -> Iterator[None]:
    before = os.environ.get(FORK_WARM_ENV)
    os.environ[FORK_WARM_ENV] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(FORK_WARM_ENV, None)
        else:
            os.environ[FORK_WARM_ENV] = before


def run() -> list[tuple[str, str, str]]:
    load = os.getloadavg()[0]
    rows = []
    shared = SharedForkServer(warm=WORKER_PRELOAD)
    try:
        with tempfile.TemporaryDirectory() as tmp, ScriptedModel() as model:
            ws, home = Path(tmp, "ws"), Path(tmp, "home")
            ws.mkdir()
            home.mkdir()
            trio.run(_one, ws, home, model, None)  # the first session pays our imports
            with shared.offered():
                trio.run(_one, ws, home, model, shared)  # and the shared server's start
            for setting in ("0", "1"):
                got: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
                with _warm_setting(setting):
                    for _ in range(PAIRS):
                        got[False].append(trio.run(_one, ws, home, model, None))
                        with shared.offered():
                            got[True].append(trio.run(_one, ws, home, model, shared))
                cpu = {k: statistics.median(c for c, _ in v) for k, v in got.items()}
                wall = {k: statistics.median(t for _, t in v) for k, v in got.items()}
                rows += [
                    (
                        f"session open, prompt, close, {FORK_WARM_ENV}={setting}, own fork "
                        f"server (baseline, median of {PAIRS})",
                        f"{cpu[False] * 1000:.0f} ms CPU, {wall[False] * 1000:.0f} ms",
                        f"load average up to {max(load, os.getloadavg()[0]):.1f} "
                        f"on {os.cpu_count()} cores",
                    ),
                    (
                        f"the same, {FORK_WARM_ENV}={setting}, on the shared fork server",
                        f"{cpu[True] * 1000:.0f} ms CPU, {wall[True] * 1000:.0f} ms",
                        f"{cpu[True] / cpu[False]:.2f}x the CPU, "
                        f"{wall[True] / wall[False]:.2f}x the time",
                    ),
                ]
    finally:
        shared.close()
    return rows
