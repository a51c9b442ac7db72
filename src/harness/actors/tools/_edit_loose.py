"""edit_file's tolerances and guards past the exact match, one helper each.

- :func:`loose_blocks`: an ``old_text`` whose lines equal a block of the file's lines
  once each line's leading and trailing whitespace is ignored (the indentation written
  differently, a tab for spaces, a trailing space); the edit applies at the one such
  block, its ``new_text`` re-indented as the old text was (:func:`reindent`).
- :func:`numbered_lines`: a ``new_text`` whose every line starts with a line number the
  old text does not have ("  13  \\"retries\\": 7"), which would write the numbers into
  the file.
- :func:`repeated_seam`: a ``new_text`` that ends with the line that already follows
  the replaced text (or starts with the one before it), so the file would hold it twice:
  the closing brace written again.
- :func:`repeated_block`: a ``new_text`` that ends with two or more whole lines that
  already follow the replaced text: the rest of a block written again after an
  ``old_text`` cut short, which the edit then keeps once.

Prior art: aider's edit blocks match "missing leading whitespace" the same way and
re-indent the replacement by the same prefix.
"""

from __future__ import annotations

import itertools
import re

__all__ = [
    "adjacent_twins",
    "is_closer",
    "loose_blocks",
    "numbered_lines",
    "reindent",
    "repeated_block",
    "repeated_seam",
    "unnumbered",
]


def _core(text: str) -> tuple[list[str], int, int]:
    """*text*'s lines (a last line end is no extra line), and how many blank lines it
    starts and ends with."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln.removesuffix("\r") for ln in lines]
    lead = next((i for i, ln in enumerate(lines) if ln.strip()), len(lines))
    trail = next((i for i, ln in enumerate(reversed(lines)) if ln.strip()), len(lines))
    return lines, lead, trail


def _line_starts(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each line of *text*, its line end left out."""
    spans = []
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        spans.append((pos, pos + len(body)))
        pos += len(line)
    return spans


def loose_blocks(original: str, old: str) -> list[tuple[int, int]]:
    """The blocks of *original*'s lines (``(first, last)`` line index, 0-based) equal
    to *old*'s lines with each line's leading and trailing whitespace ignored, and the
    blank lines at *old*'s ends left out."""
    lines, lead, trail = _core(old)
    wanted = [ln.strip() for ln in lines[lead : len(lines) - trail]]
    if not wanted:
        return []
    have = [ln.strip() for ln in original.splitlines()]
    n = len(wanted)
    return [(i, i + n - 1) for i in range(len(have) - n + 1) if have[i : i + n] == wanted]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def reindent(
    original: str, block: tuple[int, int], old: str, new: str
) -> tuple[int, int, str] | None:
    """The span of *original* the loose *block* covers (whole lines, their last line end
    kept) and *new* to put there: blank lines at its ends dropped as *old*'s were, and
    re-indented by the prefix the file's lines have that *old*'s lack (or the reverse),
    when that prefix is one for every line; line for line as the file's lines when it
    has as many lines as *old*, each indented as the old one. ``None`` when neither
    holds: its indentation cannot be known. Measured (half A's create-pricing-test), the
    1.5B model copied lines of a diff, one space in front of some, as old_text, and its
    new_text as written would have left the file indented wrong."""
    first, last = block
    spans = _line_starts(original)
    file_lines = original.splitlines()[first : last + 1]
    old_lines, lead, trail = _core(old)
    old_lines = old_lines[lead : len(old_lines) - trail]
    new_lines, new_lead, new_trail = _core(new)
    new_lines = new_lines[min(lead, new_lead) : len(new_lines) - min(trail, new_trail)]
    pairs = [(_indent(f), _indent(o)) for f, o in zip(file_lines, old_lines, strict=True)]
    pairs = [(f, o) for (f, o), line in zip(pairs, old_lines, strict=True) if line.strip()]
    added = {f.removesuffix(o) for f, o in pairs if f.endswith(o)}
    taken = {o.removesuffix(f) for f, o in pairs if o.endswith(f)}
    if len(added) == 1 and all(f.endswith(o) for f, o in pairs):
        prefix = added.pop()
        new_lines = [prefix + ln if ln.strip() else ln for ln in new_lines]
    elif (
        len(taken) == 1
        and all(o.endswith(f) for f, o in pairs)
        and all(ln.startswith(cut := next(iter(taken))) or not ln.strip() for ln in new_lines)
    ):
        new_lines = [ln.removeprefix(cut) for ln in new_lines]
    elif _same_shape(old_lines, new_lines):
        # line for line, each new line indented as the file's line it replaces
        new_lines = [
            _indent(f) + n.lstrip() if n.strip() else n
            for f, n in zip(file_lines, new_lines, strict=True)
        ]
    else:
        return None
    eol = "\r\n" if "\r\n" in original else "\n"
    start, end = spans[first][0], spans[last][1]
    if not new_lines:  # a deletion takes the lines' ends with them
        end = spans[last + 1][0] if last + 1 < len(spans) else len(original)
        return start, end, ""
    return start, end, eol.join(new_lines)


def _same_shape(old_lines: list[str], new_lines: list[str]) -> bool:
    """*new_lines* are as many as *old_lines*, each indented as the old line it replaces."""
    return len(old_lines) == len(new_lines) and all(
        _indent(o) == _indent(n) or not n.strip() for o, n in zip(old_lines, new_lines, strict=True)
    )


# a line number written before a line: "13  text", "13: text", "13 | text"
_NUMBER = re.compile(r"^\s*(\d+)(?:\s*[:|] ?|\s+)(?=\s*\S)")


def numbered_lines(original: str, start: int, old: str, new: str) -> list[int]:
    """The line numbers *new*'s lines start with, when every non-blank line of it has
    one, the numbers count up by one from near the line where the replaced text starts
    (at *start* of *original*), and neither *old* nor the file's lines there have them:
    numbers read off a listing, not text of the file. ``[]`` otherwise."""
    lines = [ln for ln in new.splitlines() if ln.strip()]
    found = [_NUMBER.match(ln) for ln in lines]
    if not lines or not all(found):
        return []
    numbers = [int(m.group(1)) for m in found if m]
    at = original.count("\n", 0, start) + 1
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))) or abs(numbers[0] - at) > 2:
        return []
    there = original[original.rfind("\n", 0, start) + 1 :].splitlines()[: len(lines)]
    if any(_NUMBER.match(ln) for ln in [*old.splitlines(), *there]):
        return []
    return numbers


def unnumbered(text: str) -> str:
    """*text* with the line number at the start of each line taken off."""
    return "\n".join(_NUMBER.sub("", line) for line in text.split("\n"))


# a line of closing brackets and punctuation only: "}", "},", "});", "]"
_CLOSER = re.compile(r"^\s*[\]\[(){}<>,;:.]+\s*$")


def repeated_seam(original: str, start: int, end: int, old: str, new: str) -> tuple[str, int, bool]:
    """The line *new* (replacing ``original[start:end]``, which is *old*) repeats across
    a seam, its 1-based number in the file, and whether it is the line after (else
    before): *new* ends with the whole line that follows the replaced text, or starts
    with the whole line before it, exactly and not blank, where *old* did not.
    ``("", 0, False)`` when there is none."""
    after = _following_line(original, end, new)
    if after is not None:
        line, number = after
        last = new.rstrip("\r\n").rsplit("\n", 1)[-1].removesuffix("\r")
        old_last = old.rstrip("\r\n").rsplit("\n", 1)[-1].removesuffix("\r")
        if line.strip() and last == line and old_last != line:
            return line, number, True
    before = _preceding_line(original, start, new)
    if before is not None:
        line, number = before
        first = new.lstrip("\r\n").split("\n", 1)[0].removesuffix("\r")
        old_first = old.lstrip("\r\n").split("\n", 1)[0].removesuffix("\r")
        if line.strip() and first == line and old_first != line:
            return line, number, False
    return "", 0, False


def repeated_block(original: str, end: int, old: str, new: str) -> tuple[int, int]:
    """How many whole lines (two or more, not all blank) *new* (replacing text of
    *original* that ends at *end*, which is *old*) ends with that already follow the
    replaced text, and the 1-based number of the first of them; ``(0, 0)`` when none.

    Measured (bench local-tasks, a rename in a shell script): old_text ran through the
    middle of a function and new_text went on to its end, so the file held the
    function's last four lines twice and no longer parsed; refused instead, the model
    sent the same edit until the repeat cap stopped it."""
    at = _following_at(original, end, new)
    if at is None:
        return 0, 0
    number = original.count("\n", 0, at) + 1
    following = [ln.removesuffix("\r") for ln in original[at:].split("\n")]
    written = [ln.removesuffix("\r") for ln in new.rstrip("\n").split("\n")]
    was = [ln.removesuffix("\r") for ln in old.rstrip("\n").split("\n")]
    # some line of new_text before them: a new_text that is only those lines is no repeat
    for k in range(min(len(written) - 1, len(following)), 1, -1):
        tail = written[-k:]
        if tail == following[:k] and was[-k:] != tail and any(ln.strip() for ln in tail):
            return k, number
    return 0, 0


def _following_at(original: str, end: int, new: str) -> int | None:
    """Where the line after the replaced text starts, when the text ends at a line's end
    (or at the start of the next, with *new* ending a line too), and there is one."""
    if end > 0 and original[end - 1] == "\n" and new.endswith("\n"):
        at = end
    elif original.startswith(("\n", "\r\n"), end) and not new.endswith("\n"):
        at = original.index("\n", end) + 1
    else:
        return None
    return at if at < len(original) else None


def _following_line(original: str, end: int, new: str) -> tuple[str, int] | None:
    """The whole line after the replaced text (:func:`_following_at`) and its number."""
    at = _following_at(original, end, new)
    if at is None:
        return None
    line = original[at:].split("\n", 1)[0].removesuffix("\r")
    return line, original.count("\n", 0, at) + 1


def _preceding_line(original: str, start: int, new: str) -> tuple[str, int] | None:
    """The whole line before the replaced text, when the text starts a line (or starts
    at the end of the line before, with *new* starting with a line end too)."""
    if start > 0 and original[start - 1] == "\n" and not new.startswith(("\n", "\r\n")):
        at = start - 1
    elif start > 0 and original.startswith(("\n", "\r\n"), start) and new.startswith("\n"):
        at = start
    else:
        return None
    head = original[:at].removesuffix("\r")
    if at == 0 or not head:
        return None
    line = head.rsplit("\n", 1)[-1]
    return line, head.count("\n") + 1


def is_closer(line: str) -> bool:
    """*line* holds closing brackets and punctuation only (no word)."""
    return bool(_CLOSER.match(line))


def adjacent_twins(original: str, line: str) -> bool:
    """*original* already has *line* twice in a row somewhere: a style (no indentation
    to tell one block's end from another's) where the repeat may be meant."""
    lines = [ln.removesuffix("\r") for ln in original.split("\n")]
    return any(a == line and b == line for a, b in itertools.pairwise(lines))
