"""read_file: numbered, hashed lines, paged, without ever reading more than a page needs."""

from __future__ import annotations

import codecs
import hashlib
import io
import os
import stat
import zlib
from pathlib import Path
from typing import Any, BinaryIO

from harness.actors.tools._jail import ToolError

__all__ = [
    "FULL_HASH_LIMIT",
    "MAX_CHARS",
    "MAX_LINES",
    "VERSION_CHARS",
    "ReadResult",
    "buffer_file",
    "file_version",
    "line_hash",
    "open_regular",
    "read_file",
]

MAX_LINES = 400
MAX_CHARS = 20_000
# Files up to this size are hashed whole for their version; bigger ones by size,
# mtime, inode and their first 64 KiB, so a first page of a huge file stays cheap.
FULL_HASH_LIMIT = 8 * 1024 * 1024
_SNIFF = 8192
_CHUNK = 64 * 1024


def line_hash(text: str) -> str:
    """The 2-character tag of a line (``a3``)."""
    return format(zlib.crc32(text.encode("utf-8", "surrogatepass")) & 0xFF, "02x")


def open_regular(path: Path, what: str) -> tuple[BinaryIO, os.stat_result]:
    """Open *path* for reading only if it is a regular file.

    ``O_NONBLOCK`` makes opening a FIFO return at once instead of waiting for a
    writer; the ``fstat`` of the open descriptor then refuses it, so nothing can
    swap the file for a FIFO between a check and the open.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ToolError(f"{what} does not exist") from None
    except IsADirectoryError:
        raise ToolError(f"{what} is a folder; use list_dir") from None
    except OSError as exc:
        raise ToolError(f"cannot open {what}: {exc.strerror}") from None
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        os.close(fd)
        raise ToolError(f"{what} is a folder; use list_dir")
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "not a regular file"
        raise ToolError(f"{what} is {kind} (device, socket or pipe); refusing to read it")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb"), st


def buffer_file(text: str) -> tuple[BinaryIO, os.stat_result]:
    """*text* as an open regular file of its UTF-8 bytes (an editor's buffer), for the
    readers that take one from :func:`open_regular`."""
    data = text.encode("utf-8", "surrogatepass")
    st = os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, len(data), 0, 0, 0))
    return io.BufferedReader(io.BytesIO(data)), st


VERSION_CHARS = 16
"""Hex digits of a version: 64 bits tell a changed file apart, and every read shows it, so
a whole SHA-256 cost each read 30 more tokens (and small models recited it as news)."""


def file_version(f: BinaryIO, st: os.stat_result) -> str:
    """The version of an open file (see :data:`FULL_HASH_LIMIT`): the first
    :data:`VERSION_CHARS` hex digits of its SHA-256."""
    f.seek(0)
    h = hashlib.sha256()
    if st.st_size <= FULL_HASH_LIMIT:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    else:
        h.update(f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:".encode())
        h.update(f.read(_CHUNK))
    f.seek(0)
    return h.hexdigest()[:VERSION_CHARS]


class ReadResult:
    """What read_file produced: the text for the model and the structured extras."""

    def __init__(self, output: str, data: dict[str, Any]) -> None:
        self.output = output
        self.data = data


def _read_line(f: BinaryIO) -> tuple[bytes, bool]:
    """One chunk of the current line and whether the line ended in it."""
    chunk = f.readline(_CHUNK)
    return chunk, chunk.endswith(b"\n") or not chunk


def _skip_lines(f: BinaryIO, count: int) -> int:
    """Skip *count* lines; returns how many were really there."""
    done = 0
    while done < count:
        chunk, ended = _read_line(f)
        if not chunk:
            break
        if ended:
            done += 1
        elif len(chunk) < _CHUNK:
            done += 1  # last line without a newline
    return done


def _read_whole(
    f: BinaryIO, st: os.stat_result, shown: str, *, max_lines: int, max_chars: int
) -> ReadResult | None:
    """The common case in one read: a small, valid UTF-8 file that fits one page.

    Gives exactly what the line-by-line reader gives for it (``None`` for anything
    else): that reader decodes line by line, never pages such a file, and treats a
    last line without a newline as a whole line.
    """
    if st.st_size > max_chars * 4:
        return None
    f.seek(0)
    data = f.read(max_chars * 4 + 1)
    if len(data) > max_chars * 4:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) >= max_chars:
        return None
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    if len(parts) > max_lines:
        return None
    lines = []
    for n, part in enumerate(parts, 1):
        segment = part.rstrip("\r")
        lines.append(f"{n}:{line_hash(segment)}|{segment}")
    version = hashlib.sha256(data).hexdigest()[:VERSION_CHARS]
    out = lines or ["(empty file)" if st.st_size == 0 else "(no lines in that range)"]
    data_out: dict[str, Any] = {
        "path": shown,
        "version": version,
        "truncated": False,
        "next_read": None,
        "size": st.st_size,
        "utf8": True,
    }
    return ReadResult("\n".join([*out, f"version: {version}"]), data_out)


def read_file(
    real: Path,
    shown: str,
    *,
    start_line: int | None = None,
    end_line: int | None = None,
    next_read: dict[str, int] | None = None,
    max_lines: int = MAX_LINES,
    max_chars: int = MAX_CHARS,
    text: str | None = None,
) -> ReadResult:
    """Read a page of *real* (shown to the model as *shown*); of *text* instead of the
    disk when given (the editor's buffer of the file), paged and versioned the same."""
    f, st = open_regular(real, shown) if text is None else buffer_file(text)
    with f:
        head = f.read(_SNIFF)
        if b"\x00" in head:
            raise ToolError(f"{shown} is a binary file ({st.st_size} bytes); refusing to read it")
        if start_line is None and end_line is None and not next_read:
            whole = _read_whole(f, st, shown, max_lines=max_lines, max_chars=max_chars)
            if whole is not None:
                return whole
        version = file_version(f, st)
        column = 0
        if next_read:
            start = int(next_read.get("line", 1))
            column = int(next_read.get("column", 0) or 0)
        else:
            start = start_line or 1
        if end_line is not None and end_line < start:
            raise ToolError(f"end_line {end_line} is before start line {start}")
        skipped = _skip_lines(f, start - 1)
        lines: list[str] = []
        chars = 0
        replaced = False
        lineno = start
        stop: dict[str, int] | None = None
        while True:
            if end_line is not None and lineno > end_line:
                break
            if len(lines) >= max_lines or chars >= max_chars:
                if f.peek(1):  # type: ignore[attr-defined]
                    stop = {"line": lineno, "column": 0}
                break
            decoder = codecs.getincrementaldecoder("utf-8")("replace")
            text = ""
            raw_any = False
            ended = False
            want = column + (max_chars - chars)
            while len(text) < want + 1:
                chunk, ended = _read_line(f)
                if not chunk:
                    ended = True
                    break
                raw_any = True
                piece = decoder.decode(chunk, final=ended)
                if "\ufffd" in piece and b"\xef\xbf\xbd" not in chunk:
                    replaced = True
                text += piece
                if ended:
                    break
            if not raw_any:
                break
            full_line = ended
            text = text.rstrip("\n").rstrip("\r") if full_line else text
            segment = text[column:]
            if lines and column == 0 and len(segment) > max_chars - chars:
                # Start the next page at this line rather than split it.
                stop = {"line": lineno, "column": 0}
                break
            if len(segment) > max_chars - chars or not full_line:
                room = max(max_chars - chars, 1)
                segment = segment[:room]
                stop = {"line": lineno, "column": column + len(segment)}
                lines.append(f"{lineno}:{line_hash(segment)}|{segment}")
                chars += len(segment)
                break
            prefix = "" if column == 0 else f"(continued from column {column}) "
            lines.append(f"{lineno}:{line_hash(segment)}|{prefix}{segment}")
            chars += len(segment)
            column = 0
            lineno += 1
        if start > 1 and skipped < start - 1:
            raise ToolError(f"{shown} has only {skipped} lines; start line {start} is past the end")
    out = lines or ["(empty file)" if st.st_size == 0 else "(no lines in that range)"]
    notes = []
    if replaced:
        notes.append("note: the file is not valid UTF-8; undecodable bytes are shown as \ufffd")
    if stop is not None:
        notes.append(
            f"[truncated at {max_lines} lines / {max_chars} characters; continue with "
            f'next_read={{"line": {stop["line"]}, "column": {stop["column"]}}}]'
        )
    notes.append(f"version: {version}")
    data: dict[str, Any] = {
        "path": shown,
        "version": version,
        "truncated": stop is not None,
        "next_read": stop,
        "size": st.st_size,
        "utf8": not replaced,
    }
    return ReadResult("\n".join(out + notes), data)
