"""One model reply, read from the model worker's stream.

The items of the stream become a :class:`Reply` (text, thinking, tool calls, usage,
which model answered) and, unless the read is ``quiet`` (a summary, a title), the
conversation's ``text_delta``, ``thinking_delta`` and ``usage`` events as they come.
A history sent as a delta that the worker does not hold is sent again in full,
transparently; a worker that fails or a model error ends as :class:`ModelFailed`.
A reply cut off by a cancel is settled by :func:`after_cancel`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from harness.conversation import events as ev
from harness.conversation._retry import worker_failure
from harness.conversation._sync import HistorySync
from harness.errors import ProviderError
from harness.ipc import IpcError, WorkerDied
from harness.messages import model as pm

if TYPE_CHECKING:
    from harness.conversation._loop import Conversation

__all__ = ["ModelFailed", "Reply", "after_cancel", "read_reply"]


class ModelFailed(ProviderError):
    """The model (or its worker) failed a round: ``kind`` is the model's error kind."""


@attrs.define
class Reply:
    """A model reply as read so far (whole once :func:`read_reply` returns).

    ``calls`` pairs each tool call with the reason its arguments did not parse
    (``None`` when they did).
    """

    text: str = ""
    thinking: str = ""
    calls: list[tuple[pm.ToolCall, str | None]] = attrs.field(factory=list)
    usage: pm.Usage | None = None
    model: str = ""
    finish: str = ""


async def read_reply(
    conv: Conversation,
    request: pm.ChatRequest,
    *,
    quiet: bool = False,
    sync: HistorySync | None = None,
    retry: bool = True,
) -> Reply:
    """One model reply to *request*; with *sync*, the history goes as a delta when
    it can, and in full again (transparently) when the worker does not hold its base.

    Raises:
        ModelFailed: the model answered with an error, or its worker failed.
    """
    reply = Reply()
    if not quiet:
        conv._reply = reply
    text: list[str] = []
    thinking: list[str] = []
    sent = request if sync is None else sync.prepare(request)
    unknown = False
    try:
        async with conv.model.stream(sent) as items:
            async for item in items:
                if isinstance(item, pm.HistoryHeld):
                    if sync is not None:
                        sync.held(item.generation, item.count)
                elif isinstance(item, pm.HistoryUnknown):
                    if sync is None or sent.history is None or sent.history.base is None:
                        raise ModelFailed(
                            "worker", f"the model worker lost the history: {item.reason}"
                        )
                    sync.forget(unknown=True)
                    unknown = True
                    break
                elif isinstance(item, pm.TextDelta):
                    text.append(item.text)
                    reply.text = "".join(text) if quiet else reply.text + item.text
                    if not quiet:
                        conv.emit(ev.TextDelta(session_id=conv.session_id, text=item.text))
                elif isinstance(item, pm.ThinkingDelta):
                    thinking.append(item.text)
                    if not quiet:
                        conv.emit(ev.ThinkingDelta(session_id=conv.session_id, text=item.text))
                elif isinstance(item, pm.ToolCallEvent):
                    call_id = item.id or f"call_{conv._turns}_{len(reply.calls)}"
                    reply.calls.append(
                        (
                            pm.ToolCall(id=call_id, name=item.name, arguments=item.arguments or {}),
                            item.parse_error if item.arguments is None else None,
                        )
                    )
                elif isinstance(item, pm.Usage):
                    reply.usage = item
                    if not quiet:
                        conv._add_usage(item)
                elif isinstance(item, pm.ModelDone):
                    reply.model = item.model
                    reply.finish = item.finish_reason
                elif isinstance(item, pm.ModelError):
                    raise ModelFailed(item.kind, item.message)
    except IpcError as exc:
        if sync is not None:
            sync.forget()
        if retry and isinstance(exc, WorkerDied) and not (text or thinking or reply.calls):
            # Nothing of the reply was shown: a fresh worker answers the same request.
            return await read_reply(conv, request, quiet=quiet, sync=sync, retry=False)
        raise ModelFailed("worker", worker_failure(exc, bool(text or thinking))) from None
    if unknown:
        # the worker did not hold the base (it restarted, or forgot): once more, in full
        return await read_reply(conv, request, quiet=quiet, sync=sync)
    reply.text = "".join(text)
    reply.thinking = "".join(thinking)
    return reply


def after_cancel(conv: Conversation) -> None:
    """Record a cancel and leave the history well-formed for the next run: the
    cut-off reply is kept without its calls, and every call left without a result
    gets one saying it was cancelled."""
    reply = conv._reply
    if reply is not None and (reply.text or reply.calls):
        # the model was cut off mid-reply: keep what it said, run none of its calls
        conv._commit_reply(attrs.evolve(reply, calls=[]))
    runner = conv._runner
    pending: list[pm.ToolCall] = []
    for msg in reversed(conv.history):
        if msg.role == "assistant":
            pending = [c for c in msg.tool_calls if not runner or c.id not in runner.finished]
            break
    for call in pending:
        output = "Cancelled by the user before the call finished."
        conv.emit(
            ev.ToolCallFinished(
                session_id=conv.session_id,
                call_id=call.id,
                name=call.name,
                ok=False,
                output=output,
            )
        )
        conv.add_tool_result(call, output)
        if runner:
            runner.finished.add(call.id)
    conv.emit(ev.Cancelled(session_id=conv.session_id, reason="cancelled by the user"))
    conv._turn_finished(conv._turns, "cancelled")
