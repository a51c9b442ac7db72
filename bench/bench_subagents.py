"""Sub-agents in parallel, beside one alone, measured in the same run.

- Wall time of N sub-agents (N = 1, 2, 4, 8, 16) hired at once, each doing 10
  scripted ``read_file`` rounds and then a report, beside one sub-agent alone. Each
  model reply takes 0.1-0.2 s (the scripted server waits before each streamed piece),
  so the work is I/O-bound, as with a real model. Goal: 8 in parallel within 1.5x of one alone.
- Memory of a runner while it waits on its model: RSS, and USS (the pages it does not
  share with the fork server it was forked from). Goal: RSS under 60 MB.
- From ``subagent_started`` to the runner's first model request reaching the model
  server: one alone (median of 5), and the median of 8 started at once. Goal: at most
  100 ms.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import trio
from tests.scripted import Reply, ScriptedModel, call, reply

from bench._session import scripted_options
from harness.conversation import SessionOptions, SubagentLimits, Task, open_session
from harness.conversation import events as ev

ROUNDS = 10
COUNTS = (1, 2, 4, 8, 16)
DELAY = 0.03  # before each streamed piece: a reply of a few pieces takes 0.1-0.2 s


class _Script:
    """Each sub-agent (told apart by its task) reads ROUNDS times, then reports."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: dict[str, int] = {}
        self.first: dict[str, float] = {}

    def __call__(self, body: dict[str, Any]) -> Reply:
        task = next(str(m["content"]) for m in body["messages"] if m["role"] == "user")
        with self.lock:
            n = self.seen.get(task, 0)
            self.seen[task] = n + 1
            self.first.setdefault(task, time.monotonic())
        if n < ROUNDS:
            return reply("", call("read_file", path="src.py"), delay=DELAY, usage=None)
        return reply(f"{task}: read it {ROUNDS} times", delay=DELAY, usage=None)


def _options(ws: Path, home: Path, model: ScriptedModel) -> SessionOptions:
    return scripted_options(
        ws, home, model, subagents=SubagentLimits(max_concurrent=max(COUNTS), max_turns=ROUNDS + 5)
    )


def _runners() -> list[psutil.Process]:
    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            if "harness.actors.subagent" in " ".join(p.cmdline()):
                out.append(p)
        except psutil.NoSuchProcess:
            continue
    return out


async def _measure(
    ws: Path, home: Path
) -> tuple[dict[int, float], list[int], list[int], float, float]:
    script = _Script()
    with ScriptedModel([script] * 2000) as model:
        async with open_session(_options(ws, home, model)) as s:
            started: dict[str, float] = {}
            tasks: dict[str, str] = {}

            def note(e: ev.ConversationEvent) -> None:
                if isinstance(e, ev.SubagentStarted):
                    started[e.name] = time.monotonic()
                    tasks[e.name] = e.task

            s.subscribe(note)
            # warm-up: the first fork of a runner, and the workers' first calls
            await s.spawn_subagents([Task("warm up")])
            alone = []
            for i in range(5):
                await s.spawn_subagents([Task(f"alone {i}")])
                name = max(started, key=lambda k: started[k])
                alone.append(script.first[tasks[name]] - started[name])
            walls: dict[int, float] = {}
            rss: list[int] = []
            uss: list[int] = []
            latency: list[float] = []
            for n in COUNTS:
                batch = [Task(f"job {n}-{i}") for i in range(n)]
                sampled = trio.Event()

                async def sample(n: int = n, done: trio.Event = sampled) -> None:
                    if n != 8:
                        return
                    await trio.sleep(DELAY * 3)  # mid-run: each waits on its model
                    for p in _runners():
                        try:
                            info = p.memory_full_info()
                        except psutil.NoSuchProcess:
                            continue
                        rss.append(info.rss)
                        uss.append(info.uss)
                    done.set()

                t0 = time.perf_counter()
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(sample)
                    reports = await s.spawn_subagents(batch)
                walls[n] = time.perf_counter() - t0
                assert all(r.ok for r in reports), reports
                if n == 8:
                    for name, task in tasks.items():
                        if task.startswith("job 8-"):
                            latency.append(script.first[task] - started[name])
    return walls, rss, uss, statistics.median(alone), statistics.median(latency)


def run() -> list[tuple[str, str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        ws, home = Path(tmp) / "ws", Path(tmp) / "home"
        ws.mkdir()
        home.mkdir()
        (ws / "src.py").write_text("def f():\n    return 1\n" * 20)
        walls, rss, uss, alone, latency = trio.run(_measure, ws, home)
    one = walls[1]
    rows = [
        (
            f"{n} sub-agent(s) x {ROUNDS} tool rounds",
            f"{walls[n]:.2f} s",
            f"{walls[n] / one:.2f}x one alone" + ("  (goal ≤ 1.5x)" if n == 8 else ""),
        )
        for n in COUNTS
    ]
    mb = 2**20
    rows.append(
        (
            "runner RSS while waiting (median of 8)",
            f"{statistics.median(rss) / mb:.1f} MB",
            "goal < 60 MB",
        )
    )
    rows.append(
        (
            "runner USS (not shared with the fork server)",
            f"{statistics.median(uss) / mb:.1f} MB",
            "what each more runner costs",
        )
    )
    rows.append(
        (
            "subagent_started → first model request, one",
            f"{alone * 1000:.0f} ms",
            "goal ≤ 100 ms (median of 5)",
        )
    )
    rows.append(
        (
            "subagent_started → first model request, 8 at once",
            f"{latency * 1000:.0f} ms",
            "median of the 8 (their forks queue)",
        )
    )
    return rows
