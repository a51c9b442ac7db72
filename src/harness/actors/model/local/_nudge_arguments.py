"""The rule for a shell function called without the argument it takes: under ``set -u``
the shell reports the function's own line ("tools/lib.sh: line 18: $1: unbound
variable"), not the call that left the argument out, so the file the error names is not
the file to change. The harness reads the line, finds the function it is in, searches
for the calls of that function, reads the file of the one call that passes nothing, and
asks for the edit of that call."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import CHAIN_TOOLS, HIT, Nudge, WrittenAhead
from harness.actors.model.local._settings import numbered_lines
from harness.actors.model.local._turn import Turn
from harness.words import asks_for_change

__all__ = ["MissingArgument", "enclosing_function", "positional_unbound"]

# the shell's error for a positional parameter unset under ``set -u``, as bash prints it
_UNBOUND = re.compile(r"^[ \t]*([\w./-]+): line (\d+): \$(\d): unbound variable[ \t]*$", re.M)
# a line opening a shell function: ``month_ok() {``, ``function month_ok {``
_OPENS = re.compile(r"^\s*(?:function\s+([A-Za-z_][\w-]*)\s*(?:\(\))?|([A-Za-z_][\w-]*)\s*\(\))")
# a line closing one (at the start of its line)
_CLOSES = re.compile(r"^\}")


def positional_unbound(prompt: str) -> tuple[str, int, str] | None:
    """The file, line and parameter (``$1``) of the one positional-parameter error the
    prompt quotes ("tools/lib.sh: line 18: $1: unbound variable"), or ``None``."""
    found = list(_UNBOUND.finditer(prompt))
    if len(found) != 1:
        return None
    m = found[0]
    return m.group(1), int(m.group(2)), f"${m.group(3)}"


def enclosing_function(lines: dict[int, str], number: int) -> str | None:
    """The name of the shell function line *number* of *lines* (a read's lines, by
    number) is in: the nearest line above that opens one, with no function closed
    between; ``None`` for a line outside any function."""
    for n in range(number, 0, -1):
        text = lines.get(n)
        if text is None:
            return None
        if n < number and _CLOSES.match(text):
            return None
        if opened := _OPENS.match(text):
            return opened.group(1) or opened.group(2)
    return None


def _bare_calls(result: str, name: str) -> list[tuple[str, int]]:
    """The lines of a search's *result* that run the function *name* with nothing after
    it (``month_ok``, ``month_ok;``, ``|| month_ok``), not its definition."""
    bare = re.compile(rf"(?:^|[;&|({{]|\b(?:then|do|else)\b)\s*{re.escape(name)}\s*(?:$|[;&|)#])")
    return [
        (m[1], int(m[2]))
        for m in HIT.finditer(result)
        if bare.search(m[3]) and not _OPENS.match(m[3])
    ]


class MissingArgument(WrittenAhead):
    """A request quoting a shell error for an unset positional parameter ("tools/lib.sh:
    line 18: $1: unbound variable"), with nothing changed yet: the harness writes the
    read of the file the error names; where the line is in a function, the search for
    that function's name; where the search shows one call of it that passes nothing,
    the read of that call's file; then it asks for the edit, bound to start on that
    call's line, saying which argument the function takes. Where the line is in no
    function, or no call or two pass nothing, the rule stops and the model goes on.

    Measured (bench local-tasks, the minibus, half A): shown "$ bash tools/month.sh
    2026-08" and "tools/lib.sh: line 18: $1: unbound variable", the 1.5B model read
    ``tools/month.sh`` (the command it ran, not the file the error names), answered
    that the month should be given as two arguments, and wrote an edit of the script's
    comments that changed nothing; ``month_ok`` (lib.sh's line 18 is in it) was called
    on month.sh's line 15 with no argument."""

    name: ClassVar[str] = "missing-argument"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools) or turn.edited:
            return None
        if not asks_for_change(turn.prompt, plainly=True):
            return None
        error = positional_unbound(turn.prompt)
        if error is None:
            return None
        path, number, parameter = error
        if not turn.steps:
            return Nudge(
                f"The error is on line {number} of {path}.", "read_file", arguments={"path": path}
            )
        first = turn.steps[0]
        if first.name != "read_file" or first.path != path or first.shown_lines is None:
            return None
        function = enclosing_function(numbered_lines(first.result), number)
        if function is None:
            return None
        if len(turn.steps) == 1:
            return Nudge(
                f"Line {number} of {path} is in {function}, which uses {parameter}: the calls "
                f"of {function}.",
                "search_text",
                arguments={"pattern": function},
            )
        search = turn.steps[1]
        if search.name != "search_text" or search.arguments.get("pattern") != function:
            return None
        calls = _bare_calls(search.result, function)
        if len(calls) != 1:
            return None
        caller, line = calls[0]
        if len(turn.steps) == 2:
            return Nudge(
                f"{caller}:{line} calls {function} with nothing after it.",
                "read_file",
                arguments={"path": caller},
            )
        last = turn.steps[-1]
        if len(turn.steps) > 3 or last.path != caller or last.shown_lines is None:
            return None
        return Nudge(
            f"{function} uses {parameter}, its argument ({path}:{number}), and line {line} of "
            f"{caller} calls it with none. Edit that line of {caller} to pass {function} the "
            "argument it takes.",
            "edit_file",
            instead=True,
            at=(line,),
        )
