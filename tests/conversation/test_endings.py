"""Honest endings: a last reply that claims what no call did, or announces and stops.

The loop runs against the scripted model over loopback, under both tool protocols (calls as
the provider's own tool calls, and as text in the reply), with the workers as real
processes; the headless command prints what the result says.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trio

from harness.cli import main
from harness.conversation import events as ev
from harness.conversation._endings import RULES, honest_ending, run_ending
from harness.conversation._run_log import RunLog
from tests.conversation.conftest import MODULES, PYTHONPATH, drain
from tests.model._server import LoopbackServer
from tests.model.test_llamacpp import completion, llamacpp
from tests.scripted import Reply, ScriptedModel, call, reply

PROTOCOLS = ("native", "text")
BUGGY = "def add(a, b):\n    return a - b\n"


def calling(protocol: str, name: str, **arguments: str) -> Reply:
    """A reply that makes one call, as *protocol* writes it."""
    return saying(protocol, "", name, **arguments)


def saying(protocol: str, text: str, name: str, **arguments: str) -> Reply:
    """A reply that says *text* and makes one call, as *protocol* writes it."""
    if protocol == "native":
        return reply(text, call(name, **arguments))
    head = json.dumps({"name": name, "arguments": arguments})
    return reply(f"{text}\n<tool_call>\n{head}\n</tool_call>".lstrip("\n"))


async def run(session_factory, protocol: str, prompt: str) -> tuple[ev.Result, list]:
    async with session_factory(tool_protocol=protocol) as s:
        events = s.events()
        result = await s.run(prompt)
        return result, drain(events)


def errors(seen: list) -> list[ev.ErrorEvent]:
    return [e for e in seen if isinstance(e, ev.ErrorEvent)]


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_change_claimed_with_no_call_is_not_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(reply("I have updated calc.py so that add returns a + b."))
    result, seen = await run(session_factory, protocol, "Fix add in calc.py.")
    assert not result.ok
    assert result.reason == "unbacked_claim"
    assert result.text == "I have updated calc.py so that add returns a + b."
    said = errors(seen)
    assert said
    assert said[-1].fatal
    assert said[-1].message == (
        'the model said it changed something ("I have updated calc.py so that add returns '
        'a + b."), but no call changed files in this run'
    )
    finished = [e for e in seen if isinstance(e, ev.TurnFinished)]
    assert finished[-1].reason == "unbacked_claim"
    assert (workspace / "calc.py").read_text() == BUGGY


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_change_claimed_after_the_edit_failed_is_not_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(
        calling(protocol, "read_file", path="calc.py"),
        calling(protocol, "edit_file", path="calc.py", old_text="a - c", new_text="a + b"),
        reply("The bug has been fixed."),
    )
    result, seen = await run(session_factory, protocol, "Fix add in calc.py.")
    failed = [e for e in seen if isinstance(e, ev.ToolCallFinished) and not e.ok]
    assert [e.name for e in failed] == ["edit_file"]
    assert not result.ok
    assert result.reason == "unbacked_claim"
    assert (workspace / "calc.py").read_text() == BUGGY


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_change_claimed_after_the_edit_ran_is_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(
        calling(protocol, "read_file", path="calc.py"),
        calling(protocol, "edit_file", path="calc.py", old_text="a - b", new_text="a + b"),
        reply("I fixed add: it has been updated to return a + b."),
    )
    result, seen = await run(session_factory, protocol, "Fix add in calc.py.")
    assert result.ok, errors(seen)
    assert result.reason == "done"
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_run_claimed_after_only_reads_is_not_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "test_calc.py").write_text("def test_add():\n    assert True\n")
    model.add(
        calling(protocol, "read_file", path="test_calc.py"),
        reply("I ran the tests and they all pass."),
    )
    result, seen = await run(session_factory, protocol, "Run the tests.")
    assert not result.ok
    assert result.reason == "unbacked_claim"
    assert errors(seen)[-1].message == (
        'the model said it ran something ("I ran the tests and they all pass."), but no '
        "command ran in this run"
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_announcement_that_stops_ends_as_stopped_early(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "notes.md").write_text("# notes\n")
    model.add(reply("I will summarize the contents of notes.md for you."))
    result, seen = await run(session_factory, protocol, "What is in notes.md?")
    assert not result.ok
    assert result.reason == "stopped_early"
    assert errors(seen)[-1].message == (
        'the model stopped before doing what it said ("I will summarize the contents of '
        'notes.md for you.")'
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_answer_after_the_call_it_announced_is_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "notes.md").write_text("# notes\n")
    model.add(
        calling(protocol, "read_file", path="notes.md"),
        reply("notes.md holds one heading, 'notes', and nothing else."),
    )
    result, _ = await run(session_factory, protocol, "What is in notes.md?")
    assert result.ok
    assert result.reason == "done"


def test_the_headless_result_says_why_the_run_did_not_complete(
    model: ScriptedModel, workspace: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setenv("PYTHONPATH", PYTHONPATH)
    workers = {k: v for k, v in MODULES.items() if k in ("model", "tools")}
    monkeypatch.setenv("HARNESS_WORKERS", json.dumps(workers))

    def run_main(*args: str) -> tuple[int, str, str]:
        status = main([*args, "--workspace", str(workspace)])
        out = capsys.readouterr()
        return status, out.out, out.err

    base = ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]
    model.add(reply("I've created hello.py for you."))
    status, out, _ = run_main("-p", "write hello.py", "--output-format", "json", *base)
    assert status == 1
    doc = json.loads(out)
    assert doc["ok"] is False
    assert doc["reason"] == "unbacked_claim"
    assert doc["error"] == {
        "kind": "unbacked_claim",
        "message": 'the model said it changed something ("I\'ve created hello.py for you."), '
        "but no call changed files in this run",
    }
    model.add(reply("Let me check the folder first."))
    status, out, err = run_main("-p", "what is here?", *base)
    assert status == 1
    assert out == "Let me check the folder first.\n"
    assert 'harness: the model stopped before doing what it said ("Let me check' in err


# -- what counts as a claim -----------------------------------------------------------------

CHANGED = ("mutating",)


@pytest.mark.parametrize(
    "text",
    [
        "I edited calc.py.",
        "I've fixed the bug in add.",
        "The file has been updated.",
        "I made the changes you asked for.",
        "Done! I have also renamed helper to compute in main.py.",
        "Changes have been applied to `calc.py`.",
    ],
)
def test_a_claimed_change_needs_a_call_that_changes_files(text: str) -> None:
    ending = honest_ending(text, ["read"])
    assert ending is not None
    assert ending.reason == "unbacked_claim"
    for kind in ("mutating", "shell", "agent", "other"):
        assert honest_ending(text, ["read", kind]) is None, kind
    assert honest_ending(text, ["read", "network"]) is not None


@pytest.mark.parametrize(
    "text",
    [
        "add returns a - b, so it subtracts: that is the bug.",
        "I have not changed anything: calc.py is already correct.",
        "I didn't edit the file; the fix is to return a + b.",
        "Let me know if you want me to fix it.",
        "The bug was reported in 2.0 and has been fixed in version 2.1.",
        "Here is the fix:\n```python\n# I changed this line\nreturn a + b\n```\nApply it.",
        "Should I run the tests now?",
        "I read calc.py: add subtracts.",
        "",
    ],
)
def test_answers_that_claim_nothing_undone_end_as_done(text: str) -> None:
    assert honest_ending(text, ()) is None


def test_a_claimed_run_needs_a_command() -> None:
    assert honest_ending("I ran pytest: 3 passed.", ["mutating"]) is not None
    assert honest_ending("I ran pytest: 3 passed.", ["shell"]) is None
    assert honest_ending("The script has been executed.", ["read"]) is not None
    # the run claimed by the tool's name, in inline code or not (measured: a reply saying
    # it called run_cmd with a curl command it made up, and no call made)
    said = "I called the `run_cmd` tool with the command `curl -X POST localhost` 5 times."
    ending = honest_ending(said, [])
    assert ending is not None
    assert ending.reason == "unbacked_claim"
    assert "`run_cmd`" in ending.message
    assert honest_ending("I used run_cmd to run the tests: 3 passed.", ["read"]) is not None
    assert honest_ending(said, ["shell"]) is None
    assert honest_ending("You can use `run_cmd` to run the tests.", []) is None
    # named, the call claimed counts from an earlier reply too, whatever the prompt asks
    found = "I searched for the phrase and found it in README.md."
    prompt = "Calls to the stock service should be tried 5 times."
    ending = honest_ending(found, ["read"], earlier=[said], prompt=prompt)
    assert ending is not None
    assert ending.reason == "unbacked_claim"
    story = "I then ran the tests to make sure."
    ending = honest_ending(found, ["read"], earlier=[story], prompt=prompt)
    assert getattr(ending, "reason", None) != "unbacked_claim"


@pytest.mark.parametrize(
    "text",
    [
        "I will summarize the contents of notes.md for you.",
        "Sure! Let me read calc.py first.",
        "The file is long.\n\nNext, I'll search for the definition of parse_date.",
        "I'm going to run the tests now:",
        # the fresh set's ask-statement-timeout: no call at all, then this
        "I would need to run the queries and measure their execution times to get an "
        "accurate answer.",
        "I'd have to look at the config first.",
        # the minibus's run-thursday-hospital-bus: a long clause before the announcement
        "To find the time Thursday's hospital bus gets to Wistow Green and what time it "
        "leaves the hospital to come home, I need to search the `timetable.json` file for "
        "the relevant information.",
    ],
)
def test_an_announced_action_at_the_end_is_stopping_early(text: str) -> None:
    ending = honest_ending(text, ["read", "shell"])
    assert ending is not None
    assert ending.reason == "stopped_early"
    # a stage that is meant to end on a plan (deepthink) is not held to it
    assert honest_ending(text, ["read"], announcements=False) is None


def test_an_announcement_followed_by_the_answer_is_an_answer() -> None:
    text = "Let me read calc.py. It defines add, which subtracts: that is the bug."
    assert honest_ending(text, ["read"]) is None


# the fresh set's usage-slugify, as recorded: a plan of looks, then findings, and no call
SLUGIFY = (
    "To answer this question, I'll look for the usage of the `slugify` function in the "
    "project.\n\n1. **Identify the `slugify` function**: I'll search for the function "
    "definition in the project files.\n\nAfter following these steps, I found that the "
    "`slugify` function is used in the `slugify.py` file."
)


@pytest.mark.parametrize(
    "text",
    [
        SLUGIFY,
        "I searched the project and found that slugify is used in views.py.",
        "I checked config.json: the timeout is 30.",
    ],
)
def test_a_look_claimed_in_a_run_that_made_no_call_is_not_an_answer(text: str) -> None:
    prompt = "Where is slugify used, apart from the file it is written in?"
    ending = honest_ending(text, [], prompt=prompt)
    assert ending is not None
    assert ending.reason == "unbacked_claim"
    assert ending.message.startswith("the model said it looked (")
    assert ending.message.endswith("but no call read or searched anything in this run")
    # any call that ran (even one that failed) is a look; so is text pasted in the prompt
    assert honest_ending(text, [], prompt=prompt, tried=["read"]) is None
    pasted = "What does this error mean?\n\nTypeError: slugify() takes 1 argument"
    assert honest_ending(text, [], prompt=pasted) is None


def test_an_answer_from_knowledge_claims_no_look() -> None:
    prompt = "What does Python's sorted return?"
    said = "sorted returns a new list; I found nothing in your project that changes that."
    assert honest_ending("It returns a new sorted list.", [], prompt=prompt) is None
    assert honest_ending(said, [], prompt=prompt) is not None  # said it looked: it did not


# -- each rule, in a whole headless run: harness -p, real workers, a model on loopback ----

Headless = Callable[..., tuple[int, str, dict]]


@pytest.fixture
def headless(workspace: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> Headless:
    """``harness -p PROMPT`` against a model at a base URL: the exit status, what the
    terminal was told on stderr, and the run's ``result`` event from the session log."""
    monkeypatch.setenv("PYTHONPATH", PYTHONPATH)
    workers = {k: v for k, v in MODULES.items() if k in ("model", "tools")}
    monkeypatch.setenv("HARNESS_WORKERS", json.dumps(workers))

    def run(prompt: str, base_url: str, *extra: str) -> tuple[int, str, dict]:
        base = ["--provider", "openai", "--model", "scripted", "--base-url", base_url]
        base += ["--permission-mode", "auto"]
        status = main(["-p", prompt, *base, *extra, "--workspace", str(workspace)])
        err = capsys.readouterr().err
        (log,) = home.glob("**/events.jsonl")
        events = [json.loads(line) for line in log.read_text().splitlines()]
        (result,) = [e for e in events if e["type"] == "result"]
        return status, err, result

    return run


def test_every_rule_has_a_name_and_a_docstring() -> None:
    names = [rule.name for rule in RULES]
    assert len(set(names)) == len(names)
    for rule in RULES:
        assert type(rule).__doc__, rule.name


def test_claimed_change_counts_a_claim_from_any_reply_and_an_edit_that_changed_nothing(
    headless: Headless, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "format.js").write_text("function slugify(s) {\n  return s;\n}\n")
    same = "function slugify(s) {"
    model.add(
        reply(
            "I renamed slugify to toSlug in format.js.",
            call("edit_file", path="format.js", old_text=same, new_text=same),
        ),
        reply("The file format.js remains unchanged."),
    )
    status, err, result = headless("Rename slugify to toSlug in format.js.", model.base_url)
    assert (status, result["ok"], result["reason"]) == (1, False, "unbacked_claim")
    assert (
        'harness: the model said it changed something ("I renamed slugify to toSlug in '
        'format.js."), but no call changed files in this run'
    ) in err
    assert "slugify" in (workspace / "format.js").read_text()


def test_handed_over_change_is_a_changed_file_in_the_answer_and_none_on_disk(
    headless: Headless, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(
        reply(
            "The bug is in add. Here's the updated `calc.py` file:\n\n```python\n"
            "def add(a, b):\n    return a + b\n```\n\nThis returns the sum."
        )
    )
    status, err, result = headless("Fix add in calc.py.", model.base_url)
    assert (status, result["ok"], result["reason"]) == (1, False, "unbacked_claim")
    assert (
        "harness: the model gave a changed file in its answer (\"Here's the updated `calc.py` "
        'file:"), but no call changed files in this run'
    ) in err
    assert (workspace / "calc.py").read_text() == BUGGY


def test_claimed_run_counts_a_claim_made_beside_a_read(
    headless: Headless, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "test_calc.py").write_text("def test_add():\n    assert True\n")
    model.add(
        reply("I ran the tests: they pass.", call("read_file", path="test_calc.py")),
        reply("There is one test, test_add, and it passes."),
    )
    status, err, result = headless("Run the tests.", model.base_url)
    assert (status, result["ok"], result["reason"]) == (1, False, "unbacked_claim")
    assert (
        'harness: the model said it ran something ("I ran the tests: they pass."), but no '
        "command ran in this run"
    ) in err


def test_announced_action_after_a_clause_of_purpose_is_stopping_early(
    headless: Headless, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "CHANGES.md").write_text("# 1.2\n- faster\n")
    model.add(reply("To summarize CHANGES.md, I will read the file and list what changed."))
    status, err, result = headless("Summarize CHANGES.md.", model.base_url)
    assert (status, result["ok"], result["reason"]) == (1, False, "stopped_early")
    assert (
        'harness: the model stopped before doing what it said ("To summarize CHANGES.md, I '
        'will read the file and list what changed.")'
    ) in err


@contextlib.contextmanager
def llamacpp_serving(reply_text: str) -> Iterator[LoopbackServer]:
    """A llama.cpp server on loopback (in a thread of its own, for a ``main()`` run in
    this one) whose every completion is *reply_text*."""
    server = LoopbackServer()
    llamacpp(server)
    server.always("/completion", completion(reply_text))
    ready = threading.Event()
    held: dict[str, object] = {}

    async def serve() -> None:
        held["token"] = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            held["scope"] = nursery.cancel_scope
            await nursery.start(server.run)
            ready.set()

    thread = threading.Thread(target=trio.run, args=(serve,), daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield server
    finally:
        scope = held["scope"]
        assert isinstance(scope, trio.CancelScope)
        trio.from_thread.run_sync(scope.cancel, trio_token=held["token"])  # type: ignore[arg-type]
        thread.join(10)


def test_stopped_by_cap_is_a_run_the_repeat_cap_ended(headless: Headless, workspace: Path) -> None:
    # a llama.cpp server under the text protocol gets the small-model profile: its
    # repeat cap (2) refuses the third identical call, and that refusal is no answer
    (workspace / "notes.md").write_text("# notes\n")
    again = '<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.md"}}\n</tool_call>'
    with llamacpp_serving(again) as server:
        status, err, result = headless(
            "What is in notes.md?", server.url + "/v1", "--tool-protocol", "text"
        )
    assert (status, result["ok"], result["reason"]) == (1, False, "stopped_by_cap")
    assert (
        "harness: the model was stopped before it answered: the model made the same tool "
        "call 3 times in a row without answering"
    ) in err
    # the first read is the rules' own (read-named), written with no generation
    assert len([r for r in server.requests if r.path == "/completion"]) == 2


def test_a_loop_inside_a_call_ends_incomplete_and_writes_nothing(
    headless: Headless, workspace: Path
) -> None:
    # the fresh task set's create-running-page: one line of the page written over and over
    # inside the call; stopped there, the cut call must not be repaired and run
    opened = '<tool_call>\n{"name": "write_file", "arguments": {"path": "RUNNING.md"}}\n<content>\n'
    line = "- The report script is located in the src directory of the project.\n"
    with llamacpp_serving(opened + "# Running\n\n" + line * 200) as server:
        status, err, result = headless(
            "Write RUNNING.md.", server.url + "/v1", "--tool-protocol", "text"
        )
    assert (status, result["ok"], result["reason"]) == (1, False, "incomplete")
    assert (
        "the model was stopped writing one line over and over in a tool call; the call was not run"
    ) in err
    assert not (workspace / "RUNNING.md").exists()
    assert len([r for r in server.requests if r.path == "/completion"]) == 1


# -- what the new words mean --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I set `timeout_seconds` in config.json to 30.",
        "I turned debug off in settings.toml.",
        "I made the necessary changes to backup.sh.",
        "I read package.json, found 1.2.0, and then used the edit_file tool to replace it.",
        "The version has been bumped to 1.3.0.",
        "I read the `package.json` file, found the `version` field, updated it to `1.3.0`, "
        "and then wrote the updated content back to the file.",
        "I opened config.json and changed the timeout to 30.",
        "I checked calc.py, fixed the sign in add, and saved it.",
        "I made the api service in deploy.yaml run image version 4.3.0 by editing the "
        "`image` field.",
        "I pointed the stock service at port 9000 by changing its url in config.json.",
        "I sorted it out by installing the missing package.",
        "The error has been resolved.",
        "I installed `requests` with pip.",
        # the repair note harness adds to a call's result, echoed as what the model did
        "I then repaired the call to read the file by replacing the text with a fenced block.",
    ],
)
def test_more_ways_of_claiming_a_change(text: str) -> None:
    ending = honest_ending(text, ["read"])
    assert ending is not None
    assert ending.reason == "unbacked_claim"
    assert honest_ending(text, ["read", "mutating"]) is None


@pytest.mark.parametrize(
    "text",
    [
        "I wrote a short summary below.",
        "I've created a plan: first read calc.py, then fix add.",
        "I've updated the todo list.",
        "The timeout was set to 30 in version 2.1.",
        "Here is the fix:\n```python\nreturn a + b\n```\nApply it to calc.py.",
        "If you want, I will fix it.",
        "I used grep to find it: add is in calc.py.",
        "I checked the changelog, and updated entries are listed under 2.1.",
        "I found that the function, changed in 2.1, returns a - b.",
        "I could open the file, set the version and save it for you.",
        "I read the file and the version is set to 1.2.4.",
        "You can make the api run 4.3.0 by editing the image field.",
        "I would make it run 4.3.0 by editing the image field.",
        "I made a list of the files you can fix by editing them.",
    ],
)
def test_words_that_claim_no_change_and_announce_nothing(text: str) -> None:
    assert honest_ending(text, ["read"]) is None


def test_a_claim_in_an_earlier_reply_needs_a_change_by_the_end() -> None:
    earlier = ["I renamed helper to compute."]
    ending = honest_ending("Nothing else to do.", ["read"], earlier=earlier)
    assert ending is not None
    assert ending.message.startswith('the model said it changed something ("I renamed helper')
    assert honest_ending("Nothing else to do.", ["mutating"], earlier=earlier) is None


def test_a_capped_finish_is_not_an_answer() -> None:
    said = "stopped: the model made the same tool call 3 times in a row without answering"
    ending = honest_ending(said, ["read"], finish="repeat_cap")
    assert ending is not None
    assert ending.reason == "stopped_by_cap"
    assert honest_ending(said, ["read"]) is None


# -- a change described and never made ------------------------------------------------------

LOW_STOCK = (
    "The `low_stock` method in the `Inventory` class was returning all SKUs with quantities "
    "greater than the threshold, which was not the intended behavior. The method should "
    "return SKUs with quantities less than or equal to the threshold."
)


@pytest.mark.parametrize(
    ("prompt", "text", "said"),
    [
        (
            "low_stock in inventory.py lists the items with plenty of stock. Fix it.",
            LOW_STOCK,
            "The method should return SKUs with quantities less than or equal to the threshold.",
        ),
        ("In calc.py, make add return a + b.", "add subtracts. It should return `a + b`.", None),
        ("Fix add in calc.py.", "To fix it, change `return a - b` to `return a + b`.", None),
        ("Set the timeout in config.json to 30.", "The timeout needs to be changed to 30.", None),
        ("Change backup.sh to keep 30 days.", "You need to replace `14` with `30`.", None),
        ("Fix the bug.", "The bug is in add. Change line 2 to `return a + b`.", None),
    ],
)
def test_a_change_asked_for_and_only_described_is_not_done(
    prompt: str, text: str, said: str | None
) -> None:
    ending = honest_ending(text, ["read"], prompt=prompt)
    assert ending is not None
    assert ending.reason == "described_not_made"
    if said:
        assert ending.message == (
            f'the model described the change ("{said}"), but no call made it in this run'
        )
    # made, or never asked for: done
    assert honest_ending(text, ["read", "mutating"], prompt=prompt) is None
    assert honest_ending(text, ["read"]) is None


@pytest.mark.parametrize(
    ("prompt", "text"),
    [
        ("Why does low_stock list the wrong items?", LOW_STOCK),  # a question answered
        ("What should add in calc.py return?", "add should return a + b."),
        ("Tell me if add is correct.", "It should return a + b, but it returns a - b."),
        ("Make sure the tests pass.", "The tests should pass."),
        ("In calc.py, make add return a + b.", "add already returns a + b, as it should."),
        ("Fix add.", "If you want, I can change it so that it should return a + b."),
        ("Fix add.", "Should I change it to return a + b?"),
        ("Fix calc.py.", "calc.py does not exist, so there is nothing to fix."),
        (
            "Fix compute_shipping in pricing.py.",
            "There is no such function; nothing needs to be changed.",
        ),
    ],
)
def test_questions_offers_and_nothing_to_change_are_no_described_change(
    prompt: str, text: str
) -> None:
    assert honest_ending(text, ["read"], prompt=prompt) is None


def test_described_not_made_is_a_read_and_a_fix_in_words(
    headless: Headless, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(
        reply("", call("read_file", path="calc.py")),
        reply("add was returning a - b. It should return a + b."),
    )
    status, err, result = headless("In calc.py, make add return a + b.", model.base_url)
    assert (status, result["ok"], result["reason"]) == (1, False, "described_not_made")
    assert (
        'harness: the model described the change ("It should return a + b."), but no call '
        "made it in this run"
    ) in err
    assert (workspace / "calc.py").read_text() == BUGGY


def test_the_same_words_answering_a_question_are_done(
    headless: Headless, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(
        reply("", call("read_file", path="calc.py")),
        reply("add was returning a - b. It should return a + b."),
    )
    status, _, result = headless("Is add in calc.py right?", model.base_url)
    assert (status, result["ok"], result["reason"]) == (0, True, "done")


async def test_a_deepthink_plan_may_describe_the_change_it_plans(
    session_factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    model.add(
        reply("Plan: a.txt should read bye, so change hello to bye."),  # plan
        reply("Checked: the plan needs to be followed as it is."),  # check
        reply("", call("edit_file", path="a.txt", old_text="hello", new_text="bye")),
        reply("Changed it."),
        reply("The diff is right."),  # review
        reply("a.txt now reads bye."),  # verify
    )
    async with session_factory(deepthink=True, autotitle=False) as s:
        events = s.events()
        with trio.fail_after(30):
            result = await s.run("change hello to bye in a.txt")
        seen = drain(events)
    assert result.ok, result
    ends = [e.reason for e in seen if isinstance(e, ev.StageFinished)]
    assert ends[:2] == ["done", "done"]
    assert (workspace / "a.txt").read_text() == "bye\n"


def test_a_run_claimed_beside_the_edit_asked_for_counts_only_in_the_answer() -> None:
    story = ["I will make add return a + b. I then ran the tests to ensure it works."]
    done = "I changed add in calc.py to return a + b."
    assert honest_ending(done, ["mutating"], earlier=story, prompt="Fix add.") is None
    # asked to run something, or said in the answer itself: still a claim
    asked = honest_ending(done, ["mutating"], earlier=story, prompt="Fix add and run the tests.")
    assert asked is not None
    assert asked.reason == "unbacked_claim"
    said = honest_ending(f"{done} I ran the tests.", ["mutating"], prompt="Fix add.")
    assert said is not None
    assert said.reason == "unbacked_claim"


def test_the_edit_done_beside_a_story_of_tests_ends_done(
    headless: Headless, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    model.add(
        reply(
            "Here's the updated code. I then ran the tests to ensure it works as expected.",
            call("edit_file", path="calc.py", old_text="a - b", new_text="a + b"),
        ),
        reply("I changed add in calc.py to return a + b."),
    )
    status, _, result = headless("In calc.py, make add return a + b.", model.base_url)
    assert (status, result["ok"], result["reason"]) == (0, True, "done")
    assert "a + b" in (workspace / "calc.py").read_text()


# -- a change tried and never made ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The edits change nothing.",
        "removeFromCart removes two lines of the cart instead of one.",
        "I could not find the text to replace.",
    ],
)
def test_a_change_asked_for_whose_every_edit_failed_is_not_done(text: str) -> None:
    prompt = "removeFromCart in src/cart.js removes two lines instead of one. Fix it."
    ending = honest_ending(text, ["read"], prompt=prompt, tried=["read", "mutating"])
    assert ending is not None
    assert ending.reason == "change_not_made"
    # an edit that changed something, or no change asked for: done
    assert honest_ending(text, ["read", "mutating"], prompt=prompt, tried=["mutating"]) is None
    assert honest_ending(text, ["read"], prompt="Why?", tried=["mutating"]) is None


def test_a_change_asked_for_and_never_tried_is_not_done() -> None:
    # measured (bench local-tasks, the bike station, half B): asked to fix a key, the 1.5B
    # model read a path of its own making, said it does not exist, and the run ended ok
    prompt = "removeFromCart in src/cart.js removes two lines instead of one. Fix it."
    said = "I read the file `src/carts.js` and found that it does not exist."
    ending = honest_ending(said, ["read"], prompt=prompt, tried=["read"])
    assert ending is not None
    assert (ending.reason, ending.message) == (
        "change_not_made",
        "the model was asked for a change, but no call in this run tried to make it",
    )
    # a command may have made it; a question, or no change needed, is an answer
    assert honest_ending(said, ["shell"], prompt=prompt, tried=["shell"]) is None
    assert honest_ending(said, [], prompt=prompt, tried=["shell"]) is None
    for answer in (
        "Which of the two calls do you mean?",
        "It already removes one line.",
        "If you want, I can change it to remove one line.",
    ):
        assert honest_ending(answer, ["read"], prompt=prompt, tried=["read"]) is None
    # a question asked is no change asked for
    assert honest_ending(said, ["read"], prompt="What does removeFromCart do?") is None
    # a run that says more of how it stopped short is told that instead
    announced = honest_ending("I will fix removeFromCart now.", [], prompt=prompt)
    assert announced is not None
    assert announced.reason == "stopped_early"


@pytest.mark.parametrize(
    "text",
    [
        "add already returns a + b, so no change is needed.",
        "The function is correct as it is.",
        "The code does not need a change.",
        "Which of the two lines do you mean?",
    ],
)
def test_a_tried_edit_then_no_change_needed_or_a_question_is_done(text: str) -> None:
    ending = honest_ending(text, ["read"], prompt="Fix add in calc.py.", tried=["mutating"])
    assert ending is None


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_an_edit_that_changed_nothing_ends_a_fix_as_not_made(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    (workspace / "calc.py").write_text(BUGGY)
    same = "def add(a, b):\n"
    model.add(
        calling(protocol, "read_file", path="calc.py"),
        calling(protocol, "edit_file", path="calc.py", old_text=same, new_text=same),
        reply("The edits change nothing."),
    )
    result, seen = await run(session_factory, protocol, "Fix add in calc.py.")
    edits = [e for e in seen if isinstance(e, ev.ToolCallFinished) and e.name == "edit_file"]
    assert [(e.ok, e.data.get("changed")) for e in edits] == [(True, False)]
    assert (result.ok, result.reason) == (False, "change_not_made")
    assert errors(seen)[-1].message == (
        "the model was asked for a change and tried, but every write or edit in this run "
        "failed or changed nothing"
    )
    assert (workspace / "calc.py").read_text() == BUGGY


def test_a_failed_calls_answer_said_back_is_not_the_models_word() -> None:
    # measured (bench local-tasks, half B): shown "the line already after old_text in the
    # file" for an edit it wrote twice, the 1.5B model said that answer back, and the
    # run, which changed nothing, ended as done: "already" read as "no change needed"
    refused = (
        "the edit: new_text ends with ']', the line already after old_text in the file "
        "(line 21), so the file would hold it twice; leave that line out of new_text"
    )
    prompt = "python3 daily.py crashes:\n\nNameError: name 'evrey' is not defined\n\nFix it."
    said = "I tried.\n" + refused[0].upper() + refused[1:]
    tried = ["read", "mutating"]
    ending = honest_ending(said, ["read"], prompt=prompt, tried=tried, refusals=[refused])
    assert ending is not None
    assert ending.reason == "change_not_made"
    # the model's own "already", or a line a tool never answered, still says none is needed
    own = "evrey is already defined in fleet.py."
    assert honest_ending(own, ["read"], prompt=prompt, tried=tried, refusals=[refused]) is None
    # a short line is the model's own, whatever a tool said
    assert (
        honest_ending("Already.", ["read"], prompt=prompt, tried=tried, refusals=[refused]) is None
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_failed_edits_answer_said_back_ends_a_fix_as_not_made(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    prices = "PRICES = [\n    1,\n    2,\n]\n"
    (workspace / "prices.py").write_text(prices)

    def said_back(body: dict) -> Reply:
        # the last message is the failed edit's answer, whichever protocol carries it
        content = body["messages"][-1]["content"]
        text = content if isinstance(content, str) else content[0]["text"]
        return reply(next(line for line in text.splitlines() if "already" in line))

    model.add(
        calling(protocol, "read_file", path="prices.py"),
        # new_text ends with the bracket already after old_text: refused, saying "already"
        calling(
            protocol, "edit_file", path="prices.py", old_text="    2,\n", new_text="    3,\n]\n"
        ),
        said_back,
    )
    result, seen = await run(session_factory, protocol, "In prices.py, make the last price 3.")
    edits = [e for e in seen if isinstance(e, ev.ToolCallFinished) and e.name == "edit_file"]
    assert [e.ok for e in edits] == [False]
    assert "already" in edits[0].output
    assert result.text.strip() in edits[0].output
    assert (result.ok, result.reason) == (False, "change_not_made")
    assert (workspace / "prices.py").read_text() == prices


# -- a file asked for and never written ----------------------------------------------------

STEPS = (
    "To write a test for the `test_fees.py` file, we need to create a test case. Here's how "
    "you can do it:\n\n1. **Create the test file** named `test_fees.py`.\n\n```python\n"
    "import unittest\n```\n\nThis will ensure that the test case is working as expected."
)


@pytest.mark.parametrize(
    ("prompt", "asks"),
    [
        # a failure shown and nothing asked about it: the user wants it fixed
        (
            "Trying to look up Ann's outings and I get this:\n\n$ bash tools/skipper.sh \"Ann "
            'Rowe"\ntools/skipper.sh: line 17: log_okay: command not found\n\nIt worked fine '
            "last month.",
            True,
        ),
        # the fix asked in a sentence's last clause, after a dash or a comma
        (
            '$ bash tools/skipper.sh "Ann Rowe"\ntools/skipper.sh: line 17: log_okay: command '
            "not found\n\nProbably a typo in skipper.sh - can you get it going again?",
            True,
        ),
        ("$ bash build.sh\nerror: no target\n\nIt broke overnight, could you sort it?", True),
        # a failure shown with a question about it: the answer is wanted, not a change
        ("`python3 check.py` fails with:\n\nAssertionError\n\nWhy?", False),
        ("$ bash build.sh\nerror: no target\n\nWhat does that mean?", False),
        ("$ bash build.sh\nerror: no target\n\nIt broke overnight - is that expected?", False),
        ("$ bash build.sh\nerror: no target\n\nIt broke, can you tell me why?", False),
    ],
)
def test_a_failure_shown_asks_for_its_fix_unless_it_asks_why(prompt: str, asks: bool) -> None:
    from harness.words import asks_for_change

    assert asks_for_change(prompt) is asks
    assert asks_for_change(prompt, plainly=True) is asks  # the nudges hear it the same


def test_an_edit_announced_in_other_words_is_an_announcement() -> None:
    # measured (bench local-tasks, the tenth batch, half A): "I will adjust the script
    # accordingly." and no call, and the run ended done
    ending = honest_ending("I will adjust the script accordingly.", [], prompt="Three is plenty.")
    assert ending is not None
    assert ending.reason == "stopped_early"


@pytest.mark.parametrize(
    ("prompt", "path"),
    [
        ("Write test_fees.py with a unittest test that a day pass costs 36.", "test_fees.py"),
        ("Add an .editorconfig so editors indent Python with 4 spaces.", ".editorconfig"),
        ("Make a file data/warehouses.txt that lists our warehouses.", "data/warehouses.txt"),
        ("Create a Makefile whose test target runs the tests.", "Makefile"),
        ("Please create `src/sum.js` that exports sum.", "src/sum.js"),
        # a file called new (the seventh batch's words)
        ("Could you put a unittest for litres_for in a new test_schedule.py?", "test_schedule.py"),
        ("Put the check in a new file called tools/check.sh.", "tools/check.sh"),
        # the file after a comma or colon (the ninth batch's words)
        ("Write me a script, tools/product.sh. It should print one line.", "tools/product.sh"),
        ("Add a test: test_oven.py, for the preheat.", "test_oven.py"),
        ("Add a note, then run report.py.", None),
        # a change in a file, a function in the answer, a file written to: no file asked for
        ("Add a line to config.json that sets the port.", None),
        ("Add a coupon SUMMER20 worth 20 percent to COUPONS in src/cart.js.", None),
        ("Can you write a function that adds two numbers?", None),
        ("Write the results to out.txt.", None),
        ("What does make fail with in build.sh?", None),
        # a file made to do something, or one called new that is there
        ("Make scripts/backup.sh keep backups for 30 days instead of 14.", None),
        ("Use the new api.py module in app.py.", None),
    ],
)
def test_the_file_a_prompt_asks_to_have_written(prompt: str, path: str | None) -> None:
    from harness.words import asks_to_write

    assert asks_to_write(prompt) == path


def test_a_file_asked_for_and_never_written_is_not_done() -> None:
    # measured (bench local-tasks, the sixth batch, half A): asked to write test_fees.py,
    # the model gave the steps and the test's text, made no call, and the run ended done
    prompt = "Write test_fees.py with a unittest test that an electric day pass costs 36."
    ending = honest_ending(STEPS, [], prompt=prompt)
    assert ending is not None
    assert (ending.reason, ending.message) == (
        "change_not_made",
        "the model was asked to write test_fees.py, but no call wrote it in this run",
    )
    # written, a write tried and refused (a deny rule), a question back, already there,
    # or no file asked for: done
    assert honest_ending(STEPS, ["mutating"], prompt=prompt, tried=["mutating"]) is None
    assert honest_ending("refused", [], prompt=prompt, tried=["mutating"]) is None
    assert honest_ending("Which cases should the test cover?", [], prompt=prompt) is None
    assert honest_ending("test_fees.py already holds that test.", ["read"], prompt=prompt) is None
    assert honest_ending(STEPS, [], prompt="Explain test_fees.py.") is None


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_file_asked_for_and_given_as_text_ends_as_not_made(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    model.add(reply(STEPS))
    prompt = "Write test_fees.py with a unittest test that an electric day pass costs 36."
    result, seen = await run(session_factory, protocol, prompt)
    assert (result.ok, result.reason) == (False, "change_not_made")
    assert errors(seen)[-1].message == (
        "the model was asked to write test_fees.py, but no call wrote it in this run"
    )
    assert not (workspace / "test_fees.py").exists()


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_file_asked_for_in_a_folder_and_written_in_another_is_not_made(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    # measured (bench local-tasks, the tenth batch, half A): asked to write tools/month.sh,
    # the model wrote outings/month.sh and said so, and the run ended done
    (workspace / "tools").mkdir()
    model.add(
        calling(protocol, "write_file", path="outings/month.sh", content="echo 0\n"),
        reply("I wrote a shell script `outings/month.sh` that counts the outings."),
    )
    prompt = "Could you write tools/month.sh? It tells me how many outings a month had."
    result, seen = await run(session_factory, protocol, prompt)
    assert (result.ok, result.reason) == (False, "change_not_made")
    assert errors(seen)[-1].message == (
        "the model was asked to write tools/month.sh, but wrote outings/month.sh instead"
    )
    assert (workspace / "outings" / "month.sh").exists()


def test_a_file_asked_for_is_written_where_the_prompt_puts_it() -> None:
    prompt = "Could you write tools/month.sh? It tells me how many outings a month had."
    done = {"text": "I wrote it.", "acted": ["mutating"], "prompt": prompt}
    assert honest_ending(**done, written=["tools/month.sh"]) is None
    assert honest_ending(**done, written=["tools/month.sh", "outings/month.sh"]) is None
    assert honest_ending(**done, written=["tools/lib.sh"]) is None  # another file: its own
    # a prompt that gives no folder: the file in any folder is it
    bare = {**done, "prompt": "Write test_fees.py with a test that a day pass costs 36."}
    assert honest_ending(**bare, written=["tests/test_fees.py"]) is None


HANDED = (
    "To fix the script, define OUTDIR first. Here's the corrected version of the script:\n\n"
    '```bash\nOUTDIR="dist"\nmkdir -p "$OUTDIR"\n```'
)


def test_a_file_handed_over_before_a_read_is_a_claim_in_a_run_asked_for_a_change() -> None:
    # the change given in text, a read, then an answer about it: nothing on disk
    last = "The script was missing the `OUTDIR` variable assignment."
    ending = honest_ending(last, ["read"], earlier=[HANDED], prompt="Fix the script.")
    assert ending is not None
    assert ending.reason == "unbacked_claim"
    assert "the corrected version of the script" in ending.message
    # made after all: done
    assert honest_ending(last, ["read", "mutating"], earlier=[HANDED], prompt="Fix it.") is None
    # a question's run: only its last reply is read for a file handed over
    assert honest_ending("OUTDIR is never set.", ["read"], earlier=[HANDED], prompt="Why?") is None


@pytest.mark.parametrize(
    "text",
    [
        "The corrected script is provided above.",
        "The updated `config.json` is shown below.",
        "The fixed version of the file is given above.",
    ],
)
def test_a_changed_file_pointed_at_is_handed_over(text: str) -> None:
    ending = honest_ending(text, ["read"])
    assert ending is not None
    assert ending.reason == "unbacked_claim"


@pytest.mark.parametrize(
    "text",
    [
        "The updated entries are listed in the changelog.",
        "The new version is 1.3.0, as shown above.",
        "The corrected value is 30.",
    ],
)
def test_words_about_changes_that_hand_nothing_over(text: str) -> None:
    assert honest_ending(text, ["read"]) is None


def test_a_change_is_asked_where_an_ask_starts_for_the_endings_and_the_nudges_alike() -> None:
    from harness.words import ASKS_CHANGE, ASKS_RUN, asks_for_change

    asks = [
        "Fix it.",
        "In calc.py, make add return a + b.",
        "Read config.json and set the timeout to 30.",
        "Please rename nam to name.",
        "The total is wrong.\n  Swap the two lines in report.py.",  # an indented line
        "Can you move parse_date into dates.py?",
        "Give the redis cache 512mb of memory instead of 256mb.",
        "Use port 465 for mail.",
        # after "so" (the fresh set's half A: hospital-fare-rise)
        "The fare goes up to 7. It's on the screen as well, so change it there too please.",
        # after "let's", "just", "also", "can we"; "cut" is a verb of changing
        "Let's rename slugify as toSlug.",
        "Just set the pool to 16.",
        "Can we cut the croissants to 24?",
    ]
    questions = [
        "Why does make fail?",
        "Give me the total of the paid orders.",
        "Which file uses CURRENCY?",
        "Tell me if add is correct.",
        "Make sure you only read calc.py: what does it do?",
        "Which file defines the fix_up function?",
        "Can we find where the cut-off is set?",
        "Just tell me which file sets the pool size.",
    ]
    assert [p for p in asks if not ASKS_CHANGE.search(p)] == []
    assert [p for p in questions if ASKS_CHANGE.search(p)] == []
    # a change said as how a thing should be, in a sentence that asks nothing
    should = [
        "The WELCOME5 coupon should take 10% off now, not 5%.",
        "Calls from the checkout to the stock service should be tried 5 times.",
        "settings.toml must have debug off",
        "The report needs to print the total with tax.",
        # or as how it is from now on (the fresh set's toml-mail-host, js-green-tea-five)
        "Our mail goes out through smtp.mailhub.example from now on.",
        "Green tea costs 5 now in the sample order.",
        "We no longer ship to Norway.",
        "I need to be able to book on Sundays.",
        # the fresh set's half A: fix-monday-bookings
        "Bookings for a Monday are supposed to close at noon on the Friday.",
        "The gate is meant to open at eight.",
    ]
    wonders = [
        "Why should add return a + b?",
        "Explain what add should return.",
        "I think the tests should pass.",
        "What should the timeout be in config.json?",
        "Which file should I edit to change the port",
        "Now, explain what add returns.",
        "Right now, what does add return?",
        "Why does it fail now?",
        "Explain what add returns now.",
        "I know how it works.",
        # what the user is to do (the fresh set's half A: missing-brenda-phone)
        "Brenda's on on Wednesday and I need to ring her about a change. What's her number?",
        "I must say the report looks great.",
        "What is add supposed to return?",
    ]
    assert [p for p in asks + should if not asks_for_change(p)] == []
    assert [p for p in questions + wonders if asks_for_change(p)] == []
    assert ASKS_RUN.search("Run the tests and tell me what fails.")
    assert ASKS_RUN.search("Then execute build.sh.")
    assert not ASKS_RUN.search("How does the test runner pick its tests?")


@pytest.mark.parametrize(
    ("prompt", "asks"),
    [
        # the value wanted over the one there is (the fresh set's half A words)
        ("Keep a dozen old logs in the archive rather than six.", True),
        ("When the log is rotated, keep a dozen old logs rather than six.", True),
        ("Can the dashboard's chart show the last two days instead of just one?", True),
        ("From tomorrow just bake 24 for the counter, not 36.", True),
        # a value that is enough, a thing that needs changing
        ("The low-tank warning nags us every two hours. Every four is plenty.", True),
        ("The hours script gives me five boats. Three is plenty by default.", True),
        ("The screen shows the price too, so it needs changing there as well.", True),
        # a thing that starts (the fresh set's half A: magazines-on-loan)
        ("We're starting to lend magazines. They go out for a week.", True),
        ("We'll begin opening on Sundays.", True),
        ("The club is going to start running Tuesday races.", True),
        # a value up from the one there is
        ("Doors open 45 minutes before each show, up from 30.", True),
        # what the user wants or needs to have, which may be an answer, not a change
        # (heard as one, a run that answered it and changed nothing would end not done)
        ("We want the doors open 45 minutes before each show.", False),
        ("I need a summary of the overdue books.", False),
        ("We want the list of late books by Friday.", False),
        # asked or wondered about, not asked for
        ("Why does the chart show two days instead of one?", False),
        ("Explain why it keeps six logs rather than twelve.", False),
        ("Which setting makes it bake 24 rather than 36?", False),
        ("Is an hour enough for the backup?", False),
        ("I wonder whether three is plenty.", False),
        ("Tell me why it bakes 24, not 36.", False),
        ("I'm starting to think add is wrong.", False),
        ("When did we start taking cards?", False),
        ("Tell me why we are starting to lose orders.", False),
    ],
)
def test_a_value_wanted_over_the_one_there_is_asks_for_a_change(prompt: str, asks: bool) -> None:
    from harness.words import asks_for_change

    assert asks_for_change(prompt) is asks
    # for the endings only: the small model's nudges hear a change asked plainly
    assert asks_for_change(prompt, plainly=True) is False


def test_a_run_that_changed_nothing_on_a_value_wanted_does_not_end_done() -> None:
    # measured (bench local-tasks, the sixth project's words): read a file that is not
    # there, said so, and ended done on "Three is plenty by default."
    prompt = "The hours script gives me five boats unless I say otherwise. Three is plenty."
    reply = "I read the `hours.py` file, which does not exist."
    ending = honest_ending(reply, [], prompt=prompt)
    assert ending is not None
    assert ending.reason == "change_not_made"
    assert honest_ending(reply, [], prompt="The hours script gives me five boats.") is None


CHECK = "from calc import add\nassert add(2, 3) == 5, f'add(2, 3) is {add(2, 3)}'\nprint('ok')\n"
FAILS = "`python3 check.py` fails with:\n\nAssertionError: add(2, 3) is -1\n\nFix it."


def wrong_fix(workspace: Path, protocol: str) -> tuple[Reply, ...]:
    """A folder whose check.py fails, and an edit that leaves it failing."""
    (workspace / "calc.py").write_text(BUGGY)
    (workspace / "check.py").write_text(CHECK)
    return (calling(protocol, "edit_file", path="calc.py", old_text="a - b", new_text="a * b"),)


async def run_shell(session_factory, protocol: str, prompt: str) -> tuple[ev.Result, list]:
    """:func:`run`, in a session with a shell worker whose commands need no asking."""
    names = ("model", "tools", "shell")
    async with session_factory(tool_protocol=protocol, names=names, allow=("run_cmd",)) as s:
        events = s.events()
        result = await s.run(prompt)
        return result, drain(events)


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_fix_whose_command_still_fails_when_run_again_is_not_done(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    model.add(
        *wrong_fix(workspace, protocol),
        calling(protocol, "run_cmd", command="python3  check.py"),
        reply("I changed add to fix the error."),
    )
    result, seen = await run_shell(session_factory, protocol, FAILS)
    runs = [e for e in seen if isinstance(e, ev.ToolCallFinished) and e.name == "run_cmd"]
    assert [e.data.get("exit_code") for e in runs] == [1], runs
    assert (result.ok, result.reason) == (False, "still_failing")
    assert errors(seen)[-1].message == (
        "python3 check.py still failed (exit 1) when it last ran, after the last change"
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_fix_whose_command_passes_or_was_changed_since_it_failed_is_done(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    model.add(
        *wrong_fix(workspace, protocol),
        calling(protocol, "run_cmd", command="python3 check.py"),
        # changed again after the failing run: what the run said is old news
        calling(protocol, "edit_file", path="calc.py", old_text="a * b", new_text="a + b"),
        reply("I fixed add."),
        calling(protocol, "run_cmd", command="python3 check.py"),
        reply("It passes now."),
    )
    first, _ = await run_shell(session_factory, protocol, FAILS)
    assert (first.ok, first.reason) == (True, "done")
    second, seen = await run_shell(session_factory, protocol, FAILS)
    runs = [e for e in seen if isinstance(e, ev.ToolCallFinished) and e.name == "run_cmd"]
    assert [e.data.get("exit_code") for e in runs] == [0]
    assert (second.ok, second.reason) == (True, "done")


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_change_claimed_on_a_command_that_failed_is_not_a_success(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    # the fresh task set's error-module-typo: asked about a misspelt import, the model ran
    # `pip install` of the misspelt name, which failed, and said it had sorted it out
    (workspace / "report.py").write_text("import inventroy\n")
    fails = "python3 -c 'import sys; sys.exit(\"No matching distribution found\")'"
    model.add(
        calling(protocol, "run_cmd", command=fails),
        reply("I sorted out the ModuleNotFoundError by installing the `inventroy` package."),
        calling(protocol, "run_cmd", command=fails),
        reply("I ran the install; it failed: no such package."),
    )
    prompt = (
        "python3 report.py stopped working:\n\nModuleNotFoundError: No module named 'inventroy'"
    )
    result, seen = await run_shell(session_factory, protocol, prompt)
    runs = [e for e in seen if isinstance(e, ev.ToolCallFinished) and e.name == "run_cmd"]
    assert [e.data.get("exit_code") for e in runs] == [1]
    assert (result.ok, result.reason) == (False, "unbacked_claim")
    assert errors(seen)[-1].message == (
        'the model said it changed something ("I sorted out the ModuleNotFoundError by '
        'installing the `inventroy` package."), but no call changed files in this run '
        "(every command it ran failed)"
    )
    # a run claimed on the same failed command is a run that happened
    second, _ = await run_shell(session_factory, protocol, prompt)
    assert (second.ok, second.reason) == (True, "done")


def test_a_command_that_failed_backs_a_claimed_run_and_no_claimed_change() -> None:
    changed = "I installed the package."
    ending = honest_ending(changed, ["read"], failed_runs=["shell"])
    assert ending is not None
    assert ending.reason == "unbacked_claim"
    assert ending.message.endswith("(every command it ran failed)")
    # one command that exited 0 backs it, whatever else failed
    assert honest_ending(changed, ["read", "shell"], failed_runs=["shell"]) is None
    assert honest_ending("I ran the tests: 2 failed.", ["read"], failed_runs=["shell"]) is None
    assert honest_ending("I ran the tests: 2 failed.", ["read"]) is not None


def test_still_failing_needs_the_command_the_prompt_says_fails_and_a_fix_asked() -> None:
    said = "I changed add to fix the error."
    ran = ("python3 check.py", 2)
    ending = honest_ending(said, ["mutating", "shell"], prompt=FAILS, last_run=ran)
    assert ending is not None
    assert ending.reason == "still_failing"
    # passed, ended by a signal, not run since the last change, another command run last
    for last in (("python3 check.py", 0), ("python3 check.py", None), None, ("make", 2)):
        assert honest_ending(said, ["mutating", "shell"], prompt=FAILS, last_run=last) is None
    # a question about the failure is answered, not fixed
    why = "`python3 check.py` fails with:\n\nAssertionError\n\nWhy?"
    assert honest_ending("add subtracts.", ["shell"], prompt=why, last_run=ran) is None
    # a command written in the prose counts; a script run as guessed, which may fail for
    # want of the arguments the user gave it, does not
    written = "I get AssertionError when I run `python3 check.py`. Fix it."
    ending = honest_ending(said, ["mutating", "shell"], prompt=written, last_run=ran)
    assert ending is not None
    assert ending.reason == "still_failing"
    guessed = "check.py fails: AssertionError. Fix it."
    assert honest_ending(said, ["mutating", "shell"], prompt=guessed, last_run=ran) is None


def test_a_last_reply_that_only_says_the_prompt_again_is_no_answer() -> None:
    # measured (bench local-tasks, the seventh batch, half A): told no file holds
    # cucumbers, the 1.5B model ended on the question in quotes, and ended ok
    prompt = "How many litres a square metre do the cucumbers get?"
    for echo in (
        f'The user asked: "{prompt} "',
        f'The user asked: "{prompt} "\n\nThe question was: "{prompt} "',
        prompt,
    ):
        ending = honest_ending(echo, ["read"], prompt=prompt, tried=["read"])
        assert ending is not None
        assert (ending.reason, ending.message) == (
            "no_answer",
            "the model's last reply only says the question again",
        )
    # an answer beside the question, a longer reply that holds it, a short prompt: done
    answers = (
        f"{prompt} None: no file gives cucumbers a figure.",
        f"You asked: {prompt} The schedule has tomatoes, peppers and lettuce, no cucumbers,"
        f" so none is set. So to your question, {prompt}",
        "hi",
    )
    assert [honest_ending(a, ["read"], prompt=prompt) for a in answers[:2]] == [None, None]
    assert honest_ending("hi", [], prompt="hi") is None


def test_a_claim_to_have_asked_the_user_needs_a_question_put_to_them() -> None:
    # measured (bench local-tasks, the sixth batch, half A): after reading a path it made
    # up, the 1.5B model ended "I asked the user to provide the path to the map script,
    # but the file does not exist in the workspace." and the run ended done
    said = "I asked the user to provide the path to the map script, but the file does not exist."
    ending = honest_ending(said, ["read"], prompt="Which station is nearest?", tried=["read"])
    assert ending is not None
    assert (ending.reason, ending.message) == (
        "unbacked_claim",
        'the model said it asked you ("I asked the user to provide the path to the map '
        'script, but the file does not exist."), but no question was put to you in this run',
    )
    # a question put with get_user_input, or one spoken of as the user's own: done
    assert honest_ending(said, ["read"], prompt="x", asked_user=True) is None
    assert honest_ending("As you asked, I kept the tests.", ["read"], prompt="x") is None


def test_a_question_put_to_the_user_is_what_the_run_log_keeps() -> None:
    from harness.conversation._endings import run_ending
    from harness.conversation._run_log import RunLog

    said = "I asked the user for the file name."
    log = RunLog(said=[said])
    log.call_finished("get_user_input", True, {})
    assert run_ending(log, lambda name: "read", prompt="Fix it.") is None
    log = RunLog(said=[said])
    log.call_finished("read_file", True, {})
    found = run_ending(log, lambda name: "read", prompt="Fix it.")
    assert found is not None
    assert found.reason == "unbacked_claim"


def test_an_empty_last_reply_answers_nothing_unless_the_change_asked_is_made() -> None:
    # measured (bench local-tasks, half B): the stock report ran, then two blank replies,
    # and the run ended done
    question = "What is the stock worth with tax? The stock report says."
    for blank in ("", "\n\n", "  "):
        ending = honest_ending(blank, ["shell"], prompt=question, tried=["shell"])
        assert ending is not None
        assert (ending.reason, ending.message) == ("no_answer", "the model's last reply is empty")
    # the change asked for, made, is the answer; a stage whose prompt is not known says
    # nothing; a change asked and not made is told as that
    change = "Fix add in calc.py."
    assert honest_ending("", ["read", "mutating"], prompt=change, tried=["mutating"]) is None
    assert honest_ending("", ["read"], prompt="") is None
    untried = honest_ending("", ["read"], prompt=change, tried=["read"])
    assert untried is not None
    assert untried.reason == "change_not_made"


ALERTS = "tank:\n  warn_after_hours: 2\n  notify: ops\n"


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_a_file_a_change_left_not_parsing_is_not_done(
    session_factory, model: ScriptedModel, workspace: Path, protocol: str
) -> None:
    # the fresh task set's fix-board-night-times: an edit left the file unable to load
    # (there, a const declared twice), and the claim of a change ended the run ok
    (workspace / "alerts.yaml").write_text(ALERTS)
    model.add(
        calling(protocol, "read_file", path="alerts.yaml"),
        calling(
            protocol,
            "edit_file",
            path="alerts.yaml",
            old_text="  warn_after_hours: 2\n  notify",
            new_text="  warn_after_hours: 4\n notify",
        ),
        reply("I set the tank's warning to 4 hours."),
    )
    prompt = "Warn about the tank after 4 hours, not 2."
    result, seen = await run(session_factory, protocol, prompt)
    assert (result.ok, result.reason) == (False, "left_broken")
    assert errors(seen)[-1].message == (
        "the run's last change left a file it changed not parsing: alerts.yaml (line 3 "
        "column 2: did not find expected key)"
    )
    # mended by a later change of the same file: done
    model.add(
        calling(protocol, "edit_file", path="alerts.yaml", old_text=" notify", new_text="  notify"),
        reply("Mended the indentation."),
    )
    second, _ = await run(session_factory, protocol, "Fix the indentation of alerts.yaml.")
    assert (second.ok, second.reason) == (True, "done")
    assert (workspace / "alerts.yaml").read_text() == ALERTS.replace(": 2", ": 4")


def test_the_run_log_keeps_what_changes_left_not_parsing() -> None:
    log = RunLog(said=["I padded the hours."])
    broke = {"paths": ["a.js"], "changed": True, "broke": "line 4: SyntaxError: …"}
    log.call_finished("edit_file", True, broke)
    log.call_finished("edit_file", True, {"paths": ["b.json"], "changed": True})
    assert log.broken == {"a.js": "line 4: SyntaxError: …"}
    ending = run_ending(log, lambda _: "edit", prompt="Pad the hours.")
    assert ending is not None
    assert ending.reason == "left_broken"
    # an edit of it that changed nothing, or left it not parsing, leaves it broken (a
    # JavaScript file that did not parse before a change has no note: its dialect may be
    # one node does not read, as JSX, but one the run broke is the run's); one that
    # parses mends it
    log.call_finished("edit_file", True, {"paths": ["a.js"], "changed": False})
    again = {"paths": ["a.js"], "changed": True, "unparsed": "line 5: SyntaxError: …"}
    log.call_finished("edit_file", True, again)
    assert log.broken == {"a.js": "line 5: SyntaxError: …"}
    log.call_finished("edit_file", True, {"paths": ["a.js"], "changed": True})
    assert log.broken == {}
    # a file that did not parse before the run is not the run's doing
    log.call_finished("edit_file", True, {**again, "paths": ["App.js"]})
    assert log.broken == {}
    # a command run since may have mended it (sed -i, git checkout): nothing is said
    log.call_finished("edit_file", True, broke)
    log.call_finished("run_cmd", True, {"command": "git checkout a.js", "exit_code": 0})
    assert log.broken == {}
    assert run_ending(log, lambda _: "edit", prompt="Pad the hours.") is None
