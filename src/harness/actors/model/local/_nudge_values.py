"""The rule for a change that names the value wanted and the value there now ("From
tomorrow just bake 24 for the counter, not 36.", "The tax rate goes up from 0.2 to 0.23.",
"keep a dozen old logs rather than six", "the last two days instead of just one"): the
harness finds the one line that holds the value there now and speaks of what the request
speaks of, and writes the search, the read and the edit itself, each as a call the user
sees (and, in the terminal, approves). What the request says of the values is read by
:mod:`._values`.

Measured (bench local-tasks, the fresh set, half A): told such a change, the 1.5B model
claimed it at once with no call ("I've updated the `bake_croissants` function to bake 24
croissants instead of 36."), wrote a script into the watering log it was asked to keep
twelve of, or read the right file (``club.toml``) and read on to the turn limit; asked
for the edit in words, it duplicated lines of the right file and said done."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.actors.model.local._choose import MORE_PLACES, RECORDS, UNIT_STEMS, stems
from harness.actors.model.local._nudge_base import (
    CHAIN_TOOLS,
    FILE_NAME,
    Nudge,
    WrittenAhead,
    chain_search,
)
from harness.actors.model.local._nudge_changes import change_goes_in
from harness.actors.model.local._turn import Turn
from harness.actors.model.local._values import (
    Change,
    Form,
    Swap,
    names_unit,
    swap_change,
    value_change,
)
from harness.words import same_file

__all__ = ["NewValue", "described_file"]


# a file a request names by what it is: "the hours script", "the plan script", "the deploy
# config"; not a kind of file ("the shell script", "a new script")
_DESCRIBED = re.compile(
    r"\bthe ([a-z][\w-]{2,}) (?:script|config|settings|sheet|tool|program)\b", re.I
)
# a file's path the request starts with, as a label: "tools/hours.sh: …", "fleet.py - …"
_LABEL = re.compile(rf"\s*`?{FILE_NAME.pattern}`?\s*(?::|-|–|—)\s")
_KINDS = frozenset(("shell", "bash", "python", "node", "new", "little", "small", "same", "whole"))


def _stem_of(path: str) -> str:
    """The name of the file at *path*, with no folder and no extension."""
    return path.rsplit("/", 1)[-1].split(".", 1)[0].lower()


def described_file(prompt: str) -> str | None:
    """The name of the one file *prompt* names by what it is ("The hours script gives me
    five boats": ``hours``, the stem of ``tools/hours.sh``) or gives as the label the
    request starts with ("tools/hours.sh: a default of 5 boats is too long, 3 please"),
    or ``None``."""
    label = _LABEL.match(prompt)
    if label is not None:
        return _stem_of(label.group(1))
    said = {m.lower() for m in _DESCRIBED.findall(prompt)} - _KINDS
    return said.pop() if len(said) == 1 else None


def _each_file(
    scored: list[tuple[int, str, str, Form]], *, lone: bool = False
) -> list[tuple[str, str, Form]]:
    """Of *scored* lines, the best of each file, the file of the best line first; none
    where two tie in one file (which is the one is not known). A line that shares no
    word with the request only where *lone* and it is the one line of its file."""
    files: dict[str, list[tuple[int, str, str, Form]]] = {}
    per_file: dict[str, int] = {}
    for line in scored:
        per_file[line[1]] = per_file.get(line[1], 0) + 1
    for line in sorted(scored, key=lambda line: -line[0]):
        if line[0] > 0 or (lone and per_file[line[1]] == 1):
            files.setdefault(line[1], []).append(line)
    if any(len(lines) > 1 and lines[0][0] == lines[1][0] for lines in files.values()):
        return []
    return [(path, text, form) for _, path, text, form in (lines[0] for lines in files.values())]


def _the_lines(
    hits: list[tuple[str, str]], change: Change | Swap, prompt: str
) -> list[tuple[str, str, Form]]:
    """Of *hits* (each a file's path and a line), the lines to change, each with the
    form it holds the value in: the one line holding the value there now as a setting
    that shares the most words with *prompt* (its units of time are no such words; a
    line naming the unit it holds a span in, converted from the one said, counts one
    more), when one does so alone, or the best such line of each of the files the
    prompt names that hold it ("change it in fleet.py and in station.toml"), or, where it
    asks the change in more than one place ("… shows prices too, so update it there as
    well"), the best such line of each file the search found it in; of a named file that
    holds the value on one line only, that line, though it shares no word ("pricing.py
    and settings.toml need it": ``rate = 0.2``; not where the request does not say which
    value is there now); none otherwise.
    Lines of prose, records and tests only where the prompt names their file."""
    named = {m.group(1) for m in FILE_NAME.finditer(prompt)}
    wanted = stems(prompt) - UNIT_STEMS
    scored = []
    for path, text in hits:
        form = change.set_in(text)
        if form is None or not change_goes_in(path, prompt):
            continue
        if path in named or not RECORDS.search(path):
            # a span found in another unit than the one said, on a line naming that unit
            # (``repeat_minutes: 120`` for two hours), is found by more than chance; a
            # value as said is found by chance on a line that only names its unit
            # (``FIRST_MINUTES_FREE = 15`` for a service run every 15 minutes)
            converted = form.unit != (change.old_unit or change.new_unit)
            score = len(wanted & stems(text)) + (converted and names_unit(text, form.unit))
            score += _stem_of(path) == described_file(prompt)
            scored.append((score, path, text, form))
    best = max((score for score, *_ in scored), default=0)
    top = [(path, text, form) for score, path, text, form in scored if score == best]
    if change.either and len({change.turned(form) for score, *_, form in scored if score}) > 1:
        return []  # lines of the request's words hold each value: which is there now is not known
    if best and MORE_PLACES.search(prompt) and len(each := _each_file(scored)) > 1:
        return each
    # the files the request names that hold the value: the best line of each, or the one
    # line a file holds it on ("VAT goes from 0.2 to 0.23 - pricing.py and settings.toml
    # need it": ``rate = 0.2`` under ``[tax]`` shares no word)
    # (not where which value is there now is not known: a lone 24 is no 36)
    each = _each_file(
        [line for line in scored if any(same_file(line[1], n) for n in named)],
        lone=not change.either,
    )
    if len(each) > 1 or (each and best == 0):
        return each
    if best == 0:
        return []
    return top if len(top) == 1 else []


# a name a request writes that is a file's, not a setting's dotted key: an extension of
# at most four characters ("settings.toml", "rotate.sh"; not "chart.hours")
_FILE_LIKE = re.compile(r"\.[A-Za-z]\w{0,3}$")


def _then_search(
    change: Change | Swap, prompt: str, hits: list[tuple[str, str]]
) -> tuple[str, str] | None:
    """The search (its pattern and its glob) for the value alone in the files *prompt*
    names where the first search's *hits* hold it on no line as a setting, or ``None``:
    every named file has such a line, or the request names none."""
    if not isinstance(change, Change):
        return None
    named = list(dict.fromkeys(m.group(1) for m in FILE_NAME.finditer(prompt)))
    held = {path for path, text in hits if change.set_in(text) is not None}
    missing = [
        name
        for name in named
        if not any(same_file(path, name) for path in held) and _FILE_LIKE.search(name)
    ]
    if not missing:
        return None
    glob = missing[0] if len(missing) == 1 else "{" + ",".join(missing) + "}"
    pattern = change.search(prompt, anywhere=True)
    return (pattern, glob) if pattern else None


# a search's hit: "bakery.toml:28:croissant = 36", in any file: a setting may be in one
# with no extension (``bin/backup``, ``.env``), which the hits the other change rules read,
# a file a prompt or reply names, always have
_HIT = re.compile(r"^((?:[\w.-]+/)*[\w.-]+):\d+:(.*)$", re.M)


def _hits(result: str) -> list[tuple[str, str]]:
    """Each line a search's *result* lists, with its file's path; none where it matched
    nothing (the lines it then shows hold the pattern's words, not the value)."""
    if result.startswith("no matches"):
        return []
    return [(h.group(1), h.group(2)) for h in _HIT.finditer(result)]


class NewValue(WrittenAhead):
    """A change request that says the value wanted and the value there now, with nothing
    changed yet: the harness writes each call itself. First the search for the value
    there now (in each unit a span of time comes to whole); then, for the line holding
    it as a setting that shares the most words with the request (or one such line in
    each file the request names), the read of its file and the edit of the line, the
    value wanted in place of the one there now. Where no line qualifies, or two do in one
    file or in files the request does not name, or a call goes wrong, the rule stops and
    the model goes on."""

    name: ClassVar[str] = "new-value"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools):
            return None
        change: Change | Swap | None = value_change(turn.prompt) or swap_change(turn.prompt)
        if change is None:
            return None
        described = described_file(turn.prompt)
        search = change.search(turn.prompt, anywhere=described is not None)
        if search is None:
            return None
        # a file the request describes ("the hours script") is searched alone, for the
        # value with no word beside it (``TOP="${1:-5}"``)
        where = {"glob": f"*{described}.*"} if described else {}
        if not turn.steps:
            ask = f"Search for {change.old}, the value there now."
            if change.either:
                ask = f"Search for {change.old} and {change.new}: a file holds the one there now."
            return Nudge(
                ask,
                "search_text",
                arguments={"pattern": search, "regex": True, **where},
            )
        # the files the request names that the first search found no line to change in
        # are searched for the value alone, where no word need be on its line
        hits: list[tuple[str, str]] = []
        then = None
        if turn.steps[0].name == "search_text":
            hits = _hits(turn.steps[0].result)
            then = _then_search(change, turn.prompt, hits) if described is None else None
        first = chain_search(turn, search, then=then[0] if then else None)
        if first is None:
            return None  # the model went its own way, or a call of the rule's went wrong
        if then is not None:
            if len(turn.steps) == 1:
                pattern, glob = then
                return Nudge(
                    f"Search {glob} for {change.old}, the value there now.",
                    "search_text",
                    arguments={"pattern": pattern, "regex": True, "glob": glob},
                )
            hits += [hit for hit in _hits(turn.steps[1].result) if hit not in hits]
        last = turn.steps[-1]
        written = {s.path for s in turn.steps if s.wrote}
        todo = [t for t in _the_lines(hits, change, turn.prompt) if t[0] not in written]
        if not todo:
            return None
        path, line, form = todo[0]
        if last.name == "read_file" and last.path == path and line in (last.shown_lines or ()):
            return Nudge(
                f"Write {form.new} for {form.old} on this line of {path}.",
                "edit_file",
                arguments={"path": path, "old_text": line, "new_text": change.made(line, form)},
            )
        if last.name == "read_file" and last.path == path:
            return None
        return Nudge(
            f"{path} holds {form.old} on a line the change is about.",
            "read_file",
            arguments={"path": path},
        )
