"""Rewinding the files to a checkpoint: every AI change since a prompt taken back.

A checkpoint is a moment: the time a prompt joined the conversation. The undo
journal names each change by the nanosecond it was made and the session that made
it, so the changes "since prompt N" are the session's entries named after that
time (a forked session adds its parent's, from the checkpoint to the fork). Undoing
them newest first leaves each path as the oldest of them found it, which is what it
held at the checkpoint, byte for byte: created files removed, deleted ones back.

What the journal never saw cannot be put back: files a command wrote or deleted,
or the user changed. They are found by time (a file or folder whose modification
time is after the checkpoint and that no entry explains) and named as not
restorable. A path the AI changed after a command had already changed it since the
checkpoint is restored to what the command left, and says so.

Applying is safe to repeat: each entry's paths are written whole from its backup,
and the entries are dropped only once every path is back, so a rewind killed
half-way gives the same files when it is run again.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from harness.actors.tools._backup import fingerprint, restore_entry
from harness.actors.tools._git import GitError, git
from harness.actors.tools._undo import Journal
from harness.messages.tools import RewindFile, RewindResult, RewindSpan

__all__ = ["MTIME_SLACK", "rewind_files"]

# File times come from the kernel's coarse clock, which may lag the clock that
# stamped the prompt by a tick: a change this close before the checkpoint counts
# as after it (a person cannot type a prompt that fast).
MTIME_SLACK = 0.02
# The look for changes no entry explains stops here (a notice says it did).
_MAX_SCAN = 50_000
_SHOWN = 50
_SKIP = frozenset({".git"})

Entry = tuple[Path, dict[str, Any]]


def _name(seconds: float) -> str:
    # the journal's entry names start with the time in nanoseconds, 20 digits
    return f"{int(seconds * 1e9):020d}"


def _selected(journal: Journal, spans: tuple[RewindSpan, ...]) -> list[Entry]:
    """The entries the spans name, oldest first."""
    if not spans:
        return []
    first = min(s.since for s in spans)
    out = []
    for folder, manifest in journal.entries_since(_name(first)):
        for span in spans:
            if manifest.get("session") != span.session_id:
                continue
            if folder.name >= _name(span.since) and (
                span.until is None or folder.name < _name(span.until)
            ):
                out.append((folder, manifest))
                break
    return out


def _newest_mtime(path: Path) -> int:
    """The newest modification time (ns) of a backup: the file, or anything under it."""
    try:
        newest = os.lstat(path).st_mtime_ns
    except OSError:
        return 0
    if path.is_dir() and not path.is_symlink():
        for dirpath, _, filenames in os.walk(path):
            for name in filenames:
                try:
                    newest = max(newest, os.lstat(os.path.join(dirpath, name)).st_mtime_ns)
                except OSError:
                    pass
    return newest


def _plan(workspace: Path, entries: list[Entry], since: float) -> list[RewindFile]:
    """Each path the entries name, with what a rewind does to it."""
    first: dict[str, tuple[Path, int, dict[str, Any]]] = {}
    last_after: dict[str, str] = {}
    for folder, manifest in entries:
        for i, item in enumerate(manifest.get("paths", ())):
            first.setdefault(item["path"], (folder, i, manifest))
            last_after[item["path"]] = item.get("after", "")
    slack_ns = int((since - MTIME_SLACK) * 1e9)
    files = []
    extra: list[RewindFile] = []
    for path in sorted(first):
        folder, i, manifest = first[path]
        item = manifest["paths"][i]
        target = workspace / path
        now = fingerprint(target)
        before_absent = item["kind"] == "absent"
        if before_absent:
            top = item.get("missing_from")
            if top and top not in first and os.path.lexists(workspace / top):
                # the folders the AI's change created on the way go too
                extra.append(RewindFile(top, "remove"))
            if now == "absent":
                continue
            action = "remove"
        else:
            action = "recreate" if now == "absent" else "restore"
        notes = []
        restorable = True
        if not before_absent and not manifest.get("backup"):
            restorable = False
            notes.append("too large to have been backed up")
        elif not before_absent and _newest_mtime(folder / f"{i}") >= slack_ns:
            notes.append("changed since the checkpoint before the AI changed it (by a command?)")
        if now != last_after[path]:
            notes.append("changed since the AI last wrote it: that change is lost")
        files.append(RewindFile(path, action, "; ".join(notes), restorable))
    folders = {f.path: f for f in extra}
    return sorted([*files, *folders.values()], key=lambda f: f.path)


def _unrecorded(workspace: Path, since: float, changed: set[str]) -> tuple[list[str], bool]:
    """Paths modified after *since* that the entries do not explain, and whether the
    look stopped at its limit."""
    slack_ns = int((since - MTIME_SLACK) * 1e9)
    parents = {str(Path(p).parent) for p in changed}
    parents |= {str(a) for p in changed for a in Path(p).parents}
    found: list[str] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(workspace):
        rel_dir = os.path.relpath(dirpath, workspace)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in _SKIP]
        kept = []
        for name in sorted(dirnames):
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if rel not in changed:  # a folder the rewind puts back whole is explained
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames) + [d + "/" for d in kept]:
            seen += 1
            if seen > _MAX_SCAN:
                return found, True
            rel = os.path.normpath(os.path.join(rel_dir, name.rstrip("/")))
            if rel in changed or rel in parents:
                continue
            try:
                mtime = os.lstat(workspace / rel).st_mtime_ns
            except OSError:
                continue
            if mtime >= slack_ns:
                found.append(rel + ("/" if name.endswith("/") else ""))
    return found, False


def rewind_files(journal: Journal, spans: tuple[RewindSpan, ...], apply: bool) -> RewindResult:
    """What putting the files back to the checkpoint *spans* start at changes, and
    with *apply*, do it (the journal's entries for it are then dropped)."""
    if not spans:
        return RewindResult(False, "no checkpoint named")
    since = min(s.since for s in spans)
    entries = _selected(journal, spans)
    files = _plan(journal.workspace, entries, since)
    unrecorded, partial = _unrecorded(journal.workspace, since, {f.path for f in files})
    notes = []
    if journal.pruned_until() >= _name(since):
        notes.append(
            "Older AI changes were dropped from the undo journal (it keeps the newest "
            "200 of the workspace): files may not be back as they were at the checkpoint."
        )
    if partial:
        notes.append(f"Only the first {_MAX_SCAN} paths were checked for changes by commands.")
    if unrecorded:
        notes.append(
            "Files changed by commands (or outside harness) since the checkpoint cannot be "
            "restored: " + ", ".join(unrecorded[:_SHOWN])
        )
    result = RewindResult(
        True,
        _summary(files, apply=False),
        tuple(files),
        tuple(unrecorded[:_SHOWN]),
        max(0, len(unrecorded) - _SHOWN),
        tuple(notes),
    )
    if not apply:
        return result
    for folder, manifest in reversed(entries):
        if manifest.get("backup"):
            restore_entry(journal.workspace, folder, manifest)
    commit, git_note = _settle_git(journal, entries, [f.path for f in files])
    for folder, _ in entries:
        shutil.rmtree(folder, ignore_errors=True)
    message = _summary(files, apply=True) + git_note
    return RewindResult(
        True, message, result.files, result.unrecorded, result.unrecorded_more, result.notes, commit
    )


def _summary(files: list[RewindFile], *, apply: bool) -> str:
    if not files:
        return "no file the AI changed since the checkpoint needs restoring"
    verbs = {"restore": "restored", "remove": "removed", "recreate": "recreated"}
    if not apply:
        verbs = {"restore": "restore", "remove": "remove", "recreate": "recreate"}
    parts = []
    for action in ("restore", "remove", "recreate"):
        paths = [f.path for f in files if f.action == action and f.restorable]
        if paths:
            parts.append(f"{verbs[action]} {', '.join(paths)}")
    kept = [f.path for f in files if not f.restorable]
    if kept:
        parts.append(f"cannot restore {', '.join(kept)}")
    return "; ".join(parts)


def _settle_git(journal: Journal, entries: list[Entry], paths: list[str]) -> tuple[str | None, str]:
    """Take the entries' autocommits off the branch when they are its newest commits, in
    order; else commit the restored files. Never touches a commit the entries did not make."""
    commits = [m["commit"] for _, m in entries if m.get("commit")]
    root = journal.git_root()
    if root is None or not paths:
        return None, ""
    rel = [os.path.relpath(journal.workspace / p, root).replace(os.sep, "/") for p in paths]
    try:
        head = git(root, "rev-parse", "--verify", "-q", "HEAD", check=False).stdout.decode().strip()
        tip = head
        for commit in reversed(commits):
            if tip != commit:
                break
            parent = git(root, "rev-parse", "--verify", "-q", f"{commit}^", check=False)
            tip = parent.stdout.decode().strip() if parent.returncode == 0 else ""
        else:
            if commits:
                if tip:
                    git(root, "update-ref", "HEAD", tip, head)
                    journal.sync_index(root, rel)
                else:  # the first of them was the repository's first commit
                    git(root, "update-ref", "-d", "HEAD", head)
                    git(root, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", *rel)
                return None, f" (dropped {len(commits)} AI commit(s))"
        if not journal.autocommit() and not commits:
            return None, ""
        made = journal.commit_paths(paths, "ai(rewind): ")
    except (GitError, OSError) as exc:
        return None, f" (git: {exc}; the files are restored)"
    return made, f" (committed as {made[:10]})" if made else ""
