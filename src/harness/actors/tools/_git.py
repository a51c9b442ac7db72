"""git_status and git_diff, and the small git runner the undo journal uses."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from harness.actors.tools._files import Result
from harness.actors.tools._jail import ToolError, Workspace

__all__ = ["GitError", "git", "git_diff", "git_root", "git_status"]

MAX_GIT_OUTPUT = 60_000

# A user's hooks, pager or GUI prompts must never run from here.
_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
}


class GitError(ToolError):
    """A git command failed; the message holds its stderr."""


def git(
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git args`` in *cwd* without a terminal, pager or prompts."""
    full_env = {**os.environ, **_ENV, **(env or {})}
    proc = subprocess.run(
        ["git", "-c", "core.quotepath=off", *args],
        cwd=cwd,
        env=full_env,
        input=input,
        capture_output=True,
        check=False,
        stdin=None if input is not None else subprocess.DEVNULL,
    )
    if check and proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {args[0]} failed: {err or f'exit {proc.returncode}'}")
    return proc


def git_root(path: Path) -> Path | None:
    """The top of the work tree containing *path*, or ``None`` outside a repository."""
    try:
        proc = git(path, "rev-parse", "--show-toplevel", check=False)
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    return Path(os.path.realpath(proc.stdout.decode().strip()))


def _cap(text: str) -> str:
    if len(text) <= MAX_GIT_OUTPUT:
        return text
    return text[:MAX_GIT_OUTPUT] + f"\n[truncated: {len(text) - MAX_GIT_OUTPUT} more characters]"


def _need_repo(ws: Workspace) -> Path:
    root = git_root(ws.root)
    if root is None:
        raise ToolError("the workspace is not a git repository")
    return root


def git_status(ws: Workspace, args: dict[str, Any]) -> Result:
    _need_repo(ws)
    proc = git(ws.root, "status", "--short", "--branch", "--untracked-files=normal")
    text = proc.stdout.decode("utf-8", "replace").rstrip()
    lines = text.splitlines()
    clean = len(lines) <= 1
    return Result(_cap(text + ("\n(working tree clean)" if clean else "")), {"clean": clean})


def git_diff(ws: Workspace, args: dict[str, Any]) -> Result:
    _need_repo(ws)
    spec: list[str] = []
    if args.get("path"):
        target = ws.resolve(args["path"], allow_root=True)
        spec = ["--", ws.rel(target)]
    has_head = git(ws.root, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode == 0
    parts = []
    staged = git(ws.root, "diff", "--cached", "--no-color", "--no-ext-diff", *spec)
    unstaged = git(ws.root, "diff", "--no-color", "--no-ext-diff", *spec)
    s_text = staged.stdout.decode("utf-8", "replace")
    u_text = unstaged.stdout.decode("utf-8", "replace")
    if s_text:
        parts.append("# staged" + ("" if has_head else " (no commits yet)") + "\n" + s_text)
    if u_text:
        parts.append("# unstaged\n" + u_text)
    if not parts:
        return Result(
            "no uncommitted changes" + (f" in {spec[1]}" if spec else ""), {"empty": True}
        )
    return Result(_cap("\n".join(parts).rstrip()), {"empty": False})
