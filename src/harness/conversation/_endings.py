"""Honest endings: a run whose model says something happened that did not.

Any model, large or small, can end a task with "I have updated calc.py" when no edit ran,
with "Here's the updated calc.py file:" and a file of its own in a code block, or with
"I will summarize notes.md for you." and nothing after it; and a run the harness itself
stopped (a cap on repeated calls) has no answer at all. Such a run must not end as a
plain success. Each failure is a rule here: a small named object whose ``check`` reads
the run as it ended (:class:`RunSoFar`) and says why it did not complete.
:func:`honest_ending` asks the rules in order; the first that answers wins.

What the words mean decides, never a task's wording:

- a *claim* is read from a reply's prose (code blocks left out), in the first person
  ("I set", "I made the necessary changes", "I used the edit tool to replace") or the
  present perfect ("has been updated"); a negation ("I have not changed
  anything") is not one, nor is an answer about the answer itself ("I wrote a summary
  below") or about history ("was fixed in version 2.1");
- a claim to have changed something counts from any reply of the run (a small model
  says "I renamed it" beside a call that then changes nothing), and is backed by a
  successful call that can change the workspace and did (a write or edit that changed
  something, a command, a sub-agent, a tool harness does not know, such as an MCP
  server's); a claim to have run something, by a command, a sub-agent or an unknown
  tool;
- an *announcement* is the last sentence saying what the model will do next;
- a *described change* is the last reply saying what the code should be ("It should
  return a + b") when the prompt asks for a change; a question or an offer is not one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import ClassVar, Protocol

import attrs

__all__ = [
    "CAPPED_FINISHES",
    "CHANGING_KINDS",
    "RULES",
    "RUNNING_KINDS",
    "AnnouncedAction",
    "ClaimedChange",
    "ClaimedRun",
    "DescribedNotMade",
    "Ending",
    "EndingRule",
    "HandedOverChange",
    "RunSoFar",
    "StoppedByCap",
    "honest_ending",
]

#: tool kinds whose success backs a claimed change ("other": a tool outside the table)
CHANGING_KINDS = frozenset({"mutating", "shell", "agent", "other"})
#: tool kinds whose success backs a claimed run
RUNNING_KINDS = frozenset({"shell", "agent", "other"})
#: a reply's finish reasons that say the model worker stopped the model, not the model
#: itself: ``repeat_cap`` (the same call made again past the profile's cap)
CAPPED_FINISHES = frozenset({"repeat_cap"})

_CHANGED = (
    r"edited|created|wrote|written|fixed|updated|changed|modified|renamed|replaced|added|"
    r"removed|deleted|saved|applied|refactored|implemented|moved|corrected|set|turned|"
    r"switched|bumped|increased|decreased|raised|lowered|enabled|disabled|adjusted|"
    r"inserted|appended|converted|reverted|restored|patched|swapped|commented out|"
    r"uncommented"
)
# what a "created"/"wrote"/"added" can be about that is the answer itself, not a file
_ANSWER_ITSELF = (
    r"(?! (?:a |an |the |this |my |your |some |)(?:\w+ )?(?:plan|summary|overview|outline|"
    r"list|table|answer|response|explanation|breakdown|draft|report|description|note)s?\b)"
    r"(?! (?:it |them |this |these )?below\b)"
)
# within one sentence: a dot only inside a word ("package.json", "1.2.0")
_WORDS = r"(?:[^.\n]|\.(?=\w))"
_CLAUSE = r"(?:[^,.;:\n]|\.(?=\w))"
# history, not this run: "has been fixed in version 2.1", "was added in release 3"
_HISTORY = r"(?! (?:in|since|as of) (?:version|v?\d|release|commit|the (?:\w+ )?release))"
_CLAIMS_CHANGE = re.compile(
    rf"\bI(?:'ve| have| just| then| also| now| already| successfully)* (?:{_CHANGED})\b"
    rf"{_ANSWER_ITSELF}"
    rf"|\b(?:has|have) (?:now |already |also |successfully )?been (?:{_CHANGED})\b{_HISTORY}"
    # "I made the necessary changes", "I've made all the requested edits"
    r"|\bI(?:'ve| have| just| then| also)* made (?:\w+ ){0,3}?"
    r"(?:changes?|edits?|fix(?:es)?|modifications?|updates?|adjustments?|corrections?)\b"
    # "I read it, and then used the edit_file tool to replace the version"
    rf"|\bI\b{_WORDS}{{0,120}}?\b(?:used|called|invoked)\b{_WORDS}{{0,60}}?\bto (?:edit|change|"
    r"replace|update|modify|fix|write|create|rename|remove|delete|set|add|correct)\b",
    re.I,
)
# a changed file handed over as the result: "Here's the updated `inventory.py` file:"
_HANDS_OVER = re.compile(
    r"\b(?:here(?:'s| is| are)|below (?:is|are)|this is) (?:the|your) (?:now )?"
    r"(?:updated|modified|changed|fixed|corrected|edited|new|revised|rewritten) "
    r"(?:version of (?:the )?)?(?:(?:`[^`\n]+`|[\w./-]+\.\w{1,5}) ?(?:files?|scripts?)?|"
    r"files?|scripts?|config(?:uration)?(?: files?)?)\b",
    re.I,
)
_CLAIMS_RUN = re.compile(
    r"\bI(?:'ve| have| just| then| also| now| already)* (?:ran|executed)\b"
    r"|\bI(?:'ve| have)(?: just| also| now| already)* run\b"
    r"|\b(?:has|have) (?:now |already |also )?been (?:run|executed)\b",
    re.I,
)
# the last sentence announces an action and nothing follows: "I will summarize X for
# you.", "To summarize X, I will read the file" (a lead-in of purpose or order, never a
# condition: "If you want, I will fix it" offers)
_ANNOUNCES = re.compile(
    rf"^(?:(?:to|in order to|before|after|now that|first|next|then|so)\b{_CLAUSE}{{0,100}},\s*)?"
    r"(?:(?:now|next|first|then|okay|ok|sure|great|alright)[,!.]?\s+)*"
    r"(?:I will|I'll|I am going to|I'm going to|let me|let's|I need to|I should)\s+"
    r"(?:now |first |then |also |quickly |go ahead and )*"
    r"(?:read|open|check|look|run|execute|search|find|list|edit|fix|update|change|modify|"
    r"create|write|add|remove|delete|rename|summari[sz]e|examine|inspect|analy[sz]e|review|"
    r"implement|test|install|refactor|call|use|start|apply|make|replace|investigate|explore|"
    r"gather|fetch|get|see|view|verify)\b",
    re.I,
)
# a prompt that asks for a change (or a run): a clause starts with the verb ("Fix it.", "In
# calc.py, make add return a + b.", "... and set it to 30"); "Why does make fail?" asks none
_ASKED = r"(?:^|[.!?;:,]\s*|\n\s*|\b(?:and|then|please|can you|could you|would you|you to)\s+)"
_ASKS_CHANGE = re.compile(
    rf"{_ASKED}(?:fix|change|make(?! sure\b)|set|update|edit|modify|correct|replace|rename|"
    r"remove|delete|add|bump|turn|switch|increase|decrease|raise|lower|enable|disable|"
    r"refactor|move|insert|append|swap|convert|rewrite)\b",
    re.I,
)
_ASKS_RUN = re.compile(rf"{_ASKED}(?:run|execute|test)\b", re.I)
# a sentence saying what the code should be, or telling the user what to change
_DESCRIBES_FIX = re.compile(
    r"\b(?:should|must|needs? to|has to|have to|ought to|would need to)"
    r"(?: now| instead| rather| actually| really| only)? (?:be|return|read|say|use|print|"
    r"equal|contain|call|take|check|compare|filter|include|exclude|become|keep|list|show)\b"
    r"|\byou(?:'ll| will)? (?:should|need to|can|could|must|have to|would need to|"
    r"may want to|might want to) (?:simply |just )?(?:change|replace|update|modify|edit|set|"
    r"fix|add|remove|rename|correct|swap|use)\b"
    r"|\bto fix (?:this|it|that|the (?:\w+ )?(?:bug|issue|problem|error))\b"
    r"|\bthe (?:fix|solution|correction) (?:is|would be) to\b"
    r"|\bthe (?:correct|right|fixed|corrected) (?:code|line|version|implementation|value|"
    r"condition|comparison) (?:is|would be|should be)\b"
    r"|(?:^|(?<=[.!?] )|(?<=\n))(?:simply |just )?(?:change|replace|update|modify|swap) \S",
    re.I,
)
# a sentence that says nothing needs changing, offers, or asks
_NO_FIX_NEEDED = re.compile(
    r"\b(?:already|nothing|no (?:change|fix|edit|need)s?\b|(?:not|n't) (?:need|be changed)|"
    r"as (?:it|they) should)|\bif you (?:want|like|'d like|wish|prefer)|^if\b|"
    r"\b(?:would you like|do you want|shall I|let me know)\b",
    re.I,
)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE = re.compile(r"`[^`\n]*`")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


@attrs.frozen
class Ending:
    """Why a run did not complete although the model stopped calling tools.

    Attributes:
        reason: ``unbacked_claim`` (it said it changed or ran something that did not
            happen), ``described_not_made`` (asked for a change, it said what the change
            is and made none), ``stopped_early`` (it announced an action and stopped) or
            ``stopped_by_cap`` (the model worker stopped it before it answered).
        message: one sentence for the user.
    """

    reason: str
    message: str


@attrs.frozen
class RunSoFar:
    """What the ending rules read of a run the model ended with no call.

    Attributes:
        reply: the last reply's visible text.
        acted: the kinds of the tools whose calls succeeded in the run and did not say
            they changed nothing (a tool outside the table: ``other``).
        earlier: the visible text of the run's earlier replies, oldest first.
        finish: why the last reply stopped (``stop``, or one of :data:`CAPPED_FINISHES`).
        announcements: whether an announced action ends the run (off where a stage is
            meant to end on a plan).
        prompt: the prompt the run answers ("" when unknown).
    """

    reply: str
    acted: frozenset[str] = frozenset()
    earlier: tuple[str, ...] = ()
    finish: str = "stop"
    announcements: bool = True
    prompt: str = ""

    def replies(self) -> Iterable[str]:
        """Every reply's text without its code blocks, the last first."""
        yield _FENCE.sub("", self.reply)
        for text in reversed(self.earlier):
            yield _FENCE.sub("", text)


class EndingRule(Protocol):
    """One way a run can end without doing what it says."""

    name: ClassVar[str]

    def check(self, run: RunSoFar) -> Ending | None:
        """Why *run* did not complete, or ``None`` when it does not show this failure."""
        ...


class StoppedByCap:
    """The model worker stopped the model before it answered (it made the same call past
    the profile's repeat cap): the reply is the worker's own sentence, not an answer."""

    name: ClassVar[str] = "stopped-by-cap"

    def check(self, run: RunSoFar) -> Ending | None:
        if run.finish not in CAPPED_FINISHES:
            return None
        said = run.reply.strip().removeprefix("stopped: ").rstrip(".")
        why = f": {said}" if said else ""
        return Ending("stopped_by_cap", f"the model was stopped before it answered{why}")


class ClaimedChange:
    """A reply of the run says a change was made ("I set timeout to 30", "has been
    renamed", "I made the necessary changes") and no call changed anything."""

    name: ClassVar[str] = "claimed-change"

    def check(self, run: RunSoFar) -> Ending | None:
        if CHANGING_KINDS & run.acted:
            return None
        for text in run.replies():
            said = _find(_CLAIMS_CHANGE, text)
            if said is not None:
                return Ending(
                    "unbacked_claim",
                    f'the model said it changed something ("{said}"), but no call changed '
                    "files in this run",
                )
        return None


class HandedOverChange:
    """The last reply hands over a changed file as the result ("Here's the updated
    `inventory.py` file:") and no call changed anything: the file on disk is as it was."""

    name: ClassVar[str] = "handed-over-change"

    def check(self, run: RunSoFar) -> Ending | None:
        if CHANGING_KINDS & run.acted:
            return None
        # the file name is often inline code: read the reply with it
        text = _FENCE.sub("", run.reply)
        found = _HANDS_OVER.search(text)
        if found is None:
            return None
        said = _quote(text, found.start(), found.end())
        return Ending(
            "unbacked_claim",
            f'the model gave a changed file in its answer ("{said}"), but no call changed '
            "files in this run",
        )


class DescribedNotMade:
    """The prompt asks for a change, and the last reply says what the code should be
    ("The method should return the SKUs at or below the threshold", "To fix it, change
    ``-`` to ``+``") while no call changed anything: the fix is described, not made."""

    name: ClassVar[str] = "described-not-made"

    def check(self, run: RunSoFar) -> Ending | None:
        if CHANGING_KINDS & run.acted or not _ASKS_CHANGE.search(run.prompt):
            return None
        text = _FENCE.sub("", run.reply)
        masked = _masked(text)
        for found in _DESCRIBES_FIX.finditer(masked):
            start, stop = _bounds(masked, found.start(), found.end())
            sentence = masked[start:stop].strip()
            if sentence.endswith("?") or _NO_FIX_NEEDED.search(sentence):
                continue
            said = _quote(text, found.start(), found.end())
            why = f'the model described the change ("{said}"), but no call made it in this run'
            return Ending("described_not_made", why)
        return None


class ClaimedRun:
    """The last reply says a command ran ("I ran the tests") and none did, or an earlier
    one does in a run asked to run one ("I then ran the tests" beside an edit is a story)."""

    name: ClassVar[str] = "claimed-run"

    def check(self, run: RunSoFar) -> Ending | None:
        if RUNNING_KINDS & run.acted:
            return None
        every = not run.prompt or _ASKS_RUN.search(run.prompt) is not None
        for text in run.replies() if every else [_FENCE.sub("", run.reply)]:
            said = _find(_CLAIMS_RUN, text)
            if said is not None:
                return Ending(
                    "unbacked_claim",
                    f'the model said it ran something ("{said}"), but no command ran in this run',
                )
        return None


class AnnouncedAction:
    """The last sentence announces what the model will do ("I will summarize notes.md",
    "To summarize it, I will read the file") and the reply stops there."""

    name: ClassVar[str] = "announced-action"

    def check(self, run: RunSoFar) -> Ending | None:
        if not run.announcements:
            return None
        last, masked = _last_sentence(next(iter(run.replies())))
        if not _ANNOUNCES.match(masked) or masked.endswith("?"):
            return None
        return Ending(
            "stopped_early",
            f'the model stopped before doing what it said ("{_quote(last, 0, len(last))}")',
        )


#: the rules, in the order they are asked
RULES: tuple[EndingRule, ...] = (
    StoppedByCap(),
    ClaimedChange(),
    HandedOverChange(),
    DescribedNotMade(),
    ClaimedRun(),
    AnnouncedAction(),
)


def _masked(text: str) -> str:
    """*text* with inline code blanked out (same length, so a place in one is the same
    place in the other): what is in code is never read as words."""
    return _INLINE.sub(lambda m: "`" + "_" * (len(m.group()) - 2) + "`", text)


def _find(pattern: re.Pattern[str], text: str) -> str | None:
    """The sentence of *text* (code blocks gone) where *pattern* matches its prose."""
    found = pattern.search(_masked(text))
    return None if found is None else _quote(text, found.start(), found.end())


def _bounds(masked: str, at: int, end: int) -> tuple[int, int]:
    """Where the sentence around *masked*[at:end] starts and ends."""
    starts = [m.end() for m in _SENTENCE_END.finditer(masked, 0, at)]
    after = _SENTENCE_END.search(masked, end)
    return (starts[-1] if starts else 0), (after.start() if after else len(masked))


def _quote(text: str, at: int, end: int) -> str:
    """The sentence around *text*[at:end], at most 120 characters."""
    start, stop = _bounds(_masked(text), at, end)
    sentence = text[start:stop].strip()
    return sentence if len(sentence) <= 120 else sentence[:117].rstrip() + "..."


def _last_sentence(text: str) -> tuple[str, str]:
    """The last sentence of *text*: as written, and with its inline code blanked."""
    masked = _masked(text)
    ends = [m.end() for m in _SENTENCE_END.finditer(masked.rstrip())]
    start = ends[-1] if ends else 0
    return text[start:].strip(), masked[start:].strip()


def honest_ending(
    text: str,
    acted: Collection[str],
    *,
    announcements: bool = True,
    earlier: Iterable[str] = (),
    finish: str = "stop",
    prompt: str = "",
) -> Ending | None:
    """Why a run whose last reply is *text* did not complete, or ``None`` when it did.

    Args:
        text: the last reply's visible text (it made no call).
        acted: the kinds of the tools whose calls succeeded in the run and did not say
            they changed nothing (a tool outside the table: ``other``).
        announcements: also end a reply that announces an action and stops (off where
            a stage is meant to end on a plan).
        earlier: the run's earlier replies' text, oldest first.
        finish: why the last reply stopped.
        prompt: the prompt the run answers ("" when unknown).
    """
    run = RunSoFar(text, frozenset(acted), tuple(earlier), finish, announcements, prompt)
    for rule in RULES:
        ending = rule.check(run)
        if ending is not None:
            return ending
    return None
