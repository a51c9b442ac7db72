"""find_files and search_text.

search_text runs ``rg`` when it is on PATH and a Python walker otherwise; both
honour .gitignore, skip protected paths, binary files and files over
:data:`MAX_SEARCH_BYTES`, and print the same ``path:line:text`` lines in the same
(path, line) order, so the model cannot tell which one answered. The fallback
reads files up to :data:`MAX_FILE_BYTES` whole and streams larger ones line by
line; a file it skips for its size is named in the result. Set
``HARNESS_TOOLS_NO_RG=1`` to force the fallback.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

from harness.actors.tools._ignore import compile_glob, walk_files
from harness.actors.tools._jail import ToolError, Workspace, is_protected
from harness.actors.tools._result import Result
from harness.actors.tools._search_notes import (
    defined_at,
    elsewhere,
    program_like,
    spelled_like,
)

__all__ = [
    "MAX_MATCHES",
    "MAX_SEARCH_BYTES",
    "find_files",
    "lines_matching",
    "rg_path",
    "search_text",
    "word_uses",
]

MAX_MATCHES = 200
MAX_FOUND = 500
MAX_LINE = 300
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_SEARCH_BYTES = 256 * 1024 * 1024


def rg_path() -> str | None:
    """The ``rg`` to use, or ``None`` for the Python fallback."""
    if os.environ.get("HARNESS_TOOLS_NO_RG"):
        return None
    return shutil.which("rg")


def _start(ws: Workspace, path: str | None) -> tuple[Path, str]:
    """Where to search, and a line for the result when that is not where the call said:
    a folder that does not exist is searched for as the whole workspace. Measured (bench
    local-tasks, search-def): the 1.5B model searched a made-up ``src``, was told it does
    not exist, and answered ``src/parser.py``, a file that does not exist either."""
    start = ws.resolve(path or ".", allow_root=True)
    if not start.exists():
        return ws.root, f"({ws.rel(start)} does not exist, so the whole workspace was searched)\n"
    return Path(os.path.realpath(start)), ""


def _file_named(ws: Workspace, pattern: str) -> str | None:
    """The workspace file *pattern* names, when it is a file's path rather than text to
    find. Measured (bench local-terminal): asked "What does calc.py do?", the 1.5B model
    searched for the text "calc.py", found no line holding it, and answered that calc.py
    "does not contain any code"."""
    try:
        path = ws.resolve(pattern)
        return ws.rel(path) if path.is_file() else None
    except (ToolError, OSError):
        return None


def find_files(ws: Workspace, args: dict[str, Any]) -> Result:
    pattern: str = args["pattern"].strip()
    if not pattern:
        raise ToolError("pattern is empty; give a glob such as *.py")
    start, moved = _start(ws, args.get("path"))
    regex = compile_glob(pattern)
    base = "" if start == ws.root else ws.rel(start)
    found = []
    for rel, _ in walk_files(ws.root, start, hidden=True):
        if is_protected(rel):
            continue
        sub = rel[len(base) + 1 :] if base else rel
        if regex.match(sub):
            found.append(rel)
    found.sort()
    lines = found[:MAX_FOUND]
    if len(found) > MAX_FOUND:
        lines.append(f"[truncated: showing {MAX_FOUND} of {len(found)} files]")
    out = "\n".join(lines) if found else f"no files match {pattern}"
    return Result(moved + out, {"count": len(found), "truncated": len(found) > MAX_FOUND})


def _clip(text: str) -> str:
    text = text.rstrip("\r")
    return text if len(text) <= MAX_LINE else text[:MAX_LINE] + " …"


def _glob_subject(rel: str, base: str, single: bool) -> str:
    """What a --glob is matched against: the path below the search folder (as rg does)."""
    if single:
        return rel.rsplit("/", 1)[-1]
    return rel[len(base) + 1 :] if base else rel


def _read_small(path: str) -> bytes | None:
    """The bytes of a regular file up to :data:`MAX_FILE_BYTES`, else ``None``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
            return None
        data = os.read(fd, st.st_size + 1)
        if len(data) <= st.st_size:
            return data
        chunks = [data]  # it grew while we read: take the rest, within the limit
        while (chunk := os.read(fd, 65536)) and sum(map(len, chunks)) <= MAX_FILE_BYTES:
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _search_large(
    rel: str, path: str, rx: re.Pattern[str], needle: bytes | None, skipped: list[str]
) -> list[tuple[str, int, str]]:
    """Search a file too large to read whole, one line at a time."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return []
    hits: list[tuple[str, int, str]] = []
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return []
        if st.st_size > MAX_SEARCH_BYTES:
            skipped.append(f"{rel} ({st.st_size} bytes, over {MAX_SEARCH_BYTES})")
            return []
        os.set_blocking(fd, True)
        if b"\x00" in f.read(8192):
            return []
        f.seek(0)
        read = 0
        for n, raw in enumerate(f, 1):
            read += len(raw)
            if read > MAX_SEARCH_BYTES:
                skipped.append(f"{rel} (grew over {MAX_SEARCH_BYTES} bytes while searched)")
                break
            if needle is not None and needle not in raw:
                continue
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if rx.search(line):
                hits.append((rel, n, _clip(line)))
    return hits


def _search_file(
    rel: str, path: str, rx: re.Pattern[str], needle: bytes | None, skipped: list[str]
) -> list[tuple[str, int, str]]:
    raw = _read_small(path)
    if raw is None:
        return _search_large(rel, path, rx, needle, skipped)
    if (needle is not None and needle not in raw) or b"\x00" in raw[:8192]:
        return []
    text = raw.decode("utf-8", "replace")
    hits = []
    line = 1
    pos = 0
    last = -1
    for m in rx.finditer(text):
        if "\n" in m.group(0):
            # a match ran on into the next line ("[^a-z]" takes a line's end): rg never
            # gives one, so this file is searched as rg does, a line at a time
            return _search_lines(rel, text, rx)
        line += text.count("\n", pos, m.start())
        pos = m.start()
        if line == last:
            continue
        last = line
        begin = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.start())
        hits.append((rel, line, _clip(text[begin : end if end != -1 else len(text)])))
    return hits


def _search_lines(rel: str, text: str, rx: re.Pattern[str]) -> list[tuple[str, int, str]]:
    """The lines of *text* that *rx* matches within, each on its own."""
    return [(rel, n, _clip(line)) for n, line in enumerate(text.split("\n"), 1) if rx.search(line)]


def _python_search(
    ws: Workspace,
    start: Path,
    pattern: str,
    is_regex: bool,
    glob: str | None,
    skipped: list[str],
) -> list[tuple[str, int, str]]:
    try:
        rx = re.compile(pattern if is_regex else re.escape(pattern), re.MULTILINE)
    except re.error as exc:
        raise ToolError(f"bad regular expression: {exc}") from None
    needle = None if is_regex else pattern.encode("utf-8")
    glob_rx = compile_glob(glob) if glob else None
    base = "" if start == ws.root else ws.rel(start)
    single = start.is_file()
    files: list[tuple[str, str]] = []
    for rel, path in walk_files(ws.root, start, hidden=True):
        if is_protected(rel):
            continue
        if glob_rx is not None and not glob_rx.match(_glob_subject(rel, base, single)):
            continue
        files.append((rel, path))
    # Serial on purpose: a thread pool measured 2x slower here (the GIL, not the
    # disk, is the limit for many small files).
    return [hit for rel, path in files for hit in _search_file(rel, path, rx, needle, skipped)]


def _rg_search(
    rg: str, ws: Workspace, start: Path, pattern: str, is_regex: bool, glob: str | None
) -> list[tuple[str, int, str]] | None:
    cmd = [
        rg,
        "--null",
        "--line-number",
        "--with-filename",
        "--no-heading",
        "--color=never",
        "--hidden",
        "--no-require-git",
        "--no-ignore-global",
        "--no-messages",
        "--no-config",
        f"--max-filesize={MAX_SEARCH_BYTES}",
        "--max-columns=10000",
        "--max-columns-preview",
        "--glob=!.git/",
        "--glob=!node_modules/",
        "--glob=!.harness/",
    ]
    if not is_regex:
        cmd.append("--fixed-strings")
    # rg lets a --glob re-include ignored files; the glob is applied below instead.
    glob_rx = compile_glob(glob) if glob else None
    base = "" if start == ws.root else ws.rel(start)
    rel_start = ws.rel(start)
    cmd += ["--regexp", pattern, "--", rel_start]
    proc = subprocess.run(
        cmd, cwd=ws.root, capture_output=True, check=False, stdin=subprocess.DEVNULL
    )
    if proc.returncode == 2 and not proc.stdout:
        # rg refused (most often a regex Python accepts and Rust's engine does not,
        # such as a look-ahead): the Python search answers instead.
        return None
    hits: list[tuple[str, int, str]] = []
    for raw in proc.stdout.split(b"\n"):
        if not raw:
            continue
        name, _, rest = raw.partition(b"\x00")
        num, _, body = rest.partition(b":")
        rel = name.decode("utf-8", "replace")
        if rel.startswith("./"):
            rel = rel[2:]
        if is_protected(rel):
            continue
        if glob_rx is not None and not glob_rx.match(_glob_subject(rel, base, start.is_file())):
            continue
        try:
            line = int(num)
        except ValueError:
            continue
        hits.append((rel, line, _clip(body.decode("utf-8", "replace"))))
    return hits


def word_uses(ws: Workspace, word: str, limit: int = 5) -> list[tuple[str, int, str]]:
    """Up to *limit* lines of the workspace that use *word* as a whole word, as
    ``(path, line number, text stripped)`` (what search_text would find, ignored files
    left out)."""
    hits = lines_matching(ws, rf"\b{re.escape(word)}\b")
    return [(rel, n, text.strip()) for rel, n, text in hits[:limit]]


def lines_matching(
    ws: Workspace, pattern: str, glob: str | None = None
) -> list[tuple[str, int, str]]:
    """Every line of the workspace matching the regular expression *pattern*, in files
    matching *glob*, as ``(path, line number, text)`` in path order (what search_text
    would find, ignored files left out)."""
    rg = rg_path()
    hits = _rg_search(rg, ws, ws.root, pattern, True, glob) if rg else None
    if hits is None:
        hits = _python_search(ws, ws.root, pattern, True, glob, [])
    hits.sort(key=lambda h: (h[0], h[1]))
    return hits


def search_text(ws: Workspace, args: dict[str, Any], *, use_rg: bool | None = None) -> Result:
    pattern: str = args["pattern"]
    if not pattern:
        raise ToolError("pattern is empty")
    if "\x00" in pattern:  # no argument of a process can hold one
        raise ToolError("pattern contains a NUL byte")
    start, moved = _start(ws, args.get("path"))
    is_regex = bool(args.get("regex"))
    glob = args.get("glob") or None
    rg = rg_path() if use_rg is None or use_rg else None
    if is_regex:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ToolError(f"bad regular expression: {exc}") from None
    hits = _rg_search(rg, ws, start, pattern, is_regex, glob) if rg else None
    skipped: list[str] = []
    if hits is None:
        rg = None
        hits = _python_search(ws, start, pattern, is_regex, glob, skipped)
    hits.sort(key=lambda h: (h[0], h[1]))
    files = len({h[0] for h in hits})
    lines = [f"{rel}:{n}:{text}" for rel, n, text in hits[:MAX_MATCHES]]
    if len(hits) > MAX_MATCHES:
        lines.append(
            f"[truncated: showing {MAX_MATCHES} of {len(hits)} matching lines in {files} files]"
        )
    out = "\n".join(lines) if hits else f"no matches for {pattern!r}"
    if not is_regex:
        out = defined_at(pattern, hits) + out
    absent = None
    if not hits and (named := _file_named(ws, pattern)) is not None:
        out += f" (no line holds that text; {named} is a file: read it with read_file)"
    elif not hits:
        note, absent = elsewhere(pattern, glob, lambda rx: lines_matching(ws, rx))
        out += note
    if not is_regex and len({h[0] for h in hits}) <= 1:
        # a name two files hold is no misspelling: the workspace is not searched again
        out += spelled_like(pattern, lambda rx: lines_matching(ws, rx))
        out += program_like(pattern, hits)
    if skipped:
        out += f"\n[not searched, too large: {', '.join(skipped[:20])}]"
    return Result(
        moved + out,
        {
            "matches": len(hits),
            "files": files,
            "truncated": len(hits) > MAX_MATCHES,
            "engine": "rg" if rg else "python",
            "absent": absent,
        },
    )
