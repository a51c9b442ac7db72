"""The honest endings of a run asked for a change (:mod:`harness.conversation._endings`
asks them in its order): the change described and not made, tried and not made, made in
some of the files asked and not the others, a file asked for and not written, and a
command said to fail that still fails; and of any run whose changes left a file not
parsing."""

from __future__ import annotations

from typing import ClassVar

from harness.conversation._ending_words import (
    DESCRIBES_FIX,
    FENCE,
    NO_FIX_NEEDED,
    announces_change,
    blank_code,
    bounds,
    last_sentence,
    quote,
)
from harness.conversation._run_log import Ending, RunSoFar
from harness.failing import failing_command
from harness.words import (
    NOTHING_TO_CHANGE,
    asks_for_change,
    asks_question,
    asks_to_write,
    listed_files,
    same_file,
)

__all__ = [
    "CHANGING_KINDS",
    "AnnouncedChange",
    "DescribedNotMade",
    "LeftBroken",
    "StillFailing",
    "TriedNotMade",
    "UnfinishedFiles",
    "UntriedChange",
    "Unwritten",
]

#: tool kinds whose success backs a claimed change ("other": a tool outside the table)
CHANGING_KINDS = frozenset({"mutating", "shell", "agent", "other"})
#: tool kinds that may change files no result names (a command, a sub-agent, a tool
#: outside the table)
UNSEEN_CHANGES = CHANGING_KINDS - {"mutating"}


def _asks_or_needs_none(run: RunSoFar) -> bool:
    """Whether the last reply ends on a question, or says no change was needed
    ("already", "is correct"): a run that stops there has not stopped short. A line of
    the reply that a failed call's answer holds is the tool's word, not the model's.

    Measured (bench local-tasks, half B): shown "the line already after old_text in the
    file" for an edit it wrote twice, the 1.5B model ended on that answer said back, and
    the run, which changed nothing, ended as done."""
    _, said = last_sentence(FENCE.sub("", run.reply))
    return said.endswith("?") or NOTHING_TO_CHANGE.search(_own_words(run)) is not None


# a line shorter than this may be the model's own words, whatever a tool said
_QUOTED = 20


def _own_words(run: RunSoFar) -> str:
    """The last reply, code blanked, without the lines a failed call's answer holds."""
    answered = "\n".join(run.refusals).casefold()
    kept = (
        line
        for line in run.reply.splitlines()
        if len(line.strip()) < _QUOTED or line.strip().casefold() not in answered
    )
    return blank_code("\n".join(kept))


class DescribedNotMade:
    """The prompt asks for a change, and the last reply says what the code should be
    ("The method should return the SKUs at or below the threshold", "To fix it, change
    ``-`` to ``+``") while no call changed anything: the fix is described, not made."""

    name: ClassVar[str] = "described-not-made"

    def check(self, run: RunSoFar) -> Ending | None:
        if CHANGING_KINDS & run.acted or not asks_for_change(run.prompt):
            return None
        text = FENCE.sub("", run.reply)
        masked = blank_code(text)
        for found in DESCRIBES_FIX.finditer(masked):
            start, stop = bounds(masked, found.start(), found.end())
            sentence = masked[start:stop].strip()
            if sentence.endswith("?") or NO_FIX_NEEDED.search(sentence):
                continue
            said = quote(text, found.start(), found.end())
            why = f'the model described the change ("{said}"), but no call made it in this run'
            return Ending("described_not_made", why)
        return None


class TriedNotMade:
    """The prompt asks for a change, an edit or write ran and failed or changed nothing
    (an old text not in the file, a new text the same as the old), and the run ends
    with no change made and no word that none was needed: the model stopped short
    ("The edits change nothing.")."""

    name: ClassVar[str] = "tried-not-made"

    def check(self, run: RunSoFar) -> Ending | None:
        if CHANGING_KINDS & run.acted or "mutating" not in run.tried:
            return None
        if not asks_for_change(run.prompt) or _asks_or_needs_none(run):
            return None
        return Ending(
            "change_not_made",
            "the model was asked for a change and tried, but every write or edit in this run "
            "failed or changed nothing",
        )


class Unwritten:
    """The prompt asks for a file it names to be written ("Write test_fees.py with a
    test that ...", "Add an .editorconfig so ..."), no write or edit was even tried and
    no call changed anything, and the last reply neither asks a question nor says none
    was needed: the file is not there, whatever the reply holds (steps for the user, the
    file's text in a code block). A write that was tried and refused (a deny rule, the
    user's no) is the refusal's to tell. A file of that name written in another folder
    than the one the prompt gives is not it either ("Could you write tools/month.sh?",
    and ``outings/month.sh`` was written); where the prompt gives no folder, any is it."""

    name: ClassVar[str] = "unwritten"

    def check(self, run: RunSoFar) -> Ending | None:
        path = asks_to_write(run.prompt)
        if path is None:
            return None
        wanted = path.removeprefix("./")
        name = wanted.rsplit("/", 1)[-1]
        named = sorted(p for p in run.written if p.rsplit("/", 1)[-1] == name)
        if named and "/" in wanted and wanted not in named:
            # "Could you write tools/month.sh?", and outings/month.sh was written
            why = f"the model was asked to write {path}, but wrote {named[0]} instead"
            return Ending("change_not_made", why)
        if CHANGING_KINDS & run.acted or "mutating" in run.tried:
            return None  # written, or tried: a write refused (denied, say) is said as such
        if _asks_or_needs_none(run):
            return None
        why = f"the model was asked to write {path}, but no call wrote it in this run"
        return Ending("change_not_made", why)


class UnfinishedFiles:
    """The prompt asks for a change in files it lists together ("in fleet.py and in
    station.toml", "(scripts/lib.sh, scripts/backup.sh)"), calls changed one or more of
    them and left another as it was, no command ran that could have changed it, and the
    last reply neither asks nor says no change was needed there: the change is half made,
    whatever the reply says ("The tax rate in settings.toml was changed from 0.2 to
    0.23."). The small model's ``finish-files`` nudge asks for the next file before the
    run gets here (of 598 recorded runs of the 1.5B model, none ends so); a model run
    without nudges, any hosted one, is told at the end."""

    name: ClassVar[str] = "unfinished-files"

    def check(self, run: RunSoFar) -> Ending | None:
        if UNSEEN_CHANGES & run.acted or not asks_for_change(run.prompt):
            return None  # a command (sed -i, a script) may have changed any file
        listed = listed_files(run.prompt)
        done = [n for n in listed if any(same_file(p, n) for p in run.written)]
        left = [n for n in listed if n not in done]
        if not done or not left or _asks_or_needs_none(run):
            return None
        return Ending(
            "change_not_made",
            f"the change was asked in {' and '.join(listed)}, but no call changed "
            f"{' or '.join(left)} in this run",
        )


class UntriedChange:
    """The prompt asks for a change, and the run ends with none made and none even tried
    (no write, no edit, no command, no question put to the user), and the last reply
    neither asks, offers ("If you want, I can …") nor says none is needed: whatever it
    says ("I read the file `src/carts.js` and found that it does not exist."), the change
    was never begun."""

    name: ClassVar[str] = "untried-change"

    def check(self, run: RunSoFar) -> Ending | None:
        if CHANGING_KINDS & (run.acted | run.tried) or run.asked_user:
            return None
        if not asks_for_change(run.prompt) or _asks_or_needs_none(run):
            return None
        if NO_FIX_NEEDED.search(blank_code(FENCE.sub("", run.reply))):
            return None
        return Ending(
            "change_not_made",
            "the model was asked for a change, but no call in this run tried to make it",
        )


class AnnouncedChange:
    """A reply of the run announced a change the model would make ("I will log only
    warnings and worse in the `deploy.yaml` and `config.json` files.", "I will use the
    `edit_file` tool to replace them."), and the run ends with none made or even tried
    (no write, no edit, no command, no question put to the user), and the last reply
    neither asks nor says none is needed: the model said what it would do and stopped
    short. Not where the prompt asks a question and no change: a small model's plan for
    an answer may say it will write a script, and the answer is what was asked. Measured
    (bench local-tasks, half B, ``warnings-only-staging``): the 1.5B model said so,
    searched once, listed the lines it found and ended ``ok`` with nothing changed;
    replayed on 60 questions, two right answers ("How long can someone keep a bike on a
    single ride?") had said "I will then write a Python script to simulate the ride"."""

    name: ClassVar[str] = "announced-change"

    def check(self, run: RunSoFar) -> Ending | None:
        if not run.announcements or CHANGING_KINDS & (run.acted | run.tried) or run.asked_user:
            return None
        if asks_question(run.prompt) and not asks_for_change(run.prompt):
            return None
        if _asks_or_needs_none(run):
            return None
        said = next((s for text in run.replies() if (s := announces_change(text))), None)
        if said is None:
            return None
        return Ending(
            "stopped_early",
            f'the model said it would make a change ("{said}"), but no call in this run tried '
            "to make it",
        )


class StillFailing:
    """The prompt says a command fails and asks for a fix ("`node src/index.js` fails with:
    Error: unknown coupon SPRNG10. Fix it."), and that command was the last one run after
    the run's last change, and failed again: whatever the reply says ("I changed the call
    to fix the error"), the failure asked about is still there. (Any command may change
    files too, so a run with another command after it says nothing.)"""

    name: ClassVar[str] = "still-failing"

    def check(self, run: RunSoFar) -> Ending | None:
        # a script run as guessed may fail for want of its arguments
        command = failing_command(run.prompt, guessed=False)
        if command is None or not asks_for_change(run.prompt):
            return None
        if run.last_run is None or run.last_run[0] != " ".join(command.split()):
            return None
        code = run.last_run[1]
        if not code:  # passed, or ended by a signal
            return None
        return Ending(
            "still_failing",
            f"{command} still failed (exit {code}) when it last ran, after the last change",
        )


class LeftBroken:
    """A file a change of the run left not parsing, where it parsed before, with no
    change of it since that parses and no command run since: the work is not done,
    whatever the reply says. Measured (bench local-tasks, half A,
    ``fix-board-night-times``): an edit that declared ``const PERIOD`` a second time left
    ``board/tideboard.js`` unable to load, and "I changed the `PERIOD` constant …" ended
    the run ``ok``."""

    name: ClassVar[str] = "left-broken"

    def check(self, run: RunSoFar) -> Ending | None:
        if not run.broken:
            return None
        said = "; ".join(f"{path} ({error})" for path, error in run.broken)
        return Ending(
            "left_broken", f"the run's last change left a file it changed not parsing: {said}"
        )
