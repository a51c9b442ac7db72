"""The honest endings of a run whose replies claim what no call did
(:mod:`harness.conversation._endings` asks them in its order): a change claimed or
handed over as a file in the answer, a command said to have run, a look, a question said
to have been put to the user, a name a search found nowhere given as found."""

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
    bounds,
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
    "NamedAbsent",
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


# a name as code writes it, which names one thing: snake_case or camelCase ("round_to_cents",
# "calculateTrays"); a plain word ("trays", "password") may name a thing many ways
_CODE_NAME = re.compile(r"[A-Za-z_$]\w*(?:_\w+|[a-z][A-Z]\w*)")
# a sentence that says a thing is not there: "SUMMER20 is not defined in src/cart.js",
# "I could not find round_to_cents", "There is no calculate_trays."
_DENIES = re.compile(
    r"\b(?:not|no|never|nowhere|none|cannot|without|missing|absent)\b|n't\b",
    re.I,
)


class NamedAbsent:
    """The last reply gives as found a name that a search of the run found in no file of
    the workspace, and no call's answer has shown since ("The function called is
    `calculate_trays`, and it is in the `oven.py` file." after "no matches for
    'calculate_trays' (calculate_trays is in no file of the workspace)"): the answer is a
    guess the files do not back. A sentence that says the name is not there ("There is
    no `round_to_cents`; the rounding is `round_money`.") is the answer, not a guess.

    Measured (bench local-tasks, the fresh set's questions, 154 runs): asked which
    function works out the trays a batch needs, the 1.5B model guessed
    ``calculate_trays``, searched for it, was told no file holds it, and answered it
    anyway; the run ended done. Of every recorded run the bench kept, two that failed their
    check end so, and none that passed."""

    name: ClassVar[str] = "named-absent"

    def check(self, run: RunSoFar) -> Ending | None:
        reply = FENCE.sub("", run.reply)
        for missing in run.absent:
            if not _CODE_NAME.fullmatch(missing):
                continue
            for found in re.finditer(rf"(?<![\w.$]){re.escape(missing)}(?![\w$])", reply):
                start, stop = bounds(reply, found.start(), found.end())
                if _DENIES.search(reply[start:stop]) is None:
                    return Ending(
                        "unfounded_answer",
                        f"the answer names {missing}, which a search of this run found in no "
                        f'file of the workspace ("{quote(reply, found.start(), found.end())}")',
                    )
        return None
