"""The options the terminal opens its session with, from the command line."""

import io
from pathlib import Path

from rich.console import Console

from harness.cli._parser import build_parser
from harness.cli.tui._app import App
from harness.cli.tui._model_choice import session_options


def app_for(argv: list[str], tmp_path: Path) -> App:
    console = Console(file=io.StringIO(), width=80, color_system=None, _environ={})
    args = build_parser().parse_args(argv)
    return App(args, console=console, environ={}, workspace=tmp_path, home=tmp_path)


def test_every_session_flag_of_the_command_line_reaches_the_session(tmp_path: Path) -> None:
    app = app_for(
        [
            "--temperature",
            "0.3",
            "--seed",
            "7",
            "--permission-mode",
            "plan",
            "--max-turns",
            "9",
            "--tool-protocol",
            "text",
            "--allow",
            "run_cmd(make test)",
            "--sandbox",
            "workspace-write",
            "--strict-writes",
            "--no-workspace-map",
        ],
        tmp_path,
    )
    app.ctx.choice.provider, app.ctx.choice.model = "openai", "gpt-4o-mini"
    opts = session_options(app.ctx, app.args)
    assert (opts.temperature, opts.seed) == (0.3, 7)
    assert (opts.permission_mode, opts.max_turns, opts.tool_protocol) == ("plan", 9, "text")
    assert opts.allow == ("run_cmd(make test)",)
    assert opts.sandbox == "workspace-write"
    assert opts.strict_writes is True
    assert opts.workspace_map is False
    assert (opts.provider, opts.models) == ("openai", ("gpt-4o-mini",))


def test_without_the_flags_the_provider_chooses(tmp_path: Path) -> None:
    app = app_for([], tmp_path)
    opts = session_options(app.ctx, app.args)
    assert (opts.temperature, opts.seed) == (None, None)
    assert opts.strict_writes is None  # the provider's rule
    assert opts.workspace_map is None
    app = app_for(["--no-strict-writes"], tmp_path)
    assert session_options(app.ctx, app.args).strict_writes is False
    assert opts.permission_mode == "ask"
