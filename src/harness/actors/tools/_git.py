"""git_status and git_diff, and the small git runner the undo journal uses.

Every git command harness runs itself goes through :func:`git`, which never lets a
repository's config run a program: a model can write a whole fake repository
(``HEAD``, ``config``, ``objects/``, ``refs/``) into the workspace, and the user's
own repository config is read by every call. So each call passes ``-c`` overrides
for every setting git documents as running a command (fsmonitor, hooks, pager,
ssh, external diff, editors, signing, credential helpers, and each filter, diff
and merge driver the repository's config names), reads no system config, refuses
an implicit bare repository, and looks for ``.git`` no higher than the workspace
root.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from harness.actors.tools._files import Result
from harness.actors.tools._jail import ToolError, Workspace, is_protected

__all__ = ["SAFE_CONFIG", "GitError", "git", "git_diff", "git_root", "git_status"]

MAX_GIT_OUTPUT = 60_000

# A user's hooks, pager or GUI prompts must never run from here.
_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
}


# Settings that name a program git would run, each set to something inert.
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.sshCommand", "false"),
    ("core.editor", "false"),
    ("core.askPass", "false"),
    ("core.gitProxy", "false"),
    ("core.alternateRefsCommand", "false"),
    ("core.attributesFile", "/dev/null"),
    ("sequence.editor", "false"),
    ("diff.external", ""),
    ("diff.trustExitCode", "false"),
    ("credential.helper", ""),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("uploadpack.packObjectsHook", "false"),
    ("protocol.allow", "never"),
    ("protocol.file.allow", "never"),
    ("protocol.ext.allow", "never"),
    ("safe.bareRepository", "explicit"),
    ("core.quotepath", "off"),
)
# Driver settings: `filter.<name>.clean` and the like, found in the config each call.
_DRIVERS = r"^(filter|diff|merge)\..+\.(clean|smudge|process|textconv|command|driver)$"
_SAFE_ARGS = tuple(a for key, value in SAFE_CONFIG for a in ("-c", f"{key}={value}"))


class GitError(ToolError):
    """A git command failed; the message holds its stderr."""


def git(
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git args`` in *cwd* without a terminal, pager, prompts, or any program a
    repository's config names (see the module docstring)."""
    full_env = {**os.environ, **_ENV, **(env or {})}
    full_env["GIT_CONFIG_NOSYSTEM"] = "1"
    full_env.pop("GIT_DIR", None)
    full_env.pop("GIT_WORK_TREE", None)
    if "GIT_CEILING_DIRECTORIES" not in (env or {}):
        # Discovery stops at the folder harness works in: a repository the model wrote
        # deeper down is found only there, and nothing above it is used.
        full_env["GIT_CEILING_DIRECTORIES"] = os.path.dirname(os.path.realpath(cwd))
    drivers = _driver_overrides(cwd, full_env)
    proc = subprocess.run(
        ["git", *_SAFE_ARGS, *drivers, *args],
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


def _driver_overrides(cwd: Path, env: dict[str, str]) -> list[str]:
    """``-c`` arguments emptying every filter, diff and merge driver the repository's
    own config names (and the files it includes).

    Reading config runs nothing, so asking git for the names is safe. Drivers from
    the user's global config stay: they are the user's own (git-lfs is one), and a
    model cannot write that file with the file tools."""
    try:
        proc = subprocess.run(
            [
                "git",
                *_SAFE_ARGS,
                "config",
                "--local",
                "--includes",
                "-z",
                "--name-only",
                "--get-regexp",
                _DRIVERS,
            ],
            cwd=cwd,
            env=env,
            capture_output=True,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        return []
    out: list[str] = []
    for name in proc.stdout.decode("utf-8", "replace").split("\0"):
        if name:
            out += ["-c", f"{name}=", "-c", f"{name.rsplit('.', 1)[0]}.required=false"]
    return out


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


def _hidden(root: Path) -> list[str]:
    """Changed or untracked paths the jail protects (``.env``...): git tools leave them out."""
    # Untracked files show in no diff, and git_status filters its own lines.
    proc = git(root, "status", "--porcelain", "-z", "--untracked-files=no", check=False)
    names = [n for n in proc.stdout.decode("utf-8", "replace").split("\0") if n]
    # Entries are `XY path`; a rename's source follows as an entry of its own.
    paths = [n[3:] if len(n) > 3 and n[2] == " " else n for n in names]
    return sorted({p for p in paths if is_protected(p)})


def _pathspec(hidden: list[str], wanted: list[str]) -> list[str]:
    excludes = [f":(exclude,literal){p}" for p in hidden]
    if not excludes and not wanted:
        return []
    return ["--", *(wanted or ["."]), *excludes]


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
        "--short",
        "--branch",
        "--untracked-files=normal",
        *_pathspec(_hidden(root), []),
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
    flags = ("--no-color", "--no-ext-diff", "--no-textconv")
    staged = git(ws.root, "diff", "--cached", *flags, *spec)
    unstaged = git(ws.root, "diff", *flags, *spec)
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
