"""A change said otherwise ("Two worker replicas instead of one", "two days of history on
the chart, not one") is pushed on once the model says it made one: the words alone push only the
plain asks, and the model's own claim is the second reading that agrees. The claim counts
for the rest of the prompt's replies, not for a later prompt's."""

from __future__ import annotations

import json

import pytest

from harness.actors.model.local._guide import NUDGED_PREFIX, Guide
from harness.actors.model.local._nudge import Nudge, nudge_for
from harness.actors.model.local._turn import Turn, turn_of
from harness.messages.local import LocalModelProgress
from harness.messages.model import ChatMessage
from harness.words import asks_for_change

from ._chains import TOOLS
from .test_stop_at_announcement import Scripted, _call, _run

# each heard as a change only otherwise: no verb of changing, no "should"
OTHERWISE = (
    "Two worker replicas instead of one in the compose file.",
    "I want two days of history on the dashboard chart, not one.",
    "Checkout gives up on the stock service too soon. Let it retry 5 times.",
)
CLAIM = "I changed it in the file, so it is done now."
DEPLOY = "1:06|services:\n2:13|  worker:\n3:a2|    replicas: 1\n"


def _turn(prompt: str, reply: str, *said: ChatMessage) -> Turn:
    messages = (ChatMessage(role="user", content=prompt), *said)
    return turn_of(messages, reply, TOOLS)


def _rule(turn: Turn, *rules: str) -> tuple[str, str]:
    """The rule that nudges *turn* and the tool it asks for: of *rules*, or of all."""
    said = nudge_for(turn, rules or None) or Nudge("", "")
    return said.rule, said.tool


def _read_after(reply: str) -> tuple[ChatMessage, ChatMessage]:
    """An assistant message of *reply* and a read of deploy.yaml, and the read's result."""
    call = json.dumps({"name": "read_file", "arguments": {"path": "deploy.yaml"}})
    return (
        ChatMessage(role="assistant", content=f"{reply}\n\n<tool_call>{call}</tool_call>"),
        ChatMessage(role="user", content=f"<tool_response>\n{DEPLOY}</tool_response>"),
    )


@pytest.mark.parametrize("prompt", OTHERWISE)
def test_a_change_said_otherwise_and_claimed_is_asked_for(prompt: str) -> None:
    assert asks_for_change(prompt)
    assert not asks_for_change(prompt, plainly=True)
    # claimed with nothing read: the read an edit needs first (the rule alone: before a
    # reply, others write the search for the value)
    assert _rule(_turn(prompt, CLAIM), "claimed-change") == ("claimed-change", "read_file")
    # no claim: the words alone push nothing
    answer = _turn(prompt, "The file has the setting on its third line.")
    assert _rule(answer, "claimed-change") == ("", "")


def test_a_question_is_not_made_a_change_by_a_claim() -> None:
    # a prompt the words do not hear as a change at all stays a question, whatever the
    # reply says of itself (its ending says the claim unbacked)
    question = "Which file says how many worker replicas there are?"
    assert not asks_for_change(question)
    rule, tool = _rule(_turn(question, CLAIM))
    assert rule != "claimed-change"
    assert tool != "edit_file"


def test_the_claim_of_an_earlier_reply_carries_to_the_edit() -> None:
    prompt = OTHERWISE[0]
    # the model claimed the change, then read the file: its empty reply is asked for the
    # edit of the file it read
    claimed = _turn(prompt, "", *_read_after(CLAIM))
    assert "I changed" in claimed.replies[0]
    assert _rule(claimed)[1] == "edit_file"
    # the same read with no claim before it: no edit asked
    looked = _turn(prompt, "", *_read_after("Let me look at the compose file."))
    assert _rule(looked)[1] != "edit_file"


def test_a_later_prompt_starts_with_no_claim() -> None:
    first = "Set the retries in config.json to 5."
    said = (
        ChatMessage(role="assistant", content=CLAIM),
        ChatMessage(role="user", content=OTHERWISE[0]),
    )
    turn = _turn(first, "", *said)
    assert turn.prompt == OTHERWISE[0]
    assert turn.replies == ()
    rule, _ = _rule(_turn(first, "The file has one replica.", *said))
    assert rule != "claimed-change"


async def test_the_guide_asks_again_when_a_change_said_otherwise_is_claimed() -> None:
    script = Scripted([CLAIM])
    out = await _run(Guide(), _call(OTHERWISE[0]), script)
    nudges = [e.message for e in out if isinstance(e, LocalModelProgress)]
    assert nudges == [NUDGED_PREFIX + "claimed-change"]
    # the generation asked again is bound to the read an edit needs first
    assert len(script.asked) == 2
    assert "read_file" in script.asked[1][1]
    # with no claim the reply stands, no generation asked again
    plain = Scripted(["The compose file runs one worker."])
    out = await _run(Guide(), _call(OTHERWISE[0]), plain)
    assert [e for e in out if isinstance(e, LocalModelProgress)] == []
    assert len(plain.asked) == 1
