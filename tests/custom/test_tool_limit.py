"""A limit on the session's tools (a file command's ``allowed-tools``) holds while its
block runs, nests as an intersection, and is gone afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.conversation import open_session, tools_limited
from tests.conversation.conftest import options_for
from tests.scripted import ScriptedModel, call, reply

pytestmark = pytest.mark.trio


async def test_a_limit_holds_inside_its_block_only(
    workspace: Path, home: Path, model: ScriptedModel
) -> None:
    model.add(
        reply("", call("write_file", path="a.txt", content="1\n")),
        reply("refused"),
        reply("", call("write_file", path="a.txt", content="2\n")),
        reply("written"),
    )
    async with open_session(options_for(workspace, home, model, autotitle=False)) as s:
        everything = s.tool_names()
        with tools_limited(s, ("read_file", "search_text", "mcp__x__y"), "/peek's allowed-tools"):
            assert s.tool_names() == ["read_file", "search_text"]
            with tools_limited(s, ("search_text", "write_file"), "an inner limit"):
                assert s.tool_names() == ["search_text"]
            assert s.tool_names() == ["read_file", "search_text"]
            inside = await s.run("write a.txt")
        assert s.tool_names() == everything
        after = await s.run("write a.txt")
    assert inside.ok
    assert after.ok
    assert (workspace / "a.txt").read_text() == "2\n"
    refused = next(m for m in model.requests[1]["messages"] if m["role"] == "tool")["content"]
    assert "write_file is not among the tools /peek's allowed-tools allows" in refused
