"""Each rung of the kill ladder, and the promise that no worker outlives harness."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest
import trio

from harness.supervisor import (
    Supervisor,
    WorkerExited,
    find_tagged,
    kill_descendants,
    kill_processes,
    kill_tree,
    signal_group,
    survivors,
    wait_gone,
)
from tests.runtime.conftest import ROOT
from tests.runtime.workers.messages import BlockLoop, Echo, Sleep


async def stopped_exit(supervisor: Supervisor, name: str) -> WorkerExited:
    events = supervisor.subscribe()
    await supervisor.stop(name)
    with trio.fail_after(10):
        async for ev in events:
            if isinstance(ev, WorkerExited):
                return ev
    raise AssertionError("no exit event")


async def test_rung_1_shutdown_message_ends_a_cooperative_worker(
    supervisor: Supervisor, make_spec
) -> None:
    h = await supervisor.start(make_spec())
    await h.request(Echo("x"), timeout=5)
    ev = await stopped_exit(supervisor, "echo")
    assert ev.exit_code == 0  # it left on its own: no SIGTERM (-15) or SIGKILL (-9) was needed
    assert ev.reason == "stopped"
    assert h.state == "stopped"


async def test_rung_2_sigterm_ends_a_worker_that_ignores_shutdown(
    supervisor: Supervisor, make_spec
) -> None:
    await supervisor.start(
        make_spec(name="stubborn", module="tests.runtime.workers.stubborn", shutdown_grace=0.3)
    )
    ev = await stopped_exit(supervisor, "stubborn")
    assert ev.exit_code == -signal.SIGTERM


async def test_rung_3_sigkill_ends_a_worker_whose_loop_is_stuck(
    supervisor: Supervisor, make_spec
) -> None:
    h = await supervisor.start(make_spec(shutdown_grace=0.3, heartbeat_interval=None))
    async with trio.open_nursery() as nursery:

        async def stuck() -> None:
            with pytest.raises(Exception):  # noqa: B017, PT011 - WorkerDied, whatever wording
                await h.request(BlockLoop(60), timeout=30)

        nursery.start_soon(stuck)
        await trio.sleep(0.3)
        ev = await stopped_exit(supervisor, "echo")
    assert ev.exit_code == -signal.SIGKILL


def test_rung_signal_group_reports_a_gone_group() -> None:
    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    assert signal_group(proc.pid, signal.SIGKILL) is True
    proc.wait(5)
    assert signal_group(proc.pid, signal.SIGKILL) is False


def test_rung_sweep_finds_tagged_processes_and_kills_them() -> None:
    tag = f"sweep-test-{os.getpid()}-{time.monotonic_ns()}"
    env = dict(os.environ, HARNESS_WORKER_TAG=tag)
    # Double fork through setsid: no longer our child, no longer in our group.
    subprocess.run(["bash", "-c", "setsid sleep 300 & disown"], env=env, check=True)
    deadline = time.monotonic() + 5
    names: list[str] = []
    while time.monotonic() < deadline and names != ["sleep"]:  # until the fork has exec'd
        found = find_tagged(tag)
        names = [p.name() for p in found]
    assert names == ["sleep"]
    assert kill_processes(found) == []
    assert survivors([], tag) == []


def test_rung_sweep_never_kills_a_reused_pid() -> None:
    proc = subprocess.Popen(["sleep", "30"])
    snapshot = psutil.Process(proc.pid)
    proc.kill()
    proc.wait(5)
    assert kill_processes([snapshot]) == []  # it is gone; nothing else is touched


def test_rung_wait_gone_tells_the_ended_from_the_running() -> None:
    ended = subprocess.Popen(["true"])
    running = subprocess.Popen(["sleep", "30"])
    try:
        ended.wait(5)  # reaped: psutil no longer finds it
        procs = [psutil.Process(running.pid)]
        assert [p.pid for p in wait_gone(procs, 0.05)] == [running.pid]
        running.kill()
        assert wait_gone(procs, 10) == []  # its exit (a zombie until reaped) counts
    finally:
        running.kill()
        running.wait(5)


def test_ladder_kill_tree_asks_first_then_kills_what_ignores_it() -> None:
    polite = subprocess.Popen(["sleep", "1000"], start_new_session=True)
    stubborn = subprocess.Popen(
        ["bash", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"],
        start_new_session=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert stubborn.stdout is not None
    assert stubborn.stdout.readline() == "ready\n"  # its trap is set
    procs = [psutil.Process(polite.pid), psutil.Process(stubborn.pid)]

    def find() -> list[psutil.Process]:
        return [p for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]

    assert kill_tree(find, grace=0.3) == []
    assert polite.wait(5) == -signal.SIGTERM
    assert stubborn.wait(5) == -signal.SIGKILL


def test_ladder_kill_descendants_spares_the_process_itself() -> None:
    parent = subprocess.Popen(
        ["bash", "-c", "sleep 1000 & setsid sleep 1000 & echo ready; wait"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        assert parent.stdout.readline() == "ready\n"
        deadline = time.monotonic() + 5
        children = psutil.Process(parent.pid).children(recursive=True)
        while len(children) < 2 and time.monotonic() < deadline:
            children = psutil.Process(parent.pid).children(recursive=True)
        assert len(children) == 2
        assert kill_descendants(parent.pid, None) == []
        assert wait_gone(children, 5) == []
        assert parent.poll() is None or parent.returncode == 0  # bash itself was not killed
    finally:
        parent.kill()
        parent.wait(5)


def test_no_worker_outlives_a_parent_killed_with_sigkill(tmp_path) -> None:
    script = textwrap.dedent(
        """
        import os, sys, trio
        from tests.runtime.conftest import echo_spec
        from harness.supervisor import open_supervisor
        from tests.runtime.workers.messages import SpawnTree

        async def main():
            async with open_supervisor() as sup:
                h = await sup.start(echo_spec())
                pids = (await h.request(SpawnTree(), timeout=10)).pids
                await trio.sleep(0.3)
                print(h.pid, *pids, sup.fork_server_pid, flush=True)
                await trio.sleep(1000)

        trio.run(main)
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )
    line = parent.stdout.readline()
    pids = [int(p) for p in line.split()]
    assert len(pids) == 5
    worker = psutil.Process(pids[0])
    everyone = [worker, *worker.children(recursive=True), psutil.Process(pids[4])]
    parent.kill()
    parent.wait(5)
    _, alive = psutil.wait_procs(everyone, timeout=10)
    assert [p.pid for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []


async def test_stop_fails_calls_in_flight_with_a_reason(supervisor: Supervisor, make_spec):
    h = await supervisor.start(make_spec())
    got: list[BaseException] = []

    async def call() -> None:
        try:
            await h.request(Sleep(30), timeout=20)
        except Exception as exc:
            got.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(call)
        await trio.sleep(0.2)
        await supervisor.stop("echo")
    assert len(got) == 1
    assert "stopped" in str(got[0]) or "exited" in str(got[0])


def test_a_worker_whose_loop_is_stuck_still_dies_with_its_parent() -> None:
    """The lifeline: the worker's event loop never sees the parent go (it is blocked in
    synchronous code), so its watcher thread kills the worker's tree and the worker."""
    script = textwrap.dedent(
        """
        import functools, trio
        from tests.runtime.conftest import echo_spec
        from harness.supervisor import open_supervisor
        from tests.runtime.workers.messages import BlockLoop, SpawnTree

        async def main():
            async with open_supervisor() as sup:
                h = await sup.start(echo_spec(heartbeat_interval=None))
                pids = (await h.request(SpawnTree(), timeout=10)).pids
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(functools.partial(h.request, BlockLoop(600), timeout=None))
                    await trio.sleep(0.5)
                    print(h.pid, *pids, flush=True)
                    await trio.sleep(1000)

        trio.run(main)
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )
    assert parent.stdout is not None
    pids = [int(p) for p in parent.stdout.readline().split()]
    assert len(pids) == 4
    worker = psutil.Process(pids[0])
    everyone = [worker, *worker.children(recursive=True)]
    assert len(everyone) >= 4
    parent.kill()
    parent.wait(5)
    # The worker's own grace (its shutdown hooks' time and a second) passes first.
    _, alive = psutil.wait_procs(everyone, timeout=30)
    assert [p.pid for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
