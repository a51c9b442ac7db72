"""The session's title: what the loop asks the model after the first exchange, and
the plain title taken from the user's words when there is no answer to use.

These are the request's words and the pure steps around it; the loop sends it
quietly (no events for its text) and names the session with the answer.
"""

from __future__ import annotations

import re

__all__ = ["TITLE_SYSTEM", "plain_title", "title_from", "title_request"]

TITLE_SYSTEM = (
    "Give this coding session a title of at most six words, from what the user asked. "
    "Answer with the title only: no tool call, no quotes, no markup."
)


def title_request(prompt: str, answer: str) -> str:
    """What the title request shows the model: the user's words and the answer's start."""
    text = f"The user asked:\n{prompt[:2000]}"
    if answer.strip():
        text += f"\n\nThe answer began:\n{answer[:600]}"
    return text


# what a model writes around or instead of a title that is never part of one: thinking,
# text-protocol calls (tagged, fenced or bare JSON), and any other tag
_NOT_TITLE = (
    re.compile(r"<(think|thinking|tool_call|function_call|tool_code|content)\b.*?(</\1>|\Z)", re.S),
    re.compile(r"```.*?(```|\Z)", re.S),
    re.compile(r"<[^<>\n]{0,80}>"),
)
_TAG_WORD = re.compile(r"</?[\w:-]+/?>")


def title_from(answer: str) -> str:
    """The title in a model's *answer*: its first line of words, without quotes,
    markdown or protocol markup; ``""`` when there is none (a call, JSON, a tag)."""
    for pattern in _NOT_TITLE:
        answer = pattern.sub("\n", answer)
    for line in answer.splitlines():
        line = line.strip().strip("\"'#*`_ ").strip()
        if line.lower().startswith("title:"):
            line = line[6:].strip().strip("\"'*` ")
        if not line or line[0] in "{[" or not any(c.isalpha() for c in line):
            continue
        return line[:80]
    return ""


def plain_title(prompt: str) -> str:
    """A title from what the user asked: its first words, tags dropped."""
    words = [w for w in prompt.split() if not _TAG_WORD.fullmatch(w)]
    title = " ".join(words[:8])[:60]
    return title if any(c.isalpha() for c in title) else ""
