"""What the loop asks the model about the conversation itself: a summary of older
history (compaction) and a title after the first exchange.

These are the requests' words and the pure steps around them; the loop sends them
(quietly: no events for their text) and applies the answers
(:meth:`~harness.conversation._loop.Conversation.compact`).
"""

from __future__ import annotations

import re

from harness.conversation._history import SUMMARY_PREFIX
from harness.messages import model as pm

__all__ = [
    "SUMMARY_SYSTEM",
    "TITLE_SYSTEM",
    "compaction_cut",
    "plain_title",
    "title_from",
    "title_request",
    "transcript",
]

SUMMARY_SYSTEM = (
    "You compress a coding session into notes for yourself. Write a compact summary of the "
    "conversation below: the user's goals and standing instructions, decisions made, files "
    "read or changed (with paths), commands run and their outcomes, and what remains to do. "
    "Plain text, no preamble."
)
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


def compaction_cut(history: list[pm.ChatMessage], n: int) -> int:
    """How many of *history*'s first messages a summary may replace, at most *n*:
    never a call without its result."""
    n = min(n, len(history))
    while n > 0 and history[n - 1].role == "assistant" and history[n - 1].tool_calls:
        n -= 1
    return n


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


def transcript(history: list[pm.ChatMessage], *, max_chars: int) -> str:
    """*history* as plain text for the summariser, cut in the middle past *max_chars*."""
    parts: list[str] = []
    for m in history:
        if m.role == "tool":
            body = m.content if len(m.content) < 2000 else m.content[:2000] + " [...]"
            parts.append(f"[tool result {m.name}]\n{body}")
        elif m.role == "assistant":
            calls = "".join(f"\n[call {c.name} {c.arguments}]" for c in m.tool_calls)
            parts.append(f"[assistant]\n{m.content}{calls}")
        else:
            content = m.content
            if content.startswith(SUMMARY_PREFIX):
                parts.append(f"[earlier summary]\n{content[len(SUMMARY_PREFIX) :]}")
            else:
                parts.append(f"[user]\n{content}")
    text = "\n\n".join(parts)
    if len(text) > max_chars:
        half = max_chars // 2
        text = text[:half] + "\n[... middle of the conversation cut ...]\n" + text[-half:]
    return text
