"""The session pool with real ptys and real processes: prompts, timeouts, trees."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest
import trio
import trio.testing

from harness.actors.shell._clean import default_fallback_encoding
from harness.actors.shell._pool import SessionPool

from .conftest import gone, py

Pools = Callable[..., SessionPool]

TWO_QUESTIONS = py(
    "name = input('Your name? ')\nage = input('Your age? ')\nprint(f'Hello {name}, {age}')\n"
)


async def test_two_questions_played_through_with_send_input(make_pool: Pools) -> None:
    pool = make_pool()
    first = await pool.run_cmd(TWO_QUESTIONS)
    assert first.ok
    assert first.data["status"] == "waiting"
    sid = first.data["session"]
    assert first.output.startswith("Your name? \n")
    assert f"send_input(session={sid!r}" in first.output
    second = await pool.send_input(sid, "Alice")
    assert second.data["status"] == "waiting"
    assert second.output.startswith("Alice\nYour age? \n")
    third = await pool.send_input(sid, "42")
    assert third.data["status"] == "exited"
    assert third.output == "42\nHello Alice, 42\n[exit code 0]"
    assert pool.live() == []


async def test_stdin_answers_one_per_prompt(make_pool: Pools) -> None:
    pool = make_pool()
    out = await pool.run_cmd(TWO_QUESTIONS, stdin="Bob\n7")
    assert out.data["status"] == "exited", out.output
    assert "Your name? Bob\nYour age? 7\nHello Bob, 7\n" in out.output


async def test_sleep_is_waited_out_not_taken_for_a_prompt(make_pool: Pools) -> None:
    # a fallback grace shorter than the sleep: a sleep /proc could not judge would be
    # taken for a prompt by the fallback, and fail here
    pool = make_pool(fallback_grace=0.5)
    start = trio.current_time()
    out = await pool.run_cmd("echo start; sleep 1.2; echo woke")
    assert out.data["status"] == "exited"
    assert out.output == "start\nwoke\n[exit code 0]"
    assert trio.current_time() - start >= 1.1


async def test_busy_loop_runs_into_its_timeout(make_pool: Pools) -> None:
    pool = make_pool(kill_grace=0.2)
    out = await pool.run_cmd(py("print('spinning', flush=True)\nwhile True: pass"), timeout=1)
    assert not out.ok
    assert out.data["status"] == "timeout"
    assert out.output.startswith("spinning\n")
    assert "[timed out after 1 s" in out.output
    assert gone([out.data["pid"]]) == []


async def test_printing_forever_is_killed_and_capped(make_pool: Pools) -> None:
    pool = make_pool(head_chars=2000, tail_chars=2000, kill_grace=0.2)
    # half a second of this loop prints far more than the 4,000 characters kept
    out = await pool.run_cmd('i=0; while :; do i=$((i+1)); echo "line $i"; done', timeout=0.5)
    assert out.data["status"] == "timeout"
    assert out.data["cut_lines"] > 0
    assert out.output.startswith("line 1\nline 2\n")
    assert f"[... {out.data['cut_lines']} lines" in out.output
    assert len(out.output) < 4500
    assert gone([out.data["pid"]]) == []


async def test_timeout_kills_the_whole_tree_including_setsid_escapees(
    make_pool: Pools,
) -> None:
    pool = make_pool(kill_grace=0.2)
    command = (
        "sleep 1000 & echo bg=$!; "
        "sleep 1000 & echo bg=$!; "
        # A grandchild that leaves the session and is reparented at once.
        "(setsid sh -c 'echo esc=$$; exec sleep 1000' &); "
        "sleep 0.3; wait"
    )
    out = await pool.run_cmd(command, timeout=1.5)
    assert out.data["status"] == "timeout"
    pids = [int(line.split("=")[1]) for line in out.output.splitlines() if "=" in line]
    assert len(pids) == 3, out.output
    escapee = psutil.Process(pids[2]) if psutil.pid_exists(pids[2]) else None
    assert escapee is None or not escapee.is_running() or escapee.status() == "zombie"
    assert gone([*pids, out.data["pid"]]) == []


async def test_background_leftovers_are_stopped_when_the_command_exits(
    make_pool: Pools, workspace: Path
) -> None:
    pool = make_pool(kill_grace=0.2)
    # The ready file shows nohup ignores SIGHUP before bash exits (else the hangup of
    # the terminal could end it first, and there would be nothing left to stop).
    out = await pool.run_cmd(
        "nohup sh -c 'touch ready; exec sleep 1000' >/dev/null 2>&1 & "
        "while [ ! -e ready ]; do sleep 0.01; done; echo pid=$!",
        workspace=str(workspace),
    )
    assert out.data["status"] == "exited"
    assert "running in the background; they were stopped" in out.output
    pid = int(out.output.split("pid=")[1].split()[0])
    assert gone([pid]) == []


async def test_non_utf8_output_uses_the_fallback_encoding(make_pool: Pools) -> None:
    pool = make_pool(fallback_encoding="latin-1")
    out = await pool.run_cmd("printf 'caf\\xc3\\xa9 '; printf 'd\\xe9j\\xe0\\n'")
    assert out.output.startswith("café déjà\n")
    assert "not UTF-8; it was decoded as iso8859-1" in out.output
    default = make_pool()
    out = await default.run_cmd("printf 'x\\xe9y\\n'")
    assert out.output.startswith(b"x\xe9y".decode(default_fallback_encoding(), "replace"))


async def test_progress_bar_redraws_collapse(make_pool: Pools) -> None:
    pool = make_pool()
    code = (
        "import sys, time\n"
        "for i in range(0, 101, 10):\n"
        "    sys.stdout.write(f'\\rprogress {i:3d}%'); sys.stdout.flush(); time.sleep(0.01)\n"
        "print()\nprint('done')\n"
    )
    out = await pool.run_cmd(py(code))
    assert out.output == "progress 100%\ndone\n[exit code 0]"


async def test_escape_sequences_never_reach_the_output(make_pool: Pools) -> None:
    pool = make_pool()
    command = (
        "printf '\\033[2J\\033[H\\033]0;pwned\\007\\033[31mred\\033[0m\\n'; "
        "printf '\\033[6n\\033[?1049hplain\\033[?1049l\\n'; printf 'bell\\a\\n'"
    )
    out = await pool.run_cmd(command)
    assert out.output == "red\nplain\nbell\n[exit code 0]"


async def test_fallback_detector_forced_on(make_pool: Pools) -> None:
    pool = make_pool(detector="fallback", fallback_grace=0.5, kill_grace=0.2)
    first = await pool.run_cmd(TWO_QUESTIONS)
    assert first.data["status"] == "waiting"
    assert "it may be waiting for input" in first.output
    sid = first.data["session"]
    await pool.send_input(sid, "Eve")
    last = await pool.send_input(sid, "30")
    assert last.data["status"] == "exited"
    assert "Hello Eve, 30" in last.output
    busy = await pool.run_cmd(py("while True: pass"), timeout=1)
    assert busy.data["status"] == "timeout"
    # A pause the fallback takes for a prompt is resumed with an empty send_input.
    paused = await pool.run_cmd("echo before; sleep 1.5; echo after")
    assert paused.data["status"] == "waiting"
    for _ in range(10):
        resumed = await pool.send_input(paused.data["session"], "")
        if resumed.data["status"] != "waiting":
            break
    assert resumed.output == "after\n[exit code 0]"


async def test_oldest_idle_session_is_ended_to_make_room(make_pool: Pools) -> None:
    pool = make_pool(max_sessions=2, kill_grace=0.2)
    first = await pool.run_cmd(TWO_QUESTIONS)
    second = await pool.run_cmd(TWO_QUESTIONS)
    await pool.send_input(second.data["session"], "")  # second is now the most recent
    third = await pool.run_cmd(TWO_QUESTIONS)
    old = first.data["session"]
    assert f"session {old} (" in third.output
    assert "ended to make room: at most 2 commands may be live" in third.output
    assert pool.live() == [second.data["session"], third.data["session"]]
    assert gone([first.data["pid"]]) == []
    again = await pool.send_input(old, "x")
    assert not again.ok
    assert f"session {old} has already ended" in again.output


async def test_end_process_stops_the_tree(make_pool: Pools) -> None:
    pool = make_pool(kill_grace=0.2)
    out = await pool.run_cmd("sleep 1000 & echo child=$!; read answer")
    assert out.data["status"] == "waiting"
    child = int(out.output.split("child=")[1].split()[0])
    ended = await pool.end_process(out.data["session"])
    assert ended.data["status"] == "ended"
    assert gone([child, out.data["pid"]]) == []
    assert pool.live() == []


async def test_a_prompt_on_dev_tty_is_a_prompt(make_pool: Pools) -> None:
    pool = make_pool()
    code = (
        "import os\n"
        "tty = os.open('/dev/tty', os.O_RDWR)\n"
        "os.write(tty, b'Password: ')\n"
        "os.write(tty, b'got ' + os.read(tty, 100))\n"
    )
    out = await pool.run_cmd(py(code) + " </dev/null >/dev/null 2>&1")
    assert out.data["status"] == "waiting"
    assert out.output.startswith("Password: ")
    done = await pool.send_input(out.data["session"], "hunter2")
    assert done.data["status"] == "exited"
    assert "got hunter2" in done.output


async def test_cancelling_the_call_kills_the_command(make_pool: Pools) -> None:
    pool = make_pool(kill_grace=0.2)
    pids: dict[str, int] = {}
    async with trio.open_nursery() as nursery:

        async def call() -> None:
            await pool.run_cmd("sleep 1000")

        nursery.start_soon(call)
        while not pids:
            await trio.sleep(0.05)
            pids = pool.session_pids()
        nursery.cancel_scope.cancel()
    assert gone(list(pids.values())) == []
    assert pool.live() == []


async def test_shutdown_ends_every_session(make_pool: Pools) -> None:
    pool = make_pool(kill_grace=0.2)
    a = await pool.run_cmd(TWO_QUESTIONS)
    b = await pool.run_cmd("sleep 1000 & read x")
    await pool.shutdown()
    assert gone([a.data["pid"], b.data["pid"]]) == []
    assert pool.live() == []


async def test_commands_see_no_secrets(make_pool: Pools) -> None:
    pool = make_pool(environ={"OPENAI_API_KEY": "sk-test-123", "VISIBLE_SETTING": "yes"})
    out = await pool.run_cmd("env")
    assert "sk-test-123" not in out.output
    assert "VISIBLE_SETTING=yes" in out.output
    assert "HARNESS_SHELL_SESSION=" in out.output


async def test_cwd_inside_the_workspace_only(make_pool: Pools, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    expected = str((workspace / "sub").resolve()) + "\n"
    pool = make_pool()
    out = await pool.run_cmd("pwd", cwd="sub", workspace=str(workspace))
    assert out.output.startswith(expected)
    bad = await pool.run_cmd("pwd", cwd="../..", workspace=str(workspace))
    assert not bad.ok
    assert "outside the workspace" in bad.output
    missing = await pool.run_cmd("pwd", cwd="nope", workspace=str(workspace))
    assert "not a folder" in missing.output


async def test_exit_codes_and_unknown_sessions(make_pool: Pools) -> None:
    pool = make_pool()
    out = await pool.run_cmd("echo oops >&2; exit 3")
    assert out.ok
    assert out.output == "oops\n[exit code 3]"
    assert out.data["exit_code"] == 3
    lost = await pool.send_input("s999", "hello")
    assert not lost.ok
    assert "lost when the shell worker restarted" in lost.output
    assert not (await pool.run_cmd("  ")).ok


@pytest.mark.parametrize("spawner", ["auto", "setsid", "pexpect"])
async def test_both_spawners(make_pool: Pools, spawner: str) -> None:
    pool = make_pool(spawner=spawner)
    first = await pool.run_cmd(TWO_QUESTIONS)
    assert first.data["status"] == "waiting"
    sid = first.data["session"]
    await pool.send_input(sid, "Ann")
    last = await pool.send_input(sid, "5")
    assert last.output.endswith("Hello Ann, 5\n[exit code 0]")
    out = await pool.run_cmd("exit 4")
    assert out.data["exit_code"] == 4


@pytest.mark.parametrize("spawner", ["auto", "setsid", "pexpect"])
async def test_every_spawner_starts_a_session_leader_on_its_own_terminal(
    make_pool: Pools, workspace: Path, spawner: str
) -> None:
    (workspace / "sub").mkdir()
    pool = make_pool(spawner=spawner)
    here = os.getcwd()
    leaked_r, leaked_w = os.pipe()
    os.set_inheritable(leaked_w, True)  # as the worker's channel to its parent is
    try:
        out = await pool.run_cmd(
            "read -a f < /proc/$$/stat; echo pid=$$ sid=${f[5]} fg=${f[7]}; "
            f"[ -e /proc/$$/fd/{leaked_w} ] && echo leaked; "
            "exec 3</dev/tty && echo tty-ok; pwd; "
            "yes | head -n 1; echo pipe=${PIPESTATUS[0]}",
            cwd="sub",
            workspace=str(workspace),
        )
    finally:
        os.close(leaked_r)
        os.close(leaked_w)
    assert os.getcwd() == here
    assert out.data["status"] == "exited", out.output
    pid = out.data["pid"]
    lines = out.output.splitlines()
    # bwrap-free leader: its own session, and the terminal's foreground group.
    assert lines[0] == f"pid={pid} sid={pid} fg={pid}"
    assert lines[1:5] == ["tty-ok", str((workspace / "sub").resolve()), "y", "pipe=141"]
    assert "leaked" not in out.output


async def test_typing_into_a_full_terminal_does_not_hold_up_other_calls(
    make_pool: Pools,
) -> None:
    # Raw mode, one byte read, then no more reading: the terminal fills up (~17 KiB)
    # and stays full, so the rest of the answer waits; other calls must go on.
    code = (
        "import sys, termios, time\n"
        "attrs = termios.tcgetattr(0)\n"
        "attrs[3] &= ~(termios.ICANON | termios.ECHO)\n"
        "termios.tcsetattr(0, termios.TCSANOW, attrs)\n"
        "sys.stdin.buffer.raw.read(1)\n"
        "time.sleep(1000)\n"
    )
    pool = make_pool(kill_grace=0.2)
    first = await pool.run_cmd(py(code))
    assert first.data["status"] == "waiting", first.output
    finished: list[str] = []
    async with trio.open_nursery() as nursery:

        async def type_in() -> None:
            await pool.send_input(first.data["session"], "x" * 200_000)
            finished.append("send_input")

        nursery.start_soon(type_in)
        await trio.testing.wait_all_tasks_blocked()
        other = await pool.run_cmd("echo other")
        finished.append("run_cmd")
        assert other.output == "other\n[exit code 0]"
        nursery.cancel_scope.cancel()
    assert finished == ["run_cmd"]


@pytest.mark.parametrize("spawner", ["auto", "pexpect"])
async def test_the_last_output_before_an_exit_is_all_there(make_pool: Pools, spawner: str) -> None:
    # A burst printed just before exiting may still be in the pty's buffers when the
    # exit is seen; every byte of it must be read before the call returns.
    pool = make_pool(head_chars=100, tail_chars=100, spawner=spawner)
    for _ in range(3):
        out = await pool.run_cmd("seq 1 20000; printf 'the end'")
        assert out.data["status"] == "exited"
        assert out.output.endswith("19999\n20000\nthe end\n[exit code 0]"), out.output[-200:]
        assert out.data["cut_lines"] > 0 or out.data["cut_chars"] > 0
