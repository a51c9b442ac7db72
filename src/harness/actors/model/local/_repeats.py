"""The cap on identical repeated tool calls.

Small models that get a tool result back often call the same tool with the same arguments
again instead of answering (see ``docs/models.md``). The history the
provider receives shows it: the last assistant turns are the same call, each followed by its
result. At ``cap`` repeats the model is told, in the last user turn, to answer from the
result it has; past that the provider refuses to generate and says why, with the finish
reason :data:`CAPPED` (not ``stop``), so the conversation knows the run was stopped, not
answered, and ends it as not done.
"""

from __future__ import annotations

import json
import re

import attrs

from harness.messages.model import ChatMessage

__all__ = ["CAPPED", "RepeatVerdict", "check_repeats"]

#: the finish reason of a reply refused past the cap
CAPPED = "repeat_cap"

_SPACE = re.compile(r"\s+")
_CALL_BLOCK = re.compile(r"<tool_call>.*?</tool_call>", re.S)

NUDGE = (
    "You have made this exact tool call {count} times and its result is above. Do not call "
    "it again: use the result you have and answer now."
)


@attrs.frozen
class RepeatVerdict:
    """What the history says about repeated calls.

    Attributes:
        count: how many times the last assistant turn repeats, in a row (1 = once).
        messages: the history to send (with the nudge added at the cap).
        refuse: past the cap: do not generate; ``reason`` says why.
        reason: one line for the user when refusing.
    """

    count: int
    messages: tuple[ChatMessage, ...]
    refuse: bool = False
    reason: str = ""


def _signature(msg: ChatMessage) -> str:
    if msg.tool_calls:
        return json.dumps(
            [[c.name, c.arguments] for c in msg.tool_calls], sort_keys=True, default=str
        )
    # Rendered text-protocol calls: the calls alone, so a different sentence before the
    # same call still counts as the same call.
    blocks = _CALL_BLOCK.findall(msg.content)
    return _SPACE.sub(" ", " ".join(blocks) if blocks else msg.content).strip()


def _trailing_repeats(messages: tuple[ChatMessage, ...]) -> int:
    """How many of the last assistant turns are the same call, each one answered."""
    turns = [m for m in messages if m.role == "assistant"]
    if not turns or messages[-1].role == "assistant":
        return 0
    last = _signature(turns[-1])
    if not last or (not turns[-1].tool_calls and "{" not in last):
        # Plain prose repeated is not a tool loop.
        return 0
    count = 0
    for turn in reversed(turns):
        if _signature(turn) != last:
            break
        count += 1
    return count


def check_repeats(messages: tuple[ChatMessage, ...], cap: int) -> RepeatVerdict:
    """Decide what to do about a repeated call at the end of *messages*, with the model
    profile's *cap* (0: off)."""
    count = _trailing_repeats(messages)
    if cap <= 0 or count < cap:
        return RepeatVerdict(count, messages)
    if count > cap:
        return RepeatVerdict(
            count,
            messages,
            refuse=True,
            reason=f"stopped: the model made the same tool call {count} times in a row "
            "without answering",
        )
    last = messages[-1]
    nudge = NUDGE.format(count=count)
    if last.role == "user":
        nudged = attrs.evolve(last, content=f"{last.content}\n\n{nudge}")
        return RepeatVerdict(count, (*messages[:-1], nudged))
    return RepeatVerdict(count, (*messages, ChatMessage(role="user", content=nudge)))
