"""Finding definition files: ``<kind>/*.md`` in a project's ``.harness`` and ``.claude``
folders and in ``$HARNESS_HOME``, each read through a jail.

A project's files are input nobody vetted: a definition whose real path leaves its
place (a symlink to ``~/.ssh/id_rsa``), one that is not a regular file (a FIFO would
hang the read), one too large, or one that is not UTF-8 text with readable
frontmatter is skipped with a sentence naming the file and the reason; the others
still load.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import attrs

from harness._frontmatter import FrontmatterError, split_frontmatter
from harness.errors import ConfigError
from harness.home import harness_home

__all__ = ["MAX_BYTES", "DefinitionError", "DefinitionFile", "definition_dirs", "find_files"]

#: A definition larger than this is skipped: a prompt that big is a mistake or an attack.
MAX_BYTES = 256 * 1024
# folders deeper than this under a commands folder are not searched
_MAX_DEPTH = 4


class DefinitionError(ConfigError):
    """A definition file that cannot be used; the message names the file and the reason."""


@attrs.frozen
class DefinitionFile:
    """One definition file as read.

    Attributes:
        path: the file.
        stem: its name without ``.md``.
        namespace: the subfolders it sits in, joined by ``:`` (``""`` at the top).
        source: ``project`` or ``user``.
        fields: its frontmatter.
        body: the text after the frontmatter.
    """

    path: Path
    stem: str
    namespace: str
    source: str
    fields: dict[str, Any]
    body: str


def definition_dirs(
    kind: str, workspace: Path | str, home: Path | str | None = None
) -> list[tuple[Path, str]]:
    """The folders searched for *kind* (``agents`` or ``commands``), first one winning,
    with their source label."""
    ws = Path(workspace)
    user = harness_home() if home is None else Path(home)
    return [
        (ws / ".harness" / kind, "project"),
        (ws / ".claude" / kind, "project"),
        (user / kind, "user"),
    ]


def _inside(real: str, jail: str) -> bool:
    return real == jail or real.startswith(jail.rstrip(os.sep) + os.sep)


def _read(path: Path, jail: str) -> str:
    real = os.path.realpath(path)
    if not _inside(real, jail):
        raise DefinitionError(f"{path}: skipped: it is a symlink to {real}, outside {jail}")
    try:
        # O_NONBLOCK: a FIFO planted under the name opens at once instead of hanging;
        # the type is then checked on the open descriptor, not on the name
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise DefinitionError(f"{path}: cannot be read: {exc.strerror}") from exc
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise DefinitionError(f"{path}: skipped: not a regular file")
        if st.st_size > MAX_BYTES:
            raise DefinitionError(
                f"{path}: skipped: {st.st_size} bytes, over the limit of {MAX_BYTES}"
            )
        data = fh.read(MAX_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DefinitionError(f"{path}: skipped: not UTF-8 text ({exc.reason})") from exc


def _candidates(folder: Path, recursive: bool) -> list[tuple[Path, str]]:
    out: list[tuple[Path, str]] = []

    def walk(where: Path, prefix: tuple[str, ...]) -> None:
        try:
            entries = sorted(where.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.suffix == ".md" and entry.name != "README.md" and not entry.is_dir():
                out.append((entry, ":".join(prefix)))
            elif recursive and entry.is_dir() and len(prefix) < _MAX_DEPTH:
                walk(entry, (*prefix, entry.name))

    walk(folder, ())
    return out


def find_files(
    kind: str,
    workspace: Path | str,
    home: Path | str | None,
    problems: list[str],
    *,
    recursive: bool = False,
) -> list[DefinitionFile]:
    """Every readable ``*.md`` definition of *kind*, in precedence order.

    A file that cannot be used is left out, and a sentence naming it and the reason
    is appended to *problems*. With *recursive*, subfolders are searched too and
    give the file its namespace.
    """
    found: list[DefinitionFile] = []
    ws_real = os.path.realpath(workspace)
    for folder, source in definition_dirs(kind, workspace, home):
        if not folder.is_dir():
            continue
        jail = ws_real if source == "project" else os.path.realpath(folder)
        if not _inside(os.path.realpath(folder), jail):
            problems.append(f"{folder}: skipped: it leads outside {jail}")
            continue
        for path, namespace in _candidates(folder, recursive):
            try:
                fields, body = split_frontmatter(_read(path, jail))
            except FrontmatterError as exc:
                problems.append(f"{path}: skipped: {exc}")
                continue
            except DefinitionError as exc:
                problems.append(str(exc))
                continue
            found.append(DefinitionFile(path, path.stem, namespace, source, fields, body))
    return found
