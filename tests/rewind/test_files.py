"""Rewinding files to a checkpoint through the tools worker's code, over real files and git."""

from __future__ import annotations

import os
import time
from pathlib import Path

from harness.actors.tools._backup import restore_entry
from harness.actors.tools._dispatch import rewind, undo
from harness.actors.tools._undo import MAX_ENTRIES, Journal
from harness.messages.tools import Rewind, RewindResult, RewindSpan, Undo
from tests.rewind.conftest import tree
from tests.tools.conftest import Call, sh


def checkpoint() -> float:
    """A prompt's moment, as the conversation stamps it (its event's ``ts``)."""
    mark = time.time()
    time.sleep(0.001)
    return mark


def age(root: Path) -> None:
    """Date everything under *root* an hour back: made before any checkpoint."""
    past = time.time() - 3600
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (past, past), follow_symlinks=False)
    os.utime(root, (past, past))


def back_to(ws: Path, home: Path, since: float, *, apply: bool, session: str = "s") -> RewindResult:
    spans = (RewindSpan(session, since),)
    return rewind(Rewind(workspace=str(ws), spans=spans, apply=apply), home=home)


def five_prompts(ws: Path, call: Call) -> list[float]:
    """Five prompts' worth of AI edits, creations, deletions and moves; their checkpoints."""
    (ws / "keep.txt").write_bytes(b"untouched\n")
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_bytes(b"def main():\n    return 1\n")
    (ws / "src" / "util.py").write_bytes(b"\x00\x01binary\xff\r\n")
    (ws / "docs").mkdir()
    (ws / "docs" / "a.md").write_bytes(b"# a\n")
    (ws / "run.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    os.chmod(ws / "run.sh", 0o755)
    age(ws)
    marks = [checkpoint()]
    assert call("edit_file", path="src/app.py", old_text="return 1", new_text="return 2").ok
    assert call("write_file", path="new1.txt", content="one\n").ok
    marks.append(checkpoint())
    assert call("edit_file", path="src/app.py", old_text="return 2", new_text="return 3").ok
    assert call("write_file", path="lib/deep/new2.py", content="x = 2\n").ok
    assert call("delete_path", path="src/util.py").ok
    marks.append(checkpoint())
    assert call("delete_path", path="docs").ok
    assert call("move_file", source="run.sh", destination="bin/run.sh").ok
    marks.append(checkpoint())
    assert call("write_file", path="new1.txt", content="one, rewritten\n").ok
    assert call("create_dir", path="empty/inner").ok
    marks.append(checkpoint())
    assert call("write_file", path="src/util.py", content="recreated by the AI\n").ok
    assert call("delete_path", path="lib").ok
    return marks


def test_rewinding_to_the_second_prompt_restores_every_file_byte_for_byte(
    ws: Path, home: Path, call: Call
) -> None:
    marks = five_prompts(ws, call)
    assert (ws / "bin" / "run.sh").exists()
    # what the workspace held at the second checkpoint, made by hand elsewhere
    expected = ws.parent / "expected"
    expected.mkdir()
    five_prompts_until(expected, 1)
    before = tree(ws)
    plan = back_to(ws, home, marks[1], apply=False)
    assert plan.ok
    assert tree(ws) == before  # a plan changes nothing
    actions = {f.path: f.action for f in plan.files}
    assert actions["src/app.py"] == "restore"
    assert actions["src/util.py"] == "restore"  # deleted, then written again by the AI
    assert actions["docs"] == "recreate"
    assert actions["run.sh"] == "recreate"
    assert actions["bin/run.sh"] == "remove"
    assert actions["empty/inner"] == "remove"
    assert "lib/deep/new2.py" not in actions  # created and deleted again: nothing to do
    assert "new1.txt" in actions
    assert plan.unrecorded == ()
    done = back_to(ws, home, marks[1], apply=True)
    assert done.ok, done.message
    assert tree(ws) == tree(expected)
    assert os.stat(ws / "run.sh").st_mode & 0o777 == 0o755
    # the entries it took back are gone: nothing more to rewind
    assert back_to(ws, home, marks[1], apply=False).files == ()


def five_prompts_until(root: Path, prompts: int) -> None:
    """What :func:`five_prompts` leaves after its first *prompts* prompts, made by hand."""
    (root / "keep.txt").write_bytes(b"untouched\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_bytes(b"def main():\n    return 1\n")
    (root / "src" / "util.py").write_bytes(b"\x00\x01binary\xff\r\n")
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_bytes(b"# a\n")
    (root / "run.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    os.chmod(root / "run.sh", 0o755)
    if prompts >= 1:
        (root / "src" / "app.py").write_bytes(b"def main():\n    return 2\n")
        (root / "new1.txt").write_bytes(b"one\n")


def test_in_git_the_ai_commits_leave_the_branch(repo: Path, home: Path, call: Call) -> None:
    base = sh(repo, "git", "rev-parse", "HEAD").strip()
    mark = checkpoint()
    call("edit_file", path="README.md", old_text="hello", new_text="hi")
    call("write_file", path="a.txt", content="a\n")
    call("delete_path", path="README.md")
    (repo / "mine.txt").write_text("staged by me\n")
    sh(repo, "git", "add", "mine.txt")
    done = back_to(repo, home, mark, apply=True)
    assert done.ok
    assert "dropped 3 AI commit(s)" in done.message
    assert sh(repo, "git", "rev-parse", "HEAD").strip() == base
    assert (repo / "README.md").read_bytes() == b"hello\n"
    assert not (repo / "a.txt").exists()
    assert sh(repo, "git", "status", "--porcelain").splitlines() == ["A  mine.txt"]


def test_under_a_user_commit_the_restore_is_committed(repo: Path, home: Path, call: Call) -> None:
    mark = checkpoint()
    call("write_file", path="a.txt", content="ai\n")
    (repo / "user.txt").write_text("u\n")
    sh(repo, "git", "add", "user.txt")
    sh(repo, "git", "commit", "-q", "-m", "user work")
    done = back_to(repo, home, mark, apply=True)
    assert done.ok
    assert done.commit
    subjects = sh(repo, "git", "log", "--format=%s").splitlines()
    assert subjects[:3] == ["ai(rewind): a.txt", "user work", "ai(write_file): a.txt"]
    assert not (repo / "a.txt").exists()
    assert (repo / "user.txt").exists()


def test_changes_no_file_tool_made_are_named_as_not_restorable(
    ws: Path, home: Path, call: Call
) -> None:
    (ws / "old.txt").write_text("old\n")
    (ws / "gone").mkdir()
    (ws / "gone" / "x").write_text("x\n")
    (ws / "shared.txt").write_text("v0\n")
    age(ws)
    mark = checkpoint()
    # what a command does: the journal never sees it
    (ws / "built.o").write_bytes(b"\x7fELF")
    (ws / "gone" / "x").unlink()
    (ws / "shared.txt").write_text("v1 by a command\n")
    # then the AI edits the file the command had changed, and writes one of its own
    call("edit_file", path="shared.txt", old_text="v1", new_text="v2")
    call("write_file", path="ai.txt", content="ai\n")
    plan = back_to(ws, home, mark, apply=False)
    assert set(plan.unrecorded) == {"built.o", "gone/"}
    assert "old.txt" not in plan.unrecorded
    assert any("cannot be restored: " in n and "built.o" in n for n in plan.notes)
    notes = {f.path: f.note for f in plan.files}
    assert "before the AI changed it" in notes["shared.txt"]
    assert notes["ai.txt"] == ""
    done = back_to(ws, home, mark, apply=True)
    assert done.ok
    assert (ws / "shared.txt").read_text() == "v1 by a command\n"  # what the backup held
    assert (ws / "built.o").exists()
    assert not (ws / "ai.txt").exists()


def test_a_file_changed_after_the_ai_wrote_it_is_flagged_and_restored(
    ws: Path, home: Path, call: Call
) -> None:
    (ws / "a.txt").write_text("v0\n")
    mark = checkpoint()
    call("write_file", path="a.txt", content="v1\n")
    (ws / "a.txt").write_text("the user's edit\n")
    plan = back_to(ws, home, mark, apply=False)
    assert "changed since the AI last wrote it" in plan.files[0].note
    assert back_to(ws, home, mark, apply=True).ok
    assert (ws / "a.txt").read_text() == "v0\n"


def test_other_sessions_and_earlier_changes_are_left_alone(
    ws: Path, home: Path, call: Call
) -> None:
    call("write_file", path="early.txt", content="before the checkpoint\n")
    mark = checkpoint()
    call("write_file", path="mine.txt", content="m\n")
    call("write_file", session="other", path="theirs.txt", content="t\n")
    done = back_to(ws, home, mark, apply=True)
    assert [f.path for f in done.files] == ["mine.txt"]
    assert (ws / "early.txt").exists()
    assert (ws / "theirs.txt").exists()
    assert not (ws / "mine.txt").exists()


def test_a_fork_takes_back_its_parents_changes_up_to_the_fork(
    ws: Path, home: Path, call: Call
) -> None:
    mark = checkpoint()
    call("write_file", session="parent", path="p1.txt", content="1\n")
    forked = checkpoint()
    call("write_file", session="parent", path="p2.txt", content="2\n")
    call("write_file", session="child", path="c.txt", content="c\n")
    spans = (RewindSpan("parent", mark, forked), RewindSpan("child", forked))
    done = rewind(Rewind(workspace=str(ws), spans=spans, apply=True), home=home)
    assert sorted(f.path for f in done.files) == ["c.txt", "p1.txt"]
    assert sorted(p.name for p in ws.iterdir()) == ["p2.txt"]


def test_a_rewind_killed_half_way_gives_the_same_files_when_run_again(
    ws: Path, home: Path, call: Call
) -> None:
    marks = five_prompts(ws, call)
    expected = ws.parent / "expected"
    expected.mkdir()
    five_prompts_until(expected, 1)
    journal = Journal(ws, home)
    # the newest half of the entries put back, then the process dies
    entries = journal.entries_since("")
    for folder, manifest in reversed(entries[len(entries) // 2 :]):
        restore_entry(journal.workspace, folder, manifest)
    assert back_to(ws, home, marks[1], apply=True).ok
    assert tree(ws) == tree(expected)


def test_pruned_history_is_said(ws: Path, home: Path, call: Call) -> None:
    mark = checkpoint()
    for i in range(MAX_ENTRIES + 1):
        call("write_file", path="n.txt", content=f"{i}\n")
    plan = back_to(ws, home, mark, apply=False)
    assert any("dropped from the undo journal" in n for n in plan.notes)
    time.sleep(0.05)  # past the slack kept for the file system's coarse clock
    assert back_to(ws, home, checkpoint(), apply=False).notes == ()


def test_undo_removes_the_folders_a_change_created(ws: Path, home: Path, call: Call) -> None:
    (ws / "a").mkdir()
    assert call("write_file", path="a/b/c/new.txt", content="n\n").ok
    out = undo(Undo(workspace=str(ws), session_id="s"), home=home)
    assert out.ok, out.message
    assert sorted(p.name for p in ws.rglob("*")) == ["a"]
