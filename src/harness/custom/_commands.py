"""Slash commands kept as files: ``commands/<name>.md``, a prompt with placeholders.

The format is Claude Code's::

    ---
    description: Review the staged change
    argument-hint: [focus]
    allowed-tools: Bash(git diff:*), Read
    model: qwen3:8b
    ---
    Staged change: !`git diff --cached`
    Review it, paying attention to $ARGUMENTS. Our style guide: @docs/style.md

Files are read from ``.harness/commands/``, then ``.claude/commands/`` in the
workspace, then ``$HARNESS_HOME/commands/``; the first command of a name wins.
Subfolders namespace as Claude Code does: ``frontend/component.md`` is
``/component``, described as ``(project:frontend)``, and is also ``/frontend:component``,
which stays unambiguous when two folders hold a ``component.md``. A command named
like a built-in one is refused with a message: ``/help`` always means harness's.
What a command does when typed is :func:`harness.custom.expand_command`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from pathlib import Path

import attrs

from harness.custom._files import find_files

__all__ = ["Commands", "FileCommand", "load_commands"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


@attrs.frozen
class FileCommand:
    """One command read from a file.

    Attributes:
        name: what it is typed as, without the slash (the file's name).
        namespace: the subfolders it sits in, joined by ``:`` (``""`` at the top).
        description: one line for ``/help`` (frontmatter, else the body's first line).
        argument_hint: what its arguments are, for ``/help`` and completion.
        allowed_tools: its ``allowed-tools`` entries as written; they can only narrow
            what its ``!`` lines may run, never widen the session's rules.
        model: a model of the session's provider for the prompt it becomes (``None``:
            the session's).
        body: the prompt, placeholders and all.
        path: the file.
        source: ``project`` or ``user``.
    """

    name: str
    namespace: str
    description: str
    argument_hint: str
    allowed_tools: tuple[str, ...]
    model: str | None
    body: str
    path: Path
    source: str

    @property
    def qualified(self) -> str:
        """``namespace:name``, or the name when it sits at the top."""
        return f"{self.namespace}:{self.name}" if self.namespace else self.name

    @property
    def label(self) -> str:
        """Where it came from, as ``/help`` shows it: ``project``, ``user:git``."""
        return f"{self.source}:{self.namespace}" if self.namespace else self.source


@attrs.frozen
class Commands:
    """The file commands visible from a workspace.

    Attributes:
        by_name: every name a command answers to (its name, and ``namespace:name``).
        problems: one sentence per file skipped or refused, naming the file.
    """

    by_name: dict[str, FileCommand]
    problems: tuple[str, ...] = ()

    def get(self, name: str) -> FileCommand | None:
        """The command *name* (as typed, without the slash) runs, if any."""
        return self.by_name.get(name.lower())

    def __iter__(self) -> Iterator[FileCommand]:
        seen: set[Path] = set()
        for name in sorted(self.by_name):
            cmd = self.by_name[name]
            if cmd.path not in seen:
                seen.add(cmd.path)
                yield cmd

    def __len__(self) -> int:
        return len({c.path for c in self.by_name.values()})


def _description(fields: dict[str, object], body: str) -> str:
    text = " ".join(str(fields.get("description") or "").split())
    if text:
        return text
    first = next((ln.strip("# ").strip() for ln in body.splitlines() if ln.strip()), "")
    return first[:120]


def _hint(value: object) -> str:
    # ``[message]`` reads as a YAML list; Claude Code shows the text as written
    if isinstance(value, list):
        return " ".join(f"[{v}]" for v in value)
    return str(value or "").strip()


def _model(value: object) -> str | None:
    text = str(value or "").strip()
    return None if text in ("", "inherit") else text


def load_commands(
    workspace: Path | str,
    home: Path | str | None = None,
    *,
    reserved: Collection[str] = (),
) -> Commands:
    """Every file command visible from *workspace*.

    Args:
        workspace: the project folder (``.harness/commands``, ``.claude/commands``).
        home: the state folder (default ``$HARNESS_HOME``).
        reserved: the built-in commands' names and aliases: a file command with one
            of them is refused.

    Never raises for a bad file: it is skipped and named in ``problems``.
    """
    from harness.custom._claude import split_tool_list

    problems: list[str] = []
    builtin = {r.lower() for r in reserved}
    by_name: dict[str, FileCommand] = {}
    for f in find_files("commands", workspace, home, problems, recursive=True):
        name = f.stem.lower()
        namespace = f.namespace.lower()
        if not _NAME.match(name) or not all(_NAME.match(p) for p in namespace.split(":") if p):
            problems.append(
                f"{f.path}: skipped: {f.stem!r} is not a usable command name "
                "(letters, digits, '-', '_' and '.')"
            )
            continue
        if name in builtin:
            problems.append(f"{f.path}: refused: /{name} is a built-in command; rename the file")
            continue
        model = _model(f.fields.get("model"))
        cmd = FileCommand(
            name=name,
            namespace=namespace,
            description=_description(f.fields, f.body),
            argument_hint=_hint(f.fields.get("argument-hint")),
            allowed_tools=tuple(split_tool_list(f.fields.get("allowed-tools"))),
            model=model,
            body=f.body,
            path=f.path,
            source=f.source,
        )
        taken = by_name.get(cmd.qualified)
        if taken is not None:
            problems.append(
                f"{f.path}: ignored: /{cmd.qualified} is already defined by {taken.path}"
                + (" (the project's wins over the user's)" if taken.source != f.source else "")
            )
            continue
        by_name[cmd.qualified] = cmd
        # the bare name goes to the first command that has it
        by_name.setdefault(name, cmd)
    return Commands(by_name, tuple(problems))
