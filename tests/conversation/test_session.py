"""What a frontend changes through a Session, seen where it lands: in what the model is
offered and asked, in the decisions on calls, on the tools worker, and in the log."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest

from harness.conversation import Session
from harness.conversation import events as ev
from tests.conversation.conftest import drain
from tests.scripted import ScriptedModel, call, reply

Factory = Callable[..., AbstractAsyncContextManager[Session]]


def offered(body: dict) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


async def test_the_opening_events_and_what_the_session_is(
    session_factory: Factory, model: ScriptedModel, workspace: Path
) -> None:
    model.add(reply("hello"))
    async with session_factory() as s:
        first = s.opening[0]
        assert isinstance(first, ev.SessionStarted)
        assert (first.session_id, first.provider, first.model) == (s.id, "openai", "scripted")
        assert s.workspace == str(workspace)  # pytest's tmp_path is resolved already
        assert (s.provider, s.models, s.permission_mode) == ("openai", ("scripted",), "auto")
        assert "read_file" in s.tool_names()
        assert (await s.run("hi")).ok
        tokens, window = s.context()
        assert 0 < tokens < window
        assert [i.id for i in s.sessions()] == [s.id]
        assert "hello" in json.dumps(json.loads(s.export("json")))
        assert "hello" in s.export("md").decode()


async def test_permission_mode_and_rules_decide_the_next_calls(
    session_factory: Factory, model: ScriptedModel, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("A\n")
    read = call("read_file", path="a.txt")
    model.add(reply("planned"), reply("", read), reply("denied"), reply("", read), reply("read"))
    async with session_factory() as s:
        s.set_permission_mode("plan")
        assert s.permission_mode == "plan"
        assert (await s.run("plan it")).ok
        # plan mode: the model is offered no tool that changes anything
        assert "read_file" in offered(model.requests[0])
        assert "write_file" not in offered(model.requests[0])
        with pytest.raises(ValueError, match="permission mode"):
            s.set_permission_mode("sometimes")  # type: ignore[arg-type]
        assert s.permission_mode == "plan"
        s.set_permission_mode("auto")
        assert "write_file" in s.tool_names()

        s.add_rule("deny", "read_file")
        assert "read_file" in s.rules()
        events = s.events()
        await s.run("read it")
        denied = [e for e in drain(events) if isinstance(e, ev.ToolCallDenied)]
        assert [e.name for e in denied] == ["read_file"]

        assert s.remove_rule("read_file")
        assert not s.remove_rule("read_file")
        await s.run("read it again")
        finished = [e for e in drain(events) if isinstance(e, ev.ToolCallFinished)]
        assert [(e.name, e.ok) for e in finished] == [("read_file", True)]
        events.close()


async def test_model_thinking_and_title_switch_from_the_next_request(
    session_factory: Factory, model: ScriptedModel
) -> None:
    model.add(reply("one"), reply("two"))
    async with session_factory() as s:
        assert (await s.run("first")).ok
        s.set_model("openai", ("other", "fallback"), model.base_url)
        s.set_keep_thinking(True)
        s.set_title("named")
        assert (await s.run("second")).ok
        assert (s.models, s.keep_thinking, s.title) == (("other", "fallback"), True, "named")
    assert [body["model"] for body in model.requests] == ["scripted", "other"]


async def test_undo_and_autocommit_go_to_the_tools_worker(
    session_factory: Factory, model: ScriptedModel, workspace: Path
) -> None:
    model.add(reply("", call("write_file", path="new.txt", content="x\n")), reply("written"))
    async with session_factory() as s:
        state = await s.autocommit()
        assert state.git is False
        assert (await s.autocommit(not state.enabled)).enabled is not state.enabled
        assert (await s.run("write it")).ok
        assert (workspace / "new.txt").exists()
        undone = await s.undo()
        assert undone.ok, undone.message
        assert not (workspace / "new.txt").exists()
        assert {w.name for w in s.worker_status()} == {"model", "tools"}
        assert await s.list_models("openai", model.base_url) == ["scripted"]
