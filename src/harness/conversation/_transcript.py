"""A conversation's model history, each change recorded as the event the session log
keeps (so a resume rebuilds the same history), and where the current turn starts."""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import TYPE_CHECKING

from harness.conversation import events as ev
from harness.conversation._history import apply_compaction, unanswered_calls
from harness.conversation._reply import Reply
from harness.messages import model as pm

if TYPE_CHECKING:
    from harness.actors.tools import ToolTable

__all__ = ["CANCELLED_CALL", "Transcript"]

#: the result of a call a cancel cut off
CANCELLED_CALL = "Cancelled by the user before the call finished."


class Transcript:
    """The history of session *session_id*, starting from *history*; each change is
    handed to *emit* as its event (calls logged as the *table* logs them)."""

    def __init__(
        self,
        session_id: str,
        history: list[pm.ChatMessage],
        emit: Callable[[ev.ConversationEvent], None],
        table: ToolTable,
    ) -> None:
        self.session_id = session_id
        self.messages: list[pm.ChatMessage] = list(history)
        #: where the current turn starts in :attr:`messages`
        self.start = len(self.messages)
        self._emit = emit
        self._table = table

    def begin_turn(self) -> None:
        """What comes next is the current turn."""
        self.start = len(self.messages)

    def user(self, text: str, source: str) -> None:
        """A user message (from the prompt, the inbox, deepthink, verify)."""
        self._emit(ev.UserMessage(session_id=self.session_id, text=text, source=source))
        self.messages.append(pm.ChatMessage(role="user", content=text))

    def assistant(self, reply: Reply, *, thinking: str, incomplete: bool = False) -> None:
        """The model's *reply*, with its calls (none are run here)."""
        calls = tuple(c for c, _ in reply.calls)
        self._emit(
            ev.AssistantMessage(
                session_id=self.session_id,
                text=reply.text,
                tool_calls=tuple(self._table.loggable(c) for c in calls),
                thinking=thinking,
                model=reply.model,
                incomplete=incomplete,
            )
        )
        self.messages.append(
            pm.ChatMessage(
                role="assistant", content=reply.text, tool_calls=calls, thinking=thinking
            )
        )

    def tool_result(
        self, call: pm.ToolCall, output: str, images: tuple[pm.ImagePart, ...] = ()
    ) -> None:
        """A call's result (its ``tool_call_finished`` is the call runner's)."""
        self.messages.append(
            pm.ChatMessage(
                role="tool", content=output, tool_call_id=call.id, name=call.name, images=images
            )
        )

    def settle(self, finished: Container[str]) -> list[str]:
        """Give every call of the last reply not *finished* a result saying it was
        cancelled, so the history stays well-formed; the ids of those calls."""
        settled = []
        for call in unanswered_calls(self.messages, finished):
            self._emit(
                ev.ToolCallFinished(
                    session_id=self.session_id,
                    call_id=call.id,
                    name=call.name,
                    ok=False,
                    output=CANCELLED_CALL,
                )
            )
            self.tool_result(call, CANCELLED_CALL)
            settled.append(call.id)
        return settled

    def rewind(self, history: list[pm.ChatMessage]) -> None:
        """Start again from *history*, the conversation before an earlier prompt (its
        ``rewound`` event is the session's, which knows the prompt)."""
        self.messages = list(history)
        self.start = len(self.messages)

    def fold(self, summary: str, replaced: int) -> None:
        """Fold the first *replaced* messages into one *summary* note (its
        ``compacted`` event is the loop's, which knows the sizes)."""
        self.messages = apply_compaction(self.messages, summary, replaced)
        self.start = max(1, self.start - replaced + 1)
