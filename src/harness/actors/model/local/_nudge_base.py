"""What every nudge rule shares: the nudge it returns, the rule's shape, the words of an
intention or of a negation, and how a nudge asks for a call."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import ClassVar, Protocol

import attrs

from harness.actors.model.local._turn import FILE_NAME, Step, Turn

__all__ = [
    "CHAIN_TOOLS",
    "CLAIM_LOOK",
    "FILE_NAME",
    "INTENT",
    "NEGATED",
    "Nudge",
    "NudgeRule",
    "WrittenAhead",
    "announces",
    "block",
    "chain_search",
    "named_tool",
]


@attrs.frozen
class Nudge:
    """The user line asking the model to go on, and the tool it names ("" for none: the
    reply is not bound to a call). *instead*: the nudged generation reads the history
    without the reply it follows, the line added to the last message, because a reply
    that is wrong is what the model would write again (word for word, asked to answer
    again from a fact it had ignored)."""

    text: str
    tool: str
    instead: bool = False
    rule: str = ""
    """The name of the rule that asked (set by :func:`~._nudge.nudge_for`)."""
    arguments: dict[str, object] | None = None
    """The call's whole arguments when the reply named them already (a read of the one
    file it names: :func:`~._nudge.announced_call`): the guide writes that call itself
    instead of asking for it."""
    answer: bool = False
    """*text* is the whole answer, known before any reply: the calls a rule wrote did the
    task, and their results say what they did (:meth:`~._nudge_rename.AskedRename.ahead`);
    the guide writes it and the turn ends, no generation asked."""


class NudgeRule(Protocol):
    """One failure a reply can show, and what to ask for when it does."""

    name: ClassVar[str]

    def check(self, turn: Turn) -> Nudge | None:
        """The nudge for *turn*, or ``None`` when the reply does not show the failure."""
        ...


class WrittenAhead:
    """A rule whose calls are known before the model replies (:meth:`ahead`), which the
    guide writes with no generation. After a reply, :meth:`check` answers the same: the
    guide asks ``ahead`` first on the same turn, so ``check`` answers only callers of the
    rules alone (tests, replays)."""

    name: ClassVar[str]

    def check(self, turn: Turn) -> Nudge | None:
        return self.ahead(turn)

    def ahead(self, turn: Turn) -> Nudge | None:
        """The call (or answer) the rule writes before the model replies, or ``None``."""
        raise NotImplementedError


#: the tools a chain of calls a rule writes itself needs: its search, reads and edits
CHAIN_TOOLS = frozenset(("search_text", "read_file", "edit_file"))


def chain_search(turn: Turn, search: str) -> Step | None:
    """The search *search* that began a rule's own chain of calls, when the turn's first
    call is that search and its last call worked (the search itself, a read that showed
    the file, an edit that changed it); ``None`` when the model went its own way or a
    call of the chain went wrong."""
    first, last = turn.steps[0], turn.steps[-1]
    if first.name != "search_text" or first.arguments.get("pattern") != search:
        return None
    if last is not first and not (last.shown_lines is not None or last.wrote):
        return None
    return first


# a first-person intention: "I will read", "Let me check", "I would need to see the code"
INTENT = re.compile(
    r"\b(I will|I'll|I am going to|I'm going to|Let me(?! know)|Let's|I need to|I should|"
    r"I must|Next, I|First, I|I can now|I would need to|I'd need to|I would have to)\b",
    re.I,
)
# a claim to have looked: "I read the file and found …"
CLAIM_LOOK = re.compile(r"\bI (have |just )?(read|checked|looked at|opened|ran|searched)\b", re.I)
# words that say something is not there: "there is no compute_shipping", "does not exist"
NEGATED = re.compile(
    r"\b(not|no|none|nothing|never|cannot|can't|doesn't|isn't|aren't|wasn't|don't|"
    r"missing|absent|unable|neither|nor|without)\b",
    re.I,
)


def block(tool: str) -> str:
    """How a nudge asks for a call of *tool*: "the <tool_call> block ({"name": "read_file",
    "arguments": {...) and nothing else." """
    example = json.dumps({"name": tool, "arguments": {}})[:-2]
    return f"the <tool_call> block ({example}...) and nothing else."


def announces(turn: Turn) -> re.Match[str] | None:
    """The reply's first announcement: an intention, or, answering the prompt itself
    (no tool has run), a claim to have looked ("I read the file and found …")."""
    intent = INTENT.search(turn.reply)
    if intent is None and not turn.after_result:
        intent = CLAIM_LOOK.search(turn.reply)
    return intent


def named_tool(text: str, names: Sequence[str]) -> str | None:
    """The tool of *names* that *text* names first, or ``None``."""
    hits = [(text.find(n), n) for n in names if n in text]
    return min(hits)[1] if hits else None
