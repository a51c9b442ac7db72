"""A task's copy and its diff against a copy the task set up to attack the driver's git.

The diff (``diff.patch``) is taken by the driver after the task's session has ended,
in the task's own copy: whatever the task wrote there (a ``.git/config``, a
``.gitattributes``) must run nothing, show nothing outside the copy, and git must see
none of the driver's secrets. Real repositories, real git; a marker file is the
evidence that a program ran.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from harness.batch import GitFailed, Task, diff_copy, make_copy, remove_copy


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.mark.parametrize("name", ["evil", "x=y"])
def test_the_diff_runs_no_filter_the_task_configured(tmp_path: Path, repo: Path, name: str) -> None:
    marker = tmp_path / "PWNED"
    copy = make_copy(Task(id="t1", prompt="p", workspace=str(repo)), tmp_path / "work" / "t1")
    work = Path(copy.path)
    # What the task did: a driver in its copy's config, an attribute naming it, an edit.
    _git(work, "config", f"filter.{name}.clean", f"sh -c 'touch {shlex.quote(str(marker))}; cat'")
    (work / ".gitattributes").write_text(f"* filter={name}\n")
    (work / "notes.txt").write_text("t1: done\n")
    patch = diff_copy(copy)
    assert not marker.exists(), "the driver's git ran the task's filter"
    assert "+t1: done" in patch
    remove_copy(tmp_path / "work" / "t1")


def test_the_diff_git_has_no_secret(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A filter of the user's own (global, like git-lfs) runs: it must not see the keys.
    seen = tmp_path / "seen"
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text(f'[filter "spy"]\n\tclean = "sh -c \'env > {seen}; cat\'"\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-git")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-not-for-git")
    copy = make_copy(Task(id="t1", prompt="p", workspace=str(repo)), tmp_path / "work" / "t1")
    work = Path(copy.path)
    (work / ".gitattributes").write_text("* filter=spy\n")
    (work / "notes.txt").write_text("t1: done\n")
    assert "+t1: done" in diff_copy(copy)
    env = seen.read_text()
    assert "\nPATH=" in env  # the filter ran
    assert "not-for-git" not in env


def test_a_copy_whose_work_tree_points_outside_is_not_diffed(tmp_path: Path, repo: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP-SECRET-LINE\n")
    copy = make_copy(Task(id="t1", prompt="p", workspace=str(repo)), tmp_path / "work" / "t1")
    _git(Path(copy.path), "config", "core.worktree", str(outside))
    with pytest.raises(GitFailed, match=r"core\.worktree"):
        diff_copy(copy)
    assert "secret.txt" not in _git(outside, "--git-dir", f"{copy.path}/.git", "ls-files")


def test_a_plain_folder_is_copied_and_diffed(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("one\n")
    (plain / "*").write_text("a file named star\n")
    copy = make_copy(Task(id="t1", prompt="p", workspace=str(plain)), tmp_path / "work" / "t1")
    work = Path(copy.path)
    assert copy.git_dir is not None
    assert not (work / ".git").exists()
    (work / "a.txt").write_text("two\n")
    (work / "b.txt").write_text("new\n")
    patch = diff_copy(copy)
    assert "-one\n+two" in patch
    assert "+new" in patch
    assert "star" not in patch
