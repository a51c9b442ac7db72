"""The file tools other than read_file: write, edit, move, copy, delete, mkdir, list.

Each takes the :class:`Workspace` and the bound arguments and returns a
:class:`Result`; every refusal is a :class:`ToolError` with the sentence the
model sees. Writes go to a temporary file in the same folder and are renamed
into place, so a crash never leaves half a file.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from harness.actors.tools._checks import Notes, change_notes, deletion_that_breaks
from harness.actors.tools._edit import normalize_edits, plan_edits, renamed, unified_diff
from harness.actors.tools._jail import ToolError, Workspace, is_protected
from harness.actors.tools._makefile import is_makefile, tab_recipes
from harness.actors.tools._readfile import (
    VERSION_CHARS,
    buffer_file,
    file_version,
    open_regular,
)
from harness.actors.tools._result import Result
from harness.actors.tools._search import word_uses

__all__ = [
    "MAX_COPY_BYTES",
    "MAX_EDIT_BYTES",
    "MAX_WRITE_BYTES",
    "atomic_write",
    "copy_file",
    "create_dir",
    "delete_path",
    "edit_file",
    "list_dir",
    "move_file",
    "plan_edit",
    "plan_write",
    "read_text_for_change",
    "write_file",
]

MAX_WRITE_BYTES = 4 * 1024 * 1024
MAX_EDIT_BYTES = 8 * 1024 * 1024
# A copy writes what is already in the workspace, so it may be larger than one
# write; still bounded, as a file can grow while it is copied.
MAX_COPY_BYTES = 64 * 1024 * 1024
MAX_LIST = 1000


def read_text_for_change(
    real: Path, shown: str, buffer: str | None = None
) -> tuple[str | None, str | None]:
    """Current text and version of a file about to be changed (``None, None`` if absent);
    an existing file's text is *buffer* when given (the editor's, unsaved edits included).

    Refuses binary files, files over :data:`MAX_EDIT_BYTES` and files that are not
    valid UTF-8 (rewriting them through a lossy decode would corrupt them).
    """
    if not os.path.lexists(real):
        return None, None
    f, st = open_regular(real, shown) if buffer is None else buffer_file(buffer)
    with f:
        if st.st_size > MAX_EDIT_BYTES:
            raise ToolError(
                f"{shown} is {st.st_size} bytes, over the {MAX_EDIT_BYTES} byte limit for changes"
            )
        raw = f.read()
        version = file_version(f, st)
    if b"\x00" in raw[:8192]:
        raise ToolError(f"{shown} is a binary file; refusing to change it")
    try:
        return raw.decode("utf-8"), version
    except UnicodeDecodeError:
        raise ToolError(
            f"{shown} is not valid UTF-8; refusing to rewrite it (that would corrupt it)"
        ) from None


def atomic_write(real: Path, text: str, shown: str | None = None) -> None:
    """Write *text* to *real* through a temporary file and a rename (keeps the mode).

    Raises:
        ToolError: the system refused the write, in one sentence naming *shown* (the
            path as the model wrote it; default *real*), never the temporary file.
    """
    try:
        _write_through_temporary(real, text)
    except OSError as exc:
        raise ToolError(_refused(shown or str(real), exc)) from None


def _refused(shown: str, exc: OSError) -> str:
    why = {
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "its folder does not allow writing",
        errno.EPERM: "its folder does not allow writing",
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is used up",
    }.get(exc.errno or 0, (exc.strerror or str(exc)).lower())
    return f"{shown} was not written: {why}"


def _write_through_temporary(real: Path, text: str) -> None:
    real.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    try:
        mode = stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        pass
    # a short prefix: a name near the 255-byte limit must not fail on the temporary one
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name[:64]}.", suffix=".tmp", dir=real.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _target(ws: Workspace, path: str, *, alias: bool = True) -> tuple[Path, str]:
    lexical = ws.resolve(path, alias=alias)
    real = Path(os.path.realpath(lexical))
    return real, ws.rel(lexical)


def plan_write(ws: Workspace, args: dict[str, Any]) -> tuple[Path, str, str | None, str]:
    """Check a write_file call: ``(real path, shown path, old text or None, new text)``."""
    real, shown = _target(ws, args["path"], alias=False)
    content: str = args["content"]
    size = len(content.encode("utf-8", "surrogatepass"))
    if size > MAX_WRITE_BYTES:
        raise ToolError(f"content is {size} bytes, over the {MAX_WRITE_BYTES} byte write limit")
    if real.is_dir():
        raise ToolError(f"{shown} is a folder")
    old, version = read_text_for_change(real, shown, ws.buffer(real))
    if old is None:
        _refuse_nested_copy(ws, shown)
    want = args.get("version")
    if want and not re.fullmatch(rf"[0-9a-f]{{{VERSION_CHARS}}}", want):
        raise ToolError(
            f"version {want!r} is not one read_file gives; leave version out, or copy it "
            "from the last line of read_file's result"
        )
    if want:
        if version is None:
            raise ToolError(f"{shown} was deleted since it was read; read it again")
        if want != version:
            raise ToolError(
                f"{shown} changed since it was read (version differs); read it again first"
            )
    wrecks = "" if old is None else deletion_that_breaks(shown, old, content)
    if wrecks:
        raise ToolError(f"{wrecks}. Write the whole file as it should read, every line")
    return real, shown, old, _recipes(shown, _unfenced(shown, content)[0])[0]


# a Markdown fence line: "```python", "```"
_FENCE_LINE = re.compile(r"[ \t]*```[\w+.-]*[ \t]*")
_MARKDOWN = (".md", ".markdown", ".mdx", ".mdown", ".rmd")


def _unfenced(shown: str, text: str) -> tuple[str, str]:
    """*text* without the Markdown fence lines around it (```` ```python ```` first,
    ```` ``` ```` last, none between), and the note saying so; a Markdown file is left as
    written. Measured (bench local-tasks, the sixth and seventh batches): asked to write a
    test it had shown in a fenced block, the 1.5B model wrote the block, fences and all,
    and the file did not parse ("line 1: invalid syntax"); its edits to take them out
    copied them again."""
    lines = text.strip("\n").split("\n")
    if shown.lower().endswith(_MARKDOWN) or len(lines) < 3:
        return text, ""
    if not (_FENCE_LINE.fullmatch(lines[0]) and lines[-1].strip() == "```"):
        return text, ""
    if any(_FENCE_LINE.fullmatch(line) for line in lines[1:-1]):
        return text, ""  # fenced blocks inside: the file's own, or several files
    body = "\n".join(lines[1:-1]) + "\n"
    return body, "\nnote: the ``` lines around the content are Markdown's, not the file's: left out"


def _recipes(shown: str, text: str) -> tuple[str, str]:
    """*text* with a Makefile's space-indented recipe lines tab-indented, and the note
    saying so (``""`` when none was)."""
    if not is_makefile(shown):
        return text, ""
    text, mended = tab_recipes(text)
    if not mended:
        return text, ""
    lines = "line starts" if mended == 1 else f"{mended} lines start"
    return text, f"\nnote: make needs a tab before each recipe line: {lines} with one now"


def _refuse_nested_copy(ws: Workspace, shown: str) -> None:
    """Refuse creating ``project/calc.py`` in a workspace named ``project`` with no folder
    ``project``: the path was written from the workspace's name. When ``calc.py`` exists
    the write would leave a second, diverging copy of it; when it does not, a folder of
    the workspace's name inside it, which nothing asked for (measured, bench local-tasks,
    the sixth batch: asked to add an .editorconfig, the 1.5B model wrote
    ``project/.editorconfig``)."""
    head, _, rest = shown.partition("/")
    named_like_root = rest and head == ws.root.name and not os.path.lexists(ws.root / head)
    if not named_like_root:
        return
    if os.path.lexists(ws.root / rest):
        raise ToolError(
            f"{shown} would be a new copy of {rest}, which exists: paths are relative "
            f"to the workspace, so {rest} is the file; change it with edit_file"
        )
    raise ToolError(
        f"{shown} would make a folder {head}/ inside the workspace, which is {head}: paths "
        f"are relative to the workspace, so write {rest} (a folder {head}/ inside it, if "
        "one is wanted, is made with mkdir first)"
    )


def write_file(ws: Workspace, args: dict[str, Any]) -> Result:
    real, shown, old, new = plan_write(ws, args)
    if old == new:
        return Result(f"{shown} unchanged (same content)", {"paths": [shown], "changed": False})
    atomic_write(real, new, shown)
    n = new.count("\n") + (0 if new.endswith("\n") or not new else 1)
    verb = "created" if old is None else "wrote"
    fences = _unfenced(shown, args["content"])[1]
    tabs = _recipes(shown, args["content"])[1]
    notes = change_notes(ws, shown, old, new)
    data = {
        "paths": [shown],
        "changed": True,
        "created": old is None,
        "diff": unified_diff(old or "", new, shown),
    }
    return Result(f"{verb} {shown} ({n} lines){fences}{tabs}{notes.text}", _broke(data, notes))


def _broke(data: dict[str, Any], notes: Notes) -> dict[str, Any]:
    """*data* with ``unparsed``, the file's parse error as the change left it, and
    ``broke``, that error where the change brought it: the conversation's ending reads
    them (a run that leaves a file it changed not parsing is not done)."""
    if notes.broke:
        data = {**data, "broke": notes.broke}
    return {**data, "unparsed": notes.unparsed} if notes.unparsed else data


def plan_edit(ws: Workspace, args: dict[str, Any]) -> tuple[Path, str, str, str]:
    """Check an edit_file call: ``(real path, shown path, old text, new text)``."""
    return _planned(ws, args)[:4]


def _planned(ws: Workspace, args: dict[str, Any]) -> tuple[Path, str, str, str, list[str]]:
    """:func:`plan_edit`, and what the edits' matching tolerated (``_edit.plan_edits``)."""
    edits = normalize_edits(args)
    real, shown = _target(ws, args["path"])
    old, _ = read_text_for_change(real, shown, ws.buffer(real))
    if old is None:
        # "create it" only when no file of that name is elsewhere: a second copy would diverge
        raise ToolError(ws.missing(real, otherwise="use write_file to create it"))
    try:
        new, tolerated = plan_edits(old, edits)
        if not _recipes(shown, old)[1]:  # a file read so by make already is left so
            new, tabs = _recipes(shown, new)
            tolerated = [*tolerated, tabs.removeprefix("\nnote: ")] if tabs else tolerated
    except ToolError as exc:
        # a refused edit of a file that does not parse says where it breaks: measured, the
        # 1.5B model asked to fix config.json wrote numbered lines, was refused, and ended
        # on "now correctly formatted" having never seen the parse error
        broken = change_notes(ws, shown, None, old).text
        raise ToolError(f"{exc}{broken if 'does not parse' in broken else ''}") from None
    wrecks = deletion_that_breaks(shown, old, new)
    if wrecks:
        raise ToolError(
            f"{wrecks}. If those lines are not meant to go, give as old_text only the "
            "lines to change, and as new_text those lines as they should read"
        )
    return real, shown, old, new, tolerated


def edit_file(ws: Workspace, args: dict[str, Any]) -> Result:
    real, shown, old, new, tolerated = _planned(ws, args)
    if old == new:
        # a file that does not parse is said again: the edit that changed nothing fixed nothing
        note = change_notes(ws, shown, old, new).text
        note = note if "does not parse" in note else ""
        return Result(
            f"{shown} unchanged (the edits change nothing: new_text is the lines as they "
            f"should read, not as they are){note}",
            {"paths": [shown], "changed": False},
        )
    atomic_write(real, new, shown)
    diff = unified_diff(old, new, shown)
    # every edit is checked before the one write, so all of them were applied
    n = len(args.get("edits") or ()) or 1
    head = f"edited {shown} ({n} edit{'s' if n != 1 else ''} applied)"
    head += "".join(f"\nnote: {said}" for said in tolerated)
    note, shows = _still_used(ws, args)
    said = [name for name, _ in renamed(normalize_edits(args))]
    notes = change_notes(ws, shown, old, new, said)
    data = {"paths": [shown], "changed": True, "diff": diff, "edits": n, "shows": shows}
    return Result(f"{head}\n{diff}{note}{notes.text}", _broke(data, notes))


def _still_used(ws: Workspace, args: dict[str, Any]) -> tuple[str, list[str]]:
    """A note on each name the edit renamed that the workspace still uses, with the lines,
    and the files it quotes: measured, a 1.5B model asked to rename a function in two
    files renamed it in one (or in one line of one), saw "edited", and said it was done."""

    notes: list[str] = []
    shows: list[str] = []
    for name, to in renamed(normalize_edits(args)):
        uses = word_uses(ws, name)
        if uses:
            shown = "".join(f"\n  {path}:{n}: {text}" for path, n, text in uses)
            notes.append(f"\nnote: {name} (this edit renamed it to {to}) is still used:{shown}")
            shows += [path for path, _, _ in uses]
    return "".join(notes), list(dict.fromkeys(shows))


def _two(ws: Workspace, args: dict[str, Any]) -> tuple[Path, str, Path, str]:
    src = ws.resolve(args["source"])
    dst = ws.resolve(args["destination"])
    if not os.path.lexists(src):
        raise ToolError(ws.missing(src))
    if os.path.lexists(dst):
        raise ToolError(f"{ws.rel(dst)} already exists; delete it first or pick another name")
    if src.is_dir() and not src.is_symlink() and (dst == src or src in dst.parents):
        raise ToolError(f"cannot put {ws.rel(src)} inside itself")
    return src, ws.rel(src), dst, ws.rel(dst)


def _protected_inside(ws: Workspace, folder: Path) -> str | None:
    if not folder.is_dir() or folder.is_symlink():
        return None
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            why = is_protected(ws.rel(Path(dirpath) / name))
            if why:
                return f"{ws.rel(Path(dirpath) / name)}: {why}"
    return None


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _plain_tree(ws: Workspace, src: Path, verb: str) -> int:
    """The bytes under *src*, refusing anything but folders and regular files.

    Devices, FIFOs and sockets look like files by name and can be read forever
    (``/dev/zero``); symlinks would be copied pointing wherever they point."""
    total = 0
    entries = [src]
    if stat.S_ISDIR(os.lstat(src).st_mode):
        for dirpath, dirnames, filenames in os.walk(src):
            entries += [Path(dirpath) / n for n in dirnames + filenames]
    for entry in entries:
        st = os.lstat(entry)
        if stat.S_ISREG(st.st_mode):
            total += st.st_size
        elif not stat.S_ISDIR(st.st_mode):
            raise ToolError(
                f"refusing to {verb} {ws.rel(entry)}: it is {_kind(st.st_mode)}; "
                "only regular files and folders are copied or moved"
            )
    return total


def _copy_regular(src: Path, dst: Path, budget: list[int]) -> None:
    """Copy one file, checking its type on the opened descriptor, never past *budget*."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(src, flags)
    except OSError as exc:
        raise ToolError(f"cannot open {src.name}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ToolError(f"refusing to copy {src.name}: it is {_kind(st.st_mode)}")
        os.set_blocking(fd, True)
        out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(out, "wb") as g:
            while chunk := f.read(1 << 20):
                budget[0] -= len(chunk)
                if budget[0] < 0:
                    raise ToolError(f"the copy grew over the {MAX_COPY_BYTES} byte copy limit")
                g.write(chunk)
        os.chmod(dst, stat.S_IMODE(st.st_mode))
        os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))


def _copy(src: Path, dst: Path, budget: list[int]) -> None:
    if stat.S_ISDIR(os.lstat(src).st_mode):
        dst.mkdir()
        for entry in sorted(os.listdir(src)):
            _copy(src / entry, dst / entry, budget)
        shutil.copystat(src, dst, follow_symlinks=False)
    else:
        _copy_regular(src, dst, budget)


def move_file(ws: Workspace, args: dict[str, Any]) -> Result:
    src, s, dst, d = _two(ws, args)
    why = _protected_inside(ws, src)
    if why:
        raise ToolError(f"refusing to move {s}: it holds a protected path ({why})")
    _plain_tree(ws, src, "move")
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise ToolError(f"cannot move {s}: {exc.strerror}") from None
        _copy_into_place(ws, src, dst)
        (shutil.rmtree if src.is_dir() else os.unlink)(src)
    return Result(f"moved {s} to {d}", {"paths": [s, d], "changed": True})


def _copy_into_place(ws: Workspace, src: Path, dst: Path) -> None:
    size = _plain_tree(ws, src, "copy")
    if size > MAX_COPY_BYTES:
        raise ToolError(
            f"{ws.rel(src)} holds {size} bytes, over the {MAX_COPY_BYTES} byte copy limit"
        )
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        _copy(src, dst, [MAX_COPY_BYTES])
    except BaseException:
        if dst.is_dir() and not dst.is_symlink():
            shutil.rmtree(dst, ignore_errors=True)
        elif os.path.lexists(dst):
            os.unlink(dst)
        raise


def copy_file(ws: Workspace, args: dict[str, Any]) -> Result:
    src, s, dst, d = _two(ws, args)
    why = _protected_inside(ws, src)
    if why:
        raise ToolError(f"refusing to copy {s}: it holds a protected path ({why})")
    _copy_into_place(ws, src, dst)
    return Result(f"copied {s} to {d}", {"paths": [d], "changed": True})


def delete_path(ws: Workspace, args: dict[str, Any]) -> Result:
    target = ws.resolve(args["path"])
    shown = ws.rel(target)
    if not os.path.lexists(target):
        raise ToolError(f"{shown} does not exist")
    why = _protected_inside(ws, target)
    if why:
        raise ToolError(f"refusing to delete {shown}: it holds a protected path ({why})")
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
        return Result(f"deleted folder {shown}", {"paths": [shown], "changed": True})
    target.unlink()
    return Result(f"deleted {shown}", {"paths": [shown], "changed": True})


def create_dir(ws: Workspace, args: dict[str, Any]) -> Result:
    target = ws.resolve(args["path"])
    shown = ws.rel(target)
    if target.is_dir():
        return Result(f"{shown} already exists", {"paths": [], "changed": False})
    if os.path.lexists(target):
        raise ToolError(f"{shown} exists and is not a folder")
    target.mkdir(parents=True, exist_ok=True)
    return Result(f"created folder {shown}", {"paths": [], "changed": True})


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def list_dir(ws: Workspace, args: dict[str, Any]) -> Result:
    target = ws.resolve(args.get("path") or ".", allow_root=True)
    shown = ws.rel(target)
    if not target.is_dir():
        raise ToolError(f"{shown} is not a folder" if target.exists() else ws.missing(target))
    entries = []
    hidden = []
    with os.scandir(target) as it:
        for entry in it:
            rel = ws.rel(Path(entry.path))
            if is_protected(rel):
                hidden.append(entry.name)
                continue
            entries.append(entry)
    entries.sort(key=lambda e: (not e.is_dir(follow_symlinks=False), e.name))
    lines = []
    for entry in entries[:MAX_LIST]:
        if entry.is_symlink():
            lines.append(f"{entry.name} -> {os.readlink(entry.path)}")
        elif entry.is_dir():
            lines.append(f"{entry.name}/")
        else:
            try:
                lines.append(f"{entry.name}  ({_size(entry.stat().st_size)})")
            except OSError:
                lines.append(entry.name)
    if len(entries) > MAX_LIST:
        lines.append(f"[truncated: showing {MAX_LIST} of {len(entries)} entries]")
    if hidden:
        lines.append(f"(protected, not listed: {', '.join(sorted(hidden))})")
    header = f"{shown}/" if shown != "." else "./"
    body = "\n".join(lines) if lines else "(empty folder)"
    return Result(f"{header}\n{body}", {"path": shown, "count": len(entries)})
