"""The commands' handlers, and the keys routed while no prompt is open."""

import argparse
import io
import os
import termios
import threading
from pathlib import Path

import pytest
import trio
import trio.testing
from rich.console import Console

from harness.cli.tui._app import App, ExitApp
from harness.cli.tui._commands import CommandError
from harness.cli.tui._dispatch import COMMANDS, SOURCES, dispatch
from harness.cli.tui._runkeys import RunKeys

parse_command = COMMANDS.parse


def test_every_list_a_command_completes_to_is_one_the_terminal_has() -> None:
    named = {w for c in COMMANDS for place in c.complete for w in place if w.startswith("@")}
    assert named
    assert named <= set(SOURCES)


def test_a_command_declared_twice_is_refused() -> None:
    import types

    from harness.cli.tui._commands import CommandSet, command

    async def handler(ctx: object, p: object) -> None:
        pass

    twice = types.ModuleType("twice")
    twice.a = command("same", "", "one")(handler)  # type: ignore[attr-defined,arg-type]
    twice.b = command("other", "", "two", aliases=("same",))(handler)  # type: ignore[attr-defined,arg-type]
    with pytest.raises(ValueError, match="/same is declared twice"):
        CommandSet(twice)


@pytest.fixture
def app(tmp_path: Path) -> App:
    console = Console(file=io.StringIO(), width=80, color_system=None, _environ={})
    return App(argparse.Namespace(), console=console, environ={}, workspace=tmp_path, home=tmp_path)


def printed(app: App) -> str:
    return app.console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


async def test_commands_that_need_no_session(app: App) -> None:
    await dispatch(app.ctx, parse_command("/think on"))
    assert app.ctx.show_thinking is True
    await dispatch(app.ctx, parse_command("/think"))
    assert app.ctx.show_thinking is False
    assert printed(app) == "thinking shown (dimmed)\nthinking hidden\n"
    with pytest.raises(CommandError, match="no tool output"):
        await dispatch(app.ctx, parse_command("/expand"))
    # the exception /exit raises is the one the app's loop ends on
    with pytest.raises(ExitApp):
        await dispatch(app.ctx, parse_command("/q"))


class Run:
    """What the keys did to the run: cancels and posted lines (``None``: no run)."""

    def __init__(self, running: bool) -> None:
        self.running = running
        self.cancels = 0
        self.posted: list[str] = []

    def cancel(self) -> None:
        self.cancels += 1

    def post(self, line: str) -> bool:
        if self.running:
            self.posted.append(line)
        return self.running


def keys_for(run: Run, fd: int | None = None) -> tuple[RunKeys, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None, _environ={})
    return RunKeys(console, cancel=run.cancel, post=run.post, fd=fd), out


def type_keys(keys: RunKeys, text: str) -> None:
    for ch in text:
        keys.on_key("enter" if ch == "\r" else "backspace" if ch == "\b" else ch)


def test_a_line_typed_during_a_run_joins_it_and_a_command_waits() -> None:
    run = Run(running=True)
    keys, out = keys_for(run)
    type_keys(keys, "also testx\b\r/status\r  \rnext")
    keys.on_key("esc")
    keys.on_key("c-c")
    assert run.posted == ["also test"]
    assert keys.queued == ["/status"]
    assert keys.typeahead == "next"  # prefills the next prompt
    assert run.cancels == 2
    assert out.getvalue().splitlines() == [
        "  ↳ added to the running task: also test",
        "  ↳ after this answer: /status",
    ]


def test_a_line_with_no_run_to_join_waits_for_the_prompt() -> None:
    run = Run(running=False)
    keys, _ = keys_for(run)
    type_keys(keys, "hello\r")
    assert keys.queued == ["hello"]
    assert run.posted == []


async def test_keys_still_on_their_way_are_acted_on_before_the_next_prompt() -> None:
    # The reader thread hands each key over with run_sync_soon; when a run ends
    # right after a line was typed, its keys may not have been acted on yet.
    run = Run(running=False)
    keys, _ = keys_for(run)
    deliver = keys._deliver(trio.lowlevel.current_trio_token())
    reader = threading.Thread(target=lambda: [deliver(k) for k in [*"/status", "enter"]])
    reader.start()
    reader.join()
    assert keys.queued == []  # handed over, not yet acted on
    await keys.settled()
    assert keys.queued == ["/status"]
    assert keys.typeahead == ""


async def test_an_approval_takes_every_key_and_gives_the_terminal_back() -> None:
    master, slave = os.openpty()
    try:
        before = termios.tcgetattr(slave)
        run = Run(running=False)
        keys, _ = keys_for(run, fd=slave)
        decision = ""

        async def ask() -> None:
            nonlocal decision
            decision = await keys.decision()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            await trio.testing.wait_all_tasks_blocked()
            # no run reads the keys: the approval reads them itself, in raw mode
            assert termios.tcgetattr(slave)[3] & termios.ICANON == 0
            os.write(master, b"x\x1b[Aa")  # not an answer, an arrow key, then always
        assert decision == "always"
        assert run.cancels == 0
        assert keys.typeahead == ""
        # line mode and echo are back; an Enter stays a carriage return until the
        # next prompt takes the keys (the terminal restores the rest on exit)
        after = termios.tcgetattr(slave)
        assert after[3] == before[3]
        assert after[0] == before[0] & ~termios.ICRNL
    finally:
        os.close(master)
        os.close(slave)


def test_an_enter_typed_as_a_run_ends_reaches_the_prompt_as_enter() -> None:
    # Between the run's key reader stopping and the next prompt taking the keys,
    # an Enter must stay a carriage return: as a line feed the prompt reads it as
    # Ctrl+J and adds a line instead of sending it.
    from harness.cli.tui._keys import KeyReader

    master, slave = os.openpty()
    try:
        reader = KeyReader(lambda key: None, fd=slave)
        reader.start()
        reader.stop()
        os.write(master, b"/connect x\r")  # typed in the gap
        mode = termios.tcgetattr(slave)  # the prompt switches to raw mode
        mode[3] &= ~termios.ICANON
        termios.tcsetattr(slave, termios.TCSANOW, mode)
        assert os.read(slave, 100) == b"/connect x\r"
    finally:
        os.close(master)
        os.close(slave)
