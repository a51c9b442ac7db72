"""The rule for an error that rejects a value the data holds ("ValueError: unknown kind
'audio book'", "ValueError: no boat called 'Shearwatter' in the fleet", "KeyError:
'over-65'"): the harness finds the one line of code or data that holds the value, reads
the file the error was raised in for the value meant (``KINDS = ("book", "dvd",
"audiobook")``: one spelled like it), and writes that value in, each step a call the
user sees (and, in the terminal, approves).

Measured (bench local-tasks, the fresh set, half A): told "ValueError: unknown kind
'audio book'" after the new stock was added, the 1.5B model read ``desk.py``, the file at
the top of the traceback, and answered how the error might be fixed, with no edit."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.actors.model.local._choose import RECORDS
from harness.actors.model.local._nudge_base import (
    CHAIN_TOOLS,
    HIT,
    Hit,
    Nudge,
    WrittenAhead,
    literal,
)
from harness.actors.model.local._nudge_changes import asks_change, change_goes_in
from harness.actors.model.local._settings import numbered_lines
from harness.actors.model.local._turn import Turn

__all__ = ["ValueInError", "meant_value", "rejected_value"]

# the last line of a Python traceback that rejects one value it quotes: "ValueError:
# unknown kind 'audio book'", "KeyError: 'over-65'", "LookupError: no such stop 'Mill'"
_REJECTS = re.compile(
    r"^(?:ValueError|KeyError|LookupError): [^'\n]*'([^'\n]{2,60})'[^'\n]*$", re.M
)
# the frames of a traceback: the file each line ran in
_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+', re.M)
# a value quoted in code or data
_QUOTED = re.compile(r"""(["'])([^"'\n]{2,60})\1""")


def rejected_value(prompt: str) -> tuple[str, str] | None:
    """The value the error *prompt* pastes rejects, and the name of the file it was
    raised in (the traceback's last frame), or ``None``."""
    found = _REJECTS.findall(prompt)
    frames = _FRAME.findall(prompt)
    if len(set(found)) != 1 or not frames:
        return None
    return found[0], frames[-1].rsplit("/", 1)[-1]


def _plain(value: str) -> str:
    return re.sub(r"[^a-z0-9]", "", value.lower())


def _close(bad: str, other: str) -> bool:
    """Whether *other* is *bad* spelled otherwise: the same letters and digits once
    spaces, hyphens and case are left out ("audio book", "audiobook"), or one letter
    added, dropped or changed in a word of six or more ("Shearwatter", "Shearwater")."""
    a, b = _plain(bad), _plain(other)
    if a == b:
        return bad != other
    if min(len(a), len(b)) < 6 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def meant_value(bad: str, lines: list[str]) -> str | None:
    """The one value quoted in *lines* that is *bad* spelled otherwise, or ``None``."""
    quoted = {m.group(2) for line in lines for m in _QUOTED.finditer(line)}
    close = [q for q in quoted if _close(bad, q)]
    return close[0] if len(close) == 1 else None


class ValueInError(WrittenAhead):
    """A request to fix an error that rejects a value it quotes (a traceback ending
    "ValueError: unknown kind 'audio book'"), with nothing changed yet: the harness
    writes each call itself. First the search for that value in quotes; where it is on
    one line (not prose, a record or a test), the read of the file the error was raised
    in; where that file quotes one value spelled like it, the read of the line's file
    (if another) and the edit writing that value in. Where any step finds none or two,
    the rule stops and the model goes on."""

    name: ClassVar[str] = "value-in-error"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools) or not asks_change(turn) or turn.edited:
            return None
        rejected = rejected_value(turn.prompt)
        if rejected is None:
            return None
        bad, raised_in = rejected
        search = rf"""["']{literal(bad)}["']"""
        if not turn.steps:
            return Nudge(
                f"The error rejects {bad!r}. Search for where it is written.",
                "search_text",
                arguments={"pattern": search, "regex": True},
            )
        first, last = turn.steps[0], turn.steps[-1]
        if first.name != "search_text" or first.arguments.get("pattern") != search:
            return None
        missed = first.result.startswith("no matches")
        hits = [
            Hit(m[1], int(m[2]), m[3])
            for m in HIT.finditer("" if missed else first.result)
            if not RECORDS.search(m[1]) and change_goes_in(m[1], turn.prompt)
        ]
        if len(hits) != 1:
            return None
        hit = hits[0]
        raising = hit.path if hit.path.rsplit("/", 1)[-1] == raised_in else raised_in
        reads = {
            s.path: numbered_lines(s.result)
            for s in turn.steps[1:]
            if s.name == "read_file" and s.path and s.shown_lines is not None
        }
        if raising not in reads:
            if last is not first:
                return None
            return Nudge(
                f"{raising} raised the error: it says which values it takes.",
                "read_file",
                arguments={"path": raising},
            )
        meant = meant_value(bad, list(reads[raising].values()))
        if meant is None:
            return None
        if hit.path not in reads:
            if last.path != raising:
                return None
            return Nudge(f"{hit.path} holds {bad!r}.", "read_file", arguments={"path": hit.path})
        line = reads[hit.path].get(hit.number)
        if line is None or line.strip() != hit.text.strip() or last.path != hit.path:
            return None
        quoted = [m for m in _QUOTED.finditer(line) if m.group(2) == bad]
        if len(quoted) != 1:
            return None
        m = quoted[0]
        made = line[: m.start(2)] + meant + line[m.end(2) :]
        return Nudge(
            f"Write {meant!r}, the value {raising} takes, in place of {bad!r}.",
            "edit_file",
            arguments={"path": hit.path, "old_text": line, "new_text": made},
        )
