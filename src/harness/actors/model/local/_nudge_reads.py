"""Nudge rule read-named: the read of the one file a question asks about, written before
the model replies (a rule with ``ahead``: the guide asks it before any reply, so the
model never replies to such a prompt with nothing read)."""

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

__all__ = ["ReadNamed"]

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
