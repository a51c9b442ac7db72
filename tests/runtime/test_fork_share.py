"""One fork server shared by the supervisors of a process (``SharedForkServer``): each
supervisor's workers and exit statuses stay its own, and a server that died is replaced."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import trio

from harness.conversation import open_session
from harness.supervisor import SharedForkServer, WorkerExited, WorkerRestarted, open_supervisor
from tests.conversation.conftest import options_for
from tests.runtime.workers.messages import Identity, WhoAmI
from tests.scripted import ScriptedModel, call, reply


async def identity(h) -> Identity:
    reply = await h.request(WhoAmI(), timeout=10)
    assert isinstance(reply, Identity)
    return reply


@pytest.fixture
def shared() -> Iterator[SharedForkServer]:
    """A shared fork server offered to the supervisors the test opens."""
    server = SharedForkServer()
    with server.offered():
        yield server
    server.close()


def _sockets(pid: int) -> set[str]:
    out = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:"):
            out.add(target)
    return out


async def _exit_code(events, pid: int) -> int | None:
    os.kill(pid, signal.SIGKILL)
    with trio.fail_after(10):
        async for event in events:
            if isinstance(event, WorkerExited) and event.pid == pid:
                return event.exit_code
    raise AssertionError("no exit seen")


async def test_supervisors_take_the_offered_server_and_keep_their_own_workers(
    shared: SharedForkServer, make_spec
) -> None:
    async with open_supervisor() as one, open_supervisor() as two:
        events_one, events_two = one.subscribe(), two.subscribe()
        a = await identity(await one.start(make_spec()))
        b = await identity(await two.start(make_spec()))
        assert one.fork_server_pid == two.fork_server_pid == shared.pid == a.ppid == b.ppid
        assert shared.started == 1
        # a worker holds none of the server's sockets: not its listener, not the
        # other supervisor's connection
        assert _sockets(a.pid).isdisjoint(_sockets(a.ppid))
        # each exit status goes to the supervisor that asked for the worker
        assert await _exit_code(events_one, a.pid) == -signal.SIGKILL
        assert await _exit_code(events_two, b.pid) == -signal.SIGKILL
    # the server serves on for the next supervisor
    assert shared.pid is not None
    assert psutil.pid_exists(shared.pid)
    async with open_supervisor() as three:
        assert (await identity(await three.start(make_spec()))).ppid == shared.pid


async def test_a_killed_shared_server_is_replaced_for_the_next_supervisor(
    shared: SharedForkServer, make_spec
) -> None:
    async with open_supervisor() as sup:
        await sup.start(make_spec())
        dead = shared.pid
    assert dead is not None
    os.kill(dead, signal.SIGKILL)
    async with open_supervisor() as sup:
        me = await identity(await sup.start(make_spec()))
        assert me.ppid == sup.fork_server_pid == shared.pid
        assert me.ppid != dead
        assert shared.started == 2


async def test_a_supervisor_whose_shared_server_dies_forks_from_the_replacement(
    shared: SharedForkServer, make_spec
) -> None:
    async with open_supervisor() as sup:
        events = sup.subscribe()
        h = await sup.start(make_spec())
        first = await identity(h)
        os.kill(first.ppid, signal.SIGKILL)
        await trio.sleep(0.2)
        assert (await identity(h)).pid == first.pid  # the worker never noticed
        os.kill(first.pid, signal.SIGKILL)
        with trio.fail_after(10):
            async for event in events:
                if isinstance(event, WorkerRestarted):
                    break
        me = await identity(h)
        assert me.pid != first.pid
        assert me.ppid == sup.fork_server_pid == shared.pid != first.ppid


async def test_a_supervisor_that_needs_more_starts_its_own_server(
    shared: SharedForkServer, make_spec
) -> None:
    async with open_supervisor(preload=("tests.runtime.workers.echo",)) as sup:
        me = await identity(await sup.start(make_spec()))
        assert me.ppid == sup.fork_server_pid
        assert me.ppid != shared.pid
    assert shared.started == 0


async def test_a_closed_shared_server_is_gone_and_offers_nothing(
    shared: SharedForkServer, make_spec
) -> None:
    async with open_supervisor() as sup:
        await sup.start(make_spec())
    pid = shared.pid
    assert pid is not None
    shared.close()
    assert not psutil.pid_exists(pid)
    async with open_supervisor() as sup:
        me = await identity(await sup.start(make_spec()))
        assert me.ppid == sup.fork_server_pid != pid
    assert shared.started == 1


async def test_a_session_opened_after_the_shared_server_was_killed_works(
    shared: SharedForkServer, workspace: Path, home: Path, model: ScriptedModel
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    for _ in range(2):
        model.add(reply("", call("read_file", path="a.txt")), reply("read it"))
    async with open_session(options_for(workspace, home, model)) as s:
        assert (await s.run("read a.txt")).ok
        dead = s.workers.supervisor.fork_server_pid
    assert dead == shared.pid
    assert dead is not None
    os.kill(dead, signal.SIGKILL)
    async with open_session(options_for(workspace, home, model)) as s:
        result = await s.run("read a.txt again")
        server = s.workers.supervisor.fork_server_pid
        parents = {w.name: psutil.Process(w.pid).ppid() for w in s.workers.status()}
    assert result.ok
    assert "alpha" in model.requests[-1]["messages"][-1]["content"]  # the tools worker read it
    assert server == shared.pid != dead
    assert parents == {"model": server, "tools": server}
    assert shared.started == 2
