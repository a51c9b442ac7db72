"""One question, headless: ``harness -p`` from start to answer and to exit.

harness runs as a user would run it (a new process, its fork server and workers,
the session log), against the scripted model on loopback answering at once. The
baseline, alternated with it in the same run, is the least a client can do: a new
``python`` process that imports trio and httpx and streams the same one chat
request from the same server. The difference is what harness itself costs; the time
to the request reaching the server splits it into what comes before the model is
asked and what comes after. The CPU of a run counts every process it started (user +
system), so it says what the run cost however busy the machine was.

Each ratio is the median of the ratios of the runs paired in alternation (which of
the two goes first alternates), not the ratio of the two medians: a load that changes
within the bench moves both runs of a pair. Its spread (the lowest and highest of the
pairs' ratios) is shown beside it.

The last row splits out the imports: ``python -c "import harness.cli._headless"``
(the frontend and the conversation it runs) beside ``python -c "import trio, httpx"``
(the bare client's), each to its exit, alternated the same way.

Run: ``python -m bench headless``.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import attrs
from tests.scripted import ScriptedModel, reply

ROOT = Path(__file__).resolve().parents[1]
RUNS = 11

_BARE = """
import sys, httpx, trio
async def main():
    async with httpx.AsyncClient() as client:
        body = {"model": "scripted", "stream": True,
                "messages": [{"role": "user", "content": "capital of France?"}]}
        async with client.stream("POST", sys.argv[1] + "/chat/completions", json=body) as r:
            async for line in r.aiter_lines():
                if "Paris" in line:
                    print("Paris.", flush=True)
trio.run(main)
"""


def _children_cpu() -> float:
    """CPU seconds of every waited-for descendant so far (a run's processes: harness,
    its fork server, which reaps the workers it forks, and the workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@attrs.frozen
class _Run:
    """One run's seconds: to the request reaching the server, to the first line on stdout
    (the answer), to the exit, and of CPU."""

    request: float
    answer: float
    exit: float
    cpu: float


def _timed(command: list[str], env: dict[str, str], cwd: str, model: ScriptedModel) -> _Run:
    arrived: list[float] = []
    asked = len(model.requests) + 1

    def wait() -> None:
        model.wait_for_requests(asked, 60)
        arrived.append(time.perf_counter())

    waiting = threading.Thread(target=wait)
    waiting.start()
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=cwd)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    answered = time.perf_counter() - started
    proc.stdout.read()
    proc.wait()
    waiting.join()
    if "Paris" not in first or proc.returncode != 0:
        raise RuntimeError(f"{command[:3]} answered {first!r}, exit {proc.returncode}")
    ended = time.perf_counter() - started
    return _Run(arrived[0] - started, answered, ended, _children_cpu() - cpu)


def _median(runs: list[_Run], field: str) -> float:
    """The median of the runs' *field* seconds."""
    return statistics.median(getattr(r, field) for r in runs)


def _ratio(ours: list[_Run], bare: list[_Run], field: str) -> str:
    """The median of the pairs' ratios of *field*, and their spread: ``1.3x (1.1-1.6x)``."""
    ratios = sorted(getattr(o, field) / getattr(b, field) for o, b in zip(ours, bare, strict=True))
    return f"{statistics.median(ratios):.2f}x ({ratios[0]:.1f}-{ratios[-1]:.1f}x)"


def _exit_time(code: str, env: dict[str, str], cwd: str) -> float:
    """Seconds from start to exit of ``python -c code``."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, check=True)
    return time.perf_counter() - started


def run() -> list[tuple[str, str, str]]:
    """The rows: harness's answer and exit times beside the bare client's."""
    home = tempfile.mkdtemp(prefix="harness-bench-")
    # As in a user's install, the bytecode of the modules is written once and then
    # read: with PYTHONDONTWRITEBYTECODE set, every run would compile each module whose
    # cached bytecode is missing or older than its source, on both sides.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["HARNESS_HOME"] = home
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    ours: list[_Run] = []
    bare: list[_Run] = []
    imports: list[float] = []
    bare_imports: list[float] = []
    with ScriptedModel([reply("Paris.")] * (2 * RUNS + 2)) as model:
        harness = [
            *(sys.executable, "-m", "harness", "-p", "capital of France?"),
            *("--provider", "openai", "--model", "scripted", "--base-url", model.base_url),
        ]
        baseline = [sys.executable, "-c", _BARE, model.base_url]
        _timed(harness, env, home, model)  # the first run of all writes caches: not counted
        for pair in range(RUNS):
            if pair % 2:  # which goes first alternates: neither always follows the other
                bare.append(_timed(baseline, env, home, model))
                ours.append(_timed(harness, env, home, model))
            else:
                ours.append(_timed(harness, env, home, model))
                bare.append(_timed(baseline, env, home, model))
            imports.append(_exit_time("import harness.cli._headless", env, home))
            bare_imports.append(_exit_time("import trio, httpx", env, home))

    answer, bare_answer = _median(ours, "answer"), _median(bare, "answer")
    imported, bare_imported = statistics.median(imports), statistics.median(bare_imports)
    load = os.getloadavg()[0]

    def row(what: str, field: str, note: str = "") -> tuple[str, str, str]:
        return (
            f"harness -p: {what}, p50",
            f"{_median(ours, field) * 1e3:.0f} ms",
            f"bare client {_median(bare, field) * 1e3:.0f} ms; ratio "
            f"{_ratio(ours, bare, field)}{note}",
        )

    return [
        row("start -> answer", "answer", f" (goal: at most 1.3x, under 500 ms; load {load:.1f})"),
        row("start -> request", "request", " (the chat request reaching the server)"),
        row("start -> exit", "exit"),
        row("CPU of a run", "cpu", " (user + system, every process of the run)"),
        (
            "python importing the -p frontend",
            f"{imported * 1e3:.0f} ms",
            f"importing trio and httpx {bare_imported * 1e3:.0f} ms; "
            f"{(imported - bare_imported) / max(answer - bare_answer, 1e-9):.0%} "
            "of what harness adds to the answer",
        ),
    ]


if __name__ == "__main__":
    for what, figure, note in run():
        print(f"{what:<36} {figure:>8}  {note}")
