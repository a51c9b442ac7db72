"""What a fork server is asked to warm while it runs (``Supervisor.warm``)."""

from __future__ import annotations

import os

import pytest
import trio

from harness.supervisor import open_supervisor
from tests.runtime.workers.messages import Identity, WhoAmI


async def _ppid(h) -> int:
    reply = await h.request(WhoAmI(), timeout=10)
    assert isinstance(reply, Identity)
    return reply.ppid


async def test_a_fork_asked_while_the_server_warms_is_served(
    make_spec, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.runtime.conftest import ROOT

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    async with open_supervisor() as sup:
        await sup.warm("some.other.worker", ("tests.runtime.workers.slow_preload",))
        with trio.fail_after(10):
            h = await sup.start(make_spec())
        assert await _ppid(h) == sup.fork_server_pid


async def test_a_warmed_module_that_starts_a_thread_stops_the_forks_of_its_worker(
    make_spec, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the worker's fork waits for what it was warmed with: here a module that starts a
    # thread, so the server refuses that fork and the worker starts as a new interpreter
    from tests.runtime.conftest import ROOT

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    async with open_supervisor() as sup:
        spec = make_spec()
        await sup.warm(spec.module, ("tests.runtime.workers.threaded_preload",))
        h = await sup.start(spec)
        assert await _ppid(h) == os.getpid()
        assert "has threads" in sup._forks.output.text()
