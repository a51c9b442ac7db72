"""Nudges: asking a small model, once, to do what its reply said or skipped.

A small model often ends a turn with nothing done: it announces a call and stops, claims
a change or a run that never happened, writes a call as plain prose, or says the question
again. Each such failure has a rule here: a small named object whose ``check`` reads the
:class:`~harness.actors.model.local._turn.Turn` (the prompt, the calls since it with their
results, the reply) and returns the user line that asks for the next step, with the tool
whose call that step is (see :class:`Nudge`). :func:`nudge_for` runs the rules a model's
profile turns on, in order, and the first that answers wins. The rules that check an
answer against what the tools found are in :mod:`._nudge_answers`; what every rule shares
(the nudge, the rule's shape, an intention's words) in :mod:`._nudge_base`. What each rule
was measured to do is in ``docs/models.md``.

Creating and writing are never asked for: a model nudged to "create" a file it could not
find would write an invented one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import ClassVar

import attrs

from harness.actors.model.local._nudge_answers import GuessedFile, NamedDefiner, SaidAbsentIsThere
from harness.actors.model.local._nudge_base import (
    INTENT,
    NEGATED,
    Nudge,
    NudgeRule,
    announces,
    block,
)
from harness.actors.model.local._turn import ASKS_CHANGE, EDIT_TOOLS, Turn

__all__ = [
    "RULES",
    "Nudge",
    "NudgeRule",
    "StillUsed",
    "nudge_for",
    "still_used",
]


# -- words ----------------------------------------------------------------------------

# a claim to have run a command: "I ran the command …", "I executed `python3 hello.py`"
_RAN = re.compile(r"\bI (have |just |then |also )?(ran|executed|run)\b", re.I)
_DID = (
    r"(replaced|renamed|changed|fixed|updated|edited|modified|corrected|added|removed|wrote|"
    r"rewrote|saved|applied|set|turned|bumped|switched|increased|decreased|raised|lowered|"
    r"enabled|disabled|inserted|appended)\b(?! nothing)"
)
# a claim to have changed something, or the change handed back for the user to make
_CHANGED = re.compile(
    rf"\bI (have |then |just |also )?{_DID}|\bI\b(?:(?!\. )[^\n]){{0,80}}\band (then )?{_DID}"
    rf"|\b(has|have) been {_DID}|\b(was|were) {_DID}"
    r"|\b(changes?|edits?) (were|was|have been|has been) (made|applied)\b"
    # "I made the `add` function in `calc.py` return `a + b`" (its answer after the read)
    r"|\bI (have |just |then |also )?made\b(?:[^.\n]|\.(?=\w)){0,80}?"
    r"\b(return|use|print|take|call)\b"
    r"|\bI (have |just |then |also )?made (\w+ ){0,3}?(changes?|edits?|modifications?|fix)\b"
    r"|\b([Yy]ou|[Ww]e) (should|need to|can|must|have to|will need to|would need to|"
    r"would have to) (replace|change|fix|edit|modify|update|rename|correct|add|remove|"
    r"ensure|make sure)\b"
    r"|\b[Tt]he (correct|corrected|fixed|right) (implementation|code|version|function|line)"
    r"\b[^.\n]{0,40}\b(should be|would be|is)\b"
    r"|\bI would (follow these steps|replace|change|fix|edit|modify|update|rename|correct)\b"
    r"|\b[Hh]ere(?:'s| is) the (corrected|fixed|updated|modified)\b"
)
# a prompt that asks to run a named command: the ask's verb where a clause starts (as for a
# change), then, in the same clause, a command in backticks or a script's path ("Run
# `python3 report.py` and tell me ...", "execute scripts/build.sh"); "run three replicas"
# names no command
_ASKS_RUN = re.compile(
    r"(?:^|[.!?;:]\s+|\b(?:and|then|please|you to|can you|could you|would you)\s+)"
    r"(?:run|execute)\b((?:[^.!?;:\n]|[.!?;:](?!\s|$))*)",
    re.I | re.M,
)
_COMMAND = re.compile(
    r"`([^`\n]+)`|(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.(?:sh|bash|py|js|mjs|cjs|ts|rb|pl|php))\b"
)
# a tool's answer to a path that does not exist, naming the one meant (the tools' jail)
_MEANT = re.compile(r"does not exist; did you mean ([^\s?]+)\?")
# verbs -> the tool that does them
_VERBS: tuple[tuple[str, str], ...] = (
    # "I will make add return a + b" (measured: the whole reply, bench local's one-line edit)
    (
        r"fix|edit|change|modify|correct|replace|update|rename|include more|make(?! sure)|"
        r"set(?! up)|turn|bump|switch|swap|increase|decrease|raise|lower|enable|disable",
        "edit_file",
    ),
    (r"run|execute|test", "run_cmd"),
    (r"read|open|look at|check|inspect|examine|review|analy[sz]e|see|view", "read_file"),
    (r"list", "list_dir"),
    (r"search|find|grep", "search_text"),
)
# a reply that opens with a tool's name as if calling it: "search_text: parse_date"
_AS_TEXT = re.compile(r"\s*`?([A-Za-z_][\w.-]*)`?\s*[:(]")
# what edit_file's result adds when the name an edit renamed is still used elsewhere (its
# wording is in tools/_files.py, _still_used)
_STILL_USED = re.compile(
    r"^note: (\S+) \(this edit renamed it to (\S+)\) is still used:\n((?:  .*(?:\n|$))+)", re.M
)
_USE = re.compile(r"^  (.+?):\d+: (.*)$", re.M)


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _named_tool(text: str, names: Sequence[str]) -> str | None:
    hits = [(text.find(n), n) for n in names if n in text]
    return min(hits)[1] if hits else None


def _verb_tool(sentence: str, names: Sequence[str]) -> str | None:
    """The tool of the first action the sentence names ("read ..., then fix": read)."""
    hits = []
    for verbs, tool in _VERBS:
        found = re.search(rf"\b({verbs})", sentence, re.I)
        if tool in names and found:
            hits.append((found.start(), tool))
    return min(hits)[1] if hits else None


def _call_again(tool: str) -> Nudge:
    return Nudge(
        f"Do it now: call {tool} again, using what the tool result above says. Write "
        + block(tool),
        tool,
    )


def _asks_change(turn: Turn) -> bool:
    return "edit_file" in turn.tools and ASKS_CHANGE.search(turn.prompt) is not None


_MAKE_THE_CHANGE = Nudge(
    "You have not changed any file yet: no edit was made. Make the change now: "
    'call edit_file. Write the <tool_call> block ({"name": "edit_file", '
    '"arguments": {"path": ...}} then <old_content> and <new_content>) and nothing '
    "else.",
    "edit_file",
)
_WHAT_CHANGED = Nudge(
    "If the task is done, tell me in a sentence what you changed. If it is not, make the "
    "next call.",
    "",
)


# -- the rules --------------------------------------------------------------------------


@attrs.frozen
class StillUsed:
    """A name the last edit renamed, and the first file that still uses it, with the
    lines that do (stripped, as the note shows them)."""

    old: str
    new: str
    path: str
    lines: tuple[str, ...]


def still_used(turn: Turn) -> StillUsed | None:
    """What the last edit that changed a file says is still to rename, when the rename is
    one the user asked for (their prompt names the old name); else ``None``. Calls after
    it that changed nothing (a read, an edit that changed nothing or was refused) leave
    its note standing: measured (bench local-tasks, half A), a rename of five lines in two
    files ended on an edit replacing a line with itself, after the note of the edit
    before had named the one import still to rename."""
    last = None
    for step in reversed(turn.steps):
        if step.wrote:
            last = step
            break
        if step.name not in (*EDIT_TOOLS, "read_file", "search_text", "list_dir"):
            return None  # a command, say, may have changed what the note names
    note = _STILL_USED.search(last.result) if last is not None else None
    if note is None or not re.search(rf"\b{re.escape(note.group(1))}\b", turn.prompt):
        return None
    uses = _USE.findall(note.group(3))
    if not uses:
        return None
    path = uses[0][0]
    lines = tuple(text for where, text in uses if where == path)
    return StillUsed(note.group(1), note.group(2), path, lines)


class FinishRename:
    """A rename the user asked for, done in one file while the edit's result says other
    files still use the old name, and the reply ends the turn there (saying both files are
    done, or nothing): asks for the edit of the next file that uses it."""

    name: ClassVar[str] = "finish-rename"

    def check(self, turn: Turn) -> Nudge | None:
        left = still_used(turn) if "edit_file" in turn.tools else None
        if left is None:
            return None
        return Nudge(
            f"{left.path} still uses {left.old}, so the rename is not done. Rename it there "
            f"too: call edit_file on {left.path}, replacing {left.old} with {left.new}. "
            f'Write the <tool_call> block ({{"name": "edit_file", "arguments": {{"path": '
            f'"{left.path}"}}}} then <old_content> and <new_content>) and nothing else.',
            "edit_file",
        )


class EmptyAfterResult:
    """An empty reply after a tool result, which ends a turn with nothing said. In a task
    that asks for a change: an edit refused with the file shown is asked for again, and a
    file read with no edit made is asked for the edit; after an edit, what changed;
    otherwise the model is asked to go on or answer the prompt. (An empty answer to the
    prompt itself, before any tool ran, stays one.)"""

    name: ClassVar[str] = "empty-after-result"

    def check(self, turn: Turn) -> Nudge | None:
        last = turn.last
        if turn.reply.strip() or last is None:
            return None
        if _asks_change(turn) and last.name == "edit_file" and last.shown_lines is not None:
            return _call_again("edit_file")
        if turn.edited:
            # asked before any edit, the same question drew a claimed change
            return _WHAT_CHANGED
        if _asks_change(turn) and turn.last_seen() is not None:
            return _MAKE_THE_CHANGE
        return Nudge(
            "Go on: make the next call the task needs, or, if it is done, answer the user: "
            + turn.prompt.strip(),
            "",
        )


class EchoedQuestion:
    """A reply that only says the user's question again: asks for the answer, bound to
    nothing (the answer may need no call). The question goes first and the ask last: a
    nudge that ended with the question had it written once more."""

    name: ClassVar[str] = "echoed-question"

    def check(self, turn: Turn) -> Nudge | None:
        said, asked = _words(turn.reply), _words(turn.prompt)
        if not said or not asked or not said.startswith(asked):
            return None
        if len(said.replace(asked, "").strip()) >= 20:
            return None
        return Nudge(
            f'The question was: "{turn.prompt.strip()}" You wrote it again instead of '
            "answering it. Answer it now in your own words, from the tool results above.",
            "",
        )


class CallAsText:
    """A reply that opens with a tool's name as if calling it ("search_text: parse_date",
    "`read_file`(calc.py)"), a call in no form harness reads: asks for that call."""

    name: ClassVar[str] = "call-as-text"

    def check(self, turn: Turn) -> Nudge | None:
        written = _AS_TEXT.match(turn.reply) if turn.reply.strip() else None
        if written is None or written.group(1) not in turn.tools:
            return None
        tool = written.group(1)
        return Nudge(
            f"You wrote {tool} as plain text, so nothing ran. Call it now: write " + block(tool),
            tool,
        )


class DidYouMean:
    """A call refused for a path that does not exist, whose tool named the path meant
    ("did you mean calc.py?"), and a reply with no call: whatever it says, the next step
    is that call with the path the tool named."""

    name: ClassVar[str] = "did-you-mean"

    def check(self, turn: Turn) -> Nudge | None:
        last = turn.last
        if not turn.reply.strip() or last is None or last.name not in turn.tools:
            return None
        meant = _MEANT.search(last.result)
        if meant is None:
            return None
        return Nudge(
            f"Call {last.name} again with the path {meant.group(1)}, as the tool result above "
            f'says. Write the <tool_call> block ({{"name": "{last.name}", "arguments": '
            f'{{"path": "{meant.group(1)}"}}}}) and nothing else.',
            last.name,
        )


class RepeatedResult:
    """A reply that opens with ten words of the tool result it answers (a refusal written
    out as the model's own answer): asks for that call again, done right. A file's own
    lines, read, are not a refusal: quoting them answers a question about the file."""

    name: ClassVar[str] = "repeated-result"

    def check(self, turn: Turn) -> Nudge | None:
        last = turn.last
        if last is None or last.name not in turn.tools:
            return None
        if last.name == "read_file" and last.shown_lines is not None:
            return None
        said = _words(turn.reply).split()[:10]
        if len(said) < 6 or " ".join(said) not in _words(last.result):
            return None
        return _call_again(last.name)


class ClaimedRun:
    """A reply that says a command ran ("I ran the command … The output was: …") when no
    run_cmd call was made since the prompt: asks for the run. A claim naming another
    tool ("I ran the `read_file` command") is not a run."""

    name: ClassVar[str] = "claimed-run"

    def check(self, turn: Turn) -> Nudge | None:
        ran = _RAN.search(turn.reply)
        if ran is None or "run_cmd" not in turn.tools or turn.called("run_cmd"):
            return None
        if INTENT.search(turn.reply) is not None:
            return None  # an announcement: announced-action's to ask
        sentence = re.split(r"(?<=[.!?])\s|\n", turn.reply[ran.end() :])[0]
        if _named_tool(sentence, turn.tools) not in (None, "run_cmd"):
            return None
        return Nudge(
            "No command has run since my question: no run_cmd call was made, so no output "
            "is known yet. Run it now: call run_cmd. Write " + block("run_cmd"),
            "run_cmd",
        )


class SkippedRun:
    """A prompt that asks to run a named command ("Run `python3 report.py` and tell me the
    total"), and a reply that answers with no run_cmd call made since it: what the command
    prints is not known yet, whatever the reply says it is (after reading the script, the
    model gave a total the script never printed). Asks for the run, naming the command."""

    name: ClassVar[str] = "skipped-run"

    def check(self, turn: Turn) -> Nudge | None:
        if "run_cmd" not in turn.tools or turn.called("run_cmd"):
            return None
        command = None
        for ask in _ASKS_RUN.finditer(turn.prompt):
            named = _COMMAND.search(ask.group(1))
            if named is not None:
                command = named.group(1) or named.group(2)
                break
        if command is None:
            return None
        return Nudge(
            f"You have not run {command} yet: no run_cmd call was made since my question, so "
            "what it prints is not known. Run it now: call run_cmd. Write " + block("run_cmd"),
            "run_cmd",
        )


# what the code should be, said in a sentence: "The method should return the SKUs at or
# below the threshold" (a task's whole answer after its read: the change described, none
# made); "nothing needs to be changed", "as it should" and questions say none
_SHOULD = re.compile(
    r"\b(should|must|needs? to|has to|ought to)( now| instead| rather| only)? (return|be|"
    r"read|use|print|equal|contain|compare|filter|include|list|show)\b"
)


def _describes_fix(reply: str) -> bool:
    """Whether a sentence of *reply* says what the code should be (not asking, denying
    or supposing)."""
    return any(
        _SHOULD.search(s)
        and not s.rstrip().endswith("?")
        and not NEGATED.search(s)
        and not re.search(r"\b(already|if)\b", s, re.I)
        for s in re.split(r"(?<=[.!?])\s+|\n+", reply)
    )


class ClaimedChange:
    """A reply, in a task that asks for a change, that claims one ("I replaced nam with
    name", "The bug has been fixed"), hands it back to the user ("You should replace
    …", "Here's the corrected file") or says what the code should be ("It should return
    a + b") when no edit was made since the prompt: asks for the edit, or, with no file
    seen yet, for the read an edit needs first."""

    name: ClassVar[str] = "claimed-change"

    def check(self, turn: Turn) -> Nudge | None:
        if not _asks_change(turn) or turn.edited or announces(turn) is not None:
            return None
        if _CHANGED.search(turn.reply) is None and not _describes_fix(turn.reply):
            return None
        if "read_file" in turn.tools and not turn.saw_a_file:
            # an edit now would be of text the model has not seen
            return Nudge(
                "You have not changed any file yet, and have not read the file to change. "
                'Read it first: call read_file. Write the <tool_call> block ({"name": '
                '"read_file", "arguments": {"path": ...}}) and nothing else.',
                "read_file",
            )
        return _MAKE_THE_CHANGE


class AnnouncedAction:
    """A reply that announces an action a tool performs ("I will read calc.py", "Let me
    check", "I would need to see the code") or, before any tool ran, claims to have done
    one ("I read the file and found …"), and stops: asks for the call of the first
    action it names (for "I will follow these steps:", of its first step); after a call,
    that call again when the reply names no other."""

    name: ClassVar[str] = "announced-action"

    def check(self, turn: Turn) -> Nudge | None:
        intent = announces(turn)
        if intent is None:
            return None
        reply, names = turn.reply, turn.tools
        tool = None
        starts = [intent.start()] + [m.start() for m in INTENT.finditer(reply, intent.end())]
        for start in starts[:6]:
            sentence = reply[start:].split("\n\n", 1)[0]
            if sentence.rstrip().endswith(":"):
                # "I will follow these steps:" names nothing; its first step does
                sentence = " ".join(reply[start:].split("\n\n", 2)[:2]).split("\n2.", 1)[0]
            if re.search(r"\b(create|write)\b", sentence, re.I) and not re.search(
                r"\b(fix|edit|change)\b", sentence, re.I
            ):
                return None
            tool = _named_tool(sentence, names) or _verb_tool(sentence, names)
            if tool is not None:
                break
        last = turn.last
        if tool is None and last is not None and last.name in names:
            tool = last.name
        if tool is None:
            return None
        if last is not None and last.name == tool:
            return _call_again(tool)
        return Nudge(
            f"You said what you will do but did not do it. Do it now: call {tool}. Write "
            + block(tool),
            tool,
        )


#: every rule, in the order :func:`nudge_for` tries them
RULES: tuple[NudgeRule, ...] = (
    FinishRename(),
    EmptyAfterResult(),
    EchoedQuestion(),
    CallAsText(),
    DidYouMean(),
    SaidAbsentIsThere(),
    RepeatedResult(),
    ClaimedRun(),
    SkippedRun(),
    ClaimedChange(),
    GuessedFile(),
    NamedDefiner(),
    AnnouncedAction(),
)


def nudge_for(turn: Turn, on: Iterable[str] | None = None) -> Nudge | None:
    """The first nudge of the rules named in *on* (``None``: every rule) for *turn*, in
    :data:`RULES` order; ``None`` when the reply made a call, no tool is offered, or no
    rule answers."""
    if not turn.tools or turn.reply_calls:
        return None
    wanted = None if on is None else set(on)
    for rule in RULES:
        if wanted is None or rule.name in wanted:
            nudge = rule.check(turn)
            if nudge is not None:
                return nudge
    return None
