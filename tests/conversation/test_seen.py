"""write_file never replaces a file the model has not seen, on real workers."""

from __future__ import annotations

import os
from pathlib import Path

import trio

from harness.conversation import events as ev
from harness.conversation._loop_config import LoopConfig
from tests.conversation.conftest import drain
from tests.scripted import ScriptedModel, call, reply


def _finished(seen: list[ev.ConversationEvent]) -> list[tuple[str, bool, str]]:
    return [(e.name, e.ok, e.output) for e in seen if isinstance(e, ev.ToolCallFinished)]


async def _strict(session_factory, prompt: str) -> tuple[bool, list[tuple[str, bool, str]]]:
    """Run *prompt* once in a session held to strict writes: whether it ended ok, and each
    call that finished as ``(tool, ok, output)``."""
    async with session_factory(strict_writes=True) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run(prompt)
        seen = drain(events)
    return result.ok, _finished(seen)


async def test_a_file_not_read_is_not_replaced_and_after_a_read_it_is(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "util.py").write_text("def helper(x):\n    return x * 2\n")
    (workspace / "empty.py").write_text("")
    model.add(
        reply("", call("write_file", path="util.py", content="def compute(): pass\n")),
        reply("", call("read_file", path="util.py")),
        reply(
            "", call("write_file", path="util.py", content="def compute(x):\n    return x * 2\n")
        ),
        reply("", call("write_file", path="new.py", content="x = 1\n")),  # a new file
        reply("", call("write_file", path="empty.py", content="y = 2\n")),  # nothing to lose
        reply("Done."),
    )
    async with session_factory() as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("rename helper to compute")
        seen = drain(events)
    assert result.ok
    first, *rest = _finished(seen)
    assert first[:2] == ("write_file", False)
    assert "util.py exists and was not read in this session" in first[2]
    assert "read it first with read_file" in first[2]
    assert [r[:2] for r in rest] == [
        ("read_file", True),
        ("write_file", True),
        ("write_file", True),
        ("write_file", True),
    ]
    assert (workspace / "util.py").read_text() == "def compute(x):\n    return x * 2\n"
    assert (workspace / "new.py").read_text() == "x = 1\n"
    assert (workspace / "empty.py").read_text() == "y = 2\n"
    # the refusal went back to the model as the call's result
    told = model.requests[1]["messages"][-1]["content"]
    assert "was not read in this session" in told


async def test_a_resumed_session_knows_what_it_read_before(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    model.add(reply("", call("read_file", path="a.txt")), reply("It says hello."))
    async with session_factory() as s:
        await s.run("read a.txt")
        sid = s.id
    model.add(reply("", call("write_file", path="a.txt", content="bye\n")), reply("Done."))
    async with session_factory(resume=sid) as s:
        events = s.events()
        await s.run("now write bye")
        seen = drain(events)
    assert _finished(seen)[0][:2] == ("write_file", True)
    assert (workspace / "a.txt").read_text() == "bye\n"


async def test_a_model_held_to_strict_writes_edits_only_what_it_has_seen(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "util.py").write_text("def helper(x):\n    return x * 2\n")
    (workspace / "main.py").write_text("from util import helper\n\nprint(helper(21))\n")
    (workspace / "other.py").write_text("x = 1\n")
    model.add(
        # an edit of a file not read, whose old_text is not in it, is refused before it runs
        reply("", call("edit_file", path="util.py", old_text="helper(y)", new_text="compute")),
        reply("", call("read_file", path="util.py")),
        # read or not, a file with content is not replaced whole
        reply("", call("write_file", path="util.py", content="def compute(self, x, y): ...\n")),
        reply("", call("edit_file", path="util.py", old_text="helper", new_text="compute")),
        # main.py was not read, but the edit's note quoted its lines: it may be edited
        reply("", call("edit_file", path="main.py", old_text="import helper", new_text="import x")),
        reply("", call("edit_file", path="other.py", old_text="x = 3", new_text="x = 2")),
        reply("", call("write_file", path="new.py", content="x = 1\n")),  # a new file
        reply("Done."),
    )
    ok, done = await _strict(session_factory, "rename helper to compute")
    assert ok
    assert [d[:2] for d in done] == [
        ("edit_file", False),
        ("read_file", True),
        ("write_file", False),
        ("edit_file", True),
        ("edit_file", True),
        ("edit_file", False),
        ("write_file", True),
    ]
    assert "util.py was not read in this session, and edit_file changes" in done[0][2]
    assert "util.py exists, and write_file only creates files here" in done[2][2]
    assert "change it with edit_file" in done[2][2]
    assert (workspace / "main.py").read_text().startswith("from util import x\n")
    assert "other.py was not read in this session" in done[5][2]
    assert (workspace / "util.py").read_text() == "def compute(x):\n    return x * 2\n"
    assert (workspace / "other.py").read_text() == "x = 1\n"
    assert (workspace / "new.py").read_text() == "x = 1\n"


async def test_a_path_under_the_workspace_name_is_seen_as_the_file_it_names(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "greet.py").write_text("def greet(nam):\n    return nam\n")
    ws = workspace.name
    model.add(
        # not read under either name: refused
        reply("", call("edit_file", path=f"{ws}/greet.py", old_text="nam", new_text="name")),
        reply("", call("read_file", path=f"{ws}/greet.py")),
        reply(
            "",
            call(
                "edit_file",
                path="greet.py",
                old_text="def greet(nam):\n    return nam",
                new_text="def greet(name):\n    return name",
            ),
        ),
        reply("Done."),
    )
    _, done = await _strict(session_factory, "rename nam to name in greet.py")
    assert [d[:2] for d in done] == [
        ("edit_file", False),
        ("read_file", True),
        ("edit_file", True),
    ]
    assert (workspace / "greet.py").read_text() == "def greet(name):\n    return name\n"
    assert not (workspace / ws).exists()


async def test_a_refusal_to_edit_unread_is_left_out_once_the_file_is_read(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (workspace / "other.py").write_text("x = 1\n")
    model.add(
        reply(
            "I will fix it.",
            call("edit_file", path="calc.py", old_text="a + b", new_text="a + b + 1"),
            call("edit_file", path="other.py", old_text="x = 3", new_text="x = 2"),
        ),
        reply("", call("read_file", path="./calc.py")),
        reply("", call("edit_file", path="calc.py", old_text="a - b", new_text="a + b")),
        reply("I changed a - b to a + b in calc.py."),
    )
    async with session_factory(strict_writes=True, tool_protocol="text") as s:
        with trio.fail_after(30):
            result = await s.run("fix add in calc.py")
    assert result.ok
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    texts = ["\n".join(m["content"] for m in r["messages"]) for r in model.requests]
    # before the read the model is told why its edit did not run
    assert "calc.py was not read in this session" in texts[1]
    assert "a + b + 1" in texts[1]
    # after it, that edit and its refusal are gone; other.py, still unread, keeps its own
    for text in texts[2:]:
        assert "calc.py was not read in this session" not in text
        assert "a + b + 1" not in text
        assert "other.py was not read in this session" in text
    assert "return a - b" in texts[2]


def test_by_default_only_the_embedded_model_is_held_to_strict_writes() -> None:
    assert not LoopConfig(workspace="/w", provider="openai").writes_strictly()
    assert LoopConfig(workspace="/w", provider="local").writes_strictly()
    assert not LoopConfig(workspace="/w", provider="local", strict_writes=False).writes_strictly()
    assert LoopConfig(workspace="/w", strict_writes=True).writes_strictly()


async def test_an_unread_file_is_edited_where_each_old_text_is_found_once(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "one.py").write_text("def add(a, b):\n    return a - b\n")
    two = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
    (workspace / "two.py").write_text(two)
    big = "".join(f"x{i} = {i}\n" for i in range(60))
    (workspace / "big.py").write_text(big)
    model.add(
        # found once in a file never read: text the file holds, so the edit runs
        reply("", call("edit_file", path="one.py", old_text="a - b", new_text="a + b")),
        # found twice: refused, told to read it first, and shown nothing of it
        reply("", call("edit_file", path="two.py", old_text="return a - b", new_text="x")),
        # found once: runs
        reply(
            "",
            call(
                "edit_file",
                path="two.py",
                old_text="def add(a, b):\n    return a - b",
                new_text="def add(a, b):\n    return a + b",
            ),
        ),
        # not found: refused
        reply("", call("edit_file", path="big.py", old_text="x0 = 1", new_text="x0 = 2")),
        reply("", call("edit_file", path="big.py", old_text="x7 = 9", new_text="x7 = 8")),
        reply("Done."),
    )
    ok, done = await _strict(session_factory, "fix add")
    assert ok
    assert [d[:2] for d in done] == [
        ("edit_file", True),
        ("edit_file", False),
        ("edit_file", True),
        ("edit_file", False),
        ("edit_file", False),
    ]
    assert (workspace / "one.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert (workspace / "two.py").read_text() == two.replace("a - b", "a + b", 1)
    assert (workspace / "big.py").read_text() == big
    for text in (done[1][2], done[3][2], done[4][2]):
        assert "was not read in this session" in text
        assert "found in it exactly once: read it first with read_file, then edit it" in text
        assert "x0 = 0" not in text
        assert "return a - b" not in text


async def test_a_refused_unread_edit_shows_nothing_and_a_matching_one_is_still_asked(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "calc.py").write_text("SECRET = 1\n\ndef add(a, b):\n    return a - b\n")
    asked = []

    async def approver(req):
        asked.append(req)
        return "yes"

    model.add(
        reply("", call("edit_file", path="calc.py", old_text="a + b", new_text="a * b")),
        reply("", call("edit_file", path="calc.py", old_text="add(a, c)", new_text="x")),
        # found once: it goes on to the approval, which shows its diff
        reply("", call("edit_file", path="calc.py", old_text="a - b", new_text="a + b")),
        reply("Done."),
    )
    async with session_factory(strict_writes=True, permission_mode="ask", approver=approver) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("fix add")
        seen = drain(events)
    assert result.ok
    done = _finished(seen)
    assert [d[:2] for d in done] == [
        ("edit_file", False),
        ("edit_file", False),
        ("edit_file", True),
    ]
    for refused in done[:2]:
        assert "calc.py was not read in this session" in refused[2]
        assert "SECRET" not in refused[2]
    assert [r.name for r in asked] == ["edit_file"]  # the refused ones asked nobody
    assert "+    return a + b" in asked[0].diff
    assert "return a + b" in (workspace / "calc.py").read_text()


async def test_an_unread_edit_is_checked_against_the_file_in_the_workspace_only(
    session_factory, model: ScriptedModel, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("password = hunter2\n")
    (workspace / "link.txt").symlink_to(outside)
    os.mkfifo(workspace / "pipe.txt")
    model.add(
        reply("", call("edit_file", path="link.txt", old_text="hunter2", new_text="x")),
        reply("", call("edit_file", path="link.txt", old_text="nope", new_text="x")),
        reply("", call("edit_file", path="pipe.txt", old_text="a", new_text="b")),
        reply("Done."),
    )
    _, done = await _strict(session_factory, "edit them")
    assert [d[:2] for d in done] == [("edit_file", False)] * 3
    assert outside.read_text() == "password = hunter2\n"
    for _, _, text in done:
        assert "hunter2" not in text
