"""Undo for AI changes: a per-session backup of every path before a change, and in a
git repository one commit per change, ``ai(<tool>): <paths>``.

The journal lives under ``$HARNESS_HOME/undo/<workspace key>/`` (nothing is
written into the workspace). Each change is an entry folder holding a manifest
(tool, session, paths, what each path was before and its fingerprint after) and
the backed-up files. ``undo`` takes the newest entry, refuses, naming the files,
when any of them changed since the AI wrote them, restores the backup, and in git
either drops its commit (when it is still ``HEAD``) or commits the restore. It
never touches a commit it did not make: only commits named in its own entries.

Commits are built on a temporary index (``read-tree HEAD``, ``add -A -- paths``,
``write-tree``, ``commit-tree``), so they hold only the paths the tool named and
never the user's other staged or unstaged work; no hooks run.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from harness.actors.tools._backup import fingerprint, restore_entry, tree_size
from harness.actors.tools._git import GitError, git, git_root

__all__ = ["MAX_BACKUP_BYTES", "MAX_ENTRIES", "Journal", "Pending", "UndoOutcome", "workspace_key"]

MAX_BACKUP_BYTES = 64 * 1024 * 1024
MAX_ENTRIES = 200
_IDENTITY = {
    "GIT_AUTHOR_NAME": "harness",
    "GIT_AUTHOR_EMAIL": "harness@localhost",
    "GIT_COMMITTER_NAME": "harness",
    "GIT_COMMITTER_EMAIL": "harness@localhost",
}


def workspace_key(root: Path) -> str:
    """A stable folder name for a workspace: its name plus a hash of its real path."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode()).hexdigest()[:12]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(real).name)[:40]
    return f"{name or 'root'}-{digest}"


@attrs.frozen
class UndoOutcome:
    """The result of an undo: ``ok`` false means nothing changed."""

    ok: bool
    message: str
    paths: tuple[str, ...] = ()
    commit: str | None = None


@attrs.define
class Pending:
    """A change about to happen: its entry folder and the paths it names."""

    folder: Path
    manifest: dict[str, Any]


class Journal:
    """The undo journal and autocommit of one workspace.

    Args:
        workspace: the workspace root (real path).
        home: ``HARNESS_HOME``.
    """

    def __init__(self, workspace: Path, home: Path) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.dir = Path(home) / "undo" / workspace_key(self.workspace)
        self.entries = self.dir / "entries"

    # --- settings ---
    @property
    def _settings_path(self) -> Path:
        return self.dir / "settings.json"

    def autocommit(self) -> bool:
        """Whether AI changes are committed (default on; ``HARNESS_AUTOCOMMIT=0`` flips it)."""
        default = os.environ.get("HARNESS_AUTOCOMMIT", "1") not in ("0", "off", "false")
        try:
            return bool(json.loads(self._settings_path.read_text())["autocommit"])
        except (OSError, ValueError, KeyError, TypeError):
            return default

    def set_autocommit(self, enabled: bool) -> None:
        """Remember ``/autocommit on|off`` for this workspace."""
        self.dir.mkdir(parents=True, exist_ok=True)
        _write_json(self._settings_path, {"autocommit": enabled})

    def git_root(self) -> Path | None:
        """The repository the workspace is in, or ``None``."""
        return git_root(self.workspace)

    # --- recording ---
    def before(
        self, session: str, tool: str, paths: list[str], texts: Mapping[str, str] | None = None
    ) -> Pending:
        """Back up *paths* (workspace-relative) before *tool* changes them; a file's
        backup is its text in *texts* when there (the editor's buffer, which the change
        was made to), else the file."""
        self.entries.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid()}"
        folder = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=self.entries))
        items = []
        total = sum(tree_size(self.workspace / p) for p in paths)
        backed = total <= MAX_BACKUP_BYTES
        for i, rel in enumerate(paths):
            src = self.workspace / rel
            item: dict[str, Any] = {"path": rel}
            if src.is_symlink():
                item.update(kind="symlink", target=os.readlink(src))
            elif src.is_file():
                item.update(kind="file", mode=stat.S_IMODE(src.stat().st_mode))
                if backed and texts and rel in texts:
                    (folder / f"{i}").write_bytes(texts[rel].encode("utf-8", "surrogatepass"))
                elif backed:
                    shutil.copy2(src, folder / f"{i}")
            elif src.is_dir():
                item.update(kind="dir")
                if backed:
                    shutil.copytree(src, folder / f"{i}", symlinks=True)
            else:
                item.update(kind="absent")
                top = _first_missing(self.workspace, rel)
                if top:
                    # the folders the change creates on the way, so undo removes them too
                    item["missing_from"] = top
            items.append(item)
        manifest = {
            "name": name,
            "session": session,
            "tool": tool,
            "paths": items,
            "backup": backed,
            "time": time.time(),
        }
        return Pending(folder, manifest)

    def discard(self, pending: Pending) -> None:
        """The change did not happen: drop its backup."""
        shutil.rmtree(pending.folder, ignore_errors=True)

    def after(self, pending: Pending) -> str | None:
        """The change happened: fingerprint the paths, commit them in git, keep the entry.

        Returns the commit made, if any. A git failure never fails the tool; the
        entry is kept without a commit and undo restores from the backup.
        """
        for item in pending.manifest["paths"]:
            item["after"] = fingerprint(self.workspace / item["path"])
        commit = None
        if self.autocommit():
            try:
                commit = self.commit_paths(
                    [i["path"] for i in pending.manifest["paths"]],
                    f"ai({pending.manifest['tool']}): ",
                )
            except (GitError, OSError) as exc:
                pending.manifest["commit_error"] = str(exc)
        pending.manifest["commit"] = commit
        _write_json(pending.folder / "manifest.json", pending.manifest)
        final = self.entries / pending.manifest["name"]
        os.rename(pending.folder, final)
        self._prune()
        return commit

    def _prune(self) -> None:
        """Keep the newest :data:`MAX_ENTRIES` entries; older ones can no longer be undone."""
        names = sorted(n for n in os.listdir(self.entries) if not n.startswith("."))
        dropped = names[:-MAX_ENTRIES]
        if dropped:
            # a rewind to a time before this can no longer be whole, and must say so
            _write_json(self.dir / "pruned.json", {"newest": dropped[-1]})
        for old in dropped:
            shutil.rmtree(self.entries / old, ignore_errors=True)

    def pruned_until(self) -> str:
        """The name of the newest entry dropped by pruning (``""``: none was)."""
        try:
            return str(json.loads((self.dir / "pruned.json").read_text())["newest"])
        except (OSError, ValueError, KeyError, TypeError):
            return ""

    def entries_since(self, name: str) -> list[tuple[Path, dict[str, Any]]]:
        """Every entry named after *name* (oldest first) with its manifest; an entry
        whose manifest cannot be read is left out."""
        if not self.entries.is_dir():
            return []
        out = []
        for folder in sorted(self.entries.iterdir()):
            if folder.name.startswith(".") or folder.name <= name:
                continue
            try:
                manifest = json.loads((folder / "manifest.json").read_text())
            except (OSError, ValueError):
                continue
            if isinstance(manifest, dict):
                out.append((folder, manifest))
        return out

    # --- git ---
    def _git_env(self, root: Path) -> dict[str, str]:
        ok = git(root, "var", "GIT_COMMITTER_IDENT", check=False).returncode == 0
        ok = ok and git(root, "var", "GIT_AUTHOR_IDENT", check=False).returncode == 0
        return {} if ok else dict(_IDENTITY)

    def commit_paths(self, paths: list[str], prefix: str) -> str | None:
        """Commit the workspace-relative *paths* as they are now, on ``HEAD``, with the
        message *prefix* + the paths; ``None`` when not in git or nothing changed."""
        root = self.git_root()
        if root is None:
            return None
        rel = [os.path.relpath(self.workspace / p, root).replace(os.sep, "/") for p in paths]
        head_proc = git(root, "rev-parse", "--verify", "-q", "HEAD", check=False)
        head = head_proc.stdout.decode().strip() if head_proc.returncode == 0 else None
        with tempfile.TemporaryDirectory(prefix="harness-index-") as tmp:
            env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
            if head:
                git(root, "read-tree", head, env=env)
            known = set(
                git(root, "ls-files", "-z", "--", *rel, env=env).stdout.decode().split("\0")
            )
            present = [
                r
                for r in rel
                if os.path.lexists(root / r) or any(k == r or k.startswith(r + "/") for k in known)
            ]
            if not present:
                return None
            ignored = set(
                git(
                    root,
                    "check-ignore",
                    "--no-index",
                    "-z",
                    "--stdin",
                    input="\0".join(present).encode(),
                    check=False,
                    env=env,
                )
                .stdout.decode()
                .split("\0")
            )
            wanted = [r for r in present if r not in ignored or r in known]
            if not wanted:
                return None
            git(root, "add", "-A", "--", *wanted, env=env)
            tree = git(root, "write-tree", env=env).stdout.decode().strip()
        if head and git(root, "rev-parse", f"{head}^{{tree}}").stdout.decode().strip() == tree:
            return None
        shown = ", ".join(wanted)
        if len(shown) > 200:
            shown = shown[:200] + f"… ({len(wanted)} paths)"
        parents = ["-p", head] if head else []
        commit = (
            git(
                root,
                "commit-tree",
                tree,
                *parents,
                "-m",
                prefix + shown,
                env=self._git_env(root),
            )
            .stdout.decode()
            .strip()
        )
        git(root, "update-ref", "HEAD", commit, *([head] if head else []))
        self.sync_index(root, wanted)
        return commit

    def sync_index(self, root: Path, rel: list[str]) -> None:
        """Make the real index agree with HEAD for *rel* (repository-relative; only those)."""
        git(root, "reset", "-q", "HEAD", "--", *rel, check=False)

    # --- undo ---
    def _newest(self, session: str) -> tuple[Path, dict[str, Any]] | None:
        if not self.entries.is_dir():
            return None
        for folder in sorted(self.entries.iterdir(), reverse=True):
            if folder.name.startswith("."):
                continue
            try:
                manifest = json.loads((folder / "manifest.json").read_text())
            except (OSError, ValueError):
                continue
            if session and manifest.get("session") != session:
                continue
            return folder, manifest
        return None

    def undo(self, session: str = "") -> UndoOutcome:
        """Revert the newest AI change (of *session* when given)."""
        found = self._newest(session)
        if found is None:
            return UndoOutcome(False, "nothing to undo")
        folder, manifest = found
        items = manifest["paths"]
        paths = tuple(i["path"] for i in items)
        changed = [
            i["path"] for i in items if fingerprint(self.workspace / i["path"]) != i.get("after")
        ]
        if changed:
            return UndoOutcome(
                False,
                f"cannot undo {manifest['tool']}: changed since the AI wrote them: "
                + ", ".join(changed),
                paths,
            )
        if not manifest.get("backup"):
            return UndoOutcome(
                False, f"cannot undo {manifest['tool']}: the change was too large to back up", paths
            )
        restore_entry(self.workspace, folder, manifest)
        commit = manifest.get("commit")
        note = ""
        if commit:
            note = self._undo_commit(commit, list(paths), manifest["tool"])
        shutil.rmtree(folder, ignore_errors=True)
        return UndoOutcome(
            True, f"undid {manifest['tool']}: {', '.join(paths)}{note}", paths, commit
        )

    def _undo_commit(self, commit: str, paths: list[str], tool: str) -> str:
        root = self.git_root()
        if root is None:
            return ""
        rel = [os.path.relpath(self.workspace / p, root).replace(os.sep, "/") for p in paths]
        head = git(root, "rev-parse", "--verify", "-q", "HEAD", check=False).stdout.decode().strip()
        if head == commit:
            parent = git(root, "rev-parse", "--verify", "-q", f"{commit}^", check=False)
            if parent.returncode == 0:
                git(root, "update-ref", "HEAD", parent.stdout.decode().strip(), commit)
                self.sync_index(root, rel)
            else:
                # The AI's commit was the repository's first: unborn again.
                git(root, "update-ref", "-d", "HEAD", commit)
                git(root, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *rel, check=False)
            return f" (dropped commit {commit[:10]})"
        ancestor = git(root, "merge-base", "--is-ancestor", commit, "HEAD", check=False)
        if ancestor.returncode != 0:
            return f" (commit {commit[:10]} is no longer on this branch; files restored only)"
        made = self.commit_paths(paths, f"ai(undo {tool}): ")
        return f" (reverted in commit {made[:10]})" if made else ""


def _first_missing(workspace: Path, rel: str) -> str:
    """The outermost folder above *rel* that does not exist (``""``: all do)."""
    top = ""
    for parent in Path(rel).parents:
        if str(parent) != "." and not os.path.lexists(workspace / parent):
            top = str(parent)
    return top


def _write_json(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)
