"""``.mcp.json``, ``$HARNESS_HOME/mcp.json``, ``--mcp-config`` files and API entries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.actors.mcp import (
    McpConfigError,
    McpServerConfig,
    load_mcp_config,
    parse_mcp_file,
    tool_name,
)
from harness.actors.mcp._prespawn import SDK_INHERITED_ENV
from harness.errors import ConfigError


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) if not isinstance(data, str) else data)
    return path


def test_the_format_other_agents_use(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    write(
        ws / ".mcp.json",
        {
            "mcpServers": {
                "files": {
                    "command": "npx",
                    "args": ["-y", "srv"],
                    "env": {"A": "1"},
                    "cwd": "sub",
                    "startupTimeout": 90,
                    "autoApprove": ["read"],
                },
                "remote": {
                    "type": "http",
                    "url": "https://example.com/mcp",
                    "headers": {"X": "y"},
                    "timeout": 5,
                },
                "old": {"type": "sse", "url": "http://127.0.0.1:1/sse", "trust": True},
                "off": {"command": "x", "disabled": True},
            }
        },
    )
    cfg = load_mcp_config(ws, home=home, environ={}, trust_project=True)
    assert cfg.problems == ()
    files = cfg.servers["files"]
    assert files == McpServerConfig(
        name="files",
        transport="stdio",
        command="npx",
        args=("-y", "srv"),
        env={"A": "1"},
        cwd="sub",
        startup_timeout=90.0,
        auto_approve=("read",),
        source=str(ws / ".mcp.json"),
    )
    assert cfg.servers["remote"].transport == "http"
    assert cfg.servers["remote"].timeout == 5.0
    assert cfg.servers["remote"].headers == {"X": "y"}
    assert cfg.servers["old"].transport == "sse"
    assert cfg.servers["old"].trust is True
    assert [s.name for s in cfg.enabled] == ["files", "remote", "old"]
    assert McpServerConfig.from_json_data(files.to_json_data()) == files


def test_variables_are_expanded_and_a_missing_one_is_named(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".mcp.json",
        """{
  "mcpServers": {
    "ok": {"command": "${BIN}", "env": {"TOKEN": "${env:TOKEN}"},
           "args": ["--key=${TOKEN}"]},
    "bad": {"command": "srv", "env": {"KEY": "${NOT_SET_ANYWHERE}"}}
  }
}""",
    )
    servers, errors = parse_mcp_file(path, environ={"BIN": "/bin/srv", "TOKEN": "t0k"})
    assert [s.name for s in servers] == ["ok"]
    assert servers[0].command == "/bin/srv"
    assert servers[0].env == {"TOKEN": "t0k"}
    assert servers[0].args == ("--key=t0k",)
    [err] = errors
    assert isinstance(err, ConfigError)
    assert err.line == 5
    assert str(err) == (
        f"{path}, line 5: server 'bad': environment variable NOT_SET_ANYWHERE is not set"
    )


def test_a_malformed_file_is_one_error_naming_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / ".mcp.json", '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}')
    servers, errors = parse_mcp_file(path, environ={})
    assert servers == []
    [err] = errors
    assert isinstance(err, McpConfigError)
    assert err.line == 3
    assert str(err).startswith(f"{path}, line 3: ")
    assert "double quotes" in err.problem


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"args": ["x"]}, "a stdio server needs a 'command'"),
        ({"type": "http"}, "an http server needs a 'url'"),
        ({"type": "ws", "url": "ws://x"}, "type must be stdio, http or sse"),
        ({"command": "x", "timeout": -1}, "timeout must be a positive number"),
        ({"command": "x", "args": "a b"}, "args must be a list of strings"),
        ({"command": "x", "comand": "y"}, "unknown key 'comand'"),
    ],
)
def test_a_bad_entry_costs_only_that_server(tmp_path: Path, entry: dict, problem: str) -> None:
    path = write(tmp_path / ".mcp.json", {"mcpServers": {"good": {"command": "x"}, "bad": entry}})
    servers, errors = parse_mcp_file(path, environ={})
    assert [s.name for s in servers] == ["good"]
    assert problem in str(errors[0])


def test_project_wins_over_personal_and_extra_files_add(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    write(
        home / "mcp.json", {"mcpServers": {"both": {"command": "mine"}, "mine": {"command": "m"}}}
    )
    write(ws / ".mcp.json", {"mcpServers": {"both": {"command": "project"}}})
    extra = write(tmp_path / "more.json", {"mcpServers": {"more": {"url": "http://127.0.0.1:9"}}})
    cfg = load_mcp_config(
        ws,
        home=home,
        environ={},
        extra_files=[extra, tmp_path / "missing.json"],
        entries={"api": {"command": "api"}},
        trust_project=True,
    )
    assert cfg.servers["both"].command == "project"
    assert sorted(cfg.servers) == ["api", "both", "mine", "more"]
    assert cfg.servers["api"].source == "<api>"
    assert cfg.problems == (f"{tmp_path / 'missing.json'}: no such MCP configuration file",)


def test_a_broken_file_leaves_the_others(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    write(home / "mcp.json", {"mcpServers": {"mine": {"command": "m"}}})
    write(ws / ".mcp.json", "{not json")
    cfg = load_mcp_config(ws, home=home, environ={}, trust_project=True)
    assert list(cfg.servers) == ["mine"]
    [problem] = cfg.problems
    assert problem.startswith(f"{ws / '.mcp.json'}, line 1: ")


def test_tool_names_are_safe_for_every_provider() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("fs", "read.file/v2") == "mcp__fs__read_file_v2"
    assert len(tool_name("s", "x" * 100)) == 64


def test_the_shipped_example_parses() -> None:
    example = Path(__file__).resolve().parents[2] / ".mcp.json.example"
    servers, errors = parse_mcp_file(example, environ={"SOME_TOKEN": "s", "REMOTE_API_TOKEN": "r"})
    assert errors == []
    assert [s.transport for s in servers] == ["stdio", "stdio", "http", "sse"]
    assert servers[2].headers == {"Authorization": "Bearer r"}
    _, missing = parse_mcp_file(example, environ={})
    assert [e.problem for e in missing] == [
        "server 'files': environment variable SOME_TOKEN is not set",
        "server 'remote': environment variable REMOTE_API_TOKEN is not set",
    ]


def test_an_early_started_server_gets_the_environment_the_sdk_gives() -> None:
    # (in a child process: the SDK stays out of the test process)
    out = subprocess.run(
        [sys.executable, "-c",
         "from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS as v; print(' '.join(v))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert tuple(out.stdout.split()) == SDK_INHERITED_ENV
