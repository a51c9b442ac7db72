"""Messages between a sub-agent runner and the conversation that hired it.

The parent sends one :class:`SubagentRun`; the runner answers it with a
:class:`SubagentReport` when its loop ends. While it runs, the runner asks the
parent: model replies go as ``model.chat`` streams (the parent's model worker
answers), tool calls as :class:`SubagentToolCall` (the parent's permission rules,
approval prompt and workers decide and run them), and what it is doing as
:class:`SubagentNote` (the parent shows it and keeps the budgets).
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from harness.ipc import Message
from harness.messages.tools import ToolInvoke
from harness.words import PermissionMode

__all__ = [
    "NoteKind",
    "OfferedTool",
    "SubagentAck",
    "SubagentNote",
    "SubagentReport",
    "SubagentRun",
    "SubagentToolCall",
]

NoteKind = Literal["turn", "tool", "usage", "text", "report_requested", "stopping"]


@attrs.frozen
class OfferedTool:
    """A tool of the parent's that a runner's own table does not have (an MCP server's,
    one registered through the API): what the model is told of it. The parent runs it."""

    name: str
    description: str
    parameters: dict[str, Any] = attrs.field(factory=dict)
    kind: str = "read"
    executor: str = "conversation"
    main_arg: str | None = None


@attrs.frozen
class SubagentRun(Message, tag="subagent.run"):
    """Run *task* as a fresh conversation and answer with its report.

    ``tools`` is the set offered (already narrowed by the parent), ``extra_tools``
    the declarations of those among them the runner's table lacks; ``max_turns``
    the model requests before the runner asks once for a report; ``stop_hooks``
    says the parent has SubagentStop hooks, so the runner asks before it stops.
    """

    agent: str
    task: str
    workspace: str
    provider: str
    models: tuple[str, ...] = ()
    tool_protocol: str = "auto"
    permission_mode: PermissionMode = "auto"
    tools: tuple[str, ...] = ()
    extra_tools: tuple[OfferedTool, ...] = ()
    max_turns: int = 12
    system: str = ""
    temperature: float | None = None
    seed: int | None = None
    stop_hooks: bool = False


@attrs.frozen
class SubagentReport(Message, tag="subagent.report"):
    """How the sub-agent's run ended: ``reason`` as a conversation's ``result``
    (``done``, ``max_turns`` ...), ``text`` its final answer."""

    ok: bool
    text: str
    reason: str
    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@attrs.frozen
class SubagentNote(Message, tag="subagent.note"):
    """What the runner is doing: a turn began, a tool started, tokens were used,
    it said something, its turn limit came and it was asked for a report, or its
    model answered with no tool call and it is ``stopping`` (``stop_hook_active``:
    a SubagentStop hook already kept it going once)."""

    kind: NoteKind
    turn: int = 0
    tool: str = ""
    text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stop_hook_active: bool = False


@attrs.frozen
class SubagentAck(Message, tag="subagent.ack"):
    """The parent took a note; to a ``stopping`` note, ``go_on`` is why the sub-agent
    must go on (a SubagentStop hook blocked its stop), ``""`` that it may stop."""

    go_on: str = ""


@attrs.frozen
class SubagentToolCall(Message, tag="subagent.tool"):
    """Decide and run one tool call of the runner's model (answered by a
    ``tool.outcome``; a refusal is an outcome that is not ``ok``)."""

    invoke: ToolInvoke
    timeout: float | None = None
