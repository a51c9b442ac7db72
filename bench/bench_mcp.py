"""Benchmarks of the MCP bridge workers.

- A tool call's round trip to a fast stdio server (our own SDK server's ``echo``)
  through harness (main process → bridge worker → server and back) beside the same call
  made directly with the SDK's ``Client`` in this process, alternating, in the same run
  (goal: within 1.5x); and the same call as a session makes it (an ``McpCall`` stream,
  which can carry the server's progress and questions).
- Launch → tools available for ``@modelcontextprotocol/server-everything`` over stdio:
  how long ``open_session`` takes with the server configured beside without it (goal: the
  first prompt is not delayed at all), and launch → its tools in the table beside the
  server's own start (the SDK connecting and listing its tools directly; goal: within
  1.5 s of it).
- A bridge's start → its server's tools listed, and the CPU the bridge spends meanwhile,
  forked from a fork server that has imported the SDK (as a session's does when it starts
  several servers, or once a bridge has died) beside one that has not (the bridge then
  imports the SDK itself), alternating; and the first bridge forked once the import was
  asked, whose fork waits for it.
- ``harness -p`` to its exit with a server that cannot start (a command that does not
  exist; a process that exits at once) or that needs a sign-in nobody made (an HTTP
  server answering 401) beside the same run with no server, alternating (goal: ≤ 200 ms
  more).

Run: ``python -m bench.bench_mcp`` (or ``make bench``).
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import trio

ROOT = Path(__file__).resolve().parents[1]
PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
EVERYTHING = "@modelcontextprotocol/server-everything"
EVERYTHING_VERSION = "2026.8.31"
CALLS = 300
LAUNCHES = 8
HEADLESS_RUNS = 7
BRIDGE_STARTS = 6
_EXITS_AT_ONCE = "import sys; sys.stderr.write('no API key\\n'); sys.exit(3)"


def _fake_entry() -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_bridge.fake_server"],
        "env": {"PYTHONPATH": PYTHONPATH},
        "cwd": str(ROOT),
    }


def _everything() -> Path | None:
    """server-everything's entry script, installed with npm into a cache folder."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    prefix = Path(base) / "harness-tests" / "npm" / f"server-everything-{EVERYTHING_VERSION}"
    script = prefix / "node_modules" / EVERYTHING / "dist" / "index.js"
    if not script.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix),
             f"{EVERYTHING}@{EVERYTHING_VERSION}"],
            capture_output=True,
            timeout=600,
        )  # fmt: skip
    return script if script.exists() else None


async def _round_trips() -> tuple[float, float, float, float]:
    from mcp import Client, StdioServerParameters

    from harness.actors.mcp import McpServerConfig
    from harness.messages.mcp import McpCall, McpStatus, McpWatch
    from harness.messages.tools import ToolInvoke
    from harness.supervisor import ChildSpec, open_supervisor

    entry = _fake_entry()
    config = McpServerConfig(
        name="fast", command=entry["command"], args=tuple(entry["args"]), env=entry["env"]
    )
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env=entry["env"], cwd=entry["cwd"]
    )
    async with open_supervisor() as sup, Client(params, cache=None) as direct:
        handle = await sup.start(
            ChildSpec(
                name="mcp:fast",
                module="harness.actors.mcp",
                cwd=str(ROOT),
            )
        )
        watch = McpWatch(server=config.to_json_data())
        async with handle.stream(watch, timeout=None) as items:
            async for status in items:
                if isinstance(status, McpStatus) and status.state == "ready":
                    break
        msg = ToolInvoke(name="echo", arguments={"text": "ping"})
        streamed = McpCall(name="echo", arguments={"text": "ping"})

        async def stream_call() -> None:
            # the session's path: a stream that may carry progress and questions
            async with handle.stream(streamed, timeout=30) as items:
                async for _item in items:
                    pass

        for _ in range(20):  # warm every path
            await handle.request(msg, timeout=30)
            await stream_call()
            await direct.call_tool("echo", {"text": "ping"})
        base, ours, ratios, stream_ratios = [], [], [], []
        for _ in range(CALLS):
            t0 = time.perf_counter()
            await direct.call_tool("echo", {"text": "ping"})
            t1 = time.perf_counter()
            await handle.request(msg, timeout=30)
            t2 = time.perf_counter()
            await stream_call()
            t3 = time.perf_counter()
            base.append(t1 - t0)
            ours.append(t2 - t1)
            ratios.append((t2 - t1) / (t1 - t0))
            stream_ratios.append((t3 - t2) / (t1 - t0))
    return (
        statistics.median(base),
        statistics.median(ours),
        statistics.median(ratios),
        statistics.median(stream_ratios),
    )


def _cpu(pid: int) -> float:
    """Seconds of CPU process *pid* has used (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _bridge_start(sup: Any, name: str) -> tuple[float, float]:
    """(seconds from the start of bridge *name* to its tools listed, its CPU seconds)."""
    from harness.actors.mcp import McpServerConfig
    from harness.messages.mcp import McpStatus, McpWatch
    from harness.supervisor import ChildSpec

    entry = _fake_entry()
    config = McpServerConfig(
        name=name, command=entry["command"], args=tuple(entry["args"]), env=entry["env"]
    )
    t = time.perf_counter()
    handle = await sup.start(ChildSpec(name=f"mcp:{name}", module="harness.actors.mcp"))
    async with handle.stream(McpWatch(server=config.to_json_data()), timeout=None) as items:
        async for status in items:
            if isinstance(status, McpStatus) and status.state == "ready" and status.tools:
                break
    took = time.perf_counter() - t
    pid = handle.status().pid
    assert pid is not None
    return took, _cpu(pid)


async def _bridge_starts() -> dict[str, float]:
    from harness.actors.mcp import BRIDGE_MODULE, BRIDGE_PRELOAD
    from harness.supervisor import open_supervisor

    times: dict[str, list[float]] = {k: [] for k in ("cold", "first", "warm")}
    cpus: dict[str, list[float]] = {k: [] for k in times}

    async def cold() -> None:
        async with open_supervisor() as sup:
            took, cpu = await _bridge_start(sup, "a")
        times["cold"].append(took)
        cpus["cold"].append(cpu)

    async def warmed() -> None:
        async with open_supervisor() as sup:
            t = time.perf_counter()
            await sup.warm(BRIDGE_MODULE, BRIDGE_PRELOAD)
            _, cpu = await _bridge_start(sup, "a")
            times["first"].append(time.perf_counter() - t)  # the warm's request too
            cpus["first"].append(cpu)
            took, cpu = await _bridge_start(sup, "b")
        times["warm"].append(took)
        cpus["warm"].append(cpu)

    for i in range(BRIDGE_STARTS):
        for step in (cold, warmed) if i % 2 else (warmed, cold):
            await trio.sleep(0.3)  # the last supervisor's processes finish dying
            await step()
    return {
        **{k: statistics.median(v) for k, v in times.items()},
        **{f"{k}_cpu": statistics.median(v) for k, v in cpus.items()},
    }


async def _direct_start(script: Path) -> float:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=shutil.which("node") or "node", args=[str(script)])
    t = time.perf_counter()
    async with Client(params, cache=None) as client:
        await client.list_tools()
        return time.perf_counter() - t


def _write_workspace(ws: Path, home: Path, servers: dict[str, Any] | None) -> None:
    ws.mkdir()
    home.mkdir()
    if servers is not None:
        (ws / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


async def _launch(script: Path | None) -> tuple[float, float]:
    """(seconds until open_session yields, seconds until the MCP tools are in the table)."""
    from harness.conversation import SessionOptions, open_session

    with tempfile.TemporaryDirectory() as tmp:
        ws, home = Path(tmp, "ws"), Path(tmp, "home")
        servers = {"everything": {"command": shutil.which("node"), "args": [str(script)]}}
        _write_workspace(ws, home, servers if script is not None else None)
        options = SessionOptions(
            workspace=str(ws),
            home=str(home),
            provider="openai",
            models=("none",),
            base_url="http://127.0.0.1:9",
            workers={"model": "harness.actors.model", "tools": "harness.actors.tools"},
            record=False,
            trust_project=True,  # the bench wrote its .mcp.json
        )
        t = time.perf_counter()
        async with open_session(options) as live:
            opened = time.perf_counter() - t
            if script is None:
                return opened, 0.0
            with trio.fail_after(60):
                # the table is plain data: polling it costs the session nothing
                while "mcp__everything__echo" not in live.conversation.table:  # noqa: ASYNC110
                    await trio.sleep(0.005)
            return opened, time.perf_counter() - t


async def _launches(script: Path) -> dict[str, float]:
    plain, with_mcp, tools, direct = [], [], [], []
    for i in range(LAUNCHES):
        # alternate which goes first, and let the last session's processes finish dying
        for mcp in (True, False) if i % 2 else (False, True):
            await trio.sleep(0.5)
            opened, ready = await _launch(script if mcp else None)
            (with_mcp if mcp else plain).append(opened)
            if mcp:
                tools.append(ready)
        direct.append(await _direct_start(script))
    return {
        "plain": statistics.median(plain),
        "with_mcp": statistics.median(with_mcp),
        "tools": statistics.median(tools),
        "direct": statistics.median(direct),
    }


def _headless(env: dict[str, str], base_url: str, servers: dict[str, Any]) -> float:
    """Seconds from launch to the exit of one ``harness -p`` with *servers*."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        config = ws / "servers.json"
        config.write_text(json.dumps({"mcpServers": servers}))
        command = [
            *(sys.executable, "-m", "harness", "-p", "hi", "--output-format", "json"),
            *("--provider", "openai", "--model", "scripted", "--base-url", base_url),
            *("--mcp-config", str(config)),
        ]
        t = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=ws, capture_output=True, timeout=120)
        took = time.perf_counter() - t
    if done.returncode != 0:
        raise RuntimeError(f"harness -p exited {done.returncode}: {done.stderr[-300:]!r}")
    return took


class _NeedsSignIn(http.server.BaseHTTPRequestHandler):
    """Every request: 401, as a server that wants an OAuth sign-in answers one without."""

    def _refuse(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer error="invalid_token"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_DELETE = _refuse

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _headless_runs() -> dict[str, float]:
    from tests.scripted import ScriptedModel, reply

    refuser = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NeedsSignIn)
    threading.Thread(target=refuser.serve_forever, daemon=True).start()
    signin_url = f"http://127.0.0.1:{refuser.server_address[1]}/mcp"

    home = tempfile.mkdtemp(prefix="harness-bench-")
    env = {
        **os.environ,
        "HARNESS_HOME": home,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
    }
    kinds: dict[str, dict[str, Any]] = {
        "none": {},
        "missing": {"gone": {"command": str(Path(home, "no-such-server"))}},
        "exits": {"dead": {"command": sys.executable, "args": ["-c", _EXITS_AT_ONCE]}},
        "signin": {"remote": {"url": signin_url}},
    }
    times: dict[str, list[float]] = {k: [] for k in kinds}
    with ScriptedModel([reply("ok")] * (len(kinds) * HEADLESS_RUNS + 1)) as model:
        _headless(env, model.base_url, {})  # the first run of all writes caches
        for i in range(HEADLESS_RUNS):
            order = list(kinds) if i % 2 else list(reversed(kinds))
            for kind in order:
                times[kind].append(_headless(env, model.base_url, kinds[kind]))
    refuser.shutdown()
    return {k: statistics.median(v) for k, v in times.items()}


def run() -> list[tuple[str, str, str]]:
    h = _headless_runs()
    rows = [
        (
            f"harness -p, a server whose command does not exist, median of {HEADLESS_RUNS}",
            f"+{(h['missing'] - h['none']) * 1e3:.0f} ms",
            f"{h['missing'] * 1e3:.0f} ms; no server {h['none'] * 1e3:.0f} ms (goal ≤ +200 ms)",
        ),
        (
            f"harness -p, a server that exits at once, median of {HEADLESS_RUNS}",
            f"+{(h['exits'] - h['none']) * 1e3:.0f} ms",
            f"{h['exits'] * 1e3:.0f} ms; no server {h['none'] * 1e3:.0f} ms (goal ≤ +200 ms)",
        ),
        (
            f"harness -p, a server that needs sign-in (401), median of {HEADLESS_RUNS}",
            f"+{(h['signin'] - h['none']) * 1e3:.0f} ms",
            f"{h['signin'] * 1e3:.0f} ms; no server {h['none'] * 1e3:.0f} ms (goal ≤ +200 ms)",
        ),
    ]
    base, ours, ratio, stream_ratio = trio.run(_round_trips)
    rows += [
        (
            f"echo round trip, stdio server, median of {CALLS}",
            f"{ours * 1e3:.2f} ms",
            f"SDK direct {base * 1e3:.2f} ms; ratio {ratio:.2f}x (goal ≤ 1.5x); "
            f"as a session calls it (McpCall stream) {stream_ratio:.2f}x",
        )
    ]
    b = trio.run(_bridge_starts)
    rows += [
        (
            f"bridge start → tools listed, fork server warmed, median of {BRIDGE_STARTS}",
            f"{b['warm']:.2f} s",
            f"not warmed {b['cold']:.2f} s; ratio {b['warm'] / b['cold']:.2f}x; the first "
            f"bridge after the warm was asked (its fork waits for it) {b['first']:.2f} s",
        ),
        (
            f"bridge CPU from start to tools listed, warmed, median of {BRIDGE_STARTS}",
            f"{b['warm_cpu']:.2f} s",
            f"not warmed {b['cold_cpu']:.2f} s; ratio {b['warm_cpu'] / b['cold_cpu']:.2f}x",
        ),
    ]
    script = _everything()
    if script is None:
        rows.append(("launch → tools (server-everything)", "skipped", "npm or node missing"))
        return rows
    f = trio.run(_launches, script)
    rows.append(
        (
            f"open_session with server-everything, median of {LAUNCHES}",
            f"{f['with_mcp'] * 1e3:.0f} ms",
            f"without MCP {f['plain'] * 1e3:.0f} ms (goal: no delay)",
        )
    )
    rows.append(
        (
            "launch → server-everything's tools in the table",
            f"{f['tools']:.2f} s",
            f"its own start (SDK direct) {f['direct']:.2f} s; "
            f"+{f['tools'] - f['direct']:.2f} s (goal ≤ +1.5 s)",
        )
    )
    return rows


if __name__ == "__main__":
    for row in run():
        print(" | ".join(row))
