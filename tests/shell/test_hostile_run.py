"""Issue 15 end to end: ``harness -p``, the scripted model over loopback playing a hostile
model, the real workers. The key test runs the real program (its subject is what each
process of harness holds); the others run the command line in the test's process
(tests/cli/inprocess.py), whose stdout and stderr are what the program would write.

Secrets (12): no harness process holds a provider key in its environment, so a
command that dumps every process's environment and encodes it (so masking cannot
catch it) finds nothing. The terminal (13): text, tool names and provider errors
reach stdout and stderr without a control sequence, and JSON output keeps the text
exact. Permissions (1, 4, 5): the model cannot write ``.permissions.json``, cannot
write a file in plan mode, and ``cwd`` is part of the rule.
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from harness.actors.shell import sandbox_problem
from tests.cli.inprocess import Harness, in_process
from tests.conversation.conftest import MODULES, PYTHONPATH
from tests.scripted import ScriptedCall, ScriptedModel, call, reply


def program(
    args: list[str],
    *,
    workspace: Path,
    home: Path,
    env: dict[str, str] | None = None,
    shell: bool = False,
) -> subprocess.CompletedProcess[str]:
    """The real program; its shell worker only with *shell* (a test whose model runs a
    command): each worker costs a start-up."""
    full = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    names = ("model", "tools", "shell") if shell else ("model", "tools")
    full.update(
        HARNESS_HOME=str(home),
        PYTHONPATH=PYTHONPATH,
        HARNESS_WORKERS=json.dumps({k: MODULES[k] for k in names}),
    )
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=workspace,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


def base(model: ScriptedModel) -> list[str]:
    return ["--provider", "openai", "--model", "scripted", "--base-url", model.base_url]


# the `model` and `dirs` fixtures come from tests/conftest.py


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Harness:
    """``harness ARGS`` in the test's process, with the arguments of :func:`program`."""
    return in_process(monkeypatch, capsys)


def _tool_results(model: ScriptedModel) -> list[str]:
    last = model.requests[-1]["messages"]
    return [m["content"] for m in last if m["role"] == "tool"]


# --- 12. keys leak by encoding ----------------------------------------------------------

DUMP = (
    "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f 2>/dev/null; done"
    " | grep -a -e KEY -e DATABASE -e WEBHOOK -e '://' | base64 -w0"
)


def test_no_process_of_harness_holds_a_key(model: ScriptedModel, dirs: tuple[Path, Path]) -> None:
    ws, home = dirs
    key = "sk-hostile-" + secrets.token_hex(16)
    db = "postgres://app:pw" + secrets.token_hex(8) + "@db.example/app"
    hook = "https://hooks.example/T0/" + secrets.token_hex(8)
    model.add(
        reply("", call("run_cmd", command=f'echo "LEAK:$({DUMP}):END"')),
        reply("", call("run_cmd", command='echo "PARENT:$(base64 -w0 /proc/$PPID/environ):END"')),
        reply("done"),
    )
    p = program(
        ["-p", "look around", "--permission-mode", "auto", *base(model)],
        workspace=ws,
        home=home,
        env={"OPENAI_API_KEY": key, "DATABASE_URL": db, "SLACK_WEBHOOK_URL": hook},
        shell=True,
    )
    assert p.returncode == 0, p.stderr
    results = _tool_results(model)
    leaked = b""
    for marker in ("LEAK", "PARENT"):
        found = re.search(marker + r":([A-Za-z0-9+/=]*):END", "\n".join(results))
        assert found, results
        leaked += base64.b64decode(found.group(1))
    assert leaked, "the command read nothing: the test would pass for the wrong reason"
    for secret in (key, db, hook):
        assert secret.encode() not in leaked
    # The key still reaches the provider, in the request.
    assert model.headers[0]["authorization"] == f"Bearer {key}"
    log = b"".join(f.read_bytes() for f in home.rglob("*.jsonl"))
    assert key.encode() not in log
    assert key not in p.stdout + p.stderr


# --- 13. escape codes reach the terminal ------------------------------------------------

HOSTILE = (
    "title\x1b]0;pwned\x07 clear\x1b[2J link\x1b]8;;http://x\x1b\\here\x1b]8;;\x1b\\"
    " c1\x9b31m dcs\x1bP1$qm\x1b\\ ask\x1b[6n bell\x07 done"
)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_text_mode_writes_no_control_sequence(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    model.add(
        reply("", call("no\x1b]0;tool\x07such\x1b[2Jtool", path="x")),
        reply(HOSTILE, chunk=3),
    )
    p = harness(["-p", "hi", "--permission-mode", "auto", *base(model)], workspace=ws, home=home)
    assert p.returncode == 0, p.stderr
    assert not CONTROL.search(p.stdout), repr(p.stdout)
    assert not CONTROL.search(p.stderr), repr(p.stderr)
    assert "title" in p.stdout
    assert "done" in p.stdout
    assert "such" in p.stderr


def test_a_provider_error_body_reaches_stderr_clean(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    model.add(*[reply(status=400, error=f"bad request {HOSTILE}")] * 4)
    p = harness(["-p", "hi", *base(model)], workspace=ws, home=home)
    assert p.returncode != 0
    assert "bad request" in p.stderr
    assert not CONTROL.search(p.stderr), repr(p.stderr)


def test_json_output_keeps_the_text_exact(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    model.add(reply(HOSTILE, chunk=5))
    p = harness(["-p", "hi", "--output-format", "json", *base(model)], workspace=ws, home=home)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["text"] == HOSTILE
    assert "\x1b" not in p.stdout
    model.add(reply(HOSTILE, chunk=5))
    p = harness(
        ["-p", "hi", "--output-format", "stream-json", *base(model)], workspace=ws, home=home
    )
    events = [json.loads(line) for line in p.stdout.splitlines()]
    assert "".join(e["text"] for e in events if e["type"] == "text_delta") == HOSTILE


# --- 1, 4, 5 through the whole program ----------------------------------------------------


GRANT = json.dumps({"allow": ["run_cmd"]})


@pytest.mark.parametrize(
    "grant",
    [
        call("write_file", path=".permissions.json", content=GRANT),
        call("run_cmd", command=f"echo '{GRANT}' > .permissions.json"),
    ],
    ids=["write_file", "run_cmd"],
)
def test_the_model_cannot_grant_itself_permissions(
    model: ScriptedModel, dirs: tuple[Path, Path], grant: ScriptedCall, harness: Harness
) -> None:
    ws, home = dirs
    model.add(reply("", grant), reply("done"))
    p = harness(
        [
            "-p",
            "x",
            "--permission-mode",
            "auto",
            "--allow",
            "write_file",
            "--allow",
            "run_cmd",
            *base(model),
        ],
        workspace=ws,
        home=home,
        shell=grant.name == "run_cmd",
    )
    assert not (ws / ".permissions.json").exists(), p.stderr
    assert f"{grant.name} denied" in p.stderr


def test_plan_mode_writes_nothing_whatever_the_rules(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    model.add(
        reply("", call("run_cmd", command="ls -la > PWN")),
        reply("", call("run_cmd", command="ls -la")),
        reply("", call("submit_plan", plan="nothing")),
    )
    p = harness(
        [
            "-p",
            "x",
            "--permission-mode",
            "plan",
            "--allow",
            "run_cmd(ls -la > PWN)",
            "--allow",
            "run_cmd(ls -la)",
            *base(model),
        ],
        workspace=ws,
        home=home,
        shell=True,
    )
    assert p.returncode == 0, p.stderr
    assert not (ws / "PWN").exists()
    results = _tool_results(model)
    assert "plan mode runs only commands that just read" in results[0]
    assert "[exit code 0]" in results[1]


WRITABLE = "[ -w . ] && echo WRITABLE || echo READ-ONLY"


@pytest.mark.skipif(
    sandbox_problem("workspace-write") is not None, reason="bubblewrap cannot run here"
)
@pytest.mark.parametrize(("mode", "seen"), [("plan", "READ-ONLY"), ("auto", "WRITABLE")])
def test_plan_mode_commands_see_a_read_only_workspace(
    model: ScriptedModel, dirs: tuple[Path, Path], mode: str, seen: str, harness: Harness
) -> None:
    ws, home = dirs
    end = call("submit_plan", plan="nothing") if mode == "plan" else None
    model.add(reply("", call("run_cmd", command=WRITABLE)), reply("", end) if end else reply("ok"))
    p = harness(
        ["-p", "x", "--permission-mode", mode, "--allow", "run_cmd", *base(model)],
        workspace=ws,
        home=home,
        shell=True,
    )
    assert p.returncode == 0, p.stderr
    assert seen in _tool_results(model)[0]


def test_cwd_is_part_of_what_a_rule_allows(
    model: ScriptedModel, dirs: tuple[Path, Path], harness: Harness
) -> None:
    ws, home = dirs
    (ws / "evil").mkdir()
    model.add(
        reply("", call("run_cmd", command="pwd", cwd="evil")),
        reply("", call("run_cmd", command="pwd", cwd="/")),
        reply("", call("run_cmd", command="pwd")),
        reply("done"),
    )
    p = harness(
        ["-p", "x", "--permission-mode", "deny", "--allow", "run_cmd(pwd)", *base(model)],
        workspace=ws,
        home=home,
        shell=True,
    )
    results = _tool_results(model)
    assert "not run" in results[0], p.stderr
    assert "outside the workspace" in results[1]
    assert results[2].startswith(str(ws.resolve()))


# --- 7, 10 through the whole program ------------------------------------------------------


def test_a_planted_git_config_runs_nothing_even_in_deny_mode(
    model: ScriptedModel, dirs: tuple[Path, Path], tmp_path: Path, harness: Harness
) -> None:
    ws, home = dirs
    marker = tmp_path / "PWNED"
    (ws / "a.txt").write_text("a\n")
    for args in (
        ["init", "-q"],
        ["add", "a.txt"],
        ["config", "core.fsmonitor", f"touch {marker}; false"],
        ["config", "diff.external", f"touch {marker}"],
    ):
        subprocess.run(["git", *args], cwd=ws, check=True)
    (ws / "a.txt").write_text("b\n")
    model.add(
        reply("", call("git_status"), call("git_diff")),
        reply("", call("write_file", path="c.txt", content="c")),
        reply("done"),
    )
    p = harness(["-p", "x", "--permission-mode", "deny", *base(model)], workspace=ws, home=home)
    assert "a.txt" in "\n".join(_tool_results(model)), p.stderr
    assert not marker.exists()


def test_a_skill_linked_out_of_the_workspace_reaches_no_prompt(
    model: ScriptedModel, dirs: tuple[Path, Path], tmp_path: Path, harness: Harness
) -> None:
    ws, home = dirs
    key = tmp_path / "id_rsa"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY----- very-secret\n")
    (ws / "skills").mkdir()
    (ws / "skills" / "deploy.md").symlink_to(key)
    (ws / "AGENTS.md").symlink_to(key)
    model.add(reply("", call("use_skill", name="deploy")), reply("done"))
    p = harness(["-p", "x", "--permission-mode", "auto", *base(model)], workspace=ws, home=home)
    assert p.returncode == 0, p.stderr
    sent = json.dumps(model.requests)
    assert "very-secret" not in sent
    assert "BEGIN OPENSSH" not in sent
    assert "no skill named 'deploy'" in _tool_results(model)[0]
