"""The session store, atomic state files, memory tools and secret masking, on real files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from harness._atomic import read_json
from harness.conversation import events as ev
from harness.conversation._secrets import MASK, SecretMasker
from harness.conversation.session._memory import MemoryStore, MemoryStoreError
from harness.conversation.session._store import (
    SessionNotFound,
    SessionStore,
    export_json,
    export_markdown,
    workspace_key,
)
from harness.messages.model import ToolCall


def _run_events(sid: str) -> list[ev.ConversationEvent]:
    return [
        ev.SessionStarted(session_id=sid, workspace="/w"),
        ev.UserMessage(session_id=sid, text="read a"),
        ev.TurnStarted(session_id=sid, turn=1),
        ev.TextDelta(session_id=sid, text="not durable"),
        ev.AssistantMessage(
            session_id=sid, text="", tool_calls=(ToolCall("c1", "read_file", {"path": "a"}),)
        ),
        ev.ToolCallFinished(session_id=sid, call_id="c1", name="read_file", ok=True, output="1:x"),
        ev.TurnFinished(session_id=sid, turn=1, reason="tool_calls"),
        ev.AssistantMessage(session_id=sid, text="it says x"),
        ev.Result(session_id=sid, ok=True, text="it says x"),
    ]


def test_log_round_trip_and_history(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "home", tmp_path)
    log = store.create()
    for e in _run_events(log.id):
        log.append(e)
    log.close()
    assert log.path.parent.parent == store.root
    assert store.root.parts[-3] == "projects"
    assert store.root.parts[-2] == workspace_key(tmp_path)
    loaded = store.load(log.id)
    assert loaded.problems == []
    assert "text_delta" not in [e.TAG for e in loaded.events]
    assert [m.role for m in loaded.history] == ["user", "assistant", "tool", "assistant"]
    assert loaded.history[2].content == "1:x"
    assert store.find(log.id).first_prompt == "read a"


def test_torn_last_line_is_skipped_and_reported(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "home", tmp_path)
    log = store.create()
    for e in _run_events(log.id)[:5]:
        log.append(e)
    log.close()
    with open(log.path, "ab") as f:
        f.write(b'{"type": "tool_call_finished", "session_id": "x", "call_')  # a crash mid-write
    loaded = store.load(log.id)
    assert len(loaded.problems) == 1
    assert "torn" in loaded.problems[0]
    # the unanswered call gets a result, so the history stays well-formed
    assert [m.role for m in loaded.history] == ["user", "assistant", "tool"]
    assert "did not finish" in loaded.history[-1].content
    # appending after the torn line starts on a fresh line
    log2 = store.open_log(log.id)
    log2.append(ev.UserMessage(session_id=log.id, text="again"))
    log2.close()
    again = store.load(log.id)
    assert again.history[-1].content == "again"
    assert len(again.problems) == 1


def test_garbage_in_the_middle_is_not_fatal(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "home", tmp_path)
    log = store.create()
    log.append(ev.UserMessage(session_id=log.id, text="one"))
    os.write(log._fd, b'not json at all\n{"type": "nope"}\n')  # type: ignore[arg-type]
    log.append(ev.UserMessage(session_id=log.id, text="two"))
    log.close()
    loaded = store.load(log.id)
    assert [m.content for m in loaded.history] == ["one", "two"]
    assert len(loaded.problems) == 2


def test_find_by_title_prefix_and_latest(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "home", tmp_path)
    a = store.create("20260101-000000-aaaaaa")
    a.append(ev.TitleChanged(session_id=a.id, title="Fix the parser"))
    a.close()
    time.sleep(0.01)
    b = store.create("20260102-000000-bbbbbb")
    b.append(ev.UserMessage(session_id=b.id, text="hi"))
    b.append(ev.TurnFinished(session_id=b.id, turn=1, reason="done"))
    b.close()
    assert store.find("Fix the parser").id == a.id
    assert store.find("fix the parser").id == a.id
    assert store.find("20260102").id == b.id
    assert store.latest().id == b.id  # type: ignore[union-attr]
    with pytest.raises(SessionNotFound, match="several"):
        store.find("2026")
    with pytest.raises(SessionNotFound, match="no session"):
        store.find("nothing like it")
    # another workspace sees none of them
    assert SessionStore(tmp_path / "home", tmp_path / "home").list() == []


def test_export_json_and_markdown(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "home", tmp_path)
    log = store.create()
    for e in _run_events(log.id):
        log.append(e)
    log.append(ev.TitleChanged(session_id=log.id, title="Reading"))
    log.close()
    loaded = store.load(log.id)
    doc = orjson.loads(export_json(loaded))
    assert doc["title"] == "Reading"
    assert doc["messages"][1]["tool_calls"][0]["name"] == "read_file"
    md = export_markdown(loaded)
    assert md.startswith("# Reading")
    assert "**Tool call** `read_file`" in md
    assert "it says x" in md


def test_atomic_writes_survive_kill_9(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    code = (
        "import sys; sys.path.insert(0, sys.argv[2])\n"
        "from harness._atomic import write_json_atomic\n"
        "i = 0\n"
        "while True:\n"
        "    write_json_atomic(sys.argv[1], {'n': i, 'pad': 'x' * 50000}); i += 1\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(target), str(Path.cwd())])
    try:
        deadline = time.monotonic() + 10
        while not target.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    data = read_json(target, None)
    assert isinstance(data, dict)
    assert data["n"] >= 0
    assert len(data["pad"]) == 50000


def test_memory_tools(tmp_path: Path) -> None:
    mem = MemoryStore(tmp_path / "memory.json")
    assert mem.list() == "Memory is empty."
    assert "Saved" in mem.call("write_memory", {"key": "style", "value": "tabs, not spaces"})
    assert mem.call("read_memory", {"key": "style"}) == "tabs, not spaces"
    mem.call("edit_memory", {"key": "style", "old_text": "tabs", "new_text": "four spaces"})
    assert mem.read("style") == "four spaces, not spaces"
    assert "style" in mem.list()
    with pytest.raises(MemoryStoreError, match="exactly once"):
        mem.edit("style", "spaces", "x")
    mem.call("delete_memory", {"key": "style"})
    with pytest.raises(MemoryStoreError, match="no memory"):
        mem.read("style")
    assert oct((tmp_path / "memory.json").stat().st_mode & 0o777) == "0o600"
    (tmp_path / "memory.json").write_text("{broken")
    with pytest.raises(MemoryStoreError, match="not valid JSON"):
        mem.list()


def test_secret_masker() -> None:
    m = SecretMasker(
        {
            "OPENAI_API_KEY": "sk-abcdef123456",
            "GH_TOKEN": "ghp_zzzzzzzz",
            "HOME": "/root",
            "SHORT_KEY": "abc",
            "DB_PASSWORD": "hunter2hunter2",
        },
        ["provider-key-from-store"],
    )
    text = (
        "key=sk-abcdef123456 tok ghp_zzzzzzzz home /root pw hunter2hunter2 abc "
        "provider-key-from-store"
    )
    out = m.mask(text)
    assert "sk-abcdef123456" not in out
    assert "ghp_zzzzzzzz" not in out
    assert "hunter2hunter2" not in out
    assert "provider-key-from-store" not in out
    assert "/root" in out  # not a secret name
    assert " abc " in out  # too short to mask
    assert out.count(MASK) == 4


def test_resume_path_matches_full_load(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "home", tmp_path)
    log = store.create()
    for e in _run_events(log.id):
        log.append(e)
    log.append(ev.TitleChanged(session_id=log.id, title="T"))
    log.close()
    with open(log.path, "ab") as f:
        f.write(b'{"type": "user_message", "session_id": 3}\n{"type": "bogus"}\n{"torn')
    full = store.load(log.id)
    quick = store.load(log.id, events=False)
    assert quick.history == full.history
    assert quick.title == full.title == "T"
    assert quick.tags == [e.TAG for e in full.events]
    assert len(quick.problems) == len(full.problems) == 3
