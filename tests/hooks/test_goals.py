"""Issue 38's goals, against the command's own code: ``harness -p`` in the test's process
(tests/cli/inprocess.py) with the scripted model on loopback, the real workers, and the
hooks of ``docs/examples/hooks`` copied into the project's ``.claude/`` unchanged (a
PreToolUse guard that blocks ``rm -rf`` with exit 2, a PostToolUse formatter, a Stop hook)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.inprocess import Harness, in_process
from tests.scripted import ScriptedModel, call, reply
from tests.shell.test_hostile_run import base

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "hooks"
# the formatter the example runs for .py files (ruff, beside this interpreter)
PATH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def copy_examples(ws: Path) -> None:
    (ws / ".claude").mkdir()
    shutil.copy(EXAMPLES / "settings.json", ws / ".claude" / "settings.json")
    shutil.copytree(EXAMPLES, ws / ".claude" / "hooks", ignore=shutil.ignore_patterns("*.json"))


def events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def tool_results(model: ScriptedModel) -> list[str]:
    return [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "tool"]


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Harness:
    """``harness(args, workspace=, home=, env=, shell=)``, in this process: the command's
    own code, without an interpreter start-up each (tests/cli/inprocess.py)."""
    return in_process(monkeypatch, capsys)


def run(
    harness: Harness, model: ScriptedModel, ws: Path, home: Path, *more: str, shell: bool = False
) -> subprocess.CompletedProcess[str]:
    return harness(
        [
            "-p",
            "go",
            "--output-format",
            "stream-json",
            "--permission-mode",
            "auto",
            *more,
            *base(model),
        ],
        workspace=ws,
        home=home,
        env={"PATH": PATH},
        shell=shell,  # the shell worker only where the model runs a command
    )


def test_the_guard_blocks_rm_rf_and_the_formatter_formats_what_the_model_wrote(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    # one trusted run (a run costs a second of CPU): the PreToolUse guard, then PostToolUse
    ws, home = dirs
    copy_examples(ws)
    (ws / "build").mkdir()
    (ws / "build" / "keep.txt").write_text("kept")
    model.add(
        reply("", call("run_cmd", command="rm -rf build")),
        reply("", call("run_cmd", command="ls build")),
        reply("", call("write_file", path="calc.py", content="def add( a,b ):\n  return a+b\n")),
        reply("could not delete it; calc.py written"),
    )
    p = run(harness, model, ws, home, "--trust-project", shell=True)
    assert p.returncode == 0, p.stderr
    assert (ws / "build" / "keep.txt").read_text() == "kept"
    first, second, _ = tool_results(model)
    assert "Blocked: rm -rf is not allowed in this project." in first
    assert "keep.txt" in second  # a call the guard lets through runs
    finished = [e for e in events(p.stdout) if e["type"] == "hook_finished"]
    assert [(e["event"], e["decision"]) for e in finished if e["event"] == "PreToolUse"] == [
        ("PreToolUse", "deny"),
        ("PreToolUse", ""),
    ]
    assert finished[0]["source"] == ".claude/settings.json"
    assert any(e["type"] == "hook_started" for e in events(p.stdout))
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    post = [e for e in finished if e["event"] == "PostToolUse"]
    assert len(post) == 1
    assert post[0]["exit_code"] == 0


def test_untrusted_project_hooks_do_not_run_and_the_run_says_so(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    copy_examples(ws)
    (ws / "build").mkdir()
    model.add(reply("", call("run_cmd", command="rm -rf build")), reply("gone"))
    p = run(harness, model, ws, home, shell=True)
    assert p.returncode == 0, p.stderr
    assert not (ws / "build").exists()
    assert "the hooks of .claude/settings.json" in p.stderr
    assert not [e for e in events(p.stdout) if e["type"] == "hook_started"]


def test_the_stop_hook_keeps_the_model_going_until_the_check_passes(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    copy_examples(ws)
    (ws / "check.sh").write_text(
        "#!/bin/sh\ntest -f done.txt || { echo 'done.txt is missing'; exit 1; }\n"
    )
    (ws / "check.sh").chmod(0o755)
    model.add(
        reply("all finished"),
        reply("", call("write_file", path="done.txt", content="yes\n")),
        reply("now it is finished"),
    )
    p = run(harness, model, ws, home, "--trust-project")
    assert p.returncode == 0, p.stderr
    result = events(p.stdout)[-1]
    assert result["type"] == "result"
    assert result["text"] == "now it is finished"
    second = model.requests[1]["messages"]
    told = [m["content"] for m in second if m["role"] == "user"][-1]
    assert "The project's check fails" in told
    assert "done.txt is missing" in told
    stops = [e for e in events(p.stdout) if e["type"] == "hook_finished" and e["event"] == "Stop"]
    assert [e["decision"] for e in stops] == ["block", ""]


def test_a_users_own_hook_needs_no_trust(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    seen = ws / "seen.json"
    hook = {"type": "command", "command": f"cat > {seen}"}
    (home / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}})
    )
    model.add(reply("hi"))
    p = harness(["-p", "go", "--output-format", "json", *base(model)], workspace=ws, home=home)
    assert p.returncode == 0, p.stderr
    # the one JSON result lists each hook that ran, as hook_finished says it
    (ran,) = json.loads(p.stdout)["hooks"]
    assert ran["event"] == "UserPromptSubmit"
    assert ran["hook"].startswith("cat > ")  # the first 60 characters of the command
    assert ran["source"] == str(home / "settings.json")
    assert (ran["decision"], ran["exit_code"], ran["call_id"]) == ("", 0, "")
    assert ran["ms"] > 0
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "UserPromptSubmit"
    assert payload["prompt"] == "go"
    assert payload["cwd"] == str(ws)
    assert payload["transcript_path"].endswith(".jsonl")


def test_a_bad_hook_file_is_named_and_the_run_goes_on(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    (home / "settings.json").write_text('{"hooks": {"PreToolUse": [{"matcher": "("}]}}')
    model.add(reply("fine"))
    p = harness(["-p", "go", *base(model)], workspace=ws, home=home)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "fine"
    said = f"{home / 'settings.json'}: hooks.PreToolUse[0]: matcher '(' is not a regular"
    assert said in p.stderr
