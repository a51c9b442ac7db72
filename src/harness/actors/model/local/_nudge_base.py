"""What every nudge rule shares: the nudge it returns, the rule's shape, the words of an
intention or of a negation, and how a nudge asks for a call."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import ClassVar, NamedTuple, Protocol

import attrs

from harness.actors.model.local._settings import numbered_lines
from harness.actors.model.local._turn import FILE_NAME, Step, Turn

__all__ = [
    "CHAIN_TOOLS",
    "CLAIM_LOOK",
    "CODE_BLOCK",
    "FILE_NAME",
    "HIT",
    "INTENT",
    "NEGATED",
    "NOT_FILES",
    "QUESTION",
    "Chosen",
    "Hit",
    "Nudge",
    "NudgeRule",
    "WrittenAhead",
    "announces",
    "block",
    "chain_search",
    "edit_arguments",
    "edit_block",
    "literal",
    "named_tool",
    "one_line_chain",
    "printed",
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
    at: tuple[int, ...] = ()
    """The numbers of the lines of the file just read that an edit asked for (bound to
    that file's lines) starts on, where the rule knows them (:class:`~._nudge_arguments.
    MissingArgument`: the call to change); else the lines the request points at."""
    retract: str = ""
    """A sentence the guide writes before the nudged generation, saying what of the reply
    before it was wrong: that reply was streamed as it came and stays in the answer, so
    the answer says it was wrong (:class:`~._nudge_figures.MadeUpFigure`)."""
    not_given: bool = False
    """The reply asked for is one sentence saying the files looked at do not give what was
    asked: with the grammar on, it is bound to that sentence, with no digit in it
    (:data:`~._grammar.NOT_GIVEN`)."""


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


def edit_arguments(path: str, edits: list[dict[str, str]]) -> dict[str, object]:
    """The arguments of the edit_file call making *edits* (each an old and a new text) in
    *path*: one edit given flat, more as the list."""
    return {"path": path, **edits[0]} if len(edits) == 1 else {"path": path, "edits": edits}


def printed(result: str) -> bool:
    """Whether a command's *result* says it exited 0 having printed something (run_cmd
    writes "(no output)" for a command that printed nothing: actors/shell/_format.py)."""
    lines = [line for line in result.splitlines() if line.strip() and line != "(no output)"]
    return "[exit code 0]" in lines and len(lines) > 1


#: the tools a chain of calls a rule writes itself needs: its search, reads and edits
CHAIN_TOOLS = frozenset(("search_text", "read_file", "edit_file"))


def chain_search(turn: Turn, search: str, *, then: str | None = None) -> Step | None:
    """The search *search* that began a rule's own chain of calls, when the turn's first
    call is that search (and its second, where the chain searches *then* too and has
    gone on) and its last call worked (a search of the chain, a read that showed the
    file, an edit that changed it); ``None`` when the model went its own way or a call
    of the chain went wrong."""
    first, last = turn.steps[0], turn.steps[-1]
    if first.name != "search_text" or first.arguments.get("pattern") != search:
        return None
    searches = [first]
    if then is not None and len(turn.steps) > 1:
        second = turn.steps[1]
        if second.name != "search_text" or second.arguments.get("pattern") != then:
            return None
        searches.append(second)
    if all(last is not s for s in searches) and not (last.shown_lines is not None or last.wrote):
        return None
    return first


def literal(text: str) -> str:
    """A regular expression matching *text* as written, that ripgrep and Python both read:
    Python's ``re.escape`` escapes a space, which ripgrep refuses (the search then runs
    in Python, slower), so only the characters regular expressions use are escaped."""
    return re.sub(r"([\\.^$|?*+()\[\]{}])", r"\\\1", text)


class Hit(NamedTuple):
    """A line a search listed: its file, its number and its text."""

    path: str
    number: int
    text: str


# a search's hit, "config.json:12:      \"retries\": 2,", in any file (a setting may be in
# one with no extension: ``bin/backup``, ``.env``)
HIT = re.compile(r"^((?:[\w.-]+/)*[\w.-]+):(\d+):(.*)$", re.M)


@attrs.frozen
class Chosen:
    """The one line a rule's own search found to change, and what it is to become:
    *make* is given the line as a read shows it and returns the line to write (``None``:
    the line is not one to change after all)."""

    hit: Hit
    make: Callable[[str], str | None]
    say: str
    """What the edit does, said to the user ("Write 60 on this line of station.toml.")."""


#: how a rule chooses from its search's hits, knowing the lines of the files read since
#: (by path, each line by its number): the line to change; a file to read before
#: choosing (a path); or ``None``, and the model goes on
Choose = Callable[[list[Hit], dict[str, dict[int, str]]], "Chosen | str | None"]


def _unique(lines: dict[int, str], number: int, line: str, made: str) -> tuple[str | None, str]:
    """The old and new text of an edit of line *number* (*line* to *made*; ``""``: the
    line taken out) that the file holds once: the line alone, or with as many lines
    above it (up to two) as make it the only one (``replicas: 1`` under ``worker:``);
    ``(None, "")`` where none do. A line taken out goes with the line ending before it,
    so no empty line is left."""
    text = "\n".join(lines[n] for n in sorted(lines))
    old, new = line, made
    if not made:
        if number - 1 not in lines:
            return None, ""
        old, new = f"{lines[number - 1]}\n{line}", lines[number - 1]
        number -= 1
    for above in (number - 1, number - 2, None):
        if text.count(old) == 1:
            return old, new
        if above is None or above not in lines:
            break
        old, new = f"{lines[above]}\n{old}", f"{lines[above]}\n{new}"
    return None, ""


def one_line_chain(
    turn: Turn, search: str, opening: str, choose: Choose, *, glob: str | None = None
) -> Nudge | None:
    """The calls of a rule that changes one line its own search finds, each written by
    the harness: the search *search* (said as *opening*; in the files *glob* matches,
    where given); then, for the line *choose* picks from its hits, the read of its file
    (first the read of a file *choose* asks to see before it can pick) and the edit of
    that line. ``None`` once the model went its own way, a call went wrong, a file was
    changed, or *choose* picks no line."""
    if not turn.steps:
        where = {"glob": glob} if glob else {}
        return Nudge(opening, "search_text", arguments={"pattern": search, "regex": True, **where})
    first = chain_search(turn, search)
    if first is None or turn.edited:
        return None
    last = turn.steps[-1]
    # a search that matched nothing lists lines holding its words instead: no hits
    found = not first.result.startswith("no matches")
    hits = [Hit(m[1], int(m[2]), m[3]) for m in HIT.finditer(first.result) if found]
    reads = {
        s.path: numbered_lines(s.result)
        for s in turn.steps[1:]
        if s.name == "read_file" and s.path and s.shown_lines is not None
    }
    chosen = choose(hits, reads)
    if isinstance(chosen, str):
        # a file to read before choosing: right after the search, or after the reads of
        # other such files (lines that tie in two files, each under its keys)
        if chosen in reads or not (last is first or last.name == "read_file"):
            return None
        return Nudge(
            f"{chosen} holds the lines to choose from.", "read_file", arguments={"path": chosen}
        )
    if chosen is None:
        return None
    path = chosen.hit.path
    if path in reads and last.name == "read_file":
        shown = reads[path].get(chosen.hit.number)
        if shown is None or shown.strip() != chosen.hit.text.strip():
            return None  # the file is not as the search showed it
        made = chosen.make(shown)
        if made is None or made == shown:
            return None
        old, new = _unique(reads[path], chosen.hit.number, shown, made)
        if old is None:
            return None
        return Nudge(
            chosen.say, "edit_file", arguments={"path": path, "old_text": old, "new_text": new}
        )
    if last is not first:
        return None
    return Nudge(f"{path} holds the setting.", "read_file", arguments={"path": path})


# a first-person intention: "I will read", "Let me check", "I would need to see the code"
INTENT = re.compile(
    r"\b(I will|I'll|I am going to|I'm going to|Let me(?! know)|Let's|I need to|I should|"
    r"I must|Next, I|First, I|I can now|I would need to|I'd need to|I would have to)\b",
    re.I,
)
# a claim to have looked: "I read the file and found …"
CLAIM_LOOK = re.compile(r"\bI (have |just )?(read|checked|looked at|opened|ran|searched)\b", re.I)
# a question: a question mark anywhere, or the words one starts with
QUESTION = re.compile(r"\?|^\s*(?:what|which|where|how|who|when|why|is|are|does|do|can)\b", re.I)
NOT_FILES = frozenset({"e.g", "i.e"})  # what FILE_NAME also reads as file names
# words that say something is not there: "there is no compute_shipping", "does not exist"
NEGATED = re.compile(
    r"\b(not|no|none|nothing|never|cannot|can't|doesn't|isn't|aren't|wasn't|don't|"
    r"missing|absent|unable|neither|nor|without)\b",
    re.I,
)


def edit_block(path: str | None) -> str:
    """How a nudge asks for an edit of the file at *path* (``None``: any file): "Write
    the <tool_call> block ({"name": "edit_file", "arguments": {"path": "calc.py"}} then
    <old_content> and <new_content>) and nothing else." """
    where = "..." if path is None else f'"{path}"'
    return (
        f'Write the <tool_call> block ({{"name": "edit_file", "arguments": {{"path": {where}}}}} '
        "then <old_content> and <new_content>) and nothing else."
    )


CODE_BLOCK = re.compile(r"^[ \t]*```([^\n`]*)\n(.*?)(?:^[ \t]*```|\Z)", re.M | re.S)
"""A code block of a reply: the word after its fence, and its lines (a block left open
at the end of the reply counts to there)."""


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
