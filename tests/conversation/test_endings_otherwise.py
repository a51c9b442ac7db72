"""Honest endings where the change is said otherwise: a prompt that asks for one without
a verb of changing, a change said in the past of the thing changed, and a change the
model announced in any reply and never began.

The words are read alone; the runs go through the loop against the scripted model over
loopback, under both tool protocols, with the workers as real processes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.conversation import events as ev
from harness.conversation._endings import honest_ending
from harness.words import asks_for_change, asks_question
from tests.conversation.test_endings import PROTOCOLS, errors, run, saying
from tests.scripted import ScriptedModel, reply


@pytest.mark.parametrize(
    "prompt",
    [
        # a name a thing is to have, the new name written as code
        "I'd like slugify renamed to toSlug (src/format.js, src/index.js).",
        "Please call zone_of fare_zone instead, everywhere (tests too).",
        "Could round_money become round_cents? It's in pricing.py and report.py.",
        "cartTotal → orderTotal, in src/cart.js and src/index.js please.",
        "zone_of -> fare_zone everywhere, tests included.",
        "The shell function rotate_logs needs a new name, rotate_log_files.",
        # a state wanted
        "config.json has express_delivery turned off. We want it on.",
        "The kiosk needs high contrast turned on.",
        "We need a bigger database pool: 16 in settings.toml.",
        # a value going from one to another, a thing let do more, the files told a fact
        "VAT goes from 0.2 to 0.23 - pricing.py and settings.toml need it.",
        "Checkout gives up on the stock service too soon. Let it retry 5 times.",
        "Our prices already include tax - please tell the back office settings that.",
        # verbs of changing said otherwise
        "Up the stock service retries to 5.",
        "Take the Post Office Stores off the van's round, it has closed.",
        # an error pasted, with no question about it
        "Getting this from python3 report.py:\n\nAttributeError: 'Inventory' object has no "
        "attribute 'lowstock'. Did you mean: 'low_stock'?",
        'plan.py fails:\n\n  File "schedule.py", line 23, in valve_minutes\nNameError: name '
        "'FLOW' is not defined",
        "runsheet.py fails: KeyError: 'wheelchair_spaces'. Can you fix it?",
        # a state not wanted, how a thing should not be, a request put politely
        "settings.toml still has debug switched on. We don't want that.",
        "Debug mode is on in settings.toml; it shouldn't be.",
        # a condition before how a thing should be, a value changing to another
        "When checkout calls the stock service, it should try up to 5 times.",
        "The service interval for the bikes changes to 500 km.",
        # a count in words after "not", a failure said otherwise, "sort it"
        "I want two days of history on the dashboard chart, not one.",
        "node src/index.js blows up with 'Error: unknown coupon SPRNG10'. Please sort it.",
        # a name or a way preferred
        "We'd rather have toSlug than slugify (src/format.js, src/index.js).",
        "round_money works in cents, so the name round_cents suits it better.",
        "We prefer orderTotal to cartTotal.",
        # a file that still says the old value, a way asked "instead", a value put up
        "VAT is 0.23; pricing.py and settings.toml both still say 0.2.",
        "Repeat the low tank alert every 4 hours instead.",
        "We're putting the deposit up to £60.",
        "Bring the pool size down to 8.",
        # a failure reported, a program named or not; an exception named where it stands
        "The sample order crashes on an unknown coupon, SPRNG10.",
        "The plan script can't run since yesterday.",
        "NameError in schedule.py: FLOW_LITERS_PER_MINUTE is not defined.",
        # a "should" after another clause's "which", a noun that is a verb too
        "Line 12 of scripts/summary.sh calls akw, which doesn't exist - it should be awk.",
        "Open the doors 45 minutes before each show from now on.",
        # a thing let do something from now on
        "Let the hours script show the top three boats by default.",
        # a value written going to another, or beside what it was, as notes and lists do
        "deposit: 50 -> 60 in station.toml",
        "Dashboard chart: 24h -> 48h.",
        "Price change for Monday:\n- sourdough £4.20 → £4.50",
        "config.json tweaks:\n- services.stock.retries: 5 (was 3)",
        # a setting and its state said alone, as a to-do list or a commit message does
        "kiosk/shelves.json: high_contrast on.",
        "gift_wrap off",
        # a verb of changing by a factor; an ask after a dash; a request with "mind"
        "We're getting timeouts. Could you double pool_size in settings.toml?",
        "also, tools/hours.sh - make the default 3 boats?",
        # chat: "can u", "pls", a figure straight before "not", "Sort it?"
        "can u bump the bike deposit up a tenner to £60, its 50 atm",
        "counter croissants 24 not 36 from tmrw pls, bakery.toml",
        "The summary script is broken since Friday. Sort it?",
        "Here's what the build does now:\n\n$ bash scripts/build.sh\nscripts/build.sh: line "
        "10: OUTDIR: unbound variable\n\nMind fixing the script?",
        # an item of a list or a to-do not yet done
        "- [ ] rename House.thirsty to needs_water (beds.py, plan.py)",
        "Before the season:\n1. bump the deposit to 60\n2. turn gift_wrap off",
        "* fix the totals in report.py",
        # a setting's line written after its file's name
        "station.toml: deposit = 60",
        "settings.toml: `smtp_host = smtp.mailhub.example`",
        # a relative "who" or "which" is no wondering; "instead" asked of someone; a
        # request after a few words of when; a value going from one to another with the
        # thing it counts between
        "As a grower who checks every other day, I want the chart to cover 48 hours instead of 24.",
        "TAX_RATE, which pricing.py reads, should be 0.23 now.",
        "Only six old logs are kept. Could it keep twelve instead?",
        "Starting tomorrow, could the counter bake go from 36 croissants to 24?",
    ],
)
def test_a_change_said_otherwise_is_asked_for(prompt: str) -> None:
    assert asks_for_change(prompt) is True


@pytest.mark.parametrize(
    "prompt",
    [
        # a rename asked about, or a name that is no code
        "Why was slugify renamed to toSlug?",
        "Was round_money renamed to round_cents?",
        "Which function did they call cartTotal before?",
        "Explain why total_cents becomes negative.",
        "When the total becomes negative, what does the report print?",
        "How long does a ride take -> minutes?",
        "I'm looking for a new name for the report.",
        # what the user wants to know or have, which an answer gives
        "I need a summary of the overdue books.",
        "I would like to know why total_cents becomes negative.",
        "Do we need a bigger pool?",
        "Which services need a restart?",
        "I like it when total_cents is shown.",
        # values and errors asked about
        "When does the total go from 10 to 12?",
        "Summarise the changes from 1.2 to 1.3 in CHANGELOG.md.",
        "What does KeyError: 'x' mean here?",
        "I ran python3 report.py and saw ValueError: bad. Is that expected?",
        "Explain this: Traceback (most recent call last): x",
        # "tell" and "take" that ask nothing changed
        "Tell me what the settings say.",
        "Take a look at config.json and tell me the port.",
        "Does the config tell the scripts which port to use?",
        "Let it be.",
        # wondering, a capability asked about, a sort asked for, a condition asked about
        "I don't want that to happen again: why did the build fail?",
        "Can the pump run for thirty minutes in one go?",
        # a request put as a question of what a thing could do is not told from one
        # asking it: both ask nothing changed
        "Would the report still work with two days of data?",
        "Could the low tank warning wait four hours before it repeats?",
        "Sort them by date and show me the list.",
        "When the pump runs, which setting should it read?",
        "Why does the total change to 12 when I add one?",
        # a preference, a stale value, a failure and a thing let do asked about
        "Would you rather I used toSlug?",
        "Which name do you prefer, toSlug or slugify?",
        "Does pricing.py still say 0.2?",
        "Tell me which files still use round_money.",
        "Why does the sample order crash?",
        "Run report.py and tell me whether it fails.",
        "Which test fails?",
        "What is a NameError?",
        "How many orders are on file? Let the summary script count them.",
        "Show me what should be in settings.toml.",
        # an arrow or a note of what a value was, asked about; a state said of a thing
        "Why did the deposit go 50 -> 60?",
        "What was it before the change (was 3 right)?",
        "Carry on.",
        "Is 24 not 36 the count the counter gets?",
        "Can u tell me why the deposit is 50?",
        "README.md: read it and tell me which lights are on.",
        "Summarise the changes 1.2 -> 1.3 in CHANGELOG.md.",
        "Is high_contrast on?",
        "The lights went off.",
        # "double" that changes nothing; "what" that shows, then asks why
        "Please double-check the totals in report.py.",
        "Should the strings use double quotes?",
        "Here's what the build does: scripts/build.sh: line 10: OUTDIR: unbound variable. Why?",
        # a to-do done, an item that asks
        "- [x] rename House.thirsty to needs_water",
        "1. why does the build fail?",
        "station.toml: deposit = 60?",
        "calc.py: is a == b here",
        # who and which that ask; "instead" and a request's words asked about
        "Tell me who set the chart to 48 hours instead of 24.",
        "Do you know who wants 48 hours instead of 24?",
        "Why does it keep twelve instead?",
        "Starting tomorrow, why does the counter bake go from 36 croissants to 24?",
    ],
)
def test_the_same_words_asking_about_a_thing_ask_no_change(prompt: str) -> None:
    assert asks_for_change(prompt) is False


def test_a_change_said_otherwise_is_for_the_endings_only() -> None:
    # the small model's nudges push to edit only on a change asked plainly
    for prompt in (
        "I'd like slugify renamed to toSlug.",
        "The kiosk needs high contrast turned on.",
        "Let it retry 5 times.",
        # an error pasted with no command (one named is the failing command's, which the
        # nudges run again after a change: test_nudge.py)
        "Getting this after the update:\n\nAttributeError: no attribute 'x'",
        "We'd rather have toSlug than slugify.",
        "The sample order crashes on an unknown coupon.",
    ):
        assert asks_for_change(prompt, plainly=True) is False, prompt


@pytest.mark.parametrize(
    "text",
    [
        "The `config.json` file was found and the `retries` value was updated to 5.",
        "The opening hour was changed from 7 to 8.",
        "Both names were successfully renamed to toSlug.",
    ],
)
def test_a_change_said_in_the_past_of_the_thing_needs_a_call_that_made_it(text: str) -> None:
    # measured (bench local-tasks, the fourth wording set): "Let it retry 5 times." went
    # unheard, one search ran, and this claim ended the run ok with config.json as it was
    ending = honest_ending(text, ["search"], prompt="Let checkout retry more.")
    assert ending is not None
    assert ending.reason == "unbacked_claim"
    assert honest_ending(text, ["search", "mutating"], prompt="Let checkout retry more.") is None


@pytest.mark.parametrize(
    "text",
    [
        # how a thing stands, and history
        "The timeout was set to 30 in settings.toml.",
        "The default was changed to 5 in version 2.1.",
        "The retries value is 5.",
    ],
)
def test_how_a_thing_stands_or_stood_is_no_claim(text: str) -> None:
    assert honest_ending(text, ["read"], prompt="What is the timeout?") is None


WARNINGS = "In staging, log only warnings and worse: the api service in deploy.yaml."
ANNOUNCED = (
    "I will log only warnings and worse in the `deploy.yaml` file. I will use the "
    "`search_text` tool to find the lines and the `edit_file` tool to replace them."
)


def test_a_change_announced_in_any_reply_and_never_begun_is_stopped_early() -> None:
    # measured (bench local-tasks, half B, warnings-only-staging): the prompt was not
    # heard as a change; the model announced one, searched, listed lines and ended ok
    assert asks_for_change(WARNINGS) is False
    listed = "I searched and found these lines:\n\n- deploy.yaml:5: api:"
    ending = honest_ending(listed, ["search"], earlier=[ANNOUNCED], prompt=WARNINGS)
    assert ending is not None
    assert ending.reason == "stopped_early"
    assert ending.message == (
        'the model said it would make a change ("I will use the `search_text` tool to find '
        'the lines and the `edit_file` tool to replace them."), but no call in this run tried '
        "to make it"
    )


def test_a_change_announced_and_then_made_tried_asked_or_not_needed_is_no_stop() -> None:
    listed = "I searched and found these lines."
    # made, or tried (a refused edit is the refusal's to tell), or a question put to the user
    assert honest_ending(listed, ["mutating"], earlier=[ANNOUNCED], prompt=WARNINGS) is None
    assert (
        honest_ending(listed, ["search"], earlier=[ANNOUNCED], prompt=WARNINGS, tried=["mutating"])
        is None
    )
    assert (
        honest_ending(listed, ["search"], earlier=[ANNOUNCED], prompt=WARNINGS, asked_user=True)
        is None
    )
    # the last reply says none is needed, or asks
    for last in ("The level is already warning, so nothing needs changing.", "Which file?"):
        assert honest_ending(last, ["search"], earlier=[ANNOUNCED], prompt=WARNINGS) is None
    # looks announced, offers and questions announce no change
    for said in (
        "I will read deploy.yaml first.",
        "I'll check whether the log level needs to change.",
        "Let me search for the lines to replace.",
        "If you want, I will update it.",
        "Shall I update it?",
    ):
        assert honest_ending(listed, ["read"], earlier=[said], prompt=WARNINGS) is None, said
    # a question asked, and no change: a plan for the answer may say it will write
    planned = "I will then write a Python script to simulate the ride."
    for question in (
        "How long can someone keep a bike on a single ride?",
        "what temperature does the sourdough bake at",
        "The council want August's figures: how many miles did the bus do?",
        # asked to tell or explain, a request is a question
        "Can you run the timetable screen and tell me when the hospital bus leaves?",
        "It broke overnight - can you explain why?",
    ):
        assert asks_question(question), question
        ending = honest_ending("It is 12 hours.", ["search"], earlier=[planned], prompt=question)
        assert ending is None, question
    # a request put as a question is no question; a question beside a change asked is
    # the change's too
    assert not asks_question("Can you switch debug off?")
    assert not asks_question("Probably a typo in skipper.sh - can you get it going again?")
    assert not asks_question(WARNINGS)
    both = "Set the level to warning in deploy.yaml. Why was it info?"
    assert honest_ending(listed, ["search"], earlier=[ANNOUNCED], prompt=both) is not None
    # a stage meant to end on a plan may announce
    assert (
        honest_ending(listed, ["search"], earlier=[ANNOUNCED], prompt=WARNINGS, announcements=False)
        is None
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_run_that_announced_a_change_and_only_searched_ends_not_done(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    deploy = "services:\n  api:\n    log_level: info\n"
    (workspace / "deploy.yaml").write_text(deploy)
    model.add(
        saying(protocol, ANNOUNCED, "search_text", pattern="log_level"),
        reply("I searched and found this line:\n\n- deploy.yaml:3: log_level: info"),
    )
    result, seen = await run(session_factory, protocol, WARNINGS)
    assert (result.ok, result.reason) == (False, "stopped_early")
    assert errors(seen)[-1].message.startswith("the model said it would make a change")
    assert (workspace / "deploy.yaml").read_text() == deploy


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_run_that_announced_a_change_and_made_it_ends_done(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "deploy.yaml").write_text("services:\n  api:\n    log_level: info\n")
    model.add(
        saying(
            protocol,
            ANNOUNCED,
            "edit_file",
            path="deploy.yaml",
            old_text="log_level: info",
            new_text="log_level: warning",
        ),
        reply("The api service now logs warnings and worse."),
    )
    result, seen = await run(session_factory, protocol, WARNINGS)
    assert (result.ok, result.reason) == (True, "done")
    edits = [e for e in seen if isinstance(e, ev.ToolCallFinished) and e.name == "edit_file"]
    assert [e.ok for e in edits] == [True]
    assert "log_level: warning" in (workspace / "deploy.yaml").read_text()
