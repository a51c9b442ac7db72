"""``harness -p`` where a first session meets rough edges: a reader that goes away, a
model that narrates before it calls a tool, a harness home it cannot write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.inprocess import Harness, in_process
from tests.scripted import ScriptedModel, call, reply

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
WORKERS = {"model": "harness.actors.model", "tools": "harness.actors.tools"}

pytestmark = pytest.mark.slow


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        HARNESS_HOME=str(home),
        PYTHONPATH=PYTHONPATH,
        HARNESS_WORKERS=json.dumps(WORKERS),
        OPENAI_API_KEY="sk-test-scripted",
    )
    return env


def _base(model: ScriptedModel) -> list[str]:
    return ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]


def _argv(model: ScriptedModel, *args: str) -> list[str]:
    return [sys.executable, "-m", "harness", *args, *_base(model)]


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Harness:
    """``harness -p`` in this process, for the tests of what it prints; the tests of the
    process (a closed pipe, a home it cannot write) start the real program."""
    return in_process(monkeypatch, capsys)


def test_a_reader_that_goes_away_ends_the_run_quietly(
    model: ScriptedModel, workspace: Path, home: Path
) -> None:
    # `harness -p ... --output-format stream-json | head -1`: many events after the first
    model.add(reply("word " * 400, chunk=2))
    child = subprocess.Popen(
        _argv(model, "-p", "talk", "--output-format", "stream-json"),
        cwd=workspace,
        env=_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None
    assert child.stderr is not None
    first = child.stdout.readline()
    assert json.loads(first)["type"] == "session_started"
    child.stdout.close()  # what head does after its line
    err = child.stderr.read().decode()
    status = child.wait(timeout=60)
    assert err == ""
    assert status == 141


def test_text_mode_prints_the_answer_alone_and_each_tool_with_its_path(
    model: ScriptedModel, workspace: Path, home: Path, harness: Harness
) -> None:
    (workspace / "a.txt").write_text("hi\n")
    model.add(
        reply("Here's the JSON command to perform these steps:", call("read_file", path="a.txt")),
        reply("It says hi."),
    )
    p = harness(["-p", "read a.txt", *_base(model)], workspace=workspace, home=home)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "It says hi.\n"
    assert "• read_file a.txt" in p.stderr.splitlines()
    assert "Here's the JSON" not in p.stderr


def test_a_harness_home_that_cannot_be_written_is_one_clear_line(
    model: ScriptedModel, workspace: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    home = blocker / "home"  # every write under it fails (even for root)
    model.add(reply("never asked"))
    p = subprocess.run(
        _argv(model, "-p", "hello"),
        cwd=workspace,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr
    line = p.stderr.splitlines()[-1]  # (before it: the settings file it could not read)
    assert line.startswith("harness: Not a directory: ")
    assert "make it writable, or set HARNESS_HOME" in line
    assert "Errno" not in line


def test_a_write_the_system_refuses_is_said_once(
    model: ScriptedModel, workspace: Path, home: Path, harness: Harness
) -> None:
    # the tool's own error already names it ("write_file failed: ..."); as a read-only
    # workspace does, a file standing where a folder should be refuses the write
    (workspace / "blk").write_text("")
    model.add(reply("", call("write_file", path="blk/new.txt", content="x")), reply("Could not."))
    p = harness(
        ["-p", "write it", "--permission-mode", "auto", *_base(model)],
        workspace=workspace,
        home=home,
    )
    assert p.stdout == "Could not.\n"
    [failed] = [ln for ln in p.stderr.splitlines() if "failed" in ln]
    assert failed.startswith("  write_file failed: ")
    assert failed.count("failed") == 1
