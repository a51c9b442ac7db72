"""One model reply, read from the model worker's stream.

The items of the stream become a :class:`Reply` (text, thinking, tool calls, usage,
which model answered). What the caller shows as it comes (deltas, usage) it gets
through *on_item*; a read without one is quiet (a summary, a title). A history sent
as a delta that the worker does not hold is sent again in full, transparently; a
worker that fails or a model error ends as :class:`ModelFailed`.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from harness.conversation import events as ev
from harness.conversation._ports import ModelPort
from harness.conversation._retry import worker_failure
from harness.conversation._sync import HistorySync
from harness.conversation.events import ModelProgress
from harness.errors import ProviderError
from harness.ipc import IpcError, WorkerDied
from harness.messages import model as pm
from harness.messages.local import LocalModelProgress

__all__ = ["ModelFailed", "Reply", "StreamItem", "read_reply", "stream_event"]

#: what a reply's reader hands on as it comes (LocalModelProgress: the embedded model
#: loading, or reading a long prompt, before it answers)
StreamItem = pm.TextDelta | pm.ThinkingDelta | pm.CallWriting | pm.Usage | LocalModelProgress


class ModelFailed(ProviderError):
    """The model (or its worker) failed a round: ``kind`` is the model's error kind, or
    ``worker`` when the model worker itself failed."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(kind, message)
        # ProviderError narrows kinds to a backend's; a dead worker is not one, and the
        # error event (and headless mode's exit status) must still say so
        self.kind = kind


@attrs.define
class Reply:
    """A model reply as read so far (whole once :func:`read_reply` returns).

    ``calls`` pairs each tool call with the reason its arguments did not parse
    (``None`` when they did); ``repaired`` says, by call id, what the model worker
    mended in a call's text to read it.
    """

    text: str = ""
    thinking: str = ""
    calls: list[tuple[pm.ToolCall, str | None]] = attrs.field(factory=list)
    repaired: dict[str, str] = attrs.field(factory=dict)
    usage: pm.Usage | None = None
    model: str = ""
    finish: str = ""


async def read_reply(
    model: ModelPort,
    request: pm.ChatRequest,
    *,
    into: Reply | None = None,
    on_item: Callable[[StreamItem], None] | None = None,
    call_prefix: str = "call",
    sync: HistorySync | None = None,
    retry: bool = True,
) -> Reply:
    """One model reply to *request*, read into *into* (so what came before a cancel
    is there to keep); with *sync*, the history goes as a delta when it can, and in
    full again (transparently) when the worker does not hold its base.

    Calls the model gave no id get ``{call_prefix}_{n}``.

    Raises:
        ModelFailed: the model answered with an error, or its worker failed.
    """
    reply = Reply() if into is None else into
    text: list[str] = []
    thinking: list[str] = []
    sent = request if sync is None else sync.prepare(request)
    unknown = False
    try:
        async with model.stream(sent) as items:
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
                    if into is not None:
                        reply.text += item.text
                    if on_item is not None:
                        on_item(item)
                elif isinstance(item, pm.ThinkingDelta):
                    thinking.append(item.text)
                    if on_item is not None:
                        on_item(item)
                elif isinstance(item, pm.CallWriting | LocalModelProgress):
                    if on_item is not None:
                        on_item(item)
                elif isinstance(item, pm.ToolCallEvent):
                    call_id = item.id or f"{call_prefix}_{len(reply.calls)}"
                    reply.calls.append(
                        (
                            pm.ToolCall(id=call_id, name=item.name, arguments=item.arguments or {}),
                            item.parse_error if item.arguments is None else None,
                        )
                    )
                    if item.repaired:
                        reply.repaired[call_id] = item.repaired
                elif isinstance(item, pm.Usage):
                    reply.usage = item
                    if on_item is not None:
                        on_item(item)
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
            return await read_reply(
                model,
                request,
                into=into,
                on_item=on_item,
                call_prefix=call_prefix,
                sync=sync,
                retry=False,
            )
        raise ModelFailed("worker", worker_failure(exc, bool(text or thinking))) from None
    if unknown:
        # the worker did not hold the base (it restarted, or forgot): once more, in full
        if into is not None:
            into.text = ""
        return await read_reply(
            model, request, into=into, on_item=on_item, call_prefix=call_prefix, sync=sync
        )
    reply.text = "".join(text)
    reply.thinking = "".join(thinking)
    return reply


def stream_event(session_id: str, item: StreamItem) -> ev.ConversationEvent:
    """The event that shows *item* of a reply as it comes."""
    if isinstance(item, pm.TextDelta):
        return ev.TextDelta(session_id=session_id, text=item.text)
    if isinstance(item, pm.ThinkingDelta):
        return ev.ThinkingDelta(session_id=session_id, text=item.text)
    if isinstance(item, pm.CallWriting):
        return ev.ToolCallWriting(session_id=session_id, name=item.name)
    if isinstance(item, LocalModelProgress):
        return ModelProgress(
            session_id=session_id,
            stage=item.stage,
            done=item.done,
            total=item.total,
            message=item.message,
        )
    return ev.UsageReported(
        session_id=session_id,
        prompt_tokens=item.prompt_tokens,
        completion_tokens=item.completion_tokens,
        cached_tokens=item.cached_tokens,
    )
