"""Nudge rule left-broken: a file the model changed, left broken by its own word.

The tools say when a write or edit leaves a file broken (``tools/_checks``: Python, JSON or
TOML that does not parse; Python that uses a name nothing defines or imports, imports a
module that is nowhere or a name its module does not define, or, a test file, defines its
own copy of what it tests). A small model reads the note and ends the
turn all the same; asked to fix it in words, it writes the same file again. Where the fix
is known, the nudge gives the edit itself: a JSON line the note says lacks its comma, or
has one too many, as the file has it and as it should read; in the model's own write,
whose text the call holds, the import line added after the last import, the import of a
module that is nowhere replaced by it, or the copy replaced by the import."""

from __future__ import annotations

import ast
import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import Nudge, edit_block
from harness.actors.model.local._nudge_changes import last_write
from harness.actors.model.local._turn import Step, Turn

__all__ = ["LeftBroken"]

# the notes of tools/_checks, with the import a note names
_BROKEN = re.compile(
    r"^note: (?:\S+ (?:still )?does not parse: .*"
    r"|(?P<lacking>\S+) is used in \S+ but not defined or imported there.*"
    r"|\S+ defines its own (?P<copy>\S+), so its tests check that copy.*"
    r"|\S+ imports \S+, which is no module of this workspace.*"
    r"|\S+ imports \S+ from \S+, but \S+ does not define.*"
    r"|\S+ holds (?:a line|\d+ lines) of a search's result as it was printed.*)$",
    re.M,
)
_IMPORT = re.compile(r"(from \S+ import \w+)\)?$")
# the one line a JSON parse note says to fix, and how
_LINE_FIX = re.compile(
    r"\(line (?P<n>\d+) (?:(?P<lacks>lacks the comma at its end)"
    r"|ends with a comma that nothing follows): (?P<fixed>.*)\)$"
)
_IMPORT_LINE = re.compile(r"^(?:import \S|from (?!__future__\b)\S+ import )")
# the note on an import of a module that is nowhere (tools/_checks_imports.py)
_NOWHERE = re.compile(r"^note: \S+ imports (\S+), which is no module of this workspace", re.M)


def _swap(content: str, notes: list[re.Match[str]]) -> tuple[str, str] | None:
    """In the model's own write (*content*), the import of a module that is nowhere
    replaced by the import a note on a name it lacks brings: the name was meant to come
    from the module that defines it (measured, bench local-tasks, half A: ``from lettuce
    import lettuce_for`` in a test calling ``litres_for``; asked for the import that
    brings ``litres_for``, the model added it and left the line that cannot load)."""
    nowhere = [m.group(1) for n in notes if (m := _NOWHERE.match(n.group(0)))]
    brings = [b.group(1) for n in notes if n.group("lacking") and (b := _IMPORT.search(n.group(0)))]
    if len(nowhere) != 1 or not brings:
        return None
    module = re.escape(nowhere[0])
    line = re.search(rf"^[ \t]*(?:from {module} import .*|import {module}\b.*)$", content, re.M)
    return (line.group(0), brings[0]) if line else None


def _line_fix(result: str, note: re.Match[str]) -> tuple[str, str] | None:
    """The edit of the one line *note* says to fix: the line as the file has it (the
    note's tagged lines that follow it in *result* show it) and as it should read;
    ``None`` where the note names no such line or does not show it whole (the note cuts
    a long line short)."""
    fix = _LINE_FIX.search(note.group(0))
    if fix is None:
        return None
    shown = re.search(rf"^{fix['n']}:[0-9a-f]{{2}}\|(.*)$", result[note.end() :], re.M)
    if shown is None:
        return None
    old = shown.group(1).rstrip()
    new = old + "," if fix["lacks"] else old.removesuffix(",")
    return (old, new) if new.strip() == fix["fixed"] else None


def _tried_on_broken(turn: Turn) -> Step | None:
    """The last call of the turn where it is an edit of a file that does not parse, that
    changed nothing or was refused, whose note names the one line to fix: the model was
    at the right file and missed the line (measured, the theatre's
    error-foyer-screen-comma, half A: two edits of foyer/screen.json that changed
    nothing, each told "line 39 ends with a comma that nothing follows", then "The notice
    … is not valid JSON." and the end)."""
    last = turn.last
    if last is None or last.name != "edit_file" or last.wrote:
        return None
    return (
        last if any(_LINE_FIX.search(n.group(0)) for n in _BROKEN.finditer(last.result)) else None
    )


def _edit(content: str, note: re.Match[str]) -> tuple[str, str] | None:
    """The old and new text of the edit that fixes what *note* says of *content*, or
    ``None`` where the note names no import or the file gives no place for it."""
    bring = _IMPORT.search(note.group(0))
    if bring is None:
        return None
    lines = content.split("\n")
    if note.group("copy"):
        try:
            tree = ast.parse(content)
        except SyntaxError:
            return None
        for node in tree.body:
            if getattr(node, "name", None) == note.group("copy") and node.end_lineno:
                first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
                return "\n".join(lines[first - 1 : node.end_lineno]), bring.group(1)
        return None
    anchors = [line for line in lines if _IMPORT_LINE.match(line)]
    if not anchors:
        return None
    return anchors[-1], f"{anchors[-1]}\n{bring.group(1)}"


class LeftBroken:
    """A reply ending the turn while the last write or edit that changed a file says it
    left the file broken (it does not parse, uses a name it does not import, or, a test
    file, defines its own copy of what it tests), or right after an edit that changed
    nothing in a file whose note names the one line to fix: asks for the edit that fixes
    it, given whole where the note names the line to fix or the file is the model's own
    write. Measured (bench local-tasks, half A): on create-pricing-test, after the note,
    "I created the file." and the end; asked to fix it in words, the same file written
    again, four times. On error-json-comma, asked for "the lines to fix", edits that took
    the indentation off, line after line, and never added the comma the note named."""

    name: ClassVar[str] = "left-broken"

    def check(self, turn: Turn) -> Nudge | None:
        last = last_write(turn) or _tried_on_broken(turn)
        if last is None or last.path is None or "edit_file" not in turn.tools:
            return None
        notes = list(_BROKEN.finditer(last.result))
        if not notes:
            return None
        said = "; ".join(n.group(0).removeprefix("note: ") for n in notes)
        content = last.arguments.get("content") if last.name == "write_file" else None
        fix = _line_fix(last.result, notes[0])
        if fix is None and isinstance(content, str):
            fix = _swap(content, notes) or _edit(content, notes[0])
        head = f"{last.path} is not right yet: {said}. Fix it: call edit_file on {last.path}"
        if fix is None:
            return Nudge(
                f"{head}, replacing the lines to fix. {edit_block(last.path)}", "edit_file"
            )
        old, new = fix
        call = f'({{"name": "edit_file", "arguments": {{"path": "{last.path}"}}}}'
        return Nudge(
            f"{head} with exactly this edit. Write the <tool_call> block {call}), then\n"
            f"<old_content>\n{old}\n</old_content>\n<new_content>\n{new}\n</new_content>\n"
            "and nothing else.",
            "edit_file",
        )
