"""git_status and git_diff, and the small git runner the undo journal uses.

Every git command harness runs itself goes through :func:`git`, which is
:func:`harness.git.run_git` (git hardened in one place: no program a config names
runs, the work tree is pinned to the folder given, paths are literal, no secret in
its environment) with its failures as tool errors.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from harness.actors.tools._jail import ToolError, Workspace, is_protected
from harness.actors.tools._result import Result
from harness.git import SAFE_CONFIG, GitRefused, run_git

__all__ = ["SAFE_CONFIG", "GitError", "git", "git_diff", "git_root", "git_status"]

MAX_GIT_OUTPUT = 60_000
# A submodule's changes are looked for by running git in it, with its own config,
# which nothing listed: only its commit is compared. (The flag, not the setting: a
# submodule's `ignore = none` would win over diff.ignoreSubmodules.)
_SUBMODULES = ("--ignore-submodules=dirty",)


class GitError(ToolError):
    """A git command failed, or the repository was refused; the message says why."""


def git(
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
    literal: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git args`` for the work tree *cwd*, hardened (:func:`harness.git.run_git`).

    Raises:
        GitError: the repository reaches outside *cwd*, or (with *check*) git failed.
    """
    try:
        proc = run_git(cwd, *args, env=env, input=input, literal=literal)
    except GitRefused as exc:
        raise GitError(str(exc)) from None
    if check and proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {args[0]} failed: {err or f'exit {proc.returncode}'}")
    return proc


def git_root(path: Path) -> Path | None:
    """The top of the work tree containing *path*, or ``None`` outside a repository."""
    try:
        proc = git(path, "rev-parse", "--show-toplevel", check=False)
    except (OSError, GitError):
        return None
    if proc.returncode != 0:
        return None
    return Path(os.path.realpath(proc.stdout.decode().strip()))


def _cap(text: str) -> str:
    if len(text) <= MAX_GIT_OUTPUT:
        return text
    return text[:MAX_GIT_OUTPUT] + f"\n[truncated: {len(text) - MAX_GIT_OUTPUT} more characters]"


def _need_repo(ws: Workspace) -> Path:
    # not git_root: a repository refused for reaching outside says so
    proc = git(ws.root, "rev-parse", "--show-toplevel", check=False)
    if proc.returncode != 0:
        raise ToolError("the workspace is not a git repository")
    return Path(os.path.realpath(proc.stdout.decode().strip()))


def _hidden(root: Path) -> list[str]:
    """Changed or untracked paths the jail protects (``.env``...): git tools leave them out."""
    # Untracked files show in no diff, and git_status filters its own lines.
    proc = git(
        root, "status", *_SUBMODULES, "--porcelain", "-z", "--untracked-files=no", check=False
    )
    names = [n for n in proc.stdout.decode("utf-8", "replace").split("\0") if n]
    # Entries are `XY path`; a rename's source follows as an entry of its own.
    paths = [n[3:] if len(n) > 3 and n[2] == " " else n for n in names]
    return sorted({p for p in paths if is_protected(p)})


def _pathspec(hidden: list[str], wanted: list[str]) -> list[str]:
    """Pathspecs for *wanted* paths less the *hidden* ones, each marked literal: the
    call that takes them runs with pathspec magic on (``literal=False``)."""
    excludes = [f":(exclude,literal){p}" for p in hidden]
    if not excludes and not wanted:
        return []
    return ["--", *([f":(literal){p}" for p in wanted] or ["."]), *excludes]


def _drop_protected_sections(text: str) -> str:
    """Leave out any file section of a diff whose header names a protected path."""
    out: list[str] = []
    hiding = False
    for line in text.splitlines(keepends=True):
        if line.startswith("diff --git "):
            names = [w[2:] if w[:2] in ("a/", "b/") else w for w in line[11:].split()]
            hiding = any(is_protected(n) for n in names)
            if hiding:
                out.append(f"(a change to a protected path is not shown: {line[11:].strip()})\n")
                continue
        if not hiding:
            out.append(line)
    return "".join(out)


def git_status(ws: Workspace, args: dict[str, Any]) -> Result:
    root = _need_repo(ws)
    proc = git(
        ws.root,
        "status",
        *_SUBMODULES,
        "--short",
        "--branch",
        "--untracked-files=normal",
        *_pathspec(_hidden(root), []),
        literal=False,
    )
    text = proc.stdout.decode("utf-8", "replace").rstrip()
    lines = [
        line
        for line in text.splitlines()
        if line.startswith("##") or not any(is_protected(p) for p in line[3:].split(" -> "))
    ]
    text = "\n".join(lines)
    clean = len(lines) <= 1
    return Result(_cap(text + ("\n(working tree clean)" if clean else "")), {"clean": clean})


def git_diff(ws: Workspace, args: dict[str, Any]) -> Result:
    root = _need_repo(ws)
    wanted: list[str] = []
    if args.get("path"):
        target = ws.resolve(args["path"], allow_root=True)
        wanted = [ws.rel(target)]
    spec = _pathspec(_hidden(root), wanted)
    has_head = git(ws.root, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode == 0
    parts = []
    flags = ("--no-color", "--no-ext-diff", "--no-textconv", *_SUBMODULES)
    staged = git(ws.root, "diff", "--cached", *flags, *spec, literal=False)
    unstaged = git(ws.root, "diff", *flags, *spec, literal=False)
    s_text = _drop_protected_sections(staged.stdout.decode("utf-8", "replace"))
    u_text = _drop_protected_sections(unstaged.stdout.decode("utf-8", "replace"))
    if s_text:
        parts.append("# staged" + ("" if has_head else " (no commits yet)") + "\n" + s_text)
    if u_text:
        parts.append("# unstaged\n" + u_text)
    if not parts:
        return Result(
            "no uncommitted changes" + (f" in {wanted[0]}" if wanted else ""), {"empty": True}
        )
    return Result(_cap("\n".join(parts).rstrip()), {"empty": False})
