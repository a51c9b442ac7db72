"""The command table and its handlers."""

import argparse
import io
from pathlib import Path

import pytest
from rich.console import Console

from harness.cli.tui._app import App, ExitApp
from harness.cli.tui._commands import COMMANDS, CommandError, parse_command
from harness.cli.tui._dispatch import HANDLERS, dispatch


def test_every_command_in_the_table_has_a_handler() -> None:
    assert sorted(HANDLERS) == sorted(c.name for c in COMMANDS)


@pytest.fixture
def app(tmp_path: Path) -> App:
    console = Console(file=io.StringIO(), width=80, color_system=None, _environ={})
    return App(argparse.Namespace(), console=console, environ={}, workspace=tmp_path, home=tmp_path)


def printed(app: App) -> str:
    return app.console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


async def test_commands_that_need_no_session(app: App) -> None:
    await dispatch(app, parse_command("/think on"))
    assert app.show_thinking is True
    await dispatch(app, parse_command("/think"))
    assert app.show_thinking is False
    assert printed(app) == "thinking shown (dimmed)\nthinking hidden\n"
    with pytest.raises(CommandError, match="no tool output"):
        await dispatch(app, parse_command("/expand"))
    # the exception /exit raises is the one the app's loop ends on
    with pytest.raises(ExitApp):
        await dispatch(app, parse_command("/q"))
