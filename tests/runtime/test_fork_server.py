"""Workers forked by the fork server are what ``python -m <module>`` would have made,
and everything still works when the fork server cannot help or is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import psutil
import pytest
import trio

from harness.ipc import WorkerDied
from harness.supervisor import Supervisor, WorkerExited, WorkerRestarted, open_supervisor
from tests.runtime.workers.messages import Crash, Echo, Identity, WhoAmI


async def identity(h) -> Identity:
    reply = await h.request(WhoAmI(), timeout=10)
    assert isinstance(reply, Identity)
    return reply


async def test_a_forked_worker_is_what_python_m_would_make(
    supervisor: Supervisor, make_spec, tmp_path
) -> None:
    env = {**make_spec().env, "HARNESS_TEST_MARK": "forked"}
    h = await supervisor.start(make_spec(env=env, cwd=str(tmp_path), args=("one", "two")))
    me = await identity(h)
    server = supervisor.fork_server_pid
    assert server is not None
    assert me.ppid == server  # it was forked, not started afresh
    assert me.sid == me.pid  # its own session, so a group kill reaches its tree only
    assert me.cwd == str(tmp_path)
    assert me.path0 == str(tmp_path)
    assert me.argv[1:] == ["one", "two"]
    assert me.variable == "forked"
    assert me.stdin == "/dev/null"
    assert not me.ipc_fd_inheritable  # nothing it starts holds its channel open
    # ps shows which actor it is, as for a worker started as a new interpreter
    command = " ".join(psutil.Process(me.pid).cmdline())
    assert "-m tests.runtime.workers.echo one two" in command


async def test_fork_false_starts_a_new_interpreter(supervisor: Supervisor, make_spec) -> None:
    h = await supervisor.start(make_spec(fork=False))
    me = await identity(h)
    assert me.ppid == os.getpid()
    assert psutil.Process(me.pid).cmdline()[1:3] == ["-m", "tests.runtime.workers.echo"]


async def test_the_exit_status_comes_back_through_the_server(
    supervisor: Supervisor, make_spec
) -> None:
    events = supervisor.subscribe()
    h = await supervisor.start(make_spec())
    with pytest.raises(WorkerDied) as died:
        await h.request(Crash(code=7, message="bye"), timeout=10)
    assert died.value.exit_code == 7
    assert "bye" in died.value.stderr_tail  # its output pipe reached us too
    await h.request(Echo("back"), timeout=10)
    pid = h.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    with trio.fail_after(10):
        async for event in events:
            if isinstance(event, WorkerExited) and event.pid == pid:
                assert event.exit_code == -signal.SIGKILL
                break


async def test_a_killed_worker_is_replaced_by_a_fork_from_the_same_server(
    supervisor: Supervisor, make_spec
) -> None:
    # The one restart path beside a new interpreter: the replacement is forked like
    # the first process, with nothing kept waiting between crashes.
    events = supervisor.subscribe()
    h = await supervisor.start(make_spec())
    first = await identity(h)
    server = supervisor.fork_server_pid
    assert server is not None
    assert first.ppid == server
    os.kill(first.pid, signal.SIGKILL)
    with trio.fail_after(10):
        async for event in events:
            if isinstance(event, WorkerRestarted):
                break
    me = await identity(h)
    assert me.pid != first.pid
    assert me.ppid == server == supervisor.fork_server_pid
    # nothing else of this worker's runs: no spare process waits beside it
    await trio.sleep(0.5)
    assert _live_echo_workers(server) == [me.pid]


def _live_echo_workers(parent: int) -> list[int]:
    pids = []
    for child in psutil.Process(parent).children():
        try:
            if child.status() != psutil.STATUS_ZOMBIE and "-m tests.runtime.workers.echo" in (
                " ".join(child.cmdline())
            ):
                pids.append(child.pid)
        except psutil.Error:
            continue
    return pids


async def test_workers_survive_the_fork_server_being_killed(
    supervisor: Supervisor, make_spec
) -> None:
    events = supervisor.subscribe()
    h = await supervisor.start(make_spec())
    first = (await identity(h)).pid
    server = supervisor.fork_server_pid
    assert server is not None
    os.kill(server, signal.SIGKILL)
    await trio.sleep(0.2)
    assert (await identity(h)).pid == first  # the worker never noticed

    # The worker now has no parent that reports its status; its death is still
    # seen at once, and the replacement comes from a new server.
    os.kill(first, signal.SIGKILL)
    with trio.fail_after(10):
        async for event in events:
            if isinstance(event, WorkerRestarted):
                break
    me = await identity(h)
    assert me.pid != first
    # the server was started again, and the replacement waited for it
    assert supervisor.fork_server_pid not in (None, server)
    assert me.ppid == supervisor.fork_server_pid
    assert not psutil.pid_exists(first) or psutil.Process(first).status() == "zombie"


async def test_a_workers_folder_is_the_supervisors_folder_now(
    supervisor: Supervisor, make_spec, tmp_path, monkeypatch
) -> None:
    # The fork server is up (and in the folder the tests started in) before we move.
    await identity(await supervisor.start(make_spec()))
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    relative = await identity(await supervisor.start(make_spec(name="relative", cwd="sub")))
    assert relative.ppid == supervisor.fork_server_pid
    assert relative.cwd == str(tmp_path / "sub")
    unset = await identity(await supervisor.start(make_spec(name="unset")))
    assert unset.ppid == supervisor.fork_server_pid
    assert unset.cwd == str(tmp_path)


async def test_interpreter_settings_of_its_own_start_a_new_interpreter(
    supervisor: Supervisor, make_spec
) -> None:
    # A forked worker would run with the fork server's hash seed, not this one.
    seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    h = await supervisor.start(make_spec(env={**make_spec().env, "PYTHONHASHSEED": seed}))
    me = await identity(h)
    assert me.ppid == os.getpid()
    assert psutil.Process(me.pid).environ()["PYTHONHASHSEED"] == seed


async def test_a_request_too_big_to_fork_starts_a_new_interpreter(
    supervisor: Supervisor, make_spec
) -> None:
    # An environment larger than one packet of the fork server's socket: the
    # request cannot be sent, and the worker starts the slow way instead.
    env = {**make_spec().env, **{f"HARNESS_BIG_{i}": "x" * 100_000 for i in range(6)}}
    events = supervisor.subscribe()
    h = await supervisor.start(make_spec(env=env))
    me = await identity(h)
    assert me.ppid == os.getpid()
    started = await events.receive()
    assert started.pid == me.pid


async def test_no_fork_server_outlives_the_supervisor(make_spec) -> None:
    async with open_supervisor() as sup:
        h = await sup.start(make_spec())
        await h.request(Echo("x"), timeout=10)
        server = sup.fork_server_pid
        worker = h.pid
    assert server is not None
    assert worker is not None
    _, alive = psutil.wait_procs(
        [p for p in map(_process, (server, worker)) if p is not None], timeout=5
    )
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []


async def test_without_a_fork_server_workers_start_as_new_interpreters(make_spec) -> None:
    async with open_supervisor(fork_server=False) as sup:
        events = sup.subscribe()
        h = await sup.start(make_spec())
        me = await identity(h)
        assert sup.fork_server_pid is None
        assert me.ppid == os.getpid()
        os.kill(me.pid, signal.SIGKILL)
        with trio.fail_after(10):
            async for event in events:
                if isinstance(event, WorkerExited):
                    assert event.exit_code == -signal.SIGKILL
                    break


def _process(pid: int) -> psutil.Process | None:
    try:
        return psutil.Process(pid)
    except psutil.NoSuchProcess:
        return None


async def test_a_server_started_early_is_adopted(make_spec) -> None:
    # The command line starts the fork server before it imports trio, so the
    # two imports overlap; the supervisor then takes that server as its own.
    from harness import _forkstart

    _forkstart.start_early(warm=())
    early = _forkstart._early
    assert early is not None
    async with open_supervisor() as sup:
        h = await sup.start(make_spec())
        me = await identity(h)
        assert _forkstart.adopt() is None  # taken
        assert sup.fork_server_pid == early.pid
        assert me.ppid == early.pid
    # stopped with the supervisor, and reaped
    assert _process(early.pid) is None


async def test_the_fork_server_holds_no_descriptor_it_was_not_given(make_spec) -> None:
    # It starts with posix_spawn, which passes on every inheritable descriptor:
    # it closes them, so neither it nor a worker keeps someone else's pipe open.
    from harness import _forkstart

    read_fd, write_fd = os.pipe()
    os.set_inheritable(write_fd, True)
    try:
        _forkstart.start_early(warm=())
        async with open_supervisor() as sup:
            me = await identity(await sup.start(make_spec()))
            server = sup.fork_server_pid
            assert server is not None
            pipe = os.readlink(f"/proc/self/fd/{write_fd}")
            for pid in (server, me.pid):
                held = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
                assert pipe not in held
    finally:
        os.close(read_fd)
        os.close(write_fd)


async def test_a_server_with_a_thread_refuses_to_fork(make_spec, monkeypatch) -> None:
    # A preloaded module that starts a thread makes forking unsafe (the copy
    # would hold that thread's locks in whatever state they were): the server
    # says so, and workers start as new interpreters.
    from tests.runtime.conftest import ROOT

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    async with open_supervisor(preload=("tests.runtime.workers.threaded_preload",)) as sup:
        h = await sup.start(make_spec())
        me = await identity(h)
        assert sup.fork_server_pid is not None
        assert me.ppid == os.getpid()
        assert "has threads" in sup._forks.output.text()


async def test_warm_modules_load_once_the_server_is_idle(make_spec, monkeypatch) -> None:
    # A module to warm is imported after the server said it was ready, while no
    # request waits. This one starts a thread, so once it is in, forks stop.
    from tests.runtime.conftest import ROOT

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    async with open_supervisor(warm=("tests.runtime.workers.threaded_preload",)) as sup:
        events = sup.subscribe()
        h = await sup.start(make_spec())
        await identity(h)
        # idle: the server imports it, and its thread shows in the server's status
        server = sup.fork_server_pid
        assert server is not None
        with trio.fail_after(10):
            while _threads(server) < 2:  # noqa: ASYNC110 - another process has no event
                await trio.sleep(0.02)
        h.kill()
        with trio.fail_after(10):
            async for event in events:
                if isinstance(event, WorkerRestarted):
                    break
        later = await identity(h)
        assert later.ppid == os.getpid()
        assert "has threads" in sup._forks.output.text()


def _threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


@pytest.mark.parametrize(("flag", "status"), [("--version", 0), ("--help", 0), ("--no-such", 2)])
def test_what_ends_in_the_parsing_starts_no_fork_server(flag: str, status: int) -> None:
    # harness.__main__ starts the fork server once the command line is parsed and asks
    # for a run: the version, the help and a usage error end in the parsing.
    mark = f"harness-no-server-{os.getpid()}-{flag}"
    env = {**os.environ, "HARNESS_TEST_MARK": mark}
    command = [sys.executable, "-m", "harness", flag]
    assert subprocess.run(command, env=env, capture_output=True).returncode == status
    # A server would still be importing trio now (0.3 s) before it saw us gone.
    started = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmdline = proc.info["cmdline"] or []
            if "harness.supervisor._zygote" in cmdline and (
                proc.environ().get("HARNESS_TEST_MARK") == mark
            ):
                started.append(proc.pid)
        except psutil.Error:
            continue
    assert started == []
