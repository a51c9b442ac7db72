"""``--sandbox workspace-write`` under bubblewrap, and a clear refusal without it."""

from __future__ import annotations

import os
import shlex
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness.actors.shell._pool import SessionPool
from harness.actors.shell._sandbox import find_bwrap, sandbox_problem

from .conftest import gone

# The sandbox gives commands a private /tmp, so a virtual environment that lives under
# /tmp (a CI clone, say) is not there inside it: run the interpreter it points to.
SANDBOX_PY = os.path.realpath(sys.executable)


def py(code: str) -> str:
    """A shell command that runs *code* with a Python visible inside the sandbox."""
    return f"{shlex.quote(SANDBOX_PY)} -u -c {shlex.quote(code)}"


Pools = Callable[..., SessionPool]

_problem = sandbox_problem("workspace-write")
needs_bwrap = pytest.mark.skipif(
    _problem is not None,
    reason=f"bubblewrap cannot run here ({_problem}); `apt-get install bubblewrap` to test it",
)


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on 127.0.0.1 (the host's loopback, not the sandbox's)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def connect(port: int) -> str:
    return py(
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=2); print('CONNECTED')\n"
        "except OSError as e:\n"
        "    print('NO NETWORK', e)\n"
    )


async def test_missing_bwrap_is_refused_not_run_unsandboxed(
    make_pool: Pools, workspace: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    pool = make_pool(sandbox="workspace-write", environ={"PATH": str(empty)})
    out = await pool.run_cmd("touch ran", workspace=str(workspace))
    assert not out.ok
    assert "`bwrap` is not installed" in out.output
    assert "apt-get install bubblewrap" in out.output
    assert not (workspace / "ran").exists()
    assert find_bwrap(str(empty)) is None


@needs_bwrap
async def test_workspace_writable_rest_read_only(
    make_pool: Pools, workspace: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "providers.json").write_text("secret")
    pool = SessionPool(
        make_pool(sandbox="workspace-write").config, environ=dict(os.environ), hide=(str(home),)
    )
    try:
        out = await pool.run_cmd(
            f"echo inside > in.txt && cat in.txt; "
            f"echo outside > {tmp_path}/out.txt; "
            "echo system > /etc/harness-sandbox-test; "
            f"cat {home}/providers.json; echo end",
            workspace=str(workspace),
        )
    finally:
        await pool.shutdown()
    assert out.data["status"] == "exited"
    assert (workspace / "in.txt").read_text() == "inside\n"
    # /tmp is the sandbox's own: a write there stays inside; the rest is read-only.
    assert not (tmp_path / "out.txt").exists()
    assert "/etc/harness-sandbox-test: Read-only file system" in out.output
    assert "secret" not in out.output
    assert out.output.startswith("inside\n")


@needs_bwrap
async def test_no_network_unless_allowed(make_pool: Pools, workspace: Path, listener: int) -> None:
    closed = make_pool(sandbox="workspace-write")
    out = await closed.run_cmd(connect(listener), workspace=str(workspace))
    assert "NO NETWORK" in out.output
    opened = make_pool(sandbox="workspace-write", sandbox_network=True)
    out = await opened.run_cmd(connect(listener), workspace=str(workspace))
    assert "CONNECTED" in out.output


@needs_bwrap
async def test_prompts_and_timeouts_work_in_the_sandbox(make_pool: Pools, workspace: Path) -> None:
    pool = make_pool(sandbox="workspace-write", kill_grace=0.2)
    first = await pool.run_cmd(py("print('hi', input('Who? '))"), workspace=str(workspace))
    assert first.data["status"] == "waiting"
    done = await pool.send_input(first.data["session"], "me")
    assert "hi me" in done.output
    out = await pool.run_cmd(
        "sleep 1000 & echo child=$!; wait", timeout=1, workspace=str(workspace)
    )
    assert out.data["status"] == "timeout"
    assert gone([out.data["pid"]]) == []
