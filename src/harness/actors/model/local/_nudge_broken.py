"""Nudge rule left-broken: a Python file the model changed, left broken by its own word.

The tools say when a write or edit leaves a Python file broken (``tools/_checks``: it does
not parse, uses a name nothing defines or imports, or, a test file, defines its own copy of
what it tests). A small model reads the note and ends the turn all the same; asked to fix
it in words, it writes the same file again. Where the file is the model's own write, whose
text the call holds, the nudge gives the edit itself: the import line added after the last
import, or the copy replaced by the import."""

from __future__ import annotations

import ast
import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import Nudge
from harness.actors.model.local._nudge_changes import last_write
from harness.actors.model.local._turn import Turn

__all__ = ["LeftBroken"]

# the notes of tools/_checks, with the import a note names
_BROKEN = re.compile(
    r"^note: (?:\S+ (?:still )?does not parse: .*"
    r"|(?P<lacking>\S+) is used in \S+ but not defined or imported there.*"
    r"|\S+ defines its own (?P<copy>\S+), so its tests check that copy.*)$",
    re.M,
)
_IMPORT = re.compile(r"(from \S+ import \w+)\)?$")
_IMPORT_LINE = re.compile(r"^(?:import \S|from (?!__future__\b)\S+ import )")


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
    """A reply ending the turn while the last write or edit that changed a Python file
    says it left the file broken (it does not parse, uses a name it does not import, or,
    a test file, defines its own copy of what it tests): asks for the edit that fixes it,
    given whole when the file is the model's own write. Measured (bench local-tasks, the
    fresh set's create-pricing-test, half A): after the note, "I created the file." and
    the end; asked to fix it in words, the same file written again, four times."""

    name: ClassVar[str] = "left-broken"

    def check(self, turn: Turn) -> Nudge | None:
        last = last_write(turn)
        if last is None or last.path is None or "edit_file" not in turn.tools:
            return None
        notes = list(_BROKEN.finditer(last.result))
        if not notes:
            return None
        said = "; ".join(n.group(0).removeprefix("note: ") for n in notes)
        content = last.arguments.get("content") if last.name == "write_file" else None
        fix = _edit(content, notes[0]) if isinstance(content, str) else None
        head = f"{last.path} is not right yet: {said}. Fix it: call edit_file on {last.path}"
        call = f'({{"name": "edit_file", "arguments": {{"path": "{last.path}"}}}}'
        if fix is None:
            return Nudge(
                f"{head}, replacing the lines to fix. Write the <tool_call> block {call} then "
                "<old_content> and <new_content>) and nothing else.",
                "edit_file",
            )
        old, new = fix
        return Nudge(
            f"{head} with exactly this edit. Write the <tool_call> block {call}), then\n"
            f"<old_content>\n{old}\n</old_content>\n<new_content>\n{new}\n</new_content>\n"
            "and nothing else.",
            "edit_file",
        )
