"""``harness batch`` on this machine: real child sessions against the scripted model."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import psutil
from tests.batch.conftest import (
    EditModel,
    assert_six_done,
    batch_argv,
    batch_env,
    find_session,
    read_results,
    serve,
    write_tasks,
)
from tests.scripted import ScriptedModel


def test_six_tasks_each_in_its_own_copy(
    tmp_path: Path, repo: Path, home: Path, edit_model: tuple[EditModel, ScriptedModel]
) -> None:
    script, model = edit_model
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo)
    out = tmp_path / "out"
    p = subprocess.run(
        batch_argv(tasks, out, model, "--concurrency", "3"),
        env=batch_env(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    results = assert_six_done(out, repo)
    assert all(line["usage"]["prompt_tokens"] > 0 for line in results.values())
    assert script.most_in_flight <= 3
    assert 1 < most_at_once(results.values()) <= 3
    # the copies are gone after the run: their sessions keep no log there is no resuming
    assert not (home / "projects").exists()
    # the default permission mode is said, and the edit ran only because it was allowed
    notes = [json.loads(x) for x in p.stdout.splitlines()]
    assert any(n["type"] == "note" and "deny" in n["text"] for n in notes)


def most_at_once(lines: Iterable[dict[str, Any]]) -> int:
    """The most tasks running at one moment, from their result lines.

    A line's times are rounded to the millisecond, so a task that starts as another ends
    (a slot handed on at once) may seem to overlap it by up to 2 ms: that much is not
    counted as running together."""
    edges = sorted(
        (t, d)
        for x in lines
        for t, d in ((x["started"], 1), (x["started"] + x["duration"] - 0.002, -1))
    )
    running = most = 0
    for _, step in edges:
        running += step
        most = max(most, running)
    return most


def test_plain_folder_and_denied_edit(
    tmp_path: Path, home: Path, edit_model: tuple[EditModel, ScriptedModel]
) -> None:
    _, model = edit_model
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "notes.txt").write_text("t1: todo\nt2: todo\n")
    tasks = write_tasks(tmp_path / "tasks.jsonl", folder, ids=("t1", "t2"))
    out = tmp_path / "out"
    argv = batch_argv(tasks, out, model)
    argv.remove("--allow")
    argv.remove("edit_file")
    argv += ["--allow", "edit_file(notes.txt)", "--deny", "edit_file"]  # deny wins: t1 and t2
    p = subprocess.run(argv, env=batch_env(home), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert sorted(read_results(out)) == ["t1", "t2"]
    for i in ("t1", "t2"):
        events = (out / i / "events.jsonl").read_text()
        assert '"type":"tool_call_denied"' in events
        assert (out / i / "diff.patch").read_text() == ""
    assert (folder / "notes.txt").read_text() == "t1: todo\nt2: todo\n"
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


def test_resume_skips_finished_and_a_bad_line_is_skipped(
    tmp_path: Path, repo: Path, home: Path, edit_model: tuple[EditModel, ScriptedModel]
) -> None:
    script, model = edit_model
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2"))
    first = subprocess.run(
        batch_argv(tasks, out, model),
        env=batch_env(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert first.returncode == 0, first.stdout + first.stderr
    before = (out / "results.jsonl").read_text()
    asked = len(script.asked)
    no_workspace = '{"id": "t4", "prompt": "no workspace"}\n'
    write_tasks(tasks, repo, ids=("t1", "t2", "t3"), extra=no_workspace)
    second = subprocess.run(
        batch_argv(tasks, out, model),
        env=batch_env(home),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert second.returncode == 1, second.stdout + second.stderr  # the bad line
    docs = [json.loads(x) for x in second.stdout.splitlines()]
    bad = [d["text"] for d in docs if d["type"] == "note" and "line 4" in d["text"]]
    assert len(bad) == 1, docs
    assert "workspace" in bad[0]
    # t1 and t2 have a result, line 4 is not a task
    assert {"type": "batch_started", "tasks": 1, "skipped": 3} in docs
    assert script.asked[asked:] == ["t3", "t3"]
    assert (out / "results.jsonl").read_text().startswith(before)
    assert sorted(read_results(out)) == ["t1", "t2", "t3"]


def test_sigint_stops_everything_and_leaves_no_process(
    tmp_path: Path, repo: Path, home: Path
) -> None:
    script = EditModel(hold=("t1", "t2", "t3"))
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2", "t3", "t4"))
    with serve(script) as model:
        driver = subprocess.Popen(
            batch_argv(tasks, out, model, "--concurrency", "3"),
            env=batch_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            for i in ("t1", "t2", "t3"):
                script.wait_asked(i)
            tree = psutil.Process(driver.pid).children(recursive=True)
            sessions = [p for p in tree if "-p" in p.cmdline()]
            assert len(sessions) == 3
            driver.send_signal(signal.SIGINT)
            stdout, stderr = driver.communicate(timeout=60)
        finally:
            script.release()
            driver.kill()
    assert driver.returncode == 130, stdout + stderr
    _, alive = psutil.wait_procs(tree, timeout=10)
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
    assert not (out / "results.jsonl").exists()  # nothing finished, nothing written
    assert "t4" not in script.asked
    docs = [json.loads(x) for x in stdout.splitlines()]
    assert sorted(d["id"] for d in docs if d["type"] == "task_interrupted") == ["t1", "t2", "t3"]


def test_a_hung_task_is_killed_at_its_timeout(tmp_path: Path, repo: Path, home: Path) -> None:
    script = EditModel(hold=("t1",))
    out = tmp_path / "out"
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1",))
    with serve(script) as model:
        driver = subprocess.Popen(
            batch_argv(tasks, out, model, "--task-timeout", "4", "--retries", "0"),
            env=batch_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            script.wait_asked("t1")
            session = find_session("/t1")
            tree = [session, *session.children(recursive=True)]
            stdout, stderr = driver.communicate(timeout=120)
        finally:
            script.release()
            driver.kill()
    assert driver.returncode == 1, stdout + stderr
    line = read_results(out)["t1"]
    assert line["ok"] is False
    assert line["reason"] == "timeout"
    assert line["attempts"] == 1
    _, alive = psutil.wait_procs(tree, timeout=10)
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []


def test_no_process_of_a_batch_shows_the_keys_and_each_session_gets_them(
    tmp_path: Path, repo: Path, home: Path
) -> None:
    """Issue 34: a task's command could read ``/proc/<driver>/environ``. The driver takes
    the keys out of its own environment block and hands them to the sessions alone, which
    need them. And a local batch never imports Ray. One batch for the three, each batch
    an interpreter's start-up: ``python -m harness`` run so that what it imported can be
    looked at when it is done."""
    secret = "sk-batch-key-not-in-proc"
    script = EditModel(hold=("t1",))
    tasks = write_tasks(tmp_path / "tasks.jsonl", repo, ids=("t1", "t2"))
    env = batch_env(home) | {"OPENAI_API_KEY": secret, "DEPLOY_TOKEN": "tok-not-in-proc"}
    with serve(script) as model:
        argv = batch_argv(tasks, tmp_path / "out", model)[3:]
        code = (
            "import runpy, sys\n"
            f"sys.argv = ['harness', *{argv!r}]\n"
            "try:\n"
            "    runpy.run_module('harness', run_name='__main__', alter_sys=True)\n"
            "except SystemExit as exit:\n"
            "    print('RAY' if 'ray' in sys.modules else 'NO-RAY', exit.code)\n"
        )
        driver = subprocess.Popen(
            [sys.executable, "-c", code],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            script.wait_asked("t1")
            tree = [psutil.Process(driver.pid), *psutil.Process(driver.pid).children(True)]
            assert any("-p" in p.cmdline() for p in tree)  # the task's session is running
            shown = {p.pid: _environ_block(p.pid) for p in tree}
        finally:
            script.release()
            stdout, stderr = driver.communicate(timeout=120)
    assert stdout.splitlines()[-1] == "NO-RAY 0", stdout + stderr
    for pid, block in shown.items():
        assert b"not-in-proc" not in block, pid
    assert len(model.headers) >= 4  # both tasks' sessions asked, twice each
    assert {h.get("authorization") for h in model.headers} == {f"Bearer {secret}"}


def _environ_block(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return f.read()
    except OSError:  # gone already
        return b""
