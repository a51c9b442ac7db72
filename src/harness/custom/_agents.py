"""Named sub-agents defined as files: ``agents/<name>.md`` with a prompt, tools and a model.

A definition is Markdown with frontmatter, in the format Claude Code reads::

    ---
    name: reviewer
    description: Reviews a change for bugs. Use after code changes.
    tools: Read, Grep, Glob          # or a list; harness's names work too
    model: inherit                   # or a model of the session's provider
    ---
    You are a careful reviewer ... (the system prompt)

They are read from ``.harness/agents/``, then ``.claude/agents/`` in the workspace,
then ``$HARNESS_HOME/agents/``; the first definition of a name wins, so a project's
replaces the user's. A definition only narrows what a sub-agent may do: its tools
are a subset of the session's, and every call still passes the session's rules and
approval prompt, so a project's definitions need no trust.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

import attrs

from harness.custom._claude import map_tools, split_tool_list
from harness.custom._files import find_files

__all__ = ["CLAUDE_MODEL_ALIASES", "AgentDefinition", "Agents", "load_agents"]

#: Claude Code's model aliases: they name no model harness can ask for, so a
#: definition that gives one inherits the session's model (with a note).
CLAUDE_MODEL_ALIASES = frozenset({"sonnet", "opus", "haiku", "opusplan", "default"})

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@attrs.frozen
class AgentDefinition:
    """One named sub-agent.

    Attributes:
        name: what ``spawn_agent``'s ``agent`` argument names it by.
        description: when to use it (the model chooses by this).
        prompt: its system prompt (the file's body).
        tools: the harness tools it may use (``None``: all the session offers a
            sub-agent).
        model: a model of the session's provider (``None``: the session's).
        path: the file it came from.
        source: ``project`` or ``user``.
        notes: what was read other than as written (an unknown tool, a Claude alias).
    """

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None
    model: str | None
    path: Path
    source: str
    notes: tuple[str, ...] = ()


@attrs.frozen
class Agents:
    """The definitions visible from a workspace, and what went wrong reading them.

    Attributes:
        definitions: by name, in name order.
        problems: one sentence per file skipped or entry not taken as written,
            naming the file.
    """

    definitions: dict[str, AgentDefinition]
    problems: tuple[str, ...] = ()

    def get(self, name: str) -> AgentDefinition | None:
        """The definition called *name*, if there is one."""
        return self.definitions.get(name)

    def names(self) -> list[str]:
        """The definitions' names, sorted."""
        return sorted(self.definitions)


def _model(value: object, notes: list[str]) -> str | None:
    if value is None or value is False:
        return None
    text = str(value).strip()
    if not text or text == "inherit":
        return None
    if text.lower() in CLAUDE_MODEL_ALIASES:
        notes.append(
            f"model {text!r} is a Claude Code alias, not a model harness knows: "
            "it uses the session's model"
        )
        return None
    return text


def load_agents(
    workspace: Path | str,
    home: Path | str | None = None,
    *,
    known_tools: Collection[str] = (),
) -> Agents:
    """Every agent definition visible from *workspace*.

    Args:
        workspace: the project folder (``.harness/agents``, ``.claude/agents``).
        home: the state folder (default ``$HARNESS_HOME``).
        known_tools: harness's tool names a definition may name; any other name is
            left out of the agent's tools and reported.

    Never raises for a bad file: it is skipped and named in ``problems``.
    """
    problems: list[str] = []
    found: dict[str, AgentDefinition] = {}
    for f in find_files("agents", workspace, home, problems):
        name = str(f.fields.get("name") or f.stem).strip()
        if not _NAME.match(name):
            problems.append(
                f"{f.path}: skipped: {name!r} is not a usable agent name "
                "(letters, digits, '-', '_' and '.', at most 64)"
            )
            continue
        description = " ".join(str(f.fields.get("description") or "").split())
        if not description:
            problems.append(f"{f.path}: skipped: no description (the model picks an agent by it)")
            continue
        if not f.body.strip():
            problems.append(f"{f.path}: skipped: no prompt after the frontmatter")
            continue
        if name in found:
            first = found[name]
            problems.append(
                f"{f.path}: ignored: agent {name!r} is already defined by {first.path}"
                + (" (the project's wins over the user's)" if first.source != f.source else "")
            )
            continue
        notes: list[str] = []
        tools: tuple[str, ...] | None = None
        if f.fields.get("tools", "") != "":  # an empty ``tools:`` line means all
            entries = split_tool_list(f.fields["tools"])
            tools, tool_notes = map_tools(entries, known_tools)
            notes += tool_notes
        model = _model(f.fields.get("model"), notes)
        problems += [f"{f.path}: {n}" for n in notes]
        found[name] = AgentDefinition(
            name=name,
            description=description,
            prompt=f.body.strip(),
            tools=tools,
            model=model,
            path=f.path,
            source=f.source,
            notes=tuple(notes),
        )
    return Agents(dict(sorted(found.items())), tuple(problems))
