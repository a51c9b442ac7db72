"""Resume after kill -9 of the whole harness mid-run; secrets never reach model or log."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import psutil

from harness.conversation import events as ev
from harness.conversation.session._store import SessionStore
from tests.conversation.conftest import ROOT, drain
from tests.scripted import ScriptedModel, call, reply


def _alive(marker: str) -> list[psutil.Process]:
    out = []
    for p in psutil.process_iter(["cmdline", "status"]):
        if p.info["status"] != psutil.STATUS_ZOMBIE and marker in " ".join(p.info["cmdline"] or ()):
            out.append(p)
    return out


def _wait_for(predicate, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


async def test_resume_after_kill_9_mid_run(
    session_factory, model: ScriptedModel, workspace: Path, home: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    model.add(reply("Let me look.", call("run_cmd", command="cat a.txt; sleep 61.37")))
    proc = subprocess.Popen(  # noqa: ASYNC220 - the test drives it synchronously
        [
            sys.executable,
            "-m",
            "tests.conversation.run_session",
            str(workspace),
            str(home),
            model.base_url,
            "read a.txt",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None
    sid = proc.stdout.readline().decode().strip()
    store = SessionStore(home, workspace)
    log_path = store.root / sid / "events.jsonl"
    _wait_for(lambda: log_path.exists() and b"tool_call_started" in log_path.read_bytes())
    _wait_for(lambda: bool(_alive("sleep 61.37")))  # the command is running
    children = psutil.Process(proc.pid).children(recursive=True)
    assert children  # the workers are running
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    # the workers notice their parent is gone and leave, and the command they ran
    # (sleep 60) goes with them: nothing is orphaned
    _wait_for(lambda: not [c for c in children if c.is_running() and c.status() != "zombie"])
    _wait_for(lambda: not _alive("61.37"))

    # the log is whole: every line decodes
    lines = log_path.read_bytes().splitlines()
    tags = [orjson.loads(line)["type"] for line in lines]
    assert tags[:3] == ["session_started", "user_message", "turn_started"]
    assert "assistant_message" in tags
    assert "result" not in tags

    model.add(reply("It says alpha."))
    async with session_factory(resume=sid) as s:
        assert s.resumed
        assert [m.role for m in s.history] == ["user", "assistant", "tool"]
        assert "did not finish" in s.history[-1].content
        result = await s.run("what did it say?")
    assert result.ok
    sent = model.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "user"]
    assert sent[2]["tool_calls"][0]["function"]["name"] == "run_cmd"
    # the resumed session appended to the same log
    loaded = store.load(sid)
    assert loaded.problems == []
    assert [e.TAG for e in loaded.events].count("session_started") == 2
    assert loaded.events[-1].TAG == "result"


async def test_continue_resumes_latest(session_factory, model: ScriptedModel) -> None:
    model.add(reply("first"), reply("second"))
    async with session_factory() as s:
        await s.run("one")
        first_id = s.id
    async with session_factory(continue_latest=True) as s:
        assert s.id == first_id
        await s.run("two")
    assert [m["content"] for m in model.requests[-1]["messages"][1:]] == ["one", "first", "two"]


async def test_secrets_are_masked_before_model_events_and_log(
    session_factory, model: ScriptedModel, workspace: Path, home: Path, monkeypatch
) -> None:
    secret = "s3cr3t-value-0123456789"
    monkeypatch.setenv("MY_SERVICE_TOKEN", secret)
    (workspace / "config.txt").write_text(f"token = {secret}\n")
    model.add(reply("", call("read_file", path="config.txt")), reply("read it"))
    async with session_factory(environ=dict(os.environ)) as s:
        events = s.events()
        await s.run("show config")
        seen = []
        while True:
            try:
                seen.append(events.receive_nowait())
            except Exception:
                break
        log = s.log.path  # type: ignore[union-attr]
    assert secret not in orjson.dumps(model.requests).decode()
    assert "[REDACTED]" in model.requests[1]["messages"][-1]["content"]
    assert all(secret not in orjson.dumps(ev.encode_event(e)).decode() for e in seen)
    assert secret not in log.read_text()


async def test_the_log_written_behind_the_loop_rebuilds_the_same_history(
    session_factory, model: ScriptedModel, workspace: Path, home: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    model.add(
        reply("Reading a.", call("read_file", path="a.txt")),
        reply("", call("read_file", path="b.txt"), call("read_file", path="a.txt")),
        reply("", call("read_file", path="missing.txt")),
        reply("Both read."),
        reply("", call("read_file", path="b.txt")),
        reply("Again."),
    )
    async with session_factory() as s:
        events = s.events()
        await s.run("read a and b")
        await s.run("and b once more")
        emitted = [e for e in drain(events) if e.DURABLE]
        live_history = list(s.history)
        sid = s.id
    loaded = SessionStore(home, workspace).load(sid)
    assert loaded.problems == []
    # the same durable events, in the order the loop emitted them
    assert [ev.encode_event(e) for e in loaded.events][-len(emitted) :] == [
        ev.encode_event(e) for e in emitted
    ]
    assert loaded.history == live_history
    async with session_factory(resume=sid) as s:
        assert s.history == live_history
