"""Workspace trust: project configuration that can run code or widen permissions is inert
until the user approves that file's exact content.

Opening harness in a freshly cloned repository must be as safe as opening the folder in a
file manager. The project files that could act on their own (:data:`PROJECT_FILES`: the
servers of ``.mcp.json``, with their ``${VAR}`` secrets, ``trust`` and ``autoApprove``; the
allow rules of ``.permissions.json``; the hooks of ``.harness/settings*.json`` and
``.claude/settings*.json``) count only when the user approved the bytes they hold
now. Approvals live in ``$HARNESS_HOME/trust/``, by workspace (its real path) and file, as
a SHA-256 of the content: a file that changes is untrusted again, and a file a command
wrote is never trusted because it happened to be there at the next start. Restrictions (deny
rules, protected paths) need no trust: they always apply.

The store takes any list of project files with their digests (:class:`ProjectFile`), so
other kinds of project configuration (hooks) join by naming their file.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from harness.home import harness_home

__all__ = [
    "PROJECT_FILES",
    "ProjectFile",
    "TrustStore",
    "WorkspaceTrust",
    "describe",
    "digest",
    "ignored_notice",
    "project_files",
]

#: Project files that can run code or widen permissions, relative to the workspace.
PROJECT_FILES = (
    ".mcp.json",
    ".permissions.json",
    # hooks are commands (harness.hooks reads them; a file without hooks is not listed)
    ".harness/settings.json",
    ".harness/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
)

STORE_DIR = "trust"
# A project file larger than this is never trusted (nor read whole to describe it).
_MAX_BYTES = 1024 * 1024


def digest(data: bytes) -> str:
    """The content hash approvals are kept by (``sha256:`` and hex)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


class ProjectFile(NamedTuple):
    """One project file as read now (a tuple: this module is read before the first
    prompt, without attrs).

    Attributes:
        name: its path relative to the workspace (``.mcp.json``).
        digest: :func:`digest` of *data*.
        data: the bytes read: whoever acts on the file parses these, not a second read.
        lines: what it would do, one short line each (servers and their commands, allow
            rules), control characters made visible.
    """

    name: str
    digest: str
    data: bytes
    lines: tuple[str, ...] = ()


def _show(value: Any) -> str:
    from harness.terminal import clean_line  # only to describe a file: not on the check's path

    text = value if isinstance(value, str) else json.dumps(value)
    return clean_line(text)[:200]


def _mcp_lines(data: Any) -> list[str]:
    """The servers of a ``.mcp.json`` as written (no ``${VAR}`` replaced)."""
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return []
    out: list[str] = []
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            out.append(f"MCP server {_show(name)}: {_show(entry)}")
            continue
        if "url" in entry and "command" not in entry:
            where = f"url {_show(entry.get('url'))}"
        else:
            args = entry.get("args")
            parts = [entry.get("command", "")]
            parts += args if isinstance(args, list) else [args] if args is not None else []
            where = "runs " + " ".join(_show(p) for p in parts)
        extra = []
        if entry.get("env"):
            keys = entry["env"].keys() if isinstance(entry["env"], dict) else ["?"]
            extra.append("env " + ", ".join(_show(k) for k in keys))
        if entry.get("trust"):
            extra.append("trust: every tool runs without asking")
        if entry.get("autoApprove"):
            extra.append(f"autoApprove {_show(entry['autoApprove'])}")
        if entry.get("readOnly"):
            extra.append("readOnly: its tools count as only reading")
        if entry.get("disabled") is True:
            extra.append("disabled")
        more = f" ({'; '.join(extra)})" if extra else ""
        out.append(f"MCP server {_show(name)}: {where}{more}")
    return out


def _rules_lines(data: Any) -> list[str]:
    """The allow rules of a ``.permissions.json`` (its deny rules need no trust)."""
    allow = data.get("allow") if isinstance(data, dict) else None
    if not allow:
        return []
    items = allow if isinstance(allow, list) else [allow]
    return [f"allow rule {_show(rule)}" for rule in items]


def _hooks_lines(data: Any) -> list[str]:
    """The commands of a settings file's ``hooks`` (its other settings need no trust)."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not hooks:
        return []
    if not isinstance(hooks, dict):
        return [f"hooks {_show(hooks)}"]
    out: list[str] = []
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else [groups]:
            matcher = group.get("matcher") if isinstance(group, dict) else None
            where = f"hook {_show(event)}" + (f" [{_show(matcher)}]" if matcher else "")
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list) or not handlers:
                out.append(f"{where}: {_show(group)}")
                continue
            for h in handlers:
                command = h.get("command") if isinstance(h, dict) else h
                out.append(f"{where}: runs {_show(command)}")
    return out or [f"hooks {_show(hooks)}"]


_DESCRIBE: dict[str, Callable[[Any], list[str]]] = {
    ".mcp.json": _mcp_lines,
    ".permissions.json": _rules_lines,
    ".harness/settings.json": _hooks_lines,
    ".harness/settings.local.json": _hooks_lines,
    ".claude/settings.json": _hooks_lines,
    ".claude/settings.local.json": _hooks_lines,
}


def project_files(
    workspace: str | os.PathLike[str], names: Iterable[str] = PROJECT_FILES
) -> list[ProjectFile]:
    """The project files of *workspace* that would act if trusted: a ``.mcp.json`` with
    servers (or one that does not parse, so it is not silently lost), a
    ``.permissions.json`` with allow rules. Files that are missing, empty or only restrict
    are left out; one too large to be a configuration file is listed so it stays inert."""
    root = Path(workspace)
    out: list[ProjectFile] = []
    for name in names:
        path = root / name
        try:
            with open(path, "rb") as f:
                data = f.read(_MAX_BYTES + 1)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            continue
        except OSError as exc:
            out.append(ProjectFile(name, "", b"", (f"cannot be read: {exc.strerror}",)))
            continue
        if not data.strip():
            continue
        if len(data) > _MAX_BYTES:
            out.append(ProjectFile(name, "", b"", ("larger than 1 MiB: never trusted",)))
            continue
        try:
            parsed = json.loads(data)
        except ValueError:
            out.append(ProjectFile(name, digest(data), data, ("does not parse as JSON",)))
            continue
        describe_file = _DESCRIBE.get(name)
        lines = describe_file(parsed) if describe_file else [f"{len(data)} bytes"]
        if lines:
            out.append(ProjectFile(name, digest(data), data, tuple(lines)))
    return out


def describe(files: Iterable[ProjectFile]) -> list[str]:
    """Lines that show *files* to the user: each file's name, then what it would do."""
    out: list[str] = []
    for f in files:
        out.append(f"{f.name}:")
        out.extend(f"  {line}" for line in f.lines)
    return out


def ignored_notice(files: Iterable[ProjectFile], how: str) -> str:
    """The one or two lines that say which project files were ignored and *how* to trust
    them (a headless run names ``harness trust`` and ``--trust-project``)."""
    parts = []
    for f in files:
        servers = [ln.split(":")[0].removeprefix("MCP server ") for ln in f.lines]
        if f.name == ".mcp.json" and all(ln.startswith("MCP server ") for ln in f.lines):
            parts.append(f"{f.name} (servers {', '.join(servers)})")
        elif f.name == ".permissions.json" and f.lines[:1] != ("does not parse as JSON",):
            parts.append(f"the allow rules of {f.name}")
        elif f.name.endswith(".json") and all(ln.startswith("hook") for ln in f.lines):
            parts.append(f"the hooks of {f.name}")
        else:
            parts.append(f.name)
    return f"ignored {' and '.join(parts)}: this workspace's configuration is not trusted.\n{how}"


def _key(workspace: str | os.PathLike[str]) -> str:
    return os.path.realpath(workspace)


def _approves(approved: Mapping[str, str], name: str, file_digest: str) -> bool:
    # the one comparison both the loaders (trusts) and the notices (untrusted) make; a file
    # listed without a digest (unreadable, too large) is never approved
    return bool(file_digest) and approved.get(name) == file_digest


class TrustStore:
    """The approvals under ``$HARNESS_HOME/trust/``: one small file per workspace (named by a
    hash of its real path) holding the workspace and each approved file's digest, so a check
    at start reads one file however many workspaces are trusted.

    Args:
        home: ``HARNESS_HOME`` (default: :func:`harness.home.harness_home`).
    """

    def __init__(self, home: str | os.PathLike[str] | None = None) -> None:
        self.dir = (Path(home) if home is not None else harness_home()) / STORE_DIR

    def path(self, workspace: str | os.PathLike[str]) -> Path:
        """The file that holds *workspace*'s approvals."""
        name = hashlib.sha256(_key(workspace).encode("utf-8", "surrogateescape")).hexdigest()
        return self.dir / f"{name[:32]}.json"

    def _read(self, path: Path) -> tuple[str, dict[str, str]]:
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return "", {}  # missing or broken: nothing is trusted, which is the safe side
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            return "", {}
        files = {str(k): v for k, v in data["files"].items() if isinstance(v, str)}
        return str(data.get("workspace", "")), files

    def approved(self, workspace: str | os.PathLike[str]) -> dict[str, str]:
        """The approved digest of each file of *workspace*."""
        key = _key(workspace)
        owner, files = self._read(self.path(key))
        return files if owner == key else {}

    def workspaces(self) -> dict[str, dict[str, str]]:
        """Every workspace with approvals, and its files' digests."""
        out: dict[str, dict[str, str]] = {}
        for path in sorted(self.dir.glob("*.json")) if self.dir.is_dir() else []:
            owner, files = self._read(path)
            if owner and files:
                out[owner] = files
        return out

    def trusts(self, workspace: str | os.PathLike[str], name: str, data: bytes) -> bool:
        """Whether the file *name* of *workspace*, holding *data*, was approved as it is."""
        if len(data) > _MAX_BYTES:
            return False
        return _approves(self.approved(workspace), name, digest(data))

    def untrusted(
        self, workspace: str | os.PathLike[str], files: Iterable[ProjectFile]
    ) -> list[ProjectFile]:
        """The *files* whose content was not approved."""
        files = list(files)
        if not files:
            return []  # nothing to look up: the store is not read
        approved = self.approved(workspace)
        return [f for f in files if not _approves(approved, f.name, f.digest)]

    def approve(self, workspace: str | os.PathLike[str], files: Iterable[ProjectFile]) -> None:
        """Trust *files* of *workspace* with the content they were read with."""
        key = _key(workspace)
        entry = self.approved(key)
        entry.update((f.name, f.digest) for f in files if f.digest)
        self._write(self.path(key), {"version": 1, "workspace": key, "files": entry})

    def revoke(self, workspace: str | os.PathLike[str]) -> list[str]:
        """Forget every approval of *workspace*; the names of the files it had."""
        key = _key(workspace)
        gone = self.approved(key)
        self.path(key).unlink(missing_ok=True)
        return sorted(gone)

    def _write(self, path: Path, data: Mapping[str, Any]) -> None:
        import tempfile

        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".trust.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=2, sort_keys=True)
                f.write("\n")
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class WorkspaceTrust:
    """The trust one session runs with: the store's approvals, or every project file
    trusted as it is (``--trust-project``, the API's ``trust_project=True``).

    Args:
        workspace: the project folder.
        store: the approvals.
        trust_all: trust the project's files whatever they hold, for this session only.
    """

    def __init__(
        self, workspace: str | os.PathLike[str], store: TrustStore, *, trust_all: bool = False
    ) -> None:
        self.workspace = Path(workspace)
        self.store = store
        self.trust_all = trust_all

    def trusts(self, name: str, data: bytes) -> bool:
        """Whether the project file *name* holding *data* may act."""
        return self.trust_all or self.store.trusts(self.workspace, name, data)

    def for_file(self, name: str) -> Callable[[bytes], bool]:
        """:meth:`trusts` for one file, as loaders take it."""
        return lambda data: self.trusts(name, data)

    def untrusted(self) -> list[ProjectFile]:
        """The project files that are ignored in this session (as they are now)."""
        if self.trust_all:
            return []
        # through trusts(), the decision the loaders take, so that what is said to be
        # ignored is what was ignored
        return [
            f
            for f in project_files(self.workspace)
            if not (f.digest and self.trusts(f.name, f.data))
        ]
