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
  ("I set", "I made the necessary changes", "I used the edit tool to replace"), the
  present perfect ("has been updated") or the past of the thing changed with where it
  went ("the `retries` value was updated to 5"; not "was set to 30 in settings.toml",
  which may say how a thing stands); a negation ("I have not changed
  anything") is not one, nor is an answer about the answer itself ("I wrote a summary
  below") or about history ("was fixed in version 2.1");
- a claim to have changed something counts from any reply of the run (a small model
  says "I renamed it" beside a call that then changes nothing), and is backed by a
  successful call that can change the workspace and did (a write or edit that changed
  something, a command that exited 0, a sub-agent, a tool harness does not know, such as
  an MCP server's); a claim to have run something, by a command (whatever its exit
  status), a sub-agent or an unknown tool;
- an *announcement* is the last sentence saying what the model will do next; a change
  announced in any reply ("I will use the `edit_file` tool to replace them.") and never
  begun (no write, edit or command tried) ends the run too, whatever the prompt's words;
- a *described change* is the last reply saying what the code should be ("It should
  return a + b") when the prompt asks for a change; a question or an offer is not one;
- a *tried change* is a write or edit that ran and failed or changed nothing, in a run
  asked for a change that ends with no change made and no word that none was needed;
- a change *unfinished* is one asked in files the prompt lists together ("in fleet.py
  and in station.toml"), made in some of them and not in another, in a run where no
  command (which may change any file) succeeded;
- a command *still failing* is the one the prompt says fails, in a run asked for a fix,
  when it is the last command run since the run's last change and it failed again;
- a file *unwritten* is one the prompt asks to have written ("Write test_fees.py with
  ..."), in a run where no write or edit was tried and no call changed anything;
- a claim to have *asked the user* ("I asked the user to provide the path") is backed
  only by a call that put a question to the user;
- an *echo* is a last reply that only says the prompt again;
- a name *absent* is one a search of the run found in no file of the workspace (its
  result says so), written as code (``round_to_cents``), that the last reply gives as
  found, in a sentence that does not say it is not there, and that no call's answer has
  shown since;
- a file *left broken* is one a write or edit of the run took from parsing to not
  parsing (its result's check says so: ``tools/_checks``), with no change of it since
  that parsed and no command run since (which may have mended it): whatever the reply
  says, the work is not done.

The rules about a change asked for, and about a file a change left broken, are in
:mod:`harness.conversation._ending_changes`; those about a claim no call backs in
:mod:`harness.conversation._ending_claims`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import ClassVar, Protocol

from harness.conversation._ending_changes import (
    CHANGING_KINDS,
    AnnouncedChange,
    DescribedNotMade,
    LeftBroken,
    StillFailing,
    TriedNotMade,
    UnfinishedFiles,
    UntriedChange,
    Unwritten,
)
from harness.conversation._ending_claims import (
    RUNNING_KINDS,
    ClaimedAsk,
    ClaimedChange,
    ClaimedLook,
    ClaimedRun,
    HandedOverChange,
    NamedAbsent,
)
from harness.conversation._ending_words import (
    ANNOUNCES,
    last_sentence,
    quote,
)
from harness.conversation._run_log import Ending, RunLog, RunSoFar
from harness.words import asks_for_change

__all__ = [
    "CAPPED_FINISHES",
    "CHANGING_KINDS",
    "RULES",
    "RUNNING_KINDS",
    "AnnouncedAction",
    "AnnouncedChange",
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
    "NamedAbsent",
    "RunSoFar",
    "StillFailing",
    "StoppedByCap",
    "TriedNotMade",
    "UnfinishedFiles",
    "UntriedChange",
    "Unwritten",
    "honest_ending",
    "run_ending",
]

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
    UnfinishedFiles(),
    StillFailing(),
    ClaimedRun(),
    ClaimedLook(),
    ClaimedAsk(),
    NamedAbsent(),
    AnnouncedAction(),
    AnnouncedChange(),  # after it: the last reply's own announcement is said first
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
    absent: Iterable[str] = (),
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
        absent: the names a search of the run found in no file, and no later answer held.
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
        tuple(absent),
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
        absent=log.absent,
    )
