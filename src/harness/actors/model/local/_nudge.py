"""Nudges: asking a small model, once, to do what its reply said or skipped.

A small model often ends a turn with nothing done: it announces a call and stops, claims
a change or a run that never happened, writes a call as plain prose, or says the question
again. Each such failure has a rule here: a small named object whose ``check`` reads the
:class:`~harness.actors.model.local._turn.Turn` (the prompt, the calls since it with their
results, the reply) and returns the user line that asks for the next step, with the tool
whose call that step is (see :class:`Nudge`). :func:`nudge_for` runs the rules a model's
profile turns on, in order, and the first that answers wins. The rules are in modules
by idea: here the ones about the reply's form (empty, echoed, a call as text, a tool's
result written out, an announcement); about running commands in :mod:`._nudge_runs`;
about changes in :mod:`._nudge_changes`; where a change was made in :mod:`._nudge_files`;
a file left broken in :mod:`._nudge_broken`; checking an answer against what the tools found
in :mod:`._nudge_answers`; what every rule shares (the nudge, the rule's shape, an
intention's words) in :mod:`._nudge_base`. What each rule was measured to do is in
``docs/models.md``.

Creating and writing are never asked for: a model nudged to "create" a file it could not
find would write an invented one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import ClassVar

import attrs

from harness.actors.model.local._nudge_answers import (
    FileNotGiven,
    GuessedFile,
    NamedDefiner,
    NothingFound,
    SaidAbsentIsThere,
    UnlookedAnswer,
)
from harness.actors.model.local._nudge_arguments import MissingArgument
from harness.actors.model.local._nudge_base import (
    INTENT,
    NEGATED,
    Nudge,
    NudgeRule,
    announces,
    block,
    named_tool,
    printed,
)
from harness.actors.model.local._nudge_broken import LeftBroken
from harness.actors.model.local._nudge_changes import (
    MAKE_THE_CHANGE,
    ChangeNotBegun,
    ClaimedChange,
    FinishRename,
    NameInError,
    StillUsed,
    asks_change,
    change_goes_in,
    file_to_read,
    still_used,
)
from harness.actors.model.local._nudge_entries import EntryGone
from harness.actors.model.local._nudge_figures import FigureNotGiven, MadeUpFigure
from harness.actors.model.local._nudge_files import (
    BrokenData,
    FinishFiles,
    OldValueLeft,
    ReadFirst,
    ReadToChange,
)
from harness.actors.model.local._nudge_new_file import FileNotWritten, ShownFile
from harness.actors.model.local._nudge_reads import LookBeforeWrite, ReadNamed
from harness.actors.model.local._nudge_rename import AskedRename
from harness.actors.model.local._nudge_runs import (
    ClaimedRun,
    DescribedProgram,
    RerunFailing,
    SkippedRun,
)
from harness.actors.model.local._nudge_shown import ShownFix
from harness.actors.model.local._nudge_stale import StillListed
from harness.actors.model.local._nudge_switch import SwitchWanted
from harness.actors.model.local._nudge_value_error import ValueInError
from harness.actors.model.local._nudge_values import NewValue
from harness.actors.model.local._nudge_wanted import ValueWanted
from harness.actors.model.local._turn import Turn
from harness.failing import PROGRAM, SCRIPT_PATH

__all__ = [
    "RULES",
    "Nudge",
    "NudgeRule",
    "StillUsed",
    "announced_call",
    "known_call",
    "nudge_for",
    "still_used",
]


# -- words ----------------------------------------------------------------------------

# a tool's answer to a path that does not exist or is outside the workspace, naming the
# one meant (the tools' jail: a pasted traceback's "/shop/report.py" is report.py here)
_MEANT = re.compile(r"(?:does not exist|is outside the workspace); did you mean ([^\s?]+)\?")
# verbs -> the tool that does them
_VERBS: tuple[tuple[str, str], ...] = (
    # "I will make add return a + b" (measured: the whole reply, bench local's one-line edit)
    (
        r"fix|edit|change|modify|correct|replace|update|rename|include more|make(?! sure)|"
        r"set(?! up)|turn|bump|switch|swap|increase|decrease|raise|lower|enable|disable|"
        r"adjust|amend|alter|tweak|reduce",
        "edit_file",
    ),
    (r"run|execute|test", "run_cmd"),
    (r"read|open|look at|check|inspect|examine|review|analy[sz]e|see|view", "read_file"),
    (r"list", "list_dir"),
    (r"search|find|grep", "search_text"),
)
# what a run names when it names a command: one in backticks, a script's path, a program,
# the tests ("run `make`", "run tools/day.sh", "run python3 …", "run the tests")
_RUN_TARGET = re.compile(rf"`[^`\n]+`|{SCRIPT_PATH}|\b{PROGRAM}|\btests?\b", re.I)
# a reply that opens with a tool's name as if calling it: "search_text: parse_date"
_AS_TEXT = re.compile(r"\s*`?([A-Za-z_][\w.-]*)`?\s*[:(]")


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


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


_WHAT_CHANGED = Nudge(
    "If the task is done, tell me in a sentence what you changed. If it is not, make the "
    "next call.",
    "",
)


# -- the rules --------------------------------------------------------------------------


class EmptyAfterResult:
    """An empty reply after a tool result, which ends a turn with nothing said. In a task
    that asks for a change: an edit refused with the file shown is asked for again, and a
    file read with no edit made is asked for the edit; after an edit, what changed; after
    a command that printed and exited 0, in a question, the answer from its output;
    otherwise the model is asked to go on or answer the prompt. (An empty answer to the
    prompt itself, before any tool ran, stays one.) The reply asked for is bound to say
    something (:class:`~harness.actors.model.local._guide.Guide`).

    Measured (bench local-tasks, the minibus, half A): after ``node screen/main.js``
    printed the week's runs, asked to go on or answer, the 1.5B model announced a search
    of ``timetable.json`` for the times the output showed."""

    name: ClassVar[str] = "empty-after-result"

    def check(self, turn: Turn) -> Nudge | None:
        last = turn.last
        if turn.reply.strip() or last is None:
            return None
        if asks_change(turn) and last.name == "edit_file" and last.shown_lines is not None:
            return _call_again("edit_file")
        if turn.edited:
            # asked before any edit, the same question drew a claimed change
            return _WHAT_CHANGED
        seen = turn.last_seen()
        if asks_change(turn) and seen is not None and change_goes_in(seen[0], turn.prompt):
            return MAKE_THE_CHANGE
        if not asks_change(turn) and last.name == "run_cmd" and printed(last.result):
            # asked to go on, it announced a search of the files for what the output said
            return Nudge(
                "The command ran, and what it printed is above. Answer the user from it: "
                + turn.prompt.strip(),
                "",
            )
        return Nudge(
            "Go on: make the next call the task needs, or, if it is done, answer the user: "
            + turn.prompt.strip(),
            "",
        )


class EchoedQuestion:
    """A reply that only says the user's question again: asks for the answer, bound to
    nothing (the answer may need no call). The question goes first and the ask last: a
    nudge that ended with the question had it written once more. A request for a change
    said back is left to the rules of a change, which ask for its next step (measured,
    bench local-tasks: 4 of 4 change requests said back, asked for an answer in the
    model's own words, were said back again)."""

    name: ClassVar[str] = "echoed-question"

    def check(self, turn: Turn) -> Nudge | None:
        if asks_change(turn):
            return None
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
    """A call refused for a path that does not exist or is outside the workspace, whose
    tool named the path meant ("did you mean calc.py?"), and a reply with no call:
    whatever it says, the next step is that call with the path the tool named."""

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


# an intention denied: "I will not", "I should never", "Let me not"
_DENIAL = re.compile(INTENT.pattern + r"\s+(?:not|never)\b", re.I)


class AnnouncedAction:
    """A reply that announces an action a tool performs ("I will read calc.py", "Let me
    check", "I would need to see the code") or, before any tool ran, claims to have done
    one ("I read the file and found …"), and stops: asks for the call of the first
    action it names (for "I will follow these steps:", of its first step); after a call,
    that call again when the reply names no other. An edit announced before any file
    was shown, and before any edit was tried, gets the read of the file first (written
    as named when the sentence names one file). An intention denied ("I will not read
    /etc/shadow") announces nothing: a model that refused is never asked to do it."""

    name: ClassVar[str] = "announced-action"

    def check(self, turn: Turn) -> Nudge | None:
        if announces(turn) is None:
            return None
        named = self.announced(turn)
        if named == ("", ""):
            return None
        tool = named[0] if named else None
        last, names = turn.last, turn.tools
        if tool is None and last is not None and last.name in names:
            tool = last.name
        if tool is None:
            return None
        if tool == "run_cmd" and named and not _RUN_TARGET.search(f"{named[1]}\n{turn.prompt}"):
            # "I will run the pump for up to half an hour" names no command: asked for one,
            # the model ran its words, "sleep 60", or an echo of an answer it made up
            return None
        if (
            tool == "edit_file"
            and "read_file" in names
            and not turn.saw_a_file
            and not turn.called("edit_file")
        ):
            # asked for at once, the edit's old text would be the model's belief of the
            # file, which strict writes refuse: the file it names is read first (an edit
            # the tool refused for its old text is asked for again, below)
            path = (_one_file(named[1]) if named else None) or file_to_read(turn)
            return Nudge(
                "You said what you will do but did not do it. First read the file you "
                "will change: call read_file. Write " + block("read_file"),
                "read_file",
                arguments={"path": path} if path else None,
            )
        if last is not None and last.name == tool:
            return _call_again(tool)
        return Nudge(
            f"You said what you will do but did not do it. Do it now: call {tool}. Write "
            + block(tool),
            tool,
        )

    @staticmethod
    def announced(turn: Turn) -> tuple[str, str] | None:
        """The tool of the first action the reply's announcements name, and the
        sentence that names it; ``("", "")`` when that sentence creates or writes (never
        asked for); ``None`` when none names an action."""
        intent = announces(turn)
        if intent is None:
            return None
        reply, names = turn.reply, turn.tools
        starts = [intent.start()] + [m.start() for m in INTENT.finditer(reply, intent.end())]
        for start in starts[:6]:
            sentence = reply[start:].split("\n\n", 1)[0]
            if _DENIAL.match(sentence):
                continue  # "I will not read /etc/shadow": said so as not to do it
            if sentence.rstrip().endswith(":"):
                # "I will follow these steps:" names nothing; its first step does
                sentence = " ".join(reply[start:].split("\n\n", 2)[:2]).split("\n2.", 1)[0]
            if re.search(r"\b(create|write)\b", sentence, re.I) and not re.search(
                r"\b(fix|edit|change)\b", sentence, re.I
            ):
                return "", ""
            tool = named_tool(sentence, names) or _verb_tool(sentence, names)
            if tool is not None:
                return tool, sentence
        return None


#: every rule, in the order :func:`nudge_for` tries them
RULES: tuple[NudgeRule, ...] = (
    FinishRename(),
    LeftBroken(),
    FinishFiles(),
    OldValueLeft(),
    RerunFailing(),
    BrokenData(),
    ReadFirst(),
    LookBeforeWrite(),
    ShownFix(),
    ShownFile(),
    FileNotWritten(),
    DescribedProgram(),
    NameInError(),
    MissingArgument(),
    AskedRename(),
    NewValue(),
    ValueWanted(),
    SwitchWanted(),
    EntryGone(),
    ValueInError(),
    StillListed(),
    ReadToChange(),
    EmptyAfterResult(),
    EchoedQuestion(),
    CallAsText(),
    DidYouMean(),
    NothingFound(),
    SaidAbsentIsThere(),
    RepeatedResult(),
    ClaimedRun(),
    SkippedRun(),
    ClaimedChange(),
    ChangeNotBegun(),
    GuessedFile(),
    NamedDefiner(),
    AnnouncedAction(),
    FileNotGiven(),
    MadeUpFigure(),
    FigureNotGiven(),
    ReadNamed(),
    UnlookedAnswer(),
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
                return attrs.evolve(nudge, rule=rule.name)
    return None


def known_call(turn: Turn, on: Iterable[str] | None = None) -> Nudge | None:
    """The call a rule named in *on* (``None``: every rule) knows whole before the model
    replies to the prompt or the last result of *turn* (its ``ahead``:
    :meth:`ReadFirst.ahead`, :meth:`NameInError.ahead`, :meth:`AskedRename.ahead`,
    :meth:`NewValue.ahead`), in :data:`RULES` order; ``None`` when none does. The guide
    writes it with no generation."""
    if not turn.tools:
        return None
    wanted = None if on is None else set(on)
    for rule in RULES:
        ahead = getattr(rule, "ahead", None)
        if ahead is not None and (wanted is None or rule.name in wanted):
            known: Nudge | None = ahead(turn)
            if known is not None:
                return attrs.evolve(known, rule=rule.name)
    return None


# -- a reply stopped at its announcement --------------------------------------------------

#: the tools a reply stopped at its announcement is asked to call: the ones that look. An
#: edit announced before any file was read is left to the model (asked for at once, its
#: old text would be the model's belief of the file), and so is a run ("I will run three
#: replicas of the API" asks for no command).
_LOOKS = ("read_file", "search_text", "list_dir")
# a file's path an announcement names ("notes.txt", "src/cart.js", "scripts/")
_PATH_NAMED = re.compile(
    r"(?<![\w.])(?:[\w-]+/)*[\w-]*[A-Za-z_][\w-]*\.[A-Za-z]\w{0,5}\b(?!\.\w)"
    r"|(?<![\w.])[\w.-]+/[\w./-]*"
)
# a name or command an announcement gives in backticks or double quotes
_QUOTED = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"")


def _names_target(text: str, tool: str, tools: Sequence[str]) -> bool:
    """Whether *text* names what *tool* would act on: a file's path for a read, a path or
    a quoted name for a search or a listing. A tool's own name is no target."""
    paths = [p for p in _PATH_NAMED.findall(text) if p.lower() not in ("e.g", "i.e")]
    quoted = [q for a, b in _QUOTED.findall(text) if (q := (a or b).strip()) not in tools]
    if tool == "read_file":
        return bool(paths)
    return bool(paths or quoted)


def announced_call(turn: Turn, on: Iterable[str] | None = None) -> Nudge | None:
    """The nudge to ask now, while the reply answering the prompt is still being written
    with no call yet, because what it says so far already announces an action that looks
    (a read, a search, a listing: "I will read notes.txt", or the first step of "I will
    follow these steps: 1. Read notes.txt") and names what it acts on; ``None`` to let it
    go on.

    It is the nudge the rules (*on*, as for :func:`nudge_for`) would give the reply ended
    there, and only when that is ``announced-action``'s: a plan the model writes before
    its first call is dropped from the history anyway (measured, bench local's one-tool
    question: 128 tokens, 14 s, of a three-step plan before a ``read_file``). A sentence
    that denies ("I will not run …") stops nothing, nor one that names no path, name or
    command: an answer about code in the prompt goes on.

    A read of the one file the sentence names comes with its arguments
    (:attr:`Nudge.arguments`): the call is whole already, and the guide writes it."""
    if turn.after_result or turn.reply_calls or INTENT.search(turn.reply) is None:
        return None
    nudge = nudge_for(turn, on)
    if nudge is None or nudge.rule != AnnouncedAction.name or nudge.tool not in _LOOKS:
        return None
    named = AnnouncedAction.announced(turn)
    if not named or named[0] != nudge.tool or NEGATED.search(named[1]):
        return None
    # the sentence from its start: "To find where `formatLine` is defined, I'll search"
    reply = turn.reply
    at = reply.find(named[1][:40])
    begins = max(reply.rfind("\n", 0, at), reply.rfind(". ", 0, at)) + 1 if at > 0 else 0
    lead = reply[begins : max(at, 0)]
    sentence = lead + named[1]
    if not _names_target(sentence, nudge.tool, turn.tools):
        return None
    path = _one_file(sentence) if nudge.tool == "read_file" else None
    return attrs.evolve(nudge, arguments={"path": path}) if path else nudge


def _one_file(text: str) -> str | None:
    """The one file's path *text* names, as written; ``None`` when it names none, more
    than one, a folder, or one whose start is unclear (after a ``/``, ``~`` or ``:``:
    an absolute path or a URL, which the model's own call writes whole)."""
    found: set[str] = set()
    for match in _PATH_NAMED.finditer(text):
        path = match.group().rstrip(".")
        if path.lower() in ("e.g", "i.e"):
            continue
        if match.start() and text[match.start() - 1] not in " \t\n`'\"(":
            return None
        if path.endswith("/"):
            return None
        found.add(path)
    return found.pop() if len(found) == 1 else None
