"""The slash commands: their table, parsing, and a suggestion for unknown ones.

The table is data: ``/help``, the completer and the dispatcher all read it. What
each command *does* lives in the ``_cmd_*`` modules, and which handler runs which
command in :mod:`harness.cli.tui._dispatch`.
"""

from __future__ import annotations

import shlex
from typing import NamedTuple

from harness.errors import HarnessError

__all__ = [
    "COMMANDS",
    "Command",
    "CommandError",
    "ExitApp",
    "ParsedCommand",
    "help_rows",
    "parse_command",
]

#: what ``/connect`` accepts


class CommandError(HarnessError, ValueError):
    """A slash command line that cannot be run; the message is for the user."""


class ExitApp(Exception):
    """Raised by ``/exit``."""


class Command(NamedTuple):
    """One slash command.

    Attributes:
        name: without the slash.
        usage: the argument synopsis shown by ``/help``.
        help: one line on what it does.
        args: what the first argument completes to: a fixed tuple of words, or the
            name of a dynamic source (``"@models"``, ``"@sessions"``, ``"@skills"``,
            ``"@providers"``, ``"@mcp"``).
        aliases: other names that run it.
    """

    name: str
    usage: str
    help: str
    args: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


_ONOFF = ("on", "off")

COMMANDS: tuple[Command, ...] = (
    Command("help", "[command]", "list the commands, or explain one", ("@commands",)),
    Command(
        "connect",
        "[provider [model]] | status",
        "choose the provider (and model); 'status' shows the connection",
        ("@providers", "status"),
    ),
    Command(
        "model", "[name]", "pick a model of the provider (remembered per workspace)", ("@models",)
    ),
    Command("status", "", "workers (pid, state, restarts, RSS), provider, model, context used"),
    Command("undo", "", "revert the last change the agent made to your files"),
    Command("autocommit", "[on|off]", "commit each change the agent makes to git", _ONOFF),
    Command("automode", "[on|off]", "approve every tool call without asking", _ONOFF),
    Command("planmode", "[on|off]", "read-only: the agent plans, changes nothing", _ONOFF),
    Command("deepthink", "[on|off]", "ask the model to think longer", _ONOFF),
    Command("think", "[on|off]", "show the model's thinking (dimmed)", _ONOFF),
    Command(
        "perms",
        "[list | allow RULE | deny RULE | remove RULE]",
        "show or change the permission rules",
        ("list", "allow", "deny", "remove"),
    ),
    Command("mcp", "[list | restart NAME]", "MCP servers and their tools", ("list", "restart")),
    Command("agents", "[list]", "sub-agents and what they are doing", ("list",)),
    Command("skills", "", "the skills the agent can load", ("@skills",)),
    Command("memory", "", "what the agent remembers across sessions"),
    Command("title", "[text]", "show or set this session's title"),
    Command("autotitle", "[on|off]", "let the model title new sessions", _ONOFF),
    Command("sessions", "", "the sessions of this workspace"),
    Command("resume", "[title | id]", "pick a session to resume", ("@sessions",)),
    Command("load", "title | id", "load a session by title or id", ("@sessions",)),
    Command("save", "[title]", "name this session so /load finds it"),
    Command("export", "json|md [path]", "write the session to a file", ("json", "md")),
    Command("compact", "", "summarise the history now to free context"),
    Command("clear", "", "start a new session"),
    Command("expand", "[n]", "show the last (or the n-th last) tool output in full"),
    Command("exit", "", "leave harness", (), ("quit", "q")),
)

_BY_NAME = {c.name: c for c in COMMANDS} | {a: c for c in COMMANDS for a in c.aliases}


class ParsedCommand(NamedTuple):
    """A parsed slash command line: the command and its arguments."""

    command: Command
    args: tuple[str, ...]
    raw_args: str


def command_names() -> list[str]:
    """Every command name and alias (without the slash)."""
    return sorted(_BY_NAME)


def lookup(name: str) -> Command | None:
    """The command called *name* (or with that alias)."""
    return _BY_NAME.get(name.lower())


def suggest(name: str) -> str | None:
    """The command name closest to a mistyped *name*, or ``None``."""
    name = name.lower()
    prefixed = [c for c in command_names() if c.startswith(name)] if name else []
    if len(prefixed) == 1:
        return prefixed[0]
    import difflib  # only for a typo: kept off the start-up path

    close = difflib.get_close_matches(name, command_names(), n=1, cutoff=0.6)
    return close[0] if close else (prefixed[0] if prefixed else None)


def parse_command(line: str) -> ParsedCommand:
    """Parse ``/name args...``.

    Raises:
        CommandError: not a command, an unknown command (with a suggestion), or
            unbalanced quotes.
    """
    line = line.strip()
    if not line.startswith("/"):
        raise CommandError("not a slash command")
    name, _, rest = line[1:].partition(" ")
    command = lookup(name)
    if command is None:
        hint = suggest(name)
        msg = f"unknown command /{name}"
        raise CommandError(msg + (f"; did you mean /{hint}?" if hint else "; try /help"))
    try:
        args = tuple(shlex.split(rest))
    except ValueError as exc:
        raise CommandError(f"/{command.name}: {exc}") from exc
    return ParsedCommand(command=command, args=args, raw_args=rest.strip())


def is_command(line: str) -> bool:
    """Whether *line* is a slash command (and not a path like ``/etc/hosts ...``)."""
    s = line.strip()
    if not s.startswith("/") or s.startswith("//"):
        return False
    head = s[1:].split(" ", 1)[0]
    return "/" not in head


def help_rows() -> list[tuple[str, str]]:
    """``(usage, help)`` per command, for ``/help``."""
    return [(f"/{c.name} {c.usage}".rstrip(), c.help) for c in COMMANDS]


def on_off(args: tuple[str, ...], current: bool) -> bool:
    """The new value of an ``[on|off]`` toggle (no argument flips it).

    Raises:
        CommandError: the argument is neither on nor off.
    """
    if not args:
        return not current
    word = args[0].lower()
    if word in ("on", "true", "yes", "1"):
        return True
    if word in ("off", "false", "no", "0"):
        return False
    raise CommandError(f"expected on or off, got {args[0]!r}")
