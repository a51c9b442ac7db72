"""Running a command kept as a file, the same way in the terminal and headless.

:func:`prepare` turns a typed ``/name args`` into the prompt the model is sent: the
``!`` lines run through the open session (its permission rules and approval prompt)
and :func:`harness.custom.expand_command` puts everything in. The frontends then
send that prompt as the user's message, inside :func:`command_settings`: the command's
``model`` asked first and its ``allowed-tools`` the only tools the model may use, until
the prompt's run ends.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from harness.custom import (
    CLAUDE_MODEL_ALIASES,
    Commands,
    Expansion,
    FileCommand,
    expand_command,
    load_commands,
)

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator

    from harness.conversation import Session

__all__ = [
    "Prepared",
    "command_model",
    "command_settings",
    "command_tools",
    "expand_line",
    "find_file_command",
    "prepare",
]


@attrs.frozen
class Prepared:
    """A typed file command, ready to send.

    Attributes:
        command: the file command.
        expansion: its prompt and what went into it.
        lines: what the user should be told first, one line each.
    """

    command: FileCommand
    expansion: Expansion
    lines: tuple[str, ...]


def find_file_command(
    line: str, workspace: Path, home: Path, reserved: Collection[str]
) -> tuple[FileCommand | None, str, Commands]:
    """The file command *line* (``/name args``) names, the arguments, and every file
    command loaded (for their problems); ``None`` when it names none."""
    commands = load_commands(workspace, home, reserved=reserved)
    name, _, rest = line.strip()[1:].partition(" ")
    return commands.get(name), rest.strip(), commands


async def prepare(session: Session, command: FileCommand, args: str) -> Prepared:
    """*command* typed with *args*, its ``!`` lines run through *session*."""
    from harness.conversation import run_shell_line

    expansion = await expand_command(
        command, args, Path(session.workspace), functools.partial(run_shell_line, session)
    )
    lines: list[str] = []
    for line, why in expansion.refused:
        lines.append(f"!{line} was not run: {why}")
    lines += expansion.notes
    done: list[str] = []
    if expansion.ran:
        done.append(f"{len(expansion.ran)} command(s) run")
    if expansion.files:
        done.append("with " + ", ".join(f"@{f}" for f in expansion.files))
    summary = f"/{command.qualified} ({command.label})"
    lines.insert(0, summary + (": " + ", ".join(done) if done else ""))
    return Prepared(command, expansion, tuple(lines))


async def expand_line(
    session: Session, line: str, home: Path, reserved: Collection[str]
) -> tuple[str, tuple[str, ...], FileCommand | None]:
    """*line* as the model is sent it: a typed file command (``/name args``) expanded,
    anything else as it is; what the user should be told, one line each; the command."""
    head = line.strip()[1:].split(" ", 1)[0] if line.strip().startswith("/") else ""
    if not head or "/" in head:
        return line, (), None
    command, args, commands = find_file_command(line, Path(session.workspace), home, reserved)
    if command is None:
        return line, tuple(p for p in commands.problems if f"/{head} " in p), None
    prepared = await prepare(session, command, args)
    return prepared.expansion.prompt, prepared.lines, command


@contextlib.contextmanager
def command_model(
    session: Session, command: FileCommand | None, base_url: str | None
) -> Iterator[str]:
    """While the block runs, *session* asks *command*'s ``model`` first (its own models
    after it, to fail over to), and its own again afterwards; yields what the user should
    be told (``""``: nothing). A Claude Code alias (``sonnet``) names no model: the
    session's answers."""
    model = command.model if command is not None else None
    if not model or model.lower() in CLAUDE_MODEL_ALIASES:
        yield (
            f"model {model!r} is a Claude Code alias: the session's model answers" if model else ""
        )
        return
    provider, models = session.provider, session.models
    session.set_model(provider, (model, *(m for m in models if m != model)), base_url)
    try:
        yield f"model {model} answers this prompt"
    finally:
        session.set_model(provider, models, base_url)


@contextlib.contextmanager
def command_tools(session: Session, command: FileCommand | None) -> Iterator[str]:
    """While the block runs, *session*'s model may use only *command*'s ``allowed-tools``
    (Claude Code's names read as harness's; a call to another tool is refused); yields
    what the user should be told (``""``: the command sets no limit)."""
    if command is None or not command.allowed_tools:
        yield ""
        return
    from harness.actors.tools import builtin_table
    from harness.conversation import tools_limited
    from harness.custom import map_tools

    tools, notes = map_tools(list(command.allowed_tools), builtin_table().names())
    said = f"tools limited to {', '.join(tools) or 'none'} (allowed-tools)"
    with tools_limited(session, tools, f"/{command.qualified}'s allowed-tools"):
        yield "; ".join([said, *notes])


@contextlib.contextmanager
def command_settings(
    session: Session, command: FileCommand | None, base_url: str | None
) -> Iterator[list[str]]:
    """:func:`command_model` and :func:`command_tools` together; yields their notes."""
    with (
        command_model(session, command, base_url) as model,
        command_tools(session, command) as tools,
    ):
        yield [note for note in (model, tools) if note]
