"""``harness acp``: from ``session/prompt`` to the first ``session/update``, instant model.

An editor sends a prompt and waits for the first sign of an answer. Here one
``harness acp`` process (started once; its start is not counted) gets the same
prompt again and again on its stdin, and the time from writing the request to
reading the first ``session/update`` line is taken. The baseline, measured in the
same run against the same scripted model on loopback, is the same prompt on the
same kind of session through the Python API (``Session.stream``) in a process of
its own: prompt to first ``text_delta``. The difference is what the protocol adds.
The goal is 300 ms.

Then a prompt whose model reads a file (``read_file``, then an answer), prompt to
answer, twice: by a client that offers the editor's buffers (harness asks it for the
file with ``fs/read_text_file``, answered here at once from memory) and by one that does
not (the tools worker reads the disk). The difference is what a round trip to the
editor adds to a file tool.

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

from tests.scripted import ScriptedModel, call, reply

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


def _start(base_url: str, workspace: str, env: dict[str, str]) -> subprocess.Popen[str]:
    # `harness acp` on the scripted model, its protocol on pipes
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
    return proc


def _acp(base_url: str, workspace: str, env: dict[str, str]) -> list[float]:
    proc = _start(base_url, workspace, env)
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


def _reads(base_url: str, workspace: str, env: dict[str, str], editor: bool) -> list[float]:
    # prompt -> answer of a read_file round; with *editor*, the file comes from this client
    proc = _start(base_url, workspace, env)
    assert proc.stdin is not None
    assert proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    fs = {"readTextFile": editor, "writeTextFile": False}
    times: list[float] = []
    asked = 0
    try:
        _send(stdin, 1, "initialize", protocolVersion=1, clientCapabilities={"fs": fs})
        _until(stdout, lambda m: m.get("id") == 1)
        _send(stdin, 2, "session/new", cwd=workspace, mcpServers=[])
        sid = _until(stdout, lambda m: m.get("id") == 2)["result"]["sessionId"]
        for n in range(RUNS + 1):
            t = time.perf_counter()
            rid = 10 + n
            prompt = [{"type": "text", "text": "read a.py"}]
            _send(stdin, rid, "session/prompt", sessionId=sid, prompt=prompt)
            while True:
                message = _until(
                    stdout,
                    lambda m, rid=rid: m.get("id") == rid or m.get("method") == "fs/read_text_file",
                )
                if message.get("id") == rid:
                    break
                asked += 1
                answer = {"content": "x = 1  # unsaved\n"}
                stdin.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": answer}))
                stdin.write("\n")
                stdin.flush()
            if n:
                times.append(time.perf_counter() - t)
    finally:
        stdin.close()
        proc.wait(timeout=30)
    if asked != (RUNS + 1 if editor else 0):
        raise RuntimeError(f"the editor was asked for the file {asked} times")
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
    Path(workspace, "a.py").write_text("x = 1\n")
    rounds = [reply("", call("read_file", path="a.py")), reply("Read.")] * (RUNS + 1)
    with ScriptedModel([reply("Paris.")] * (2 * RUNS + 2) + rounds * 2) as model:
        acp = _acp(model.base_url, workspace, env)
        api = _api(model.base_url, workspace, env)
        buffered = _reads(model.base_url, workspace, env, editor=True)
        disk = _reads(model.base_url, workspace, env, editor=False)
    a, b = statistics.median(acp), statistics.median(api)
    r, d = statistics.median(buffered), statistics.median(disk)
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
        (
            "a read_file round, the file from the editor's buffer, p50",
            f"{r * 1000:.1f} ms",
            f"buffer / disk = {r / d:.2f}x, {(r - d) * 1000:+.1f} ms",
        ),
        ("a read_file round, the file from disk, p50", f"{d * 1000:.1f} ms", ""),
        ("runs each, load average", f"{RUNS}", f"{load:.2f}"),
    ]
