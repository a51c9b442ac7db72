"""The goal: five prompts edit, create and delete files; a rewind to the second, through the
real program, puts every file back byte for byte and the conversation back to before it.
The prompts around the rewind run the command line in the test's process
(tests/cli/inprocess.py): their subject is what the command does, and each program run
costs an interpreter's start-up."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.inprocess import Harness, in_process
from tests.rewind.conftest import harness, tree
from tests.scripted import ScriptedModel, call, reply


@pytest.fixture
def prompt(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Harness:
    """``harness ARGS`` in the test's process."""
    return in_process(monkeypatch, capsys)


def base(model: ScriptedModel) -> list[str]:
    return [
        "--provider",
        "openai",
        "--model",
        "scripted",
        "--base-url",
        model.base_url,
        "--permission-mode",
        "auto",
    ]


def run(
    harness: Harness,
    model: ScriptedModel,
    ws: Path,
    home: Path,
    prompt: str,
    *extra: str,
    shell: bool = False,
) -> dict[str, object]:
    p = harness(
        ["-p", prompt, "--output-format", "json", *base(model), *extra],
        workspace=ws,
        home=home,
        shell=shell,
    )
    assert p.returncode == 0, p.stderr
    doc: dict[str, object] = json.loads(p.stdout)
    return doc


def test_five_prompts_then_a_rewind_to_the_second(
    model: ScriptedModel, workspace: Path, home: Path, prompt: Harness
) -> None:
    ws = workspace
    (ws / "a.txt").write_bytes(b"alpha\nbeta\n")
    (ws / "b.bin").write_bytes(bytes(range(256)) * 4)
    (ws / "c.txt").write_bytes(b"see\r\nno newline at the end")
    os.chmod(ws / "c.txt", 0o640)
    model.add(
        reply("", call("read_file", path="a.txt")),
        reply(
            "",
            call("edit_file", path="a.txt", old_text="alpha", new_text="ALPHA"),
            call("write_file", path="new1.txt", content="one\n"),
        ),
        reply("prompt one done"),
    )
    first = run(prompt, model, ws, home, "prompt one")
    sid = str(first["session_id"])
    at_second = tree(ws)  # what the files were before the second prompt
    model.add(
        reply(
            "",
            call("edit_file", path="a.txt", old_text="beta", new_text="BETA"),
            call("delete_path", path="c.txt"),
            call("write_file", path="dir/sub/new2.txt", content="two\n"),
        ),
        reply("prompt two done"),
    )
    run(prompt, model, ws, home, "prompt two", "--resume", sid)
    model.add(
        reply(
            "",
            call("delete_path", path="b.bin"),
            call("move_file", source="new1.txt", destination="moved/new1.txt"),
            call("run_cmd", command="echo built > build.out"),
        ),
        reply("prompt three done"),
    )
    run(prompt, model, ws, home, "prompt three", "--resume", sid, shell=True)
    model.add(
        reply(
            "",
            call("write_file", path="c.txt", content="a new c\n"),
            call("read_file", path="dir/sub/new2.txt"),
        ),
        reply("", call("edit_file", path="dir/sub/new2.txt", old_text="two", new_text="2")),
        reply("prompt four done"),
    )
    run(prompt, model, ws, home, "prompt four", "--resume", sid)
    model.add(
        reply("", call("delete_path", path="dir"), call("write_file", path="z.txt", content="z")),
        reply("prompt five done"),
    )
    run(prompt, model, ws, home, "prompt five", "--resume", sid)
    assert (ws / "build.out").exists()
    assert not (ws / "b.bin").exists()

    p = harness(
        ["--resume", sid, "--rewind-to", "2", "--output-format", "json", *base(model)],
        workspace=ws,
        home=home,
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["type"] == "rewind"
    assert doc["ok"] is True
    assert doc["prompt"] == 2
    assert doc["text"] == "prompt two"
    actions = {f["path"]: f["action"] for f in doc["files"]}
    assert actions["b.bin"] == "recreate"
    assert actions["z.txt"] == "remove"
    assert doc["unrecorded"] == ["build.out"]
    assert any("echo built > build.out" in c for c in doc["commands"])
    # every file as it was before the second prompt, byte for byte; the command's file stays
    now = tree(ws)
    assert now.pop("build.out")[:2] == ("file", b"built\n")
    assert now == at_second

    # the resumed session holds the rewound conversation: prompt one, then the new prompt
    model.add(reply("after the rewind"))
    run(prompt, model, ws, home, "prompt six", "--resume", sid)
    users = [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "user"]
    assert users == ["prompt one", "prompt six"]
