"""Rebuilding the model's history from a session's durable events.

The same functions update the live history while a run goes on, so a resumed
session sees exactly what the interrupted one would have sent next.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence

from harness.conversation import events as ev
from harness.conversation.events import Rewound, SessionForked
from harness.messages.model import ChatMessage, ToolCall

__all__ = [
    "SUMMARY_PREFIX",
    "apply_compaction",
    "cut_before",
    "effective",
    "is_prompt",
    "rebuild_history",
    "repair_history",
    "unanswered_calls",
]

SUMMARY_PREFIX = "[Summary of the earlier conversation]\n"
UNFINISHED = "The call did not finish: harness stopped before it returned."


def apply_compaction(history: list[ChatMessage], summary: str, replaced: int) -> list[ChatMessage]:
    """*history* with its first *replaced* messages folded into one summary note."""
    return [ChatMessage(role="user", content=SUMMARY_PREFIX + summary), *history[replaced:]]


def unanswered_calls(history: list[ChatMessage], finished: Container[str]) -> list[ToolCall]:
    """The calls of *history*'s last assistant message whose ids are not *finished*."""
    for msg in reversed(history):
        if msg.role == "assistant":
            return [c for c in msg.tool_calls if c.id not in finished]
    return []


def repair_history(history: list[ChatMessage]) -> list[ChatMessage]:
    """Give every tool call an answer, so the history is well-formed for any provider.

    A run killed between a model's tool call and its result leaves the call
    unanswered; it gets a result saying it did not finish.
    """
    out: list[ChatMessage] = []
    pending: list[tuple[str, str]] = []

    def close_pending() -> None:
        for call_id, name in pending:
            out.append(
                ChatMessage(role="tool", content=UNFINISHED, tool_call_id=call_id, name=name)
            )
        pending.clear()

    for msg in history:
        if msg.role == "tool":
            pending[:] = [p for p in pending if p[0] != msg.tool_call_id]
            out.append(msg)
            continue
        close_pending()
        out.append(msg)
        if msg.role == "assistant" and msg.tool_calls:
            pending.extend((c.id, c.name) for c in msg.tool_calls)
    close_pending()
    return out


def is_prompt(event: ev.ConversationEvent) -> bool:
    """Whether *event* is a prompt the user sent (a checkpoint), not a message added
    to a run (inbox, verify, deepthink's stages)."""
    return isinstance(event, ev.UserMessage) and event.source == "prompt"


def cut_before(events: Sequence[ev.ConversationEvent], number: int) -> list[ev.ConversationEvent]:
    """*events* up to (not including) the *number*-th prompt, and the fork marks after
    it (they say whose file changes came before them).

    Raises:
        ValueError: there are fewer prompts than *number*.
    """
    seen = 0
    for i, event in enumerate(events):
        if is_prompt(event):
            seen += 1
            if seen == number:
                marks = [e for e in events[i:] if isinstance(e, SessionForked)]
                return [*events[:i], *marks]
    raise ValueError(f"there is no prompt {number} (the conversation has {seen})")


def effective(events: Iterable[ev.ConversationEvent]) -> list[ev.ConversationEvent]:
    """The events of the conversation as it stands: each rewind of the conversation
    applied where it comes (the ``rewound`` events themselves left out). The log is
    never rewritten, so this is how a resumed session has the rewound conversation."""
    out: list[ev.ConversationEvent] = []
    for event in events:
        if not isinstance(event, Rewound):
            out.append(event)
        elif event.conversation:
            try:
                out = cut_before(out, event.prompt)
            except ValueError:
                pass  # a prompt the log no longer holds (a torn line): nothing to cut
    return out


def rebuild_history(events: Iterable[ev.ConversationEvent]) -> list[ChatMessage]:
    """The history (without the system prompt) that *events* describe."""
    history: list[ChatMessage] = []
    for event in effective(events):
        if isinstance(event, ev.UserMessage):
            history.append(ChatMessage(role="user", content=event.text))
        elif isinstance(event, ev.AssistantMessage):
            history.append(
                ChatMessage(role="assistant", content=event.text, tool_calls=event.tool_calls)
            )
        elif isinstance(event, ev.ToolCallFinished):
            history.append(
                ChatMessage(
                    role="tool", content=event.output, tool_call_id=event.call_id, name=event.name
                )
            )
        elif isinstance(event, ev.Compacted):
            history = apply_compaction(history, event.summary, event.replaced)
    return repair_history(history)
