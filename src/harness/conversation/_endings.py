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
  something, a command that exited 0, a sub-agent, a tool harness does not know, such as
  an MCP server's); a claim to have run something, by a command (whatever its exit
  status), a sub-agent or an unknown tool;
- an *announcement* is the last sentence saying what the model will do next;
- a *described change* is the last reply saying what the code should be ("It should
  return a + b") when the prompt asks for a change; a question or an offer is not one;
- a *tried change* is a write or edit that ran and failed or changed nothing, in a run
  asked for a change that ends with no change made and no word that none was needed;
- a command *still failing* is the one the prompt says fails, in a run asked for a fix,
  when it is the last command run since the run's last change and it failed again;
- a file *unwritten* is one the prompt asks to have written ("Write test_fees.py with
  ..."), in a run where no write or edit was tried and no call changed anything;
- a claim to have *asked the user* ("I asked the user to provide the path") is backed
  only by a call that put a question to the user;
- an *echo* is a last reply that only says the prompt again;
- a file *left broken* is one a write or edit of the run took from parsing to not
  parsing (its result's check says so: ``tools/_checks``), with no change of it since
  that parsed and no command run since (which may have mended it): whatever the reply
  says, the work is not done.

The rules about a change asked for are in :mod:`harness.conversation._ending_changes`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import ClassVar, Protocol

from harness.conversation._ending_changes import (
    CHANGING_KINDS,
    DescribedNotMade,
    StillFailing,
    TriedNotMade,
    UntriedChange,
    Unwritten,
)
from harness.conversation._ending_words import (
    ANNOUNCES,
    CALLED_RUN_TOOL,
    CLAIMS_ASK,
    CLAIMS_CHANGE,
    CLAIMS_LOOK,
    CLAIMS_RUN,
    FENCE,
    HANDS_OVER,
    find,
    last_sentence,
    quote,
)
from harness.conversation._run_log import Ending, RunLog, RunSoFar
from harness.words import ASKS_RUN, asks_for_change

__all__ = [
    "CAPPED_FINISHES",
    "CHANGING_KINDS",
    "RULES",
    "RUNNING_KINDS",
    "AnnouncedAction",
    "ClaimedAsk",
    "ClaimedChange",
    "ClaimedLook",
    "ClaimedRun",
    "DescribedNotMade",
    "EchoedPrompt",
    "EmptyAnswer",
    "Ending",
    "EndingRule",
    "HandedOverChange",
    "LeftBroken",
    "RunSoFar",
    "StillFailing",
    "StoppedByCap",
    "TriedNotMade",
    "UntriedChange",
    "Unwritten",
    "honest_ending",
    "run_ending",
]

#: tool kinds whose success backs a claimed run
RUNNING_KINDS = frozenset({"shell", "agent", "other"})
#: a reply's finish reasons that say the model worker stopped the model, not the model
#: itself: ``repeat_cap`` (the same call made again past the profile's cap)
CAPPED_FINISHES = frozenset({"repeat_cap"})


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


def _claimed(run: RunSoFar, claim: re.Pattern[str]) -> str | None:
    """The first sentence of the run's replies, the last first, that makes *claim*, as
    quoted to the user; ``None`` when none does."""
    return next((s for text in run.replies() if (s := find(claim, text)) is not None), None)


class ClaimedChange:
    """A reply of the run says a change was made ("I set timeout to 30", "has been
    renamed", "I made the necessary changes") and no call changed anything."""

    name: ClassVar[str] = "claimed-change"

    def check(self, run: RunSoFar) -> Ending | None:
        if CHANGING_KINDS & run.acted:
            return None
        said = _claimed(run, CLAIMS_CHANGE)
        if said is None:
            return None
        failed = " (every command it ran failed)" if run.failed_runs else ""
        return Ending(
            "unbacked_claim",
            f'the model said it changed something ("{said}"), but no call changed files in '
            f"this run{failed}",
        )


class HandedOverChange:
    """The last reply hands over a changed file as the result ("Here's the updated
    `inventory.py` file:"), or, in a run asked for a change, any reply did ("Here's the
    corrected version of the script:", then a read, then "The corrected script is provided
    above."), and no call changed anything: the file on disk is as it was."""

    name: ClassVar[str] = "handed-over-change"

    def check(self, run: RunSoFar) -> Ending | None:
        if CHANGING_KINDS & run.acted:
            return None
        replies = [run.reply]
        if asks_for_change(run.prompt):
            replies += reversed(run.earlier)
        for reply in replies:
            # the file name is often inline code: read the reply with it
            text = FENCE.sub("", reply)
            found = HANDS_OVER.search(text)
            if found is not None:
                said = quote(text, found.start(), found.end())
                return Ending(
                    "unbacked_claim",
                    f'the model gave a changed file in its answer ("{said}"), but no call '
                    "changed files in this run",
                )
        return None


class ClaimedRun:
    """The last reply says a command ran ("I ran the tests") and none did, or an earlier
    one does in a run asked to run one ("I then ran the tests" beside an edit is a story);
    or any reply names the call it says it made ("I called the `run_cmd` tool with the
    command …"), which is no story."""

    name: ClassVar[str] = "claimed-run"

    def check(self, run: RunSoFar) -> Ending | None:
        if RUNNING_KINDS & (run.acted | run.failed_runs):
            return None
        every = not run.prompt or ASKS_RUN.search(run.prompt) is not None
        for i, text in enumerate(run.replies()):
            named = CALLED_RUN_TOOL.search(text)
            said = quote(text, named.start(), named.end()) if named else None
            if not said and (every or i == 0):
                said = find(CLAIMS_RUN, text)
            if said:
                return Ending(
                    "unbacked_claim",
                    f'the model said it ran something ("{said}"), but no command ran in this run',
                )
        return None


class ClaimedLook:
    """No call ran in the whole run, the prompt is one line (nothing pasted to look at),
    and a reply says it looked ("I searched the project and found …", "After following
    these steps, I found that …"): the answer comes from no look at the workspace."""

    name: ClassVar[str] = "claimed-look"

    def check(self, run: RunSoFar) -> Ending | None:
        if run.tried or run.acted or run.failed_runs:
            return None
        if not run.prompt.strip() or "\n" in run.prompt.strip():
            return None
        said = _claimed(run, CLAIMS_LOOK)
        if said is None:
            return None
        return Ending(
            "unbacked_claim",
            f'the model said it looked ("{said}"), but no call read or searched anything in '
            "this run",
        )


class EchoedPrompt:
    """The last reply only says the prompt again, alone or after a few words ('The user
    asked: "How many litres …?"'), and ends on it: no answer was given. Measured (bench
    local-tasks, the seventh batch, half A): asked how much water the cucumbers get,
    which no file says, the 1.5B model ended on the question in quotes."""

    name: ClassVar[str] = "echoed-prompt"

    def check(self, run: RunSoFar) -> Ending | None:
        said, asked = _words(run.reply), _words(run.prompt)
        if len(asked) < 20 or not said.endswith(asked):
            return None  # "How long may a ride last? 12 hours." answers it
        if len(said.replace(asked, "").strip()) >= 40:
            return None
        return Ending("no_answer", "the model's last reply only says the question again")


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


class EmptyAnswer:
    """The last reply is empty, and the run was asked a question, or a change it did not
    make: nothing answers the prompt. Measured (bench local-tasks, half B): the stock
    report run, the 1.5B model's last replies were blank, and the run ended done."""

    name: ClassVar[str] = "empty-answer"

    def check(self, run: RunSoFar) -> Ending | None:
        if run.reply.strip() or not run.prompt:
            return None  # said something, or a stage whose prompt is not known
        if asks_for_change(run.prompt) and CHANGING_KINDS & run.acted:
            return None  # the change asked for is the answer
        return Ending("no_answer", "the model's last reply is empty")


class ClaimedAsk:
    """A reply says the model asked the user ("I asked the user to provide the path to
    the map script, but the file does not exist") and no call put a question to the user:
    the user was asked nothing. Measured (bench local-tasks, the sixth batch, half A):
    after reading a path it made up, the 1.5B model ended three runs so, and they ended
    done."""

    name: ClassVar[str] = "claimed-ask"

    def check(self, run: RunSoFar) -> Ending | None:
        said = None if run.asked_user else _claimed(run, CLAIMS_ASK)
        if said is None:
            return None
        return Ending(
            "unbacked_claim",
            f'the model said it asked you ("{said}"), but no question was put to you in this run',
        )


class AnnouncedAction:
    """The last sentence announces what the model will do ("I will summarize notes.md",
    "To summarize it, I will read the file") and the reply stops there."""

    name: ClassVar[str] = "announced-action"

    def check(self, run: RunSoFar) -> Ending | None:
        if not run.announcements:
            return None
        last, masked = last_sentence(next(iter(run.replies())))
        if not ANNOUNCES.match(masked) or masked.endswith("?"):
            return None
        return Ending(
            "stopped_early",
            f'the model stopped before doing what it said ("{quote(last, 0, len(last))}")',
        )


#: the rules, in the order they are asked
RULES: tuple[EndingRule, ...] = (
    StoppedByCap(),
    LeftBroken(),
    ClaimedChange(),
    HandedOverChange(),
    DescribedNotMade(),
    TriedNotMade(),
    Unwritten(),
    StillFailing(),
    ClaimedRun(),
    ClaimedLook(),
    ClaimedAsk(),
    AnnouncedAction(),
    EchoedPrompt(),  # after it: "I will add a coupon …" said back is an announcement
    UntriedChange(),  # late: a run that says more of how it stopped short is told so
    EmptyAnswer(),
)


def honest_ending(
    text: str,
    acted: Collection[str],
    *,
    announcements: bool = True,
    earlier: Iterable[str] = (),
    finish: str = "stop",
    prompt: str = "",
    tried: Collection[str] = (),
    last_run: tuple[str, int | None] | None = None,
    failed_runs: Collection[str] = (),
    asked_user: bool = False,
    written: Collection[str] = (),
    refusals: Iterable[str] = (),
    broken: Iterable[tuple[str, str]] = (),
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
        tried: the kinds of the tools whose calls ran in the run, whatever they did.
        last_run: the last command run since the last change, and its exit status.
        failed_runs: the kinds of the tools whose commands exited non-zero (not in
            *acted*).
        asked_user: whether a call that puts questions to the user ran.
        written: the workspace paths calls changed.
        refusals: what the calls that failed or changed nothing answered.
        broken: the files the run's changes left not parsing, with the parse error.
    """
    run = RunSoFar(
        text,
        frozenset(acted),
        tuple(earlier),
        finish,
        announcements,
        prompt,
        frozenset(tried),
        last_run,
        frozenset(failed_runs),
        asked_user,
        frozenset(written),
        tuple(refusals),
        tuple(broken),
    )
    for rule in RULES:
        ending = rule.check(run)
        if ending is not None:
            return ending
    return None


def run_ending(
    log: RunLog,
    kind: Callable[[str], str],
    *,
    prompt: str,
    finish: str = "stop",
    plan: bool = False,
) -> Ending | None:
    """Why the run *log* keeps, whose last reply (the last it said) made no call, did not
    complete, or ``None``. *kind* gives a tool's kind (``other`` for a tool outside the
    table); with *plan* (a deepthink stage, which may end on a plan) only claims count."""
    return honest_ending(
        log.said[-1] if log.said else "",
        [kind(n) for n in log.succeeded],
        announcements=not plan,
        earlier=log.said[:-1],
        finish=finish,
        prompt="" if plan else prompt,
        tried=[kind(n) for n in log.tried],
        last_run=log.last_run,
        failed_runs=[kind(n) for n in log.failed_runs],
        asked_user="get_user_input" in log.tried,
        written=log.written,
        refusals=log.refusals,
        broken=log.broken.items(),
    )
