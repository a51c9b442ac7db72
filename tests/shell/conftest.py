"""Fixtures for the shell tests: a pool in a temporary workspace, and a process check."""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import psutil
import pytest

from harness.actors.shell import ShellConfig
from harness.actors.shell._ids import SessionIds
from harness.actors.shell._pool import SessionPool

PY = sys.executable


@pytest.fixture
async def make_pool(tmp_path: Path, workspace: Path) -> AsyncIterator[Callable[..., SessionPool]]:
    pools: list[SessionPool] = []

    def make(**settings: object) -> SessionPool:
        environ = dict(os.environ)
        environ.update(settings.pop("environ", {}))  # type: ignore[call-overload]
        pool = SessionPool(
            ShellConfig(**settings),  # type: ignore[arg-type]
            environ=environ,
            ids=SessionIds(str(tmp_path / f"ids{len(pools)}")),
        )
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        await pool.shutdown()


def gone(pids: list[int], timeout: float = 5.0) -> list[int]:
    """Wait up to *timeout* for every pid to be gone (or a zombie); return the living."""
    deadline = time.monotonic() + timeout
    alive = list(pids)
    while True:
        alive = [p for p in alive if _alive(p)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def py(code: str) -> str:
    """A shell command that runs *code* with this Python (``-u``: unbuffered)."""
    return f"{shlex.quote(PY)} -u -c {shlex.quote(code)}"
