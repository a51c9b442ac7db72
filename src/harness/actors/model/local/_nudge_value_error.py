"""The rule for an error that rejects a value the data holds ("ValueError: unknown kind
'audio book'", "ValueError: no boat called 'Shearwatter' in the fleet", "KeyError:
'over-65'"): the harness finds the one line of code or data that holds the value, reads
the file the error was raised in for the value meant (``KINDS = ("book", "dvd",
"audiobook")``: one spelled like it), and writes that value in, each step a call the
user sees (and, in the terminal, approves). A ``KeyError`` after the user changed a file
of settings they name ("I was tidying up minibus.toml last night") is the other way
round: the file lacks the key the code reads, and a key spelled like it there is
written back as the code reads it.

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
from harness.actors.model.local._turn import FILE_NAME, Turn

__all__ = ["ValueInError", "meant_value", "rejected_value"]

# a Python error that rejects one value it quotes: "ValueError: unknown kind 'audio book'",
# "KeyError: 'over-65'", "LookupError: no such stop 'Mill'", the last line of a traceback
# or quoted in a sentence ("runsheet.py fails: KeyError: 'wheelchair_spaces'. I think …")
_REJECTS = re.compile(
    r"(?:^|(?<=\s))(?:ValueError|KeyError|LookupError): [^'\n]*?'([^'\n]{2,60})'"
    r"(?=[^'\n]*$|[.,;:!?)](?:\s|$)|\s+\()",
    re.M,
)
# the frames of a traceback: the file each line ran in
_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+', re.M)
# a Python file a prompt names ("runsheet.py fails: …")
_PYTHON_FILE = re.compile(r"\.py$")
# a value quoted in code or data
_QUOTED = re.compile(r"""(["'])([^"'\n]{2,60})\1""")


def rejected_value(prompt: str) -> tuple[str, str] | None:
    """The value the error *prompt* pastes rejects, and the name of the file it was
    raised in (the traceback's last frame, or with no traceback the one Python file the
    prompt names), or ``None``."""
    found = _REJECTS.findall(prompt)
    frames = [f.rsplit("/", 1)[-1] for f in _FRAME.findall(prompt)]
    if not frames:
        frames = list({m[1] for m in FILE_NAME.finditer(prompt) if _PYTHON_FILE.search(m[1])})
        if len(frames) != 1:
            return None
    if len(set(found)) != 1 or not frames:
        return None
    return found[0], frames[-1]


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


# the last line of a Python traceback for a key a mapping lacks
_KEY_ERROR = re.compile(r"(?:^|(?<=\s))KeyError: '[^'\n]+'", re.M)
# a file of settings or data a prompt names ("I was tidying up minibus.toml")
_DATA_FILE = re.compile(r"\.(?:toml|json|ya?ml|ini|cfg|conf)$", re.I)
# a line that gives a key its value: ``wheelchair_spaces = 2``, ``"seats": 12,``,
# ``seats: 12``
_KEY_LINE = re.compile(r"""^\s*(["']?)([A-Za-z_][\w.-]*)\1\s*[:=]""")


def _data_named(prompt: str) -> str | None:
    """The one file of settings or data *prompt* names, or ``None``."""
    named = {m.group(1) for m in FILE_NAME.finditer(prompt) if _DATA_FILE.search(m.group(1))}
    return named.pop() if len(named) == 1 else None


def _key_back(turn: Turn, bad: str, data: str, raised_in: str) -> Nudge | None:
    """For a ``KeyError`` of *bad* after the user changed *data*, which no hit of the
    search showed holding it: the read of *data*, then, where no line of it gives *bad*
    and one gives a key spelled like it (``wheelchair_space = 2``), the edit writing the
    key back as the code reads it."""
    last = turn.steps[-1]
    read = next(
        (
            numbered_lines(s.result)
            for s in turn.steps[1:]
            if s.name == "read_file" and s.path == data and s.shown_lines is not None
        ),
        None,
    )
    if read is None:
        if last is not turn.steps[0]:
            return None
        return Nudge(
            f"{raised_in} asks {data} for {bad!r}, and no line there holds it.",
            "read_file",
            arguments={"path": data},
        )
    keys = [(line, k) for line in read.values() if (k := _KEY_LINE.match(line)) is not None]
    if last.path != data or any(k.group(2) == bad for _, k in keys):
        return None
    close = [(line, k) for line, k in keys if _close(bad, k.group(2))]
    if len(close) != 1:
        return None
    line, key = close[0]
    made = line[: key.start(2)] + bad + line[key.end(2) :]
    return Nudge(
        f"Write the key {bad!r}, which {raised_in} reads, in place of {key.group(2)!r}.",
        "edit_file",
        arguments={"path": data, "old_text": line, "new_text": made},
    )


class ValueInError(WrittenAhead):
    """A request to fix an error that rejects a value it quotes (a traceback ending
    "ValueError: unknown kind 'audio book'"), with nothing changed yet: the harness
    writes each call itself. First the search for that value in quotes; where it is on
    one line (not prose, a record or a test), the read of the file the error was raised
    in; where that file quotes one value spelled like it, the read of the line's file
    (if another) and the edit writing that value in. For a ``KeyError`` when the
    request names one file of settings or data and no line the search found is in it,
    the read of that file and, where one key of it is spelled like the one asked for,
    the edit writing that key back (:func:`_key_back`). Where any step finds none or
    two, the rule stops and the model goes on.

    Measured (bench local-tasks, the minibus, half A): told "I was tidying up
    minibus.toml last night and now the run sheet won't print" with ``KeyError:
    'wheelchair_spaces'``, the 1.5B model read ``runsheet.py`` and offered to default
    the key to 0; the file said ``wheelchair_space = 2``."""

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
        data = _data_named(turn.prompt) if _KEY_ERROR.search(turn.prompt) else None
        if data is not None and not any(m[1] == data for m in HIT.finditer(first.result)):
            return _key_back(turn, bad, data, raised_in)
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
