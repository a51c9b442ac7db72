"""The turn a nudge rule reads: the prompt, the calls since it and their results, the reply.

:func:`turn_of` builds it from the request's typed history, before the history is written
out for the chat template. A history that reached the model worker already in the text
protocol (calls as ``<tool_call>`` text, results as user messages in ``<tool_response>``
tags) is read back here, and only here, so no rule ever looks at how a turn is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from harness.actors.model import parse_reply
from harness.messages.model import ChatMessage, ToolSchema
from harness.words import asks_for_change

__all__ = [
    "EDIT_TOOLS",
    "FILE_NAME",
    "Absent",
    "Step",
    "Turn",
    "about_workspace",
    "absent",
    "asks_change",
    "asks_new",
    "code_names",
    "culprits",
    "named_starts",
    "turn_of",
]

#: the tools that change a file
EDIT_TOOLS = ("edit_file", "write_file")

# what only a write or edit that worked answers, on a line of its own (tools/_files.py)
_WROTE = re.compile(r"^(edited|wrote|created) \S", re.M)
# what only a read that worked shows: lines tagged with their number and hash
_READ_OK = re.compile(r"^\d+:[0-9a-f]{2}\|", re.M)
# what edit_file answers when an old_text is not in a small file: the file, tagged (its
# wording is in tools/_edit.py, _not_found)
_SHOWN = "copy old_text exactly from the file, which is now"
_TAGGED_LINE = re.compile(r"^\d+:[0-9a-f]{2}\|(.*)$", re.M)
_RESPONSE = re.compile(r"<tool_response>\n?(.*?)\n?</tool_response>", re.S)


@attrs.frozen
class Step:
    """One call made since the prompt, and what its tool answered ("" for no answer)."""

    name: str
    arguments: Mapping[str, Any] = attrs.field(factory=dict)
    result: str = ""

    @property
    def wrote(self) -> bool:
        """Whether this is a write or edit whose tool says it changed the file."""
        return self.name in EDIT_TOOLS and _WROTE.search(self.result) is not None

    @property
    def path(self) -> str | None:
        """The ``path`` the call named, if any."""
        path = self.arguments.get("path")
        return path if isinstance(path, str) else None

    @property
    def shown_lines(self) -> list[str] | None:
        """The file's lines (untagged) the result shows: a read that worked, or an edit
        refused with the file shown; ``None`` for any other result."""
        if self.name == "read_file" and _READ_OK.search(self.result):
            return _TAGGED_LINE.findall(self.result)
        if self.name == "edit_file" and _SHOWN in self.result:
            return _TAGGED_LINE.findall(self.result)
        return None


@attrs.frozen
class Turn:
    """What a nudge rule reads.

    Attributes:
        prompt: the user's last prompt ("" when there is none).
        steps: the calls since the prompt, in order, each with its result.
        reply: the reply the model just wrote.
        reply_calls: how many calls the reply makes.
        tools: the names of the tools offered.
        earlier: earlier prompts and the results of calls made before the prompt.
    """

    prompt: str
    steps: tuple[Step, ...]
    reply: str
    reply_calls: int = 0
    tools: tuple[str, ...] = ()
    earlier: tuple[str, ...] = ()

    @property
    def after_result(self) -> bool:
        """Whether the reply answers a tool result (else it answers the prompt)."""
        return bool(self.steps)

    @property
    def last(self) -> Step | None:
        """The call the reply follows, with its result."""
        return self.steps[-1] if self.steps else None

    def called(self, tool: str) -> bool:
        """Whether *tool* was called since the prompt."""
        return any(s.name == tool for s in self.steps)

    @property
    def edited(self) -> bool:
        """Whether a file was changed since the prompt (an edit its tool refused changed
        nothing)."""
        return any(s.wrote for s in self.steps)

    @property
    def saw_a_file(self) -> bool:
        """Whether a file's text was shown since the prompt."""
        return any(s.shown_lines is not None for s in self.steps)

    def last_seen(self) -> tuple[str, list[str]] | None:
        """The path and lines of the last file shown since the prompt, when the call
        that showed it named one and was the only call of its reply; else ``None``."""
        for step in reversed(self.steps):
            lines = step.shown_lines
            if lines is None:
                continue
            return (step.path, lines) if step.path and lines else None
        return None


# a line number an error message or a request cites ("line 13", "line 10:")
_LINE_NO = re.compile(r"\bline (\d+)\b", re.I)
# a file's path in a request ("config.json", "src/cart.js"): its words name no line
_PATH = re.compile(r"[\w./-]*[A-Za-z_]\w*\.[A-Za-z]\w*")
# a word of the request: a name, or a number ("0.2", "30")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?")
# words of a request that say what to do, not what to change
_PLAIN_WORDS = (
    "the and for with from that this then than into onto when what which where there "
    "should would could does not are was were has have had its fix file change make set "
    "turn use instead fails failed error running run please lines line bash python "
    "python3 node npm"
)
_PLAIN = frozenset(_PLAIN_WORDS.split())
# the name an error message says is wrong: Python's missing attribute, name or import,
# JavaScript's undefined name or non-function, the shell's unset variable or unknown
# command, a program's own "unknown coupon SPRNG10" ("'Inventory' object has no attribute
# 'lowstock'": lowstock, not Inventory), on a line of its own or quoted in a sentence ("it
# says line 12: akw: command not found.", "dies with `Error: unknown coupon SPRNG10` when",
# "failing with 'OUTDIR: unbound variable'", "throws 'unknown coupon SPRNG10' - "), or
# the shell's said in words ("it calls akw (command not found)", "calls log_okay on line
# 17 but there's no such command")
_CULPRIT = re.compile(
    r"has no attribute '(\w+)'|name '(\w+)' is not defined|cannot import name '(\w+)'"
    r"|ReferenceError: (\w+) is not defined|TypeError: (?:[\w.]+\.)?(\w+) is not a function"
    r"|[:'\"`] ?(\w+): (?:unbound variable|command not found)(?=[`'\".,;!]*(?:\s|$))"
    r"|\b(?:calls|runs|uses|invokes) (\w+)\b[^.\n]{0,50}?(?:\bcommand not found\b|"
    r"\bno such command\b)"
    r"|\b[Uu]nknown [a-z]+:? (?:['\"]([A-Za-z_]\w*)['\"]|([A-Za-z_]\w*))"
    r"(?=[`'\"]|[.,;!]?\s*$|[.,;!]\s)",
    re.M,
)
# a word of the request on more lines of the file than this names no line in particular
_RARE = 3


def named_starts(prompt: str, lines: list[str]) -> list[int]:
    """The indexes of the lines of a file (*lines*) that *prompt* points at, in order: the
    line a cited line number names and the one before it (a parser often reports a
    missing comma on the line after), and the lines holding a word or number of the
    prompt that is on at most three lines of the file; [] when it points at none. Where
    the prompt quotes an error naming a wrong name (a missing attribute, name or import;
    an undefined name or a non-function in JavaScript) that the file holds, the lines
    holding it stand for the words: an edit bound to ``Inventory``'s two lines as well as
    ``lowstock``'s started on the first and changed nothing. An edit bound to a file's
    lines starts its old text on one of them.

    Measured (bench local-tasks, the fresh set's half A): an edit bound to all of a
    file's lines took the file's first eight lines as its old text in five tasks of six
    (a fix of line 10 of a script, of line 13 of a JSON file, of one setting of 40 lines),
    and its new text changed or duplicated lines the task never named."""
    picked: set[int] = set()
    for m in _LINE_NO.finditer(prompt):
        n = int(m.group(1)) - 1
        picked.update(i for i in (n - 1, n) if 0 <= i < len(lines))
    at = [
        i for i, line in enumerate(lines) for c in culprits(prompt) if re.search(rf"\b{c}\b", line)
    ]
    if at:
        # the name an error says is wrong: the lines holding it, not its other words' lines
        return sorted(i for i in picked.union(at) if lines[i].strip())
    words = _WORD.findall(_PATH.sub(" ", prompt))
    for word in {w for w in words if len(w) >= 3 or w[0].isdigit()}:
        if word.lower() in _PLAIN:
            continue
        # a word inside a longer name counts (tax in TAX_RATE): _ is no letter here
        rx = re.compile(rf"(?<![A-Za-z0-9.]){re.escape(word)}(?![A-Za-z0-9]|\.\d)", re.I)
        hits = [i for i, line in enumerate(lines) if rx.search(line)]
        if len(hits) <= _RARE:
            picked.update(hits)
    return sorted(i for i in picked if lines[i].strip())


def culprits(prompt: str) -> list[str]:
    """The names the errors *prompt* quotes say are wrong, in order, each once: a missing
    attribute, name or import, an undefined name or a non-function, an unset variable or
    unknown command of the shell, a program's "unknown coupon SPRNG10"."""
    found = (next(g for g in m.groups() if g) for m in _CULPRIT.finditer(prompt))
    return list(dict.fromkeys(found))


# a prompt that asks for something new: a name it gives need not exist yet
_ASKS_NEW = re.compile(r"\b(create|write|generate|implement|define|new)\b", re.I)


def asks_new(prompt: str) -> bool:
    """Whether *prompt* asks for something new ("Create a Makefile", "Write a test")."""
    return _ASKS_NEW.search(prompt) is not None


def asks_change(prompt: str) -> bool:
    """Whether *prompt* asks for a change or for something new ("Fix ...", "Rename a to
    b", "Create x.py"), rather than a question about what is there."""
    return asks_for_change(prompt, plainly=True) or _ASKS_NEW.search(prompt) is not None


# a name a question asks about: snake_case, camelCase, a capital code with digits, or
# any name in backticks ("compute_shipping", "cartTotal", "SUMMER20", "`TIMEOUT`"); not
# a part of a file's path, whose read never shows the path itself
_ASKED_NAME = re.compile(
    r"`([A-Za-z_]\w{2,})`"
    r"|(?<![\w./-])([A-Za-z]\w*_\w+|[a-z]+[A-Z]\w*|[A-Z]{2,}\d+[A-Z\d]*)(?![\w/-]|\.\w)"
)


def code_names(text: str) -> list[str]:
    """The names of code *text* speaks of, in order: snake_case, camelCase, a capital
    code with digits, or any name in backticks ("order_total", "cartTotal")."""
    return [quoted or bare for quoted, bare in _ASKED_NAME.findall(text)]


FILE_NAME = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z]\w{0,4})\b(?!\.\w)")
"""A file's path in a prompt or a reply ("CHANGELOG.md", "`src/parser.py`"; also "e.g",
which callers that read answers leave out); not the start of a longer dotted name, a
host's ("point our mail at smtp.shop.example": the rules had read ``smtp.shop``) or an
attribute's (``self.bikes.items()``)."""
# a read whose file goes on past what it showed (tools/_readfile.py)
_CUT = "[truncated at "


# a tool's answer to a path that does not exist, naming none meant instead
_MISSING = "{} does not exist(?!; did you mean)"


@attrs.frozen
class Absent:
    """Something a question asks about that the tools' results show is not there.

    Attributes:
        name: the name or path the question gives.
        where: the file the question says holds it, when the question names a file that
            was read ("" otherwise: a file named is itself absent, or the question does
            not say where).
        sentence: the fact, said plainly ("pricing.py does not contain compute_shipping.").
    """

    name: str
    where: str
    sentence: str


# the project spoken of as the user's: "our tools", "we", "in this repo"
_OURS = re.compile(
    r"\b(?:our|ours|we|us|this (?:project|repo\w*|codebase|folder|workspace)|"
    r"the (?:project|repo\w*|codebase))\b",
    re.I,
)


def about_workspace(prompt: str) -> bool:
    """Whether *prompt* speaks of the project's own things: a name of its code
    ("need_file", "formatLine", "`TIMEOUT`"), a file ("config.json"), or the project as
    the user's ("Which of our tools ...?"). "What is 12 times 12?" does not."""
    found = _ASKED_NAME.search(prompt) or FILE_NAME.search(prompt) or _OURS.search(prompt)
    return found is not None


def absent(prompt: str, results: Sequence[str], reads: Sequence[str]) -> list[Absent]:
    """What the *results* of the calls since a question (*prompt*) show is not there,
    with *reads* the paths read_file was asked for: a file the question names that a
    tool said does not exist (and named no other meant), and, after files were read and
    shown whole, a name the question asks about that no result holds. A request for a
    change or for something new names what need not exist yet: it gets none.

    Measured (bench local-tasks, the fresh set's half A): asked what a function of
    pricing.py returns, which pricing.py does not define, the 1.5B model read the file
    and described the function anyway, from its own invention."""
    if asks_change(prompt) or not results:
        return []
    said = "\n".join(results)
    found: list[Absent] = []
    paths = list(dict.fromkeys(m.group(1) for m in FILE_NAME.finditer(prompt)))
    for path in paths:
        if re.search(_MISSING.format(re.escape(path)), said):
            found.append(Absent(path, "", f"{path} does not exist in the workspace."))
    reads = [p for p in reads if not re.search(_MISSING.format(re.escape(p)), said)]
    if not reads or _CUT in said:
        return found
    where = next((p for p in paths if p in reads), "")
    for a, b in _ASKED_NAME.findall(prompt):
        name = a or b
        if name.lower() not in said.lower() and name not in [f.name for f in found]:
            sentence = (
                f"{reads[0]} does not contain {name}."
                if len(reads) == 1
                else f"None of {', '.join(reads)} contains {name}."
            )
            found.append(Absent(name, where, sentence))
    return found


def _results(content: str) -> list[str]:
    return [m.group(1) for m in _RESPONSE.finditer(content)]


def turn_of(messages: Sequence[ChatMessage], reply: str, tools: Sequence[ToolSchema] = ()) -> Turn:
    """The :class:`Turn` of *reply* to the history *messages* (native or already in the
    text protocol), with *tools* offered."""
    known = {t.name: tuple(t.parameters.get("properties", {})) for t in tools}
    prompt = ""
    steps: list[Step] = []
    earlier: list[str] = []
    waiting: list[Step] = []  # calls whose results are still to come, in order

    def answer(result: str) -> None:
        if waiting:
            steps.append(attrs.evolve(waiting.pop(0), result=result))
        else:
            steps.append(Step("", {}, result))

    for msg in messages:
        if msg.role == "tool":
            answer(msg.content)
        elif msg.role == "user" and "<tool_response>" in msg.content:
            for result in _results(msg.content):
                answer(result)
        elif msg.role == "user":
            if prompt:
                earlier.append(prompt)
            prompt = msg.content
            earlier.extend(s.result for s in [*steps, *waiting])
            steps, waiting = [], []
        elif msg.role == "assistant":
            steps.extend(waiting)  # calls no result answered
            waiting = [Step(c.name, dict(c.arguments)) for c in msg.tool_calls]
            if not msg.tool_calls and "<tool_call>" in msg.content:
                parsed = parse_reply(msg.content, known).calls
                # a call whose arguments could not be read names no path
                waiting = [Step(c.name, dict(c.arguments or {})) for c in parsed]
    steps.extend(waiting)
    return Turn(
        prompt=prompt,
        steps=tuple(steps),
        reply=reply,
        reply_calls=len(parse_reply(reply, known).calls) if reply.strip() else 0,
        tools=tuple(known),
        earlier=tuple(earlier),
    )
