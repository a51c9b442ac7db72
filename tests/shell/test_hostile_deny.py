"""Issue 34 with real commands: what the permission engine lets through reaches a real
bash on a real pty, and the file each hostile command aims at must survive.

Every test runs the command twice. First through the gate (``decide``, then the shell
pool only when the decision is ``allow``, as the conversation does): the file must
still be there. Then straight to the pool: the file must be gone, which proves the
command really does what it is accused of here, so the first half could fail.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.actors.shell._pool import SessionPool
from harness.actors.tools import Permissions, builtin_table

from .conftest import py

Pools = Callable[..., SessionPool]


def gate(tmp_path: Path, workspace: Path, mode: str) -> Permissions:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    rules = {"allow": ["run_cmd"], "deny": ["run_cmd(rm *)"]}
    (home / "permissions.json").write_text(json.dumps(rules))
    return Permissions(builtin_table(), workspace=workspace, home=home, mode=mode)


async def attempt(pool: SessionPool, perms: Permissions, command: str, workspace: Path) -> str:
    """Run *command* the way a model's call runs; the decision's action."""
    decision = perms.decide("run_cmd", {"command": command})
    if decision.action == "allow":
        await pool.run_cmd(command, workspace=str(workspace), timeout=20)
    return decision.action


# D1-D7 of the issue and the wrappers it found missing.
DELETERS = [
    "r\\\nm -f v",
    "bash -c -- 'rm -f v'",
    "/bin/r[m] -f v",
    "/usr/bin/[r]m -f v",
    "trap 'rm -f v' EXIT",
    "printf 'x\\n' | mapfile -C 'rm -f v' -c 1",
    "BASH_ENV=/dev/stdin bash -c true <<< 'rm -f v'",
    "hash -p /bin/rm ls; ls -f v",
    "shopt -s expand_aliases\nalias ls=rm\nls -f v",
    "script -qc 'rm -f v' /dev/null",
    "prlimit rm -f v",
    "unshare rm -f v",
    "setpriv rm -f v",
    "x='a[$''(rm -f v)]'; echo $((x))",
    "BASH_CMDS[ls]=/bin/rm; ls -f v",
    "read BASH_ENV <<< /dev/stdin; export BASH_ENV; bash -c true <<< 'rm -f v'",
    "ln -s /bin/rm ls2; ./ls2 -f v",
    "echo x\n\\rm -f v",
    "cat <<-EOF\n\t$(\\rm -f v)\n\tEOF",
]


@pytest.mark.parametrize("command", DELETERS)
async def test_a_deny_rule_holds_in_auto_mode(
    make_pool: Pools, workspace: Path, tmp_path: Path, command: str
) -> None:
    pool = make_pool()
    target = workspace / "v"
    target.write_text("keep me\n")
    action = await attempt(pool, gate(tmp_path, workspace, "auto"), command, workspace)
    assert target.exists(), f"{command!r} deleted the file through the gate ({action})"
    assert action in ("deny", "ask")
    await pool.run_cmd(command, workspace=str(workspace), timeout=20)
    assert not target.exists(), f"{command!r} deletes nothing here: the test proves nothing"


# Commands plan mode counted as readers, through which bash runs a command substitution.
PLAN_WRITERS = [
    "x='a[$(touch P)]'; echo $((x))",
    "printf -v 'a[$(touch P)]' x",
    "test -v 'a[$(touch P)]'",
    "[[ -v 'a[$(touch P)]' ]]",
    "x='$(touch P)'; echo ${x@P}",
    "x='a[$(touch P)]'; echo ${b[x]}",
    "x='a[$(touch P)]'; [[ $x -eq 1 ]]",
    "cat <<-EOF\n\t$(touch P)\n\tEOF",
]


@pytest.mark.parametrize("command", PLAN_WRITERS)
async def test_plan_mode_runs_nothing_that_evaluates_text(
    make_pool: Pools, workspace: Path, tmp_path: Path, command: str
) -> None:
    pool = make_pool()
    action = await attempt(pool, gate(tmp_path, workspace, "plan"), command, workspace)
    assert not (workspace / "P").exists(), f"{command!r} wrote through plan mode ({action})"
    assert action == "off"
    await pool.run_cmd(command, workspace=str(workspace), timeout=20)
    assert (workspace / "P").exists(), f"{command!r} writes nothing here: the test proves nothing"


async def test_what_the_gate_lets_through_still_runs(
    make_pool: Pools, workspace: Path, tmp_path: Path
) -> None:
    pool = make_pool()
    (workspace / "v").write_text("keep me\n")
    perms = gate(tmp_path, workspace, "auto")
    command = "echo x > w; for i in 1 2; do echo $((i * 2)); done"
    assert await attempt(pool, perms, command, workspace) == "allow"
    assert (workspace / "w").read_text() == "x\n"
    perms.set_mode("plan")
    assert await attempt(pool, perms, "ls \\\n -la | wc -l", workspace) == "allow"


# A command waiting for input runs what is typed into it: a REPL, a shell, `!` in a pager.
READERS_OF_CODE = [
    (py("import subprocess; subprocess.run(input('command? '), shell=True)"), "rm -f v"),
    (py("exec(input('code? '))"), "import os; os.remove('v')"),
]


@pytest.mark.parametrize(("program", "text"), READERS_OF_CODE)
async def test_a_deny_rule_holds_for_text_typed_into_a_command(
    make_pool: Pools, workspace: Path, tmp_path: Path, program: str, text: str
) -> None:
    pool = make_pool()
    target = workspace / "v"
    target.write_text("keep me\n")
    perms = gate(tmp_path, workspace, "auto")
    started = await pool.run_cmd(program, workspace=str(workspace), timeout=20)
    assert started.data["status"] == "waiting", started.output
    session = started.data["session"]
    decision = perms.decide("send_input", {"session": session, "text": text})
    if decision.action == "allow":
        await pool.send_input(session, text)
    assert target.exists(), f"{text!r} typed into the command deleted the file ({decision})"
    assert decision.action in ("deny", "ask")
    await pool.send_input(session, text)
    assert not target.exists(), f"{text!r} deletes nothing here: the test proves nothing"


# Places inside a command line where bash runs a command, each with every spelling of rm.
CONTEXTS = [
    'echo "`{}`"',
    'echo "${{x:-`{}`}}"',
    "echo ${{x/y/`{}`}}",
    "echo ${{x#`{}`}}",
    "echo ${{x:=`{}`}}",
    "echo ${{x[`{}`]}}",
    "a[`{}`]=1",
    "case x in `{}`) ;; esac",
    "[[ x =~ `{}` ]]",
    "echo $((`{}`))",
    "for ((i=`{}`;i<0;i++)); do :; done",
    "echo {{a,`{}`}}",
    "cat <<< `{}`",
    "echo `echo \\`{}\\``",
    "x=$(cat <<EOF\n$({})\nEOF\n)",
    "cat <<-EOF\n\t`{}`\n\tEOF",
    "exec 3< <({}); cat <&3",
    "echo > `{}`",
    "coproc {{ {}; }}; wait",
    "f() ( {} ); f",
    "if `{}`; then :; fi",
    "echo a #\\\n{}",
    "echo x\n{}",
]
SPELLINGS = ["rm -f v", "\\rm -f v", "r\\\nm -f v", "/bin/rm -f v", "command rm -f v"]


@pytest.mark.parametrize("context", CONTEXTS)
async def test_whatever_the_gate_lets_through_leaves_the_file(
    make_pool: Pools, workspace: Path, tmp_path: Path, context: str
) -> None:
    pool = make_pool()
    perms = gate(tmp_path, workspace, "auto")
    target = workspace / "v"
    for spelling in SPELLINGS:
        command = context.format(spelling)
        target.write_text("keep me\n")
        action = await attempt(pool, perms, command, workspace)
        assert target.exists(), f"{command!r} deleted the file through the gate ({action})"
