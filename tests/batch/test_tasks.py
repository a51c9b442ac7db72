"""The task file and the workspace copies, without sessions."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import harness.batch
from harness.batch import GitFailed, Task, TaskLineError, diff_copy, make_copy, read_tasks
from harness.errors import ConfigError


def test_the_package_face() -> None:
    for name in harness.batch.__all__:
        assert hasattr(harness.batch, name), name


def test_every_bad_line_is_named_and_the_rest_are_read(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    good = {"id": "a", "prompt": "p", "workspace": "ws", "max_turns": 3, "model": "m"}
    lines = [
        json.dumps(good),
        "",
        "# a comment",
        "{not json",
        json.dumps(["a list"]),
        json.dumps({"id": "b", "prompt": "p"}),
        json.dumps({"id": "c", "prompt": "p", "workspace": "ws", "repo": "u"}),
        json.dumps({"id": "../d", "prompt": "p", "workspace": "ws"}),
        json.dumps({"id": "e", "prompt": "", "workspace": "ws"}),
        json.dumps({"id": "f", "prompt": "p", "workspace": "missing"}),
        json.dumps({"id": "g", "prompt": "p", "workspace": "ws", "max_turns": 0}),
        json.dumps({"id": "h", "prompt": "p", "workspace": "ws", "provider": "nobody"}),
        json.dumps({"id": "i", "prompt": "p", "workspace": "ws", "colour": "red"}),
        json.dumps({"id": "a", "prompt": "again", "workspace": "ws"}),
        json.dumps({"id": "j", "prompt": "p", "repo": "https://x.invalid/r.git", "ref": "v1"}),
    ]
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(lines) + "\n")
    tasks, problems = read_tasks(path)
    assert [t.id for t in tasks] == ["a", "j"]
    assert tasks[0] == Task(
        id="a", prompt="p", workspace=str(ws.resolve()), max_turns=3, model="m", line=1
    )
    assert tasks[1].repo == "https://x.invalid/r.git"
    assert tasks[1].ref == "v1"
    assert [p.line for p in problems] == [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    assert all(isinstance(p, ConfigError) for p in problems)
    words = {p.line: str(p) for p in problems}
    assert words[4].startswith(f"{path} line 4: not JSON")
    assert "exactly one" in words[6]
    assert "exactly one" in words[7]
    assert "'../d'" in words[8]
    assert "not a folder" in words[10]
    assert "'colour'" in words[13]
    assert "repeated" in words[14]
    with pytest.raises(TaskLineError):
        raise problems[0]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def test_a_repository_copy_starts_at_its_ref_and_diffs_everything(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.txt").write_text("one\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "one")
    _git(repo, "tag", "v1")
    (repo / "a.txt").write_text("two\n")
    _git(repo, "commit", "-qam", "two")
    (repo / "dirty.txt").write_text("not committed\n")
    copy = make_copy(Task(id="x", prompt="p", workspace=str(repo), ref="v1"), tmp_path / "c")
    assert (tmp_path / "c" / "a.txt").read_text() == "one\n"
    assert not (tmp_path / "c" / "dirty.txt").exists()
    # a commit and an untracked file are both in the diff
    (tmp_path / "c" / "a.txt").write_text("three\n")
    _git(tmp_path / "c", "commit", "-qam", "three")
    (tmp_path / "c" / "new.txt").write_text("new\n")
    patch = diff_copy(copy)
    assert "-one\n+three\n" in patch
    assert "+++ b/new.txt" in patch
    assert _git(repo, "status", "--porcelain") == "?? dirty.txt\n"
    with pytest.raises(GitFailed, match="no commit 'v9'"):
        make_copy(Task(id="y", prompt="p", workspace=str(repo), ref="v9"), tmp_path / "d")


def test_a_plain_folder_copy_keeps_its_base_outside(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "a.txt").write_text("one\n")
    copy = make_copy(Task(id="x", prompt="p", workspace=str(folder)), tmp_path / "w" / "x")
    assert sorted(p.name for p in Path(copy.path).iterdir()) == ["a.txt"]
    assert diff_copy(copy) == ""
    Path(copy.path, "a.txt").unlink()
    Path(copy.path, "b.txt").write_text("b\n")
    patch = diff_copy(copy)
    assert "deleted file mode" in patch
    assert "+++ b/b.txt" in patch
    assert sorted(p.name for p in folder.iterdir()) == ["a.txt"]
