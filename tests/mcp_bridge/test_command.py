"""``/mcp`` and its subcommands on a live session with our own server."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import trio
from rich.console import Console

from harness.cli.tui._cmd_mcp import run_mcp
from harness.cli.tui._commands import CommandError
from harness.cli.tui._context import CommandContext
from harness.cli.tui._dispatch import COMMANDS, dispatch
from harness.cli.tui._prefs import Prefs
from harness.conversation import Session
from tests.mcp_bridge.conftest import fake_entry, tiny_entry
from tests.mcp_bridge.test_session import mcp_session, until
from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.slow


class Frontend:
    """The terminal's side of ``/mcp``: a console, the session, a prompt runner; the
    context a command is handed is built on it as the app builds it."""

    def __init__(self, live: Session) -> None:
        self.live = live
        self.console = Console(file=io.StringIO(), width=120, color_system=None, _environ={})
        self.open_error: str | None = None
        self.prompts: list[str] = []
        here = Path.cwd()  # /mcp reads neither folder nor the preferences
        self.ctx = CommandContext(
            console=self.console,
            workspace=here,
            home=here,
            environ={},
            prefs=Prefs(here, here),
            commands=COMMANDS,
            host=self,  # type: ignore[arg-type]
        )

    async def session(self) -> Session:
        return self.live

    async def run_prompt(self, text: str) -> None:
        self.prompts.append(text)
        await self.live.run(text)

    def printed(self) -> str:
        out: str = self.console.file.getvalue()  # type: ignore[attr-defined]
        self.console.file = io.StringIO()
        return out


async def mcp(app: Frontend, line: str) -> str:
    await run_mcp(app.ctx, COMMANDS.parse(line))
    return app.printed()


async def test_mcp_subcommands(dirs: tuple[Path, Path], model: ScriptedModel) -> None:
    model.add(reply("greeted"), reply("greeted"), reply("greeted"))
    servers: dict[str, Any] = {
        "fake": tiny_entry(),  # (the SDK's server is not the subject: one that starts at once)
        "off": {**tiny_entry(), "disabled": True},
        "broken": fake_entry("exit_at_start"),
    }
    async with mcp_session(dirs, model, servers) as live:
        app = Frontend(live)
        await until(
            live,
            lambda: (
                {v.name: v.state for v in live.mcp.servers()}
                == {"fake": "ready", "off": "disabled", "broken": "down"}
            ),
        )
        listing = await mcp(app, "/mcp")
        assert re.search(r"\n\s*fake\s+stdio\s+ready\s+15\s+0\s*\n", listing)
        assert re.search(r"\n\s*off\s+stdio\s+disabled\s+0\s+0\s*\n", listing)
        assert re.search(r"\n\s*broken\s+stdio\s+down\s+0\s+0\s+could not start: exited", listing)
        assert "| fake server: configured to exit at start" in listing

        tools = await mcp(app, "/mcp tools fake")
        assert "mcp__fake__echo [read-only]  Repeat the text." in tools
        assert "mcp__fake__crash [destructive]" in tools

        resources = await mcp(app, "/mcp resources")
        assert "fake  fake://greeting  greeting" in resources

        with pytest.raises(CommandError, match="no MCP server 'nope'"):
            await mcp(app, "/mcp restart nope")
        assert await mcp(app, "/mcp reload") == "trying again: broken\n"

        out = await mcp(app, "/mcp prompt fake greet name=Ada")
        assert "sending fake/greet as your message" in out
        assert app.prompts == ["Please greet Ada warmly."]
        assert live.history[-2].content == "Please greet Ada warmly."
        with pytest.raises(CommandError, match="key=value"):
            await mcp(app, "/mcp prompt fake greet Ada")

        # the same prompt as a command of its own; one argument takes the words typed
        await dispatch(app.ctx, COMMANDS.parse("/mcp__fake__greet Grace Hopper"))
        assert "sending fake/greet as your message" in app.printed()
        await dispatch(app.ctx, COMMANDS.parse("/mcp__fake__greet name=Alan"))
        assert app.prompts[-2:] == [
            "Please greet Grace Hopper warmly.",
            "Please greet Alan warmly.",
        ]
        with pytest.raises(CommandError, match="fake has no prompt 'nope' \\(it has: greet\\)"):
            await dispatch(app.ctx, COMMANDS.parse("/mcp__fake__nope"))
        with pytest.raises(CommandError, match="no MCP server is named so"):
            await dispatch(app.ctx, COMMANDS.parse("/mcp__nobody__greet x"))
        assert ("/mcp__ SERVER__PROMPT [key=value ...]") in dict(COMMANDS.help_rows())

        await mcp(app, "/mcp restart fake")
        await until(live, lambda: live.mcp.servers()[0].restarts >= 1)
        with trio.fail_after(60):
            await until(live, lambda: live.mcp.servers()[0].state == "ready")


async def test_reload_reads_the_configuration_again(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
) -> None:
    ws, _ = dirs
    model.add(reply("", call("mcp__kept__env", name="MARK")), reply("read it"))
    # (servers without the SDK, that start at once)
    servers: dict[str, Any] = {"gone": tiny_entry(), "kept": tiny_entry(MARK="old")}
    async with mcp_session(dirs, model, servers) as live:
        app = Frontend(live)
        table = live.conversation.table
        await until(live, lambda: {v.state for v in live.mcp.servers()} == {"ready"})
        assert "mcp__gone__echo" in table

        # one server removed, one changed, one added, trust on the new one
        config = {"kept": tiny_entry(MARK="new"), "new": {**tiny_entry(), "trust": True}}
        (ws / ".mcp.json").write_text(json.dumps({"mcpServers": config}))
        out = await mcp(app, "/mcp reload")
        assert out == "added: new; removed: gone; restarted with its new configuration: kept\n"
        assert "mcp__gone__echo" not in table
        assert {w.name: w.state for w in live.worker_status()}["mcp:gone"] == "stopped"
        ready = {"kept": "ready", "new": "ready"}
        with trio.fail_after(60):
            await until(live, lambda: {v.name: v.state for v in live.mcp.servers()} == ready)
        assert "mcp__kept__echo" in table
        assert "mcp__new__echo" in table
        assert "mcp__new__echo" in live.rules()  # trust: a rule per tool it offers
        # the changed server runs with its new configuration
        await live.run("what is MARK?")
        assert [m.content for m in live.history if m.role == "tool"][-1].strip() == "new"

        # a configuration that does not parse changes nothing
        (ws / ".mcp.json").write_text('{"mcpServers": {"kept": ')
        with pytest.raises(CommandError, match="nothing changed") as failed:
            await mcp(app, "/mcp reload")
        assert ".mcp.json" in str(failed.value)
        assert [v.name for v in live.mcp.servers()] == ["kept", "new"]
        assert "mcp__kept__echo" in table
        assert "mcp__new__echo" in table

        # unchanged and ready: nothing to do
        (ws / ".mcp.json").write_text(json.dumps({"mcpServers": config}))
        assert await mcp(app, "/mcp reload") == (
            "the configuration is unchanged; every server is ready\n"
        )


@pytest.mark.own_fork_server  # (what the session's own server imported)
async def test_reload_adds_the_first_server(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
) -> None:
    ws, _ = dirs
    async with mcp_session(dirs, model, {}) as live:
        app = Frontend(live)
        assert "no MCP servers" in await mcp(app, "/mcp")
        (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"fake": tiny_entry()}}))
        assert await mcp(app, "/mcp reload") == "added: fake\n"
        with trio.fail_after(60):
            await until(live, lambda: "mcp__fake__echo" in live.conversation.table)
        assert "read_mcp_resource" in live.conversation.table
        # with no server, then a single one, the fork server never imported the SDK (the
        # bridge did, while its server booted); pydantic-core is the SDK's compiled part
        server = live.workers.supervisor.fork_server_pid
        assert server is not None
        assert "pydantic_core" not in Path(f"/proc/{server}/maps").read_text()  # noqa: ASYNC240
        bridge = {w.name: w.pid for w in live.workers.status()}["mcp:fake"]
        assert "pydantic_core" in Path(f"/proc/{bridge}/maps").read_text()  # noqa: ASYNC240
