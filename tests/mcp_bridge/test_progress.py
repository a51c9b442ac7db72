"""A call as a stream (``McpCall``): the server's progress and its questions to the user."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest
import trio

from harness.messages.mcp import McpAnswer, McpCall, McpProgress, McpQuestion
from harness.messages.tools import ToolInvoke, ToolOutcome
from tests.mcp_bridge.conftest import fake_config, tiny_config
from tests.mcp_bridge.tiny_server import PNG

pytestmark = pytest.mark.slow


def ready(status: Any) -> bool:
    return bool(status.state == "ready")


async def test_progress_a_declined_question_and_an_image_on_one_bridge(
    start_bridge: Callable[..., Any],
) -> None:
    """Progress notifications come before the outcome; a declined question, and a call
    that cannot ask; an image result beside its placeholder. One bridge for the three:
    each costs a bridge and its server's start-up."""
    handle, watch = await start_bridge(fake_config())
    await watch.wait_for(ready)
    items: list[Any] = []
    async with handle.stream(McpCall(name="steps", arguments={"count": 3}), timeout=60) as got:
        async for item in got:
            items.append(item)
    assert items[-1] == ToolOutcome(ok=True, output="3 steps done")
    progress = [i for i in items if isinstance(i, McpProgress)]
    # the latest is always sent; earlier ones may be skipped when the reader is behind
    assert progress, items
    assert progress[-1] == McpProgress(progress=3, total=3, message="step 3 of 3")
    assert all(0 < p.progress <= 3 and p.total == 3 for p in progress)

    outcome: Any = None
    async with handle.stream(McpCall(name="book"), timeout=60) as got:
        async for item in got:
            if isinstance(item, McpQuestion):
                no = McpAnswer(id=item.id, action="decline", reason="a headless run")
                await handle.request(no, timeout=30)
            else:
                outcome = item
    assert outcome == ToolOutcome(ok=True, output="not booked: decline")
    # a plain ToolInvoke has nobody to ask: the bridge declines, and says so in the tail
    plain = await handle.request(ToolInvoke(name="book", arguments={}), timeout=60)
    assert plain == ToolOutcome(ok=True, output="not booked: decline")
    status = await watch.wait_for(lambda s: "declined a question" in s.stderr_tail)
    assert "Where to, and for how many nights?" in status.stderr_tail
    assert "the user's answer: decline (a headless run)" in status.stderr_tail

    out = await handle.request(ToolInvoke(name="picture", arguments={}), timeout=60)
    assert isinstance(out, ToolOutcome)
    assert out.output.splitlines() == [
        "a 2x2 test picture",
        f"[image image/png, {len(PNG)} bytes]",
        "[image image/tiff, 4 bytes]",
    ]
    # the png goes on to models that see images; the tiff no provider takes stays a note
    assert out.data == {
        "images": [{"mime_type": "image/png", "data": base64.b64encode(PNG).decode()}]
    }


async def test_a_question_is_asked_and_the_answer_reaches_the_server(
    start_bridge: Callable[..., Any],
) -> None:
    # the user takes longer than the call may: their time does not count
    # (the SDK's server answered the question above: here, one without the SDK)
    handle, watch = await start_bridge(tiny_config(timeout=1.0))
    await watch.wait_for(ready)
    asked: list[McpQuestion] = []
    outcome: Any = None
    async with handle.stream(McpCall(name="book"), timeout=60) as got:
        async for item in got:
            if isinstance(item, McpQuestion):
                asked.append(item)
                await trio.sleep(1.5)
                reply = McpAnswer(
                    id=item.id, action="accept", content={"city": "Oslo", "nights": 2}
                )
                assert await handle.request(reply, timeout=30) == reply
            else:
                outcome = item
    assert outcome == ToolOutcome(ok=True, output="booked 2 nights in Oslo")
    [question] = asked
    assert question.message == "Where to, and for how many nights?"
    assert set(question.schema["properties"]) == {"city", "nights"}
    # an answer nobody waits for is refused, not taken
    late = await handle.request(McpAnswer(id=question.id, action="accept"), timeout=30)
    assert isinstance(late, McpAnswer)
    assert late.action == "cancel"
