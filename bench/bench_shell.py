"""Benchmarks of the shell worker, each beside its baseline measured in the same run.

- prompt latency: from a command printing its prompt (it stamps the time with bash's
  ``$EPOCHREALTIME`` just before) to ``run_cmd`` returning "waiting" through the real
  worker process; goal p50 under 150 ms with the /proc detector;
- ``run_cmd("true")`` round trip through the worker, beside a bare
  ``subprocess.run(["bash", "-c", "true"])``; goal within 2x;
- the same ``run_cmd("true")`` on an in-process pool, to show what the channel costs.

Run: ``python bench/bench_shell.py`` (or ``make bench``).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

import trio

from bench._timing import ms
from harness.actors.shell._pool import SessionPool
from harness.messages.tools import ToolInvoke, ToolOutcome
from harness.supervisor import ChildSpec, WorkerHandle, open_supervisor

PROMPTS = 30
ROUND_TRIPS = 40
PROMPT_CMD = "printf 'T=%s\\n' \"$EPOCHREALTIME\"; read -p 'Name? ' name; echo \"hi $name\""


async def _invoke(h: WorkerHandle, workspace: str, name: str, **arguments: object) -> ToolOutcome:
    reply = await h.request(ToolInvoke(name=name, arguments=arguments, workspace=workspace))
    assert isinstance(reply, ToolOutcome)
    return reply


async def _measure(workspace: str) -> list[tuple[str, str, str]]:
    spec = ChildSpec(
        name="shell",
        module="harness.actors.shell",
        request_timeout=700.0,
        env={"HARNESS_HOME": os.path.join(workspace, ".home")},
        cwd=workspace,
    )
    rows: list[tuple[str, str, str]] = []
    async with open_supervisor() as sup:
        h = await sup.start(spec)
        await _invoke(h, workspace, "run_cmd", command="true")  # warm up

        latencies = []
        for _ in range(PROMPTS):
            out = await _invoke(h, workspace, "run_cmd", command=PROMPT_CMD)
            returned = time.time()
            if out.data.get("status") != "waiting":
                raise RuntimeError(f"the prompt was not detected: {out.output!r}")
            stamp = float(out.output.split("T=")[1].split()[0])
            latencies.append(returned - stamp)
            await _invoke(h, workspace, "end_process", session=out.data["session"])
        latencies.sort()
        p50 = statistics.median(latencies)
        p90 = latencies[int(len(latencies) * 0.9) - 1]
        rows.append(
            (
                "prompt printed -> run_cmd says waiting (p50)",
                ms(p50),
                f"goal < 150 ms: {'met' if p50 < 0.150 else 'MISSED'}; p90 {ms(p90)}",
            )
        )

        def bare() -> None:
            subprocess.run(["bash", "-c", "true"], check=True)

        worker_times, bare_times = [], []
        for _ in range(ROUND_TRIPS):  # interleaved, so load hits both alike
            start = time.perf_counter()
            await _invoke(h, workspace, "run_cmd", command="true")
            worker_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            bare()
            bare_times.append(time.perf_counter() - start)
        w, b = statistics.median(worker_times), statistics.median(bare_times)
        rows.append(("subprocess.run(['bash', '-c', 'true']) (median)", ms(b), "baseline"))
        rows.append(
            (
                "run_cmd('true') through the worker (median)",
                ms(w),
                f"{w / b:.2f}x the baseline (goal within 2x: {'met' if w / b <= 2 else 'MISSED'})",
            )
        )

    pool = SessionPool(environ=dict(os.environ))
    local, local_bare = [], []
    for _ in range(ROUND_TRIPS):  # interleaved with its own baseline, as above
        start = time.perf_counter()
        await pool.run_cmd("true", workspace=workspace)
        local.append(time.perf_counter() - start)
        start = time.perf_counter()
        bare()
        local_bare.append(time.perf_counter() - start)
    await pool.shutdown()
    m, lb = statistics.median(local), statistics.median(local_bare)
    rows.append(
        (
            "run_cmd('true') on an in-process pool (median)",
            ms(m),
            f"{m / lb:.2f}x its own interleaved baseline ({ms(lb)})",
        )
    )
    return rows


def run() -> list[tuple[str, str, str]]:
    """Measure and return ``(what, figure, beside)`` rows."""
    with tempfile.TemporaryDirectory(prefix="bench-shell-") as workspace:
        return trio.run(_measure, workspace)


if __name__ == "__main__":
    for what, figure, note in run():
        print(f"{what:<52} {figure:>10}   {note}")
    sys.exit(0)
