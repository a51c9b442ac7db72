"""Rewind and fork on real sessions (real workers, the scripted model on loopback), and the
session log they leave."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.conversation import SessionOptions, events, open_session
from harness.conversation.session import SessionStore
from tests.cli.inprocess import Harness, in_process
from tests.rewind.conftest import WORKERS
from tests.scripted import ScriptedModel, call, reply


def options(ws: Path, home: Path, model: ScriptedModel, **kw: Any) -> SessionOptions:
    return SessionOptions(
        workspace=str(ws),
        home=str(home),
        provider="openai",
        models=("scripted",),
        base_url=model.base_url,
        permission_mode="auto",
        workers={k: v for k, v in WORKERS.items() if k in ("model", "tools")},
        **kw,
    )


def append(path: Path, text: str) -> None:
    with open(path, "a") as f:
        f.write(text)


def users(model: ScriptedModel) -> list[str]:
    return [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "user"]


async def test_conversation_only_and_files_only_and_what_resume_sees(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    model.add(
        reply("", call("write_file", path="a.txt", content="1\n")),
        reply("one"),
        reply("", call("write_file", path="b.txt", content="2\n")),
        reply("two"),
        reply("three"),
    )
    async with open_session(options(workspace, home, model)) as s:
        await s.run("first")
        await s.run("second")
        assert [c.text for c in s.checkpoints.list()] == ["first", "second"]
        plan = await s.checkpoints.plan(2)
        assert [(f.path, f.action) for f in plan.files.files] == [("b.txt", "remove")]
        assert (workspace / "b.txt").exists()  # a plan changes nothing
        out = await s.checkpoints.rewind(2, files=False)
        assert out.ok
        assert (workspace / "b.txt").exists()  # the files stay
        assert [c.text for c in s.checkpoints.list()] == ["first"]
        await s.run("third")
        assert users(model) == ["first", "third"]
        # what an editor replays of the log is the rewound conversation too
        said = [e.text for e in s.recorded() if isinstance(e, events.UserMessage)]
        assert said == ["first", "third"]
        out = await s.checkpoints.rewind(2, conversation=False)  # before "third": no file
        assert out.ok
        assert [f.path for f in out.files.files] == [] if out.files else False
        sid = s.id
    loaded = SessionStore(home, workspace).load(sid)
    assert [m.content for m in loaded.history if m.role == "user"] == ["first", "third"]
    assert not loaded.problems


async def test_a_fork_leaves_the_original_byte_for_byte_and_reaches_its_changes(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    model.add(
        reply("", call("write_file", path="p.txt", content="parent\n")),
        reply("one"),
        reply("", call("write_file", path="c.txt", content="child\n")),
        reply("in the fork"),
    )
    async with open_session(options(workspace, home, model)) as s:
        await s.run("first")
        s.set_title("work")
        info = s.checkpoints.fork()
        parent = s.id
    store = SessionStore(home, workspace)
    original = (store.root / parent / "events.jsonl").read_bytes()
    assert info.title == "work (fork)"
    assert {i.id for i in store.list()} == {parent, info.id}
    async with open_session(options(workspace, home, model, resume=info.id)) as f:
        assert f.id == info.id
        await f.run("second, in the fork")
        assert users(model) == ["first", "second, in the fork"]
        # back to before the first prompt, which the parent ran: its file goes too
        out = await f.checkpoints.rewind(1)
        assert out.ok, out.message
        assert sorted(x.path for x in out.files.files) == ["c.txt", "p.txt"] if out.files else 0
    assert not (workspace / "p.txt").exists()
    assert not (workspace / "c.txt").exists()
    assert (store.root / parent / "events.jsonl").read_bytes() == original


async def test_a_rewind_torn_by_a_kill_leaves_the_log_whole(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    model.add(reply("one"), reply("two"))
    async with open_session(options(workspace, home, model)) as s:
        await s.run("first")
        await s.run("second")
        sid = s.id
    log = SessionStore(home, workspace).root / sid / "events.jsonl"
    line = json.dumps({"type": "rewound", "session_id": sid, "ts": 1.0, "prompt": 1})
    append(log, line[: len(line) // 2])  # killed in the middle of the line
    loaded = SessionStore(home, workspace).load(sid)
    assert [m.content for m in loaded.history if m.role == "user"] == ["first", "second"]
    assert any("torn" in p for p in loaded.problems)
    append(log, "\n" + line + "\n")  # the same rewind, whole
    loaded = SessionStore(home, workspace).load(sid)
    assert [m.content for m in loaded.history if m.role == "user"] == []


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Harness:
    """``harness ARGS`` in the test's process: the subject is what the command line does
    (tests/rewind/test_program.py runs the real program)."""
    return in_process(monkeypatch, capsys)


def test_the_command_line_refuses_what_cannot_be_rewound_then_streams_a_rewind(
    model: ScriptedModel, workspace: Path, home: Path, harness: Harness
) -> None:
    """One session for the refusals, a fork rewound in text, and the original rewound
    before a task in stream-json."""
    p = harness(["--rewind-to", "1"], workspace=workspace, home=home)
    assert p.returncode == 2
    assert "need --resume ID or --continue" in p.stderr
    model.add(reply("one"))
    base = ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]
    first = harness(
        ["-p", "first", "--output-format", "json", *base], workspace=workspace, home=home
    )
    sid = json.loads(first.stdout)["session_id"]
    p = harness(["--resume", sid, "--rewind-to", "5", *base], workspace=workspace, home=home)
    assert p.returncode == 2
    assert "there is no prompt 5" in p.stderr
    # text: the report on stdout; a fork first, which names itself on stderr
    p = harness(
        ["--resume", sid, "--fork-session", "--rewind-to", "1", *base],
        workspace=workspace,
        home=home,
    )
    assert p.returncode == 0, p.stderr
    assert "forked into session" in p.stderr
    assert p.stdout.startswith("rewound the conversation and files to before prompt 1: first")
    assert len(SessionStore(home, workspace).list()) == 2

    # the original, which the fork left as it was: a task after the rewind streams the
    # rewound event before its own prompt
    model.add(reply("again, answered"))
    rewind = ["--resume", sid, "--rewind-to", "1", "-p", "again"]
    p = harness(
        [*rewind, "--output-format", "stream-json", *base],
        workspace=workspace,
        home=home,
    )
    assert p.returncode == 0, p.stderr
    types = [json.loads(line)["type"] for line in p.stdout.splitlines()]
    assert types.index("rewound") < types.index("user_message")
    assert "rewound the conversation and files to before prompt 1" in p.stderr
    assert users(model) == ["again"]
