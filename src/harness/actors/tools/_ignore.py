"""A .gitignore matcher and a walker that honours it (and skips protected folders).

Covers what real projects write: comments, ``!`` negation, trailing ``/`` for
folders only, anchored patterns (a ``/`` anywhere but the end), ``*``, ``?``,
``[...]`` and ``**`` in all three places. Every folder's own ``.gitignore``
applies below it, the last matching line wins, and an ignored folder is never
entered. The repository's ``.git/info/exclude`` applies too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from harness.actors.tools._jail import PROTECTED_DIRS, ToolError

__all__ = ["IgnoreRules", "compile_glob", "walk_files"]


def _translate(pat: str) -> str:
    """A gitignore glob (no leading ``/``) as a regex over ``/``-separated paths."""
    out = []
    i = 0
    n = len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            if pat.startswith("**", i):
                at_start = i == 0 or pat[i - 1] == "/"
                after = i + 2
                if at_start and (after == n or pat[after] == "/"):
                    if after == n:
                        out.append(".*")
                        i = after
                    else:
                        out.append("(?:.*/)?")
                        i = after + 1
                    continue
            out.append("[^/]*")
            while i < n and pat[i] == "*":
                i += 1
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pat.find("]", i + 2 if pat[i + 1 : i + 2] in ("!", "]") else i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pat[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pat[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


# the most globs a pattern's braces may stand for: ``{a,b}`` twenty times over is a
# million, which a model may write and no search needs
_MOST_GLOBS = 64


def _alternatives(pattern: str) -> list[str]:
    """*pattern* with each ``{a,b}`` written out as the globs it stands for, as ripgrep
    and most shells read it (``*.{ts,tsx}``: ``*.ts``, ``*.tsx``); a ``{`` never closed
    is a character. More than :data:`_MOST_GLOBS` is refused, before they are made."""
    start = pattern.find("{")
    if start == -1:
        return [pattern]
    depth, parts, part_at = 0, [], start + 1
    for i in range(start, len(pattern)):
        if pattern[i] == "{":
            depth += 1
        elif pattern[i] == "}":
            depth -= 1
            if depth == 0:
                parts.append(pattern[part_at:i])
                head, tail = pattern[:start], pattern[i + 1 :]
                choices = [choice for part in parts for choice in _alternatives(part)]
                rests = _alternatives(tail)
                if len(choices) * len(rests) > _MOST_GLOBS:
                    raise ToolError(
                        f"the glob's braces stand for more than {_MOST_GLOBS} globs; "
                        "give fewer alternatives"
                    )
                return [head + choice + rest for choice in choices for rest in rests]
        elif pattern[i] == "," and depth == 1:
            parts.append(pattern[part_at:i])
            part_at = i + 1
    return [pattern[: start + 1] + glob for glob in _alternatives(pattern[start + 1 :])]


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A glob of a search or a listing as a regex over a relative path: gitignore's
    forms, and ``{a,b}`` for either (``*.{ts,tsx}``, ``{pricing.py,settings.toml}``).

    Without a ``/`` (other than a trailing one) it matches a name at any depth;
    with one it is anchored at the start (each of ``{a,b}``'s globs on its own).
    """
    regexes = [_anchored(glob) for glob in _alternatives(pattern)]
    return re.compile(f"(?:{'|'.join(regexes)})\\Z", re.DOTALL)


def _anchored(glob: str) -> str:
    """One gitignore glob as a regex over a relative path, without its end."""
    pat = glob.rstrip("/") or glob
    prefix = "" if "/" in pat else "(?:.*/)?"
    return prefix + _translate(pat.lstrip("/"))


class IgnoreRules:
    """The lines of one ignore file, relative to the folder ``base`` (``""`` for the root)."""

    def __init__(self, base: str, lines: list[str]) -> None:
        self.base = base
        self.rules: list[tuple[re.Pattern[str], bool, bool]] = []
        for raw in lines:
            line = raw.rstrip("\n").rstrip("\r")
            if not line or line.startswith("#"):
                continue
            # Trailing spaces are dropped unless escaped.
            while line.endswith(" ") and not line.endswith("\\ "):
                line = line[:-1]
            negate = line.startswith("!")
            if negate or line.startswith("\\!") or line.startswith("\\#"):
                line = line[1:]
            dir_only = line.endswith("/")
            if not line.strip("/"):
                continue
            # (a .gitignore has no {a,b}: its braces are characters)
            self.rules.append((re.compile(_anchored(line) + r"\Z", re.DOTALL), negate, dir_only))

    @classmethod
    def load(cls, path: Path, base: str) -> IgnoreRules | None:
        """The rules of the file at *path*, or ``None`` when there is none."""
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        rules = cls(base, text.splitlines())
        return rules if rules.rules else None

    def verdict(self, rel: str, is_dir: bool) -> bool | None:
        """``True`` ignored, ``False`` re-included, ``None`` no line matched."""
        if self.base:
            if not rel.startswith(self.base + "/"):
                return None
            rel = rel[len(self.base) + 1 :]
        result = None
        for regex, negate, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            if regex.match(rel):
                result = not negate
        return result


def _ignored(stack: list[IgnoreRules], rel: str, is_dir: bool) -> bool:
    result = False
    for rules in stack:
        v = rules.verdict(rel, is_dir)
        if v is not None:
            result = v
    return result


def walk_files(
    root: Path,
    start: Path,
    *,
    hidden: bool = True,
    dirs: bool = False,
) -> Iterator[tuple[str, str]]:
    """Yield ``(path relative to root, absolute path)`` of every file under *start*.

    Skips what ``.gitignore`` files ignore (from *root* down), protected folders
    (``.git``, ``node_modules``, ``.harness``), symlinks, and with
    ``hidden=False`` names starting with ``.``. Each folder's entries come in name
    order. With *dirs*, folders are yielded too (with a trailing ``/``).
    """
    stack: list[IgnoreRules] = []
    exclude = IgnoreRules.load(root / ".git" / "info" / "exclude", "")
    if exclude:
        stack.append(exclude)
    top = IgnoreRules.load(root / ".gitignore", "")
    if top:
        stack.append(top)
    start_rel = "" if start == root else start.relative_to(root).as_posix()
    # The ignore files of the folders between the root and the start apply too.
    if start_rel:
        parts = start_rel.split("/")
        for depth in range(1, len(parts)):
            base = "/".join(parts[:depth])
            r = IgnoreRules.load(root / base / ".gitignore", base)
            if r:
                stack.append(r)
    if start.is_file():
        if not _ignored(stack, start_rel, False):
            yield start_rel, str(start)
        return
    yield from _walk(root, start, start_rel, stack, hidden, dirs)


def _walk(
    root: Path,
    folder: Path,
    rel: str,
    stack: list[IgnoreRules],
    hidden: bool,
    dirs: bool,
) -> Iterator[tuple[str, str]]:
    if rel:
        own = IgnoreRules.load(folder / ".gitignore", rel)
        if own:
            stack = [*stack, own]
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if name in PROTECTED_DIRS or (not hidden and name.startswith(".")):
            continue
        child = f"{rel}/{name}" if rel else name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if _ignored(stack, child, is_dir):
            continue
        if is_dir:
            if dirs:
                yield child + "/", entry.path
            yield from _walk(root, Path(entry.path), child, stack, hidden, dirs)
        elif not entry.is_symlink():
            yield child, entry.path
