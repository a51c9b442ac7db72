"""Headless mode through the real command line: output formats, exit codes, stdin prompts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from tests.conversation.conftest import MODULES, PYTHONPATH
from tests.scripted import ScriptedModel, call, reply


def harness(
    args: list[str], *, workspace: Path, home: Path, stdin: str = "", names=("model", "tools")
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update(
        HARNESS_HOME=str(home),
        PYTHONPATH=PYTHONPATH,
        HARNESS_WORKERS=json.dumps({k: v for k, v in MODULES.items() if k in names}),
    )
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=workspace,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def base(model: ScriptedModel) -> list[str]:
    return ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]


def test_stream_json_is_one_event_a_line(run_main, model: ScriptedModel, workspace: Path) -> None:
    # in this process (test_text_format_and_stdin runs the real program)
    (workspace / "a.txt").write_text("hi\n")
    model.add(reply("", call("read_file", path="a.txt")), reply("It says hi."))
    status, out, err = run_main("-p", "read a.txt", "--output-format", "stream-json", *base(model))
    assert status == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    types = [e["type"] for e in events]
    assert types[0] == "session_started"
    assert types[-1] == "result"
    assert "tool_call_finished" in types
    assert "text_delta" in types
    assert all(e["session_id"] == events[0]["session_id"] for e in events)
    assert events[-1]["ok"] is True
    assert events[-1]["text"] == "It says hi."


def test_text_format_and_stdin(model: ScriptedModel, workspace: Path, home: Path) -> None:
    model.add(reply("plain answer"))
    p = harness(["-p", "-", *base(model)], workspace=workspace, home=home, stdin="task from stdin")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "plain answer\n"
    assert model.requests[0]["messages"][-1]["content"] == "task from stdin"


def test_json_format(run_main, model: ScriptedModel) -> None:
    model.add(reply("json answer"))
    status, out, err = run_main("-p", "x", "--output-format", "json", *base(model))
    assert status == 0
    assert err == ""
    doc = json.loads(out)
    assert doc["ok"] is True
    assert doc["text"] == "json answer"
    assert doc["turns"] == 1
    assert doc["session_id"]


@pytest.fixture
def run_main(workspace: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    """``harness ARGS`` in this process (the same code as the command, without the
    interpreter start-up): ``(status, stdout, stderr)``."""
    monkeypatch.setenv("PYTHONPATH", PYTHONPATH)
    monkeypatch.setenv(
        "HARNESS_WORKERS", json.dumps({k: v for k, v in MODULES.items() if k != "shell"})
    )

    def run(*args: str) -> tuple[int, str, str]:
        try:
            status = main([*args, "--workspace", str(workspace)])
        except SystemExit as exc:  # argparse's usage errors
            status = int(exc.code or 0)
        out = capsys.readouterr()
        return status, out.out, out.err

    return run


def test_exit_codes(run_main, model: ScriptedModel, workspace: Path) -> None:
    (workspace / "a.txt").write_text("x")
    # usage errors
    assert run_main("-p", "x", "--max-turns", "0")[0] == 2
    assert run_main("-p", "x", "--resume", "a", "--continue")[0] == 2
    status, _, err = run_main("-p", "x", "--resume", "no-such", *base(model))
    assert status == 2
    assert "no session" in err
    assert "Traceback" not in err
    # provider error
    model.add(reply(status=401, error="invalid key"))
    status, _, err = run_main("-p", "x", *base(model))
    assert status == 3, err
    assert "invalid key" in err
    # limit reached
    model.add(
        reply("", call("read_file", path="a.txt")), reply("", call("read_file", path="a.txt"))
    )
    assert run_main("-p", "x", "--max-turns", "1", *base(model))[0] == 4
    # headless ask with no terminal denies, says so, and the run did not complete
    model.add(reply("", call("write_file", path="b.txt", content="y")))
    status, _, err = run_main("-p", "x", *base(model))
    assert status == 1
    assert "no terminal" in err
    assert not (workspace / "b.txt").exists()
    # --permission-mode auto lets it run
    model.add(reply("", call("write_file", path="b.txt", content="y")), reply("wrote"))
    status, out, _ = run_main("-p", "x", "--permission-mode", "auto", *base(model))
    assert status == 0
    assert out == "wrote\n"
    assert (workspace / "b.txt").read_text() == "y"


def test_temperature_and_seed_reach_the_provider(run_main, model: ScriptedModel) -> None:
    model.add(reply("sampled"))
    status, out, err = run_main("-p", "x", "--temperature", "0.5", "--seed", "42", *base(model))
    assert (status, out) == (0, "sampled\n"), err
    assert model.requests[-1]["temperature"] == 0.5
    assert model.requests[-1]["seed"] == 42
    model.add(reply("default"))
    assert run_main("-p", "x", *base(model))[0] == 0
    assert "seed" not in model.requests[-1]
    # out of range, or not a number: a usage error before anything runs
    assert run_main("-p", "x", "--temperature", "3", *base(model))[0] == 2
    assert run_main("-p", "x", "--seed", "one", *base(model))[0] == 2


def test_tools_offers_only_the_named_built_in_tools(run_main, model: ScriptedModel) -> None:
    def offered() -> list[str]:
        return sorted(t["function"]["name"] for t in model.requests[-1].get("tools", ()))

    model.add(reply("all"))
    assert run_main("-p", "x", *base(model))[0] == 0
    assert {"delete_path", "read_file", "write_file"} <= set(offered())
    model.add(reply("two"))
    status, _, err = run_main("-p", "x", "--tools", "read_file, list_dir", *base(model))
    assert status == 0, err
    assert offered() == ["list_dir", "read_file"]
    model.add(reply("small"))
    assert run_main("-p", "x", "--tools", "small", *base(model))[0] == 0
    assert "read_file" in offered()
    assert "delete_path" not in offered()
    # a name that is not a built-in tool: a clear error before anything runs
    asked = len(model.requests)
    status, _, err = run_main("-p", "x", "--tools", "read_file,rm_rf", *base(model))
    assert status == 2
    assert "no built-in tool named rm_rf" in err
    assert "Traceback" not in err
    assert len(model.requests) == asked


def test_continue_and_resume_by_title(run_main, model: ScriptedModel) -> None:
    model.add(reply("one"), reply("two"), reply("three"))
    assert run_main("-p", "remember the number seven", *base(model))[0] == 0
    assert run_main("-p", "what number?", "--continue", *base(model))[0] == 0
    assert [m["content"] for m in model.requests[1]["messages"][1:]] == [
        "remember the number seven",
        "one",
        "what number?",
    ]
    status, _, err = run_main("-p", "again", "--resume", "remember the number seven", *base(model))
    assert status == 0, err
    assert len(model.requests[2]["messages"]) == 6


def test_no_session_persistence_writes_no_log(run_main, model: ScriptedModel, home: Path) -> None:
    model.add(reply("one"), reply("two"))
    status, out, err = run_main("-p", "x", "--no-session-persistence", *base(model))
    assert status == 0, err
    assert out.strip() == "one"
    assert not (home / "projects").exists()
    # a run that keeps its log, for contrast: the folder the flag leaves alone
    assert run_main("-p", "y", *base(model))[0] == 0
    assert list((home / "projects").rglob("events.jsonl"))
    # nothing to resume from, and no terminal to keep a log for
    assert run_main("-p", "z", "--no-session-persistence", "--continue")[0] == 2
    assert run_main("--no-session-persistence")[0] == 2
