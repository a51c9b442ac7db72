"""``--sandbox workspace-write`` under bubblewrap, and a clear refusal without it."""

from __future__ import annotations

import os
import shlex
import shutil
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


# --- plan mode: the workspace read-only as well (issue 34) ---------------------------------


@needs_bwrap
async def test_plan_mode_runs_on_a_read_only_file_system(
    make_pool: Pools, workspace: Path, tmp_path: Path, listener: int
) -> None:
    (workspace / "a.txt").write_text("readable\n")
    pool = make_pool()
    out = await pool.run_cmd(
        f"cat a.txt; touch P; echo x > {tmp_path}/out.txt; [ -w . ] || echo READ-ONLY",
        workspace=str(workspace),
        read_only=True,
    )
    assert out.output.startswith("readable\n")
    assert "touch: cannot touch 'P': Read-only file system" in out.output
    assert "READ-ONLY" in out.output
    assert not (workspace / "P").exists()
    assert not (tmp_path / "out.txt").exists()
    out = await pool.run_cmd(connect(listener), workspace=str(workspace), read_only=True)
    assert "NO NETWORK" in out.output
    # the same pool outside plan mode writes as before
    out = await pool.run_cmd("touch P", workspace=str(workspace))
    assert (workspace / "P").exists()


@needs_bwrap
async def test_plan_mode_is_read_only_under_workspace_write_too(
    make_pool: Pools, workspace: Path
) -> None:
    pool = make_pool(sandbox="workspace-write")
    await pool.run_cmd("touch P", workspace=str(workspace), read_only=True)
    assert not (workspace / "P").exists()
    await pool.run_cmd("touch Q", workspace=str(workspace))
    assert (workspace / "Q").exists()


async def test_plan_mode_types_only_into_its_own_sessions(
    make_pool: Pools, workspace: Path
) -> None:
    pool = make_pool(kill_grace=0.2)
    runner = py("import subprocess; subprocess.run(input('command? '), shell=True)")
    shell = await pool.run_cmd(runner, workspace=str(workspace), timeout=30)
    assert shell.data["status"] == "waiting", shell.output
    refused = await pool.send_input(shell.data["session"], "touch P", read_only=True)
    assert not refused.ok
    assert "started outside plan mode" in refused.output
    assert not (workspace / "P").exists()
    reader = await pool.run_cmd(
        py("print(input('Who? '))"), workspace=str(workspace), read_only=True
    )
    assert reader.data["status"] == "waiting", reader.output
    answered = await pool.send_input(reader.data["session"], "me", read_only=True)
    assert "me" in answered.output


async def test_plan_mode_without_bwrap_still_runs_readers(
    make_pool: Pools, workspace: Path, tmp_path: Path
) -> None:
    only_bash = tmp_path / "only-bash"
    only_bash.mkdir()
    for tool in ("bash", "cat"):
        (only_bash / tool).symlink_to(shutil.which(tool) or f"/bin/{tool}")
    (workspace / "a.txt").write_text("readable\n")
    pool = make_pool(environ={"PATH": str(only_bash)})
    out = await pool.run_cmd("cat a.txt", workspace=str(workspace), read_only=True)
    assert out.ok, out.output
    assert "readable" in out.output
