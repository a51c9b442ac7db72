"""Configuration changed behind the tools' back: a command may not rewrite harness's own files.

The file tools ask before they change ``.permissions.json``, ``.mcp.json``,
``AGENTS.md``/``CLAUDE.md`` or ``skills/`` (the permission engine sees their paths). A
command cannot be read that well: ``f=.perm; f=${f}issions.json; echo … > $f``,
``python3 -c``, ``base64 -d`` name no file at all. So every call that can run a program
(the shell worker's tools, MCP tools) runs between two looks at those files, and whatever
changed is undone at once (the previous bytes put back, a new file deleted, a deleted one
written again) and said: to the model in the call's result, to the user as a notice. A
wanted change goes through ``write_file``/``edit_file``, which ask.

A command that leaves a process running can still write later, after its call returned;
the next guarded call starts from what is there then (the hash a trusted file was approved
with still keeps such a file inert at the next start: :mod:`harness.trust`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from harness.conversation._ports import ExecutorPort
from harness.messages.tools import ToolInvoke, ToolOutcome, ToolPreview, ToolPreviewResult

__all__ = ["ConfigGuard", "GuardedExecutors"]

# Top-level files (any case) and folders that configure harness; the same set the
# permission engine asks about (harness.actors.tools' is_config).
_FILES = frozenset({".permissions.json", ".mcp.json", "agents.md", "claude.md"})
_DIRS = ("skills",)
_INSTRUCTIONS = ("AGENTS.md", "CLAUDE.md")
_HOME_FILES = ("permissions.json", "mcp.json", ".env", "settings.json")
# Settings files that hold hooks (commands harness runs), and their folders (watched
# only when a folder is a link: a link put there would bring its own files)
_HOOK_FILES = (
    ".claude",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".harness",
    ".harness/settings.json",
    ".harness/settings.local.json",
)
_HOME_DIRS = ("trust", "skills")
# Executors whose calls can run a program that writes anywhere in the workspace.
GUARDED_EXECUTORS = frozenset({"shell", "mcp"})
# A skills/ tree bigger than this is guarded only up to it (a notice says so once).
_MAX_FILES = 2000
_MAX_BYTES = 16 * 1024 * 1024

# what one path held: its bytes, ("link", target) for a symlink, _DIR for a folder
State = bytes | tuple[str, str]
_DIR: State = ("dir", "")


class ConfigGuard:
    """Looks at the configuration files of *workspace* (and of *home*) and puts them back.

    Watched: in the workspace, ``.permissions.json``, ``.mcp.json``, ``AGENTS.md`` and
    ``CLAUDE.md`` (any case), the ``skills/`` folder, and the hook settings
    ``.claude/settings*.json`` and ``.harness/settings*.json``; ``AGENTS.md``/``CLAUDE.md``
    of each folder above it up to its repository's root (they reach the prompt too); in
    *home*, the user's ``permissions.json``, ``mcp.json`` and ``settings.json`` (always
    trusted), the workspace-trust approvals (``trust/``: a command that wrote one could
    trust a file it wrote), the settings file (``.env``) and ``skills/``.

    Args:
        workspace: the project folder.
        home: ``HARNESS_HOME`` (``None``: only the workspace is watched).
    """

    def __init__(
        self, workspace: str | os.PathLike[str], home: str | os.PathLike[str] | None = None
    ) -> None:
        self.root = Path(workspace)
        self.home = Path(home) if home is not None else None
        self.partial = False  # the last look stopped at the size limits
        self._parents = _parents_in_repo(self.root)

    def _path(self, key: str) -> Path:
        # keys are workspace-relative, or absolute for files outside it
        return Path(key) if os.path.isabs(key) else self.root / key

    def snapshot(self) -> dict[str, State]:
        """What each watched file holds now, by workspace-relative (or absolute) path."""
        out: dict[str, State] = {}
        self.partial = False
        budget = [_MAX_FILES, _MAX_BYTES]
        try:
            names = os.listdir(self.root)
        except OSError:
            names = []
        for name in names:
            if name.lower() in _FILES:
                self._take(name, out, budget)
            elif name.lower() in _DIRS:
                self._walk(name, out, budget)
        for name in _HOOK_FILES:
            self._take(name, out, budget)
        for folder in self._parents:
            for name in _INSTRUCTIONS:
                self._take(str(folder / name), out, budget)
        if self.home is not None:
            for name in _HOME_FILES:
                self._take(str(self.home / name), out, budget)
            for name in _HOME_DIRS:
                self._walk(str(self.home / name), out, budget)
        return out

    def _take(self, key: str, out: dict[str, State], budget: list[int]) -> None:
        path = self._path(key)
        try:
            if path.is_symlink():
                out[key] = ("link", os.readlink(path))
                return
            if not path.is_file():
                return
            if budget[0] <= 0 or path.stat().st_size > budget[1]:
                self.partial = True
                return
            data = path.read_bytes()
        except OSError:
            return
        budget[0] -= 1
        budget[1] -= len(data)
        out[key] = data

    def _walk(self, top: str, out: dict[str, State], budget: list[int]) -> None:
        base = self._path(top)
        if base.is_symlink():
            self._take(top, out, budget)
            return
        for dirpath, dirnames, filenames in os.walk(base):
            rel_dir = os.path.normpath(os.path.join(top, os.path.relpath(dirpath, base)))
            out[rel_dir] = _DIR
            # a symlinked folder is recorded as a link, not followed
            for d in list(dirnames):
                if os.path.islink(os.path.join(dirpath, d)):
                    dirnames.remove(d)
                    filenames.append(d)
            for f in filenames:
                self._take(os.path.normpath(os.path.join(rel_dir, f)), out, budget)

    def restore(self, before: dict[str, State]) -> list[str]:
        """Undo every difference between now and *before*; one line per path undone."""
        after = self.snapshot()
        undone: list[str] = []
        new_dirs: list[str] = []
        # parents before children: a folder is back before the files in it
        for rel in sorted(set(before) | set(after)):
            old, new = before.get(rel), after.get(rel)
            if old == new:
                continue
            if old is None and new == _DIR:
                new_dirs.append(rel)  # emptied by the loop, removed after it
                continue
            path = self._path(rel)
            try:
                if old is None:
                    path.unlink(missing_ok=True)
                    undone.append(f"{rel}: the new file was deleted")
                else:
                    _put(path, old)
                    what = "made again" if new is None else "put back as it was"
                    undone.append(f"{rel}: {what}")
            except OSError as exc:
                undone.append(f"{rel}: changed, and could not be undone ({exc.strerror})")
        for rel in sorted(new_dirs, key=len, reverse=True):
            try:
                os.rmdir(self._path(rel))
                undone.append(f"{rel}: the new folder was deleted")
            except OSError as exc:
                undone.append(f"{rel}: a new folder that could not be deleted ({exc.strerror})")
        return undone


def _parents_in_repo(root: Path) -> list[Path]:
    """The folders above *root* up to the root of the git repository holding it (none
    outside a repository): their instruction files reach the prompt
    (:mod:`harness.instructions`)."""
    real = Path(os.path.realpath(root))
    for folder in (real, *real.parents):
        if (folder / ".git").exists():
            return [p for p in real.parents if p == folder or folder in p.parents]
    return []


def _put(path: Path, state: State) -> None:
    if path.is_dir() and not path.is_symlink():
        if state == _DIR:
            return
        os.rmdir(path)  # a folder where a file was: only an empty one is taken away
    else:
        path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    if state == _DIR:
        path.mkdir()
        return
    if isinstance(state, tuple):
        os.symlink(state[1], path)
        return
    # O_EXCL: a link put there meanwhile is not followed
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(state)


class GuardedExecutors:
    """An :class:`ExecutorPort` that runs calls of :data:`GUARDED_EXECUTORS` between two
    looks of a :class:`ConfigGuard` and undoes what they changed.

    Args:
        inner: the executors that run the calls.
        guard: the workspace's guard.
        notify: called with a sentence for the user for each call whose change was undone.
    """

    def __init__(
        self, inner: ExecutorPort, guard: ConfigGuard, notify: Callable[[str], None]
    ) -> None:
        self.inner = inner
        self.guard = guard
        self.notify = notify
        self._running: dict[int, dict[str, State]] = {}

    async def invoke(
        self, executor: str, request: ToolInvoke, timeout: float | None
    ) -> ToolOutcome:
        """Run *request*; for a guarded executor, undo its changes to the configuration."""
        if executor not in GUARDED_EXECUTORS:
            outcome = await self.inner.invoke(executor, request, timeout)
            if self._running and executor == "tools" and outcome.ok:
                # an asked-for file tool edit made while a command runs is not the command's
                fresh = self.guard.snapshot()
                for before in self._running.values():
                    before.clear()
                    before.update(fresh)
            return outcome
        before = self.guard.snapshot()
        self._running[id(before)] = before
        try:
            outcome = await self.inner.invoke(executor, request, timeout)
        finally:
            del self._running[id(before)]
            undone = self.guard.restore(before)
            if undone:
                self.notify(
                    f"{request.name} changed files that configure harness; undone: "
                    + "; ".join(undone)
                )
        if not undone:
            return outcome
        note = (
            "\n\n[harness] This call changed files that configure harness, so the change "
            "was undone: " + "; ".join(undone) + ". Such files change only through "
            "write_file/edit_file, which ask the user."
        )
        return ToolOutcome(ok=outcome.ok, output=outcome.output + note, data=outcome.data)

    async def preview(self, request: ToolPreview) -> ToolPreviewResult | None:
        """The inner executors' preview."""
        return await self.inner.preview(request)
