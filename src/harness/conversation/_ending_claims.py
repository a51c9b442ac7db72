"""The honest endings of a run whose replies claim what no call did
(:mod:`harness.conversation._endings` asks them in its order): a change claimed or
handed over as a file in the answer, a command said to have run, a look, a question said
to have been put to the user."""

from __future__ import annotations

import re
from typing import ClassVar

from harness.conversation._ending_changes import CHANGING_KINDS
from harness.conversation._ending_words import (
    CALLED_RUN_TOOL,
    CLAIMS_ASK,
    CLAIMS_CHANGE,
    CLAIMS_LOOK,
    CLAIMS_RUN,
    FENCE,
    HANDS_OVER,
    find,
    quote,
)
from harness.conversation._run_log import Ending, RunSoFar
from harness.words import ASKS_RUN, asks_for_change

__all__ = [
    "RUNNING_KINDS",
    "ClaimedAsk",
    "ClaimedChange",
    "ClaimedLook",
    "ClaimedRun",
    "HandedOverChange",
]

#: tool kinds whose success backs a claimed run
RUNNING_KINDS = frozenset({"shell", "agent", "other"})


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
