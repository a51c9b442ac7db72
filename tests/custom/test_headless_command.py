"""``harness -p "/name args"`` runs a command kept as a file: the command's own code in the
test's process, the scripted model on loopback, the real workers, ``!`` lines through the
session's rules."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.inprocess import in_process
from tests.scripted import ScriptedModel, reply

Harness = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def harness(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], model: ScriptedModel
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``harness(ws, home, *args)`` against the scripted model, in this process: the
    command's own code, without an interpreter start-up each (tests/cli/inprocess.py)."""
    run = in_process(monkeypatch, capsys)
    base = ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]

    def command(ws: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
        # the shell worker runs the ``!`` lines
        return run([*base, *args], workspace=ws, home=home, shell=True)

    return command


def test_a_file_command_runs_headless(
    dirs: tuple[Path, Path], model: ScriptedModel, harness: Harness
) -> None:
    ws, home = dirs
    (ws / "a.txt").write_text("alpha\n")
    (ws / "keep.txt").write_text("precious\n")
    folder = ws / ".claude" / "commands"
    folder.mkdir(parents=True)
    (folder / "greet.md").write_text(
        "Say hello to $1 about @a.txt. Here: !`ls`\nThen !`rm keep.txt`\n"
    )
    (home / "permissions.json").write_text(json.dumps({"deny": ["run_cmd(rm *)"]}))
    model.add(reply("Hello, Ada."), reply("title"))
    out = harness(ws, home, "-p", "/greet Ada", "--permission-mode", "auto")
    assert out.returncode == 0, out.stderr
    assert "Hello, Ada." in out.stdout
    prompt = model.requests[0]["messages"][-1]["content"]
    # ls ran (run_cmd's output, with its status); rm was refused by the deny rule
    assert prompt.startswith("Say hello to Ada about @a.txt. Here: a.txt  keep.txt\n")
    assert "[exit code 0]\nThen [!rm keep.txt was not run: denied by rule run_cmd(rm *)" in prompt
    assert prompt.endswith("Contents of @a.txt:\n```\nalpha\n```")
    assert (ws / "keep.txt").exists()
    assert "harness: /greet (project): 1 command(s) run, with @a.txt" in out.stderr
    assert "harness: !rm keep.txt was not run: denied by rule" in out.stderr


def test_a_slash_line_that_is_no_file_command_is_sent_as_it_is(
    dirs: tuple[Path, Path], model: ScriptedModel, harness: Harness
) -> None:
    ws, home = dirs
    (ws / ".harness" / "commands").mkdir(parents=True)
    (ws / ".harness" / "commands" / "help.md").write_text("not harness's help\n")
    model.add(reply("ok"), reply("ok"), reply("title"), reply("title"))
    out = harness(ws, home, "-p", "/etc/hosts: what is in it?")
    assert out.returncode == 0, out.stderr
    assert model.requests[0]["messages"][-1]["content"] == "/etc/hosts: what is in it?"
    out = harness(ws, home, "-p", "/help me")
    assert out.returncode == 0, out.stderr
    assert "/help is a built-in command; rename the file" in out.stderr
    asked = [r["messages"][-1]["content"] for r in model.requests]
    assert "/help me" in asked


def test_a_commands_model_answers_its_prompt_and_then_the_sessions_again(
    dirs: tuple[Path, Path], model: ScriptedModel, harness: Harness
) -> None:
    ws, home = dirs
    folder = ws / ".harness" / "commands"
    folder.mkdir(parents=True)
    (folder / "cheap.md").write_text("---\nmodel: small-one\n---\nSummarise $ARGUMENTS\n")
    (folder / "claude.md").write_text("---\nmodel: sonnet\n---\nExplain $ARGUMENTS\n")
    model.add(*[reply("done")] * 4)
    out = harness(ws, home, "-p", "/cheap the log", "--permission-mode", "auto")
    assert out.returncode == 0, out.stderr
    assert "harness: model small-one answers this prompt" in out.stderr
    asked = [(r["model"], r["messages"][-1]["content"]) for r in model.requests]
    assert asked[0] == ("small-one", "Summarise the log")
    out = harness(ws, home, "-p", "/claude it", "--permission-mode", "auto")
    assert out.returncode == 0, out.stderr
    assert "model 'sonnet' is a Claude Code alias: the session's model answers" in out.stderr
    explained = [r for r in model.requests if r["messages"][-1]["content"] == "Explain it"]
    assert [r["model"] for r in explained] == ["scripted"]


def test_a_commands_allowed_tools_are_the_only_tools_its_prompt_may_use(
    dirs: tuple[Path, Path], model: ScriptedModel, harness: Harness
) -> None:
    from tests.scripted import call

    ws, home = dirs
    (ws / "a.txt").write_text("alpha\n")
    folder = ws / ".claude" / "commands"
    folder.mkdir(parents=True)
    (folder / "peek.md").write_text(
        "---\nallowed-tools: Read, Grep, TodoWrite\n---\nLook at a.txt\n"
    )
    # the model tries a tool it was not offered beside one it was
    model.add(
        reply("", call("write_file", path="b.txt", content="x"), call("read_file", path="a.txt")),
        reply("done"),
        reply("title"),
    )
    out = harness(ws, home, "-p", "/peek", "--permission-mode", "auto")
    assert out.returncode == 0, out.stderr
    offered = sorted(t["function"]["name"] for t in model.requests[0]["tools"])
    assert offered == ["read_file", "search_text"]
    assert not (ws / "b.txt").exists()
    results = [m for m in model.requests[1]["messages"] if m["role"] == "tool"]
    assert results[0]["content"] == (
        "The call was not run: write_file is not among the tools /peek's allowed-tools "
        "allows: read_file, search_text."
    )
    assert "alpha" in results[1]["content"]
    assert "harness: tools limited to read_file, search_text (allowed-tools)" in out.stderr
    assert "unknown tool TodoWrite" in out.stderr
