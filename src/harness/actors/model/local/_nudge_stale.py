"""The rule for a list that still holds an entry the request says it should not ("Dabchick
is back … Don't forget the tide board, it still says she's out of service."): the list is
the one whose key says what the place still says (``"out_of_service": [``), the entry
its one-line element naming a name the request gives (``{ "boat": "Dabchick", … }``);
the harness writes the search, the read and the edit that takes the element out, each as
a call the user sees (and, in the terminal, approves). It runs after any other change the
request asks for (the switch of ``in_service=False`` in the fleet), or first.

Measured (bench local-tasks, the fresh set, half A): the switch made by its own rule, the
1.5B model answered "The task is done." with the tide board's notice still there, in
each of four runs."""

from __future__ import annotations

import re
from typing import ClassVar

import attrs

from harness.actors.model.local._choose import stems
from harness.actors.model.local._nudge_base import (
    CHAIN_TOOLS,
    Chosen,
    Hit,
    Nudge,
    WrittenAhead,
    literal,
    one_line_chain,
)
from harness.actors.model.local._settings import key_path
from harness.actors.model.local._turn import Step, Turn

__all__ = ["StillListed", "still_listed"]

# what a place still says, not asked about: "it still says she's out of service", "the
# board still shows Curlew as away" (not "Why does it still say …?")
_STILL = re.compile(
    r"\bstill (?:says|shows|lists|has|calls)\s+(?P<said>[^.;!?\n]+)(?![^.;!\n]*\?)", re.I
)
# the words of what is said that say no state: who it is said of, and the verb
_NO_STATE = re.compile(
    r"\b(?:she|he|it|they|them|her|him|that|as|is|are|was|were|be|being|been)\b|'s\b|'re\b",
    re.I,
)
# a name the request gives: a capitalised word of four letters or more, not one that
# starts a sentence as any word can ("Please", "Don't")
_NAME = re.compile(r"(?<![\w'])([A-Z][a-z]{3,})(?:'s)?(?![\w'])")
_NOT_NAMES = frozenset({"Please", "Also", "They", "There", "Then", "This", "That", "When"})


def still_listed(prompt: str) -> tuple[list[str], set[str]] | None:
    """The names *prompt* gives, and the stems of what it says a place still says of them
    (``out``, ``servi`` for "it still says she's out of service"); ``None`` where it says
    no place still says something, or gives no name."""
    said = _STILL.search(prompt)
    if said is None:
        return None
    names = sorted({m.group(1) for m in _NAME.finditer(prompt)} - _NOT_NAMES)
    # what is said, without who it is said of ("Curlew as away": away)
    state_words = _NO_STATE.sub(" ", _NAME.sub(" ", said.group("said")))
    state = stems(state_words) | _short_words(state_words)
    if not state or not names:
        return None
    return names, state


# the short words that say a state, which :func:`~._choose.stems` leaves out
_STATES = frozenset({"out", "off", "ill", "away", "down", "gone"})


def _short_words(text: str) -> set[str]:
    """The words of *text* that say a state and are too short for a stem ("out")."""
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)} & _STATES


def _search(names: list[str]) -> str:
    """The search for lines that are a list's element on one line naming one of *names*:
    a JSON object (``{ "boat": "Dabchick", … },``), a string (``"Dabchick",``), a YAML
    item (``- Dabchick``, ``- {boat: Dabchick}``); a regular expression ripgrep reads."""
    said = "|".join(literal(name) for name in names)
    return (
        rf"""^\s*(?:-\s*)?\{{.*\b(?:{said})\b.*\}},?\s*$"""
        rf"""|^\s*["'](?:{said})["'],?\s*$|^\s*-\s+["']?(?:{said})["']?\s*$"""
    )


def _key_words(opened: list[str]) -> set[str]:
    """The words of the keys of the lines that open what a line sits in."""
    words: set[str] = set()
    for line in opened:
        key = line.split(":", 1)[0] if ":" in line else ""
        spaced = re.sub(r"[_\-\"']", " ", key)
        words |= stems(spaced) | _short_words(spaced.lower())
    return words


class StillListed(WrittenAhead):
    """A request that says, not asks, that a place still says something of a name it
    gives ("it still says she's out of service"), right after a call changed a file,
    before any call, or after another rule's search that matched nothing: the harness
    writes each call itself. First the search for lines that are a
    list's element on one line naming one of the request's names; where they are in one
    JSON or YAML file, the read of it; then, for the one such line inside a list whose
    key holds every word of what the place still says (``"out_of_service": [``), the
    edit taking the line out. Where no line or two are found, or a call goes wrong, the
    rule stops and the model goes on."""

    name: ClassVar[str] = "still-listed"

    def ahead(self, turn: Turn) -> Nudge | None:
        if not CHAIN_TOOLS.issubset(turn.tools):
            return None
        listed = still_listed(turn.prompt)
        if listed is None:
            return None
        names, state = listed
        search = _search(names)
        began = [
            i
            for i, step in enumerate(turn.steps)
            if step.name == "search_text" and step.arguments.get("pattern") == search
        ]
        last = turn.last
        if not began and last is not None and not last.wrote and not _found_none(last):
            return None  # the model's own way, or another rule's chain, is under way
        own = attrs.evolve(turn, steps=turn.steps[began[-1] :] if began else ())
        return one_line_chain(
            own,
            search,
            f"Search for what still lists {names[0]}.",
            lambda hits, reads: _choose(hits, reads, state),
        )


def _found_none(step: Step) -> bool:
    """Whether *step* is a search that matched nothing (another rule's, that stopped)."""
    return step.name == "search_text" and step.result.startswith("no matches")


def _choose(
    hits: list[Hit], reads: dict[str, dict[int, str]], state: set[str]
) -> Chosen | str | None:
    """Of *hits*, all in one file, the one line inside a list whose keys hold every word
    of *state*; that file's path where it is not read yet; else ``None``."""
    files = {hit.path for hit in hits}
    if len(files) != 1:
        return None
    (path,) = files
    if path not in reads:
        return path
    lines = reads[path]
    inside = [hit for hit in hits if state <= _key_words(key_path(lines, hit.number))]
    if len(inside) != 1:
        return None
    hit = inside[0]
    above = lines.get(hit.number - 1, "")
    if above.rstrip().endswith(",") and not hit.text.rstrip().endswith(","):
        return None  # a JSON list's last element of several: the comma above is the model's
    return Chosen(hit, lambda line: "", f"Take this entry out of {path}.")
