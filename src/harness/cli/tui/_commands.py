"""Slash commands: each declared once, where it is handled, with ``@command``.

The declaration carries everything about a command (its name, usage, one line of
help, what each argument completes to, its aliases) and turns the function under
it, what runs, into a :class:`Command`. A :class:`CommandSet` gathers the commands
declared in some modules; ``/help``, the completer, the dispatcher and the README's
table all read that set. This module stays light (no rich, no trio): the completer
reads the set while the first prompt is already on the screen.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable, Iterable, Iterator
from types import ModuleType
from typing import Any, NamedTuple

from harness.errors import HarnessError

__all__ = [
    "Command",
    "CommandError",
    "CommandSet",
    "ExitApp",
    "Handler",
    "ParsedCommand",
    "command",
    "is_command",
    "on_off",
]


class CommandError(HarnessError, ValueError):
    """A slash command line that cannot be run; the message is for the user."""


class ExitApp(Exception):
    """Raised by ``/exit``."""


#: what runs one slash command: ``async def handler(ctx: CommandContext, p: ParsedCommand)``.
#: The context (:mod:`._context`) sits above this module, which every command and the
#: completer read, so its type is not named here.
Handler = Callable[[Any, "ParsedCommand"], Awaitable[None]]


class Command(NamedTuple):
    """One slash command.

    Attributes:
        name: without the slash.
        usage: the argument synopsis shown by ``/help``.
        help: one line on what it does.
        run: the handler.
        complete: per argument position, what it completes to: fixed words, or the
            name of a dynamic list (``"@models"``, ``"@sessions"``, ``"@skills"``,
            ``"@providers"``, ``"@commands"``).
        aliases: other names that run it.
    """

    name: str
    usage: str
    help: str
    run: Handler
    complete: tuple[tuple[str, ...], ...] = ()
    aliases: tuple[str, ...] = ()


class ParsedCommand(NamedTuple):
    """A parsed slash command line: the command and its arguments."""

    command: Command
    args: tuple[str, ...]
    raw_args: str


ON_OFF = (("on", "off"),)
"""The completion of an ``[on|off]`` toggle."""


def command(
    name: str,
    usage: str,
    help: str,
    *,
    complete: tuple[tuple[str, ...], ...] = (),
    aliases: tuple[str, ...] = (),
) -> Callable[[Handler], Command]:
    """Declare the function below as slash command ``/name``: the name it is bound to
    becomes the :class:`Command` (its handler is ``.run``)."""

    def declare(fn: Handler) -> Command:
        return Command(name, usage, help, fn, complete, aliases)

    return declare


class CommandSet:
    """The commands declared in *modules*, in the order they are declared.

    Raises:
        ValueError: two commands share a name or an alias.
    """

    def __init__(self, *modules: ModuleType) -> None:
        self._commands: list[Command] = []
        self._by_name: dict[str, Command] = {}
        for module in modules:
            for value in vars(module).values():
                if isinstance(value, Command):
                    self._add(value)

    def _add(self, cmd: Command) -> None:
        for name in (cmd.name, *cmd.aliases):
            if name in self._by_name:
                raise ValueError(f"/{name} is declared twice")
            self._by_name[name] = cmd
        self._commands.append(cmd)

    def __iter__(self) -> Iterator[Command]:
        return iter(self._commands)

    def extended(self, extra: Iterable[Command]) -> CommandSet:
        """This set with *extra* commands after its own (the commands kept as files).

        Raises:
            ValueError: an extra command shares a name or an alias with another.
        """
        out = CommandSet()
        for cmd in (*self._commands, *extra):
            out._add(cmd)
        return out

    def __len__(self) -> int:
        return len(self._commands)

    def names(self) -> list[str]:
        """Every command name and alias (without the slash), sorted."""
        return sorted(self._by_name)

    def lookup(self, name: str) -> Command | None:
        """The command called *name* (or with that alias); a command whose name ends in
        ``__`` (``mcp__``) answers every name it begins, under the name typed."""
        name = name.lower()
        found = self._by_name.get(name)
        if found is None:
            prefix = next((p for p in self._by_name if p.endswith("__") and name.startswith(p)), "")
            if prefix and len(name) > len(prefix):
                return self._by_name[prefix]._replace(name=name)
        return found

    def suggest(self, name: str) -> str | None:
        """The command name closest to a mistyped *name*, or ``None``."""
        name = name.lower()
        names = self.names()
        prefixed = [c for c in names if c.startswith(name)] if name else []
        if len(prefixed) == 1:
            return prefixed[0]
        import difflib  # only for a typo: kept off the start-up path

        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        return close[0] if close else (prefixed[0] if prefixed else None)

    def parse(self, line: str) -> ParsedCommand:
        """Parse ``/name args...``.

        Raises:
            CommandError: not a command, an unknown command (with a suggestion), or
                unbalanced quotes.
        """
        line = line.strip()
        if not line.startswith("/"):
            raise CommandError("not a slash command")
        name, _, rest = line[1:].partition(" ")
        cmd = self.lookup(name)
        if cmd is None:
            hint = self.suggest(name)
            msg = f"unknown command /{name}"
            raise CommandError(msg + (f"; did you mean /{hint}?" if hint else "; try /help"))
        try:
            args = tuple(shlex.split(rest))
        except ValueError as exc:
            raise CommandError(f"/{cmd.name}: {exc}") from exc
        return ParsedCommand(command=cmd, args=args, raw_args=rest.strip())

    def help_rows(self) -> list[tuple[str, str]]:
        """``(usage, help)`` per command, for ``/help``."""
        return [(f"/{c.name} {c.usage}".rstrip(), c.help) for c in self._commands]


def is_command(line: str) -> bool:
    """Whether *line* is a slash command (and not a path like ``/etc/hosts ...``)."""
    s = line.strip()
    if not s.startswith("/") or s.startswith("//"):
        return False
    head = s[1:].split(" ", 1)[0]
    return "/" not in head


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
