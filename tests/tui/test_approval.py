import io
from pathlib import Path

import pytest
from rich.console import Console

from harness.cli.tui._approval import approval_renderable, decision_for_key
from harness.cli.tui._keys import decode_keys
from harness.cli.tui._prefs import Prefs
from harness.conversation._ports import ApprovalRequest


def render(req: ApprovalRequest) -> str:
    console = Console(file=io.StringIO(), width=80, color_system=None, _environ={})
    console.print(approval_renderable(req))
    return console.file.getvalue()


def test_edit_shows_the_diff_before_the_question() -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new \x1b]0;t\x07\n"
    out = render(
        ApprovalRequest(
            call_id="1",
            name="edit_file",
            arguments={"path": "x.py"},
            main_argument="x.py",
            kind="mutating",
            diff=diff,
        )
    )
    lines = [ln.rstrip() for ln in out.splitlines()]
    assert lines[0] == "wants to run edit_file x.py"
    assert " -old" in lines
    assert " +new" in lines
    assert lines[-1] == "Allow? [y]es / [N]o / [a]lways  (Esc denies)"
    assert "\x1b" not in out


def test_shell_shows_the_command_and_subagent_is_named() -> None:
    out = render(
        ApprovalRequest(
            call_id="1",
            name="run_cmd",
            arguments={"command": "rm -rf build && make"},
            main_argument="rm -rf build && make",
            kind="shell",
            agent="researcher",
        )
    )
    assert out.splitlines()[0].rstrip() == "sub-agent researcher wants to run run_cmd"
    assert "rm -rf build && make" in out


@pytest.mark.parametrize(
    ("key", "decision"),
    [
        ("y", "yes"),
        ("Y", "yes"),
        ("a", "always"),
        ("n", "no"),
        ("enter", "no"),
        ("esc", "no"),
        ("c-c", "no"),
        ("x", None),
        (" ", None),
    ],
)
def test_keys_to_decisions(key: str, decision: str | None) -> None:
    assert decision_for_key(key) == decision


def test_decode_keys() -> None:
    assert decode_keys(b"\x1b") == ["esc"]
    assert decode_keys(b"\x1b[A") == []  # an arrow key is not Esc
    assert decode_keys(b"y\r\x03\x04") == ["y", "enter", "c-c", "c-d"]
    assert decode_keys("é".encode()) == ["é"]
    assert decode_keys(b"\x1bOPa") == ["a"]
    assert decode_keys(b"ab\x7f") == ["a", "b", "backspace"]


def test_prefs_per_workspace_and_a_corrupt_file(tmp_path: Path) -> None:
    a, b = Prefs(tmp_path, Path("/ws/a")), Prefs(tmp_path, Path("/ws/b"))
    a.update(provider="ollama", model="qwen")
    b.update(provider="openai", model="gpt-4o-mini")
    assert Prefs(tmp_path, Path("/ws/a")).get() == {"provider": "ollama", "model": "qwen"}
    assert b.get()["provider"] == "openai"
    (tmp_path / "tui.json").write_text("{not json")
    assert a.get() == {}
    a.update(model="llama3")
    assert a.get() == {"model": "llama3"}
