"""The honest ending of a change asked in files the prompt lists together and made in only
some of them (``unfinished-files``).

The rule is read alone; the runs go through the loop against the scripted model over
loopback, under both tool protocols, with the tools worker a real process editing a real
folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.conversation._endings import honest_ending
from harness.words import listed_files
from tests.conversation.test_endings import PROTOCOLS, errors, run, saying
from tests.scripted import ScriptedModel, reply

ASKED = "The tax rate is now 0.23. Change it in pricing.py and in settings.toml."
SAID = "The tax rate in settings.toml was changed from 0.2 to 0.23."


def test_a_change_made_in_one_of_the_files_listed_is_not_done() -> None:
    ending = honest_ending(SAID, ["read", "mutating"], prompt=ASKED, written=["settings.toml"])
    assert ending is not None
    assert ending.reason == "change_not_made"
    assert ending.message == (
        "the change was asked in pricing.py and settings.toml, but no call changed "
        "pricing.py in this run"
    )


def test_every_file_changed_a_command_run_or_none_needed_is_not_read_as_unfinished() -> None:
    both = ["settings.toml", "src/pricing.py"]  # a path that ends with the name is it
    assert honest_ending(SAID, ["mutating"], prompt=ASKED, written=both) is None
    # a command may have changed the other file with no result naming it
    shell = ["mutating", "shell"]
    assert honest_ending(SAID, shell, prompt=ASKED, written=["settings.toml"]) is None
    # the reply says the other needs no change, or asks
    for last in ("pricing.py already reads the rate from settings.toml.", "Shall I go on?"):
        assert honest_ending(last, ["mutating"], prompt=ASKED, written=["settings.toml"]) is None
    # nothing changed: the claim's rule says so first; a file named alone is no place of
    # the change
    claimed = honest_ending(SAID, ["read"], prompt=ASKED, written=[])
    assert claimed is not None
    assert claimed.reason == "unbacked_claim"
    alone = "Make the tax rate 0.23 in settings.toml, as pricing.py reads it."
    assert listed_files(alone) == []
    assert honest_ending(SAID, ["mutating"], prompt=alone, written=["settings.toml"]) is None
    # a question naming two files asks no change
    why = "Why do pricing.py and settings.toml both hold a tax rate?"
    assert honest_ending("They do.", ["mutating"], prompt=why, written=["settings.toml"]) is None


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_run_that_changed_one_of_two_files_asked_ends_not_done(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "pricing.py").write_text("TAX_RATE = 0.2\n")
    (workspace / "settings.toml").write_text("tax_rate = 0.2\n")
    model.add(
        saying(
            protocol,
            "",
            "edit_file",
            path="settings.toml",
            old_text="tax_rate = 0.2",
            new_text="tax_rate = 0.23",
        ),
        reply(SAID),
    )
    result, seen = await run(session_factory, protocol, ASKED)
    assert (result.ok, result.reason) == (False, "change_not_made")
    assert errors(seen)[-1].message.endswith("no call changed pricing.py in this run")
    assert (workspace / "settings.toml").read_text() == "tax_rate = 0.23\n"
    assert (workspace / "pricing.py").read_text() == "TAX_RATE = 0.2\n"
