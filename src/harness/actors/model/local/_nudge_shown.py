"""The nudge rule for a fix shown and not made (``shown-fix``): the reply writes a file it
read back in a code block, changed in a line or two, instead of calling edit_file. The
edit of those lines, as the block writes them, is written as the call."""

from __future__ import annotations

import difflib
import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import CODE_BLOCK, Nudge, edit_arguments
from harness.actors.model.local._nudge_changes import asks_change
from harness.actors.model.local._nudge_figures import figures_in
from harness.actors.model.local._turn import Turn, named_starts

__all__ = ["ShownFix", "shown_fix"]

# the most lines a shown fix changes; it keeps twice as many of the file as it changes
_MOST_CHANGED = 2
# how alike a changed line is to the line it replaces: a change of it, not a new line
_ALIKE = 0.5


def _changed(file: list[str], block: list[str]) -> list[tuple[int, str]] | None:
    """The lines of *file* (by index) that *block* writes otherwise, each with its new
    text, where *block* is a stretch of *file* (lines before and after it left out) with
    at most two lines changed, each still like the line it replaces, and no line added
    or taken away, and twice as many lines kept as changed; else ``None``. A line changed
    in its spaces alone is no change."""
    same = [line.rstrip() for line in file]
    shown = [line.rstrip() for line in block]
    ops = difflib.SequenceMatcher(None, same, shown, autojunk=False).get_opcodes()
    # the lines of the file before and after the stretch the block shows
    while ops and ops[0][0] == "delete":
        ops.pop(0)
    while ops and ops[-1][0] == "delete":
        ops.pop()
    changed: list[tuple[int, str]] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        if tag != "replace" or i2 - i1 != j2 - j1:
            return None  # a line added or taken away: a rewrite, or lines left out
        for i, j in zip(range(i1, i2), range(j1, j2), strict=True):
            if same[i].strip() == shown[j].strip():
                continue
            if difflib.SequenceMatcher(None, same[i], shown[j]).ratio() < _ALIKE:
                return None
            changed.append((i, block[j].rstrip()))
    kept = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    if not changed or len(changed) > _MOST_CHANGED or kept < 2 * len(changed):
        return None
    return changed


def _edit(file: list[str], changed: list[tuple[int, str]]) -> list[dict[str, str]]:
    """The edits that make *changed* of *file*: each line whole, with the lines before it
    added until its old text is found once in the file shown (edit_file's rule)."""
    text = "\n".join(file)
    edits = []
    for i, new in changed:
        start = i
        while start > 0 and text.count("\n".join(file[start : i + 1])) > 1:
            start -= 1
        before = file[start:i]
        edits.append(
            {"old_text": "\n".join([*before, file[i]]), "new_text": "\n".join([*before, new])}
        )
    return edits


def _near(lines: list[str], i: int, pointed: list[int]) -> bool:
    """Whether line *i* of *lines* is in the same paragraph (no blank line between) as a
    line of *pointed*: the body of the function a request names, in most languages."""
    for p in pointed:
        low, high = min(i, p), max(i, p)
        if all(line.strip() for line in lines[low : high + 1]):
            return True
    return False


def _new_figure(prompt: str, file: list[str], changed: list[tuple[int, str]]) -> bool:
    """Whether a changed line gives a figure that neither the line it replaces nor the
    request (*prompt*) holds: a value of the model's own ("fewer than 6 units" fixed as
    ``low_stock_threshold = 5``)."""
    asked = figures_in(prompt)
    return any(
        not figures_in(figure) & (asked | figures_in(file[i]))
        for i, new in changed
        for figure in re.findall(r"\d+(?:\.\d+)?", new)
    )


def shown_fix(turn: Turn) -> tuple[str, list[dict[str, str]]] | None:
    """The file and the edits of the fix *turn*'s reply shows and does not make: a code
    block that is a stretch of a file read since the prompt, with one or two of its lines
    changed (:func:`_changed`), where the request points at any lines of the file
    (:func:`~._turn.named_starts`: a line number an error cites, the name it says is
    wrong, a rare word of the request), each changed line in the paragraph of one of
    them (``splice(index, 2)`` three lines into the ``removeFromCart`` the request
    names), and no figure in a changed line that the request and the line it replaces
    do not hold."""
    reads = {s.path: s.shown_lines for s in turn.steps if s.name == "read_file" and s.path}
    for m in CODE_BLOCK.finditer(turn.reply):
        block = m.group(2).rstrip("\n").split("\n")
        if "<tool_call>" in m.group(2):
            continue  # a call written in a block: the call parser's to read
        for path, lines in reads.items():
            if not lines:
                continue
            changed = _changed(lines, block)
            if changed is None:
                continue
            pointed = named_starts(turn.prompt, lines)
            if pointed and not all(_near(lines, i, pointed) for i, _ in changed):
                return None  # a change where the request does not point
            if _new_figure(turn.prompt, lines, changed):
                return None
            return path, _edit(lines, changed)
    return None


class ShownFix:
    """A reply, in a task that asks for a change with no file changed yet, that shows the
    fix instead of making it: a code block that is a file read since the prompt, the same
    but for one or two lines, each still like the line it replaces and where the request
    points (:func:`shown_fix`). Writes the edit of those lines, as the block writes them,
    as the call: asked for the edit instead, the 1.5B model wrote one of its own.

    Measured (bench local-tasks, the fresh set, every recorded run): a reply showing the
    corrected file came in runs of both halves, the changed line the fix in most
    (``cart.lines.splice(index, 2)`` to ``1``, half A; ``workers 3`` to ``workers = 3``
    and ``evrey`` to ``every``, half B). Asked then for the edit (claimed-change), the
    model made another one: in settings.toml it wrote ``port = 9413``, ``workers 4`` and
    ``request_timeout = 46`` over the three lines around the broken one, and the run
    failed."""

    name: ClassVar[str] = "shown-fix"

    def check(self, turn: Turn) -> Nudge | None:
        if not asks_change(turn) or turn.edited:
            return None
        shown = shown_fix(turn)
        if shown is None:
            return None
        path, edits = shown
        return Nudge(
            f"The reply shows the fix of {path} and does not make it: make it with "
            "edit_file, each line as it is, then as the reply writes it.",
            "edit_file",
            arguments=edit_arguments(path, edits),
        )
