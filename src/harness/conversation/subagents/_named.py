"""Named sub-agents: the definitions offered to the model, and what hiring one gives.

The definitions (:class:`harness.custom.Agents`, read from ``agents/*.md`` when the
session opens) reach the model through ``spawn_agent`` itself: an ``agent`` argument
naming one of them, and each one's name and description in the tool's description.
A named agent's prompt, model and tools come from its file; its tools are cut to what
a sub-agent may have in this session, so a definition only ever narrows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from harness.actors.tools import ToolSpec, ToolTable
    from harness.conversation.subagents._task import Task
    from harness.custom import AgentDefinition, Agents

__all__ = ["Hire", "hire", "load_definitions", "offer", "resolve"]


def offer(spec: ToolSpec, agents: Agents) -> ToolSpec:
    """``spawn_agent`` as the model is offered it when there are definitions: an
    ``agent`` argument (one of their names) and each one's description."""
    if not agents.definitions:
        return spec
    names = agents.names()
    params = dict(spec.parameters)
    props = dict(params.get("properties", {}))
    props["agent"] = {
        "type": "string",
        "enum": names,
        "description": "A named agent to hire for the task: its own instructions, "
        "tools and model come with it.",
    }
    params["properties"] = props
    lines = [spec.description, "", "Named agents (give agent=NAME with the task):"]
    lines += [f"- {a.name}: {a.description}" for a in agents.definitions.values()]
    return attrs.evolve(spec, description="\n".join(lines), parameters=params)


@attrs.frozen
class Hire:
    """What a named agent is run with.

    Attributes:
        system: its system prompt (the definition's, then the sub-agent note).
        model: the model it asks (``None``: the session's).
        tools: the tools it is offered.
        notes: what the parent is told beside the report (tools it names that this
            session does not have).
    """

    system: str
    model: str | None
    tools: tuple[str, ...]
    notes: tuple[str, ...] = ()


def hire(
    definition: AgentDefinition,
    *,
    tools: Sequence[str] | None,
    model: str | None,
    available: Sequence[str],
    system: str,
) -> Hire | str:
    """What *definition* runs with, or why it cannot be hired so.

    Args:
        definition: the named agent.
        tools: the tools the call asked for (``None``: the definition's).
        model: the model the call asked for (``None``: the definition's).
        available: the tools any sub-agent may have in this session now.
        system: the note every sub-agent's system prompt ends with.
    """
    if definition.tools is None:
        allowed, missing = list(available), []
    else:
        allowed = [t for t in definition.tools if t in available]
        missing = [t for t in definition.tools if t not in available]
    if tools is not None:
        outside = [t for t in tools if t not in allowed]
        if outside:
            return (
                f"The agent {definition.name} cannot be given {', '.join(outside)}; it may "
                f"use: {', '.join(allowed) or 'no tools'}."
            )
        allowed = list(tools)
    notes = (
        (f"{definition.name} names tools this session cannot give it: {', '.join(missing)}.",)
        if missing
        else ()
    )
    return Hire(
        system=f"{definition.prompt}\n\n{system}",
        model=model or definition.model,
        tools=tuple(allowed),
        notes=notes,
    )


def load_definitions(workspace: str, home: str | None, table: ToolTable) -> Agents:
    """The definitions visible from *workspace*; when there are any, *table*'s
    ``spawn_agent`` becomes the one that offers them (:func:`offer`)."""
    from harness.custom import load_agents

    agents = load_agents(workspace, home, known_tools=table.names())
    if agents.definitions and "spawn_agent" in table:
        table.register(offer(table.get("spawn_agent"), agents), replace=True)
    return agents


def resolve(
    task: Task, agents: Agents, available: Sequence[str] | str, system: str
) -> tuple[Task, Hire] | str:
    """*task* as its named agent runs it (its tools and model filled in) and what that
    agent is run with; or why it cannot be (no such agent, a tool it may not have)."""
    definition = agents.get(task.agent or "")
    if definition is None:
        names = ", ".join(agents.names()) or "none are defined"
        return f"There is no agent named {task.agent!r}; the agents are: {names}."
    if isinstance(available, str):
        return available
    got = hire(definition, tools=task.tools, model=task.model, available=available, system=system)
    if isinstance(got, str):
        return got
    return attrs.evolve(task, tools=got.tools, model=got.model), got
