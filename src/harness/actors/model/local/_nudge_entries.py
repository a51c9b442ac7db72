"""The rule for an entry of a list that is gone ("The Post Office Stores has closed down,
so the van doesn't need to stop there any more.", "Remove Hamnet from the list."): the
harness finds the one line that is that entry, a YAML list's ``- Post Office Stores`` or
a JSON or Python list's ``"Post Office Stores",``, and writes the search, the read and
the edit that takes the line out, each as a call the user sees (and, in the terminal,
approves).

Measured (bench local-tasks, the fresh set, half A): told the Post Office Stores has
closed, the 1.5B model searched, read ``deliveries.yaml`` and sent edits whose new text
was the old, twice, then answered that the stop was removed."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from harness.actors.model.local._choose import choose_line
from harness.actors.model.local._nudge_base import (
    CHAIN_TOOLS,
    Nudge,
    WrittenAhead,
    literal,
    one_line_chain,
)
from harness.actors.model.local._turn import Turn, asks_new

__all__ = ["EntryGone", "entries_gone"]

# what says an entry is gone: it closed, is no more, or is to be taken out
_GONE = re.compile(
    r"\b(?:has|have|'s|is|are) (?:closed|shut|gone)\b|\bclosed down\b|\bany ?more\b"
    r"|\bno longer\b|\b(?:remove|delete|drop)\b|\btake\b[^.;!?]*?\b(?:off|out)\b",
    re.I,
)
# a name the request gives an entry: two or more words with capitals, or one in quotes
# ("Post Office Stores", "St Anne's Church Hall", "'Hamnet'")
_NAMED = re.compile(
    r"(?<![\w'])((?:[A-Z][\w']*|of|the|and|on|in)(?:[ -](?:[A-Z][\w']*|of|the|and|on|in))*"
    r"[ -][A-Z][\w']*)"
    r"|[\"'‘“]([^\"'’”\n]{2,40})[\"'’”]"
)
# a sentence's first word that is no part of a name
# ("Take St Anne's Church Hall off"), or an article before it ("Remove the Post Office
# Stores stop")
_LEADING = re.compile(
    r"^(?:(?:The|A|An|Our|So|And|But|Please|Take|Remove|Delete|Drop)\s+)?(?:the|a|an|our)?\s*"
)
_FAULT = re.compile(r"\b(?:fix|bug|broken|error|fails?|crash)|Traceback|Error:", re.I)


def entries_gone(prompt: str) -> list[str]:
    """The names *prompt* says are gone from a list, each as an entry would hold it
    ("Post Office Stores"); ``[]`` where it says nothing is gone, or tells a fault."""
    if _FAULT.search(prompt) or asks_new(prompt) or not _GONE.search(prompt):
        return []
    names = []
    for m in _NAMED.finditer(prompt):
        name = _LEADING.sub("", (m.group(1) or m.group(2) or "").strip())
        if (name and " " in name) or m.group(2):
            names.append(name)
    return sorted(set(names))


def _search(names: list[str]) -> str:
    """The search for lines that are one of *names* as a list's entry, and nothing else
    (a regular expression ripgrep reads too)."""
    said = "|".join(literal(name) for name in names)
    return rf"""^\s*-\s+["']?(?:{said})["']?\s*$|^\s*["'](?:{said})["'],\s*$"""


def _taken_out(names: list[str]) -> Callable[[str], str | None]:
    """What a line becomes: nothing (the edit takes it out) where it is one of *names*
    as a list's entry and nothing else; else ``None`` (a search that finds no such line
    lists lines holding the words instead: none of them is taken out)."""
    entry = re.compile(_search(names))
    return lambda line: "" if entry.match(line) else None


class EntryGone(WrittenAhead):
    """A change request that says an entry a list holds by name is gone, with nothing
    changed yet: the harness writes each call itself. First the search for lines that
    are only that name as a list's entry; then, for the one such line (in the files the
    request names, where it names any; not in prose, records or tests), the read of its
    file and the edit taking the line out. Where no line or two are found, or a call goes
    wrong, the rule stops and the model goes on."""

    name: ClassVar[str] = "entry-gone"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools):
            return None
        names = entries_gone(turn.prompt)
        if not names:
            return None
        return one_line_chain(
            turn,
            _search(names),
            f"Search for the entry {names[0]}.",
            lambda hits, reads: choose_line(
                hits,
                reads,
                turn.prompt,
                _taken_out(names),
                "Take this entry out of {path}.",
            ),
        )
