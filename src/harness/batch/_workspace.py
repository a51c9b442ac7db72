"""Each task's own copy of its workspace, and the diff of what the task changed in it.

A git repository (a local one, or a URL) is cloned and checked out at the task's
``ref``: the original's files and its ``.git`` are never written. A plain folder is
copied, and its starting state committed into a git folder kept beside the copy (not
inside it), so the diff has a base without the task ever seeing a repository.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import attrs

from harness.batch._tasks import Task
from harness.errors import ConfigError
from harness.git import GitRefused, run_git

__all__ = [
    "STAGED_BRANCH",
    "GitFailed",
    "TaskCopy",
    "diff_copy",
    "folder_size",
    "is_repository",
    "make_copy",
    "remove_copy",
    "stage_workspace",
]

STAGED_BRANCH = "harness-batch"
"""The branch a staged repository's bundle holds: the task's ``ref``."""

# A commit of a copy's starting state is made by this name.
_IDENTITY = (("user.name", "harness batch"), ("user.email", "batch@harness.invalid"))
_QUIET = (("advice.detachedHead", "false"),)
# A clone fetches from where the task file says, as the user would: over any transport
# but `ext::` (which runs a command), with the user's own ssh and credential helpers.
_CLONE: tuple[tuple[str, str | None], ...] = (
    *((f"protocol.{name}.allow", "always") for name in ("file", "git", "http", "https", "ssh")),
    ("core.sshCommand", None),
    ("credential.helper", None),
)


class GitFailed(ConfigError):
    """A git command needed to copy or diff a workspace failed; the message has git's words."""


@attrs.frozen
class TaskCopy:
    """A task's private workspace.

    Attributes:
        path: the folder the task runs in.
        base: the commit the diff is taken against.
        git_dir: for a copied plain folder, the git folder beside it holding the base.
    """

    path: str
    base: str
    git_dir: str | None = None


def _git(
    *args: str,
    cwd: str | None = None,
    git_dir: str | None = None,
    config: tuple[tuple[str, str | None], ...] = (),
) -> str:
    """``git args`` for the work tree *cwd* (its own ``.git``, or *git_dir*), through
    harness's hardened git (:func:`harness.git.run_git`): a repository a task (or
    whoever wrote the task file) made runs nothing of its config, shows nothing outside
    *cwd*, and git sees none of the driver's secrets."""
    try:
        p = run_git(cwd, *args, git_dir=git_dir, config=(*_QUIET, *config), timeout=600)
    except GitRefused as exc:
        raise GitFailed(f"git {args[0]} refused: {exc}") from None
    if p.returncode != 0:
        words = (p.stderr or p.stdout).decode("utf-8", "replace").strip().splitlines()
        raise GitFailed(f"git {args[0]} failed: {words[-1] if words else p.returncode}")
    return p.stdout.decode("utf-8", "surrogateescape")


def is_repository(folder: str) -> bool:
    """Whether *folder* is the top of a git work tree (has its own ``.git``)."""
    return os.path.exists(os.path.join(folder, ".git"))


def _resolve(repo_dir: str, ref: str) -> str:
    for name in (ref, f"origin/{ref}"):
        try:
            return _git("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}", cwd=repo_dir)
        except GitFailed:
            continue
    raise GitFailed(f"no commit {ref!r} in the repository")


def make_copy(task: Task, dest: Path) -> TaskCopy:
    """Make *task*'s own workspace at *dest* (which must not exist yet).

    Raises:
        GitFailed: cloning or checking out failed.
        OSError: copying a plain folder failed.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    source = task.repo if task.repo is not None else task.workspace
    assert source is not None
    if task.repo is not None or is_repository(source):
        _git("clone", "--quiet", "--no-checkout", "--", source, str(dest), config=_CLONE)
        sha = _resolve(str(dest), task.ref or "HEAD").strip()
        _git("checkout", "--quiet", "--detach", sha, cwd=str(dest))
        return TaskCopy(path=str(dest), base=sha)
    if task.ref is not None:
        raise GitFailed(f"workspace {source!r} is not a git repository, so it has no ref")
    shutil.copytree(source, dest, symlinks=True)
    git_dir = str(dest.parent / f".{dest.name}.base.git")
    _git("init", "--quiet", cwd=str(dest), git_dir=git_dir)
    _git("add", "--all", cwd=str(dest), git_dir=git_dir)
    _git(
        "commit",
        "--quiet",
        "--allow-empty",
        "-m",
        "base",
        cwd=str(dest),
        git_dir=git_dir,
        config=_IDENTITY,
    )
    base = _git("rev-parse", "HEAD", cwd=str(dest), git_dir=git_dir).strip()
    return TaskCopy(path=str(dest), base=base, git_dir=git_dir)


def diff_copy(copy: TaskCopy) -> str:
    """Everything the task changed, committed or not, new files included, as a git patch."""
    _git("add", "--all", cwd=copy.path, git_dir=copy.git_dir)
    return _git(
        "diff",
        "--cached",
        "--binary",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        copy.base,
        cwd=copy.path,
        git_dir=copy.git_dir,
    )


def remove_copy(dest: Path) -> None:
    """Remove a task's workspace (and its base, for a plain folder); missing is fine."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.rmtree(dest.parent / f".{dest.name}.base.git", ignore_errors=True)


def stage_workspace(source: str, ref: str | None, dest: Path) -> Path:
    """Pack a local workspace to travel to another machine; the path written.

    A repository becomes ``dest.bundle``, a git bundle of its commit at *ref* (on
    branch :data:`STAGED_BRANCH`), which clones like a repository; a plain folder
    becomes a copy at *dest*.

    Raises:
        GitFailed: the repository has no such ref, or bundling failed.
        OSError: copying failed.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not is_repository(source):
        if ref is not None:
            raise GitFailed(f"workspace {source!r} is not a git repository, so it has no ref")
        shutil.copytree(source, dest, symlinks=True)
        return dest
    scratch = dest.parent / f".{dest.name}.clone"
    try:
        _git("clone", "--quiet", "--no-checkout", "--", source, str(scratch), config=_CLONE)
        sha = _resolve(str(scratch), ref or "HEAD").strip()
        _git("update-ref", f"refs/heads/{STAGED_BRANCH}", sha, cwd=str(scratch))
        bundle = dest.parent / f"{dest.name}.bundle"
        _git("bundle", "create", "--quiet", str(bundle), STAGED_BRANCH, cwd=str(scratch))
        return bundle
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def folder_size(path: Path) -> int:
    """Bytes of the files under *path* (or of the file *path*); links are not followed."""
    if path.is_file():
        return path.stat().st_size
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total
