"""Planning file changes without making them: edit_file's rules, and unified diffs.

Both the tools and their previews go through here, so what the approval shows is
exactly what the tool then writes.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.actors.tools._edit_loose import (
    adjacent_twins,
    is_closer,
    loose_blocks,
    numbered_lines,
    reindent,
    repeated_block,
    repeated_seam,
    unnumbered,
)
from harness.actors.tools._jail import ToolError
from harness.actors.tools._readfile import line_hash, open_regular

__all__ = [
    "apply_edits",
    "normalize_edits",
    "plan_edits",
    "renamed",
    "unified_diff",
    "unread_edit",
]

_MAX_DIFF_CHARS = 60_000

# A file this small is shown whole when an old_text is not found in it: measured, a 1.5B
# model that had not read the file sent invented old_text four times when told only the
# closest line; the text itself is what it can copy from.
_SHOW_WHOLE_LINES = 40
_SHOW_WHOLE_CHARS = 4000

# read_file's line tags ("12:a3|"), which models copy into old_text with the line
_LINE_TAG = re.compile(r"^\d+:[0-9a-f]{2}\|", re.M)


def unified_diff(old: str, new: str, path: str) -> str:
    """A unified diff of *old* → *new* labelled with *path* (capped in size)."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}" if old or new else path,
        tofile=f"b/{path}",
    )
    out = []
    size = 0
    for line in lines:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
        size += len(line)
        if size > _MAX_DIFF_CHARS:
            out.append("... (diff cut)\n")
            break
    return "".join(out)


def normalize_edits(args: dict[str, Any]) -> list[tuple[str, str]]:
    """The edits of an edit_file call, from either form; refuses a mix or nothing."""
    single = "old_text" in args or "new_text" in args
    edits = args.get("edits")
    if single and edits:
        raise ToolError("give either old_text/new_text or edits, not both")
    if single:
        if "old_text" not in args or "new_text" not in args:
            raise ToolError("old_text and new_text go together")
        return [(args["old_text"], args["new_text"])]
    if not edits:
        raise ToolError("nothing to do: give old_text and new_text, or edits")
    return [(e["old_text"], e["new_text"]) for e in edits]


def _occurrences(text: str, needle: str) -> list[int]:
    found = []
    start = text.find(needle)
    while start != -1:
        found.append(start)
        start = text.find(needle, start + 1)
    return found


def _untagged(text: str) -> str | None:
    """*text* without read_file's line tags, when every line has one; else ``None``."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines or not all(_LINE_TAG.match(ln) for ln in lines):
        return None
    return _LINE_TAG.sub("", text)


def _not_found(text: str, needle: str) -> str:
    """What to copy from instead: a small file whole (tagged as read_file shows it, since
    measured, lines of dashes around it were copied into the next old_text), else the
    lines closest to *needle*'s first line."""
    if text.count("\n") <= _SHOW_WHOLE_LINES and len(text) <= _SHOW_WHOLE_CHARS:
        lines = "\n".join(f"{i}:{line_hash(ln)}|{ln}" for i, ln in enumerate(text.splitlines(), 1))
        return (
            "; copy old_text exactly from the file, which is now (each line's N:HH| tag is "
            f"not part of the text):\n{lines}"
        )
    return _near_matches(text, needle)


# A file larger than this is never read to check an edit of it the model has not read:
# such an edit is refused (the model reads the file first, as before).
_UNREAD_MAX_BYTES = 256 * 1024


def unread_edit(real: Path, shown: str, args: Mapping[str, Any]) -> str | None:
    """Why an ``edit_file`` call of a file the model has not read may not run (a clause,
    no full stop), or ``None`` when it may: every ``old_text`` is found once in the file
    as :func:`plan_edits` finds it (exactly, or one block with only indentation and
    spacing different), so it is text the file holds, not text the model imagined, and
    the edit replaces only that (the permission rules still decide whether it runs).

    *real* is the file (resolved through the workspace's jail), *shown* its path as the
    model wrote it. A refusal shows nothing of the file: measured (bench local), shown
    the file by the refusal of an edit written from its belief, the 1.5B model's next
    edit replaced the whole file with that belief (the read it is told to make first
    drops the refused edit from what it reads).
    """
    text = _unread_text(real, shown)
    try:
        if text is not None:
            apply_edits(text, normalize_edits(dict(args)))
            return None
    except (ToolError, KeyError, TypeError):
        pass
    return (
        f"{shown} was not read in this session, and edit_file changes a file not read only "
        "when each old_text is found in it exactly once: read it first with read_file, then "
        "edit it"
    )


def _unread_text(real: Path, shown: str) -> str | None:
    """The text of *real* when it is a regular UTF-8 text file small enough to check an
    edit against (a FIFO or device is refused on its open descriptor), else ``None``."""
    try:
        f, st = open_regular(real, shown)
        with f:
            raw = f.read(_UNREAD_MAX_BYTES + 1) if st.st_size <= _UNREAD_MAX_BYTES else b""
    except (ToolError, OSError):
        return None
    if not raw or len(raw) > _UNREAD_MAX_BYTES or b"\x00" in raw:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _near_matches(text: str, needle: str) -> str:
    """The lines of *text* closest to *needle*'s first line, to help the model retry."""
    first = next((ln.strip() for ln in needle.splitlines() if ln.strip()), "")
    if not first:
        return ""
    lines = text.splitlines()
    stripped = [ln.strip() for ln in lines]
    close = difflib.get_close_matches(first, stripped, n=3, cutoff=0.6)
    if not close:
        return ""
    shown = []
    for cand in close:
        for i, ln in enumerate(stripped):
            if ln == cand:
                shown.append(f"  line {i + 1}: {lines[i].strip()[:200]}")
                break
    return "; the closest lines are:\n" + "\n".join(shown)


def _matching_lines(original: str, found: Sequence[int]) -> str:
    """The lines that hold each match, numbered: what a model needs to write an
    old_text that matches once (measured: told only "include more text", a 1.5B model
    gave up every time)."""
    lines = original.splitlines()
    numbers = sorted({original.count("\n", 0, pos) for pos in found[:10]})
    shown = [f"  line {i + 1}: {lines[i][:200]}" for i in numbers if i < len(lines)]
    if len(found) > 10:
        shown.append(f"  ... and {len(found) - 10} more")
    return "\n".join(shown)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def renamed(edits: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(old name, new name)`` of each edit that renames: the one name it takes out is
    replaced by one new name (``from util import helper`` to ``... compute``). A word
    that stands only as a setting's value (``"info"``, ``level: info``) is a value
    changed, not a name: measured, told that ``info`` "is still used" in two other
    files, a 1.5B model asked to set one log level went on to edit them."""
    pairs = []
    for old, new in edits:
        gone = set(_NAME.findall(old)) - set(_NAME.findall(new))
        came = set(_NAME.findall(new)) - set(_NAME.findall(old))
        if len(gone) == 1 and len(came) == 1:
            name = gone.pop()
            if not _only_a_value(old, name):
                pairs.append((name, came.pop()))
    return pairs


def _only_a_value(text: str, word: str) -> bool:
    """Whether every use of *word* in *text* is a whole quoted string or the value that
    ends a line after ``=`` or ``:``."""
    w = re.escape(word)
    uses = len(re.findall(rf"\b{w}\b", text))
    values = len(re.findall(rf"([\"']){w}\1|[:=][ \t]*{w}[ \t]*[,;]?[ \t]*$", text, re.M))
    return uses == values


def apply_edits(original: str, edits: Sequence[tuple[str, str]]) -> str:
    """Apply every edit to *original* at once, or raise :class:`ToolError` naming which
    failed (:func:`plan_edits`, without what it tolerated)."""
    return plan_edits(original, edits)[0]


def plan_edits(original: str, edits: Sequence[tuple[str, str]]) -> tuple[str, list[str]]:
    """Apply every edit to *original* at once: the new text, and a note on each thing
    tolerated or let through (said in the tool's result); or raise :class:`ToolError`
    naming which edit failed.

    Each ``old_text`` must occur exactly once in the original (not in the result
    of earlier edits), and no two may overlap. A file with CRLF line ends also
    accepts an ``old_text`` written with plain ``\\n``, and an ``old_text`` whose every
    line carries read_file's ``12:a3|`` tag is read without them (and so is its
    ``new_text``, when it has them too). An ``old_text`` found nowhere whose lines equal
    one block of the file's lines, each line's leading and trailing whitespace ignored,
    is applied there, its ``new_text`` re-indented alike. A ``new_text`` whose lines
    start with line numbers is refused, and so is one that repeats a closing line
    across the edit's seam (:func:`_seam`); one that ends with two or more lines that
    already follow the old text has them once (:func:`repeated_block`).
    """
    crlf = "\r\n" in original
    spans: list[tuple[int, int, str, int]] = []
    notes: list[str] = []
    for n, (old, new) in enumerate(edits, 1):
        label = f"edit {n}" if len(edits) > 1 else "the edit"
        if old == "":
            raise ToolError(f"{label}: old_text is empty; it must be text found once in the file")
        found = _occurrences(original, old)
        if not found and crlf and "\n" in old and "\r\n" not in old:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
            found = _occurrences(original, old)
        bare = _untagged(old) if not found else None
        if bare:
            # copied with read_file's line tags: the text is the rest of each line
            old, new = bare, _untagged(new) or new
            found = _occurrences(original, old)
        if not found:
            span = _loose(original, old, new, label)
            notes.append(span[3])
            start, end, new = span[:3]
        elif len(found) > 1:
            raise ToolError(
                f"{label}: old_text matches {len(found)} times; use the whole line (or more) "
                f"of the one to change as old_text, so it matches exactly once:\n"
                + _matching_lines(original, found)
            )
        else:
            start, end = found[0], found[0] + len(old)
        tagged = _untagged(new) if _untagged(original[start:end] or old) is None else None
        if tagged is not None:
            # read_file's tags copied into new_text alone: never text of the file
            new = tagged
            notes.append(f"{label}: read_file's N:HH| tags taken off new_text's lines")
        numbers = numbered_lines(original, start, old, new)
        if numbers:
            same = _bare_lines(unnumbered(new)) == _bare_lines(old)
            raise ToolError(
                f"{label}: new_text's lines start with line numbers ({_listed(numbers)}) "
                "that are not in the file; write new_text as the lines should read, "
                "without numbers"
                + ("; without them it is old_text again, which changes nothing" if same else "")
            )
        count, first = repeated_block(original, end, original[start:end], new)
        if count:
            # the rest of a block written again after an old_text cut short: taken once
            new = _without_last_lines(new, count)
            notes.append(
                f"{label}: new_text ended with lines {first}-{first + count - 1} of the file, "
                "which already follow old_text; they are kept once"
            )
        spans.append((start, end, new, n))
    spans.sort()
    for (a_start, a_end, _, a_n), (b_start, _, _, b_n) in itertools.pairwise(spans):
        if b_start < a_end:
            first, second = sorted((a_n, b_n))
            raise ToolError(f"edit {first} and edit {second} overlap; merge them into one edit")
        del a_start
    old_of = {n: original[start:end] for start, end, _, n in spans}
    out = []
    pos = 0
    for start, end, new, n in spans:
        label = f"edit {n}" if len(edits) > 1 else "the edit"
        notes += _seam(original, start, end, old_of[n], new, label)
        out.append(original[pos:start])
        out.append(new)
        pos = end
    out.append(original[pos:])
    return "".join(out), [note for note in notes if note]


def _without_last_lines(text: str, count: int) -> str:
    """*text* without its last *count* lines, ending as it ended (with a line end or
    not)."""
    ends = text.endswith("\n")
    lines = (text[:-1] if ends else text).split("\n")
    return "\n".join(lines[:-count]) + ("\n" if ends else "")


def _bare_lines(text: str) -> list[str]:
    """*text*'s non-blank lines, each without its leading and trailing whitespace."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def _listed(numbers: Sequence[int]) -> str:
    shown = ", ".join(str(i) for i in numbers[:5])
    return shown + (", ..." if len(numbers) > 5 else "")


def _loose(original: str, old: str, new: str, label: str) -> tuple[int, int, str, str]:
    """The one block *old* matches with each line's whitespace ignored: its span, *new*
    re-indented for it, and the note saying so; else the refusal of an old text not
    found (or found at several blocks, named, or at one whose indentation differs from
    *old*'s unevenly, so that *new*'s cannot be known)."""
    blocks = loose_blocks(original, old)
    if len(blocks) == 1:
        ((first, last),) = blocks
        where = f"line {first + 1}" if first == last else f"lines {first + 1}-{last + 1}"
        planned = reindent(original, blocks[0], old, new)
        if planned is None:
            raise ToolError(
                f"{label}: old_text was not found in the file ({where} match it with other "
                "indentation, not shifted alike on every line, so new_text's indentation "
                f"is unknown){_not_found(original, old)}"
            )
        start, end, text = planned
        return (
            start,
            end,
            text,
            f"{label}: old_text matched {where} ignoring indentation and spacing",
        )
    if blocks:
        lines = original.splitlines()
        shown = "\n".join(f"  line {a + 1}: {lines[a][:200]}" for a, _ in blocks[:10])
        raise ToolError(
            f"{label}: old_text was not found exactly, and ignoring indentation it matches "
            f"{len(blocks)} places; copy it exactly from the file, with the indentation "
            f"of the one to change:\n{shown}"
        )
    raise ToolError(f"{label}: old_text was not found in the file{_not_found(original, old)}")


def _seam(original: str, start: int, end: int, old: str, new: str, label: str) -> list[str]:
    """The repeat across an edit's seam (:func:`repeated_seam`): refused when the line
    is closing brackets only (the brace written again; in an indented file two closers
    alike in a row are never right), unless the file already has such twins in a row;
    any other line said in a note, as a repeated statement may be meant."""
    line, number, after = repeated_seam(original, start, end, old, new)
    if not line:
        return []
    if is_closer(line) and not adjacent_twins(original, line):
        side, end_of = ("after", "end") if after else ("before", "start")
        raise ToolError(
            f"{label}: new_text {'ends' if after else 'starts'} with {line.strip()!r}, "
            f"the line already {side} old_text in the file (line {number}), so the file would "
            f"hold it twice; leave that line out of new_text, or add it to the {end_of} of "
            "old_text too"
        )
    return [f"{label}: line {number}, {line.strip()[:80]!r}, is now there twice in a row"]
