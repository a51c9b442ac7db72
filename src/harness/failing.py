"""The command a prompt says fails, and the words that show an error or report a failure
(``"`node src/index.js` fails with: …"``, "report.py fails: AttributeError …", "The
sample order crashes on an unknown coupon"): read by :func:`harness.words.asks_for_change`,
the small model's ``rerun-failing`` nudge and the ``still-failing`` ending.

A leaf, like :mod:`harness.words`: it imports nothing of harness.
"""

from __future__ import annotations

import re

__all__ = [
    "ERROR_SHOWN",
    "PROGRAM",
    "REPORTS_FAILURE",
    "SCRIPT_PATH",
    "failing_command",
]

SCRIPT_PATH = r"(?<![\w/.-])(?:[\w.-]+/)*[\w-]+\.(?:sh|bash|py|js|mjs|cjs|ts|rb|pl|php)\b"
"""A script's path in a prompt (a pattern): "report.py", "scripts/summary.sh"."""

PROGRAM = r"(?:python3?|node|bash|sh|npm|npx|make|pytest|go|cargo|ruby|deno|php|perl)\b"
"""A program a command starts with (a pattern): "python3 report.py", "npm test"."""
# a command the prompt says fails: in backticks, or where a line starts, then a word of
# failing on that line ("`node src/index.js` fails with:", "python3 report.py crashes
# with", "When I run `make test` I get this error:")
_FAILS = re.compile(
    rf"(?:`(?P<quoted>[^`\n]+)`|^[ \t]*(?P<bare>{PROGRAM}(?:[ \t]+[^\s`]+)*?))"
    r"[^.\n`]{0,40}?\b(?:fails|failed|crash(?:es|ed)?|errors|errored|breaks|broke|broken|throws"
    r"|raises|dies|blows up|blew up|exits with|(?:get|gives?|got) (?:an |this |the )?error)\b",
    re.I | re.M,
)
# a command written out whole, which a script's path alone is not (in prose, "NameError
# in `schedule.py`" names the file the error is in)
_PROGRAM_RUN = re.compile(rf"{PROGRAM}|\./")
# what a command in backticks starts with when it is one: that, or a path to a script
_RUNNABLE = re.compile(rf"{_PROGRAM_RUN.pattern}|{SCRIPT_PATH}")
# a command's arguments after its program or script: flags, paths, numbers, quoted words
_ARGS = (
    r"(?:[ \t]+(?:-[\w-]+|[\w.-]*(?:/[\w./-]*|\.\w[\w./-]*)|\d[\w-]*|\"[^\"\n]*\"|"
    r"'[^'\n]*'))*"
)
# a command shown with what it printed: a shell prompt's line ("$ bash tools/skipper.sh
# "Ann Rowe""), or a line that starts with a program and its paths, flags and quoted
# arguments ("bash scripts/summary.sh says"), then, after blank lines, the line it printed
_SHOWN_RUN = re.compile(
    rf"^[ \t]*(?:\$[ \t]+(?P<prompted>[^\n]*\S)|(?P<bare>{PROGRAM}{_ARGS}))[^\n]*\n"
    r"(?:[ \t]*\n)*(?P<printed>[^\n]+)",
    re.M,
)
# a line a failing program prints: "…: command not found", "Traceback (most recent call
# last):", "ReferenceError: catalog is not defined", "Error: unknown coupon", or a shell's
# error, which names the script and the line ("tools/sales.sh: line 13: SALE_LOG: unbound
# variable")
_ERROR_PRINTED = re.compile(
    r"^Traceback\b|\b\w*(?:Error|Exception)\b|\b(?:error|fatal|panic)\b|command not found|"
    r"No such file or directory|^\S+: line \d+: ",
    re.I,
)


# an error as a program prints it, pasted anywhere in a prompt: "AttributeError:
# 'Inventory' object has no attribute …", "Traceback (most recent call last):", "line 12:
# akw: command not found". Narrower than _ERROR_PRINTED, which reads only the line after
# a command shown: across a whole prompt, "error" in prose ("fix the error message's
# wording") is no error printed, so the message must be written as a program writes it
ERROR_SHOWN = re.compile(
    r"^\s*Traceback \(most recent call last\)|\b(?:[A-Z]\w*)?(?:Error|Exception): |"
    # an exception's own name, wherever it stands ("NameError in schedule.py: …")
    r"\b(?:[A-Z][a-z]+)+(?:Error|Exception)\b|"
    r": command not found\b|^\S+: line \d+: ",
    re.M,
)

# a sentence reporting a thing failing, a program named or not ("The sample order crashes
# on an unknown coupon", "The plan script can't run."): a failure reported is one to fix,
# as with a command shown failing (:func:`failing_command`)
REPORTS_FAILURE = re.compile(
    r"\b(?:crash(?:es|ed)?|fails|failed|breaks|broke|dies|died|blows up|blew up|"
    r"(?:is|are)\s+broken|(?:can't|cannot|can not|won't|will not|doesn't|does not)\s+"
    r"(?:run|work|start|build|load|compile))\b",
    re.I,
)


# where a prompt shows an error or says a thing fails, the command it names in its prose:
# in backticks ("I get NameError … when I run `python3 report.py`"), or a program and its
# script ("Getting this from python3 report.py:", "when I run node src/index.js")
_COMMAND_SAID = re.compile(
    rf"`(?P<quoted>[^`\n]+)`|(?<![\w/.-])(?P<bare>{PROGRAM}[ \t]+{SCRIPT_PATH}{_ARGS})"
)
# a script said to fail or to have been run, where the prompt shows an error: "report.py
# fails:", "scripts/build.sh keeps failing", "tools/skipper.sh "Ann Rowe" prints …",
# "report.py won't run", "when running report.py", "Running tools/sales.sh gives …"; or
# the one the shell's own error names ("tools/sales.sh: line 13: SALE_LOG: unbound
# variable"). Not a file the error is in ("NameError in schedule.py"), nor one a sentence
# only names ("The checkout fails for big orders. Fix pricing.py.")
_SCRIPT_SAID = re.compile(
    rf"(?P<subject>{SCRIPT_PATH}{_ARGS})[ \t]+(?:(?:now|still|keeps|always|just|is|has|"
    r"been)\s+)*(?:fail|crash|die|stop|break|broke|blow|blew|throw|exit|error|prints|says|"
    r"gives|won't|can't|cannot|will not|does not|doesn't)\w*"
    rf"|\b(?:run|runs|running|ran)[ \t]+(?P<object>{SCRIPT_PATH}{_ARGS})",
    re.I,
)
# the script the shell's own error names: "tools/sales.sh: line 13: SALE_LOG: unbound
# variable", wherever it stands ("Every build now ends with 'scripts/build.sh: line 10:
# …'"); the one to run when no command is named (it may be a file the script sourced)
_SHELL_SAID = re.compile(rf"(?P<shell>{SCRIPT_PATH}): line \d+: ")
# a shell's error quoted in prose: "gives 'line 13: SALE_LOG: unbound variable'"
_SHELL_ERROR = re.compile(r"\bline \d+: |: (?:unbound variable|command not found)\b")
# the program that runs a script of each kind
_RUNS_WITH = {
    "py": "python3",
    "sh": "bash",
    "bash": "bash",
    "js": "node",
    "mjs": "node",
    "cjs": "node",
}


def _said_to_fail(prompt: str, guessed: bool) -> str | None:
    """The command a prompt that shows an error, or says a thing fails, names in its prose
    (:data:`_COMMAND_SAID`), or with *guessed*, the run of the script it says failed
    (:data:`_SHELL_SAID`, :data:`_SCRIPT_SAID`); ``None`` when it names none."""
    if not any(p.search(prompt) for p in (ERROR_SHOWN, _SHELL_ERROR, REPORTS_FAILURE)):
        return None
    for found in _COMMAND_SAID.finditer(prompt):
        command = (found.group("quoted") or found.group("bare")).strip()
        if _PROGRAM_RUN.match(command):
            return command
    if not guessed:
        return None
    said = _SHELL_SAID.search(prompt) or _SCRIPT_SAID.search(prompt)
    if said is None:
        return None
    script = next(g for g in said.groups() if g).strip()
    program = _RUNS_WITH.get(script.split()[0].rsplit(".", 1)[-1].lower())
    return f"{program} {script}" if program else None


def failing_command(prompt: str, *, guessed: bool = True) -> str | None:
    """The command *prompt* says fails ("`node src/index.js` fails with: …", "python3
    report.py crashes with …"), ``None`` when it names none: the first in backticks that
    starts with a program or a script's path, or that starts a line; else one shown with
    the error it printed on its next line ("$ bash tools/skipper.sh …" or "bash
    scripts/summary.sh says", then "…: command not found"); else, where the prompt shows
    an error or says a thing fails, a command its prose names ("I get NameError … when I
    run `python3 report.py`", "Getting this from python3 report.py:"); else, unless not
    *guessed*, the script it says failed or was run, with the program that runs its kind
    ("report.py fails: AttributeError …" is ``python3 report.py``; "Every build now ends
    with 'scripts/build.sh: line 10: …'" is ``bash scripts/build.sh``). "`rotate_logs`
    fails" names a function, "Loading config.json fails" no command, "NameError in
    schedule.py" the file the error is in. The small model's nudge runs it again after a
    change; the endings say when one the prompt wrote out still failed (a script run as
    guessed may fail for want of the arguments the user gave it, and say nothing of the
    error asked about).

    Measured (the error prompts of half A's six wording sets, 55): a command found for 6
    before the prose and the scripts were read, 38 after."""
    for found in _FAILS.finditer(prompt):
        command = (found.group("quoted") or found.group("bare") or "").strip()
        if command and _RUNNABLE.match(command):
            return command
    for shown in _SHOWN_RUN.finditer(prompt):
        command = shown.group("prompted") or shown.group("bare")
        if _RUNNABLE.match(command) and _ERROR_PRINTED.search(shown.group("printed")):
            return command
    return _said_to_fail(prompt, guessed)
