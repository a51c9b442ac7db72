"""The workspace jail: every path a file tool touches is resolved and checked here."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from harness.errors import ToolError
from harness.words import like_words, name_words, path_words

__all__ = [
    "CONFIG_FILES",
    "PROTECTED_DIRS",
    "ToolError",
    "Workspace",
    "is_config",
    "is_protected",
    "names_config",
    "names_state",
    "place_pattern",
    "places",
    "unalias",
]

PROTECTED_DIRS = frozenset({".git", ".harness", "node_modules"})
_ENV_ALLOWED = frozenset({".env.example", ".env.dev", ".env.development"})
_WORDS = (*PROTECTED_DIRS, ".env")

# Files that configure harness itself: what the model may run, which servers start,
# what the system prompt says. A model that could change them without asking could
# grant itself anything in the next session, so every change to them asks.
CONFIG_FILES = frozenset({".permissions.json", ".mcp.json", "agents.md", "claude.md"})
_CONFIG_DIRS = frozenset({"skills"})
# Settings files that hold hooks (commands harness runs), by their folder; .harness/ is
# protected whole, .claude/ (Claude Code's, read as it is) only here.
_SETTINGS_FILES = frozenset({"settings.json", "settings.local.json"})
_SETTINGS_DIRS = frozenset({".claude", ".harness"})
# In a command: the names above, made from the same sets so the two cannot drift. A file
# is found without its leading dot, so ``permissions.json`` also finds the user's own rules
# file in the home folder. Of the settings folders only .claude: .harness is state, which
# _NAMES_STATE finds (and asks about even for a read).
_NAMES_CONFIG = re.compile(
    "|".join(
        [
            *(re.escape(name.lstrip(".")) for name in sorted(CONFIG_FILES)),
            *(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])" for name in sorted(_CONFIG_DIRS)),
            *(rf"{re.escape(name)}(?![\w-])" for name in sorted(_SETTINGS_DIRS - {".harness"})),
        ]
    ),
    re.IGNORECASE,
)
# harness's own state: the user's rules, saved provider keys, sessions. A command
# naming it asks even when it only reads (reading providers.json is the leak).
_NAMES_STATE = re.compile(r"\.harness(?![\w-])|HARNESS_HOME|providers\.json", re.IGNORECASE)


def is_protected(rel: str | PurePosixPath) -> str | None:
    """Why *rel* (workspace-relative) is protected, or ``None`` when it is not."""
    text = str(rel)
    if not any(word in text for word in _WORDS):
        return None  # the common case, without splitting the path
    parts = PurePosixPath(rel).parts
    for part in parts:
        if part in PROTECTED_DIRS:
            return f"{part}/ is protected"
    if parts:
        name = parts[-1]
        if name.startswith(".env") and name not in _ENV_ALLOWED:
            return f"{name} is protected (environment files may hold secrets)"
    return None


def is_config(rel: str | PurePosixPath) -> str | None:
    """Why changing *rel* (workspace-relative) changes harness's own configuration, or
    ``None``: ``.permissions.json``, ``.mcp.json``, ``AGENTS.md`` / ``CLAUDE.md`` (any
    folder, any case), the hook settings ``.claude/settings*.json`` and
    ``.harness/settings*.json``, and the top-level ``skills/`` folder."""
    text = posixpath.normpath(str(rel).replace("\\", "/")).lstrip("/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if not parts:
        return None
    if parts[-1].lower() in CONFIG_FILES:
        return f"{parts[-1]} configures harness"
    if (
        len(parts) >= 2
        and parts[-1].lower() in _SETTINGS_FILES
        and parts[-2].lower() in _SETTINGS_DIRS
    ):
        return f"{parts[-2]}/{parts[-1]} holds hooks, commands harness runs"
    if len(parts) == 1 and parts[0].lower() == ".claude":
        return ".claude/ holds hooks, commands harness runs"  # moved or made whole
    if parts[0].lower() in _CONFIG_DIRS:
        return f"{parts[0]}/ holds harness's skills"
    return None


def names_config(command: str) -> bool:
    """Whether a shell command names one of the files :func:`is_config` protects."""
    return _NAMES_CONFIG.search(command) is not None


def names_state(command: str, home: str | None = None) -> bool:
    """Whether a shell command names harness's state folder (``~/.harness``,
    ``$HARNESS_HOME``, *home* itself) or the saved keys."""
    return _NAMES_STATE.search(command) is not None or bool(home and home in command)


def unalias(root: Path, rel: str) -> str:
    """*rel* (workspace-relative, ``/`` separators) without a first folder named like the
    workspace, when the workspace has no such folder and does have the rest: small models
    write ``project/calc.py`` from the prompt's workspace line (measured: the 1.5B model
    read ``project/greet.py`` five times, each answered "did you mean greet.py?"), and
    there is no other file that path could mean."""
    head, _, rest = rel.partition("/")
    if (
        rest
        and head == root.name
        and not os.path.lexists(root / head)
        and os.path.lexists(root / rest)
    ):
        return rest
    return rel


def places(root: Path | None, path: str) -> list[str]:
    """The workspace places *path* names, as permission rules see them: its lexical
    place and its place without a folder named like the workspace (:func:`unalias`),
    each also where its symlinks lead; relative to *root* with ``/`` separators (outside
    it they start with ``..``), distinct. Without a workspace, the path normalized."""
    text = path.strip()
    if root is None:
        return [posixpath.normpath(text)] if text else []
    if not text:
        return []
    real_root = Path(os.path.realpath(root))
    lexical = os.path.normpath(os.path.join(real_root, text))
    alias = os.path.join(real_root, unalias(real_root, os.path.relpath(lexical, real_root)))
    out = [lexical, os.path.realpath(lexical), alias, os.path.realpath(alias)]
    rels = (os.path.relpath(p, real_root).replace(os.sep, "/") for p in out)
    return list(dict.fromkeys(rels))


def place_pattern(root: Path | None, pattern: str) -> str:
    """A rule's path pattern as :func:`places` writes places: ``./src/*`` is ``src/*``,
    the workspace's absolute path followed by ``/a.py`` is ``a.py`` (lexically: a
    pattern is not a path to resolve)."""
    text = pattern.strip()
    if root is None or not text:
        return posixpath.normpath(text) if text else text
    real_root = os.path.realpath(root)
    rel = os.path.relpath(os.path.normpath(os.path.join(real_root, text)), real_root)
    return rel.replace(os.sep, "/")


class Workspace:
    """A workspace root and the rules for paths inside it.

    Args:
        root: the workspace folder (resolved once: the jail compares real paths).
        buffers: the text of files open in the user's editor, by real path (unsaved
            edits included): the file tools read these instead of the disk.
    """

    def __init__(
        self, root: str | os.PathLike[str], buffers: Mapping[str, str] | None = None
    ) -> None:
        self.root = Path(os.path.realpath(root))
        if not self.root.is_dir():
            raise ToolError(f"workspace {root} is not a folder")
        self.buffers: Mapping[str, str] = buffers or {}

    def buffer(self, real: Path) -> str | None:
        """The editor's text of the file at real path *real*, or ``None`` (read the disk)."""
        return self.buffers.get(str(real)) if self.buffers else None

    def resolve(
        self,
        path: str,
        *,
        allow_root: bool = False,
        check_protected: bool = True,
        alias: bool = True,
    ) -> Path:
        """The real path of *path*, refused unless it stays inside the workspace.

        Refused: empty paths, absolute paths outside the workspace, ``..`` that
        escapes, symlinks (anywhere on the way) that resolve outside, protected
        paths, and the root itself unless *allow_root*. With *alias*, a first folder
        named like the workspace is dropped when there is no such folder and the rest
        exists (:func:`unalias`); ``write_file`` turns it off, so that a path meant as a
        new file never overwrites another.
        """
        if not isinstance(path, str) or not path.strip():
            raise ToolError("path is empty; give a path relative to the workspace root")
        if "\x00" in path:
            raise ToolError("path contains a NUL byte")
        raw = path.strip()
        if os.path.isabs(raw):
            lexical = Path(os.path.normpath(raw))
            if not _inside(lexical, self.root) and not _inside(
                Path(os.path.realpath(raw)), self.root
            ):
                raise ToolError(self.outside(lexical, raw))
        else:
            lexical = Path(os.path.normpath(self.root / raw))
            if not _inside(lexical, self.root):
                raise ToolError(f"{raw} escapes the workspace with '..'")
        if alias and _inside(lexical, self.root):
            lexical = self.root / unalias(self.root, self.rel(lexical))
        real = Path(os.path.realpath(lexical))
        if not _inside(real, self.root):
            raise ToolError(f"{raw} is a symlink that resolves outside the workspace")
        if real == self.root and not allow_root:
            raise ToolError(f"{raw} is the workspace root itself")
        if check_protected:
            for candidate in (lexical, real):
                if _inside(candidate, self.root):
                    why = is_protected(self.rel(candidate))
                    if why:
                        raise ToolError(f"{raw}: {why}")
        # The lexical path keeps a symlink inside the workspace as a symlink (so
        # delete_path removes the link, not its target); its target was checked.
        return lexical if _inside(lexical, self.root) else real

    def missing(self, lexical: Path, otherwise: str = "") -> str:
        """The sentence for a path that does not exist, naming the file the caller most
        likely meant: the same path without a leading folder named like the workspace
        (small models write ``project/calc.py`` from the prompt's workspace line), else
        up to three files of that name near the top of the workspace. With no such file,
        it names up to five similar files (:func:`_similar`), then *otherwise* (what to
        do instead)."""
        shown = self.rel(lexical)
        parts = shown.split("/")
        rest = "/".join(parts[1:])
        if rest and parts[0] == self.root.name and os.path.lexists(self.root / rest):
            return f"{shown} does not exist; did you mean {rest}?"
        names, files = self._walk(parts[-1])
        if names:
            return f"{shown} does not exist; did you mean {' or '.join(names)}?"
        said = [f"{shown} does not exist"]
        similar = _similar(shown, files)
        if similar:
            said.append(f"similar files: {', '.join(similar)}")
        if otherwise:
            said.append(otherwise)
        return "; ".join(said)

    def outside(self, lexical: Path, raw: str) -> str:
        """The sentence for an absolute path outside the workspace, naming the workspace
        file it most likely means: the longest end of the path that is a file here, the
        whole path first (``/src/format.js`` written from the workspace's root, or
        ``/shop/src/format.js`` from a traceback pasted from another machine or a
        container, which names files where they ran, not where the workspace is),
        else up to three files of its name near the top of the workspace. Only named:
        the path asked for is never read in its place, since the file outside may be
        another file."""
        parts = lexical.parts[1:]
        for start in range(len(parts)):
            tail = "/".join(parts[start:])
            here = self.root / tail
            if (
                os.path.isfile(here)
                and not is_protected(tail)
                and _inside(Path(os.path.realpath(here)), self.root)
            ):
                return f"{raw} is outside the workspace; did you mean {tail}?"
        names = [n for n in self._walk(lexical.name)[0] if not is_protected(n)] if parts else []
        if names:
            return f"{raw} is outside the workspace; did you mean {' or '.join(names)}?"
        return f"{raw} is outside the workspace; use a path relative to the workspace root"

    def _walk(self, name: str) -> tuple[list[str], list[str]]:
        """The places of entries named *name* (none when more than three: a guess among
        many is no guess), and every file seen on the way but protected ones (``.env``
        is no file to point a model at), near the top of the workspace
        (:data:`_NEAR_DEPTH`, :data:`_NEAR_ENTRIES`)."""
        found: list[str] = []
        files: list[str] = []
        seen = 0
        for dirpath, dirnames, filenames in os.walk(self.root):
            depth = len(Path(dirpath).relative_to(self.root).parts)
            dirnames[:] = (
                []
                if depth >= _NEAR_DEPTH
                else sorted(d for d in dirnames if not d.startswith(".") and d not in _NEAR_SKIP)
            )
            seen += len(filenames) + len(dirnames)
            if name in filenames or name in dirnames:
                found.append(self.rel(Path(dirpath) / name))
            seen_files = (self.rel(Path(dirpath) / f) for f in sorted(filenames))
            files.extend(f for f in seen_files if not is_protected(f))
            if seen > _NEAR_ENTRIES:
                break
        return (found if len(found) <= 3 else []), files

    def rel(self, path: Path) -> str:
        """*path* relative to the root, with ``/`` separators (``.`` for the root)."""
        try:
            text = path.relative_to(self.root).as_posix()
        except ValueError:
            text = os.path.relpath(path, self.root).replace(os.sep, "/")
        return text or "."


# How far a missing path's name is looked for: a few levels and entries, so that a
# mistyped path in a huge tree costs milliseconds, not a walk of it.
_NEAR_DEPTH = 3
_NEAR_ENTRIES = 5000
_NEAR_SKIP = frozenset({"node_modules", "__pycache__", "venv", "target", "build", "dist"})


def _similar(shown: str, files: list[str]) -> list[str]:
    """Up to five of *files* like the missing path *shown*, the likest first: a word of
    its name shared with a file's name (:func:`~harness.words.like_words`) counts two,
    with a file's folder one, and being in its folder (when that is not the root) two; a
    file needs two. A model that guesses a path learns where to look: told "The map
    script prints it", the 1.5B model read ``map_script.txt``; the script was
    ``web/map.js`` (bench local-tasks; on that model the list wins and loses about as
    often, docs/models-rounds.md)."""
    folder, _, name = shown.rpartition("/")
    words = name_words(name)
    scored = []
    for path in files:
        own, near = path_words(path)
        score = sum(
            2 * any(like_words(w, o) for o in own) + any(like_words(w, f) for f in near)
            for w in words
        )
        score += 2 * (bool(folder) and path.rpartition("/")[0] == folder)
        if score >= 2:
            scored.append((-score, path))
    return [path for _, path in sorted(scored)[:5]]


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
