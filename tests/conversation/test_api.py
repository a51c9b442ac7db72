"""The Python API: a session, a run, its events, an extra terminating tool."""

from __future__ import annotations

import json
from pathlib import Path

import harness.api as api
from harness.conversation import events as ev
from harness.messages.tools import ToolOutcome
from tests.conversation.conftest import MODULES, PYTHONPATH
from tests.scripted import ScriptedModel, call, reply


def test_public_surface() -> None:
    assert set(api.__all__) == {n for n in dir(api) if n in api.__all__}
    for name in ("open_session", "Session", "SessionOptions", "list_sessions", "events"):
        assert name in api.__all__


async def test_run_stream_and_terminating_tool(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    got: list[dict] = []

    async def submit(args: dict) -> str:
        got.append(args)
        return f"submitted {args['answer']}"

    model.add(
        reply("Thinking about it."),
        reply("", call("submit", answer="42"), call("read_file", path="never.txt")),
    )
    async with api.open_session(
        workspace=str(workspace),
        home=str(home),
        provider="openai",
        model="scripted",
        base_url=model.base_url,
        permission_mode="auto",
        workers={k: v for k, v in MODULES.items() if k != "shell"},
        worker_env={k: {"PYTHONPATH": PYTHONPATH} for k in MODULES},
    ) as session:
        session.register_tool(
            "submit",
            "Submit the final answer.",
            {
                "type": "object",
                "properties": {"answer": {"type": "string"}},
                "required": ["answer"],
            },
            submit,
            terminating=True,
        )
        first = await session.run("warm up")
        assert first.ok
        assert first.text == "Thinking about it."
        seen = [e async for e in session.stream("answer")]
        sid = session.id
    assert got == [{"answer": "42"}]
    assert seen[-1].TAG == "result"
    assert seen[-1].ok
    assert seen[-1].reason == "terminated"
    assert seen[-1].text == "submitted 42"
    finished = [e for e in seen if isinstance(e, ev.ToolCallFinished)]
    assert [e.ok for e in finished] == [True, False]  # the call after the terminating one
    assert "Not executed" in finished[1].output
    tools = json.dumps(model.requests[1]["tools"])
    assert '"submit"' in tools
    infos = api.list_sessions(str(workspace), str(home))
    assert [i.id for i in infos] == [sid]


async def test_a_short_tool_list_is_what_the_model_is_offered(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    from harness.actors.tools import SMALL_MODEL_TOOLS

    model.add(reply("ok"), reply("ok again"))
    async with api.open_session(
        workspace=str(workspace),
        home=str(home),
        provider="openai",
        model="scripted",
        base_url=model.base_url,
        tools=SMALL_MODEL_TOOLS,
        workers={k: v for k, v in MODULES.items() if k != "shell"},
        worker_env={k: {"PYTHONPATH": PYTHONPATH} for k in MODULES},
    ) as session:
        assert (await session.run("hi")).ok

        async def shout(args: dict) -> str:
            return "HI"

        session.register_tool("shout", "Shout.", {"type": "object", "properties": {}}, shout)
        assert (await session.run("again")).ok
    offered = [[t["function"]["name"] for t in body["tools"]] for body in model.requests]
    assert sorted(offered[0]) == sorted(n for n in SMALL_MODEL_TOOLS if n != "submit_plan")
    assert sorted(offered[1]) == sorted([*offered[0], "shout"])  # an API tool joins them


class _Person:
    """A frontend that answers every question the same way and records the asking."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict]] = []

    async def frontend_tool(self, name: str, arguments: dict) -> ToolOutcome:
        self.asked.append((name, arguments))
        return ToolOutcome(ok=True, output="The user answered: blue")


async def test_get_user_input_is_offered_only_with_someone_to_answer(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    ask = call("get_user_input", questions=[{"question": "Colour?", "options": ["red", "blue"]}])
    model.add(reply("nobody to ask"), reply("", ask), reply("Blue it is."))
    options = {
        "workspace": str(workspace),
        "home": str(home),
        "provider": "openai",
        "model": "scripted",
        "base_url": model.base_url,
        "autotitle": False,
        "workers": {k: v for k, v in MODULES.items() if k != "shell"},
        "worker_env": {k: {"PYTHONPATH": PYTHONPATH} for k in MODULES},
    }
    async with api.open_session(**options) as headless:
        assert "get_user_input" not in headless.tool_names()
        assert (await headless.run("hi")).ok
    person = _Person()
    async with api.open_session(frontend=person, **options) as session:
        assert "get_user_input" in session.tool_names()
        result = await session.run("pick a colour")
    assert result.ok
    assert result.text == "Blue it is."
    assert person.asked == [("get_user_input", ask.arguments)]
    offered = [{t["function"]["name"] for t in body["tools"]} for body in model.requests]
    assert "get_user_input" not in offered[0]
    assert "get_user_input" in offered[1]
    tool = [m for m in model.requests[2]["messages"] if m.get("role") == "tool"]
    assert tool[-1]["content"] == "The user answered: blue"
