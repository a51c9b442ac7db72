"""Asking the model about the conversation itself: summarising older history
(compaction) and titling a session after its first exchange.

Both send a quiet request (no events for its text) with a system prompt of their
own, and neither ever fails a run: a summary that cannot be had is an ``error``
event that is not fatal, a title that cannot be had is no title.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.conversation import events as ev
from harness.conversation._history import SUMMARY_PREFIX, apply_compaction
from harness.conversation._reply import ModelFailed, read_reply
from harness.messages import model as pm

if TYPE_CHECKING:
    from harness.conversation._loop import Conversation

__all__ = ["autotitle", "compact", "transcript"]

SUMMARY_SYSTEM = (
    "You compress a coding session into notes for yourself. Write a compact summary of the "
    "conversation below: the user's goals and standing instructions, decisions made, files "
    "read or changed (with paths), commands run and their outcomes, and what remains to do. "
    "Plain text, no preamble."
)
TITLE_SYSTEM = "Give this coding session a title of at most six words. Answer with the title only."


async def compact(conv: Conversation, upto: int | None = None) -> bool:
    """Summarise *conv*'s history before the current turn (or its first *upto*
    messages) with the model; returns whether it did."""
    history = conv.history
    n = conv._current_start if upto is None else upto
    if conv.running is False and upto is None:
        n = len(history)
    n = min(n, len(history))
    while n > 0 and history[n - 1].role == "assistant" and history[n - 1].tool_calls:
        n -= 1  # never split a call from its result
    if n < 2:
        return False
    system = conv.config.system
    before = conv.budget.estimate(system, history, ())
    text = transcript(history[:n], max_chars=conv.budget.limit * 3)
    request = conv._request(
        [pm.ChatMessage(role="user", content=text)], system=SUMMARY_SYSTEM, tools=()
    )
    try:
        reply = await read_reply(conv, request, quiet=True)
    except ModelFailed as exc:
        conv._error(exc.kind, f"could not summarise the history: {exc.message}", fatal=False)
        return False
    summary = reply.text.strip()
    if not summary:
        return False
    conv.history = apply_compaction(conv.history, summary, n)
    conv._current_start = max(1, conv._current_start - n + 1)
    after = conv.budget.estimate(system, conv.history, ())
    conv.emit(
        ev.Compacted(
            session_id=conv.session_id,
            summary=summary,
            replaced=n,
            tokens_before=before,
            tokens_after=after,
        )
    )
    return True


async def autotitle(conv: Conversation, prompt: str) -> None:
    """Ask the model for a title for a session that began with *prompt*, and set it."""
    request = conv._request(
        [pm.ChatMessage(role="user", content=prompt[:2000])], system=TITLE_SYSTEM, tools=()
    )
    try:
        reply = await read_reply(conv, request, quiet=True)
    except ModelFailed:
        return
    title = reply.text.strip().strip("\"'#*` ").splitlines()[0][:80] if reply.text else ""
    if title:
        conv.set_title(title, by_user=False)


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
