"""A tool call too large for a frame becomes a tool error, not a broken channel.

A model can write a tool call whose arguments are larger than the channel's frame
limit (a 50 MB ``content``). Sent as it is, the frame is refused and the whole
reply (and the run) fails. :func:`fit_frames` wraps a stream's ``emit`` so such a
call goes out without its arguments and with a ``parse_error`` saying how large
they were and what the limit is; the conversation hands that to the model as the
call's error, and the run goes on.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from harness.ipc import DEFAULT_MAX_FRAME, MAX_FRAME_ENV, Emit
from harness.messages.model import ToolCallEvent

__all__ = ["fit_frames", "frame_limit"]

# Room for the envelope, the call's id and name around the arguments.
_HEADROOM = 64 * 1024


def frame_limit() -> int:
    """The largest frame this worker may send (set by the supervisor)."""
    try:
        return int(os.environ.get(MAX_FRAME_ENV, DEFAULT_MAX_FRAME))
    except ValueError:
        return DEFAULT_MAX_FRAME


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB" if n >= 1024 * 1024 else f"{n} bytes"


def fit_frames(emit: Emit, limit: int | None = None) -> Emit:
    """*emit*, with every tool call that would not fit a frame cut to its error."""
    budget = (frame_limit() if limit is None else limit) - _HEADROOM

    async def fitted(item: Any) -> None:
        if isinstance(item, ToolCallEvent) and item.arguments is not None:
            size = len(orjson.dumps(item.arguments))
            if size > budget:
                item = ToolCallEvent(
                    id=item.id,
                    name=item.name,
                    parse_error=(
                        f"arguments too large: {_mb(size)}; the limit is {_mb(budget)}. "
                        "Send less in one call (write a large file in parts)"
                    ),
                )
        await emit(item)

    return fitted
