"""What a run did, kept as it goes: what its ending is read against.

A run's honest ending (:mod:`harness.conversation._endings`) reads its replies against
its calls: which succeeded, which only ran, which command ran last and how it exited.
The run keeps that here, call by call and reply by reply, and the task bench replays
recorded runs through the same record (``python -m bench endings``), so a rule is
measured on the runs as they were; :func:`harness.conversation._endings.run_ending` reads
it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

__all__ = ["Ending", "RunLog", "RunSoFar"]


@attrs.frozen
class Ending:
    """Why a run did not complete although the model stopped calling tools.

    Attributes:
        reason: ``unbacked_claim`` (it said it changed or ran something that did not
            happen), ``described_not_made`` (asked for a change, it said what the change
            is and made none), ``change_not_made`` (asked for a change, its every edit
            failed or changed nothing; or asked for a file it names, no call wrote it),
            ``still_failing`` (asked to fix a command that fails, the command failed
            again when it last ran, after the last change),
            ``stopped_early`` (it announced an action and stopped), ``unfounded_answer``
            (its answer names as found a name a search found in no file), ``no_answer`` (its last
            reply only said the prompt again), ``left_broken`` (a file a call changed
            does not parse since, and did before) or ``stopped_by_cap``
            (the model worker stopped it before it answered).
        message: one sentence for the user.
    """

    reason: str
    message: str


@attrs.define
class RunLog:
    """The calls and replies of one run, as its ending reads them (tool names; the
    ending reads their kinds)."""

    succeeded: list[str] = attrs.Factory(list)
    """The tools whose calls succeeded, but for an edit that said it changed nothing and a
    command that exited non-zero: what a claimed change is checked against."""
    failed_runs: list[str] = attrs.Factory(list)
    """The tools whose commands ran and exited non-zero: a run, never a change."""
    tried: list[str] = attrs.Factory(list)
    """Every tool whose call ran, whatever it did: an edit tried and failed."""
    last_run: tuple[str, int | None] | None = None
    """The last command run since the last change (its words joined by single spaces), and
    its exit status: whether the command the prompt says fails still does."""
    said: list[str] = attrs.Factory(list)
    """The text of the run's replies so far: a claim in any of them counts at the end."""
    written: list[str] = attrs.Factory(list)
    """The workspace paths calls changed (their results' ``paths``): whether the file the
    prompt asks for is among them."""
    refusals: list[str] = attrs.Factory(list)
    """What the calls that failed, or said they changed nothing, answered: a reply that
    repeats it says what a tool said, not what the model found."""
    broken: dict[str, str] = attrs.Factory(dict)
    """The files a change of the run took from parsing to not parsing (a result's
    ``broke``) and that no change since left parsing (each later result's ``unparsed``),
    with the parse error. A command run since may have mended them, so one clears it:
    this says only what the calls' own checks found."""
    absent: list[str] = attrs.Factory(list)
    """The names a search of the run found in no file of the workspace (a result's
    ``absent``) and no later call's answer holds: an answer that names one as found names
    what is not there."""

    def call_finished(self, name: str, ok: bool, data: Mapping[str, Any], output: str = "") -> None:
        """Note how a call of *name* ended (*data*: its result's data; *output*: what it
        answered the model)."""
        self.tried.append(name)
        # a name found since (another search, a file read) is there after all
        self.absent = [a for a in self.absent if re.search(rf"\b{re.escape(a)}\b", output) is None]
        if isinstance(missing := data.get("absent"), str) and missing not in self.absent:
            self.absent.append(missing)
        code = data.get("exit_code")
        if not ok or data.get("changed") is False:
            self.refusals.append(output)
        if ok and isinstance(code, int) and code != 0:
            self.failed_runs.append(name)
        elif ok and data.get("changed", True) is not False:
            self.succeeded.append(name)
            if data.get("changed"):  # a file changed: an earlier run says nothing of it
                self.last_run = None
                paths = [p for p in data.get("paths", ()) if isinstance(p, str)]
                self.written += paths
                broke, unparsed = data.get("broke"), data.get("unparsed")
                for path in paths:
                    if isinstance(broke, str) and broke:
                        self.broken[path] = broke
                    elif isinstance(unparsed, str) and unparsed and path in self.broken:
                        self.broken[path] = unparsed  # broken by the run, and still
                    else:
                        self.broken.pop(path, None)
        command = data.get("command")
        if isinstance(command, str) and "exit_code" in data:
            # any command may change files too: only the last one says how things stand
            self.last_run = (" ".join(command.split()), code)
            self.broken.clear()


@attrs.frozen
class RunSoFar:
    """What the ending rules read of a run the model ended with no call.

    Attributes:
        reply: the last reply's visible text.
        acted: the kinds of the tools whose calls succeeded in the run and did not say
            they changed nothing (a tool outside the table: ``other``); a command counts
            only if it exited 0.
        earlier: the visible text of the run's earlier replies, oldest first.
        finish: why the last reply stopped (``stop``, or one of
            :data:`~harness.conversation._endings.CAPPED_FINISHES`).
        announcements: whether an announced action ends the run (off where a stage is
            meant to end on a plan).
        prompt: the prompt the run answers ("" when unknown).
        tried: the kinds of the tools whose calls ran in the run, whatever they did.
        last_run: the last command run since the run's last change (its words joined by
            single spaces) and its exit status (``None``: it ended by a signal).
    """

    reply: str
    acted: frozenset[str] = frozenset()
    earlier: tuple[str, ...] = ()
    finish: str = "stop"
    announcements: bool = True
    prompt: str = ""
    tried: frozenset[str] = frozenset()
    last_run: tuple[str, int | None] | None = None
    failed_runs: frozenset[str] = frozenset()
    """The kinds of the tools whose commands ran and exited non-zero: a run, not a change
    (``pip install`` of a package that does not exist changed nothing)."""
    asked_user: bool = False
    """Whether a call that puts questions to the user (``get_user_input``) ran."""
    written: frozenset[str] = frozenset()
    """The workspace paths calls changed."""
    refusals: tuple[str, ...] = ()
    """What the calls that failed or changed nothing answered, oldest first."""
    broken: tuple[tuple[str, str], ...] = ()
    """The files the run's changes left not parsing (they parsed before), each with its
    parse error."""
    absent: tuple[str, ...] = ()
    """The names a search of the run found in no file of the workspace, and no later
    call's answer held."""

    def replies(self) -> Iterable[str]:
        """Every reply's text without its code blocks, the last first."""
        # imported here: the patterns stay out of the conversation's start-up
        from harness.conversation._ending_words import FENCE

        yield FENCE.sub("", self.reply)
        for text in reversed(self.earlier):
            yield FENCE.sub("", text)
