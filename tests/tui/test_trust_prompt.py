"""The terminal asks once, before any MCP server starts, whether to trust a workspace's own
configuration (issue 34, H1): on a real pty, with a ``.mcp.json`` whose server, once started,
writes a file."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from harness.trust import TrustStore
from tests.scripted import ScriptedModel, reply
from tests.tui._term import spawn

pytestmark = pytest.mark.slow


def write_server(ws: Path) -> None:
    script = "open('pwned', 'w').write('started')"
    entry = {"command": sys.executable, "args": ["-c", script]}
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil": entry}}))


def wait_for(path: Path, seconds: float = 30) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.1)
    return False


def test_not_now_leaves_the_servers_unstarted_then_trust_starts_them_and_is_not_asked_again(
    dirs: tuple[Path, Path],
) -> None:
    """Three starts of one workspace: "not now" (asked again at the next start), "trust",
    then no question at all."""
    ws, home = dirs
    write_server(ws)
    with ScriptedModel([reply("hello")]) as model:
        t = spawn(ws, home, base_url=model.base_url)
        try:
            shown = t.expect(r"\[t\]rust / \[n\]ot now")
            assert "MCP server evil: runs" in shown
            assert "-c open(" in shown
            time.sleep(1)
            assert not (ws / "pwned").exists()  # nothing started while it asks
            t.line("n")
            t.expect("not trusted")
            t.expect("❯")
            t.line("hi")
            t.expect("hello")
            # the session holds no server to start (a trusted one is listed, starting or
            # not), and none started meanwhile
            t.line("/mcp")
            t.expect("no MCP servers")
            assert not wait_for(ws / "pwned", 0.5)
            assert TrustStore(home).workspaces() == {}
        finally:
            t.close()
    with ScriptedModel([]) as model:
        t = spawn(ws, home, base_url=model.base_url)
        try:
            t.expect(r"\[t\]rust / \[n\]ot now")  # "not now" was for that session
            t.line("t")
            t.expect("trusted as it is now")
            t.expect("❯")
            assert wait_for(ws / "pwned")
        finally:
            t.close()
    assert list(TrustStore(home).workspaces()) == [str(ws.resolve())]
    (ws / "pwned").unlink()
    with ScriptedModel([]) as model:
        t = spawn(ws, home, base_url=model.base_url)
        try:
            out = t.expect("❯")
            assert "Trust it?" not in out
            assert wait_for(ws / "pwned")
        finally:
            t.close()
