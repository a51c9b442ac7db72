"""The conversation loop's own cost, beside bare baselines measured in the same run.

- A task of 50 ``read_file`` rounds against the scripted model (answering at once)
  on the real model and tools workers, beside a bare loop that sends the very same
  50 HTTP requests (the bodies the loop sent, replayed) and reads the same file 50
  times. Five loop and bare runs alternate; the medians are reported. Goal: under
  3x the baseline and at most 5 ms a round.
- Resume of a 10,000-event session log (read, decode, rebuild the history).
  Goal: under 300 ms.
- Cancel: from ``cancel()`` during a stalled model stream to ``run()`` returning.
  Goal: under 1 s.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import psutil
import trio
from tests.scripted import ScriptedModel, call, reply

from bench._session import scripted_options
from harness.conversation import SessionOptions, open_session
from harness.conversation import events as ev
from harness.conversation.session._store import SessionStore
from harness.messages.model import ToolCall

ROUNDS = 50
PAIRS = 5  # loop and bare runs, alternating
EVENTS = 10_000


def _options(ws: Path, home: Path, model: ScriptedModel) -> SessionOptions:
    return scripted_options(ws, home, model, max_turns=ROUNDS + 10)


async def _loop_rounds(ws: Path, home: Path) -> tuple[float, float, list[dict[str, object]]]:
    """Wall time and CPU time (harness and its workers, not the scripted server)."""
    script = [reply("", call("read_file", path="src.py"), usage=None) for _ in range(ROUNDS)]
    # one warm-up run first, so worker start-up and first imports are not counted
    with ScriptedModel([reply("warm", usage=None), *script, reply("done", usage=None)]) as model:
        async with open_session(_options(ws, home, model)) as s:
            await s.run("warm up")
            procs = [psutil.Process(), *psutil.Process().children(recursive=True)]
            cpu0 = sum(sum(p.cpu_times()[:2]) for p in procs)
            start = time.perf_counter()
            result = await s.run("read src.py fifty times")
            took = time.perf_counter() - start
            cpu = sum(sum(p.cpu_times()[:2]) for p in procs) - cpu0
            assert result.ok, result
        return took, cpu, model.requests[1:]


def _bare_rounds(ws: Path, bodies: list[dict[str, object]]) -> float:
    """The same requests (replayed) and the same file reads, in a bare loop."""
    script = [reply("", call("read_file", path="src.py"), usage=None) for _ in range(ROUNDS)]
    with ScriptedModel([*script, reply("done", usage=None)]) as model, httpx.Client() as client:
        url = model.base_url + "/chat/completions"
        me = psutil.Process()
        cpu0 = sum(me.cpu_times()[:2])
        start = time.perf_counter()
        for i, body in enumerate(bodies):
            with client.stream("POST", url, json=body) as resp:
                for _ in resp.iter_lines():
                    pass
            if i < ROUNDS:
                (ws / "src.py").read_text()
        # this process's CPU includes the scripted server's thread (it runs here)
        return time.perf_counter() - start, sum(me.cpu_times()[:2]) - cpu0


def _resume(home: Path, ws: Path) -> tuple[float, float]:
    store = SessionStore(home, ws)
    log = store.create()
    sid = log.id
    n = 0
    turn = 0
    log.append(ev.SessionStarted(session_id=sid, workspace=str(ws)))
    log.append(ev.UserMessage(session_id=sid, text="task"))
    while n < EVENTS:
        turn += 1
        cid = f"c{turn}"
        for e in (
            ev.TurnStarted(session_id=sid, turn=turn),
            ev.AssistantMessage(
                session_id=sid,
                text="reading",
                tool_calls=(ToolCall(cid, "read_file", {"path": f"f{turn}.py"}),),
            ),
            ev.ToolCallRequested(session_id=sid, call_id=cid, name="read_file"),
            ev.ToolCallApproved(session_id=sid, call_id=cid, name="read_file"),
            ev.ToolCallStarted(session_id=sid, call_id=cid, name="read_file"),
            ev.ToolCallFinished(
                session_id=sid, call_id=cid, name="read_file", ok=True, output="1:ab|x = 1\n" * 20
            ),
            ev.UsageReported(session_id=sid, prompt_tokens=1000, completion_tokens=20),
            ev.TurnFinished(session_id=sid, turn=turn, reason="tool_calls"),
        ):
            log.append(e)
            n += 1
    log.close()
    best = cpu_best = float("inf")
    for _ in range(5):
        start, cpu0 = time.perf_counter(), time.process_time()
        loaded = store.load(sid, events=False)  # what resume does
        best = min(best, time.perf_counter() - start)
        cpu_best = min(cpu_best, time.process_time() - cpu0)
        assert len(loaded.tags) >= EVENTS
        assert len(loaded.history) > EVENTS // 4
    return best, cpu_best


async def _cancel(ws: Path, home: Path) -> float:
    with ScriptedModel([reply("slow answer " * 20, chunk=4, stall=30)]) as model:
        async with open_session(_options(ws, home, model)) as s:
            events = s.events()
            took = 0.0
            async with trio.open_nursery() as nursery:

                async def canceller() -> None:
                    nonlocal took
                    async for e in events:
                        if isinstance(e, ev.TextDelta):
                            start = time.perf_counter()
                            s.cancel()
                            await done.wait()
                            took = time.perf_counter() - start
                            return

                done = trio.Event()
                nursery.start_soon(canceller)
                await s.run("talk")
                done.set()
            return took


def run() -> list[tuple[str, str, str]]:
    """Measure and return the table rows."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        home = Path(tmp) / "home"
        (ws / "src.py").write_text("".join(f"x{i} = {i}\n" for i in range(40)))
        os.environ.setdefault("HARNESS_HOME", str(home))
        # Loop and bare runs alternate, and the medians are kept: a change of load
        # on a shared machine moves one run by more than the loop costs.
        loops, bares = [], []
        for _ in range(PAIRS):
            loop_s, loop_cpu, bodies = trio.run(_loop_rounds, ws, home)
            loops.append((loop_s, loop_cpu))
            bares.append(_bare_rounds(ws, bodies))
        loop_s, loop_cpu = statistics.median(loops)
        bare_s, bare_cpu = statistics.median(bares)
        resume_s, resume_cpu = _resume(home, ws)
        cancel_s = trio.run(_cancel, ws, home)
    per_round = loop_s / ROUNDS * 1000
    bare_round = bare_s / ROUNDS * 1000
    load = os.getloadavg()[0]
    return [
        (
            f"loop: {ROUNDS} read_file rounds (model + tools workers), wall",
            f"{per_round:.2f} ms/round",
            f"bare HTTP + file read {bare_round:.2f} ms/round; "
            f"ratio {loop_s / bare_s:.2f}x (goal ≤ 3x, ≤ 5 ms); medians of {PAIRS} "
            f"alternating runs; load avg {load:.1f}",
        ),
        (
            "loop: CPU of harness + workers per round",
            f"{loop_cpu / ROUNDS * 1000:.2f} ms/round",
            f"bare loop CPU (client and scripted server) {bare_cpu / ROUNDS * 1000:.2f} ms/round",
        ),
        (
            f"resume: {EVENTS:,} events, wall (CPU)",
            f"{resume_s * 1000:.0f} ms ({resume_cpu * 1000:.0f} ms)",
            f"goal < 300 ms; load avg {load:.1f}",
        ),
        ("cancel mid-stream to run() returning", f"{cancel_s * 1000:.1f} ms", "goal < 1 s"),
    ]


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
