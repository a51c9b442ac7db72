"""Nudge rules about running commands: a run claimed that never happened, a run the prompt
asked for, by name, answered without it, and a fix of a failing command never run again.
Each asks for the run_cmd call."""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath
from typing import ClassVar

from harness.actors.model.local._nudge_base import INTENT, Nudge, block, named_tool
from harness.actors.model.local._turn import Step, Turn, asks_change
from harness.failing import SCRIPT_PATH, failing_command
from harness.words import (
    ASK_STARTS,
    ASKS_CHANGE,
    like_words,
    path_words,
)

__all__ = ["ClaimedRun", "DescribedProgram", "RerunFailing", "SkippedRun", "command_asked"]

# a claim to have run a command: "I ran the command …", "I executed `python3 hello.py`"
_RAN = re.compile(r"\bI (have |just |then |also )?(ran|executed|run)\b", re.I)
# a prompt that asks to run a named command: the ask's verb where a clause starts (as for a
# change), then, in the same clause, a command in backticks or a script's path ("Run
# `python3 report.py` and tell me ...", "execute scripts/build.sh"); "run three replicas"
# names no command
_ASKS_RUN = re.compile(
    ASK_STARTS + r"(?:run|execute)\b((?:[^.!?;:\n]|[.!?;:](?!\s|$))*)", re.I | re.M
)
_COMMAND = re.compile(rf"`([^`\n]+)`|({SCRIPT_PATH})")
# a prompt that says a script gives the answer: "scripts/summary.sh counts them", "what
# does report.py print?" (not "how many units does inventory.py count an item as low
# below?", a module's rule that a read answers: asked to run it, the model ran a path of
# its own making and gave up)
_SCRIPT_SAYS = re.compile(
    rf"(?P<says>{SCRIPT_PATH})`?\s+(?:counts|prints|computes|calculates|reports|sums|lists"
    r"|shows|outputs|works (?:it|them) out)\b"
    rf"|\b(?:what|which|how \w+)\b[^.?!\n]*\bdoes `?(?P<asked>{SCRIPT_PATH})`?\s+"
    r"(?:print|output|show|say)\b",
    re.I,
)


# a prompt that says a program it describes, and does not name, gives the answer: "The
# daily sheet has it.", "The map script prints it.", "Let the summary script count them.",
# "We have a tool that adds it up.", "There's a script in tools that counts up the log.",
# "There's a tool for it." ("The build tool has a flaky test" says no program answers
# anything)
_PROGRAM_SAYS = re.compile(
    r"\b(?:the|a|our|this|that)\s+"
    r"(?P<what>(?:[\w-]+\s+){0,2}?(?:script|report|tool|program|sheet)s?(?:\s+in\s+[\w/.-]+)?)"
    r"\s+(?:(?:that|which)\s+)?"
    r"(?:prints?|counts?|adds?|works?|sums?|lists?|shows?|says?|tells?|computes?|calculates?"
    r"|reports?|(?:has|gives?|knows?) (?:it|them|that|this)\b)\b"
    r"|\bthere(?:'s|\u2019s|\s+is)\s+(?:a|an|one)\s+"
    r"(?P<for>(?:[\w-]+\s+){0,2}?(?:script|report|tool|program|sheet))\s+for\s+(?:it|that|this)\b",
    re.I,
)
# a prompt that asks to run a program it describes by what it is ("Can you run the
# timetable screen and tell me …", "Run this morning's plan and tell me …"): the
# description ends where the clause goes on; the tests are not such a program
_RUN_DESCRIBED = re.compile(
    ASK_STARTS + r"run\s+(?:the|our|this|that)\s+"
    r"(?P<what>(?!tests?\b)(?:[\w'-]+\s+){0,3}?[\w'-]+)(?=\s+(?:and|to|then|so|for)\b|\s*[.,;!?]|\s*$)",
    re.I | re.M,
)
# how a script of each kind is run
_RUNS_WITH = {".py": "python3", ".js": "node", ".mjs": "node", ".cjs": "node", ".sh": "bash"}
# the file that runs a JavaScript folder's program; the other files there are its modules
_JS_MAIN = ("main.js", "index.js")
_SCRIPT = re.compile(SCRIPT_PATH)


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
        if named_tool(sentence, turn.tools) not in (None, "run_cmd"):
            return None
        return Nudge(
            "No command has run since my question: no run_cmd call was made, so no output "
            "is known yet. Run it now: call run_cmd. Write " + block("run_cmd"),
            "run_cmd",
        )


def command_asked(prompt: str) -> str | None:
    """The command *prompt* asks to have run ("Run `python3 report.py` and tell me the
    total"), or the script it says gives the answer ("scripts/summary.sh counts them"),
    as the prompt names it; ``None`` where it names none."""
    for ask in _ASKS_RUN.finditer(prompt):
        named = _COMMAND.search(ask.group(1))
        if named is not None:
            return named.group(1) or named.group(2)
    says = None if asks_change(prompt) else _SCRIPT_SAYS.search(prompt)
    return None if says is None else says.group("says") or says.group("asked")


class SkippedRun:
    """A prompt that asks to run a named command ("Run `python3 report.py` and tell me the
    total"), or says a script gives the answer ("How many orders were refunded?
    scripts/summary.sh counts them"), and a reply that answers with no run_cmd call made
    since it: what the command prints is not known yet, whatever the reply says it is
    (after reading the script, the model gave a total the script never printed, or
    described what the script does instead of the figure asked for). Asks for the run,
    naming the command."""

    name: ClassVar[str] = "skipped-run"

    def check(self, turn: Turn) -> Nudge | None:
        if "run_cmd" not in turn.tools or turn.called("run_cmd"):
            return None
        command = command_asked(turn.prompt)
        if command is None:
            return None
        return Nudge(
            f"You have not run {command} yet: no run_cmd call was made since my question, so "
            "what it prints is not known. Run it now: call run_cmd. Write " + block("run_cmd"),
            "run_cmd",
        )


class RerunFailing:
    """A prompt that says a named command fails ("`node src/index.js` fails with: …  Fix
    it."), a file changed since, and a reply that ends the turn with no run_cmd call after
    the last change: whether the change fixed anything is not known yet. Measured (bench
    local-tasks, the fresh set's third batch, half A): told that ``python3 report.py``
    crashes on a missing attribute ``lowstock`` ("Did you mean: 'low_stock'?"), the model
    added an argument to the wrong call and said it had fixed the error. Writes the run of
    that command as the call, so its output, the same error or none, comes next.

    Known before any reply (:meth:`ahead`): right after a call changed a file, that run;
    right after the run, where it exited 0 and its output repeats no line of the error,
    the answer: what each edit since the prompt changed, and that the command runs."""

    name: ClassVar[str] = "rerun-failing"

    def ahead(self, turn: Turn) -> Nudge | None:
        """Measured (bench local-tasks, half A's errors, the edit known to the rules):
        after the edit, the 1.5B model wrote a reply before the run was asked of it
        (once the error explained again, "You need to ensure that `totl` is defined"),
        and after the run, that had ended well, an empty reply, then an answer, one of
        them saying the error was still to fix; three generations of 10 to 60 s."""
        last = turn.last
        command = failing_command(turn.prompt)
        if last is None or command is None or "run_cmd" not in turn.tools:
            return None
        if not asks_change(turn.prompt):
            return None
        if last.wrote:
            return Nudge(f"Run {command} again.", "run_cmd", arguments={"command": command})
        ran = last.name == "run_cmd" and _words(last.arguments.get("command")) == _words(command)
        if not ran or not turn.edited or not _ran_clean(last.result, turn.prompt):
            return None
        if not _only_the_fix(turn.prompt):
            return None  # more is asked ("… and add a test", "it's 30% off"): the model goes on
        changed = " ".join(_changed(step) for step in turn.steps if step.wrote)
        return Nudge(f"{changed} `{command}` now runs:\n\n{_output(last.result)}", "", answer=True)

    def check(self, turn: Turn) -> Nudge | None:
        if "run_cmd" not in turn.tools or not turn.edited:
            return None
        last_change = max(i for i, step in enumerate(turn.steps) if step.wrote)
        if any(step.name == "run_cmd" for step in turn.steps[last_change + 1 :]):
            return None
        command = failing_command(turn.prompt)
        if command is None:
            return None
        return Nudge(
            f"You changed the files, but {command} has not run since: whether it still "
            "fails is not known. Run it now: call run_cmd. Write " + block("run_cmd"),
            "run_cmd",
            arguments={"command": command},
        )


def _words(command: object) -> str:
    """*command* with its words joined by single spaces ("" for no text)."""
    return " ".join(command.split()) if isinstance(command, str) else ""


# a line of a prompt that reports an error ("NameError: name 'totl' is not defined",
# "scripts/build.sh: line 10: OUTDIR: unbound variable", "Error: unknown coupon SPRNG10")
_ERROR_LINE = re.compile(
    r"^.*(?:\b\w*(?:Error|Exception)\b|: (?:command not found|unbound variable)$|\bnot "
    r"defined\b).*$",
    re.M,
)


def _ran_clean(result: str, prompt: str) -> bool:
    """Whether a run's *result* says it exited 0 and repeats no error line of *prompt*."""
    if "[exit code 0]" not in result:
        return False
    return not any(line.strip() in result for line in _ERROR_LINE.findall(prompt))


# the words of a request after its error that ask no more than the fix ("Fix it.", "Can
# you sort it out?", "Please have a look.")
_FIX_WORDS = frozenset({"fix", "correct"})
# the most lines of a run's output an answer shows
_SHOWN_LINES = 20


def _only_the_fix(prompt: str) -> bool:
    """Whether what *prompt* says after its last error line asks for no more than the
    fix: no other change asked ("… and add a test"), no number given ("The clearance
    price is 30% off.")."""
    errors = list(_ERROR_LINE.finditer(prompt))
    rest = prompt[errors[-1].end() :] if errors else prompt
    if re.search(r"\d", rest):
        return False
    asked = {m.group(0).split()[-1].lower() for m in ASKS_CHANGE.finditer(rest)}
    return asked <= _FIX_WORDS and re.search(r"\btests?\b", rest, re.I) is None


def _output(result: str) -> str:
    """A run's output (*result* without its status line), its first lines, in a block."""
    lines = [line for line in result.splitlines() if line != "[exit code 0]"]
    cut = lines[:_SHOWN_LINES] + (["…"] if len(lines) > _SHOWN_LINES else [])
    text = "\n".join(cut)
    fence = "````" if "```" in text else "```"  # a block the output cannot close
    return f"{fence}\n{text}\n{fence}"


# an edit's text said in an answer: one line, short enough to read in a sentence
_SAID = 100


def _changed(step: Step) -> str:
    """What the call *step*, which changed a file, did, in a sentence: each edit's one
    line as it was and as it is ("In report.py, `{totl:.2f}` is now …"), or how many
    edits, or that it wrote the file."""
    if step.name != "edit_file":
        return f"Wrote {step.path}."
    edits = step.arguments.get("edits")
    pairs = (
        [(e.get("old_text"), e.get("new_text")) for e in edits if isinstance(e, dict)]
        if isinstance(edits, list)
        else [(step.arguments.get("old_text"), step.arguments.get("new_text"))]
    )
    said = [
        f"`{old.strip()}` is now `{new.strip()}`" if new.strip() else f"`{old.strip()}` is gone"
        for old, new in pairs
        if isinstance(old, str)
        and isinstance(new, str)
        and "\n" not in (old + new).strip()
        and len(old + new) <= 2 * _SAID
    ]
    if said and len(said) == len(pairs):
        return f"In {step.path}, {'; '.join(said)}."
    return f"Changed {step.path} ({len(pairs)} edit{'s' if len(pairs) > 1 else ''})."


class DescribedProgram:
    """A prompt that says a program it describes gives the answer ("How much did the
    station take today? The daily sheet has it.") or asks to run it ("Can you run the
    timetable screen and tell me …") and names no script, and a reply that
    ends with no command run since it. Asks first for the folder's files (``find_files``
    of every file, written as the call), then for the run of the one script whose name
    or folder holds the description's words (``daily.py`` for "the daily sheet",
    ``scripts/summary.sh`` for "the summary script"; more alike, the request's other
    words decide), written as the call; with no one such script, for a run_cmd call of
    the model's choosing. Measured (bench local-tasks, the bike station, the greenhouse
    and the library): each of ten such questions failed, and in none did a command run;
    the model read paths of its own making (``daily_sheet.txt``) and answered with a
    figure of its own, or described what the program does. Asked to run "the timetable
    screen" (the minibus, half A), it searched, gave times of its own and said it had
    run a search."""

    name: ClassVar[str] = "described-program"

    def check(self, turn: Turn) -> Nudge | None:
        if "run_cmd" not in turn.tools or turn.called("run_cmd"):
            return None
        if asks_change(turn.prompt) or _SCRIPT.search(turn.prompt):
            return None  # a change; or a script named, skipped-run's to ask
        said = _PROGRAM_SAYS.search(turn.prompt)
        if said is None and "`" not in turn.prompt:  # a command given: skipped-run's to ask
            said = _RUN_DESCRIBED.search(turn.prompt)
        if said is None:
            return None
        # the folder's files: a find_files that listed some (one of a made-up name that
        # matched none is no listing: measured, the model then ran a script of its own
        # making, box_office_2023_06_06.py)
        listed = next(
            (
                s
                for s in reversed(turn.steps)
                if s.name == "find_files"
                and s.result.strip()
                and not s.result.startswith("no files match")
            ),
            None,
        )
        if listed is None:
            if "find_files" not in turn.tools:
                return None
            return Nudge(
                "My request says a program in this folder works the answer out, and none "
                "has run, so what it prints is not known. First see the folder's files: "
                "call find_files. Write " + block("find_files"),
                "find_files",
                arguments={"pattern": "*"},
            )
        what = said.group("what") or said.groupdict().get("for") or ""
        script = _described(what, turn.prompt, listed.result.splitlines())
        # a file's name is the workspace's to choose: quoted, it is one word of the command
        command = None
        if script:
            command = f"{_RUNS_WITH[PurePosixPath(script).suffix]} {shlex.quote(script)}"
        ask = f"Run {script} now" if script else "Run the program that works it out now"
        return Nudge(
            f"No command has run since my question, so what the program prints is not "
            f"known. {ask}: call run_cmd. Write " + block("run_cmd"),
            "run_cmd",
            arguments={"command": command} if command else None,
        )


def _described(what: str, prompt: str, files: list[str]) -> str | None:
    """The one script of *files* most like the program described as *what* ("daily
    sheet", "script in tools"), or ``None``: a word of *what* in a script's name counts
    two, in its folder one, a word of the rest of *prompt* in its name one; test files
    are no such program. A JavaScript module gives way to its folder's ``main.js`` or
    ``index.js``, which runs it: "the map script" is ``web/main.js``, not ``web/map.js``
    (the bike station and the minibus, half A: a module run alone prints nothing)."""
    words = set(re.findall(r"[a-z][a-z0-9]{2,}", what.lower()))
    others = set(re.findall(r"[a-z]{4,}", prompt.lower())) - words
    scored: dict[str, int] = {}
    for path in (line.strip() for line in files):
        file = PurePosixPath(path)
        if file.suffix not in _RUNS_WITH or "test" in file.name.lower():
            continue
        own, near = path_words(path)
        score = sum(2 * any(like_words(w, o) for o in own) for w in words)
        score += sum(any(like_words(w, f) for f in near) for w in words)
        score += sum(any(like_words(w, o) for o in own) for w in others)
        if score:
            scored[path] = score
    if not scored:
        return None
    best = max(scored.values())
    top = [p for p, v in scored.items() if v == best]
    if len(top) != 1:
        return None
    script = PurePosixPath(top[0])
    listed = {line.strip() for line in files}
    if script.suffix == ".js" and script.name not in _JS_MAIN:
        for main in _JS_MAIN:
            if str(script.with_name(main)) in listed:
                return str(script.with_name(main))
    return top[0]
