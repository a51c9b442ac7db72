"""Compaction: a summary of older history in place of the messages it replaces.

These are the summary request's words and the pure steps around it (where a summary
may cut, the transcript the summariser reads); the request shaper sends it through
the loop, and the loop applies the answer
(:meth:`~harness.conversation._loop.Conversation.compact`).
"""

from __future__ import annotations

from harness.conversation._history import SUMMARY_PREFIX
from harness.messages import model as pm

__all__ = ["SUMMARY_SYSTEM", "compaction_cut", "transcript"]

SUMMARY_SYSTEM = (
    "You compress a coding session into notes for yourself. Write a compact summary of the "
    "conversation below: the user's goals and standing instructions, decisions made, files "
    "read or changed (with paths), commands run and their outcomes, and what remains to do. "
    "Plain text, no preamble."
)


def compaction_cut(history: list[pm.ChatMessage], n: int) -> int:
    """How many of *history*'s first messages a summary may replace, at most *n*:
    never a call without its result."""
    n = min(n, len(history))
    while n > 0 and history[n - 1].role == "assistant" and history[n - 1].tool_calls:
        n -= 1
    return n


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
