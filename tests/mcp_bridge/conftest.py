"""Fixtures: bridge workers under a real supervisor, our own misbehaving MCP server, and
``@modelcontextprotocol/server-everything`` installed from npm into a cache folder."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from harness._forkstart import RUNNER_PRELOAD, WORKER_PRELOAD
from harness.actors.mcp import BRIDGE_MODULE, BRIDGE_PRELOAD, McpServerConfig
from harness.messages.mcp import McpStatus, McpWatch
from harness.supervisor import ChildSpec, SharedForkServer, Supervisor, WorkerHandle

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

#: the factor on the bridges' reconnect waits and probe timeout in these tests: a restart
#: storm or a frozen server then costs a fifth of the real seconds, in the same steps
MCP_TIME_SCALE = 0.2

EVERYTHING = "@modelcontextprotocol/server-everything"
EVERYTHING_VERSION = "2026.8.31"


def fake_entry(mode: str = "ok", **env: str) -> dict[str, Any]:
    """A ``.mcp.json`` entry for ``tests.mcp_bridge.fake_server`` over stdio."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_bridge.fake_server"],
        "env": {"PYTHONPATH": PYTHONPATH, "FAKE_MCP_MODE": mode, **env},
        "cwd": str(ROOT),
    }


def _configured(name: str, entry: dict[str, Any], **fields: Any) -> McpServerConfig:
    # a .mcp.json stdio entry as the configured server it becomes
    return McpServerConfig(
        name=name,
        command=entry["command"],
        args=tuple(entry["args"]),
        env=entry["env"],
        cwd=entry["cwd"],
        **fields,
    )


def fake_config(name: str = "fake", mode: str = "ok", **fields: Any) -> McpServerConfig:
    return _configured(name, fake_entry(mode, **fields.pop("env", {})), **fields)


def tiny_entry(**env: str) -> dict[str, Any]:
    """A ``.mcp.json`` entry for ``tests.mcp_bridge.tiny_server`` over stdio: an MCP server
    that starts in milliseconds (no SDK), for tests that start one again and again."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_bridge.tiny_server"],
        "env": {"PYTHONPATH": PYTHONPATH, **env},
        "cwd": str(ROOT),
    }


def tiny_config(
    name: str = "tiny", *, env: dict[str, str] | None = None, **fields: Any
) -> McpServerConfig:
    """:func:`tiny_entry` as a configured server (*env* added to its environment)."""
    return _configured(name, tiny_entry(**(env or {})), **fields)


def bridge_spec(config: McpServerConfig, **overrides: Any) -> ChildSpec:
    fields: dict[str, Any] = {
        "name": f"mcp:{config.name}",
        "module": BRIDGE_MODULE,
        "cwd": str(ROOT),
        "request_grace": 8.0,
        "shutdown_grace": 6.0,
        "heartbeat_interval": 2.0,
    }
    fields.update(overrides)
    return ChildSpec(**fields)


def _sdk_bytes() -> int:
    """What the SDK's own compiled modules weigh on disk (found without importing it)."""
    total = 0
    for top in ("mcp", "mcp_types"):
        spec = importlib.util.find_spec(top)
        assert spec is not None
        assert spec.submodule_search_locations
        for folder in spec.submodule_search_locations:
            total += sum(p.stat().st_size for p in Path(folder).rglob("*.pyc"))
    return total


def imported_the_sdk(pid: int) -> bool:
    """Whether process *pid* (a bridge) has imported the SDK itself: then it has read its
    modules (about 7 MB with their dependencies); one forked with them imported has read
    none of them."""
    read = int(Path(f"/proc/{pid}/io").read_text().split("rchar:")[1].split()[0])
    return read > _sdk_bytes() / 2


class Watcher:
    """Follows a bridge's status stream (and follows the bridge across its restarts); the
    first watch gives the bridge its server's entry, as the conversation does."""

    def __init__(self, handle: WorkerHandle, config: McpServerConfig) -> None:
        self.handle = handle
        self.config = config
        self.seen: list[McpStatus] = []
        self._changed = trio.Event()

    @property
    def last(self) -> McpStatus | None:
        return self.seen[-1] if self.seen else None

    async def run(self) -> None:
        from harness.ipc import IpcError

        while True:
            try:
                watch = McpWatch(server=self.config.to_json_data())
                async with self.handle.stream(watch, timeout=None) as items:
                    async for status in items:
                        assert isinstance(status, McpStatus)
                        self.seen.append(status)
                        self._changed.set()
                        self._changed = trio.Event()
            except IpcError:
                await trio.sleep(0.05)

    async def wait_for(self, pred: Callable[[McpStatus], bool], timeout: float = 60.0) -> McpStatus:
        with trio.fail_after(timeout):
            while True:
                if self.last is not None and pred(self.last):
                    return self.last
                await self._changed.wait()


@pytest.fixture(autouse=True)
def _fast_bridges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every bridge started by these tests (by the supervisor here, or by a session)
    waits :data:`MCP_TIME_SCALE` times as long between reconnects."""
    monkeypatch.setenv("HARNESS_MCP_TIME_SCALE", str(MCP_TIME_SCALE))


@pytest.fixture(scope="session")
def bridge_fork_server() -> Iterator[SharedForkServer]:
    """One fork server for the sessions and bridges of these tests, with the default
    workers' modules and the SDK imported once: each worker forked from it skips its
    server's start-up and imports (a bridge skips the second of CPU the SDK costs, as a
    session's bridges skip it once their own fork server imported the SDK)."""
    server = SharedForkServer(
        warm=(*WORKER_PRELOAD, *RUNNER_PRELOAD, *BRIDGE_PRELOAD), environ=dict(os.environ)
    )
    yield server
    server.close()


@pytest.fixture(autouse=True)
def shared_bridges(
    bridge_fork_server: SharedForkServer, request: pytest.FixtureRequest
) -> Iterator[None]:
    """The shared fork server offered to the test's supervisors and sessions (not for a
    test marked ``own_fork_server``, which inspects its supervisor's own server)."""
    if request.node.get_closest_marker("own_fork_server"):
        yield
        return
    with bridge_fork_server.offered():
        yield


@pytest.fixture
def start_bridge(
    shared_bridges: None, supervisor: Supervisor, nursery: trio.Nursery
) -> Callable[..., Any]:
    async def start(
        config: McpServerConfig, *, warm: bool = False, **overrides: Any
    ) -> tuple[WorkerHandle, Watcher]:
        if warm:  # as a session does for its restarts: the fork server imports the SDK
            await supervisor.warm(BRIDGE_MODULE, BRIDGE_PRELOAD)
        handle = await supervisor.start(bridge_spec(config, **overrides))
        watcher = Watcher(handle, config)
        nursery.start_soon(watcher.run)
        return handle, watcher

    return start


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "harness-tests" / "npm"


@pytest.fixture(scope="session")
def everything() -> Path:
    """The entry script of server-everything, installed with npm into a cache folder
    (skipped, with the reason, when npm is missing or the install fails)."""
    npm = shutil.which("npm")
    node = shutil.which("node")
    if npm is None or node is None:
        pytest.skip("npm and node are needed to install @modelcontextprotocol/server-everything")
    prefix = _cache_dir() / f"server-everything-{EVERYTHING_VERSION}"
    script = prefix / "node_modules" / EVERYTHING / "dist" / "index.js"
    if not script.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [
                npm,
                "install",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(prefix),
                f"{EVERYTHING}@{EVERYTHING_VERSION}",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0 or not script.exists():
            pytest.skip(f"npm install {EVERYTHING} failed: {done.stderr.strip()[-300:]}")
    return script
