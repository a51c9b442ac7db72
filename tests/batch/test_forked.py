"""Task sessions forked from the driver's task server: forked (not new interpreters),
retried when killed, gone when the driver is killed, each with its own tag and no key
in the environment ``/proc`` shows; and ``run_child`` without a task server."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import psutil
from tests.batch.conftest import (
    EditModel,
    assert_own_diffs,
    batch_argv,
    batch_env,
    find_session,
    read_results,
    run_holding,
    serve,
    write_tasks,
)
from tests.scripted import ScriptedModel

from harness.batch import BatchSettings, Stop, Task, child_argv, run_child, stop_task_server
from harness.supervisor import find_tagged

KEY = "sk-batch-key-not-in-any-block"


def arg_start(pid: int) -> int:
    """Where the process's command line lives: a fork keeps its parent's, a new
    interpreter gets a randomised stack of its own."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        raw = f.read()
    return int(raw[raw.rfind(b")") + 2 :].split()[45])


def block(pid: int) -> bytes:
    """The environment block ``/proc/PID/environ`` shows."""
    with open(f"/proc/{pid}/environ", "rb") as f:
        return f.read()


def block_tag(pid: int) -> str | None:
    tags = [e for e in block(pid).split(b"\0") if e.startswith(b"HARNESS_WORKER_TAG=")]
    return tags[0].decode().partition("=")[2] if tags else None


def test_a_task_session_is_a_fork_of_the_task_server(
    tmp_path: Path, repo: Path, home: Path
) -> None:
    script = EditModel(hold=("t1",))
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1",))
    with serve(script) as model:
        driver = subprocess.Popen(
            batch_argv(tasks, out, model),
            env=batch_env(home) | {"OPENAI_API_KEY": KEY},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            script.wait_asked("t1")
            session = find_session("/t1")
            server = session.parent()
            assert server is not None
            assert server.ppid() == driver.pid
            assert server.cmdline()[1:3] == ["-m", "harness.supervisor._zygote"]
            tree = session.children(recursive=True)
            # the session's own worker fork server and its model worker (the tools and shell
            # workers start at the first call to each): forks all the way down
            assert len(tree) >= 2
            assert {arg_start(p.pid) for p in [session, *tree]} == {arg_start(server.pid)}
            assert arg_start(server.pid) != arg_start(driver.pid)
            tag = block_tag(session.pid)
            assert tag is not None
            assert tag.startswith("batch-")
            assert {block_tag(p.pid) for p in tree} == {tag}
            assert {p.pid for p in find_tagged(tag)} == {session.pid, *(p.pid for p in tree)}
            assert [p.pid for p in [server, session, *tree] if KEY.encode() in block(p.pid)] == []
            script.release()
            stdout, stderr = driver.communicate(timeout=120)
        finally:
            script.release()
            driver.kill()
    assert driver.returncode == 0, stdout + stderr
    assert read_results(out)["t1"]["ok"] is True
    assert model.headers[-1]["authorization"] == f"Bearer {KEY}"  # the session had its key
    _, alive = psutil.wait_procs([server, session, *tree], timeout=10)
    assert alive == []


def test_a_killed_forked_session_is_retried_forked(tmp_path: Path, repo: Path, home: Path) -> None:
    """A task whose session is killed runs again, forked from the same task server, while
    the other task goes on in its first attempt."""
    script = EditModel(hold=("t2",))
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2"))
    retried: list[psutil.Process] = []

    def kill_and_find_the_retry() -> None:
        first = find_session("/t2")
        server = first.parent()
        assert server is not None
        script.hold.add("t2")  # the next attempt's first request waits too
        first.kill()
        retry = find_session("/t2", exclude=first.pid)
        assert retry.ppid() == server.pid
        retried.append(retry)

    with serve(script) as model:
        argv = batch_argv(tasks, out, model, "--retries", "1")
        stdout, _ = run_holding(
            script, argv, batch_env(home), "t2", kill_and_find_the_retry, timeout=120
        )
    assert len(retried) == 1
    results = read_results(out)
    assert (results["t2"]["ok"], results["t2"]["attempts"]) == (True, 2)
    assert (results["t1"]["ok"], results["t1"]["attempts"]) == (True, 1)
    assert_own_diffs(out, ("t1", "t2"))
    docs = [json.loads(x) for x in stdout.splitlines()]
    assert {"type": "task_started", "id": "t2", "attempt": 2} in docs


def test_a_killed_driver_leaves_no_task_process(tmp_path: Path, repo: Path, home: Path) -> None:
    script = EditModel(hold=("t1", "t2"))
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2"))
    with serve(script) as model:
        driver = subprocess.Popen(
            batch_argv(tasks, out, model, "--concurrency", "2"),
            env=batch_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            script.wait_asked("t1")
            script.wait_asked("t2")
            sessions = [find_session(f"/{i}") for i in ("t1", "t2")]
            tags = [block_tag(s.pid) for s in sessions]
            everything = psutil.Process(driver.pid).children(recursive=True)
            # the task server; each session, its fork server and its model worker
            assert len(everything) >= 1 + 2 * 3
            driver.send_signal(signal.SIGKILL)
            driver.wait(30)
        finally:
            script.release()
            driver.kill()
    _, alive = psutil.wait_procs(everything, timeout=15)
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
    assert [find_tagged(tag) for tag in tags if tag] == [[], []]


def test_run_child_forks_and_without_a_server_starts_a_new_interpreter(
    tmp_path: Path, home: Path, edit_model: tuple[EditModel, ScriptedModel]
) -> None:
    _, model = edit_model
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "notes.txt").write_text("t1: todo\nt2: todo\nt3: todo\n")
    flags = ("--provider", "openai", "--base-url", model.base_url, "--allow", "edit_file")
    settings = BatchSettings(flags=flags, models=("scripted",))
    env = batch_env(home)
    cases = [("t1", env, True), ("t2", env, False), ("t3", env | {"PYTHONHASHSEED": "7"}, True)]
    attempts = {}
    try:
        for task_id, environ, fork in cases:
            task = Task(id=task_id, prompt=f"task {task_id}: mark it done", workspace=str(folder))
            attempts[task_id] = run_child(
                child_argv(task, settings, str(folder)),
                prompt=task.prompt,
                cwd=str(folder),
                environ=environ,
                events_path=str(tmp_path / f"{task_id}.jsonl"),
                stderr_path=str(tmp_path / f"{task_id}.err"),
                timeout=120,
                stop=Stop(),
                fork=fork,
            )
    finally:
        stop_task_server()
    for task_id, attempt in attempts.items():
        assert attempt.status == 0, attempt.stderr_tail
        assert attempt.result is not None
        assert attempt.result["text"] == f"done {task_id}"
    # t3 asked for a fork, but another hash seed than the server's cannot be forked
    assert {i: a.forked for i, a in attempts.items()} == {"t1": True, "t2": False, "t3": False}
    assert (folder / "notes.txt").read_text() == "t1: done\nt2: done\nt3: done\n"
    events = [json.loads(x) for x in (tmp_path / "t2.jsonl").read_text().splitlines()]
    assert events[0]["type"] == "session_started"
