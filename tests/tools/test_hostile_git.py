"""Issue 15, git (7, 8): harness's own git calls run nothing a repository's config names,
and never show a protected file.

Real repositories, real git, the real tools (in process: the worker runs the same code).
Each attack leaves a marker file behind if git ran the program it names.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from .conftest import Call, sh


def _marker(tmp_path: Path) -> tuple[Path, str]:
    marker = tmp_path / "PWNED"
    return marker, f"touch {shlex.quote(str(marker))}"


def _write_all_git_tools(call: Call) -> None:
    """Every git call harness makes on its own: the read tools and an autocommit."""
    call("git_status")
    call("git_diff")
    call("git_diff", path="README.md")
    call("write_file", path="new.txt", content="x\n")  # autocommit: add, write-tree, commit


ATTACKS = {
    "fsmonitor": lambda ws, cmd: sh(ws, "git", "config", "core.fsmonitor", f"{cmd}; false"),
    "hooks": lambda ws, cmd: _hooks(ws, cmd),
    "hooks_path": lambda ws, cmd: _hooks(ws, cmd, path="myhooks"),
    "diff_external": lambda ws, cmd: _diff_external(ws, cmd),
    "filter": lambda ws, cmd: _attribute(ws, cmd, "filter=evil", "filter.evil.clean"),
    "filter_process": lambda ws, cmd: _attribute(ws, cmd, "filter=evil", "filter.evil.process"),
    "textconv": lambda ws, cmd: _attribute(ws, cmd, "diff=evil", "diff.evil.textconv"),
    "included_filter": lambda ws, cmd: _included(ws, cmd),
    "diff_command": lambda ws, cmd: _attribute(ws, cmd, "diff=evil", "diff.evil.command"),
    "gpg": lambda ws, cmd: _gpg(ws, cmd),
    # issue 34: `-c filter.x=y.clean=` splits at the first `=` and never applied
    "filter_name_with_equals": lambda ws, cmd: _attribute(
        ws, cmd, "filter=x=y", "filter.x=y.clean"
    ),
    "worktree_config": lambda ws, cmd: _worktree_config(ws, cmd),
}


def _worktree_config(ws: Path, cmd: str) -> None:
    # A driver in .git/config.worktree, which git reads once the extension is on.
    sh(ws, "git", "config", "extensions.worktreeConfig", "true")
    sh(ws, "git", "config", "--worktree", "filter.evil.clean", f"sh -c '{cmd}; cat'")
    (ws / ".gitattributes").write_text("* filter=evil\n")
    (ws / "README.md").write_text("changed\n")


def _diff_external(ws: Path, cmd: str) -> None:
    sh(ws, "git", "config", "diff.external", cmd)
    (ws / "README.md").write_text("changed\n")


def _hooks(ws: Path, cmd: str, path: str | None = None) -> None:
    folder = ws / path if path else ws / ".git" / "hooks"
    folder.mkdir(exist_ok=True)
    for hook in ("reference-transaction", "post-index-change", "pre-commit", "post-commit"):
        (folder / hook).write_text(f"#!/bin/sh\n{cmd}\n")
        (folder / hook).chmod(0o755)
    if path:
        sh(ws, "git", "config", "core.hooksPath", path)


def _attribute(ws: Path, cmd: str, attr: str, key: str) -> None:
    (ws / ".gitattributes").write_text(f"* {attr}\n")
    sh(ws, "git", "config", key, f"sh -c '{cmd}; cat'")
    (ws / "README.md").write_text("changed\n")


def _included(ws: Path, cmd: str) -> None:
    # The driver is defined in a file the repository's config includes.
    # (a value holding `;` is quoted: in a config file `;` starts a comment)
    clean = f"sh -c '{cmd}; cat'"
    (ws / ".git" / "extra.cfg").write_text(f'[filter "evil"]\n\tclean = "{clean}"\n')
    sh(ws, "git", "config", "include.path", "extra.cfg")
    (ws / ".gitattributes").write_text("* filter=evil\n")
    (ws / "README.md").write_text("changed\n")


def _gpg(ws: Path, cmd: str) -> None:
    script = ws / "gpg.sh"
    script.write_text(f"#!/bin/sh\n{cmd}\nexit 1\n")
    script.chmod(0o755)
    sh(ws, "git", "config", "commit.gpgSign", "true")
    sh(ws, "git", "config", "gpg.program", str(script))


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_repository_config_runs_nothing(
    tmp_path: Path, repo: Path, call: Call, attack: str
) -> None:
    marker, cmd = _marker(tmp_path)
    ATTACKS[attack](repo, cmd)
    # The attack is real: the same config makes plain git run the program.
    if attack not in ("gpg", "hooks", "hooks_path"):
        env = {k: v for k, v in os.environ.items() if k not in ("GIT_PAGER", "PAGER")}
        for args in (["diff"], ["status"]):
            subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=False)
        assert marker.exists(), f"{attack}: the attack itself does not work"
        marker.unlink()
    _write_all_git_tools(call)
    assert not marker.exists(), f"{attack}: harness's git ran a program from the config"


def test_a_fake_repository_written_by_the_model_is_not_used(
    tmp_path: Path, ws: Path, call: Call
) -> None:
    # What a model can write with write_file: a repository's files, at the workspace root.
    marker, cmd = _marker(tmp_path)
    sh(tmp_path, "git", "init", "-q", "--bare", str(ws))
    sh(ws, "git", "config", "core.bare", "false")
    sh(ws, "git", "config", "core.worktree", str(ws))
    sh(ws, "git", "config", "core.fsmonitor", f"{cmd}; false")
    (ws / "a.txt").write_text("a\n")
    subprocess.run(["git", "status"], cwd=ws, capture_output=True, check=False)
    assert marker.exists(), "the fake repository does not work as an attack"
    marker.unlink()
    status = call("git_status")
    call("git_diff")
    call("write_file", path="b.txt", content="b\n")
    assert not marker.exists()
    assert not status.ok
    assert "not a git repository" in status.output


def test_a_repository_above_the_workspace_is_not_used(tmp_path: Path, call: Call, ws: Path) -> None:
    marker, cmd = _marker(tmp_path)
    sh(tmp_path, "git", "init", "-q")
    sh(tmp_path, "git", "config", "core.fsmonitor", f"{cmd}; false")
    assert not call("git_status").ok
    call("write_file", path="b.txt", content="b\n")
    assert not marker.exists()


# --- 8. protected files never show -----------------------------------------------------


def test_git_tools_do_not_show_protected_files(repo: Path, call: Call) -> None:
    (repo / ".env").write_text("API_TOKEN=old-secret-value\n")
    (repo / ".env.example").write_text("API_TOKEN=\n")
    sh(repo, "git", "add", "-f", ".env", ".env.example")
    sh(repo, "git", "commit", "-q", "-m", "env")
    (repo / ".env").write_text("API_TOKEN=new-secret-value\n")
    (repo / ".env.example").write_text("API_TOKEN=<yours>\n")
    (repo / "README.md").write_text("changed\n")
    diff = call("git_diff").output
    assert "secret-value" not in diff
    assert "README.md" in diff
    assert ".env.example" in diff
    assert "new-secret-value" not in call("git_diff", path=".").output
    sh(repo, "git", "add", ".env")
    assert "secret-value" not in call("git_diff").output
    status = call("git_status").output
    assert ".env.example" in status
    assert not any(line.endswith(" .env") for line in status.splitlines())
    refused = call("git_diff", path=".env")
    assert not refused.ok
    assert "secret-value" not in refused.output


def test_the_users_own_global_drivers_still_apply(
    tmp_path: Path, repo: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git-lfs lives in the user's global config: an AI commit must still go through it.
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text('[filter "upper"]\n\tclean = tr a-z A-Z\n\tsmudge = cat\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    (repo / ".gitattributes").write_text("*.txt filter=upper\n")
    assert call("write_file", path="a.txt", content="abc\n").ok
    assert sh(repo, "git", "show", "HEAD:a.txt") == "ABC\n"


def test_a_global_include_of_a_workspace_file_runs_nothing(
    tmp_path: Path, repo: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's global config includes a file the model can write (issue 34): its
    # drivers are the model's, not the user's.
    marker, cmd = _marker(tmp_path)
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text(f'[includeIf "gitdir:{repo}/"]\n\tpath = {repo}/.gitconfig\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    clean = f"sh -c '{cmd}; cat'"
    (repo / ".gitconfig").write_text(f'[filter "evil"]\n\tclean = "{clean}"\n')
    (repo / ".gitattributes").write_text("* filter=evil\n")
    (repo / "README.md").write_text("changed\n")
    subprocess.run(["git", "diff"], cwd=repo, capture_output=True, check=False)
    assert marker.exists(), "the attack itself does not work"
    marker.unlink()
    _write_all_git_tools(call)
    assert not marker.exists()


# --- issue 34: nothing outside the workspace shows ---------------------------------------


def _outside_secret(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP-SECRET-LINE\n")
    return outside


def test_a_work_tree_outside_the_workspace_is_refused(
    tmp_path: Path, repo: Path, call: Call
) -> None:
    outside = _outside_secret(tmp_path)
    # A crafted index: secret.txt as an empty file, so the diff against the work tree
    # would print the outside file whole.
    empty = sh(repo, "git", "hash-object", "-w", "--stdin").strip()
    sh(repo, "git", "update-index", "--add", "--cacheinfo", f"100644,{empty},secret.txt")
    sh(repo, "git", "config", "core.worktree", str(outside))
    assert "TOP-SECRET-LINE" in sh(repo, "git", "diff"), "the attack itself does not work"
    for name in ("git_diff", "git_status"):
        out = call(name)
        assert "TOP-SECRET-LINE" not in out.output
        assert not out.ok
        assert "core.worktree" in out.output
    assert call("write_file", path="new.txt", content="x\n").ok  # the edit is not refused
    assert "new.txt" not in sh(repo, "git", "log", "--all", "--name-only", "--format=")


def test_a_git_file_naming_another_repository_is_refused(
    tmp_path: Path, ws: Path, call: Call
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    sh(other, "git", "init", "-q")
    (other / "secret.txt").write_text("TOP-SECRET-LINE\n")
    sh(other, "git", "add", "secret.txt")
    (ws / ".git").write_text(f"gitdir: {other / '.git'}\n")
    assert "TOP-SECRET-LINE" in sh(ws, "git", "diff", "--cached"), "the attack does not work"
    for name in ("git_diff", "git_status"):
        out = call(name)
        assert "TOP-SECRET-LINE" not in out.output
        assert "secret.txt" not in out.output
        assert not out.ok


def test_a_linked_worktree_of_the_user_is_used(tmp_path: Path, call: Call, ws: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    sh(main, "git", "init", "-q", "-b", "main")
    (main / "README.md").write_text("hello\n")
    sh(main, "git", "add", "README.md")
    sh(main, "git", "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "one")
    ws.rmdir()
    sh(main, "git", "worktree", "add", "-q", "-b", "side", str(ws))
    (ws / "README.md").write_text("changed\n")
    assert "+changed" in call("git_diff").output
    assert call("write_file", path="new.txt", content="x\n").ok
    assert sh(ws, "git", "log", "-1", "--format=%s") == "ai(write_file): new.txt\n"


def test_git_gets_no_secret_from_the_environment(
    tmp_path: Path, repo: Path, call: Call, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A filter the user set up (global) runs; it must not see harness's secrets.
    seen = tmp_path / "seen"
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text(f'[filter "spy"]\n\tclean = "sh -c \'env > {seen}; cat\'"\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-git")
    monkeypatch.setenv("DATABASE_URL", "postgres://u:pw-not-for-git@db/x")
    (repo / ".gitattributes").write_text("*.txt filter=spy\n")
    assert call("write_file", path="a.txt", content="abc\n").ok
    env = seen.read_text()
    assert "\nPATH=" in env  # the filter ran
    assert "not-for-git" not in env


def test_a_submodule_config_runs_nothing(tmp_path: Path, repo: Path, call: Call) -> None:
    # A repository inside the workspace, added as a submodule: git looks for its changes
    # by running git in it, where its own config names a filter.
    marker, cmd = _marker(tmp_path)
    sub = repo / "sub"
    sub.mkdir()
    sh(sub, "git", "init", "-q")
    (sub / "f").write_text("a\n")
    sh(sub, "git", "add", "f")
    sh(sub, "git", "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "s")
    sh(sub, "git", "config", "filter.evil.clean", f"sh -c '{cmd}; cat'")
    (sub / ".gitattributes").write_text("* filter=evil\n")
    (sub / "f").write_text("b\n")  # the same size: only its content tells
    sh(repo, "git", "add", "sub")
    _write_all_git_tools(call)
    assert not marker.exists()
    # The attack is real (checked last: plain git refreshes the submodule's index).
    subprocess.run(["git", "status"], cwd=repo, capture_output=True, check=False)
    assert marker.exists(), "the attack itself does not work"


def test_a_config_git_cannot_read_is_refused_with_its_words(repo: Path, call: Call) -> None:
    with open(repo / ".git" / "config", "a") as f:
        f.write("[core\n")
    status = call("git_status")
    assert not status.ok
    assert "cannot read the repository's config" in status.output
    assert "bad config line" in status.output
    assert call("write_file", path="new.txt", content="x\n").ok  # the edit goes on


def test_a_commondir_naming_another_repository_is_refused(
    tmp_path: Path, ws: Path, call: Call
) -> None:
    # A .git folder of a few files whose commondir sends git to another repository's
    # refs and objects: the diff against its HEAD would show that repository's files.
    other = tmp_path / "other"
    other.mkdir()
    sh(other, "git", "init", "-q", "-b", "main")
    (other / "secret.txt").write_text("TOP-SECRET-LINE\n")
    sh(other, "git", "add", "secret.txt")
    sh(other, "git", "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "s")
    (ws / ".git").mkdir()
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (ws / ".git" / "commondir").write_text(f"{other / '.git'}\n")
    (ws / "secret.txt").write_text("mine\n")
    assert "TOP-SECRET-LINE" in sh(ws, "git", "diff", "--cached"), "the attack does not work"
    for name in ("git_diff", "git_status"):
        out = call(name)
        assert "TOP-SECRET-LINE" not in out.output
        assert not out.ok
        assert "commondir" in out.output


def _other_repository(tmp_path: Path) -> Path:
    other = tmp_path / "other"
    other.mkdir()
    sh(other, "git", "init", "-q", "-b", "main")
    (other / "secret.txt").write_text("TOP-SECRET-LINE\n")
    sh(other, "git", "add", "secret.txt")
    sh(other, "git", "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "s")
    return other / ".git"


@pytest.mark.parametrize("link", ["refs", "index"])
def test_a_repository_file_linking_to_another_repository_is_refused(
    tmp_path: Path, ws: Path, call: Call, link: str
) -> None:
    # Its refs or its index are another repository's, whose objects `alternates` lends.
    other = _other_repository(tmp_path)
    sh(ws, "git", "init", "-q", "-b", "main")
    (ws / ".git" / "objects" / "info" / "alternates").write_text(f"{other / 'objects'}\n")
    target = ws / ".git" / link
    if target.is_dir():
        target.rename(tmp_path / "old-refs")
    target.unlink(missing_ok=True)
    target.symlink_to(other / link)
    shown = sh(ws, "git", "diff", "--cached") + sh(ws, "git", "diff")
    assert "TOP-SECRET-LINE" in shown, "the attack itself does not work"
    for name in ("git_diff", "git_status"):
        out = call(name)
        assert "TOP-SECRET-LINE" not in out.output
        assert not out.ok
        assert "links outside" in out.output
