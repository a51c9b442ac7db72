"""Asking a small model, once, to do what it just said it would do.

Measured with the 1.5B model: asked "What does calc.py do? Is there a bug?" it answers "I
will read the calc.py file ... If I find any issues, I will fix them" and stops, with no
call; refused an ambiguous ``edit_file`` it answers "I need to include more surrounding
text" and stops. Either way the turn ends with nothing done. A reply that makes no call but
announces an action (a first-person intention and a verb a tool performs), or claims one
("I read the file and found …") before any tool ran, gets one more generation in the same
turn, after a short user line naming the tool to use.

Measured too: asked to fix a bug or rename a parameter, it reads the file, then answers "I
fixed the function by changing ..." or "The parameter has been renamed" with no call: the
file is unchanged. A reply that claims a change when no edit or write was made since the
user asked is told that nothing changed until it calls ``edit_file``.

Creating and writing are left out on purpose: a model nudged to "create" a file it could
not find would write an invented one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from harness.actors.model import parse_reply
from harness.messages.model import ToolSchema

__all__ = ["nudge_for"]

_INTENT = re.compile(
    r"\b(I will|I'll|I am going to|I'm going to|Let me|Let's|I need to|I should|I must|"
    r"I would|Next, I|First, I|I can now)\b",
    re.I,
)
_CLAIM = re.compile(r"\bI (have |just )?(read|checked|looked at|opened|ran|searched)\b", re.I)
# verbs -> the tool that does them
_VERBS: tuple[tuple[str, str], ...] = (
    (r"fix|edit|change|modify|correct|replace|update|rename|include more", "edit_file"),
    (r"run|execute|test", "run_cmd"),
    (r"read|open|look at|check|inspect|examine|review|analy[sz]e", "read_file"),
    (r"list", "list_dir"),
    (r"search|find|grep", "search_text"),
)
_LAST_CALL = re.compile(r'<tool_call>\s*\{\s*"name"\s*:\s*"([\w.-]+)"')
_CHANGED = r"fixed|changed|renamed|updated|replaced|edited|modified|corrected"
_CHANGE_CLAIM = re.compile(
    rf"\bI (have |just |also )?({_CHANGED})\b|\b(has|have) (now )?been ({_CHANGED})\b", re.I
)
_WRITES = ("edit_file", "write_file")


# a verb asking for a change, not a file named after one (CHANGES.md)
_ASKS_CHANGE = re.compile(
    r"\b(fix|change|rename|edit|update|replace|correct|modify)(e?s|ed|ing)?\b(?!\.\w)", re.I
)


def _change_unmade(history: Sequence[dict[str, str]]) -> bool:
    """Whether the user's last request asks for a change and no edit or write was called
    since (a model describing a file that "has been updated" is not claiming a change)."""
    for msg in reversed(history):
        if msg["role"] == "user" and "<tool_response>" not in msg["content"]:
            return bool(_ASKS_CHANGE.search(msg["content"]))
        if msg["role"] == "assistant" and any(
            name in _WRITES for name in _LAST_CALL.findall(msg["content"])
        ):
            return False
    return False


def _named_tool(reply: str, names: Sequence[str]) -> str | None:
    hits = [(reply.find(n), n) for n in names if n in reply]
    return min(hits)[1] if hits else None


def _verb_tool(sentence: str, names: Sequence[str]) -> str | None:
    """The tool of the first action the sentence names ("read ..., then fix": read)."""
    hits = []
    for verbs, tool in _VERBS:
        found = re.search(rf"\b({verbs})", sentence, re.I)
        if tool in names and found:
            hits.append((found.start(), tool))
    return min(hits)[1] if hits else None


def nudge_for(
    reply: str, history: Sequence[dict[str, str]], tools: Sequence[ToolSchema]
) -> str | None:
    """The user line that asks the model to go on, or ``None`` when *reply* needs none
    (it made a call, or it announces nothing a tool does)."""
    names = [t.name for t in tools]
    if not names or not reply.strip():
        return None
    known = {t.name: tuple(t.parameters.get("properties", {})) for t in tools}
    if parse_reply(reply, known).calls:
        return None
    intent = _INTENT.search(reply)
    last = history[-1]["content"] if history else ""
    asked = bool(history) and history[-1]["role"] == "user" and "<tool_response>" not in last
    if intent is None and asked:
        # "I read the file and found the code." with no call made: it read nothing
        intent = _CLAIM.search(reply)
    if intent is None:
        claim = _CHANGE_CLAIM.search(reply)
        if claim is None or "edit_file" not in names or not _change_unmade(history):
            return None
        example = json.dumps({"name": "edit_file", "arguments": {}})[:-2]
        return (
            "You said the file is changed, but no tool changed it: nothing changes until you "
            f"call edit_file. Write the <tool_call> block ({example}...) and nothing else."
        )
    sentence = reply[intent.start() :].split("\n\n", 1)[0]
    if re.search(r"\b(create|write)\b", sentence, re.I) and not re.search(
        r"\b(fix|edit|change)\b", sentence, re.I
    ):
        return None
    tool = _named_tool(sentence, names) or _verb_tool(sentence, names)
    previous: list[str] = []
    if len(history) >= 2 and history[-1]["role"] == "user" and "<tool_response>" in last:
        previous = _LAST_CALL.findall(history[-2]["content"])
    if tool is None and previous and previous[-1] in names:
        tool = previous[-1]
    if tool is None:
        return None
    example = json.dumps({"name": tool, "arguments": {}})[:-2]
    if previous and previous[-1] == tool:
        return (
            f"Do it now: call {tool} again, using what the tool result above says. Write the "
            f"<tool_call> block ({example}...) and nothing else."
        )
    return (
        f"You said what you will do but did not do it. Do it now: call {tool}. Write the "
        f"<tool_call> block ({example}...) and nothing else."
    )
