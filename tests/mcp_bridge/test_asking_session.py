"""A session's MCP calls: the server's progress as events, its questions to the user
through the frontend's question dialog, and declined (with a notice) in a headless run.
(The server without the SDK: tests/mcp_bridge/test_progress.py asks the SDK's own.)"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from harness.conversation import events as ev
from harness.messages.tools import ToolOutcome
from tests.mcp_bridge.conftest import tiny_entry
from tests.mcp_bridge.test_session import mcp_session, until
from tests.mcp_bridge.tiny_server import PNG
from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow


class Dialog:
    """A frontend whose user answers each question with the next of *answers*."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[dict[str, Any]] = []

    async def frontend_tool(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        assert name == "get_user_input"
        self.asked.extend(arguments["questions"])
        return ToolOutcome(ok=True, output=f"The user answered: {self.answers.pop(0)}")


async def ready(live: Any) -> None:
    await until(live, lambda: [v.state for v in live.mcp.servers()] == ["ready"])


async def test_progress_notifications_are_events_and_a_headless_session_declines_a_question(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
) -> None:
    """A call's progress notifications are events before its result; a question from the
    server, with no frontend to ask, is declined with a notice. One session: each costs a
    bridge and its server's start-up."""
    model.add(reply("", call("mcp__fake__steps", count=3)), reply("done"))
    model.add(reply("", call("mcp__fake__book")), reply("done"))
    async with mcp_session(dirs, model, {"fake": tiny_entry()}) as live:
        await ready(live)
        seen: list[ev.ConversationEvent] = []
        live.subscribe(seen.append)
        await live.run("take three steps")
        notices: list[str] = []
        live.subscribe(lambda e: notices.append(e.message) if isinstance(e, ev.Notice) else None)
        await live.run("book me a trip")
        tools = [m.content for m in live.history if m.role == "tool"]
    progress = [e for e in seen if isinstance(e, ev.ToolCallProgress)]
    finished = next(e for e in seen if isinstance(e, ev.ToolCallFinished))
    assert progress, "no progress event"
    assert all(p.call_id == finished.call_id and p.name == "mcp__fake__steps" for p in progress)
    last = progress[-1]
    assert (last.progress, last.total, last.message) == (3, 3, "step 3 of 3")
    assert seen.index(last) < seen.index(finished)
    assert finished.output == "3 steps done"
    # not durable: the session log keeps the result, not the steps
    assert not ev.ToolCallProgress.DURABLE
    assert tools == ["3 steps done", "not booked: decline"]
    assert notices == [
        "MCP server fake asked 'Where to, and for how many nights?'; declined: a headless "
        "run has nobody to answer it"
    ]


async def test_a_question_goes_to_the_frontends_dialog(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
) -> None:
    model.add(reply("", call("mcp__fake__book")), reply("done"))
    dialog = Dialog("Oslo", "2")
    async with mcp_session(dirs, model, {"fake": tiny_entry()}, frontend=dialog) as live:
        await ready(live)
        await live.run("book me a trip")
        assert [m.content for m in live.history if m.role == "tool"] == ["booked 2 nights in Oslo"]
    first, second = dialog.asked
    assert first["question"].startswith(
        "MCP server fake asks: Where to, and for how many nights?\n"
    )
    assert first["question"].splitlines()[-1].lower().startswith("city")
    assert second["question"].lower().startswith("nights")


def _pictures(messages: list[dict[str, Any]]) -> list[str]:
    return [
        part["image_url"]["url"]
        for m in messages
        if isinstance(m["content"], list)
        for part in m["content"]
        if part.get("type") == "image_url"
    ]


async def test_an_image_result_reaches_a_model_that_sees_images_and_no_other(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
) -> None:
    """The same call, by a model that sees images and then, in the same session (a session
    costs a bridge's start), by one that does not: only the first is sent its image."""
    note = f"[image image/png, {len(PNG)} bytes]"
    png = "data:image/png;base64," + base64.b64encode(PNG).decode()
    for _ in range(2):
        model.add(reply("", call("mcp__fake__picture")), reply("a picture"))
    async with mcp_session(dirs, model, {"fake": tiny_entry()}, models=("gpt-4o",)) as live:
        await ready(live)
        seen: list[ev.ConversationEvent] = []
        live.subscribe(seen.append)
        await live.run("look")
        live.set_model("openai", ("scripted",), model.base_url)
        await live.run("look again")
    sent = model.requests[1]["messages"]
    [tool] = [m for m in sent if m["role"] == "tool"]
    assert tool["content"].splitlines()[1] == note
    assert _pictures(sent[sent.index(tool) + 1 :]) == [png]
    # a model that does not see images gets the notes, and no image: not even the one an
    # earlier model of the session was sent
    blind = model.requests[3]["messages"]
    tools = [m for m in blind if m["role"] == "tool"]
    assert [m["content"].splitlines()[1] for m in tools] == [note, note]
    assert _pictures(blind) == []
    # the session log keeps the note, not the image
    finished = [e for e in seen if isinstance(e, ev.ToolCallFinished)]
    assert len(finished) == 2
    assert all("images" not in f.data for f in finished)
