"""What a session opened in-process costs, with its fork server's warm and without.

A session opened by the Python API (or a test) starts its fork server and forks its
workers at once; the server's warm (``harness._forkstart.WORKER_PRELOAD``: the default
workers' and a sub-agent runner's modules) then imports beside them what they import
themselves. ``HARNESS_FORK_WARM=0`` leaves the warm out, as the test suite does. Each
turn opens a session (model and tools workers, the scripted model on loopback), runs
one prompt and closes it, with the warm and without, PAIRS times in turn; each figure
is the median: the CPU of the whole tree (this process and its reaped children) and
the wall time from the open to the close's end.
"""

from __future__ import annotations

import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import trio
from tests.scripted import ScriptedModel, reply

from bench._session import scripted_options
from harness.conversation import SessionOptions, open_session
from harness.conversation.workers import FORK_WARM_ENV

PAIRS = 7


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _options(ws: Path, home: Path, model: ScriptedModel) -> SessionOptions:
    return scripted_options(ws, home, model)


async def _one(ws: Path, home: Path, model: ScriptedModel) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one session's open, prompt and close."""
    cpu, wall = _cpu(), time.perf_counter()
    model.add(reply("hi", usage=None))
    async with open_session(_options(ws, home, model)) as s:
        assert (await s.run("hello")).ok
    return _cpu() - cpu, time.perf_counter() - wall


def run() -> list[tuple[str, str, str]]:
    load = os.getloadavg()[0]
    got: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    before = os.environ.get(FORK_WARM_ENV)
    try:
        with tempfile.TemporaryDirectory() as tmp, ScriptedModel() as model:
            ws, home = Path(tmp, "ws"), Path(tmp, "home")
            ws.mkdir()
            home.mkdir()
            trio.run(_one, ws, home, model)  # the first session pays this process's imports
            for _ in range(PAIRS):
                for warm in (True, False):
                    os.environ[FORK_WARM_ENV] = "1" if warm else "0"
                    got[warm].append(trio.run(_one, ws, home, model))
    finally:
        if before is None:
            os.environ.pop(FORK_WARM_ENV, None)
        else:
            os.environ[FORK_WARM_ENV] = before
    load = max(load, os.getloadavg()[0])
    cpu = {w: statistics.median(c for c, _ in got[w]) for w in got}
    wall = {w: statistics.median(t for _, t in got[w]) for w in got}
    return [
        (
            f"session open, prompt, close, with the warm (baseline, median of {PAIRS})",
            f"{cpu[True] * 1000:.0f} ms CPU, {wall[True] * 1000:.0f} ms",
            f"load average up to {load:.1f} on {os.cpu_count()} cores",
        ),
        (
            f"the same with {FORK_WARM_ENV}=0",
            f"{cpu[False] * 1000:.0f} ms CPU, {wall[False] * 1000:.0f} ms",
            f"{cpu[False] / cpu[True]:.2f}x the CPU, {wall[False] / wall[True]:.2f}x the time",
        ),
    ]
