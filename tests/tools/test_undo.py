"""Autocommit and /undo against real git repositories, and backups outside git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.actors.tools._dispatch import autocommit, undo
from harness.messages.tools import SetAutocommit, Undo
from tests.tools.conftest import Call, sh


def log(repo: Path) -> list[str]:
    return sh(repo, "git", "log", "--format=%s").splitlines()


def files_in(repo: Path, rev: str = "HEAD") -> list[str]:
    return sh(repo, "git", "show", "--no-renames", "--name-only", "--format=", rev).split()


def do_undo(ws: Path, home: Path, session: str = "") -> tuple[bool, str]:
    out = undo(Undo(workspace=str(ws), session_id=session), home=home)
    return out.ok, out.message


def test_each_change_is_its_own_commit_of_only_the_named_paths(
    repo: Path, home: Path, call: Call
) -> None:
    # The user's own work in progress: one staged file, one unstaged edit.
    (repo / "mine.txt").write_text("staged by me\n")
    sh(repo, "git", "add", "mine.txt")
    (repo / "README.md").write_text("hello\nunstaged edit\n")
    out = call("write_file", path="src/new.py", content="print(1)\n")
    assert out.ok
    assert log(repo)[0] == "ai(write_file): src/new.py"
    assert files_in(repo) == ["src/new.py"]
    assert out.data["commit"] == sh(repo, "git", "rev-parse", "HEAD").strip()
    status = sh(repo, "git", "status", "--porcelain").splitlines()
    assert "A  mine.txt" in status
    assert " M README.md" in status
    assert not any("src/new.py" in s for s in status)
    call("edit_file", path="src/new.py", old_text="1", new_text="2")
    assert log(repo)[:2] == ["ai(edit_file): src/new.py", "ai(write_file): src/new.py"]
    call("move_file", source="src/new.py", destination="lib/new.py")
    assert log(repo)[0] == "ai(move_file): src/new.py, lib/new.py"
    assert sorted(files_in(repo)) == ["lib/new.py", "src/new.py"]
    call("delete_path", path="lib")
    assert log(repo)[0] == "ai(delete_path): lib"
    # The user's work is exactly as it was.
    assert "A  mine.txt" in sh(repo, "git", "status", "--porcelain").splitlines()
    assert (repo / "README.md").read_text() == "hello\nunstaged edit\n"


def test_undo_drops_the_newest_ai_commit_and_restores(repo: Path, home: Path, call: Call) -> None:
    (repo / "mine.txt").write_text("staged by me\n")
    sh(repo, "git", "add", "mine.txt")
    base = sh(repo, "git", "rev-parse", "HEAD").strip()
    call("edit_file", path="README.md", old_text="hello", new_text="hi")
    call("write_file", path="a.txt", content="a\n")
    ok, msg = do_undo(repo, home)
    assert ok, msg
    assert "a.txt" in msg
    assert not (repo / "a.txt").exists()
    assert log(repo)[0] == "ai(edit_file): README.md"
    ok, msg = do_undo(repo, home)
    assert ok, msg
    assert (repo / "README.md").read_text() == "hello\n"
    assert sh(repo, "git", "rev-parse", "HEAD").strip() == base
    assert sh(repo, "git", "status", "--porcelain").splitlines() == ["A  mine.txt"]
    ok, msg = do_undo(repo, home)
    assert not ok
    assert msg == "nothing to undo"
    assert sh(repo, "git", "rev-parse", "HEAD").strip() == base


def test_undo_refuses_when_a_file_changed_since(repo: Path, home: Path, call: Call) -> None:
    call("write_file", path="a.txt", content="ai\n")
    call("write_file", path="b.txt", content="ai\n")
    (repo / "b.txt").write_text("the user's edit\n")
    head = sh(repo, "git", "rev-parse", "HEAD").strip()
    ok, msg = do_undo(repo, home)
    assert not ok
    assert "b.txt" in msg
    assert "changed since" in msg
    assert (repo / "b.txt").read_text() == "the user's edit\n"
    assert sh(repo, "git", "rev-parse", "HEAD").strip() == head


def test_undo_under_a_user_commit_reverts_with_a_new_commit(
    repo: Path, home: Path, call: Call
) -> None:
    call("write_file", path="a.txt", content="ai\n")
    (repo / "user.txt").write_text("u\n")
    sh(repo, "git", "add", "user.txt")
    sh(repo, "git", "commit", "-q", "-m", "user work")
    ok, msg = do_undo(repo, home)
    assert ok, msg
    assert log(repo)[:3] == ["ai(undo write_file): a.txt", "user work", "ai(write_file): a.txt"]
    assert not (repo / "a.txt").exists()
    assert (repo / "user.txt").exists()
    assert sh(repo, "git", "status", "--porcelain") == ""


def test_the_first_commit_of_an_empty_repository_can_be_undone(
    ws: Path, home: Path, call: Call
) -> None:
    sh(ws, "git", "init", "-q", "-b", "main")
    call("write_file", path="first.txt", content="1\n")
    assert log(ws) == ["ai(write_file): first.txt"]
    ok, msg = do_undo(ws, home)
    assert ok, msg
    assert not (ws / "first.txt").exists()
    assert subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=ws).returncode != 0
    assert sh(ws, "git", "status", "--porcelain") == ""


def test_ignored_files_are_not_committed_but_can_be_undone(
    repo: Path, home: Path, call: Call
) -> None:
    (repo / ".gitignore").write_text("*.log\n")
    sh(repo, "git", "add", ".gitignore")
    sh(repo, "git", "commit", "-q", "-m", "ignore logs")
    call("write_file", path="run.log", content="x\n")
    assert log(repo)[0] == "ignore logs"
    ok, _ = do_undo(repo, home)
    assert ok
    assert not (repo / "run.log").exists()


def test_autocommit_off_commits_nothing_and_undo_still_works(
    repo: Path, home: Path, call: Call
) -> None:
    state = autocommit(SetAutocommit(workspace=str(repo), enabled=False), home=home)
    assert state.enabled is False
    assert state.git is True
    call("edit_file", path="README.md", old_text="hello", new_text="bye")
    assert log(repo) == ["initial"]
    assert autocommit(SetAutocommit(workspace=str(repo)), home=home).enabled is False
    ok, _ = do_undo(repo, home)
    assert ok
    assert (repo / "README.md").read_text() == "hello\n"
    assert autocommit(SetAutocommit(workspace=str(repo), enabled=True), home=home).enabled


def test_outside_git_backups_make_undo_work(ws: Path, home: Path, call: Call) -> None:
    assert autocommit(SetAutocommit(workspace=str(ws)), home=home).git is False
    (ws / "pkg").mkdir()
    (ws / "pkg" / "a.py").write_text("a\n")
    (ws / "pkg" / "b.py").write_text("b\n")
    (ws / "notes.txt").write_text("v1\n")
    assert call("edit_file", path="notes.txt", old_text="v1", new_text="v2").ok
    assert call("delete_path", path="pkg").ok
    assert call("move_file", source="notes.txt", destination="docs/notes.txt").ok
    assert not list(ws.glob("**/.harness*"))  # nothing written into the workspace
    assert do_undo(ws, home)[0]
    assert (ws / "notes.txt").read_text() == "v2\n"
    assert not (ws / "docs" / "notes.txt").exists()
    assert do_undo(ws, home)[0]
    assert (ws / "pkg" / "b.py").read_text() == "b\n"
    assert do_undo(ws, home)[0]
    assert (ws / "notes.txt").read_text() == "v1\n"
    assert do_undo(ws, home) == (False, "nothing to undo")


def test_undo_is_per_session_when_asked(ws: Path, home: Path, call: Call) -> None:
    call("write_file", session="one", path="a.txt", content="1\n")
    call("write_file", session="two", path="b.txt", content="2\n")
    assert do_undo(ws, home, session="one")[0]
    assert not (ws / "a.txt").exists()
    assert (ws / "b.txt").exists()
    assert do_undo(ws, home, session="one") == (False, "nothing to undo")


def test_failed_and_unchanged_calls_leave_no_undo_entry(ws: Path, home: Path, call: Call) -> None:
    (ws / "a.txt").write_text("x\n")
    assert not call("edit_file", path="a.txt", old_text="zzz", new_text="y").ok
    assert call("write_file", path="a.txt", content="x\n").data["changed"] is False
    assert do_undo(ws, home) == (False, "nothing to undo")


def test_git_tools(repo: Path, call: Call) -> None:
    assert "working tree clean" in call("git_status").output
    (repo / "README.md").write_text("changed\n")
    (repo / "new.txt").write_text("n\n")
    status = call("git_status").output
    assert " M README.md" in status
    assert "?? new.txt" in status
    diff = call("git_diff").output
    assert "+changed" in diff
    assert "# unstaged" in diff
    sh(repo, "git", "add", "README.md")
    assert "# staged" in call("git_diff", path="README.md").output
    assert "no uncommitted changes" in call("git_diff", path="new.txt").output


def test_git_tools_outside_a_repository(ws: Path, call: Call) -> None:
    out = call("git_status")
    assert not out.ok
    assert "not a git repository" in out.output


def test_an_edit_through_the_workspace_name_is_undone(ws: Path, home: Path, call: Call) -> None:
    # ws is named "ws": "ws/notes.txt" is notes.txt (the jail's workspace-name rule), and
    # its backup must be of that file
    assert autocommit(SetAutocommit(workspace=str(ws)), home=home).git is False
    (ws / "notes.txt").write_text("v1\n")
    assert call("edit_file", path="ws/notes.txt", old_text="v1", new_text="v2").ok
    assert (ws / "notes.txt").read_text() == "v2\n"
    assert do_undo(ws, home)[0]
    assert (ws / "notes.txt").read_text() == "v1\n"


@pytest.mark.parametrize("name", ["*", ":(glob)**", "[A-Z]*", ":!x"])
def test_a_file_name_is_never_a_pathspec(repo: Path, home: Path, call: Call, name: str) -> None:
    # Issue 34: a file named like pathspec magic must not sweep the user's other
    # changes, or an untracked secret, into the AI's commit.
    (repo / "README.md").write_text("hello\nthe user's unfinished edit\n")
    (repo / ".env").write_text("API_TOKEN=secret\n")
    (repo / "notes.txt").write_text("mine, untracked\n")
    assert call("write_file", path=name, content="x\n").ok
    assert log(repo)[0] == f"ai(write_file): {name}"
    assert files_in(repo) == [name]
    status = sh(repo, "git", "status", "--porcelain").splitlines()
    assert " M README.md" in status
    assert "?? .env" in status
    assert do_undo(repo, home)[0]
    assert not (repo / name).exists()
    assert log(repo) == ["initial"]
    assert (repo / "README.md").read_text() == "hello\nthe user's unfinished edit\n"
    assert " M README.md" in sh(repo, "git", "status", "--porcelain").splitlines()
