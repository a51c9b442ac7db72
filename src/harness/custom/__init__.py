"""A project's own sub-agents and slash commands, kept as Markdown files.

- Named sub-agents: ``agents/<name>.md`` (:func:`load_agents`), a system prompt with
  ``name``, ``description``, ``tools`` and ``model`` in its frontmatter.
- Commands: ``commands/<name>.md`` (:func:`load_commands`), a prompt with
  ``$ARGUMENTS``, ``$1`` … ``$9``, ``!`cmd` `` and ``@file``, expanded by
  :func:`expand_command`.

Both are read from the workspace's ``.harness/`` and ``.claude/`` folders and from
``$HARNESS_HOME``, in Claude Code's format (its tool names are mapped onto harness's by
:func:`map_tools`, through :data:`harness.words.CLAUDE_TOOLS`), so files copied from a
Claude Code project work as they are. A bad file is skipped with a sentence naming it;
the rest load. Nothing here widens what the session may do: an agent's tools and a
command's ``allowed-tools`` only narrow, and every call still passes the session's rules.

The agents load with the package (every session offers them); the commands and their
expansion on first use of their names (a prompt that names no command never needs them).
"""

from typing import TYPE_CHECKING

from harness._lazy import lazy_names as _lazy_names
from harness.custom._agents import CLAUDE_MODEL_ALIASES, AgentDefinition, Agents, load_agents
from harness.custom._claude import map_tools, split_tool_list
from harness.custom._files import MAX_BYTES, DefinitionError, definition_dirs

if TYPE_CHECKING:
    from harness.custom._commands import Commands, FileCommand, load_commands
    from harness.custom._expand import (
        MAX_INLINE,
        Expansion,
        ShellRunner,
        expand_command,
        shell_allowed,
    )

__all__ = [
    "CLAUDE_MODEL_ALIASES",
    "MAX_BYTES",
    "MAX_INLINE",
    "AgentDefinition",
    "Agents",
    "Commands",
    "DefinitionError",
    "Expansion",
    "FileCommand",
    "ShellRunner",
    "definition_dirs",
    "expand_command",
    "load_agents",
    "load_commands",
    "map_tools",
    "shell_allowed",
    "split_tool_list",
]

_LAZY = {
    **dict.fromkeys(("Commands", "FileCommand", "load_commands"), "harness.custom._commands"),
    **dict.fromkeys(
        ("MAX_INLINE", "Expansion", "ShellRunner", "expand_command", "shell_allowed"),
        "harness.custom._expand",
    ),
}


__getattr__ = _lazy_names(__name__, _LAZY)
