"""Nudge rules read-named and look-before-write: the read of the one file a question asks
about, and the look at what a new file is to work from, written before the model replies
(rules with ``ahead``: the guide asks them before any reply, so the model never answers
such a question, or writes such a file, with nothing looked at)."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.actors.model.local._nudge_base import (
    FILE_NAME,
    NOT_FILES,
    QUESTION,
    Nudge,
    WrittenAhead,
)
from harness.actors.model.local._nudge_runs import command_asked
from harness.actors.model.local._turn import Turn
from harness.words import asks_for_change, asks_to_write

__all__ = ["LookBeforeWrite", "ReadNamed", "worked_from"]

# a question whose answer lies outside the file it names: which other files, scripts or
# parts of the code, what calls or uses it, where something is ("Which part of the code
# actually reads it?", "Besides pricing.py, which files use round_money?")
_ASKS_ELSEWHERE = re.compile(
    r"\b(?:which|what) (?:\w+ )?(?:files?|modules?|folders?|director(?:y|ies)|scripts?)\b"
    r"|\b(?:which|what) (?:part|piece|section|bit)s? of (?:the |our |this )?"
    r"(?:code|program|project)\b"
    r"|\b(?:besides|apart from|other than|except)\b|\bwhere\b"
    r"|\b(?:what|who)\s+(?:else\s+)?(?:calls|uses|imports|invokes|reads)\b",
    re.I,
)


# a question, or a request to tell of something: "Summarize notes.md", "Explain what
# calc.py does" (the issue's own case: asked so of a file not there, the model answered
# "I will summarize the contents of … for you." and ended)
_ASKS_ABOUT = re.compile(
    QUESTION.pattern
    + r"|^\s*(?:please\s+)?(?:summari[sz]e|explain|describe|tell me (?:about|what|how|which)"
    r"|show me what)\b",
    re.I,
)
# a sentence of a one-line prompt: a dot inside a path ("settings.toml") ends none
_SENTENCE = re.compile(r"(?:[^.!?]|[.!?](?=\w))+[.!?]*")


class ReadNamed(WrittenAhead):
    """A one-line question about what one file it names says ("What port does the back
    office's web server listen on, according to settings.toml?", "What does line 7 of
    notes.txt say?"), or a request to tell of it ("Summarize notes.md"): the read of that
    file, written before the model replies (a file that is not there is said so by the
    read, and what the workspace has in its place). The model reads it first anyway
    when it looks (or is asked to by ``unlooked-answer`` after an answer from nothing);
    written by the rules, the call costs no generation: measured
    (``bench local``'s split, the one-tool question), the call the 1.5B model writes
    itself is 20 tokens and a second pass over the prompt, 3 to 4 s of the 17. Not a
    request (a change, a file to write, a command to run: ``skipped-run``'s), nor a
    question whose answer lies outside the file (which other files, what calls it,
    where: a search's), nor one asked after earlier turns (the file may be read)."""

    name: ClassVar[str] = "read-named"

    def ahead(self, turn: Turn) -> Nudge | None:
        if turn.steps or turn.earlier or "read_file" not in turn.tools:
            return None
        prompt = turn.prompt.strip()
        if not prompt or "\n" in prompt or not _ASKS_ABOUT.search(prompt):
            return None
        if asks_to_write(prompt) or asks_for_change(prompt) or command_asked(prompt):
            return None
        if _ASKS_ELSEWHERE.search(prompt):
            return None
        files = {m.group(1) for m in FILE_NAME.finditer(prompt)} - NOT_FILES
        if len(files) != 1:
            return None
        path = files.pop()
        # named in the question itself: a file named in a sentence of its own is pointed
        # at ("… ? tools/count.sh works it out.": a program to run, not a text to read)
        asking = (m.group(0) for m in _SENTENCE.finditer(prompt) if path in m.group(0))
        if not all(_ASKS_ABOUT.search(sentence) for sentence in asking):
            return None
        return Nudge(
            f"The question is about {path}: read it first.", "read_file", arguments={"path": path}
        )


# what a new file is to work from, said as the project's own, the surest first: "going
# by the loans log", "from the journey log" (the words before the noun kept: they name
# it; an article or "whole" does not), then "how to print the stock report", then "lists
# our warehouses"
_PROJECTS_THINGS = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        r"\b(?:the|our)\s+(?:whole\s+|entire\s+)?((?:[\w'-]+\s+){0,2}?"
        r"(?:log|logs|sheet|register|ledger|records?|list|table|timetable|catalogue|rota))\b",
        r"\b(?:the|our)\s+((?:[\w'-]+\s+){0,2}?report)\b",
        r"\bour\s+([a-z][\w-]*[a-z])\b",
    )
)
# a file of code, not of data: what a new file imports or calls, not what it reads
_CODE = re.compile(r"\.(?:py|js|mjs|cjs|ts|sh|bash|rb|go|rs|java|c|h)$", re.I)


def worked_from(prompt: str, path: str) -> tuple[str, str] | None:
    """What the file *path* that *prompt* asks to have written is to work from, and the
    call that looks at it: another file of data the request names (``timetable.json``,
    ``data/orders.csv``: ``read_file``, which shows how its lines are laid out); else a
    thing of the project it names as such ("the loans log", "the stock report", "our
    warehouses": ``search_text`` for those words, which lists the lines holding them
    where no line holds them all). ``None`` when the request gives none of these ("a
    bash script that prints exactly: hello from the shop").

    Code the request names (``with_tax`` from ``pricing.py``, a test of ``litres_for``)
    is not looked at first: shown a search's lines or a module right before writing, the
    1.5B model wrote them into the new file (bench local-tasks: half A's test of
    ``litres_for`` began with ``plan.py``'s import line and a copy of the function;
    half B's ``price.py`` was the search's lines, where it had written the script at
    once and passed). A new file's wrong import is said after the write instead
    (``tools/_checks_imports``), with the module that defines the name."""
    files = [m.group(1) for m in FILE_NAME.finditer(prompt)]
    data = [
        f
        for f in files
        if f not in NOT_FILES and f.removeprefix("./") != path and not _CODE.search(f)
    ]
    if data:
        return "read_file", data[0]
    for pattern in _PROJECTS_THINGS:
        found = pattern.search(prompt)
        if found:
            return "search_text", " ".join(found.group(1).split())
    return None


class LookBeforeWrite(WrittenAhead):
    """A request, on a session's first turn, for a new file that works from something
    the project already has (:func:`worked_from`: a file of data it names, a log, a
    list of "our" things): the look at that thing, written before the model replies.
    Asked so, the 1.5B model wrote the file at once from nothing it had seen.

    Measured (bench local-tasks, half A): "Make a file data/warehouses.txt that lists
    our warehouses" was answered with "Warehouse 1" to "Warehouse 100" (settings.toml
    lists two); a script "going by the loans log" was announced and never written, the
    log's name unknown. After the search, the first was written with the two, the
    second went by ``data/loans.csv``."""

    name: ClassVar[str] = "look-before-write"

    def ahead(self, turn: Turn) -> Nudge | None:
        if turn.steps or turn.earlier or not {"search_text", "read_file"} <= set(turn.tools):
            return None
        path = asks_to_write(turn.prompt)
        if path is None:
            return None
        source = worked_from(turn.prompt, path.removeprefix("./"))
        if source is None:
            return None
        tool, what = source
        if tool == "read_file":
            return Nudge(
                f"The new file works from {what}: read it first.",
                tool,
                arguments={"path": what},
            )
        return Nudge(
            f"The new file works from what the project has: look for {what} first.",
            tool,
            arguments={"pattern": what},
        )
