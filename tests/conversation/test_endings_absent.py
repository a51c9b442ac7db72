"""The honest ending of an answer that gives as found a name a search of the run found in
no file of the workspace (``named-absent``).

The rule is read alone, from the run's log as calls finished; the runs go through the
loop against the scripted model over loopback, under both tool protocols, with the tools
worker a real process searching a real folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.conversation._endings import honest_ending
from harness.conversation._run_log import RunLog
from tests.conversation.test_endings import PROTOCOLS, errors, run, saying
from tests.scripted import ScriptedModel, reply

ASKED = "Somewhere the code works out how many trays a batch needs. What's that function called?"
GUESSED = "The function called is `calculate_trays`, and it is in the `oven.py` file."
OVEN = "PER_TRAY = 12\n\n\ndef trays_for(count):\n    return -(-count // PER_TRAY)\n"


def test_a_name_given_as_found_that_a_search_found_nowhere_is_no_answer() -> None:
    ending = honest_ending(GUESSED, ["search"], prompt=ASKED, absent=["calculate_trays"])
    assert ending is not None
    assert ending.reason == "unfounded_answer"
    assert ending.message == (
        "the answer names calculate_trays, which a search of this run found in no file of "
        f'the workspace ("{GUESSED}")'
    )
    # camelCase is a name as code writes it too
    said = "It is calculateTrays in oven.js."
    assert honest_ending(said, ["search"], prompt=ASKED, absent=["calculateTrays"]) is not None


@pytest.mark.parametrize(
    "text",
    [
        # the answer says the name is not there
        "There is no `calculate_trays`; the trays come from `trays_for` in oven.py.",
        "I could not find calculate_trays. The count is worked out by trays_for in oven.py.",
        "calculate_trays doesn't exist; trays_for in oven.py does the sum.",
        "The coupon SUMMER_20 is not defined in src/cart.js.",
        # a name only part of another, or in a code block
        "It is `calculate_trays_for` in oven.py.",
        "It is trays_for:\n\n```python\n# not calculate_trays\ndef trays_for(count): ...\n```",
    ],
)
def test_a_name_said_not_to_be_there_or_not_named_is_the_answer(text: str) -> None:
    absent = ["calculate_trays", "SUMMER_20"]
    assert honest_ending(text, ["search"], prompt=ASKED, absent=absent) is None, text


def test_a_plain_word_found_nowhere_is_not_read() -> None:
    # "trays", "password": a word of prose names a thing many ways, not one name
    said = "The trays a batch needs are worked out in oven.py."
    assert honest_ending(said, ["search"], prompt=ASKED, absent=["trays"]) is None


def test_the_log_keeps_a_name_found_nowhere_until_an_answer_shows_it() -> None:
    log = RunLog()
    nowhere = "no matches for 'calculate_trays' (calculate_trays is in no file of the workspace)"
    log.call_finished("search_text", True, {"matches": 0, "absent": "calculate_trays"}, nowhere)
    log.call_finished("search_text", True, {"matches": 0, "absent": None}, "no matches for 'x'")
    assert log.absent == ["calculate_trays"]
    # searched again and found nowhere again: still one
    log.call_finished("search_text", True, {"matches": 0, "absent": "calculate_trays"}, nowhere)
    assert log.absent == ["calculate_trays"]
    # a file read since holds it (written there since, or the search looked in one folder)
    log.call_finished("read_file", True, {}, "1: def calculate_trays(count):")
    assert log.absent == []
    # a name that is only part of a word shown keeps it absent
    log.call_finished("search_text", True, {"absent": "calc_tray"}, nowhere)
    log.call_finished("read_file", True, {}, "1: def calc_trays(count):")
    assert log.absent == ["calc_tray"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_run_that_answers_with_a_name_its_search_found_nowhere_ends_unfounded(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    # measured (bench local-tasks, the fresh set's questions): the 1.5B model guessed
    # calculate_trays, searched for it, was told no file holds it, answered it, and the
    # run ended done
    (workspace / "oven.py").write_text(OVEN)
    model.add(
        saying(protocol, "", "search_text", pattern="calculate_trays"),
        reply(GUESSED),
    )
    result, seen = await run(session_factory, protocol, ASKED)
    assert (result.ok, result.reason) == (False, "unfounded_answer")
    assert errors(seen)[-1].message.startswith("the answer names calculate_trays, which a search")


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_run_that_searched_a_guess_then_found_the_name_ends_done(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "oven.py").write_text(OVEN)
    model.add(
        saying(protocol, "", "search_text", pattern="calculate_trays"),
        saying(protocol, "", "search_text", pattern="trays"),
        reply("There is no calculate_trays: it is `trays_for`, in `oven.py`."),
    )
    result, _ = await run(session_factory, protocol, ASKED)
    assert (result.ok, result.reason) == (True, "done")
