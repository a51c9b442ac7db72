"""``harness acp``: from ``session/prompt`` to the first ``session/update``, instant model.

An editor sends a prompt and waits for the first sign of an answer. Here one
``harness acp`` process (started once; its start is not counted) gets the same
prompt again and again on its stdin, and the time from writing the request to
reading the first ``session/update`` line is taken. The baseline, measured in the
same run against the same scripted model on loopback, is the same prompt on the
same kind of session through the Python API (``Session.stream``) in a process of
its own: prompt to first ``text_delta``. The difference is what the protocol adds.
The goal is 300 ms.

Run: ``python -m bench acp``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from tests.scripted import ScriptedModel, reply

ROOT = Path(__file__).resolve().parents[1]
RUNS = 15
GOAL = 0.300

_API = """
import sys, time, trio
from harness.api import open_session, events as ev
async def main():
    async with open_session(provider="openai", models=("scripted",), base_url=sys.argv[1],
                            workspace=sys.argv[2]) as s:
        for _ in range(int(sys.argv[3])):
            t = time.perf_counter()
            first = None
            async for e in s.stream("capital of France?"):
                if first is None and isinstance(e, ev.TextDelta):
                    first = time.perf_counter() - t
            print(first, flush=True)
trio.run(main)
"""


def _send(pipe: IO[str], request_id: int, method: str, **params: Any) -> None:
    pipe.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}))
    pipe.write("\n")
    pipe.flush()


def _until(pipe: IO[str], want: Any) -> dict[str, Any]:
    while True:
        line = pipe.readline()
        if not line:
            raise RuntimeError("harness acp closed its output")
        message = json.loads(line)
        if want(message):
            return message


def _acp(base_url: str, workspace: str, env: dict[str, str]) -> list[float]:
    flags = ["--provider", "openai", "--model", "scripted", "--base-url", base_url]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "acp", *flags],
        cwd=workspace,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    times: list[float] = []
    try:
        _send(proc.stdin, 1, "initialize", protocolVersion=1)
        _until(proc.stdout, lambda m: m.get("id") == 1)
        _send(proc.stdin, 2, "session/new", cwd=workspace, mcpServers=[])
        sid = _until(proc.stdout, lambda m: m.get("id") == 2)["result"]["sessionId"]
        for n in range(RUNS + 1):
            t = time.perf_counter()
            rid = 10 + n
            prompt = [{"type": "text", "text": "capital of France?"}]
            _send(proc.stdin, rid, "session/prompt", sessionId=sid, prompt=prompt)
            _until(
                proc.stdout,
                lambda m: (
                    m.get("method") == "session/update"
                    and m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
                ),
            )
            first = time.perf_counter() - t
            _until(proc.stdout, lambda m, rid=rid: m.get("id") == rid)
            if n:  # the first prompt warms the model worker's connection: not counted
                times.append(first)
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    return times


def _api(base_url: str, workspace: str, env: dict[str, str]) -> list[float]:
    out = subprocess.run(
        [sys.executable, "-c", _API, base_url, workspace, str(RUNS + 1)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    return [float(x) for x in out.split()][1:]


def run() -> list[tuple[str, str, str]]:
    """The rows: first update after a prompt through ACP, beside the Python API."""
    with tempfile.TemporaryDirectory(prefix="harness-bench-acp-") as tmp:
        return _measure(str(Path(tmp, "home")), str(Path(tmp, "ws")))


def _measure(home: str, workspace: str) -> list[tuple[str, str, str]]:
    os.mkdir(home)
    os.mkdir(workspace)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")},
        "HARNESS_HOME": home,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
    }
    with ScriptedModel([reply("Paris.")] * (2 * RUNS + 4)) as model:
        acp = _acp(model.base_url, workspace, env)
        api = _api(model.base_url, workspace, env)
    a, b = statistics.median(acp), statistics.median(api)
    load = os.getloadavg()[0]
    return [
        (
            "harness acp: session/prompt -> first session/update, p50",
            f"{a * 1000:.1f} ms",
            f"goal <= {GOAL * 1000:.0f} ms: {'met' if a <= GOAL else 'NOT met'}",
        ),
        (
            "Python API: Session.stream -> first text_delta, p50",
            f"{b * 1000:.1f} ms",
            f"acp / api = {a / b:.2f}x, {(a - b) * 1000:+.1f} ms",
        ),
        ("runs each, load average", f"{RUNS}", f"{load:.2f}"),
    ]
