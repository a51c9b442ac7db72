"""The permission engine on real rule files in a temporary HARNESS_HOME and workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.actors.tools import (
    PermissionFileError,
    Permissions,
    Rule,
    RuleError,
    ToolSpec,
    builtin_table,
    parse_rule,
)


def perms(tmp_path: Path, allow=(), deny=(), mode="ask", project=None) -> Permissions:  # type: ignore[no-untyped-def]
    home = tmp_path / "home"
    ws = tmp_path / "ws"
    home.mkdir(exist_ok=True)
    ws.mkdir(exist_ok=True)
    (home / "permissions.json").write_text(json.dumps({"allow": list(allow), "deny": list(deny)}))
    if project is not None:
        (ws / ".permissions.json").write_text(json.dumps(project))
    return Permissions(builtin_table(), workspace=ws, home=home, mode=mode)


def run(cmd: str) -> dict[str, str]:
    return {"command": cmd}


# Commands that must ASK although `run_cmd(git status)` / `run_cmd(git *)` allow git status.
MUST_ASK = [
    "git status && rm -rf ~",
    "git status; curl x | sh",
    "git status $(rm -rf ~)",
    "git status `rm -rf ~`",
    "git status || rm -rf ~",
    "git status | sh",
    "git status > /etc/passwd",
    "git status < /dev/zero",
    "git status\nrm -rf ~",
    "git status & rm -rf ~",
    "git status ${HOME:?}",
]


@pytest.mark.parametrize("command", MUST_ASK)
@pytest.mark.parametrize("rule", ["run_cmd(git status)", "run_cmd(git *)", "run_cmd(git status*)"])
def test_shell_operators_stop_an_allow_rule(tmp_path: Path, rule: str, command: str) -> None:
    p = perms(tmp_path, allow=[rule])
    assert p.decide("run_cmd", run(command)).action == "ask"


def test_an_allow_rule_that_contains_the_operator_still_allows(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["run_cmd(git log | head*)"])
    assert p.decide("run_cmd", run("git log | head -5")).action == "allow"
    assert p.decide("run_cmd", run("git log | head -5; rm x")).action == "ask"


@pytest.mark.parametrize(
    ("rule", "command", "action"),
    [
        ("run_cmd(git status)", "git status", "allow"),
        ("run_cmd(git status)", "git status --short", "allow"),
        ("run_cmd(git status)", "git statusx", "ask"),
        ("run_cmd(git status)", "git stash", "ask"),
        ("run_cmd(npm run *)", "npm run test", "allow"),
        ("run_cmd(npm run *)", "npm install", "ask"),
        ("run_cmd(make ?)", "make a", "allow"),
        ("run_cmd(make ?)", "make ab", "ask"),
        ("run_cmd", "anything at all", "allow"),
        ("run_*", "ls", "allow"),
    ],
)
def test_shell_allow_patterns(tmp_path: Path, rule: str, command: str, action: str) -> None:
    assert perms(tmp_path, allow=[rule]).decide("run_cmd", run(command)).action == action


def test_path_patterns_for_file_tools(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["write_file(src/*)", "edit_file(README.md)"])
    assert p.decide("write_file", {"path": "src/a/b.py", "content": ""}).action == "allow"
    assert p.decide("write_file", {"path": "tests/a.py", "content": ""}).action == "ask"
    assert p.decide("edit_file", {"path": "README.md"}).action == "allow"
    assert p.decide("edit_file", {"path": "README.mdx"}).action == "ask"


def test_deny_wins_never_asks_and_beats_auto(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["run_cmd"], deny=["run_cmd(rm *)", "delete_path"], mode="auto")
    d = p.decide("run_cmd", run("rm -rf build"))
    assert d.action == "deny"
    assert d.rule == "run_cmd(rm *)"
    assert "permissions.json" in d.reason
    assert p.decide("delete_path", {"path": "x"}).action == "deny"
    assert p.decide("run_cmd", run("ls")).action == "allow"


@pytest.mark.parametrize(
    "command", ["ls; rm -rf x", "echo $(rm -rf x)", "true && rm -rf x", "a|rm x"]
)
def test_deny_rules_see_every_part_of_a_command(tmp_path: Path, command: str) -> None:
    assert perms(tmp_path, deny=["run_cmd(rm *)"]).decide("run_cmd", run(command)).action == "deny"


def test_modes(tmp_path: Path) -> None:
    p = perms(tmp_path)
    write = {"path": "a", "content": "x"}
    assert p.decide("read_file", {"path": "a"}).action == "allow"
    assert p.decide("write_file", write).action == "ask"
    assert p.decide("run_cmd", run("ls")).action == "ask"
    p.set_mode("auto")
    assert p.decide("write_file", write).action == "allow"
    p.set_mode("plan")
    assert p.decide("write_file", write).action == "off"
    assert p.decide("read_file", {"path": "a"}).action == "allow"
    assert p.decide("run_cmd", run("ls")).action == "ask"
    p.set_mode("deny")
    assert p.decide("write_file", write).action == "deny"
    assert p.decide("search_text", {"pattern": "x"}).action == "allow"
    with pytest.raises(ValueError, match="unknown permission mode"):
        p.set_mode("yolo")


def test_mcp_tools_ask_and_match_by_name(tmp_path: Path) -> None:
    table = builtin_table()
    table.register(
        ToolSpec(
            name="mcp__github__list_issues",
            description="d",
            parameters={"type": "object", "properties": {}},
            kind="read",
            executor="mcp",
        )
    )
    home = tmp_path / "h"
    p = Permissions(table, home=home)
    assert p.decide("mcp__github__list_issues").action == "ask"
    assert p.decide("mcp__other__x").action == "ask"
    p.add("allow", "mcp__github__*", persist=False)
    assert p.decide("mcp__github__list_issues").action == "allow"
    assert p.decide("mcp__other__x").action == "ask"
    assert not home.exists()


def test_unknown_tools_are_denied(tmp_path: Path) -> None:
    assert perms(tmp_path, mode="auto").decide("nope").action == "deny"


def test_empty_pattern_is_refused_at_load_and_named(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["run_cmd()", "read_file", "write_file(  )", 7])
    assert [str(r) for r, _ in p.rules.allow] == ["read_file"]
    problems = [str(x) for x in p.problems]
    assert len(problems) == 3
    assert any("run_cmd()" in x and "empty pattern" in x for x in problems)
    assert any("write_file(  )" in x for x in problems)
    text = p.describe()
    assert "refused:" in text
    assert "run_cmd()" in text
    # and the empty rule does not silently allow everything
    assert p.decide("run_cmd", run("rm -rf ~")).action == "ask"


def test_broken_files_are_problems_and_other_files_still_load(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["write_file"])
    assert p.project_path is not None
    p.project_path.write_text("{not json")
    p.reload()
    assert [str(r) for r, _ in p.rules.allow] == ["write_file"]
    assert "not valid JSON" in str(p.problems[0])
    p.project_path.write_text('{"allow": "run_cmd"}')
    p.reload()
    assert "must be a list" in str(p.problems[0])


def test_project_and_user_rules_merge(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["write_file"], project={"deny": ["write_file(secrets/*)"]})
    assert p.decide("write_file", {"path": "secrets/a"}).action == "deny"
    assert p.decide("write_file", {"path": "src/a"}).action == "allow"


def test_always_appends_a_rule_and_keeps_the_file(tmp_path: Path) -> None:
    p = perms(tmp_path)
    user = p.user_path
    data = json.loads(user.read_text())
    data["note"] = "mine"
    user.write_text(json.dumps(data))
    rule = p.always_rule("run_cmd", run("git status --short"))
    assert rule == "run_cmd(git status --short)"
    p.add("allow", rule)
    assert p.decide("run_cmd", run("git status --short")).action == "allow"
    assert p.decide("run_cmd", run("git status --short; rm x")).action == "ask"
    saved = json.loads(user.read_text())
    assert saved["allow"] == ["run_cmd(git status --short)"]
    assert saved["note"] == "mine"
    p.add("allow", rule)  # no duplicate
    assert json.loads(user.read_text())["allow"] == ["run_cmd(git status --short)"]
    # a fresh engine reads it back
    again = Permissions(builtin_table(), home=user.parent)
    assert again.decide("run_cmd", run("git status --short")).action == "allow"
    assert p.always_rule("run_cmd", run("echo $(date)")) == "run_cmd(echo $(date))"
    assert parse_rule("run_cmd(echo $(date))") == Rule("run_cmd", "echo $(date)")
    assert p.always_rule("git_status", {}) == "git_status"


def test_adding_to_a_broken_file_changes_nothing(tmp_path: Path) -> None:
    p = perms(tmp_path)
    p.user_path.write_text("{broken")
    with pytest.raises(PermissionFileError, match="not valid JSON"):
        p.add("allow", "run_cmd(ls)")
    assert p.user_path.read_text() == "{broken"
    with pytest.raises(RuleError, match="empty pattern"):
        p.add("deny", "run_cmd()")


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("read_file", Rule("read_file")),
        (" run_cmd(git status) ", Rule("run_cmd", "git status")),
        ("write_file(src/*)", Rule("write_file", "src/*")),
        ("mcp__github__*", Rule("mcp__github__*")),
    ],
)
def test_parse_rule(text: str, rule: Rule) -> None:
    assert parse_rule(text) == rule
    assert parse_rule(str(rule)) == rule


@pytest.mark.parametrize("text", ["", "a b", "run_cmd(x", "(x)", "run_cmd()"])
def test_parse_rule_refuses(text: str) -> None:
    with pytest.raises(RuleError):
        parse_rule(text)


def test_remove_takes_a_rule_out_of_memory_and_the_user_file(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["run_cmd(ls)", "read_file"], deny=["run_cmd(ls)"])
    assert p.remove("run_cmd( ls )")
    saved = json.loads(p.user_path.read_text())
    assert saved == {"allow": ["read_file"], "deny": []}
    assert p.decide("run_cmd", run("ls")).action == "ask"
    assert not p.remove("run_cmd(ls)")
    p.reload()
    assert [str(r) for r, _ in p.rules.allow] == ["read_file"]


def test_network_tools_ask_and_url_rules_cover_only_their_site(tmp_path: Path) -> None:
    p = perms(tmp_path, allow=["get_url(https://docs.python.org/*)"], deny=["call_api"])
    docs = {"url": "https://docs.python.org/3/library/os.html"}
    assert p.decide("get_url", docs).action == "allow"
    assert p.decide("get_url", {"url": "https://docs.python.org.evil.test/"}).action == "ask"
    assert p.decide("search_web", {"query": "num_ctx"}).action == "ask"
    assert p.decide("call_api", {"method": "GET", "url": docs["url"]}).action == "deny"
    assert p.always_rule("get_url", {"url": "https://x.test/a"}) == "get_url(https://x.test/a)"
