"""``/mcp`` with no servers: an example harness really reads, and the manual's page."""

from __future__ import annotations

import json
from pathlib import Path

from harness.actors.mcp import parse_mcp_servers
from harness.cli.tui._cmd_mcp import MCP_EXAMPLE, no_servers_hint

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_is_a_configuration_harness_reads() -> None:
    servers, errors = parse_mcp_servers(json.loads(MCP_EXAMPLE), "hint", environ={})
    assert errors == []
    assert [(s.name, s.transport, s.command) for s in servers] == [("files", "stdio", "npx")]


def test_the_hint_points_to_the_manual_page_which_has_the_example() -> None:
    page = ROOT / "docs" / "mcp.md"
    hint = no_servers_hint()
    assert hint.startswith("no MCP servers")
    assert MCP_EXAMPLE in hint
    assert str(page) in hint
    assert ".mcp.json.example" not in hint  # only the checkout has that file
    assert MCP_EXAMPLE in page.read_text(encoding="utf-8")


def test_without_the_checkout_the_hint_names_the_page_in_the_source(tmp_path: Path) -> None:
    hint = no_servers_hint(tmp_path / "docs" / "mcp.md")
    assert hint.endswith("docs/mcp.md in harness's source")
    assert MCP_EXAMPLE in hint
