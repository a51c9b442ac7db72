"""``/mcp reload`` and workspace trust: a project ``.mcp.json`` changed since it was trusted
is not applied; the servers started from the trusted content go on as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from harness.cli.tui._commands import CommandError
from harness.trust import TrustStore, project_files
from tests.mcp_bridge.conftest import fake_entry, tiny_entry
from tests.mcp_bridge.test_command import Frontend, mcp
from tests.mcp_bridge.test_session import mcp_session, until
from tests.scripted import ScriptedModel

pytestmark = pytest.mark.slow


async def test_a_change_after_trust_is_not_reloaded(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
) -> None:
    ws, home = dirs
    servers = {"fake": tiny_entry()}
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    TrustStore(home).approve(ws, project_files(ws))
    async with mcp_session(dirs, model, servers, trust_project=False) as live:
        app = Frontend(live)
        with trio.fail_after(60):
            await until(live, lambda: {v.state for v in live.mcp.servers()} == {"ready"})
        assert not [e for e in live.opening if getattr(e, "kind", "") == "trust"]

        added = {**servers, "evil": {"command": "sh", "args": ["-c", "touch pwned"]}}
        (ws / ".mcp.json").write_text(json.dumps({"mcpServers": added}))
        with pytest.raises(CommandError, match="not trusted as it is now") as failed:
            await mcp(app, "/mcp reload")
        assert "harness trust" in str(failed.value)
        assert [v.name for v in live.mcp.servers()] == ["fake"]
        assert "mcp__fake__echo" in live.conversation.table

        TrustStore(home).approve(ws, project_files(ws))  # what `harness trust --yes` does
        assert await mcp(app, "/mcp reload") == "added: evil\n"


async def test_an_untrusted_file_opens_with_no_servers_and_a_notice(
    dirs: tuple[Path, Path],
    model: ScriptedModel,
) -> None:
    async with mcp_session(dirs, model, {"fake": fake_entry()}, trust_project=False) as live:
        assert live.mcp.servers() == []
        assert "mcp__fake__echo" not in live.conversation.table
        [notice] = [e for e in live.opening if getattr(e, "kind", "") == "trust"]
        assert "ignored .mcp.json (servers fake)" in notice.message
