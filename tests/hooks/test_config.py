"""Where hooks come from: the settings files, their faults, and workspace trust."""

from __future__ import annotations

import json
from pathlib import Path

from harness.hooks import HookConfig, HookHandler, load_hooks, parse_hooks
from harness.trust import TrustStore, WorkspaceTrust, describe, ignored_notice, project_files

GUARD = {
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]
    }
}


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_every_source_loads_in_order_and_keeps_its_name(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    write(home / "settings.json", {"hooks": {"Stop": [{"hooks": [{"command": "user"}]}]}})
    for i, name in enumerate(
        [
            ".harness/settings.json",
            ".harness/settings.local.json",
            ".claude/settings.json",
            ".claude/settings.local.json",
        ]
    ):
        write(
            ws / name, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": f"p{i}"}]}]}}
        )
    loaded = load_hooks(ws, home=home, trusts=lambda name, data: True)
    assert [(h.command, h.source) for h in loaded.config.handlers] == [
        ("user", str(home / "settings.json")),
        ("p0", ".harness/settings.json"),
        ("p1", ".harness/settings.local.json"),
        ("p2", ".claude/settings.json"),
        ("p3", ".claude/settings.local.json"),
    ]
    assert loaded.problems == ()
    assert loaded.ignored == ()


def test_a_bad_file_names_itself_and_the_others_still_load(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    write(home / "settings.json", "{not json")
    write(ws / ".claude/settings.json", GUARD)
    write(
        ws / ".harness/settings.json",
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "(", "hooks": [{"command": "a"}]},
                    {"matcher": "Write", "hooks": [{"command": "b", "timeout": "soon"}]},
                    {"matcher": "Read", "hooks": [{"command": "c", "onFailure": "block"}]},
                ],
                "OnLunch": [],
            }
        },
    )
    loaded = load_hooks(ws, home=home, trusts=lambda name, data: True)
    assert [h.command for h in loaded.config.handlers] == ["c", "./guard.sh"]
    text = "\n".join(loaded.problems)
    assert f"{home / 'settings.json'}: not valid JSON" in text
    assert ".harness/settings.json: hooks.PreToolUse[0]: matcher '(' is not a regular" in text
    assert (
        ".harness/settings.json: hooks.PreToolUse[1]: hooks[0]: 'timeout' must be a number" in text
    )
    assert ".harness/settings.json: hooks.OnLunch: unknown event" in text
    assert loaded.config.handlers[0].on_failure == "block"


def test_project_hooks_count_only_when_trusted_as_they_are(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    write(ws / ".claude/settings.json", GUARD)
    write(ws / ".claude/settings.local.json", {"permissions": {"allow": []}})  # no hooks
    trust = WorkspaceTrust(ws, TrustStore(home))
    loaded = load_hooks(ws, home=home, trusts=trust.trusts)
    assert not loaded.config
    assert loaded.ignored == (".claude/settings.json",)
    # what trust shows and approves: the settings file with hooks, by its commands
    files = project_files(ws)
    assert [f.name for f in files] == [".claude/settings.json"]
    assert describe(files) == [
        ".claude/settings.json:",
        "  hook PreToolUse [Bash]: runs ./guard.sh",
    ]
    assert "the hooks of .claude/settings.json" in ignored_notice(files, "see harness trust")
    TrustStore(home).approve(ws, files)
    assert [h.command for h in load_hooks(ws, home=home, trusts=trust.trusts).config.handlers] == [
        "./guard.sh"
    ]
    # a changed hook file needs new trust
    write(ws / ".claude/settings.json", {"hooks": {"Stop": [{"hooks": [{"command": "evil"}]}]}})
    again = load_hooks(ws, home=home, trusts=trust.trusts)
    assert not again.config
    assert again.ignored == (".claude/settings.json",)


def test_the_users_own_file_needs_no_trust(dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    write(home / "settings.json", GUARD)
    loaded = load_hooks(ws, home=home, trusts=None)
    assert [h.source for h in loaded.config.handlers] == [str(home / "settings.json")]


def test_matchers_take_claude_and_harness_names() -> None:
    handlers, problems = parse_hooks(
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Edit|Write", "hooks": [{"command": "ew"}]},
                    {"matcher": "Bash", "hooks": [{"command": "bash"}]},
                    {"matcher": "run_cmd", "hooks": [{"command": "native"}]},
                    {"matcher": "mcp__fs__.*", "hooks": [{"command": "mcp"}]},
                    {"matcher": "*", "hooks": [{"command": "all"}]},
                    {"hooks": [{"command": "none"}]},
                ]
            }
        },
        "t",
    )
    assert problems == []
    config = HookConfig(tuple(handlers))
    from harness.hooks import tool_names

    def on(tool: str) -> list[str]:
        return [h.command for h in config.for_event("PreToolUse", tool_names(tool))]

    assert on("run_cmd") == ["bash", "native", "all", "none"]
    assert on("write_file") == ["ew", "all", "none"]
    assert on("edit_file") == ["ew", "all", "none"]
    assert on("read_file") == ["all", "none"]
    assert on("mcp__fs__read") == ["mcp", "all", "none"]
    # Write does not match MultiEdit's name, nor a longer one
    assert not HookHandler("PreToolUse", "Write", "x").matches(["WriteAll"])
