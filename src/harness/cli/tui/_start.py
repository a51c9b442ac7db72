"""Start-up: the prompt is on the screen before trio, rich and the session are imported.

The first prompt runs on its own thread as soon as prompt_toolkit is loaded; the
main thread then imports the rest and starts the app, which takes the first
line from that thread. What the user sees first costs Python, prompt_toolkit and
this package's light modules, nothing more.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from harness._version import __version__
from harness.home import harness_home

if TYPE_CHECKING:
    from harness.cli.tui._app import App

__all__ = ["ask_trust", "run_app"]


class Holder:
    """Late binding: the completer and the toolbar exist before the app does."""

    app: App | None = None

    def sources(self) -> dict[str, Callable[[], list[str]]]:
        from harness.cli.tui._dispatch import SOURCES, completion_sources

        def late(name: str) -> Callable[[], list[str]]:
            def call() -> list[str]:
                if self.app is None:
                    return []
                return list(completion_sources(self.app.ctx)[name]())

            return call

        return {n: late(n) for n in SOURCES}

    def toolbar(self) -> str:
        return self.app.toolbar() if self.app is not None else " starting… · /help"


def run_app(args: argparse.Namespace) -> int:
    """Run the interactive terminal on this process's terminal; the exit status."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        sys.stderr.write("harness: the interactive terminal needs a terminal; use -p TASK\n")
        return 2
    import termios

    # What the terminal was: the key reader leaves carriage returns untranslated
    # between prompts (see KeyReader.stop), and this puts everything back.
    original = termios.tcgetattr(sys.stdin.fileno())
    try:
        return _run(args)
    finally:
        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, original)


# harness.trust.PROJECT_FILES, named here so that a workspace without any of them imports
# nothing (tests/tui/test_hooks_command.py checks the two agree)
_PROJECT_FILES = (
    ".mcp.json",
    ".permissions.json",
    ".harness/settings.json",
    ".harness/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
)


def ask_trust(workspace: Path, home: Path) -> bool:
    """Ask once, before any MCP server starts, whether to trust the workspace's own
    configuration that is not trusted yet (see :mod:`harness.trust`); the answer. Trust
    keeps the approval of the content shown; not now leaves it inert for this session.
    Nothing is asked (and nothing imported) when there is nothing to trust."""
    if not any(os.path.exists(workspace / n) for n in _PROJECT_FILES):
        return True
    from harness.terminal import SafeWriter
    from harness.trust import TrustStore, describe, project_files

    store = TrustStore(home)
    files = store.untrusted(workspace, project_files(workspace))
    if not files:
        return True
    out = SafeWriter(sys.stdout)
    out.write(
        "\nThis workspace has configuration of its own that can run programs or let tools "
        "run without asking:\n"
    )
    for line in describe(files):
        out.write(f"  {line}\n")
    out.write("Trust it? [t]rust / [n]ot now: ")
    sys.stdout.flush()
    try:
        answer = sys.stdin.readline()
    except (OSError, KeyboardInterrupt):
        answer = ""
    if answer.strip().lower() in ("t", "trust", "y", "yes"):
        store.approve(workspace, files)
        out.write("trusted as it is now (a change asks again; harness trust --revoke undoes it)\n")
        sys.stdout.flush()
        return True
    out.write(
        "not trusted: its servers do not start and its allow rules do not apply in this "
        "session (harness trust to review it later).\n"
    )
    sys.stdout.flush()
    return False


def _run(args: argparse.Namespace) -> int:
    from prompt_toolkit.patch_stdout import patch_stdout

    from harness.cli.tui._completion import HarnessCompleter
    from harness.cli.tui._dispatch import COMMANDS
    from harness.cli.tui._input import FirstLine, build_prompt_session

    workspace = Path(getattr(args, "workspace", None) or os.getcwd()).resolve()
    home = harness_home()
    sys.stdout.write(
        f"\x1b[1;36mharness\x1b[0;36m {__version__}\x1b[0m  \x1b[2m{workspace}\x1b[0m\n"
    )
    sys.stdout.flush()
    if not getattr(args, "trust_project", False):
        ask_trust(workspace, home)
    holder = Holder()
    completer = HarnessCompleter(workspace, COMMANDS, holder.sources())
    session = build_prompt_session(
        history_path=home / "history",
        completer=completer,
        toolbar=holder.toolbar,
    )
    drawn = threading.Event()
    first = FirstLine()
    patched = patch_stdout(raw=True)
    patched.__enter__()

    def prompt_first() -> None:
        try:
            first.set(session.prompt(pre_run=drawn.set))
        except BaseException as exc:  # EOFError, KeyboardInterrupt: the app handles them
            first.set(error=exc)

    threading.Thread(target=prompt_first, name="harness-first-prompt", daemon=True).start()

    import trio

    from harness.cli.tui._app import App

    app = App(args, workspace=workspace, home=home)
    app.adopt_prompt(session, first, drawn, patched)
    holder.app = app
    completer.commands = app.commands  # the file commands too, once the app has read them
    try:
        return trio.run(app.main)
    except KeyboardInterrupt:
        return 130
