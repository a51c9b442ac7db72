"""Whole sessions forked by a fork server (``SessionForker``): each is what
``python -m <module>`` would have made on the stdio it was given, carries its own
tag and no secret in the environment block ``/proc`` shows, sees no other session's
environment, and dies with the server."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from harness.supervisor import ForkedSession, SessionForker
from tests.runtime.conftest import ROOT

PROBE = "tests.runtime.workers.session_probe"
SECRET = "sk-session-forker-secret-1234"


def arg_start(pid: int) -> int:
    """Where the process's command line lives: a fork keeps its parent's, a new
    interpreter gets a randomised stack of its own."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        raw = f.read()
    return int(raw[raw.rfind(b")") + 2 :].split()[45])


def probe_env(**more: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": SECRET, **more}


@pytest.fixture
def forker() -> Iterator[SessionForker]:
    f = SessionForker(("json",), environ=probe_env())
    f.start()
    yield f
    f.close()


class Running:
    """A forked probe: its report, then its end once its stdin closes."""

    def __init__(self, forker: SessionForker, tmp_path: Path, tag: str, **env: str) -> None:
        stdin_r, self.stdin = os.pipe()
        self.stdout, stdout_w = os.pipe()
        self.stderr = tmp_path / f"{tag}.err"
        with open(self.stderr, "wb") as err:
            args = ["TASK_ONLY", "LEFT_BY_A_SESSION", "OPENAI_API_KEY", "--secret", SECRET]
            session = forker.fork(
                PROBE,
                args,
                env=probe_env(HARNESS_WORKER_TAG=tag, **env),
                cwd=str(tmp_path),
                stdio=(stdin_r, stdout_w, err.fileno()),
                tag=tag,
            )
        os.close(stdin_r)
        os.close(stdout_w)
        assert session is not None, forker.output
        self.session: ForkedSession = session
        with os.fdopen(os.dup(self.stdout), "rb") as out:
            self.report: dict[str, Any] = json.loads(out.readline())

    def end(self) -> int | None:
        os.close(self.stdin)
        os.close(self.stdout)
        assert self.session.wait(30)
        self.session.close()
        return self.session.returncode


def test_a_forked_session_is_what_python_m_would_make(
    forker: SessionForker, tmp_path: Path
) -> None:
    tag = "batch-00000000000000a1"
    probe = Running(forker, tmp_path, tag, TASK_ONLY="a")
    me = probe.report
    assert me["pid"] == probe.session.pid
    assert me["ppid"] == forker.pid  # forked by the server ...
    assert arg_start(me["pid"]) == arg_start(forker.pid)  # ... not a new interpreter
    assert me["sid"] == me["pid"]  # its own session: a group kill reaches its tree only
    assert me["argv"] == ["TASK_ONLY", "LEFT_BY_A_SESSION", "OPENAI_API_KEY", "--secret", SECRET]
    assert me["cwd"] == str(tmp_path)
    assert me["env"] == {"TASK_ONLY": "a", "LEFT_BY_A_SESSION": None, "OPENAI_API_KEY": SECRET}
    # /proc shows its own tag (the tree sweep finds it by it), and no secret
    assert me["block_tag"] == tag
    assert me["block_secrets"] == []
    cmdline = psutil.Process(me["pid"]).cmdline()
    assert cmdline[1:3] == ["-m", PROBE]
    assert cmdline[3:5] == ["TASK_ONLY", "LEFT_BY_A_SESSION"]
    assert probe.end() == 3
    assert probe.stderr.read_text() == "bye\n"


def test_the_environment_of_one_session_never_reaches_the_next(
    forker: SessionForker, tmp_path: Path
) -> None:
    first = Running(forker, tmp_path, "batch-00000000000000b1", TASK_ONLY="first")
    assert first.report["env"]["TASK_ONLY"] == "first"
    assert first.end() == 3  # it set LEFT_BY_A_SESSION before it read its stdin
    second = Running(forker, tmp_path, "batch-00000000000000b2")
    assert second.report["env"] == {
        "TASK_ONLY": None,
        "LEFT_BY_A_SESSION": None,
        "OPENAI_API_KEY": SECRET,
    }
    assert second.report["block_tag"] == "batch-00000000000000b2"
    assert second.end() == 3


def test_sessions_die_with_the_server(forker: SessionForker, tmp_path: Path) -> None:
    probes = [Running(forker, tmp_path, f"batch-00000000000000c{i}") for i in (1, 2)]
    procs = [psutil.Process(p.session.pid) for p in probes]
    server = psutil.Process(forker.pid)
    forker.close()
    _, alive = psutil.wait_procs([server, *procs], timeout=15)
    assert alive == []
    for probe in probes:
        assert probe.session.wait(5)
        os.close(probe.stdin)
        os.close(probe.stdout)
        probe.session.close()


def test_other_interpreter_settings_are_not_forked(forker: SessionForker, tmp_path: Path) -> None:
    # a fork would silently run with the server's hash seed: the caller starts it instead
    r, w = os.pipe()
    try:
        env = probe_env(PYTHONHASHSEED="123")
        assert forker.fork(PROBE, [], env=env, cwd=str(tmp_path), stdio=(r, w, w), tag="x") is None
    finally:
        os.close(r)
        os.close(w)


@pytest.fixture
def shared_name() -> str:
    return f"harness-test-{uuid.uuid4().hex}"


def shared_forker(name: str) -> SessionForker:
    f = SessionForker(("json",), environ=probe_env(), shared=name)
    f.start()
    return f


def test_a_shared_server_serves_every_forker_that_names_it(
    shared_name: str, tmp_path: Path
) -> None:
    first, second = shared_forker(shared_name), shared_forker(shared_name)
    try:
        probes = [
            Running(f, tmp_path, f"batch-00000000000000d{i}") for i, f in enumerate((first, second))
        ]
        # each starts on a thread of its own: either may take the name first
        pids = [f.pid for f in (first, second) if f.pid is not None]
        assert len(pids) == 1  # the other started no server: it joined that one
        assert [p.report["ppid"] for p in probes] == [pids[0], pids[0]]
        server = psutil.Process(pids[0])
        assert [c.pid for c in server.children()] == [p.session.pid for p in probes]
        assert [p.end() for p in probes] == [3, 3]  # each told its own session's end
    finally:
        second.close()
        first.close()
    _, alive = psutil.wait_procs([server], timeout=15)
    assert alive == []


def test_a_closed_connection_takes_its_sessions_and_the_last_the_server(
    shared_name: str, tmp_path: Path
) -> None:
    first, second = shared_forker(shared_name), shared_forker(shared_name)
    try:
        a = Running(first, tmp_path, "batch-00000000000000e1")
        b = Running(second, tmp_path, "batch-00000000000000e2")
        if first.pid is None:  # each starts on a thread of its own: the second took the name
            first, second, a, b = second, first, b, a
        assert first.pid is not None
        assert second.pid is None
        server = psutil.Process(first.pid)
        # the forker that started the server goes first: the server stays for the other
        first.close()
        assert a.session.wait(15)  # killed: its forker's connection closed
        assert server.status() != psutil.STATUS_ZOMBIE
        assert b.session.wait(0) is False
        c = Running(second, tmp_path, "batch-00000000000000e3")
        assert c.report["ppid"] == server.pid
        second.close()  # the last one: the server leaves, its sessions with it
        _, alive = psutil.wait_procs(
            [server, psutil.Process(b.session.pid), psutil.Process(c.session.pid)], timeout=15
        )
        assert alive == []
    finally:
        second.close()
        first.close()
    for probe in (a, b, c):
        os.close(probe.stdin)
        os.close(probe.stdout)
        probe.session.close()
