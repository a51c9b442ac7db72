"""Headless runs and the Python API with MCP servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import harness.api as api
from tests.cli.inprocess import in_process
from tests.mcp_bridge.conftest import fake_entry, tiny_entry
from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow

WORKERS = {"model": "harness.actors.model", "tools": "harness.actors.tools"}


def test_headless_reads_mcp_config_waits_for_the_tools_and_streams_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``harness -p`` with ``--mcp-config`` and the home's servers: the tools are offered
    from the first request, and stream-json carries a call's progress and the notice of a
    question declined (a headless run has nobody to ask). One run, of the command line in
    the test's process (tests/cli/inprocess.py): each costs its servers' start-ups."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    extra = tmp_path / "servers.json"
    extra.write_text(json.dumps({"mcpServers": {"fake": fake_entry()}}))
    # (the SDK's server for the progress and the question; "mine" needs only add)
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"mine": tiny_entry()}}))
    with ScriptedModel() as model:
        model.add(
            reply("", call("mcp__fake__echo", text="from -p"), call("mcp__mine__add", a=1, b=1)),
            reply("", call("mcp__fake__steps", count=2), call("mcp__fake__book")),
            reply("done"),
        )
        p = in_process(monkeypatch, capsys)(
            [
                "-p", "use the tools",
                "--provider", "openai", "--model", "scripted", "--base-url", model.base_url,
                "--permission-mode", "auto", "--output-format", "stream-json",
                "--mcp-config", str(extra),
            ],
            workspace=ws,
            home=home,
        )  # fmt: skip
        assert p.returncode == 0, p.stderr
        events = [json.loads(line) for line in p.stdout.splitlines()]
        finished = [e for e in events if e["type"] == "tool_call_finished"]
        assert [(e["name"], e["ok"], e["output"]) for e in finished[:2]] == [
            ("mcp__fake__echo", True, "echo: from -p"),
            ("mcp__mine__add", True, "2"),
        ]
        offered = {t["function"]["name"] for t in model.requests[0]["tools"]}
        assert {"mcp__fake__echo", "mcp__mine__add"} <= offered
    progress = [e for e in events if e["type"] == "tool_call_progress"]
    assert progress[-1]["progress"] == 2
    assert progress[-1]["total"] == 2
    assert progress[-1]["name"] == "mcp__fake__steps"
    outputs = {e["name"]: e["output"] for e in finished}
    assert outputs["mcp__fake__book"] == "not booked: decline"
    notices = [e["message"] for e in events if e["type"] == "notice"]
    assert any("declined: a headless run has nobody to answer it" in n for n in notices)


async def test_the_python_api_takes_server_entries_and_sends_a_servers_prompt(
    tmp_path: Path,
) -> None:
    """A server given to ``harness.api.open_session`` serves its tools, and its prompts
    are listed, fetched and sent as the user's message; one session for both."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    with ScriptedModel() as model:
        model.add(reply("", call("mcp__api__echo", text="api")), reply("done"), reply("greeted"))
        async with api.open_session(
            workspace=str(ws),
            home=str(home),
            provider="openai",
            model="scripted",
            base_url=model.base_url,
            permission_mode="auto",
            workers=WORKERS,
            mcp_servers={"api": tiny_entry()},
        ) as session:
            await session.mcp.wait_started()
            assert [v.state for v in session.mcp.servers()] == ["ready"]
            result = await session.run("echo")
            assert result.ok
            tool = [m.content for m in session.history if m.role == "tool"]
            assert tool == ["echo: api"]
            [prompt] = await session.mcp.prompts("api")
            assert (prompt.name, prompt.arguments, prompt.required) == (
                "greet",
                ("name",),
                ("name",),
            )
            got = await session.mcp.get_prompt("api", "greet", {"name": "Ada"})
            assert got.ok
            result = await session.run(got.text)
        assert result.text == "greeted"
        assert model.requests[-1]["messages"][-1] == {
            "role": "user",
            "content": "Please greet Ada warmly.",
        }
