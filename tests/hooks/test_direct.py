"""A hook command of plain words runs its program without the shell, and means what the
shell would make of it; anything else goes through ``/bin/sh -c`` as before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.hooks import run_command
from harness.hooks._argv import hook_argv

TRUE = shutil.which("true") or "/bin/true"
PATH = "/usr/local/bin:/usr/bin:/bin"


def test_plain_program_calls_skip_the_shell(workspace: Path) -> None:
    guard = workspace / "guard.py"
    guard.write_text("#!/bin/sh\n")
    guard.chmod(0o755)
    python = shutil.which("python3", path=PATH)
    assert python
    # the program as the shell would find it, the words as written (argv[0] too)
    assert hook_argv("python3 .harness/check.py --strict", str(workspace), PATH) == (
        python,
        ["python3", ".harness/check.py", "--strict"],
    )
    assert hook_argv("./guard.py  a=b", str(workspace), PATH) == (
        f"{workspace}/./guard.py",
        ["./guard.py", "a=b"],
    )


@pytest.mark.parametrize(
    "command",
    [
        "exit 0",  # builtins and keywords keep the shell's meaning
        "true",
        "echo hi",
        "test -f x",
        "FOO=1 python3 x.py",  # an assignment
        'python3 -c "print(1)"',  # quoting
        "python3 $HOME/x.py",  # expansion
        "python3 x.py > out",  # redirection
        "python3 x.py | cat",
        "python3 x.py; ls",
        "python3 x.py && ls",
        "ls *.py",  # globbing
        "ls ~",
        "ls # a comment",
        "python3\tx.py",
        "python3 x.py\nls",
        "no-such-program-here x",  # the shell says "not found" its way
        "./missing.sh",
        "",
    ],
)
def test_anything_else_goes_through_the_shell(workspace: Path, command: str) -> None:
    assert hook_argv(command, str(workspace), PATH) is None


def test_a_path_that_depends_on_the_folder_is_the_shells_call(workspace: Path) -> None:
    assert hook_argv("python3 x.py", str(workspace), None) is None  # PATH unset
    assert hook_argv("python3 x.py", str(workspace), "bin:/usr/bin") is None
    assert hook_argv("python3 x.py", str(workspace), ":/usr/bin") is None


@pytest.mark.trio
async def test_a_direct_program_gets_the_payload_and_its_arguments(workspace: Path) -> None:
    hook = workspace / "hook.py"
    hook.write_text(
        "#!/usr/bin/env python3\n"
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "print(json.dumps({'argv': sys.argv[1:], 'size': len(data['blob'])}))\n"
        "sys.exit(2)\n"
    )
    hook.chmod(0o755)
    blob = "x" * 1_000_000  # far past a pipe's buffer: written while the hook reads
    run = await run_command(
        "./hook.py --strict a=b",
        json.dumps({"blob": blob}).encode(),
        cwd=workspace,
        timeout=30,
    )
    assert run.exit_code == 2, run
    assert json.loads(run.stdout) == {"argv": ["--strict", "a=b"], "size": len(blob)}


@pytest.mark.trio
async def test_a_script_with_no_interpreter_line_runs_as_the_shell_would(
    workspace: Path,
) -> None:
    script = workspace / "guard"
    script.write_text('read line; echo "no: $line" >&2; exit 2\n')  # no #! line
    script.chmod(0o755)
    run = await run_command("./guard", b"rm -rf /\n", cwd=workspace, timeout=30)
    assert (run.exit_code, run.stderr) == (2, "no: rm -rf /\n")
    missing = await run_command("./absent", b"", cwd=workspace, timeout=30)
    assert missing.exit_code == 127
    assert "absent" in missing.stderr


@pytest.mark.trio
async def test_a_hook_that_reads_nothing_of_a_big_payload_does_not_hang(
    workspace: Path,
) -> None:
    run = await run_command(f"{TRUE} x", b"y" * 1_000_000, cwd=workspace, timeout=5)
    assert (run.exit_code, run.timed_out) == (0, False)
    run = await run_command("exit 3", b"y" * 1_000_000, cwd=workspace, timeout=5)
    assert (run.exit_code, run.timed_out) == (3, False)


@pytest.mark.parametrize(
    ("command", "execs"),
    [
        ('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh', True),  # Claude Code's own form
        ("python3 $HOME/check.py --strict", True),
        ("'./my hook.sh' a", True),
        ("exit 0", False),
        ('"echo" hi', False),  # a quoted builtin is still the builtin
        ("[ -f x ]", False),
        ("FOO=1 ./x.sh", False),
        ("./x.sh; ./y.sh", False),
        ("./x.sh && ./y.sh", False),
        ("./x.sh | jq .", False),
        ("jq -r '.a | .b'", False),  # a quoted | too: never wrong, only one process more
        ("./x.sh > out", False),
        ("(./x.sh)", False),
        ("{ ./x.sh; }", False),
        ("./x.sh $(cat y)", False),
        ("./x.sh\n./y.sh", False),
        ("! ./x.sh", False),
        ("", False),
    ],
)
def test_a_single_simple_command_replaces_the_shell(command: str, execs: bool) -> None:
    from harness.hooks._argv import shell_argv

    want = "exec " + command if execs else command
    assert shell_argv(command) == ["/bin/sh", "-c", want]


@pytest.mark.trio
async def test_an_execd_command_means_what_it_meant(workspace: Path) -> None:
    hooks = workspace / "my hooks"
    hooks.mkdir()
    (hooks / "guard").write_text('read line; echo "no: $1 $line" >&2; exit 2\n')  # no #!
    (hooks / "guard").chmod(0o755)
    env = {"PATH": PATH, "CLAUDE_PROJECT_DIR": str(workspace)}
    run = await run_command(
        '"$CLAUDE_PROJECT_DIR/my hooks/guard" "$CLAUDE_PROJECT_DIR"',
        b"rm -rf /\n",
        cwd=workspace,
        timeout=30,
        env=env,
    )
    assert (run.exit_code, run.stderr) == (2, f"no: {workspace} rm -rf /\n")
    missing = await run_command(
        '"$CLAUDE_PROJECT_DIR"/absent', b"", cwd=workspace, timeout=30, env=env
    )
    assert missing.exit_code == 127
