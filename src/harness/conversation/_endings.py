"""Honest endings: a run whose last reply says something happened that did not.

Any model, large or small, can end a task with "I have updated calc.py" when no edit ran,
or with "I will summarize notes.md for you." and nothing after it. Such a run must not end
as a plain success: :func:`honest_ending` reads the last reply beside what the run's
successful calls could have done, and says why the run did not complete.

A claim is read from the reply's prose (code blocks left out), in the first person or the
passive perfect ("has been updated"); a negation ("I have not changed anything") is not a
claim. A claim to have changed something is backed by any successful call that can change
the workspace (a write or edit, a command, a sub-agent, a tool harness does not know, such
as an MCP server's); a claim to have run something, by a command, a sub-agent or an
unknown tool.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import attrs

__all__ = ["CHANGING_KINDS", "RUNNING_KINDS", "Ending", "honest_ending"]

#: tool kinds whose success backs a claimed change ("other": a tool outside the table)
CHANGING_KINDS = frozenset({"mutating", "shell", "agent", "other"})
#: tool kinds whose success backs a claimed run
RUNNING_KINDS = frozenset({"shell", "agent", "other"})

_CHANGED = (
    r"edited|created|wrote|written|fixed|updated|changed|modified|renamed|replaced|added|"
    r"removed|deleted|saved|applied|refactored|implemented|moved|corrected"
)
_CLAIMS_CHANGE = re.compile(
    rf"\bI(?:'ve| have| just| then| also| now| already)* (?:{_CHANGED})\b"
    rf"|\b(?:has|have) (?:now |already |also )?been (?:{_CHANGED})\b"
    r"(?! in (?:version|v?\d|release))"
    r"|\bI(?:'ve| have| just| then| also)* made (?:the |these |those |all |your )?"
    r"(?:changes?|edits?|fix(?:es)?)\b",
    re.I,
)
_CLAIMS_RUN = re.compile(
    r"\bI(?:'ve| have| just| then| also| now| already)* (?:ran|executed)\b"
    r"|\bI(?:'ve| have)(?: just| also| now| already)* run\b"
    r"|\b(?:has|have) (?:now |already |also )?been (?:run|executed)\b",
    re.I,
)
# the last sentence announces an action and nothing follows: "I will summarize X for you."
_ANNOUNCES = re.compile(
    r"^(?:(?:now|next|first|then|okay|ok|sure|great|alright)[,!.]?\s+)*"
    r"(?:I will|I'll|I am going to|I'm going to|let me|let's|I need to|I should)\s+"
    r"(?:now |first |then |also |quickly |go ahead and )*"
    r"(?:read|open|check|look|run|execute|search|find|list|edit|fix|update|change|modify|"
    r"create|write|add|remove|delete|rename|summari[sz]e|examine|inspect|analy[sz]e|review|"
    r"implement|test|install|refactor|call|use|start|apply|make|replace|investigate|explore|"
    r"gather|fetch|get|see|view|verify)\b",
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
            happen) or ``stopped_early`` (it announced an action and stopped).
        message: one sentence for the user.
    """

    reason: str
    message: str


def _prose(text: str) -> str:
    return _INLINE.sub("code", _FENCE.sub("", text))


def _quote(text: str, at: int, end: int) -> str:
    """The sentence around *text*[at:end], at most 120 characters."""
    starts = [m.end() for m in _SENTENCE_END.finditer(text, 0, at)]
    start = starts[-1] if starts else 0
    after = _SENTENCE_END.search(text, end)
    sentence = text[start : after.start() if after else len(text)].strip()
    return sentence if len(sentence) <= 120 else sentence[:117].rstrip() + "..."


def _last_sentence(prose: str) -> str:
    parts = [p.strip() for p in _SENTENCE_END.split(prose.strip()) if p.strip()]
    return parts[-1] if parts else ""


def honest_ending(
    text: str, acted: Collection[str], *, announcements: bool = True
) -> Ending | None:
    """Why a run whose last reply is *text* did not complete, or ``None`` when it did.

    Args:
        text: the last reply's visible text (it made no call).
        acted: the kinds of the tools whose calls succeeded in the run (a tool outside
            the table: ``other``).
        announcements: also end a reply that announces an action and stops (off where
            a stage is meant to end on a plan).
    """
    prose = _prose(text)
    changed = _CLAIMS_CHANGE.search(prose)
    if changed is not None and not CHANGING_KINDS & set(acted):
        said = _quote(prose, changed.start(), changed.end())
        return Ending(
            "unbacked_claim",
            f'the model said it changed something ("{said}"), but no call that changes '
            "files succeeded in this run",
        )
    ran = _CLAIMS_RUN.search(prose)
    if ran is not None and not RUNNING_KINDS & set(acted):
        said = _quote(prose, ran.start(), ran.end())
        return Ending(
            "unbacked_claim",
            f'the model said it ran something ("{said}"), but no command ran in this run',
        )
    last = _last_sentence(prose)
    if announcements and _ANNOUNCES.match(last) and not last.endswith("?"):
        return Ending(
            "stopped_early",
            f'the model stopped before doing what it said ("{_quote(last, 0, len(last))}")',
        )
    return None
