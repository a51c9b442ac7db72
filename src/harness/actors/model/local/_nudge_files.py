"""Nudge rules about where a change was made: in every file, and at the value named.

- finish-files: "Change it in pricing.py and in settings.toml": a small model edits one
  file, reads the "edited" of its tool as the task done, and says so. The rule reads the
  files the prompt lists together as the places of the change (joined by "and" or
  commas), and asks for the next one no call has changed: its read first when the model
  has not seen it, else its edit. A file the prompt names alone ("as b.py does") is no
  place of the change.
- old-value-left: "from 0.2 to 0.23": the model edited a file, but elsewhere than at the
  old value, which the file still holds. The rule asks for the line that holds it.
- broken-data: an error pasted that says JSON, TOML or YAML does not parse ("… is not valid
  JSON at JSON.parse … at main.js:9"): the model reads and edits the program the trace
  runs through, which is not what broke. The rule asks for the data file: its read where
  the prompt or a result names one file of that kind, else the files of that kind found.
- read-first: an edit refused because its file was not read and does not hold its old
  text (the file as the model believes it to be): the read the refusal asks for, written
  by the harness before the model replies.
"""

from __future__ import annotations

import re
from typing import ClassVar, NamedTuple

from harness.actors.model.local._nudge_base import (
    NOT_FILES,
    Nudge,
    WrittenAhead,
    block,
    edit_block,
)
from harness.actors.model.local._nudge_changes import asks_change
from harness.actors.model.local._turn import EDIT_TOOLS, FILE_NAME, Step, Turn, culprits
from harness.words import asks_for_change, asks_to_write, listed_files, same_file

__all__ = ["BrokenData", "FinishFiles", "OldValueLeft", "ReadFirst", "ReadToChange"]


class FinishFiles:
    """In a task asking for a change in files the prompt lists together ("in pricing.py
    and in settings.toml"), a reply ending the turn after a call changed one of them while
    another is still unchanged: asks for that one (its read first, when no call showed
    it). Measured (bench local-tasks, the fresh set's tax-rate-both, half A): the rate
    changed in settings.toml, then "The tax rate in settings.toml was changed from 0.2 to
    0.23." and the end, pricing.py untouched."""

    name: ClassVar[str] = "finish-files"

    def check(self, turn: Turn) -> Nudge | None:
        if not asks_change(turn) or not turn.edited:
            return None
        listed = listed_files(turn.prompt)
        changed = [s.path for s in turn.steps if s.wrote and s.path]
        if not any(same_file(p, named) for p in changed for named in listed):
            return None
        left = [n for n in listed if not any(same_file(p, n) for p in changed)]
        if not left:
            return None
        path = left[0]
        done = ", ".join(n for n in listed if n not in left)
        seen = any(s.shown_lines and s.path and same_file(s.path, path) for s in turn.steps)
        tool = "edit_file" if seen else "read_file"
        if tool not in turn.tools:
            return None
        then = "then <old_content> and <new_content>" if seen else "and nothing after it"
        return Nudge(
            f"You changed {done}, but the task asks for the change in {path} too, and "
            f"{path} is not changed yet. "
            + ("Make the change there now" if seen else f"Read {path} first")
            + f": call {tool} on {path}. Write the <tool_call> block "
            f'({{"name": "{tool}", "arguments": {{"path": "{path}"}}}} {then}) and nothing '
            "else.",
            tool,
        )


# a value the prompt says changes: a number or version (0.2, 8080, 1.4.2, 30s), or a short
# quoted or backticked text ("EUR", `info`); plain words are left out ("from Monday to")
_VALUE = r"(?:\d[\w.+-]*\w|\d|\"[^\"\n]{1,40}\"|'[^'\n]{1,40}'|`[^`\n]{1,40}`)"
_FROM_TO = re.compile(rf"\bfrom\s+({_VALUE})\s+to\s+({_VALUE})", re.I)


def _token(value: str) -> re.Pattern[str]:
    """*value* as a whole token of a line: ``0.2`` is not in ``0.23``, ``10.2`` or
    ``0.2.1``."""
    return re.compile(rf"(?<![\w.]){re.escape(value)}(?!\w|\.\w)")


def _pairs(step: Step) -> list[tuple[str, str]]:
    """The (old text, new text) pairs of an edit call, in either shape it takes."""
    args = step.arguments
    edits = args.get("edits")
    shaped = edits if isinstance(edits, list) else [args]
    return [
        (e["old_text"], e["new_text"])
        for e in shaped
        if isinstance(e, dict)
        and isinstance(e.get("old_text"), str)
        and isinstance(e.get("new_text"), str)
    ]


class OldValueLeft:
    """In a task changing a value "from X to Y", a reply ending the turn after an edit of
    a file that turned no X into Y there, while the file (as last shown, with the edits
    since applied) still holds X: asks for the edit of the first line holding it.
    Measured (bench local-tasks, the fresh set's tax-rate-both, half A): "The tax rate goes
    up from 0.2 to 0.23. Change it in pricing.py and in settings.toml." -> in pricing.py
    the model changed ``with_tax``'s default (``rate: float = TAX_RATE``) to ``0.23``,
    left ``TAX_RATE = 0.2``, and said both files were changed. An edit that did turn X
    into Y is taken as the change meant: other X in the file may be other things (a
    timeout of 30 beside retries of 30)."""

    name: ClassVar[str] = "old-value-left"

    def check(self, turn: Turn) -> Nudge | None:
        said = _FROM_TO.search(turn.prompt)
        if said is None or "edit_file" not in turn.tools or not turn.edited:
            return None
        old, new = (v.strip("\"'`") for v in said.groups())
        was, becomes = _token(old), _token(new)
        for path in dict.fromkeys(s.path for s in turn.steps if s.wrote and s.path):
            edits = [s for s in turn.steps if s.wrote and s.path == path]
            swapped = any(was.search(o) and becomes.search(n) for s in edits for o, n in _pairs(s))
            if swapped:
                continue
            left = _holding(turn, path, was)
            if left is None:
                continue
            n, line = left
            return Nudge(
                f"The task asks for {old} to become {new}, but your edit of {path} did not "
                f"change {old}: line {n} of {path} still reads {line.strip()!r}. Make the "
                f"change there now: call edit_file on {path}. {edit_block(path)}",
                "edit_file",
            )
        return None


def _holding(turn: Turn, path: str, value: re.Pattern[str]) -> tuple[int, str] | None:
    """The first line (number, text) of *path* holding *value*: of the file as last shown
    since the prompt, with the edits made after that applied; ``None`` when it holds none,
    or was never shown, or an edit since cannot be followed (its old text is not there)."""
    shown = [i for i, s in enumerate(turn.steps) if s.path == path and s.shown_lines]
    if not shown:
        return None
    lines = turn.steps[shown[-1]].shown_lines or []
    text = "\n".join(lines)
    for step in turn.steps[shown[-1] + 1 :]:
        if step.path != path or not step.wrote:
            continue
        for o, n in _pairs(step):
            if o.strip("\n") not in text:
                return None
            text = text.replace(o.strip("\n"), n.strip("\n"), 1)
    for i, line in enumerate(text.split("\n"), 1):
        if value.search(line):
            return i, line
    return None


class _Format(NamedTuple):
    """A data format whose files a pasted parse error can be about."""

    name: str
    endings: tuple[str, ...]
    glob: str  # finds its files: "*.y*ml" for .yaml and .yml (the globs have no braces)
    error: re.Pattern[str]  # what its parsers say when a text does not parse


_FORMATS = (
    _Format(
        "JSON",
        (".json",),
        "*.json",
        re.compile(r"is not valid JSON|JSONDecodeError|\bin JSON at\b"),
    ),
    _Format("TOML", (".toml",), "*.toml", re.compile(r"TOMLDecodeError|\btoml\.decoder\b")),
    _Format(
        "YAML",
        (".yaml", ".yml"),
        "*.y*ml",
        re.compile(r"\byaml\.(?:scanner|parser|composer|constructor)\.|YAMLException"),
    ),
)


class BrokenData:
    """A reply ending the turn on an error pasted that says a JSON, TOML or YAML file does
    not parse, with no such file read or changed: asks for the data file, not the program
    whose trace the error runs through. Its read, where the prompt or a result names one
    file of that kind (a longer path to the same name counting as it); else the files of
    that kind found. Measured (bench local-tasks, the theatre's error-foyer-screen-comma,
    half A): told `… is not valid JSON at JSON.parse … at foyer/main.js:9:21`, the model
    read main.js and made an edit of it that changed nothing, and never looked at
    foyer/screen.json."""

    name: ClassVar[str] = "broken-data"

    def check(self, turn: Turn) -> Nudge | None:
        kind = next((f for f in _FORMATS if f.error.search(turn.prompt)), None)
        if kind is None:
            return None
        what, endings = kind.name, kind.endings
        # a read that showed the file, or any edit of it (a read of a made-up path is no look)
        if any(
            (s.path or "").endswith(endings)
            and (s.name in EDIT_TOOLS or (s.name == "read_file" and s.shown_lines is not None))
            for s in turn.steps
        ):
            return None
        texts = (turn.prompt, *(s.result for s in turn.steps))
        named = {n for t in texts for n in FILE_NAME.findall(t) if n.endswith(endings)}
        files = sorted(n for n in named if not any(o.endswith("/" + n) for o in named))
        head = f"The error says a {what} file does not parse; the program reading it is fine."
        if len(files) == 1 and "read_file" in turn.tools:
            return Nudge(
                f"{head} Read {files[0]}: call read_file. Write " + block("read_file"),
                "read_file",
                arguments={"path": files[0]},
            )
        if (
            files
            or "find_files" not in turn.tools
            or any(s.name == "find_files" for s in turn.steps)
        ):
            return None
        return Nudge(
            f"{head} Find the {what} files: call find_files. Write " + block("find_files"),
            "find_files",
            arguments={"pattern": kind.glob},
        )


# edit_file's refusal of an edit of a file not read whose old text the file does not hold
# (tools/_edit.py, unread_edit)
_UNREAD = " was not read in this session, and edit_file changes a file not read only"


class ReadFirst(WrittenAhead):
    """An edit refused because its file was not read in this session and does not hold
    its old text: the read the refusal asks for, written before the model replies (the
    text protocol then leaves the refused edit out of what the model reads, and the edit
    it writes next is bound to the file's lines). Measured (bench local-tasks, the fresh
    set's half A, json-kiosk-contrast): refused so for ``kiosk/shelves.json``, whose
    ``"high_contrast": false`` a search had just shown, the 1.5B model announced a
    search of a ``kiosk.conf`` that does not exist, and the run ended."""

    name: ClassVar[str] = "read-first"

    def ahead(self, turn: Turn) -> Nudge | None:
        last = turn.last
        if last is None or last.name != "edit_file" or "read_file" not in turn.tools:
            return None
        # the refusal as the tool says it, or as the conversation passes it on ("The call
        # was not run: kiosk/shelves.json was not read in this session, …")
        if not last.path or last.path + _UNREAD not in last.result.partition("\n")[0]:
            return None
        return Nudge(
            f"{last.path} was not read, so the edit was refused: read it first.",
            "read_file",
            arguments={"path": last.path},
        )


class ReadToChange(WrittenAhead):
    """A one-line request for a change that names one file ("In calc.py, make add return
    a + b.", "Set the timeout in config.json to 30 seconds.") where no rule knows the
    change itself: the read of that file, written before the model replies; then, at
    once, the edit, asked in place of a reply and bound to the file's lines.

    Measured (``bench local``'s split, the one-line edit): with nothing read, the 1.5B
    model's first reply was a plan and an edit of its belief of the file (``return a +
    b`` for ``return a + b``), refused as not read; then the read, a reply claiming the
    change, and the edit at last: five generations. With the read alone written first
    (the fresh set, the 8 tasks it reaches), its free reply after the read rewrote the
    whole file (a ``write_file`` of ``deploy.yaml``; an edit whose old text was all of
    ``inventory.py``) and half B lost ``fix-low-stock``: an edit asked for after a read is
    bound to the lines read (``claimed-change``'s, before), so it is asked for at once.

    A request to write a file it names (it is new), a prompt of several lines (a pasted
    error: the file it runs through, which the rules of an error read, is often not the
    one the command names) or one quoting an error on its line ("Fix scripts/summary.sh,
    it says line 12: akw: command not found."), a session's later turn (the file may be
    read) and a prompt naming two files or none are left to the model."""

    name: ClassVar[str] = "read-to-change"

    def check(self, turn: Turn) -> Nudge | None:
        # after a reply to the read (the edit was not asked at once: the rule off, a
        # replay), the rules of a change ask, as for a read of the model's own
        return None if turn.steps else self.ahead(turn)

    def ahead(self, turn: Turn) -> Nudge | None:
        if turn.earlier or not {"read_file", "edit_file"} <= set(turn.tools):
            return None
        prompt = turn.prompt.strip()
        if "\n" in prompt or not asks_for_change(prompt) or asks_to_write(prompt):
            return None
        if culprits(prompt):
            return None  # an error quoted on the line: the rules of an error read
        files = {m.group(1) for m in FILE_NAME.finditer(prompt)} - NOT_FILES
        if len(files) != 1:
            return None
        path = files.pop()
        if not turn.steps:
            return Nudge(
                f"The change is in {path}: read it first.", "read_file", arguments={"path": path}
            )
        read = turn.steps[0]
        if len(turn.steps) > 1 or read.path != path or read.shown_lines is None:
            return None
        return Nudge(
            f"That is {path} as it is now. Make the change asked for: call edit_file on "
            f"{path}, replacing only the lines to change. {edit_block(path)}",
            "edit_file",
            instead=True,
        )
